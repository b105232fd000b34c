"""The words of a text as SQLite's full-text index holds them (`porter unicode61
remove_diacritics 2`): runs of letters and digits (an underscore separates), lower-cased,
accents of Latin letters removed, Porter-stemmed (Snowball's original Porter, as FTS5's `porter`
tokenizer; PyStemmer's C implementation). Search uses it to count a query word's repeats in
the few memories FTS5 found (`core.ranking.bm25_scores`), which FTS5's own `bm25()` cannot be
asked for. Agreement is checked against a real FTS5 vocabulary (tests/core/test_index_terms.py);
where the two still differ (a token keeping a non-ASCII letter such as ß, which FTS5's Porter
stems and this one does not), a word is counted less, never a memory dropped."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache
from itertools import groupby

import numpy as np
import Stemmer
from numpy.typing import NDArray

from engram.core.text import CJK

# A CJK character is a token of its own: the index is given them spaced (`core.text.cjk_spaced`).
_TOKEN = re.compile(f"[{CJK}]|[^\\W_{CJK}]+")
# Joins the texts counted in one pass: a separator to the index, and no text keeps one.
_BETWEEN = "\x00"
_BETWEEN_RE = re.compile(_BETWEEN)
_STEMMER = Stemmer.Stemmer("porter")
# FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes as they are.
_STEMMED_BYTES = range(3, 65)


class _LatinFold(dict[int, str]):
    """str.translate table: a Latin letter with accents becomes its plain letter ("é" → "e"),
    an accent left on its own (U+0300–U+036F: the dot of "İ" lower-cased) goes; other scripts
    keep theirs (FTS5 folds Latin only: "ё" stays, "が" stays whole); a final sigma is a sigma,
    as FTS5's case folding makes it. Filled per character on first use."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        parts = unicodedata.normalize("NFD", ch)
        base = parts[0]
        marks = all(unicodedata.combining(p) for p in parts[1:])
        if 0x300 <= code <= 0x36F:
            folded = ""
        elif ch == "ς":
            folded = "σ"
        else:
            folded = base if base.isascii() and base.isalpha() and marks else ch
        self[code] = folded
        return folded


_FOLD = _LatinFold()


_ASCII_BYTES = bytes(range(128))


def folded(text: str) -> str:
    """Lower-cased and folded as the index folds letters (before it splits the words). Only
    the letters outside ASCII go through the table, each replaced throughout the text: a
    chat's texts hold few distinct ones (quotes, emoji, an accent), and `str.replace` finds
    them at C speed where a pattern over the text cost a search's counting a third of a
    millisecond per 20,000 characters (`str.translate` of the whole text, more)."""
    low = text.lower()
    if low.isascii():
        return low
    low = unicodedata.normalize("NFC", low)
    # the text's UTF-8 without its ASCII bytes: the sequences of the other letters, whole
    others = low.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES)
    for letter in set(others.decode("utf-8", "surrogatepass")):
        plain = _FOLD[ord(letter)]
        if plain != letter:  # what a letter folds into folds to itself: any order will do
            low = low.replace(letter, plain)
    return low


@lru_cache(maxsize=65_536)
def index_term(token: str) -> str:
    """One token (a run of letters and digits) as the index holds it."""
    term = folded(token)
    return str(_STEMMER.stemWord(term)) if len(term.encode()) in _STEMMED_BYTES else term


def index_terms(text: str) -> list[str]:
    return [index_term(token) for token in index_tokens(text)]


def index_tokens(text: str) -> list[str]:
    """The words of `text` as the index splits them, folded: each is an index term once
    stemmed (`index_term`)."""
    tokens: list[str] = _TOKEN.findall(folded(text))
    return tokens


