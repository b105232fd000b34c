"""Search: full-text and vector candidates from the whole store, fused, re-ranked by decay, with
review candidates blended in (the formula is in `engram.core.ranking` and docs/search.md).

Two phases keep it fast at scale: the store returns light stubs (id, counters, relevance) for a
few hundred candidates, the core ranks them, and only the winners are read in full.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from engram.core.models import Status
from engram.core.ranking import Candidate, SearchHit, fuse_matches, rank
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
        self._last_query: tuple[tuple[str, str], NDArray[np.float32]] | None = None

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
        if text is not None and not text.strip():
            text = None
        found = self._match(text, where, limit) if text else self._browse(where, limit)
        candidates = self._with_decay(found, now)
        if floor is not None:
            candidates = [c for c in candidates if c.score >= floor]
        settings = self.ctx.settings
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

    def _browse(self, where: Filter, limit: int) -> list[tuple[Stub, Candidate]]:
        pool = max(self.ctx.settings.search_candidates, limit * 4)
        return [(s, Candidate(s.id, 1.0, 0.0, 0.0)) for s in self.ctx.store.browse(where, pool)]

    def _match(self, text: str, where: Filter, limit: int) -> list[tuple[Stub, Candidate]]:
        settings = self.ctx.settings
        terms = query_terms(text)
        pool = max(settings.search_candidates, limit * 4)
        lexical = self.ctx.store.text_search(terms, where, pool) if terms else []
        semantic = self._neighbours(text, where, max(settings.search_vector_candidates, limit))
        stubs = {s.id: s for s in semantic} | {s.id: s for s in lexical}
        fused = fuse_matches(
            {s.id: s.relevance for s in lexical},
            {s.id: s.relevance for s in semantic},
            settings.search_semantic_weight,
            settings.search_semantic_min,
        )
        return [
            (stubs[ident], Candidate(ident, f.relevance, 0.0, 0.0, f.text, f.cosine))
            for ident, f in fused.items()
        ]

    def _neighbours(self, text: str, where: Filter, k: int) -> list[Stub]:
        if "vectors" not in self.ctx.store.capabilities:
            return []
        vector = self.query_vector(text)
        return [] if vector is None else self.ctx.store.vector_search(vector, where, k)

    def query_vector(self, text: str) -> NDArray[np.float32] | None:
        """The query's embedding, or None without an embedder. The last one is remembered, so
        a unified search embeds its query once for memories and notes."""
        embedder = self.ctx.embedder
        if embedder is None:
            return None
        key = (embedder.model_id, text)
        last = self._last_query
        if last is not None and last[0] == key:
            return last[1]
        vector: NDArray[np.float32] = embedder.embed_batch([text])[0]
        self._last_query = (key, vector)
        return vector

    def _with_decay(self, found: list[tuple[Stub, Candidate]], now: float) -> list[Candidate]:
        if not found:
            return []
        scores = self.ctx.scores([s for s, _ in found], now)
        prios = review_priority(self.ctx.policy, scores)
        return [
            Candidate(
                id=c.id,
                relevance=c.relevance,
                score=float(score),
                review_priority=float(prio) if stub.status == Status.ACTIVE else 0.0,
                text=c.text,
                semantic=c.semantic,
            )
            for (stub, c), score, prio in zip(found, scores, prios, strict=True)
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
