"""When a cosine similarity means "this memory is about the query": judged against unrelated
text, from both sides.

A raw cosine means different things for different texts. MiniLM gives a short, generic query
0.2–0.3 with almost anything, while a specific one stays near 0 with unrelated text and reaches
0.3 only with a paraphrase; so each query is compared with everyday reference sentences on
unrelated topics, and a memory's cosine becomes a z-score against them (`Calibration`).

The same holds for the memory: a short, generic memory ("I have a cat named Miso") is 0.2–0.3
alike to many unrelated questions. Judged from the query's side only, "tell me a joke" found it
at z 2.3 in a store of six memories, where nothing answers. So each of a
memory's vectors is compared with the same reference sentences too, and a pair (query, memory
vector) counts only if its cosine stands the floor's number of spreads above unrelated text for
the memory as well, to match by meaning alone (a memory that also shares a word with the query
needs only the query's side, and is not judged here). The query's z orders the matches
(docs/search.md, section 1b).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray

K = TypeVar("K", bound=Hashable)

# The cosine a query of no word the model knows needs to match by meaning at all. Such a
# query's vector is mostly noise: 56 random strings (bench-free throwaway, a probe's store of
# 55 memories) came nearest some memory at a median cosine of 0.23, 95th percentile 0.31,
# highest 0.41, and passed the z floor ("xyzzy" found a release party). Rare real words cut
# the same way still find what they mean above it: "allergies" a peanut allergy at 0.52,
# "penicillin" its memory at 0.72, "rabbitmq" the Kafka decision at 0.62.
UNKNOWN_WORDS_MIN_COSINE = 0.4
# A memory that shares a word with a query of several words, and none of whose vectors is
# this many spreads closer to the query than unrelated text, matched by the word alone: "Team
# uses GitHub Actions for CI" for "favorite football team" (z 0.38), "Thesis defense planned
# for next May" for "wedding plans" (0.35). It is no match. bench/assistant_facts.py's
# questions about nothing stored found nothing 6 times in 20 before, 8 at z 0 and 10 at 0.5;
# at 1 the user-assistant chats began to lose (docs/search.md, section 1b).
TEXT_MATCH_MIN_Z = 0.5
# How much nearer, on average, a text that says no function word of any language (a few nouns,
# "Quantenphysik Vorlesung morgen") must be to the reference sentences of another language than
# to the English ones to be judged against that language's (`core.languages` reads the others).
# Sentences in German, Spanish, French, Italian, Portuguese or Dutch came 0.26-0.51 nearer
# their own language's sentences than the English ones (27 of a probe's); of the 9,869 English
# turns and questions of REALTALK and MADial-Bench 99.9 % came less than 0.23 nearer another's.
# One word is too little to tell ("Hund" 0.08): it keeps the English sentences.
LANGUAGE_MARGIN = 0.25


class Background(NamedTuple):
    """The reference sentences' unit vectors, in groups by language (`languages`, each
    group's first row in `starts`): English first, then each other language the model reads.
    A text is judged against its own language's sentences."""

    vectors: NDArray[np.float32]
    starts: tuple[int, ...] = (0,)
    languages: tuple[str, ...] = ("en",)

    def calibration(self, vector: NDArray[np.float32], language: str | None = "en") -> Calibration:
        """What unrelated text looks like for the text of `vector` (a unit vector), written in
        `language` (`core.languages.language_of`): English, against the English sentences;
        another, against those of the language it is nearest (a German question naming Peru
        was nearest the Spanish ones, and against the German ones every German memory matched
        it); None, unknown, the same where that language's are LANGUAGE_MARGIN nearer than the
        English ones."""
        if language is None:
            mean, spread = self.guessed(vector[None, :])
            return Calibration(float(mean[0]), float(spread[0]))
        cosines = (self.vectors @ vector).astype(np.float64)
        ends = [*self.starts[1:], len(cosines)]
        groups = [cosines[a:b] for a, b in zip(self.starts, ends, strict=True)]
        chosen = 0
        if language != self.languages[0] and len(groups) > 1:
            nearest = 1 + int(np.argmax([g.mean() for g in groups[1:]]))
            chosen = nearest if groups[nearest].mean() >= groups[0].mean() else 0
        return Calibration.of(groups[chosen])

    def guessed(
        self, vectors: NDArray[np.float32]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """`calibration` of each of `vectors` (rows) in a language unknown: the mean and
        spread of its cosines with the English sentences, or with another language's where
        those are LANGUAGE_MARGIN nearer."""
        values = (vectors @ self.vectors.T).astype(np.float64)
        starts = np.asarray(self.starts)
        counts = np.diff(np.append(starts, values.shape[1]))
        means = np.add.reduceat(values, starts, axis=1) / counts
        squares = np.add.reduceat(values * values, starts, axis=1) / counts
        rows = np.arange(len(values))
        chosen = np.zeros(len(values), dtype=int)
        if means.shape[1] > 1:
            nearest = 1 + means[:, 1:].argmax(axis=1)
            far_enough = means[rows, nearest] >= means[:, 0] + LANGUAGE_MARGIN
            chosen = np.where(far_enough, nearest, 0)
        mean = means[rows, chosen]
        spread = np.sqrt(np.maximum(squares[rows, chosen] - mean * mean, 0.0))
        return mean, np.maximum(spread, 1e-6)


@dataclass(frozen=True)
class Calibration:
    """How similar unrelated text is to one text: the mean and spread of its cosine similarity
    with the reference sentences (`engram.embeddings.background`). A cosine becomes a z-score
    against them, comparable across queries."""

    mean: float
    spread: float

    @classmethod
    def of(cls, background_cosines: NDArray[np.floating[Any]]) -> Calibration:
        values = np.asarray(background_cosines, dtype=np.float64)
        return cls(float(values.mean()), max(float(values.std()), 1e-6))

    def z(self, cosine: float) -> float:
        return (cosine - self.mean) / self.spread


class Probe(NamedTuple):
    """A vector searched by meaning: the query's, or one sentence of a query of several."""

    vector: NDArray[np.float32]
    calibration: Calibration
    shrink: float  # subtracted from its z: the best of several probes is high by chance more often


class MeaningMatch(NamedTuple):
    z: float  # against the probe's calibration, less its shrink
    cosine: float  # of the pair that gave it


def meaning_matches(
    rows: Mapping[K, NDArray[np.float32]],
    probes: Sequence[Probe],
    background: Background,
    min_z: float,
) -> dict[K, MeaningMatch]:
    """Each memory's best z over its vectors (`rows`: 2-D, the whole text's and its passages')
    and the probes, among the pairs whose z is at least `min_z` and whose cosine is also at
    least `min_z` spreads above the vector's own similarities with the reference sentences
    (`background`). Memories with no such pair are left out: they do not match by meaning
    alone."""
    keys = [key for key, matrix in rows.items() if len(matrix)]
    if not keys or not probes:
        return {}
    stacked = np.concatenate([rows[key] for key in keys]).astype(np.float32, copy=False)
    counts = np.array([len(rows[key]) for key in keys])
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    queries = np.stack([p.vector for p in probes]).astype(np.float32)
    means = np.array([p.calibration.mean for p in probes])
    spreads = np.array([p.calibration.spread for p in probes])
    shrinks = np.array([p.shrink for p in probes])

    cosines = (stacked @ queries.T).astype(np.float64)  # vectors × probes
    z = (cosines - means) / spreads - shrinks
    above = z >= min_z
    # Only vectors above the floor for some probe can match: they alone are compared with the
    # reference sentences (the costly part, 157 dot products each).
    judged = np.flatnonzero(above.any(axis=1))
    # A memory's own side in the language its vector is nearest (its text is not at hand)
    own_mean, own_spread = background.guessed(stacked[judged])
    stands_out = np.zeros(z.shape, dtype=bool)
    stands_out[judged] = (cosines[judged] - own_mean[:, None]) / own_spread[:, None] >= min_z
    z = np.where(above & stands_out, z, -np.inf)

    best_probe = z.argmax(axis=1)
    per_vector = z[np.arange(len(z)), best_probe]
    # Each memory's best vector: sorted by memory, then best first, its first is its best.
    owner = np.repeat(np.arange(len(keys)), counts)
    best_row = np.lexsort((-per_vector, owner))[starts]
    best_z = per_vector[best_row]
    best_cosine = cosines[best_row, best_probe[best_row]]
    return {
        key: MeaningMatch(float(zk), float(cos))
        for key, zk, cos in zip(keys, best_z, best_cosine, strict=True)
        if np.isfinite(zk)
    }


def unlike_the_query(
    rows: Mapping[K, NDArray[np.float32]], probe: Probe, min_z: float = TEXT_MATCH_MIN_Z
) -> set[K]:
    """The memories of `rows` (each memory's vectors, 2-D) none of whose vectors is `min_z`
    spreads above unrelated text in its cosine with the query (`probe`)."""
    return {
        key
        for key, matrix in rows.items()
        if len(matrix) and probe.calibration.z(float(np.max(matrix @ probe.vector))) < min_z
    }
