"""Search: full-text and vector candidates from the whole store, fused, re-ranked by decay, with
review candidates blended in (the formula is in `engram.core.ranking` and docs/search.md).

Two phases keep it fast at scale: the store returns light stubs (id, counters, relevance) for a
few hundred candidates, the core ranks them, and only the winners are read in full.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.models import Status
from engram.core.ranking import Candidate, SearchHit, fuse, rank
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
        best = max((s.relevance for s in lexical), default=0.0) or 1.0
        stubs = {s.id: s for s in semantic} | {s.id: s for s in lexical}
        text_part = {s.id: s.relevance / best for s in lexical}
        cosine = {s.id: s.relevance for s in semantic}
        weight = settings.search_semantic_weight if semantic else 0.0
        out = []
        for ident, stub in stubs.items():
            relevance = fuse(
                text_part.get(ident), cosine.get(ident), weight, settings.search_semantic_min
            )
            if relevance is not None and relevance > 0:
                out.append(
                    (
                        stub,
                        Candidate(
                            ident,
                            relevance,
                            0.0,
                            0.0,
                            text_part.get(ident, 0.0),
                            cosine.get(ident),
                        ),
                    )
                )
        return out

    def _neighbours(self, text: str, where: Filter, k: int) -> list[Stub]:
        embedder = self.ctx.embedder
        if embedder is None or "vectors" not in self.ctx.store.capabilities:
            return []
        vector = embedder.embed_batch([text])[0]
        return self.ctx.store.vector_search(vector, where, k)

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
