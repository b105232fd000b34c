"""Tool results that are not a single service result.

Services return lists and counts; MCP structured output must be a JSON object, and a named field
(`hits`, `candidates`) reads better for a model than the SDK's generic `{"result": [...]}`.
Everything else reuses `engram.services.results` and the core models unchanged.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from engram.core.models import Memory
from engram.services.results import ObserveResult, PromotionCandidate, ReviewCandidate, SearchHit


class _ToolResult(BaseModel):
    model_config = ConfigDict(frozen=True)


class SearchResult(_ToolResult):
    """Best first. Searching does not reinforce: call observe_memory_usage for what you use."""

    count: int
    hits: list[SearchHit]


class OpenResult(_ToolResult):
    """The memories found, in the order asked, and the ids that matched nothing."""

    memories: list[Memory]
    missing: list[str]


class DeleteResult(_ToolResult):
    """`count` memories were deleted (ids that did not exist are skipped) or archived."""

    action: Literal["deleted", "archived"]
    count: int
    archived_ids: list[str]


class ObserveUsageResult(_ToolResult):
    """One entry per distinct id observed, in the order given."""

    results: list[ObserveResult]


class PromotionCandidates(_ToolResult):
    candidates: list[PromotionCandidate]


class ReviewCandidates(_ToolResult):
    candidates: list[ReviewCandidate]
