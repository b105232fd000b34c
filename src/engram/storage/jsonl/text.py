"""A token index with BM25 relevance, built in memory for the JSONL store.

It mirrors what the SQLite backend gets from FTS5 (`porter unicode61 remove_diacritics 2`, and
`bm25()` with per-column weights) so that relevance means the same on both backends and the
search service ranks them alike:

* tokens are maximal runs of letters and digits, accents removed, case folded, then reduced by
  the Porter stemmer (`running` and `runs` both index as `run`);
* a query term is a phrase of its tokens (`don't` is `don` followed by `t`);
* relevance of a document for a query is FTS5's BM25: the sum over phrases of
  idf · f·(k1+1) / (f + k1·(1 − b + b·|D|/avgdl)), where f is the phrase's frequency in the
  document weighted per field (content, tags, entities), |D| the document's token count and
  idf = ln((N − n + 0.5) / (n + 0.5)) (floored at 1e-6), N documents, n of them matching.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[^\W_]+")
_MAX_STEM_BYTES = 64  # FTS5 leaves longer tokens (and tokens under 3 bytes) unstemmed


def fold(text: str) -> str:
    """Case-fold and strip diacritics (`Café` -> `cafe`)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


_stems: dict[str, str] = {}


def stem(token: str) -> str:
    """Porter stem of a folded token (memoised: vocabularies are small, documents are not)."""
    found = _stems.get(token)
    if found is None:
        size = len(token.encode())
        found = token if size < 3 or size > _MAX_STEM_BYTES else _porter(token)
        if len(_stems) < 500_000:
            _stems[token] = found
    return found


def tokens(text: str) -> list[str]:
    known = _stems.get
    return [known(t) or stem(t) for t in _TOKEN.findall(fold(text))]


def phrase(term: str) -> tuple[str, ...]:
    """The token sequence a query term stands for; empty if it has no letters or digits."""
    return tuple(tokens(term))


Fields = tuple[str, Sequence[str], Sequence[str]]  # content, tags, entities


class TextIndex:
    """Inverted index: token -> {document: weighted frequency}, plus document lengths."""

    def __init__(self, weights: tuple[float, float, float]) -> None:
        self.weights = weights
        self._postings: dict[str, dict[int, float]] = {}
        self._length: dict[int, int] = {}
        self._total = 0
        self._interned: dict[float, float] = {}

    def __len__(self) -> int:
        return len(self._length)

    def add(self, doc: int, fields: Fields) -> None:
        weighted, length = self._analyse(fields)
        postings, interned = self._postings, self._interned
        for token, freq in weighted.items():
            value = interned.get(freq)
            if value is None:
                value = interned[freq] = freq  # one float object per distinct frequency
            posting = postings.get(token)
            if posting is None:
                postings[token] = {doc: value}
            else:
                posting[doc] = value
        self._length[doc] = length
        self._total += length

    def remove(self, doc: int, fields: Fields) -> None:
        """Forget a document; `fields` must be what it was indexed with."""
        if doc not in self._length:
            return
        weighted, _ = self._analyse(fields)
        for token in weighted:
            posting = self._postings.get(token)
            if posting is not None:
                posting.pop(doc, None)
                if not posting:
                    del self._postings[token]
        self._total -= self._length.pop(doc)

    def _analyse(self, fields: Fields) -> tuple[dict[str, float], int]:
        content, tags, entities = fields
        weighted: dict[str, float] = {}
        length = 0
        for text, weight in (
            (content, self.weights[0]),
            (" ".join(tags), self.weights[1]),
            (" ".join(entities), self.weights[2]),
        ):
            if not text:
                continue
            found = tokens(text)
            length += len(found)
            get = weighted.get
            for token in found:
                weighted[token] = get(token, 0.0) + weight
        return weighted, length

    def search(
        self,
        phrases: Iterable[tuple[str, ...]],
        fields_of: Callable[[int], Fields],
        accept: Callable[[int], bool],
    ) -> dict[int, float]:
        """BM25 of every accepted document matching at least one phrase (higher is better)."""
        n_docs = len(self._length)
        if n_docs == 0:
            return {}
        avgdl = self._total / n_docs if self._total else 1.0
        scores: dict[int, float] = {}
        for words in phrases:
            hits = self._phrase_hits(words, fields_of)
            if not hits:
                continue
            idf = math.log((n_docs - len(hits) + 0.5) / (len(hits) + 0.5))
            idf = idf if idf > 0.0 else 1e-6
            for doc, freq in hits.items():
                if not accept(doc):
                    continue
                norm = K1 * (1.0 - B + B * self._length[doc] / avgdl)
                scores[doc] = scores.get(doc, 0.0) + idf * (freq * (K1 + 1.0)) / (freq + norm)
        return scores

    def _phrase_hits(
        self, words: tuple[str, ...], fields_of: Callable[[int], Fields]
    ) -> dict[int, float]:
        if not words:
            return {}
        if len(words) == 1:
            return self._postings.get(words[0], {})
        postings = [self._postings.get(w) for w in words]
        if any(p is None for p in postings):
            return {}
        present = sorted((p for p in postings if p is not None), key=len)
        candidates = set(present[0]).intersection(*present[1:])
        hits: dict[int, float] = {}
        for doc in candidates:
            content, tags, entities = fields_of(doc)
            freq = 0.0
            for text, weight in (
                (content, self.weights[0]),
                (" ".join(tags), self.weights[1]),
                (" ".join(entities), self.weights[2]),
            ):
                freq += weight * _occurrences(tokens(text), words)
            if freq > 0:
                hits[doc] = freq
        return hits


