"""Putting the dashboard at /ui beside another ASGI app (the MCP endpoint of `engram serve
--http`), each with its own access rule: the dashboard signs in with the token once and keeps a
cookie; MCP clients send the token with every request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

# The ASGI types, one place for the dashboard and the MCP endpoint.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PREFIX = "/ui"


# Sent with every dashboard page: no other page may frame it (a page on another port of
# 127.0.0.1 framed a delete confirmation under a button of its own, and one click deleted).
NO_FRAMING = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
]


def with_dashboard(ui: ASGIApp, other: ASGIApp, hosts: frozenset[str] | None = None) -> ASGIApp:
    """Requests under /ui go to `ui` (mounted there: its links carry the prefix), everything
    else — and the lifespan events, which the MCP app needs to start its sessions — to
    `other`. `hosts`: the Host headers the dashboard answers (those of a server bound to
    loopback); a page whose own name was rebound to 127.0.0.1 (DNS rebinding) signed in and
    deleted through it, while /mcp refused it."""
    ui = _guarded(ui, hosts)

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
        if scope["type"] == "http" and path == "/" and scope.get("method") == "GET":
            # A browser at the server's address: the dashboard, not the MCP endpoint's 401
            # (a helper's probe); MCP clients post to /mcp.
            await _redirect_to_dashboard(send)
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
    await _redirect_to_dashboard(send)


async def _redirect_to_dashboard(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 307,
            "headers": [(b"location", (PREFIX + "/").encode())],
        }
    )
    await send({"type": "http.response.body", "body": b""})


def _guarded(ui: ASGIApp, hosts: frozenset[str] | None) -> ASGIApp:
    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await ui(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        if hosts is not None and headers.get(b"host", b"").decode("latin-1").lower() not in hosts:
            await send(
                {
                    "type": "http.response.start",
                    "status": 421,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), *NO_FRAMING],
                }
            )
            await send({"type": "http.response.body", "body": b"Invalid Host header"})
            return

        async def framed_by_none(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *NO_FRAMING]}
            await send(message)

        await ui(scope, receive, framed_by_none)

    return guard
