"""Serving HTTP until Ctrl-C (or SIGTERM) with a stop that answers what it already took.

uvicorn's graceful stop waits for the requests in progress, but the SDK answers a tool call
over a server-sent-events stream, and sse-starlette ends every such stream the moment uvicorn
is told to stop: a save under way when the server was stopped was stored, and its client told
it had failed (audit). So the streams are not ended on the signal: the server stops accepting,
waits until no request that asks for something (anything but a GET: tool calls, sessions
ending) is in progress, and only then lets the streams end, the long-lived GET streams of idle
sessions among them, or STOP_GRACE seconds have passed. A second Ctrl-C stops at once, as
uvicorn's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

import uvicorn
from sse_starlette.sse import AppStatus

from engram.web.routing import ASGIApp, Receive, Scope, Send

POLL = 0.05  # seconds between looks at the requests in progress while stopping
# The longest a stop waits for them: a client that sent part of a request and waited held the
# server past SIGTERM for as long as it liked (a helper's probe). What is cut then is rolled
# back, every write being one transaction. Well inside a service manager's own wait (90 s).
STOP_GRACE = 30


class InFlight:
    """ASGI middleware counting the requests in progress that are not GETs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.count = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "GET":
            await self.app(scope, receive, send)
            return
        self.count += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.count -= 1


class DrainingServer(uvicorn.Server):
    """uvicorn's server, whose stop lets the streams end only once `tracked` is idle."""

    def __init__(self, config: uvicorn.Config, tracked: InFlight) -> None:
        super().__init__(config)
        self.tracked = tracked

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        drained = asyncio.ensure_future(self._drain())
        try:
            await super().shutdown(sockets)
        finally:
            AppStatus.should_exit = True
            drained.cancel()

    async def _drain(self) -> None:
        while self.tracked.count and not self.force_exit:
            await asyncio.sleep(POLL)
        AppStatus.should_exit = True


def serve(app: ASGIApp, listener: socket.socket) -> None:
    """Serve `app` on a socket bound already (`engram.mcp.http.bound_socket`), which uvicorn
    makes listen, until Ctrl-C or SIGTERM; the requests in progress then finish and answer."""
    # Ended by us once nothing is in progress (above), not by sse-starlette on the signal.
    AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]
    tracked = InFlight(app)
    config = uvicorn.Config(tracked, log_level="warning", timeout_graceful_shutdown=STOP_GRACE)
    server = DrainingServer(config, tracked)
    with listener, contextlib.suppress(KeyboardInterrupt):  # re-raised by uvicorn once stopped
        server.run(sockets=[listener])
