"""MCP resources: what a client can attach to a conversation without a tool call.

A memory by id, the store's statistics, the review queue, the promotion candidates, the notes
of the long-term vault and a promoted memory's note. JSON where the content is a record, the
note itself (Markdown) where it is a note. Reading a resource is not a use: nothing decays
slower because a client looked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import BaseModel

from engram.app import App
from engram.mcp.runtime import EngramRuntime
from engram.services.results import PromotionCandidates, ReviewCandidates

JSON = "application/json"
MARKDOWN = "text/markdown"
QUEUE_LENGTH = 20

T = TypeVar("T")


def register_resources(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    async def read(operation: Callable[[App], T]) -> T:
        try:
            return await runtime.call(operation)
        except ToolError as exc:  # a domain error: its message names what is wrong
            raise ResourceError(str(exc)) from exc

    def as_json(model: BaseModel) -> str:
        return model.model_dump_json(indent=2)

    @server.resource(
        "engram://memory/{memory_id}",
        name="memory",
        title="A memory",
        description="One memory's full record by id (reading it does not count as a use).",
        mime_type=JSON,
    )
    async def memory(memory_id: str) -> str:
        return as_json(await read(lambda app: app.memories.get(memory_id)))

    @server.resource(
        "engram://memory/{memory_id}/note",
        name="memory-note",
        title="A promoted memory's note",
        description="The Markdown note a promoted memory was written to in the vault.",
        mime_type=MARKDOWN,
    )
    async def memory_note(memory_id: str) -> str:
        view = await read(lambda app: app.ltm.open_memory(memory_id))
        return view.body if view.body.lstrip().startswith("#") else f"# {view.title}\n\n{view.body}"

    @server.resource(
        "engram://stats",
        name="stats",
        title="Memory statistics",
        description="Counts by status, relations, vectors and the store's location.",
        mime_type=JSON,
    )
    async def stats() -> str:
        return as_json(await read(lambda app: app.maintenance.stats()))

    @server.resource(
        "engram://review-queue",
        name="review-queue",
        title="Review queue",
        description=f"Up to {QUEUE_LENGTH} memories about to fade, most urgent first.",
        mime_type=JSON,
    )
    async def review_queue() -> str:
        found = await read(lambda app: app.maintenance.review_candidates(QUEUE_LENGTH))
        return as_json(ReviewCandidates(candidates=found))

    @server.resource(
        "engram://promotion-candidates",
        name="promotion-candidates",
        title="Promotion candidates",
        description=f"Up to {QUEUE_LENGTH} memories that earned permanent status.",
        mime_type=JSON,
    )
    async def promotion_candidates() -> str:
        found = await read(lambda app: app.maintenance.promotion_candidates(QUEUE_LENGTH))
        return as_json(PromotionCandidates(candidates=found))

    @server.resource(
        "engram://notes",
        name="notes",
        title="Long-term notes",
        description="The notes of the vault's Engram folder: path, title, tags, memory id.",
        mime_type=JSON,
    )
    async def notes() -> str:
        return as_json(await read(lambda app: app.ltm.list_notes()))
