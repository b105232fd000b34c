"""The stdio wire, byte by byte: a real `python -m engram.mcp` process fed raw lines, the way a
buggy or hostile client would write them. Every request gets an answer — its result or the
JSON-RPC error the specification gives — and the server keeps serving. The MCP client library
cannot send these lines (it validates what it sends), so this test writes them itself."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from tests.adapters.test_mcp import RawServer, initialize_request, server_params

from engram.mcp.stdio import Answered, DirectOutput

ANSWER_SECONDS = 20
# A server that waits for a busy store (another process writing) instead of failing its calls.
BUSY = {"ENGRAM_EMBEDDING_MODEL": "none", "ENGRAM_SQLITE_BUSY_TIMEOUT": "120"}


class Wire(RawServer):
    """A server process whose stdin also takes raw bytes, read one answer at a time."""

    def send_raw(self, line: str | bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        stdin.flush()
        stdin.buffer.write(data + b"\n")
        stdin.buffer.flush()

    def receive(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            pytest.fail(f"no answer within {ANSWER_SECONDS} s: {self.stderr_path.read_text()}")
        message = json.loads(line)
        assert isinstance(message, dict)
        return message

    def ping(self, ident: int) -> None:
        """A valid request right after: its answer must be the next message (so nothing was
        answered for a line that must not be, and the server still serves)."""
        self.send({"jsonrpc": "2.0", "id": ident, "method": "ping"})
        assert self.receive() == {"jsonrpc": "2.0", "id": ident, "result": {}}


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    w = Wire(tmp_path_factory.mktemp("wire"))
    try:
        assert w.initialize("wire-test", request_id=0)["id"] == 0
        w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield w
    finally:
        w.close()


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


# (line, expected error code, expected id) — each one a line the SDK alone never answered.
BROKEN_REQUESTS = {
    "not JSON": ("this is not json", -32700, None),
    "truncated": ('{"jsonrpc": "2.0", "id": 7, "method": "pi', -32700, None),
    "lone surrogate": (
        '{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"\\ud800"}}',
        -32700,
        8,
    ),
    "batch": ('[{"jsonrpc":"2.0","id":9,"method":"ping"}]', -32600, None),
    "jsonrpc 1.0": ('{"jsonrpc":"1.0","id":10,"method":"ping"}', -32600, 10),
    "params as a list": ('{"jsonrpc":"2.0","id":11,"method":"ping","params":[]}', -32602, 11),
    "nested 250 deep": (
        '{"jsonrpc":"2.0","id":12,"method":"ping","params":' + nested(250) + "}",
        -32600,
        12,
    ),
    "array nested 250 deep": ("[" * 250 + "]" * 250, -32600, None),
    # deeper than the checks' own recursion (400: the server died) and than Python's JSON
    # parser (1,500: answered without its id, so the client waited for ever)
    "nested 400 deep in an argument": (
        '{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":' + "[" * 400 + "]" * 400 + "}}",
        -32600,
        16,
    ),
    "nested 1500 deep in an argument": (
        '{"jsonrpc":"2.0","id":17,"method":"ping","params":{"x":' + "[" * 1500 + "]" * 1500 + "}}",
        -32600,
        17,
    ),
    "a bare number": ("42", -32600, None),
    "id that is an object": ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
    "id that is a boolean": ('{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
    # MCP forbids a null id; it was taken for a notification and never answered
    "id that is null": ('{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None),
    # valid JSON Python will not read (an integer of over 4,300 digits): answered without its
    # id, so the client waited for ever
    "a 5000-digit integer in an argument": (
        '{"jsonrpc":"2.0","id":18,"method":"ping","params":{"x":' + "7" * 5000 + "}}",
        -32700,
        18,
    ),
}


@pytest.mark.parametrize("name", list(BROKEN_REQUESTS))
def test_a_broken_request_gets_its_json_rpc_error(wire: Wire, name: str) -> None:
    line, code, ident = BROKEN_REQUESTS[name]
    wire.send_raw(line)
    answer = wire.receive()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] == ident
    assert answer["error"]["code"] == code
    assert answer["error"]["message"]
    wire.ping(1000)


def test_invalid_utf8_bytes_are_a_parse_error_not_replaced(wire: Wire) -> None:
    """Undecodable bytes became U+FFFD and the request was served: a client sending Latin-1
    had "Café" saved as "Caf\ufffd" (and an entity "Caf") without a word. JSON text is UTF-8;
    the request is answered with a parse error carrying its id."""
    wire.send_raw(b'{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":"Caf\xe9"}}')
    answer = wire.receive()
    assert answer["id"] == 13 and answer["error"]["code"] == -32700
    assert "not UTF-8" in answer["error"]["message"]
    wire.ping(1002)


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","method":"notifications/progress","params":[]}',
        '{"jsonrpc":"1.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":14,"result":[],"extra":{"x":"\\ud800"}}',
    ],
)
def test_a_broken_notification_or_response_is_never_answered(wire: Wire, line: str) -> None:
    wire.send_raw(line)
    wire.ping(1001)  # the next message is the ping's answer: nothing was sent for the line
    assert "dropped" in wire.stderr_path.read_text()


def test_tools_still_work_after_garbage(wire: Wire) -> None:
    wire.send_raw("[" * 5000)
    assert wire.receive()["error"]["code"] == -32700
    wire.send(
        {
            "jsonrpc": "2.0",
            "id": 15,
            "method": "tools/call",
            "params": {"name": "save_memory", "arguments": {"content": "Wire test memory"}},
        }
    )
    answer = wire.receive()
    assert answer["id"] == 15
    assert answer["result"].get("isError") is not True
    assert "Wire test memory" in json.dumps(answer["result"])


# A library inside the server that writes to stdout while a tool runs: Python's print and a raw
# write to file descriptor 1 (what a C extension or a child process would do). The hook into
# search is only the place where that library runs; the server is the real one.
NOISY_SERVER = """
import os
from engram.services.search import SearchService
from engram.mcp.server import serve

