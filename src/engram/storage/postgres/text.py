"""Full-text search on PostgreSQL, ranked as SQLite's BM25 ranks: each query word weighs by
its rarity in the store.

A mixin of `PostgresStore` (it uses the store's `_query` and its field weights), like
`PostgresGraph`; vault notes are ranked the same way (`weighted_query`). PostgreSQL's
`ts_rank` and `ts_rank_cd` know a word's frequency in each memory but not in the store: a name
found in most memories of a conversation counted as much as the one rare word that found the
answer (REALTALK R@10 0.561 against SQLite's 0.595, docs/storage.md). Each word's rank is
therefore weighted by its BM25 idf, from how many memories contain it — counted up to
`RARITY_COUNTED_TO`, beyond which a word is common and its weight an upper bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from psycopg.rows import TupleRow

from engram.core.ranking import COUNTED_UP_TO, RARITY_COUNTED_TO, bm25_idf
from engram.core.word_forms import word_units
from engram.storage.columns import STUB_COLUMNS
from engram.storage.postgres.sql import filter_sql
from engram.storage.protocol import Filter, Stub, TermCounts
from engram.storage.rows import stub_from_row

# Memories read for the words that begin with a start (`indexed_terms`).
TERMS_SCANNED = 5_000


class WeightedQuery(NamedTuple):
    """SQL pieces of a query whose words weigh by their rarity in `table`: `phrases` (the
    FROM item `q`), `matches` (a row holds any of the words), `rank` (the weighted sum) and
    the parameters of each, in that order of use: rank first (the select list), then
    phrases."""

    phrases: str
    matches: str
    rank: str
    rank_params: list[object]
    phrase_params: list[str]


def weighted_query(
    query: Callable[..., list[TupleRow]],
    table: str,
    alias: str,
    terms: Sequence[str],
    weights: list[float],
) -> WeightedQuery:
    """Each term is a phrase of its own (so `"`, `*`, `OR` or `:` are plain words, never query
    syntax); a row (of `table`, named `alias` in the query) matches any of them and ranks by
    the sum of each one's ts_rank (which grows ever more slowly with repetition, as BM25's term
    frequency does) times its idf. The forms of one word (`core.word_forms`: "buy", "bought")
    are one term, either form matching, with the idf of the commonest, as `bm25_scores` counts
    them on SQLite. One term alone (a save's look for a repeat) ranks the same at any weight,
    and is not counted."""
    found = counts(query, table, terms, RARITY_COUNTED_TO) if len(terms) > 1 else None
    units = word_units(terms)
    rank_params: list[object] = []
    phrase_params: list[str] = []
    for unit in units:
        rarity = (
            [bm25_idf(found.total, found.counts.get(terms[i], 0)) for i in unit] if found else [1.0]
        )
        rank_params += [min(rarity), *[weights] * len(unit)]
        phrase_params += [terms[i] for i in unit]
    # Each phrase a query item of its own, a unit ranked by its best: ts_rank divides an OR
    # of phrases by their number, so a memory naming PostgreSQL ranked a fifth as high for
    # "database" and its twenty names (`core.kinds`) as for one word.
    items = [[f"q{n}_{k}" for k in range(len(unit))] for n, unit in enumerate(units)]
    return WeightedQuery(
        phrases=", ".join(
            # split at punctuation as the indexed text is (migration 0009): "app.settings" was
            # one token here, two words in row on SQLite
            f"phraseto_tsquery('engram', engram_split(%s)) AS {item}"
            for unit in items
            for item in unit
        ),
        matches=" || ".join(f"q.{item}" for unit in items for item in unit),
        rank=" + ".join(
            "%s * GREATEST("
            + ", ".join(f"ts_rank(%s::float4[], {alias}.search, q.{item})" for item in unit)
            + ")"
            for unit in items
        ),
        rank_params=rank_params,
        phrase_params=phrase_params,
    )


def counts(
    query: Callable[..., list[TupleRow]], table: str, words: Sequence[str], cap: int
) -> TermCounts:
    """How many rows of `table` hold each word (up to `cap`), and how many rows there are:
    counted in a table small enough (a store's numbering, max(seq), counts the deleted too:
    one emptied by gc weighed every word as rare), the planner's estimate beyond, where
    counting would cost more than the search."""
    distinct = list(dict.fromkeys(words))
    rows = query(
        f"SELECT w.word, (SELECT count(*) FROM (SELECT 1 FROM {table} t "
        "WHERE t.search @@ phraseto_tsquery('engram', engram_split(w.word)) LIMIT %s) s), "
        "(SELECT CASE WHEN c.reltuples >= %s THEN c.reltuples::bigint "
        f"ELSE (SELECT count(*) FROM {table}) END "
        f"FROM pg_class c WHERE c.oid = '{table}'::regclass) "
        "FROM unnest(%s::text[]) AS w(word)",
        [cap, COUNTED_UP_TO, distinct],
    )
    total = int(rows[0][2]) if rows else 0
    return TermCounts(total, {str(word): int(n) for word, n, _ in rows})


class PostgresText:
    """`text_search` and `term_counts` of the Store protocol; see
    `engram.storage.protocol.Store`."""

    # Defined by PostgresStore; declared for the type checker.
    _query: Callable[..., list[TupleRow]]
    # ts_rank's weights of the labels {D, C, B, A}: content D, cues C, entities B, tags A.
    _rank_weights: list[float]

    def text_search(
        self, terms: Sequence[str], where: Filter, limit: int, *, shallow: bool = False
    ) -> list[Stub]:
        # One ranking here, in one pass (not scored again): `shallow` changes nothing.
        if not terms:
            return []
        q = weighted_query(self._query, "memories", "m", terms, self._rank_weights)
        clauses, params = filter_sql(where)
        rows = self._query(
            f"SELECT {STUB_COLUMNS}, {q.rank} AS r FROM memories m, (SELECT {q.phrases}) q "
            f"WHERE m.search @@ ({q.matches}) {clauses} ORDER BY r DESC, m.seq LIMIT %s",
            [*q.rank_params, *q.phrase_params, *params, limit],
        )
        return [stub_from_row(row) for row in rows]

    def term_counts(self, words: Sequence[str], cap: int) -> TermCounts:
        return counts(self._query, "memories", words, cap)

    def indexed_terms(self, start: str, limit: int) -> list[str]:
        # The words of the memories holding one that begins so (the index finds them), read
        # from at most TERMS_SCANNED of them: a start that begins a common word matches much
        # of a large store, and the words a typo may mean are rarer than that.
        rows = self._query(
            "SELECT DISTINCT u.lexeme FROM (SELECT search FROM memories "
            "WHERE search @@ to_tsquery('simple', %s) LIMIT %s) m, unnest(m.search) u "
            "WHERE starts_with(u.lexeme, %s) LIMIT %s",
            [f"{start}:*", TERMS_SCANNED, start, limit],
        )
        return [str(row[0]) for row in rows]
