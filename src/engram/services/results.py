"""Typed results returned by the services (and serialised as-is by MCP and `--json`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engram.core.models import Memory, Relation, Status
from engram.core.ranking import SearchHit
from engram.core.scoring import PromotionReason

__all__ = [
    "GcResult",
    "GraphPage",
    "ObserveResult",
    "PromotionCandidate",
    "ReviewCandidate",
    "SearchHit",
    "Stats",
    "TouchResult",
]


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


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


class Stats(_Result):
    location: str
    total: int
    by_status: dict[Status, int]
    relations: int
    decay_model: str
    due_for_gc: int
    in_danger_zone: int
    promotion_candidates: int
