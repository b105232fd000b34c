"""The Engram tools: typed parameters, one service call each, a typed result.

Each is declared with `engram.mcp.declare.tool`: named after its function and described by its
docstring, which is what the model reads (so it speaks to the model, not to the maintainer).

Each tool only translates: the SDK validates arguments against the published schema (limits from
`engram.mcp.params`), the tool makes exactly one service call through `EngramRuntime.call` (off
the event loop, domain errors turned into `ToolError`), and returns a pydantic model that the SDK
publishes as the tool's output schema and sends as structured content.
"""

from typing import Any

from mcp.server.mcpserver import MCPServer

from engram.mcp.activation_tools import register_activation_tools
from engram.mcp.consolidation_tools import (
    register_consolidation_tools,
    register_pipeline_tools,
)
from engram.mcp.ltm_tools import register_ltm_tools
from engram.mcp.memory_tools import register_memory_tools, register_reinforcement_tools
from engram.mcp.prompts import register_prompts
from engram.mcp.resources import register_resources
from engram.mcp.runtime import EngramRuntime
from engram.mcp.store_tools import register_graph_tools, register_maintenance_tools

TOOL_NAMES = (
    "save_memory",
    "search_memory",
    "open_memories",
    "update_memory",
    "delete_memory",
    "touch_memory",
    "observe_memory_usage",
    "gc",
    "promotion_candidates",
    "review_candidates",
    "create_relation",
    "delete_relation",
    "read_graph",
    "traverse_graph",
    "memory_stats",
    "promote_memory",
    "search_unified",
    "vault_status",
    "index_vault",
    "cluster_memories",
    "consolidate_memories",
    "undo_consolidation",
    "analyze_message",
    "analyze_for_recall",
    "run_pipeline",
    "apply_plan",
    "audit_trail",
)


def register_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """Add every tool, resource and prompt to `server`; each reaches the store only through
    `runtime`."""
    register_memory_tools(server, runtime)
    register_reinforcement_tools(server, runtime)
    register_maintenance_tools(server, runtime)
    register_graph_tools(server, runtime)
    register_ltm_tools(server, runtime)
    register_consolidation_tools(server, runtime)
    register_activation_tools(server, runtime)
    register_pipeline_tools(server, runtime)
    register_resources(server, runtime)
    register_prompts(server, runtime)
