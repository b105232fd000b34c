"""MCP resources: what a client can attach to a conversation without a tool call.

A memory by id, the store's statistics, the review queue, the promotion candidates, the notes
of the long-term vault and a promoted memory's note. JSON where the content is a record, the
note itself (Markdown) where it is a note. Reading a resource is not a use: nothing decays
slower because a client looked.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel

from engram.app import App
from engram.errors import NotFoundError, ValidationError
from engram.mcp.runtime import EngramRuntime
from engram.services.ltm import NoteView
from engram.services.results import PromotionCandidates, ReviewCandidates

JSON = "application/json"
MARKDOWN = "text/markdown"
QUEUE_LENGTH = 20
HEADING = re.compile(r"#{1,6}(?:\s|$)")  # a Markdown heading; "#tag" is an Obsidian tag

# What the SDK calls to read a resource: no arguments, or a template's (`memory_id`).
Reader = Callable[..., Awaitable[str]]

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


def as_json(model: BaseModel) -> str:
    """Compact, as tool results are: a resource read goes into the model's context too
    (indented, `engram://stats` was a quarter longer than `memory_stats`)."""
    return model.model_dump_json()


def as_note(view: NoteView) -> str:
    """The note as Markdown under its title. Only a heading is a title: "#python is …" opens
    with a tag."""
    if HEADING.match(view.body.lstrip()):
        return view.body
    return f"# {view.title}\n\n{view.body}"


# What a client reads of one memory, by its id: (path in engram://PATH, name, title,
# description, MIME type, the resource's text as read from the App).
MEMORY_VIEWS: tuple[tuple[str, str, str, str, str, Callable[[App, str], str]], ...] = (
    (
        "memory/{memory_id}",
        "memory",
        "A memory",
        "One memory's full record by id (reading it does not count as a use).",
        JSON,
        lambda app, memory_id: as_json(app.memories.get(memory_id)),
    ),
    (
        "memory/{memory_id}/note",
        "memory-note",
        "A promoted memory's note",
        "The Markdown note a promoted memory was written to in the vault.",
        MARKDOWN,
        lambda app, memory_id: as_note(app.ltm.open_memory(memory_id)),
    ),
)


def register_resources(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    async def read(operation: Callable[[App], str]) -> str:
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

    def publish(
        path: str, name: str, title: str, description: str, mime_type: str, reader: Reader
    ) -> None:
        server.resource(
            f"engram://{path}", name=name, title=title, description=description, mime_type=mime_type
        )(reader)

    def of_memory(view: Callable[[App, str], str]) -> Reader:
        # Named `memory_id` as the URI template names it: the SDK fills it from the URI.
        async def read_memory(memory_id: str) -> str:
            return await read(lambda app: view(app, memory_id))

        return read_memory

    def snapshot(operation: Callable[[App], BaseModel]) -> Reader:
        async def read_snapshot() -> str:
            return await read(lambda app: as_json(operation(app)))

        return read_snapshot

    for path, name, title, description, mime_type, view in MEMORY_VIEWS:
        publish(path, name, title, description, mime_type, of_memory(view))
    for name, title, description, operation in SNAPSHOTS:
        publish(name, name, title, description, JSON, snapshot(operation))
