"""How search results are ordered: relevance decides what matches, decay re-ranks.

text      = bm25 / best bm25 of the query                         ∈ [0, 1]
z         = (cosine − μ_q) / σ_q                      (see `engram.core.meaning`)
semantic  = (z − z_min) / (best z − z_min)  for z ≥ z_min, else 0  ∈ [0, 1]
direct    = (1 − s) · text + s · semantic                         (see `fuse_matches`)
relevance = direct + c · max over linked items of (link strength · their direct relevance)
rank      = relevance / best relevance · ((1 − w) + w · min(score, 1))

A memory matches if it shares a query word, if its meaning stands clearly above what unrelated
text looks like for this query (z ≥ z_min) and for the memory itself, or if it sits next to a
match in its episode or is related to one (`spread`). `score` is the decay score; `s`, `c`, `w`
and `z_min` are the settings `search_semantic_weight`, `search_context_weight`,
`search_decay_weight` and `search_semantic_min_z`. Decay can move a result by at most the factor
(1 − w), so a clearly better match is never pushed out by a fresher weak one. The top of the
list is then diversified (maximal marginal relevance, `diversify`) so that near-copies of one
memory do not crowd out other evidence, and review candidates (memories in the danger zone that
match the query well) take a share of the slots. docs/search.md shows how the defaults were
chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict

from engram.core.meaning import Calibration
from engram.core.models import Memory

Reason = Literal["match", "review"]
K = TypeVar("K", bound=Hashable)

# The relevance of a memory that shares a query word when all weight is on meaning and its
# meaning is below the floor: it stays in the list, after every match by meaning.
WORDS_ONLY = 1e-6
# Meaning is normalised by the query's best match above the floor, but by a span of at least
# this many z: a best match barely above the floor (z 2.44: "Team uses GitHub Actions for CI"
# for "Maya plans") counts as a partial match, not a full one, beside a text match that holds
# half the query (docs/search.md, section 1b, "Words that hold little of the question").
MEANING_SPAN_MIN = 1.0
# Memories at least this similar say the same thing in nearly the same words (a re-saved fact,
# different punctuation or case): while diversifying, such a copy of a result already taken
# goes after every memory that is not one.
NEAR_COPY = 0.95
# A hit moved down by diversity says how alike it is to one above from this cosine on: about
# the same thing (a version of one fact). Below, the move is a nudge between near-equal ranks
# and says nothing a reader needs; each line costs bytes in every response.
ALIKE_SHOWN = 0.5
# A review candidate must be at least this relevant (relative to the best match): review slots
# are for fading memories the query is about, not for anything that shares a word with it.
REVIEW_MIN_RELEVANCE = 0.7
# ... and rank among the best REVIEW_REACH × limit matches: a review slot surfaces a fading
# memory that nearly made the list, never one from deep down (which cost recall: docs/search.md).
REVIEW_REACH = 2


# How far a word's memories are counted for its idf: exact where it is rarer; a commoner word
# weighs as one found in this many (counting is an index scan that grows with the word).
RARITY_COUNTED_TO = 1_000
# A store of up to this many memories is counted for the idf's total; a larger one is
# estimated (SQLite: its numbering; PostgreSQL: the planner's statistics).
COUNTED_UP_TO = 5_000
# BM25's saturation of a word's repeats: a word said twice counts 1.38 times once, never twice.
BM25_K1 = 1.2


def bm25_scores(
    idf: Sequence[float], tf: NDArray[np.float64], groups: Sequence[Sequence[int]] = ()
) -> NDArray[np.float64]:
    """BM25 without length normalisation (b = 0) of memories, one row of `tf` each (a query
    word's field-weighted repeats per column): for each query word, its idf times its count
    saturated by k1. Long memories are not lowered for their length: normalising by it ranked
    the long turn that answers below short ones sharing a word (docs/search.md: R@10 0.595 →
    0.597 on REALTALK, 0.629 → 0.640 on MADial-Bench, R@1 0.273 → 0.310); PostgreSQL ranks
    the same way (`ts_rank` without normalisation).

    The columns of each of `groups` (forms of one word, `core.word_forms`) count as one word:
    their repeats added, the idf of the commonest. Counted as words of their own, "went" and
    "gone" gave a memory about any trip two more words than the query had (temporal R@10 on
    REALTALK 0.877 → 0.869)."""
    weights = np.array(idf, dtype=np.float64)
    if groups:
        tf = tf.copy()
        for group in groups:
            first, rest = group[0], list(group[1:])
            tf[:, first] = tf[:, list(group)].sum(axis=1)
            weights[first] = weights[list(group)].min()
            tf[:, rest] = 0.0
            weights[rest] = 0.0
    each = weights * tf * (BM25_K1 + 1) / (tf + BM25_K1)
    scores = np.zeros(len(tf))
    for column in each.T:  # word by word, as each memory alone: equal rows score equal
        scores += column
    return scores


def word_coverage(idf: Sequence[float], held: Sequence[bool]) -> float:
    """The share of a query's word weight a text holds: the idf of the query's words it holds
    over that of all of them (1 for a query of no weight)."""
    total = sum(idf)
    if total <= 0:
        return 1.0
    return sum(w for w, h in zip(idf, held, strict=True) if h) / total


def bm25_idf(total: int, count: int) -> float:
    """How much a word found in `count` of `total` memories says, as SQLite's FTS5 weighs it
    in BM25: ln((N − n + ½) / (n + ½)), at least 10⁻⁶ (a word in most memories says almost
    nothing, never less than nothing). PostgreSQL's own ranking has no such weight: a name
    on every memory counted as much as the one rare word that finds the answer."""
    return max(1e-6, math.log((total - count + 0.5) / (count + 0.5)))


class Why(BaseModel):
    """The parts a result's rank was computed from."""

    model_config = ConfigDict(frozen=True)

    text: float
    semantic: float | None = None  # cosine similarity, when the memory matched by meaning
    context: float | None = None  # credit from an episode neighbour or a related memory
    # text relevance through words of the best matches (query expansion), weighted as ranked
    expansion: float | None = None
    # The day the query names that the memory was saved on or next to, or calls "tomorrow"
    # the day before (ISO date), when its relevance was raised for it (`engram.core.dates`).
    day: str | None = None
    decay: float
    review: float
    rank: float
    # How the search itself went, when the reader should know (meaning was not searched).
    note: str | None = None
    # When diversity listed it below a hit of lower rank: its cosine with the most alike hit
    # above it (a near-copy, or an older or newer version of the same fact).
    alike: float | None = None
    # The id of the news that supersedes it (a `supersedes` relation): it held before that.
    superseded_by: str | None = None


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    rank: float
    reason: Reason
    why: Why

    def __str__(self) -> str:
        """One line a person reads: the rank, the memory's text and why it ranked there
        (`print(hit)`; printed field by field, a hit was a wall of full-precision numbers)."""
        text = self.memory.content
        shown = text if len(text) <= 80 else text[:79] + "…"
        return f"{self.rank:.2f}  {shown}  ({why_summary(self)})"


def why_summary(hit: SearchHit, with_reason: bool = True) -> str:
    """Why a hit ranked where it did, in one short line: its reason (unless the reader has it
    beside the line already), then the parts that contributed (`review` only for review
    candidates), each to two decimals without trailing zeros: "text 1, meaning 0.47"."""
    why = hit.why
    parts = [f"text {_short(why.text)}"]
    listed = why.text == 0 and why.semantic is None and why.context is None
    if listed and why.expansion is None and why.day is None:
        parts = []  # no query (a list by score): "text 0" read as a failed match
    # Credit too small for two decimals still says where the hit came from: left out, a hit
    # found only by a neighbour's faint credit read "text 0, decay 1", as if nothing matched.
    found = (
        ("meaning", None if why.semantic is None else _short(why.semantic)),
        ("context", None if why.context is None else _at_least_shown(why.context)),
        ("expansion", None if why.expansion is None else _at_least_shown(why.expansion)),
        ("saved near", why.day),
        ("like one above", None if why.alike is None else _short(why.alike)),
        # the whole id: a tool takes it ("superseded by 020bb245" was an id no tool took)
        ("superseded by", why.superseded_by),
    )
    parts += [f"{label} {shown}" for label, shown in found if shown is not None]
    parts.append(f"decay {_short(why.decay)}")
    if hit.reason == "review":
        parts.append(f"review {_short(why.review)}")
    if why.note:
        parts.append(why.note)
    line = ", ".join(parts)
    return f"{hit.reason}: {line}" if with_reason else line


def _at_least_shown(value: float) -> str:
    return "<0.01" if 0 < value < 0.005 else _short(value)


def _short(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


class Candidate(NamedTuple):
    """One memory in the running for a search (a named tuple: hundreds are built per search)."""

    id: str
    relevance: float  # higher is better; normalised by the best candidate in `rank`
    score: float
    review_priority: float
    text: float | None = None  # the parts `relevance` was fused from, for `Why`
    semantic: float | None = None
    context: float | None = None
    expansion: float | None = None
    day: str | None = None
    superseded_by: str | None = None


@dataclass(frozen=True)
class Fused:
    """One item's relevance to a query and the two parts it was fused from."""

    relevance: float
    text: float  # text relevance normalised by the best text match; 0 without a shared word
    cosine: float | None  # cosine similarity, when the item matched by meaning
    expansion: float = 0.0  # expansion weight × normalised relevance to the expansion words


def fuse_matches(
    lexical: Mapping[K, float],
    cosine: Mapping[K, float],
    calibration: Calibration | None,
    semantic_weight: float,
    min_z: float,
    expanded: Mapping[K, float] | None = None,
    expansion_weight: float = 0.0,
    z_scores: Mapping[K, float] | None = None,
    text_scale: float = 1.0,
) -> dict[K, Fused]:
    """The text matches (raw relevance, higher is better) and the vector neighbours (cosine)
    of one query, fused item by item; items matching neither are left out. Both parts are
    normalised by the query's best match of their kind (meaning by a span of at least
    `MEANING_SPAN_MIN`), so neither scale dominates. Without
    vector neighbours or a calibration (no embedder, nothing embedded yet) text alone
    decides.

    `expanded`: the text matches of the query's expansion words (`engram.core.expansion`),
    raw relevance; each adds `expansion_weight` × its relevance normalised by the best of them
    to the item's text part, which is then normalised again by the best item's, but never
    scaled up: where no memory shares a word with the query, expansion alone gives at most
    `expansion_weight`, not a full text match.

    `z_scores`: each neighbour's z where it was found otherwise than by its cosine with the
    query and this calibration (a sentence of the query; `SearchService._neighbours`).

    `text_scale`: what the best text match counts for (1: a full text match)."""
    best_text = (max(lexical.values(), default=0.0) or 1.0) / text_scale
    extra = expanded if expanded and expansion_weight > 0 else {}
    best_extra = max(extra.values(), default=0.0) or 1.0
    textual = {
        key: (lexical[key] / best_text if key in lexical else 0.0)
        + (expansion_weight * extra[key] / best_extra if key in extra else 0.0)
        for key in {**lexical, **extra}
    }
    best_textual = max(max(textual.values(), default=0.0), 1.0)
    z = {k: calibration.z(c) for k, c in cosine.items()} if calibration is not None else {}
    if z_scores and calibration is not None:
        z |= {k: v for k, v in z_scores.items() if k in cosine}
    best_z = max(z.values(), default=min_z)
    span = max(best_z - min_z, MEANING_SPAN_MIN)
    weight = semantic_weight if z else 0.0
    out: dict[K, Fused] = {}
    for key in {**cosine, **textual}:
        text = textual[key] / best_textual if key in textual else None
        zk = z.get(key)
        semantic = (zk - min_z) / span if zk is not None and zk >= min_z else None
        if text is None and semantic is None:
            continue
        relevance = (1.0 - weight) * (text or 0.0) + weight * (semantic or 0.0)
        if relevance <= 0 and text:
            # With all weight on meaning (semantic_weight 1) a memory that shares a query
            # word still matches: last, in the order of its words' relevance.
            relevance = WORDS_ONLY * text
        if relevance > 0:
            out[key] = Fused(
                relevance,
                lexical[key] / best_text if key in lexical else 0.0,
                # the cosine only where meaning made it match: "meaning 0.11" on a word
                # match read as a match by meaning
                cosine.get(key) if semantic is not None else None,
                expansion_weight * extra[key] / best_extra if key in extra else 0.0,
            )
    return out


def episode_links(
    pairs: Iterable[tuple[K, K]], vectors: Mapping[K, NDArray[np.float32]], min_cosine: float
) -> list[tuple[K, K, float]]:
    """Links for `spread` between episode neighbours that speak of something alike: a
    conversation's next turn answers the one before and stays near it in meaning, while the
    facts an assistant saves in one session are often unrelated ("Allergic to shellfish" beside
    "Uses Neovim"), and credit passed between those filled the results with memories matched by
    nothing. A pair without both vectors (not embedded yet) keeps its link: nothing tells."""
    links: list[tuple[K, K, float]] = []
    for a, b in pairs:
        va, vb = vectors.get(a), vectors.get(b)
        if va is None or vb is None or float(va @ vb) >= min_cosine:
            links.append((a, b, 1.0))
    return links


def spread(
    relevance: Mapping[K, float], links: Iterable[tuple[K, K, float]], weight: float
) -> dict[K, float]:
    """Context credit: each item linked to a match receives `weight` × the strongest
    (link strength × relevance) among its linked matches. Links are (from, to, strength in
    [0, 1]) and carry credit from `from` to `to` only; credit comes from direct relevance, never
    from other credit, so it cannot snowball and is at most `weight` × the best match."""
    credit: dict[K, float] = {}
    if weight <= 0:
        return credit
    for source, target, strength in links:
        value = relevance.get(source, 0.0) * min(max(strength, 0.0), 1.0)
        if value > credit.get(target, 0.0):
            credit[target] = value
    return {k: weight * v for k, v in credit.items() if v > 0}


def diversify(
    ordered: Sequence[K],
    values: Mapping[K, float],
    vectors: Mapping[K, NDArray[np.float32]],
    penalty: float,
    window: int,
    distinct: Callable[[K, K], bool] | None = None,
) -> list[K]:
    """Maximal marginal relevance over the first `window` items: repeatedly take the item with
    the best value − penalty × (its highest cosine with an item already taken), near-copies of
    a taken item (`NEAR_COPY`) last, unless `distinct(item, taken)` says they differ all the
    same ("My flight to Tokyo is on June 12" and "… from Tokyo … June 26", 0.97 alike, went
    below an unrelated memory; a helper's probe). Items without a vector are never penalised;
    the rest of the list keeps its order."""
    head, tail = list(ordered[:window]), list(ordered[window:])
    if penalty <= 0 or len(head) < 2:
        return head + tail
    dims = next((len(v) for v in vectors.values()), 0)
    matrix = np.zeros((len(head), dims), dtype=np.float32)
    has = np.zeros(len(head), dtype=bool)
    for i, key in enumerate(head):
        vec = vectors.get(key)
        if vec is not None:
            matrix[i], has[i] = vec, True
    base = np.array([values[k] for k in head], dtype=np.float64)
    closest = np.zeros(len(head), dtype=np.float64)
    copy = np.zeros(len(head), dtype=bool)
    free = np.ones(len(head), dtype=bool)
    out: list[K] = []
    for _ in range(len(head)):
        gain = base - penalty * closest - 2.0 * copy
        gain = np.where(free, gain, -np.inf)
        pick = int(np.argmax(gain))
        out.append(head[pick])
        free[pick] = False
        if has[pick]:
            alike = np.where(has, matrix @ matrix[pick], 0.0)
            closest = np.maximum(closest, alike)
            for near in np.flatnonzero(free & ~copy & (alike >= NEAR_COPY)).tolist():
                copy[near] = distinct is None or not distinct(head[near], head[pick])
    return out + tail


def moved_down(
    ordered: Sequence[K],
    values: Mapping[K, float],
    vectors: Mapping[K, NDArray[np.float32]],
    shown: Collection[K] | None = None,
) -> dict[K, float]:
    """For each item listed after one of lower value (diversity moved it down), its highest
    cosine with an item listed above it: why a hit of higher rank stands lower ("I moved to
    Lisbon" below unrelated hits, for being like "I live in Berlin" above). Only for the items
    `shown`, where given: a search lists a third of those it diversifies, and each cosine is a
    product with every item above."""
    out: dict[K, float] = {}
    lowest = math.inf
    for i, key in enumerate(ordered):
        vector = vectors.get(key)
        if values[key] > lowest and vector is not None and (shown is None or key in shown):
            above = [vectors[k] for k in ordered[:i] if k in vectors]
            if above:
                out[key] = float(np.max(np.stack(above) @ vector))
        lowest = min(lowest, values[key])
    return out


@dataclass(frozen=True)
class Ranked:
    id: str
    reason: Reason
    why: Why


def rank_value(relevance: float, score: float, decay_weight: float) -> float:
    return relevance * ((1.0 - decay_weight) + decay_weight * min(score, 1.0))


def rank(
    candidates: Sequence[Candidate],
    limit: int,
    decay_weight: float,
    review_ratio: float,
    *,
    diversity: float = 0.0,
    vectors: Mapping[str, NDArray[np.float32]] | None = None,
    distinct: Callable[[str, str], bool] | None = None,
) -> list[Ranked]:
    """The `limit` best candidates: by rank value, the top diversified with `diversity` as the
    MMR penalty (given the candidates' vectors; `distinct` as for `diversify`), with review
    candidates interleaved."""
    if not candidates or limit <= 0:
        return []
    best = max(c.relevance for c in candidates)
    scale = best if best > 0 else 1.0
    values = {c.id: rank_value(c.relevance / scale, c.score, decay_weight) for c in candidates}

    alike: dict[str, float] = {}

    def ranked(c: Candidate, reason: Reason) -> Ranked:
        text = c.relevance / scale if c.text is None else c.text
        why = Why(
            text=text,
            semantic=c.semantic,
            context=c.context,
            expansion=c.expansion,
            day=c.day,
            decay=c.score,
            review=c.review_priority,
            rank=values[c.id],
            alike=alike.get(c.id),
            superseded_by=c.superseded_by,
        )
        return Ranked(id=c.id, reason=reason, why=why)

    # Equal rank values (every memory at full strength or above when browsing, where all are
    # equally relevant) go to the more durable memory, then to the id for a stable order.
    ordered = sorted(candidates, key=lambda c: (-values[c.id], -c.score, c.id))
    diversified = vectors if diversity > 0 and vectors else None
    if diversified is not None:
        by_id = {c.id: c for c in ordered}
        ids = diversify(
            [c.id for c in ordered], values, diversified, diversity, 3 * limit, distinct
        )
        ordered = [by_id[i] for i in ids]
    review_slots = int(limit * review_ratio)
    primary_slots = limit - review_slots
    primary = ordered[:primary_slots]
    taken = {c.id for c in primary}
    reviews = sorted(
        (
            c
            for c in ordered[primary_slots : REVIEW_REACH * limit]
            if c.review_priority > 0
            and c.superseded_by is None  # replaced: nothing to keep alive
            and c.id not in taken
            and c.relevance >= REVIEW_MIN_RELEVANCE * scale
        ),
        key=lambda c: (-values[c.id] * c.review_priority, c.id),
    )[:review_slots]
    # Unused review slots go back to the best remaining matches.
    spare = limit - len(primary) - len(reviews)
    if spare > 0:
        chosen = taken | {c.id for c in reviews}
        primary += [c for c in ordered[primary_slots:] if c.id not in chosen][:spare]
    if diversified is not None:
        shown = {c.id for c in [*primary, *reviews]}
        moved = moved_down([c.id for c in ordered[: 3 * limit]], values, diversified, shown)
        alike = {k: cosine for k, cosine in moved.items() if cosine >= ALIKE_SHOWN}
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


# Two memories at least this alike in meaning are about one thing, the later its news: of the
# facts an assistant saves, a fact and the one that replaced it ("Lives in Berlin", "Moved from
# Berlin to Lisbon") have cosine 0.21-0.87, median 0.5, 14 of 18 at 0.4 or above; 3 % of all
# pairs of one user's facts reach 0.4 (bench/assistant_facts.py).
SUCCESSOR_COSINE = 0.4
# ... and news answers the query at least this share as well as the fact it replaces (cosine
# with the query): a newer memory about someone else ("Brother Max got a new job") resembled
# the user's fact as much as true news does, but matched the question far less.
SUCCESSOR_MEANING = 0.8
# ... and stands out at least this share as far as that fact does from the other matches that
# resemble it (their median cosine with the query), where there are two or more: memories
# about one person resemble each other by the name alone, and each answered "Where does Maya
# work these days?" nearly as well as her job by that name ("Maya went fully vegan", 0.575
# against the job's 0.678 and the others' 0.545-0.567), so the latest came first (a probe).
SUCCESSOR_LEAD = 0.5


def as_of_now(
    relevance: Mapping[str, float],
    saved_at: Mapping[str, float],
    vectors: Mapping[str, NDArray[np.float32]],
    weight: float,
    meaning: Mapping[str, float] | None = None,
    other_people: Callable[[str, str], bool] | None = None,
    superseded: Collection[str] = (),
    news: Collection[str] = (),
) -> dict[str, float]:
    """Relevance to a question about how things stand now. A match saved after a better one it
    resembles (`SUCCESSOR_COSINE`) is news of the same thing: it is as relevant as that one.
    Then every match is lifted by how late it was saved among them, from × 1 for the first to
    × (1 + `weight`) for the last: of two memories about one thing the later holds now, and a
    weak late match stays below a strong early one it does not resemble. With `meaning` (each
    match's cosine with the query), news must also answer the query nearly as well as what it
    replaces (`SUCCESSOR_MEANING` of its cosine): "Sister Clara went vegetarian last month"
    resembles "User has been vegetarian since 2019" (0.51) but answers "is the user still
    vegetarian?" far worse, and it was listed first; and stand out from the other matches
    resembling it (`SUCCESSOR_LEAD`). `other_people(later, earlier)`: whether two matches are
    about different people (the user and their sister), never news of each other: "My sister
    lives in Montreal" resembles "I live in Paris now" and was listed first for "Where do I
    live now?" (a helper's probe). `superseded`: the matches whose news is known (a
    `supersedes` relation), which neither take nor pass on relevance by resemblance: "Maya's
    manager is Sam", replaced by "…new manager is Rosa", took her old job's relevance for
    "Where does Maya work these days?" and came first (a probe). `news`: the matches known
    to be news of another memory (they supersede it), which take no relevance by resemblance
    either: "Maya now lives in Denver", news of her family's move, was taken for news of her
    new job, as like it as that, and came first for the same question."""
    out = dict(relevance)
    if not out:  # "What car do I drive these days?" of a store that holds no car
        return out
    ids = [i for _, i in sorted((saved_at[i], i) for i in relevance if i in vectors)]
    matrix = np.stack([vectors[i] for i in ids]) if ids else np.zeros((0, 0), np.float32)
    alike = matrix @ matrix.T
    for n, later in enumerate(ids):
        if later in superseded or later in news:
            continue
        inherited = []
        for m, earlier in enumerate(ids[:n]):
            if (
                earlier in superseded
                or saved_at[earlier] >= saved_at[later]
                or out[earlier] <= out[later]
                or alike[m, n] < SUCCESSOR_COSINE
                or not _answers_as_well(later, earlier, meaning)
                or (other_people is not None and other_people(later, earlier))
            ):
                continue
            siblings = [
                j for k, j in enumerate(ids) if k not in (m, n) and alike[m, k] >= SUCCESSOR_COSINE
            ]
            if _stands_out(later, earlier, meaning, siblings):
                inherited.append(relevance[earlier])
        if inherited:
            out[later] = max(out[later], *inherited)
    times = [saved_at[i] for i in relevance]
    first, span = min(times), max(times) - min(times)
    if span <= 0:
        return out
    return {i: r * (1.0 + weight * (saved_at[i] - first) / span) for i, r in out.items()}


def _stands_out(
    later: str, earlier: str, meaning: Mapping[str, float] | None, siblings: Sequence[str]
) -> bool:
    """Whether `later` answers the query better than the other matches resembling `earlier`
    (`siblings`) by at least `SUCCESSOR_LEAD` of the margin `earlier` has over them."""
    crowd = [meaning[j] for j in siblings if j in meaning] if meaning is not None else []
    if meaning is None or len(crowd) < 2 or later not in meaning:
        return True
    base = float(np.median(crowd))
    return meaning[later] - base >= SUCCESSOR_LEAD * (meaning.get(earlier, 0.0) - base)


def _answers_as_well(later: str, earlier: str, meaning: Mapping[str, float] | None) -> bool:
    if meaning is None:
        return True
    if later not in meaning:
        return False  # not a match by meaning at all
    return meaning[later] >= SUCCESSOR_MEANING * meaning.get(earlier, 0.0)
