"""How a tool is declared: named after its function, described by its docstring, which is what
the model reads to choose and call it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

Tool = TypeVar("Tool", bound=Callable[..., Any])


def tool(
    server: MCPServer[Any], title: str, annotations: ToolAnnotations
) -> Callable[[Tool], Tool]:
    """Register the decorated function as the tool of its name, described by its docstring
    folded into one line: the SDK sends a docstring as written, and Python 3.11 keeps its
    indentation and line breaks (noise in every client's tool list)."""

    def register(fn: Tool) -> Tool:
        doc = inspect.getdoc(fn)
        if not doc:
            raise TypeError(f"tool {fn.__name__} has no docstring to describe it")
        description = " ".join(doc.split())
        return server.tool(
            name=fn.__name__, title=title, description=description, annotations=annotations
        )(fn)

    return register