class PhraseCounter:
    """Counts a query's words in texts, as the index's terms. Only the text's words that could
    stem to a query term are stemmed — those starting with its first three letters (a Porter
    stem starts with its word's, but for a final y made i: "days" → "dai") — found by regular
    expressions over the folded text: a search counts in a few hundred memories and cannot
    stem every word of them. A query word the index holds as several terms (a phrase: "I'm" is
    "i m") counts where those words stand in a row."""

    def __init__(self, words: Sequence[str]) -> None:
        self.phrases = [index_terms(word) for word in words]
        self._single_at: dict[str, list[int]] = {}
        for i, phrase in enumerate(self.phrases):
            if len(phrase) == 1:
                self._single_at.setdefault(phrase[0], []).append(i)
        self._singles = _words_like(set(self._single_at)) if self._single_at else None
        self._rows = [
            re.compile(r"[\W_]+".join(f"({_word_like(t)})" for t in p)) if len(p) > 1 else None
            for p in self.phrases
        ]

    def counts(self, text: str) -> list[int]:
        counts: list[int] = self.counts_in([text])[0].tolist()
        return counts

    def counts_in(self, texts: Sequence[str]) -> NDArray[np.int64]:
        """`counts` of each text (a row each), from one pass of each expression over all of
        them joined (a search counts in a few hundred texts: a pass each cost more than the
        counting). The single words are looked up once each, and counted as arrays: a loop
        over every match was most of a search's re-scoring."""
        out = np.zeros((len(texts), len(self.phrases)), dtype=np.int64)
        if not texts or not self.phrases:
            return out
        joined = _BETWEEN.join(t.replace(_BETWEEN, " ") for t in texts)
        plain = folded(joined).replace("_", " ")
        if self._singles is not None:
            words = self._singles.findall(plain)
            first = {term: at[0] for term, at in self._single_at.items()}
            column = {w: first.get(index_term(w), -1) for w in set(words)}
            column[_BETWEEN] = -2
            columns = np.array([column[w] for w in words], dtype=np.int64)
            docs = np.cumsum(columns == -2)
            hit = columns >= 0
            np.add.at(out, (docs[hit], columns[hit]), 1)
            for at in self._single_at.values():  # a term the query says twice ("run runs")
                out[:, at[1:]] = out[:, at[:1]]
        # Where each text starts in the folded text: NFC can make a text shorter ("e" and a
        # combining accent are one letter), so not from the texts' own lengths.
        starts = [0, *(m.end() for m in _BETWEEN_RE.finditer(plain))]
        for i, (phrase, row) in enumerate(zip(self.phrases, self._rows, strict=True)):
            for m in row.finditer(plain) if row is not None else ():
                doc = bisect_right(starts, m.start()) - 1
                same_text = bisect_right(starts, m.end() - 1) - 1 == doc
                if same_text and [index_term(t) for t in m.groups()] == phrase:
                    out[doc, i] += 1
        return out


def _heads(term: str) -> set[str]:
    """The starts of the words that may stem to `term`."""
    head = term[:3]
    return {head, head[:-1] + "y"} if head.endswith("i") else {head}


def _word_like(term: str) -> str:
    """A word that may stem to `term`, as a pattern (no groups)."""
    heads = sorted(_heads(term), key=len, reverse=True)
    return r"\b(?:" + "|".join(re.escape(h) for h in heads) + r")[^\W_]*"


def _words_like(terms: set[str]) -> re.Pattern[str]:
    """Words that may stem to one of `terms`, or the mark between two texts, in a text whose
    underscores are spaces (`counts_in`). Each branch starts with a letter, then looks back: no
    letter or digit stands before it. A pattern whose branches all open with a literal is
    scanned for those letters alone, where one opening with `\\b` is tried at every position
    (counting in a search's few hundred texts took 2.5 times as long)."""
    heads = sorted({h for t in terms for h in _heads(t)})
    branches = [
        re.escape(first)
        + r"(?<![^\W_].)(?:"
        + "|".join(re.escape(h[1:]) for h in sorted(group, key=len, reverse=True))
        + r")[^\W_]*"
        for first, group in groupby(heads, key=lambda h: h[0])
    ]
    return re.compile("|".join([re.escape(_BETWEEN), *branches]))