real = SearchService.search

def noisy(self, *args, **kwargs):
    print("stray print from a library", flush=True)
    os.write(1, b"stray bytes on descriptor 1\\n")
    return real(self, *args, **kwargs)

SearchService.search = noisy
serve()
"""


def test_stray_output_goes_to_stderr_never_onto_the_wire(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """While serving, descriptor 1 points at stderr and messages go through the server's own
    descriptor (`claim_stdout`): noise printed during a tool call cannot corrupt the protocol."""
    noisy = Wire(tmp_path_factory.mktemp("noisy"), args=("-c", NOISY_SERVER))
    try:
        assert noisy.initialize("noisy-test", request_id=0)["id"] == 0
        noisy.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        found = noisy.call(1, "search_memory", {"query": "anything"})
        assert found["isError"] is False and found["structuredContent"]["count"] == 0
        noisy.ping(2)
        stderr = noisy.finish()
    finally:
        noisy.close()
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in noisy.stdout)
    assert "stray print from a library" in stderr
    assert "stray bytes on descriptor 1" in stderr


@pytest.mark.anyio
async def test_a_message_larger_than_the_pipe_waits_for_a_slow_reader_without_stalling() -> None:
    """`DirectOutput` writes from the event loop: when the client is not reading and the pipe
    fills, the rest waits in a worker thread, so the loop keeps running, and every byte arrives
    in order once the client reads."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    message = "".join(f"{i:07d}," for i in range(40_000)) + "\n"  # 320 KB, a few pipefuls
    received: list[bytes] = []
    ticks = 0

    def slow_reader() -> None:
        time.sleep(0.3)  # the client is busy: the pipe fills meanwhile
        with os.fdopen(read_end, "rb") as pipe:
            received.append(pipe.read())

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.sleep(0.01)

    reader = threading.Thread(target=slow_reader)
    reader.start()
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ticker)
            assert await DirectOutput(write_end).write(message) == len(message)
            tasks.cancel_scope.cancel()
    finally:
        os.close(write_end)
        reader.join(timeout=30)
    assert received == [message.encode()]
    assert ticks >= 5  # the loop ran while the write waited for the reader


