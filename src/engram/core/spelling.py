"""A query word the store does not hold, read as the word it holds that is spelled nearly the
same: "kafak" as "kafka", "Rotterdm" as "rotterdam", "postgress" as "postgresql".

Only a word that is no word of the language is read so: a word the embedding model knows whole
("banana", "rice") is what the user meant, even if the store holds "bandana" or "rich". Which
words the store holds, and whether the model knows one, are the caller's to say
(`engram.services.spelling`); this is the rule, on index terms (`core.index_terms`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import process
from rapidfuzz.distance import OSA

# Shorter words are too near too many others ("cafe" is an edit from "cake", "care", "case").
MIN_LETTERS = 4
# The store's words looked at share the first letters: a typo there is rarer, and the store's
# words are listed by them (an index range, not a scan of every word).
SAME_START = 3
# At most this many of the store's words are read for one respelling.
MOST_READ = 2_000
# The nearest words kept, when several are as near.
MOST_KEPT = 2


def edits_allowed(term: str) -> int:
    """Letters added, dropped, changed or swapped with a neighbour: one in a word of up to
    seven letters, two in a longer one ("zettlekasten": one swap from "zettelkasten")."""
    return 1 if len(term) < 8 else 2


def respellable(word: str) -> bool:
    """Whether a query word may be read as another: letters only, long enough."""
    return len(word) >= MIN_LETTERS and word.isalpha()


def nearest_spellings(term: str, known: Sequence[str]) -> list[str]:
    """Of the `known` terms, those nearest `term` within `edits_allowed` (optimal string
    alignment: a swap of two neighbours is one edit), at most `MOST_KEPT`; none if `term` is
    among them."""
    if len(term) < MIN_LETTERS:
        return []
    allowed = edits_allowed(term)
    # One pass in rapidfuzz's compiled loop: the store's 2,000 words of a start were a
    # millisecond of every such search in Python (bench/semantic_scale.py).
    found = process.extract(term, known, scorer=OSA.distance, score_cutoff=allowed, limit=None)
    if any(edits == 0 for _, edits, _ in found):
        return []
    near = [(edits, other) for other, edits, _ in found if len(other) >= MIN_LETTERS]
    if not near:
        return []
    best = min(edits for edits, _ in near)
    return sorted(other for edits, other in near if edits == best)[:MOST_KEPT]
