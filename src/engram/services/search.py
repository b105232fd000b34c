"""Search: full-text candidates from the whole store, re-ranked by decay, review blended in.

Two phases keep it fast at scale: the store returns light stubs (id, counters, relevance) for a
few hundred candidates, the core ranks them, and only the winners are read in full.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.models import Status
from engram.core.ranking import Candidate, SearchHit, rank
from engram.core.scoring import review_priority
from engram.core.text import query_terms
from engram.errors import ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.storage.protocol import Filter, Stub

DAY = 86_400.0


class SearchService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def search(
        self,
        query: str | None = None,
        *,
        tags: Sequence[str] | None = None,
        status: Sequence[Status | str] | Status | str | None = None,
        window_days: float | None = None,
        min_score: float | None = None,
        limit: int = 10,
    ) -> list[SearchHit]:
        """Does not reinforce: searching is not using. Use touch/observe for that."""
        text = check.query(query)
        limit = check.limit(limit)
        window = check.positive(window_days, "window_days")
        floor = check.non_negative(min_score, "min_score")
        now = self.ctx.now_epoch()
        where = Filter(
            statuses=_statuses(status),
            tags=check.tags(tags),
            used_since=None if window is None else now - window * DAY,
        )
        settings = self.ctx.settings
        pool = max(settings.search_candidates, limit * 4)
        terms = query_terms(text) if text else []
        if text and not terms:
            return []  # punctuation only: nothing can match
        if terms:
            stubs = self.ctx.store.text_search(terms, where, pool)
        else:
            stubs = self.ctx.store.browse(where, pool)
        candidates = self._candidates(stubs, now)
        if floor is not None:
            candidates = [c for c in candidates if c.score >= floor]
        ranked = rank(
            candidates,
            limit,
            decay_weight=settings.search_decay_weight,
            review_ratio=settings.review_blend_ratio,
        )
        memories = {m.id: m for m in self.ctx.store.get_many([r.id for r in ranked])}
        return [
            SearchHit(
                memory=memories[r.id],
                score=r.why.decay,
                rank=r.why.rank,
                reason=r.reason,
                why=r.why,
            )
            for r in ranked
            if r.id in memories  # deleted by another client between the two phases
        ]

    def _candidates(self, stubs: list[Stub], now: float) -> list[Candidate]:
        if not stubs:
            return []
        scores = self.ctx.scores(stubs, now)
        prios = review_priority(self.ctx.policy, scores)
        return [
            Candidate(
                id=stub.id,
                relevance=stub.relevance,
                score=float(s),
                review_priority=float(p) if stub.status == Status.ACTIVE else 0.0,
            )
            for stub, s, p in zip(stubs, scores, prios, strict=True)
        ]


def _statuses(status: Sequence[Status | str] | Status | str | None) -> tuple[Status, ...]:
    if status is None:
        return (Status.ACTIVE, Status.PROMOTED)
    raw = [status] if isinstance(status, str) else list(status)
    if raw == ["all"]:
        return tuple(Status)
    try:
        return tuple(dict.fromkeys(Status(s) for s in raw))
    except ValueError:
        allowed = ", ".join([*(s.value for s in Status), "all"])
        raise ValidationError("status", f"must be one of {allowed}") from None
