"""Tools are declared by `engram.mcp.declare.tool`: named after the function, described by its
docstring folded into one line."""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.mcpserver import MCPServer

from engram.mcp import hints
from engram.mcp.declare import tool


def test_a_tool_is_named_after_its_function_and_described_in_one_line() -> None:
    server: MCPServer[None] = MCPServer("t")

    @tool(server, "Echo", hints.READ)
    async def echo(text: str) -> str:
        """Say `text` back,
        unchanged."""
        return text

    (listed,) = asyncio.run(server.list_tools())
    assert (listed.name, listed.title) == ("echo", "Echo")
    assert listed.description == "Say `text` back, unchanged."
    assert listed.annotations == hints.READ


def test_a_tool_without_a_docstring_is_refused_at_declaration() -> None:
    server: MCPServer[None] = MCPServer("t")
    with pytest.raises(TypeError, match="quiet has no docstring"):

        @tool(server, "Quiet", hints.READ)
        async def quiet() -> str:
            return ""
