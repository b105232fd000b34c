"""The stdio wire, byte by byte: a real `python -m engram.mcp` process fed raw lines, the way a
buggy or hostile client would write them. Every request gets an answer — its result or the
JSON-RPC error the specification gives — and the server keeps serving. The MCP client library
cannot send these lines (it validates what it sends), so this test writes them itself."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from typing import Any

import pytest
from tests.adapters.test_mcp import RawServer

ANSWER_SECONDS = 20


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
    "a bare number": ("42", -32600, None),
    "id that is an object": ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
    "id that is a boolean": ('{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
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


def test_invalid_utf8_bytes_are_answered_not_swallowed(wire: Wire) -> None:
    wire.send_raw(b'{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":"\xff\xfe"}}')
    # Undecodable bytes become U+FFFD (the text is still valid JSON): the request is served.
    assert wire.receive() == {"jsonrpc": "2.0", "id": 13, "result": {}}


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
