"""The stdio transport with an answer for every request.

The SDK's stdio transport drops a line it cannot parse as an MCP message: JSON nested deeper
than its parser allows, a lone surrogate escape, a batch array, `"jsonrpc": "1.0"`, `params`
given as a list. The client then waits forever for its answer and nothing is logged. Here each
line is checked before the SDK sees it: a valid message passes through unchanged; a broken
request is answered with the JSON-RPC error the specification gives for it (parse error,
invalid request, invalid params), carrying the request's id when one can be read; a broken
notification or response, which must never be answered, is logged to stderr.

The error answers go through the SDK's writer, so two messages can never interleave on the
wire. A valid line is therefore parsed twice, here and by the SDK: one more parse of one short
line, small beside a tool call's round trip (bench/mcp_latency.py).

The writing side is `DirectOutput`: each message written straight from the event loop, not
through a worker thread (see there).

At the end of the input, the requests already read are answered before the server stops
(`Answered`): the SDK cancels them when its input ends, and a client that sends its requests
and closes stdin (`engram serve < requests.jsonl`) got 6 answers of 20 saves, all 20 stored.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import select
import sys
import threading
from dataclasses import dataclass
from typing import IO, Any, Self, cast

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rejection:
    """Why a line is not a message the server can handle, and the answer it gets (None when
    the line is a notification or a response: those are never answered)."""

    reason: str
    answer: types.JSONRPCError | None


def check_line(line: str) -> Rejection | None:
    """None for a line the SDK accepts; otherwise what is wrong with it and what to answer."""
    if not line.strip():
        return None  # blank lines between messages are harmless; the SDK skips them too
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        sdk_error: ValueError = exc
    else:
        if isinstance(message, types.JSONRPCNotification) and '"id"' in line:
            return _bad_id(line)
        return None
    try:
        obj = json.loads(line)
    except (RecursionError, ValueError) as exc:
        # Valid JSON may nest deeper than Python's parser goes (1,500 brackets in `meta`), or
        # hold an integer longer than it reads (4,300 digits): its top level still says whose
        # request it is, and the answer must carry that id (the client waits on it).
        try:
            top = json.loads(_top_level(line))
        except (RecursionError, ValueError):
            return _error(None, types.PARSE_ERROR, "Parse error: the line is not valid JSON")
        if isinstance(exc, RecursionError):
            obj = top
        else:
            ident = _id_of(top) if isinstance(top, dict) else None
            return _error(ident, types.PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(obj, list) and obj and all(isinstance(item, dict) for item in obj):
        return _error(
            None,
            types.INVALID_REQUEST,
            "Invalid Request: batches (JSON arrays) are not supported; send one message per line",
        )
    if not isinstance(obj, dict):
        return _error(None, types.INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    ident = _id_of(obj)
    if "method" not in obj or "id" not in obj:
        # A notification or a response: the specification forbids answering either.
        return Rejection(f"notification or response dropped: {_summary(sdk_error)}", None)
    if obj.get("jsonrpc") != "2.0":
        return _error(ident, types.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if ident is None:
        return _bad_id(line)
    if "params" in obj and not isinstance(obj["params"], dict):
        return _error(ident, types.INVALID_PARAMS, 'Invalid params: "params" must be an object')
    if _has_lone_surrogate(obj):
        return _error(
            ident,
            types.PARSE_ERROR,
            "Parse error: the line is not UTF-8, or a string holds a lone surrogate",
        )
    return _error(ident, types.INVALID_REQUEST, f"Invalid Request: {_summary(sdk_error)}")


def _bad_id(line: str) -> Rejection | None:
    """The SDK reads a request whose id is not a string or an integer (`true`, an object,
    `null`, which MCP forbids) as a notification and never answers it; the specification calls
    it an invalid request."""
    obj = json.loads(line)
    if isinstance(obj, dict) and "id" in obj and _id_of(obj) is None:
        return _error(
            None, types.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer'
        )
    return None


def _error(ident: str | int | None, code: int, message: str) -> Rejection:
    answer = types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message)
    )
    return Rejection(message, answer)


def _id_of(obj: dict[str, Any]) -> str | int | None:
    ident = obj.get("id")
    if isinstance(ident, bool) or not isinstance(ident, str | int):
        return None
    return ident


def _has_lone_surrogate(value: object) -> bool:
    """Walked with a stack, not by recursion: a line nested 400 deep raised RecursionError
    here, which stopped the SDK's reader and so the server."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


