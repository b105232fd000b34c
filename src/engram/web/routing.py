"""Putting the dashboard at /ui beside another ASGI app (the MCP endpoint of `engram serve
--http`), each with its own access rule: the dashboard signs in with the token once and keeps a
cookie; MCP clients send the token with every request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PREFIX = "/ui"


def with_dashboard(ui: ASGIApp, other: ASGIApp) -> ASGIApp:
    """Requests under /ui go to `ui` (mounted there: its links carry the prefix), everything
    else — and the lifespan events, which the MCP app needs to start its sessions — to
    `other`."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] in ("http", "websocket") and (
            path == PREFIX or path.startswith(PREFIX + "/")
        ):
            mounted = {**scope, "root_path": str(scope.get("root_path", "")) + PREFIX}
            if path == PREFIX:
                mounted["path"] = PREFIX + "/"
            await ui(mounted, receive, send)
            return
        await other(scope, receive, send)

    return route


async def to_dashboard(scope: Scope, receive: Receive, send: Send) -> None:
    """What `engram ui` answers outside /ui: a redirect there."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 307,
            "headers": [(b"location", (PREFIX + "/").encode())],
        }
    )
    await send({"type": "http.response.body", "body": b""})
