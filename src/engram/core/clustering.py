"""Clusters of memories that say the same thing, for consolidation.

Single linkage over the pairs of memories at least `link_at` similar (cosine; the seed's 0.83):
two memories are in one cluster if a chain of such pairs joins them. A cluster's cohesion is the
mean similarity of all its pairs, and decides what to do with it (the seed's bands): at least
`merge_at` (0.9) — near-copies, merge; at least `review_at` (0.75) — related, a person (or the
client's model) should decide; below — loosely chained, keep apart.

The pairs come from each memory's nearest neighbours (the vector index), never from all pairs,
so clustering scales with the store; the cohesion is then exact, from the members' vectors.
A cluster's id is a digest of its members and of what they say, so the same store gives the
same ids: a preview can be approved later, and a cluster whose members changed since (another
member, an edited text) has another id and is not applied by mistake.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Action = Literal["merge", "review", "keep"]


@dataclass(frozen=True)
class Cluster:
    id: str
    members: tuple[str, ...]  # sorted
    cohesion: float  # mean cosine similarity over every pair of members
    action: Action
    weakest: float = 1.0  # the least similar pair of members
    same_words: bool = False  # `repeat_clusters`: one statement, its cohesion 1 by its words


def all_pairs(vectors: Mapping[str, NDArray[np.float32]]) -> list[tuple[str, str, float]]:
    """Every pair of the memories named, with its cosine (unit vectors)."""
    ids = sorted(vectors)
    return [(a, b, float(vectors[a] @ vectors[b])) for i, a in enumerate(ids) for b in ids[i + 1 :]]


def repeated(keys: Mapping[str, str]) -> dict[str, str]:
    """Of the memories' `keys` (`merge.statement_key`), those another memory shares."""
    counts = Counter(keys.values())
    return {ident: key for ident, key in keys.items() if key and counts[key] > 1}


def repeat_clusters(
    keys: Mapping[str, str],
    versions: Mapping[str, str] | None = None,
    apart: Collection[frozenset[str]] = (),
) -> list[Cluster]:
    """The memories saying the same words in the same order (`keys`: each one's
    `merge.statement_key`, as a save's repeat check reads them), one cluster each, to merge:
    copies of one fact said in another case or punctuation stayed unmerged where a third,
    different fact joined their cluster (it went to review whole), and copies in a script the
    model cannot read were never alike at all ("…。" and "….", cosine -0.06: a probe). Not
    a group holding a pair a person kept apart."""
    groups: dict[str, list[str]] = {}
    for ident, key in keys.items():
        if key:
            groups.setdefault(key, []).append(ident)
    return [
        Cluster(cluster_id(members, versions), tuple(sorted(members)), 1.0, "merge", 1.0, True)
        for members in groups.values()
        if len(members) > 1
        and not any(frozenset((a, b)) in apart for a in members for b in members if a < b)
    ]


# How far a float32 cosine may fall short of its exact value: two identical texts score
# 0.99999994, and a threshold of 1.0 ("identical only") did not link them (audit).
ROUNDING = 1e-6


def linked_groups(
    pairs: Iterable[tuple[str, str, float]],
    link_at: float,
    apart: Collection[frozenset[str]] = (),
) -> list[list[str]]:
    """Connected components (two or more members) of the graph of pairs with similarity at
    least `link_at`: single linkage, by union-find.

    `apart`: pairs a person said are different facts. Two groups are never joined while one
    holds a memory kept apart from one in the other, and the strongest pairs join first, so
    a third memory alike to both ends up with the one it is closer to."""
    parent: dict[str, str] = {}
    members: dict[str, list[str]] = {}

    def root(x: str) -> str:
        if x not in parent:
            parent[x], members[x] = x, [x]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def separated(ra: str, rb: str) -> bool:
        return any(frozenset((a, b)) in apart for a in members[ra] for b in members[rb])

    ordered = sorted(pairs, key=lambda p: -p[2]) if apart else pairs
    for a, b, similarity in ordered:
        if a != b and similarity >= link_at - ROUNDING:
            ra, rb = root(a), root(b)
            if ra != rb and not (apart and separated(ra, rb)):
                low, high = min(ra, rb), max(ra, rb)
                parent[high] = low
                members[low] += members.pop(high)
    return sorted((sorted(g) for g in members.values() if len(g) > 1), key=lambda g: g[0])