# A JSON string, a bracket, or a run of anything else (numbers, literals, commas, spaces).
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|[^"\[\]{}]+')


def _top_level(line: str) -> str:
    """The line with each value nested inside a member of the top-level object emptied to
    `{}` or `[]`: it parses however deep the original went, and keeps the id, the method and
    "jsonrpc" as they were."""
    out: list[str] = []
    depth = 0
    for token in _TOKENS.findall(line):
        if token in ("{", "["):
            depth += 1
            if depth == 1:
                out.append(token)
            elif depth == 2:
                out.append("{}" if token == "{" else "[]")
        elif token in ("}", "]"):
            if depth == 1:
                out.append(token)
            depth -= 1
        elif depth <= 1:
            out.append(token)
    return "".join(out)


def _summary(exc: ValueError) -> str:
    """The parser's complaint when it is about the JSON itself (nested too deep), else a
    plain description: the SDK's union errors list every message type it tried."""
    if isinstance(exc, ValidationError):
        for error in exc.errors():
            if error["type"] == "json_invalid":
                return str(error["msg"])
    return "not a valid JSON-RPC 2.0 message"


class CheckedInput:
    """A line reader for the SDK's transport (it calls `readline` in a worker thread): valid
    lines are returned, broken ones answered through `replies` and skipped."""

    def __init__(self, source: IO[str]) -> None:
        self._source = source
        self._replies: MemoryObjectSendStream[SessionMessage] | None = None
        self._attached = threading.Event()

    def attach(self, replies: MemoryObjectSendStream[SessionMessage]) -> None:
        """Where answers go: the transport's outgoing stream, known once it is running."""
        self._replies = replies
        self._attached.set()

    def readline(self) -> str:
        while True:
            line = self._source.readline()
            rejection = check_line(line) if line else None
            if rejection is None:
                return line
            log.warning("stdin: %s", rejection.reason)
            if rejection.answer is not None:
                self._attached.wait()
                assert self._replies is not None
                try:
                    anyio.from_thread.run(self._replies.send, SessionMessage(rejection.answer))
                except anyio.ClosedResourceError:
                    return ""  # the server is shutting down


def claim_stdin() -> IO[str]:
    """The protocol's input as UTF-8 text, with file descriptor 0 pointed at the null device
    while serving, so nothing else in the process (or a child) can read protocol bytes."""
    try:
        wire = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        binary: IO[bytes] = os.fdopen(wire, "rb", closefd=False)
    except OSError:
        binary = sys.stdin.buffer
    # Bytes that are not UTF-8 become lone surrogates (not U+FFFD, silently saved as part of a
    # memory's text: "Caf\xe9" was stored as "Caf\ufffd"), and `check_line` answers the
    # request with a parse error.
    return io.TextIOWrapper(cast(Any, binary), encoding="utf-8", errors="surrogateescape")


class DirectOutput:
    """The protocol's output, written from the event loop itself.

    The SDK writes every message through anyio's file wrapper: a write and a flush, each a hop
    to a worker thread and back. Here the file descriptor is non-blocking and a message is
    written at once; only when the pipe is full (the client is not reading) does the rest wait
    in a worker thread, so the event loop is never stuck behind a slow client and keeps reading
    requests meanwhile. What the two hops cost is small and mostly in the tail: a round trip of
    `open_memories` through a real client, six interleaved pairs of runs, p95 1.1–1.7 ms
    without them against 1.5–2.0 ms with them; the p50s overlap (1.0–1.4 against 1.1–1.5 ms).
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                data = data[os.write(self._fd, data) :]
            except BlockingIOError:
                await anyio.to_thread.run_sync(self._until_writable, abandon_on_cancel=True)
        return len(text)

    async def flush(self) -> None:
        """Nothing to flush: every write went to the descriptor."""

    def _until_writable(self) -> None:
        select.select([], [self._fd], [])


def claim_stdout() -> DirectOutput | None:
    """The protocol's output as a `DirectOutput`, with file descriptor 1 pointed at stderr
    while serving, so a stray print (ours, a library's, a child's) lands in the log instead of
    corrupting a message. None where a pipe cannot be made non-blocking (Windows), or must not
    be (`_shared_with_input`): the SDK's own writer then does the same job through a worker
    thread."""
    if sys.platform == "win32" or _shared_with_input(1):
        return None
    try:
        wire = os.dup(1)
    except OSError:
        return None
    try:
        os.set_blocking(wire, False)
        sys.stdout.flush()
        os.dup2(2, 1)
    except OSError:
        os.close(wire)
        return None
    return DirectOutput(wire)


def _shared_with_input(fd: int) -> bool:
    """Whether output on `fd` is a terminal, or the file input is read from (file descriptor
    0, not yet claimed). Non-blocking is a property of the open file: made so for writing, a
    terminal (which the shell opened once for input and output, and keeps) read nothing ("try
    again"), and `engram serve` typed in one, as docs/tools.md advises to check a setup, ended
    at once and left it unreadable (a new user's probe)."""
    try:
        output, given = os.fstat(fd), os.fstat(0)
        return os.isatty(fd) or (output.st_dev, output.st_ino) == (given.st_dev, given.st_ino)
    except OSError:
        return True


# How long the end of the input waits for the requests already read to be answered: a client
# that wants the server gone at once sends SIGTERM (`engram.mcp.stopping`).
ANSWER_PATIENCE = 60.0
CANCELLED = "notifications/cancelled"


class Answered:
    """The requests the server has read and not yet answered, kept by wrapping the two streams
    between the transport and the SDK; the reading side ends only once every one is answered
    (or cancelled by the client), or after ANSWER_PATIENCE seconds."""

    def __init__(self, patience: float = ANSWER_PATIENCE) -> None:
        self.pending: set[types.RequestId] = set()
        self._patience = patience

    def reading(self, stream: MemoryObjectReceiveStream[SessionMessage | Exception]) -> _Reading:
        return _Reading(stream, self)

    def writing(self, stream: MemoryObjectSendStream[SessionMessage]) -> _Writing:
        return _Writing(stream, self)

    def read(self, item: SessionMessage | Exception) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, types.JSONRPCRequest):
            self.pending.add(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == CANCELLED:
            # A cancelled request is never answered: it is not waited for.
            self.pending.discard((message.params or {}).get("requestId"))

    def written(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self.pending.discard(message.id)

    async def settled(self) -> None:
        with anyio.move_on_after(self._patience):
            while self.pending:
                await anyio.sleep(0.01)
        if self.pending:
            log.warning("stdin closed: %d requests left unanswered", len(self.pending))


class _Stream:
    """One of the transport's streams, closed with the wrapper around it."""

    def __init__(
        self,
        inner: MemoryObjectReceiveStream[Any] | MemoryObjectSendStream[Any],
        ledger: Answered,
    ) -> None:
        self._inner, self._ledger = inner, ledger

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Reading(_Stream):
    """The SDK's read stream, told apart only in that its end waits for `Answered.settled`."""

    _inner: MemoryObjectReceiveStream[SessionMessage | Exception]

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except anyio.EndOfStream:
            await self._ledger.settled()
            raise
        self._ledger.read(item)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Writing(_Stream):
    """The SDK's write stream, noting each answer in `Answered`."""

    _inner: MemoryObjectSendStream[SessionMessage]

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        self._ledger.written(item)
