"""MCP resources: what a client can attach to a conversation without a tool call.

A memory by id, the store's statistics, the review queue, the promotion candidates, the notes
of the long-term vault and a promoted memory's note. JSON where the content is a record, the
note itself (Markdown) where it is a note. Reading a resource is not a use: nothing decays
slower because a client looked.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel

from engram.app import App
from engram.errors import NotFoundError, ValidationError
from engram.mcp.runtime import EngramRuntime
from engram.services.results import PromotionCandidates, ReviewCandidates

JSON = "application/json"
MARKDOWN = "text/markdown"
QUEUE_LENGTH = 20
HEADING = re.compile(r"#{1,6}(?:\s|$)")  # a Markdown heading; "#tag" is an Obsidian tag

T = TypeVar("T")

# The store-wide resources, each a JSON document: (name in engram://NAME, title, description,
# what it reads).
SNAPSHOTS: tuple[tuple[str, str, str, Callable[[App], BaseModel]], ...] = (
    (
        "stats",
        "Memory statistics",
        "Counts by status, relations, what is due for gc or in the danger zone now, and the "
        "store's location.",
        lambda app: app.maintenance.stats(),
    ),
    (
        "review-queue",
        "Review queue",
        f"Up to {QUEUE_LENGTH} memories about to fade, most urgent first.",
        lambda app: ReviewCandidates(candidates=app.maintenance.review_candidates(QUEUE_LENGTH)),
    ),
    (
        "promotion-candidates",
        "Promotion candidates",
        f"Up to {QUEUE_LENGTH} memories that earned permanent status.",
        lambda app: PromotionCandidates(
            candidates=app.maintenance.promotion_candidates(QUEUE_LENGTH)
        ),
    ),
    (
        "notes",
        "Long-term notes",
        "The notes of the vault's Engram folder: path, title, tags, memory id.",
        lambda app: app.ltm.list_notes(),
    ),
)


def register_resources(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    async def read(operation: Callable[[App], T]) -> T:
        try:
            return await runtime.call(operation)
        except ToolError as exc:  # a domain error: its message names what is wrong
            # The caller's mistake (an unknown id, a malformed one, a memory not promoted) is
            # invalid params, -32602, as an unknown resource is; -32603 says the server failed.
            cause = exc.__cause__
            if isinstance(cause, NotFoundError):
                raise ResourceNotFoundError(str(exc)) from exc
            if isinstance(cause, ValidationError):
                raise MCPError(INVALID_PARAMS, str(exc)) from exc
            raise ResourceError(str(exc)) from exc

    def as_json(model: BaseModel) -> str:
        # Compact, as tool results are: a resource read goes into the model's context too
        # (indented, `engram://stats` was a quarter longer than `memory_stats`).
        return model.model_dump_json()

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
        # Only a heading is a title: "#python is …" opens with a tag.
        if HEADING.match(view.body.lstrip()):
            return view.body
        return f"# {view.title}\n\n{view.body}"

    def snapshot(operation: Callable[[App], BaseModel]) -> Callable[[], Awaitable[str]]:
        async def read_snapshot() -> str:
            return as_json(await read(operation))

        return read_snapshot

    for name, title, description, operation in SNAPSHOTS:
        server.resource(
            f"engram://{name}", name=name, title=title, description=description, mime_type=JSON
        )(snapshot(operation))
