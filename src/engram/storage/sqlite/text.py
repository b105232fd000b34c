"""The SQLite side of full-text search (FTS5 over content, tags and the entities the content
does not name): matches ranked in the index, the best read and, for several words, scored
again as BM25 without length normalisation; how many memories hold a word.

A mixin of `SQLiteStore`, like `SQLiteGraph` and `SQLiteVectors`: it uses the store's `_query`
and its `field_weights`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from engram.core.index_terms import PhraseCounter
from engram.core.ranking import COUNTED_UP_TO, RARITY_COUNTED_TO, bm25_idf, bm25_scores
from engram.core.word_forms import form_groups
from engram.storage.columns import STUB_COLUMNS, FieldWeights
from engram.storage.protocol import Filter, Stub, TermCounts
from engram.storage.rows import stub_from_row
from engram.storage.sqlite.sql import chunks, filter_sql

Token = tuple[int, int] | None  # `SQLiteStore._data_token`


class TermCountCache:
    """How many memories hold each word, as counted while the store's rows stayed the same.
    One search counts its words two or three times (for its misspellings, its BM25 re-scoring,
    its expansion), an assistant's searches repeat their words, and each count is an index
    scan: a quarter of a search's SQL time on REALTALK's stores. A count is kept with the cap
    it was counted to; a count under its cap is exact, and serves any cap. The index's words
    of a start (`indexed_terms`) are kept too: listing them reads every one's doclist
    (`fts5vocab`), 1-5 ms for a common start at 10K memories, paid again for each word the
    store lacks that starts so."""

    MOST_KEPT = 50_000
    RANGES_KEPT = 64  # lists of up to `spelling.MOST_READ` words each

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: Token = None
        self._counts: dict[str, tuple[int, int]] = {}
        self._totals: dict[str, int] = {}
        self._ranges: dict[tuple[str, int], list[str]] = {}

    def known(
        self, token: Token, words: Sequence[str], cap: int
    ) -> tuple[dict[str, int], list[str]]:
        """The counts kept for `words` (up to `cap`) and the words to count; all of them to
        count without a token, and when the rows changed since (what was kept is dropped)."""
        if token is None:
            return {}, list(words)
        with self._lock:
            self._renew(token)
            kept: dict[str, int] = {}
            missing: list[str] = []
            for word in words:
                found = self._counts.get(word)
                if found is not None and (found[1] >= cap or found[0] < found[1]):
                    kept[word] = min(found[0], cap)
                else:
                    missing.append(word)
            return kept, missing

    def keep(self, token: Token, counts: Mapping[str, int], cap: int) -> None:
        with self._lock:
            if token is not None and token == self._token:
                self._counts.update((word, (n, cap)) for word, n in counts.items())

    def total(self, token: Token, name: str, count: Callable[[], int]) -> int:
        """A count of the whole store (`name`: which), read once while its rows stay the same."""
        if token is None:
            return count()
        with self._lock:
            self._renew(token)
            kept = self._totals.get(name)
        if kept is not None:
            return kept
        found = count()
        with self._lock:
            if token == self._token:
                self._totals[name] = found
        return found

    def terms(
        self, token: Token, start: str, limit: int, read: Callable[[], list[str]]
    ) -> list[str]:
        """The index's words from `start` (`read` lists them), read once while its rows stay
        the same."""
        if token is None:
            return read()
        with self._lock:
            self._renew(token)
            kept = self._ranges.get((start, limit))
        if kept is not None:
            return list(kept)
        found = read()
        with self._lock:
            if token == self._token:
                if len(self._ranges) >= self.RANGES_KEPT:
                    del self._ranges[next(iter(self._ranges))]  # the oldest
                self._ranges[(start, limit)] = found
        return list(found)

    def _renew(self, token: Token) -> None:
        if token != self._token or len(self._counts) > self.MOST_KEPT:
            self._token, self._counts, self._totals, self._ranges = token, {}, {}, {}


class SQLiteText:
    """Full-text methods of the Store protocol; see `engram.storage.protocol.Store`."""

    # What SQLiteStore defines: declared for the type checker.
    _query: Callable[..., list[tuple[Any, ...]]]
    _data_token: Callable[[], Token]
    _term_cache: TermCountCache
    field_weights: FieldWeights

    def text_search(
        self, terms: Sequence[str], where: Filter, limit: int, *, shallow: bool = False
    ) -> list[Stub]:
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        weights = list(self.field_weights)
        # Ranked in the full-text index first, then only the best `2 × limit` are read and
        # filtered: joining every match to its row before ranking was most of the time of a
        # word in a large share of the store (`bench/scale.py --n 1000000`: search p95 52-64
        # -> 40-44 ms; docs/performance.md). The answer is the same: a match outside the best
        # ranks below all of them. Only when the filter leaves fewer than `limit` of them, and
        # the index had more, is the whole set read (a tag filter, archived memories).
        # A query of several words is scored again without length normalisation (below): all
        # of the best `2 × limit` are, since FTS5's order (b = 0.75) put long matches that
        # rank among the best `limit` without it lower down (R@10 REALTALK 0.597 -> 0.600,
        # MADial-Bench 0.640 -> 0.644, docs/search.md).
        rescored = len(terms) > 1
        ranked = limit if shallow else 2 * limit
        kept = ranked if rescored else limit
        # The indexed text of the matches to score again comes with them (one query, not two).
        indexed = ", f.content, f.tags, f.entities, f.cues" if rescored else ""
        indexed_join = "JOIN memories_fts f ON f.rowid = m.seq " if rescored else ""
        filtered, params = filter_sql(where, alias="m", by_key=True)
        rows = self._query(
            f"SELECT {STUB_COLUMNS}, t.r{indexed} FROM (SELECT rowid, "
            "-bm25(memories_fts, ?, ?, ?, ?) AS r FROM memories_fts WHERE memories_fts MATCH ? "
            f"ORDER BY r DESC LIMIT ?) t JOIN memories m ON m.seq = t.rowid {indexed_join}"
            f"WHERE 1 = 1 {filtered} ORDER BY t.r DESC LIMIT ?",
            [*weights, match, ranked, *params, kept],
        )
        if len(rows) < limit and self._matches_at_least(match, ranked):
            clauses, params = filter_sql(where, alias="m")
            rows = self._query(
                f"SELECT {STUB_COLUMNS}, -bm25(memories_fts, ?, ?, ?, ?) AS r"
                f"{indexed.replace('f.', 'memories_fts.')} "
                "FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid "
                f"WHERE memories_fts MATCH ? {clauses} ORDER BY r DESC LIMIT ?",
                [*weights, match, *params, kept],
            )
        stubs = [stub_from_row(row) for row in rows]
        if not rescored:
            return stubs
        return self._without_length_norm(terms, stubs, [row[7:] for row in rows], limit)

    def _without_length_norm(
        self,
        terms: Sequence[str],
        stubs: list[Stub],
        indexed: Sequence[Sequence[str | None]],
        limit: int,
    ) -> list[Stub]:
        """The best `limit` of the matches FTS5 found, scored again as BM25 without its length
        normalisation (`core.ranking.bm25_scores`; FTS5 fixes b at 0.75): each word's repeats
        in each field of the indexed text (`indexed`, a row of fields per stub), weighted as
        the fields are, and its idf from how many memories hold it. One word alone keeps
        FTS5's order (a save's look for a repeat pays nothing)."""
        if not stubs:
            return stubs
        found = self.term_counts(terms, RARITY_COUNTED_TO)
        total = found.total
        if total <= COUNTED_UP_TO:  # the numbering counts deleted memories too
            total = self._term_cache.total(
                self._data_token(),
                "memories",
                lambda: int(self._query("SELECT count(*) FROM memories")[0][0]),
            )
        idf = [bm25_idf(total, found.counts.get(t, 0)) for t in terms]
        counter = PhraseCounter(terms)
        tf = np.zeros((len(stubs), len(terms)))
        for field, weight in enumerate(self.field_weights):
            texts = [row[field] or "" for row in indexed]
            if any(texts):  # tags, entities and cues are often empty
                tf += weight * counter.counts_in(texts)
        scores = bm25_scores(idf, tf, form_groups(terms))
        # A match whose words this count misses (a letter FTS5 stems otherwise: "straße") holds
        # at least one of them: it counts as one of them on average, once.
        scores[scores <= 0] = sum(idf) / len(idf)
        order = np.argsort(-scores, kind="stable")  # stable: FTS5's order among ties
        return [stubs[i]._replace(relevance=float(scores[i])) for i in order[:limit]]

    def _matches_at_least(self, match: str, n: int) -> bool:
        sql = "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)"
        return int(self._query(sql, [match, n])[0][0]) >= n

    def indexed_terms(self, start: str, limit: int) -> list[str]:
        def read() -> list[str]:
            # A range of the index's own list of words (`memories_vocab`), in their order.
            rows = self._query(
                "SELECT term FROM memories_vocab WHERE term >= ? AND term < ? LIMIT ?",
                [start, start + "\U0010ffff", limit],
            )
            return [str(row[0]) for row in rows]

        return self._term_cache.terms(self._data_token(), start, limit, read)

    def term_counts(self, words: Sequence[str], cap: int) -> TermCounts:
        token = self._data_token()
        counts, missing = self._term_cache.known(token, list(dict.fromkeys(words)), cap)
        # One statement per hundred words (SQLite allows 500 terms in a compound SELECT).
        each = (
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)"
        )
        for chunk in chunks(missing, size=100):
            sql = " UNION ALL ".join(f"SELECT {i}, ({each})" for i in range(len(chunk)))
            params: list[object] = []
            for word in chunk:
                params += ['"' + word.replace('"', '""') + '"', cap]
            counted = {chunk[int(i)]: int(n) for i, n in self._query(sql, params)}
            self._term_cache.keep(token, counted, cap)
            counts.update(counted)
        total = self._term_cache.total(
            token,
            "numbered",
            lambda: int(self._query("SELECT coalesce(max(seq), 0) FROM memories")[0][0]),
        )
        return TermCounts(total, counts)
