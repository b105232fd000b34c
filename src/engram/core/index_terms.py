"""The words of a text as SQLite's full-text index holds them (`porter unicode61
remove_diacritics 2`): runs of letters and digits, lower-cased, Latin diacritics removed,
Porter-stemmed (Snowball's original Porter, as FTS5's `porter` tokenizer; PyStemmer's C
implementation). Search uses it to count a query word's repeats in the few memories FTS5
found (`core.ranking.bm25_text`), which FTS5's own `bm25()` cannot be asked for."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import Stemmer

_TOKEN = re.compile(r"[^\W_]+")
_ACCENTS = re.compile("[\u0300-\u036f]")  # combining marks of Latin letters, after NFD
_STEMMER = Stemmer.Stemmer("porter")
# FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 bytes as they are.
_STEMMED_LENGTHS = range(3, 65)


@lru_cache(maxsize=65_536)
def index_term(token: str) -> str:
    """One token (a run of letters and digits) as the index holds it."""
    folded = token.lower()
    if not folded.isascii():
        folded = _without_diacritics(folded)
    if folded.isascii() and len(folded) in _STEMMED_LENGTHS:
        return str(_STEMMER.stemWord(folded))
    return folded


def index_terms(text: str) -> list[str]:
    return [index_term(token) for token in _TOKEN.findall(text)]


class PhraseCounter:
    """Counts a query's words (each a phrase of index terms: one term for most words) in
    texts. Only the words that could stem to a query term are stemmed — those starting with
    its first three letters (a Porter stem starts with its word's: "happy" → "happi") — found
    by one regular expression over the lower-cased text, Latin accents removed; a word of
    several terms ("kate's") is counted over all of the text's terms. A search counts in a
    few hundred memories and cannot stem every word of them."""

    def __init__(self, words: Sequence[str]) -> None:
        self.phrases = [index_terms(word) for word in words]
        heads = sorted({term[:3] for phrase in self.phrases for term in phrase}, key=len)
        self._several = any(len(phrase) > 1 for phrase in self.phrases)
        alternatives = "|".join(re.escape(head) for head in reversed(heads)) or "(?!)"
        self._candidates = re.compile(rf"\b(?:{alternatives})[^\W_]*")

    def counts(self, text: str) -> list[int]:
        low = text.lower()
        if not low.isascii():
            low = _ACCENTS.sub("", unicodedata.normalize("NFD", low))
        found: dict[str, int] = {}
        for token in self._candidates.findall(low):
            term = index_term(token)
            found[term] = found.get(term, 0) + 1
        terms: list[str | None] = list(index_terms(text)) if self._several else []
        return [
            found.get(phrase[0], 0) if len(phrase) == 1 else _occurrences(terms, phrase)
            for phrase in self.phrases
        ]


def _without_diacritics(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _occurrences(terms: list[str | None], phrase: list[str]) -> int:
    n = len(phrase)
    return sum(1 for i in range(len(terms) - n + 1) if terms[i : i + n] == phrase)
