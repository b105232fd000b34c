"""Search: full-text candidates from the whole store, re-ranked by decay, review blended in."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.models import Memory, Status
from engram.core.ranking import Candidate, SearchHit, rank
from engram.core.scoring import review_priority, score
from engram.core.text import query_terms
from engram.core.timeutil import to_epoch
from engram.errors import ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.storage.protocol import Filter

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
            found = self.ctx.store.text_search(terms, where, pool)
        else:
            found = [(m, 1.0) for m in self.ctx.store.browse(where, pool)]
        candidates = self._candidates(found, now)
        if floor is not None:
            candidates = [c for c in candidates if c.score >= floor]
        return rank(
            candidates,
            limit,
            decay_weight=settings.search_decay_weight,
            review_ratio=settings.review_blend_ratio,
        )

    def _candidates(self, found: list[tuple[Memory, float]], now: float) -> list[Candidate]:
        if not found:
            return []
        policy = self.ctx.policy
        memories = [m for m, _ in found]
        scores = score(
            policy,
            [m.use_count for m in memories],
            [m.strength for m in memories],
            [now - to_epoch(m.last_used) for m in memories],
        )
        prios = review_priority(policy, scores)
        return [
            Candidate(
                memory=m,
                relevance=rel,
                score=float(s),
                review_priority=float(p) if m.status == Status.ACTIVE else 0.0,
            )
            for (m, rel), s, p in zip(found, scores, prios, strict=True)
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
