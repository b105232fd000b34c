"""Typed results returned by the services (and serialised as-is by MCP and `--json`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from engram.core.models import Memory, Relation, Status
from engram.core.ranking import SearchHit
from engram.core.scoring import PromotionReason

__all__ = [
    "DeleteResult",
    "GcResult",
    "GraphPage",
    "ObserveResult",
    "ObserveUsageResult",
    "OpenResult",
    "PromotionCandidate",
    "PromotionCandidates",
    "RelatedMemory",
    "RelatedResult",
    "ReviewCandidate",
    "ReviewCandidates",
    "SaveResult",
    "SearchHit",
    "SearchResult",
    "Stats",
    "TouchResult",
]


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class SaveResult(_Result):
    """What a save did. A repeat of a memory already stored (the same letters and digits in the
    same order) is handled by ENGRAM_SAVE_DUPLICATES: merged into it (the default), counted as
    a use of it, or kept as a copy; `duplicate_of` names it."""

    memory: Memory
    action: Literal["saved", "merged", "reinforced"]
    duplicate_of: str | None = None


class TouchResult(_Result):
    memory: Memory
    old_score: float
    new_score: float


class ObserveResult(_Result):
    memory: Memory
    cross_domain: bool
    new_score: float


class GcResult(_Result):
    dry_run: bool
    archived: bool
    count: int
    memory_ids: list[str]
    has_more: bool
    promoted: list[str] = []  # memories promoted to the vault first (ENGRAM_AUTO_PROMOTE)


class PromotionCandidate(_Result):
    memory: Memory
    reason: PromotionReason
    score: float


class ReviewCandidate(_Result):
    memory: Memory
    score: float
    review_priority: float


class GraphPage(_Result):
    memories: list[Memory]
    relations: list[Relation]
    next_cursor: str | None


class RelatedMemory(_Result):
    """A memory reached from another through the graph, `depth` edges away (its shortest
    distance). `reached_from` is the memory one edge closer (the start itself at depth 1) and
    `relation` the edge between them: following `reached_from` leads back to the start."""

    memory: Memory
    depth: int
    reached_from: str
    relation: Relation


class RelatedResult(_Result):
    """Everything reachable from `memory_id` within the depth asked, closest first."""

    memory_id: str
    count: int
    related: list[RelatedMemory]


class Stats(_Result):
    location: str
    total: int
    by_status: dict[Status, int]
    relations: int
    decay_model: str
    due_for_gc: int
    in_danger_zone: int
    promotion_candidates: int


# Envelopes shared by the adapters, so MCP results and `engram --json` output read the same.


class SearchResult(_Result):
    """Best first. Searching does not reinforce: observe or touch what you actually use."""

    count: int
    hits: list[SearchHit]


class OpenResult(_Result):
    """The memories found, in the order asked, and the ids that matched nothing."""

    memories: list[Memory]
    missing: list[str]


class DeleteResult(_Result):
    """The memories deleted (ids that did not exist are skipped) or archived."""

    action: Literal["deleted", "archived"]
    count: int
    memory_ids: list[str]


class ObserveUsageResult(_Result):
    """One entry per distinct id observed, in the order given."""

    results: list[ObserveResult]


class PromotionCandidates(_Result):
    candidates: list[PromotionCandidate]


class ReviewCandidates(_Result):
    candidates: list[ReviewCandidate]