@contextlib.contextmanager
def saves_on_a_busy_store(w: Wire, count: int) -> Iterator[None]:
    """`count` saves (ids 100 on) and a ping (id 2) sent to a server while another process
    holds its store for writing; the ping is answered (so every save was read), and the store
    is freed when the block ends."""
    w.initialize("busy-test", request_id=0)
    w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert "structuredContent" in w.call(1, "memory_stats", {})  # the store is open
    writer = sqlite3.connect(w.stderr_path.parent / "engram.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another client writing, for as long as we like
    try:
        for i in range(count):
            save = {"name": "save_memory", "arguments": {"content": f"queued save {i}"}}
            w.send({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": save})
        w.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert w.receive() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        yield
    finally:
        writer.execute("COMMIT")
        writer.close()


def test_calls_waiting_on_a_busy_store_leave_the_server_reading(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Tool calls took their worker threads from the pool through which stdin is read: 41
    saves waiting on a store another process was writing took all 40, and the server answered
    nothing, not even a ping, until the store was free (up to its busy timeout)."""
    w = Wire(tmp_path_factory.mktemp("busy"), **BUSY)
    try:
        with saves_on_a_busy_store(w, 50):
            pass  # the ping was answered while the 50 saves waited
        answered = {w.receive()["id"] for _ in range(50)}
        assert answered == set(range(100, 150))
    finally:
        w.close()


def test_requests_read_before_stdin_closes_are_answered(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A client that sends its requests and closes stdin (`engram serve < requests.jsonl`):
    the SDK cancelled what was still running when its input ended, so 20 saves got 6 answers
    (all 20 were stored). Here the saves wait on a store another process is writing while
    stdin closes; each is answered once the store is free, and then the server exits."""
    w = Wire(tmp_path_factory.mktemp("eof"), **BUSY)
    try:
        with saves_on_a_busy_store(w, 10):
            assert w.process.stdin is not None
            w.process.stdin.close()
        w.finish()
        answers = [json.loads(line) for line in w.stdout]
        saved = {a["id"] for a in answers if a.get("result", {}).get("isError") is False}
        assert saved >= set(range(100, 110))
        assert w.process.returncode == 0
    finally:
        w.close()


def test_a_cancelled_request_is_not_waited_for_at_the_end_of_the_input() -> None:
    """The client cancelled it, so no answer will come (the specification forbids one): the end
    of the input must not wait for it."""
    answered = Answered()
    for ident in (1, 2):
        request = types.JSONRPCRequest(jsonrpc="2.0", id=ident, method="tools/call")
        answered.read(SessionMessage(request))
    cancel = types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 1}
    )
    answered.read(SessionMessage(cancel))
    assert answered.pending == {2}
    answered.written(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={})))
    assert answered.pending == set()


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX's")
def test_serve_in_a_terminal_waits_for_input_and_leaves_the_terminal_as_it_was(
    tmp_path: Path,
) -> None:
    """docs/tools.md: run the server's command in a terminal, it should sit waiting for input.
    It ended at once, and the terminal it left read nothing more ("Resource temporarily
    unavailable"): its output was made non-blocking, and the shell's terminal is one open file
    for input and output (a new user's probe); so was its error output, by Ctrl-C. A
    pseudo-terminal stands in for the shell's."""
    import fcntl  # POSIX's, as the pseudo-terminal is
    import pty
    import tty

    params = server_params(tmp_path)
    leader, terminal = pty.openpty()
    tty.setraw(terminal)  # no echo: what the leader reads is the server's
    process = subprocess.Popen(
        [params.command, *params.args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env={**get_default_environment(), **(params.env or {})},
        cwd=params.cwd,
    )
    try:
        os.write(leader, (json.dumps(initialize_request("terminal")) + "\n").encode())
        said = b""
        while b'"id":1' not in said.replace(b" ", b""):
            ready, _, _ = select.select([leader], [], [], 30)  # a hang guard, not a timing
            assert ready, f"no answer from the server in its terminal: {said!r}"
            said += os.read(leader, 65536)
        assert b'"serverInfo"' in said and process.poll() is None
    finally:
        process.send_signal(signal.SIGINT)  # Ctrl-C
        process.wait(timeout=30)
        blocking = not fcntl.fcntl(terminal, fcntl.F_GETFL) & os.O_NONBLOCK
        os.close(leader)
        os.close(terminal)
    assert blocking
