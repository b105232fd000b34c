"""How search results are ordered: relevance decides what matches, decay re-ranks.

relevance = (1 − s) · text + s · semantic          (see `fuse`)
rank      = relevance · ((1 − w) + w · min(score, 1))

`text` ∈ [0, 1] is the backend's full-text relevance normalised by the best match of the query;
`semantic` ∈ [0, 1] rescales the cosine similarity of query and memory embeddings above a floor;
`score` is the decay score; `s` and `w` are `search_semantic_weight` and `search_decay_weight`.
Decay can move a result by at most the factor (1 − w), so a clearly better match is never
pushed out by a fresher weak one. Review candidates (memories in the danger zone that match the
query) take a share of the slots.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from engram.core.models import Memory

Reason = Literal["match", "review"]
K = TypeVar("K", bound=Hashable)


class Why(BaseModel):
    """The parts a result's rank was computed from."""

    model_config = ConfigDict(frozen=True)

    text: float
    semantic: float | None = None  # cosine similarity, when the memory was a vector neighbour
    decay: float
    review: float
    rank: float


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    rank: float
    reason: Reason
    why: Why


@dataclass(frozen=True)
class Candidate:
    id: str
    relevance: float  # higher is better; normalised by the best candidate in `rank`
    score: float
    review_priority: float
    text: float | None = None  # the parts `relevance` was fused from, for `Why`
    semantic: float | None = None


def fuse(
    text: float | None, cosine: float | None, semantic_weight: float, semantic_min: float
) -> float | None:
    """One relevance from a normalised text score and a cosine similarity; None = no match.

    A memory matches if it shares a query word, or if its embedding is at least `semantic_min`
    similar to the query's: MiniLM puts unrelated short texts around 0–0.2, loosely related ones
    around 0.3–0.5 and paraphrases above 0.5. The cosine is rescaled so the floor maps to 0 and
    identity to 1.
    """
    semantic = None
    if cosine is not None and cosine >= semantic_min:
        semantic = (cosine - semantic_min) / (1.0 - semantic_min)
    if text is None and semantic is None:
        return None
    return (1.0 - semantic_weight) * (text or 0.0) + semantic_weight * (semantic or 0.0)


@dataclass(frozen=True)
class Fused:
    """One item's relevance to a query and the two parts it was fused from."""

    relevance: float
    text: float  # text relevance normalised by the best text match; 0 without a shared word
    cosine: float | None  # cosine similarity, when the item was a vector neighbour


def fuse_matches(
    lexical: Mapping[K, float],
    cosine: Mapping[K, float],
    semantic_weight: float,
    semantic_min: float,
) -> dict[K, Fused]:
    """The text matches (raw relevance, higher is better) and the vector neighbours (cosine)
    of one query, fused item by item with `fuse`; items matching neither are left out. The text
    part is normalised by the best text match. Without any vector neighbour (no embedder, or
    nothing embedded yet) text alone decides."""
    best = max(lexical.values(), default=0.0) or 1.0
    weight = semantic_weight if cosine else 0.0
    out: dict[K, Fused] = {}
    for key in {**cosine, **lexical}:
        text = lexical[key] / best if key in lexical else None
        similarity = cosine.get(key)
        relevance = fuse(text, similarity, weight, semantic_min)
        if relevance is not None and relevance > 0:
            out[key] = Fused(relevance, text or 0.0, similarity)
    return out


@dataclass(frozen=True)
class Ranked:
    id: str
    reason: Reason
    why: Why


def rank_value(relevance: float, score: float, decay_weight: float) -> float:
    return relevance * ((1.0 - decay_weight) + decay_weight * min(score, 1.0))


def rank(
    candidates: Sequence[Candidate], limit: int, decay_weight: float, review_ratio: float
) -> list[Ranked]:
    if not candidates or limit <= 0:
        return []
    best = max(c.relevance for c in candidates)
    scale = best if best > 0 else 1.0

    def value(c: Candidate) -> float:
        return rank_value(c.relevance / scale, c.score, decay_weight)

    def ranked(c: Candidate, reason: Reason) -> Ranked:
        text = c.relevance / scale if c.text is None else c.text
        why = Why(
            text=text, semantic=c.semantic, decay=c.score, review=c.review_priority, rank=value(c)
        )
        return Ranked(id=c.id, reason=reason, why=why)

    ordered = sorted(candidates, key=lambda c: (-value(c), c.id))
    review_slots = int(limit * review_ratio)
    primary_slots = limit - review_slots
    primary = ordered[:primary_slots]
    taken = {c.id for c in primary}
    reviews = sorted(
        (c for c in ordered[primary_slots:] if c.review_priority > 0 and c.id not in taken),
        key=lambda c: (-c.review_priority, c.id),
    )[:review_slots]
    # Unused review slots go back to the best remaining matches.
    spare = limit - len(primary) - len(reviews)
    if spare > 0:
        chosen = taken | {c.id for c in reviews}
        primary += [c for c in ordered[primary_slots:] if c.id not in chosen][:spare]
    return interleave(
        [ranked(c, "match") for c in primary], [ranked(c, "review") for c in reviews], review_ratio
    )


def interleave(primary: list[Ranked], reviews: list[Ranked], ratio: float) -> list[Ranked]:
    """[p, p, r, p, p, r, ...] for ratio 0.3: one review after every round(1/ratio) − 1 matches."""
    if not reviews:
        return primary
    run = max(1, round(1.0 / ratio) - 1) if ratio > 0 else len(primary)
    out: list[Ranked] = []
    p, r = 0, 0
    while p < len(primary) or r < len(reviews):
        for _ in range(run):
            if p < len(primary):
                out.append(primary[p])
                p += 1
        if r < len(reviews):
            out.append(reviews[r])
            r += 1
    return out