def cohesion(vectors: NDArray[np.float32]) -> float:
    """Mean cosine similarity over all pairs of these unit vectors (1.0 for fewer than two)."""
    n = len(vectors)
    if n < 2:
        return 1.0
    sims = np.asarray(vectors, dtype=np.float64) @ np.asarray(vectors, dtype=np.float64).T
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def weakest_link(vectors: NDArray[np.float32]) -> float:
    """The lowest cosine similarity of any two of these unit vectors (1.0 for fewer than two)."""
    n = len(vectors)
    if n < 2:
        return 1.0
    sims = np.asarray(vectors, dtype=np.float64) @ np.asarray(vectors, dtype=np.float64).T
    return float(sims[~np.eye(n, dtype=bool)].min())


def action_for(value: float, merge_at: float, review_at: float, weakest: float = 1.0) -> Action:
    """Merge by the rules only if the cluster is cohesive (`value`, the mean) and no two of its
    members are less alike than that (`weakest`): copies of one memory raised the mean of a
    cluster holding another fact too ("Prefers tea over coffee" four times with "Prefers
    green tea over coffee": 0.85 with one copy, a merge at 0.92 with four). Otherwise a person
    reviews it."""
    if value >= merge_at - ROUNDING and weakest >= merge_at - ROUNDING:
        return "merge"
    if value >= review_at - ROUNDING:
        return "review"
    return "keep"


def cluster_id(members: Sequence[str], versions: Mapping[str, str] | None = None) -> str:
    """`versions`: a digest of each member's content, so an edit changes the id."""
    key = "\n".join(f"{m}:{(versions or {}).get(m, '')}" for m in sorted(members))
    return f"cluster-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def build_clusters(
    pairs: Iterable[tuple[str, str, float]],
    vectors: Mapping[str, NDArray[np.float32]],
    link_at: float,
    merge_at: float,
    review_at: float,
    versions: Mapping[str, str] | None = None,
    apart: Collection[frozenset[str]] = (),
) -> list[Cluster]:
    """Clusters from neighbour pairs, most cohesive first; members without a vector are left
    out (their similarity is unknown). `versions` as for `cluster_id`, `apart` as for
    `linked_groups`.

    A group chained so loosely that it would be kept apart is split at a stricter link
    (`SPLIT_STEP` at a time) into the clusters it holds: looking wider (a link of 0.6) chained
    a 0.86-alike pair of one fact into thirteen memories of cohesion 0.45, and the only good
    proposal was lost (an MCP probe)."""
    given = list(pairs)
    out: list[Cluster] = []
    for group in linked_groups(given, link_at, apart):
        out += _clusters_in(group, given, vectors, link_at, (merge_at, review_at), versions, apart)
    return sorted(out, key=lambda c: (-c.cohesion, c.id))


# How much stricter each split of a loosely chained group links.
SPLIT_STEP = 0.05


def _clusters_in(
    group: Sequence[str],
    pairs: Sequence[tuple[str, str, float]],
    vectors: Mapping[str, NDArray[np.float32]],
    link_at: float,
    bands: tuple[float, float],
    versions: Mapping[str, str] | None,
    apart: Collection[frozenset[str]],
) -> list[Cluster]:
    members = [m for m in group if m in vectors]
    if len(members) < 2:
        return []
    stacked = np.stack([vectors[m] for m in members])
    value, weakest = cohesion(stacked), weakest_link(stacked)
    action = action_for(value, *bands, weakest)
    stricter = link_at + SPLIT_STEP
    if action == "keep" and len(members) > 2 and stricter <= 1.0 + ROUNDING:
        inside = set(members)
        own = [p for p in pairs if p[0] in inside and p[1] in inside]
        return [
            cluster
            for part in linked_groups(own, stricter, apart)
            for cluster in _clusters_in(part, own, vectors, stricter, bands, versions, apart)
        ]
    return [Cluster(cluster_id(members, versions), tuple(members), value, action, weakest)]