def _occurrences(seq: list[str], words: tuple[str, ...]) -> int:
    n = len(words)
    return sum(1 for i in range(len(seq) - n + 1) if tuple(seq[i : i + n]) == words)


# -- the Porter stemmer (M. F. Porter, 1980; the reference C version that FTS5 follows) ---------


def _cons(w: str, i: int) -> bool:
    ch = w[i]
    if ch in "aeiou":
        return False
    if ch == "y":
        return i == 0 or not _cons(w, i - 1)
    return True


def _measure(s: str) -> int:
    """m in [C](VC)^m[V]."""
    n, i, size = 0, 0, len(s)
    while i < size and _cons(s, i):
        i += 1
    while i < size:
        while i < size and not _cons(s, i):
            i += 1
        if i >= size:
            break
        while i < size and _cons(s, i):
            i += 1
        n += 1
    return n


def _has_vowel(s: str) -> bool:
    return any(not _cons(s, i) for i in range(len(s)))


def _double(s: str) -> bool:
    return len(s) >= 2 and s[-1] == s[-2] and _cons(s, len(s) - 1)


def _cvc(s: str) -> bool:
    """consonant-vowel-consonant ending, the last not w, x or y (e.g. -hop, -fil)."""
    i = len(s) - 1
    if i < 2 or not _cons(s, i) or _cons(s, i - 1) or not _cons(s, i - 2):
        return False
    return s[i] not in "wxy"


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _replace(w: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    """The first rule whose suffix matches decides; it applies if the stem's m > min_m."""
    for suffix, repl in rules:
        if w.endswith(suffix):
            stem_ = w[: -len(suffix)]
            return stem_ + repl if _measure(stem_) > min_m else w
    return w


def _porter(w: str) -> str:
    # Step 1a
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # Step 1b
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = w[: -len(suffix)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif _double(w):
                    if w[-1] not in "lsz":
                        w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    # Step 1c
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    # Step 4
    for suffix in _STEP4:
        if w.endswith(suffix):
            stem_ = w[: -len(suffix)]
            if suffix == "ion" and not stem_.endswith(("s", "t")):
                continue  # "-ion" counts only after s or t; then "-ou" is tried
            if _measure(stem_) > 1:
                w = stem_
            break
    # Step 5
    if w.endswith("e"):
        m = _measure(w[:-1])
        if m > 1 or (m == 1 and not _cvc(w[:-1])):
            w = w[:-1]
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w
