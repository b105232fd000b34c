"""Full-text search on PostgreSQL, ranked as SQLite's BM25 ranks: each query word weighs by
its rarity in the store.

A mixin of `PostgresStore` (it uses the store's `_query` and its field weights), like
`PostgresGraph`. PostgreSQL's `ts_rank` and `ts_rank_cd` know a word's frequency in each
memory but not in the store: a name found in most memories of a conversation counted as much
as the one rare word that found the answer (REALTALK R@10 0.561 against SQLite's 0.595,
docs/storage.md). Each word's rank is therefore weighted by its BM25 idf, from how many
memories contain it — counted up to `RARITY_COUNTED_TO`, beyond which a word is common and its
weight an upper bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from psycopg.rows import TupleRow

from engram.core.ranking import bm25_idf
from engram.storage.columns import STUB_COLUMNS
from engram.storage.postgres.sql import filter_sql
from engram.storage.protocol import Filter, Stub, TermCounts
from engram.storage.rows import stub_from_row

# How far a word's memories are counted for its weight: exact in a store where it is rarer,
# and counting stops there for a common word (the count is an index scan that grows with it).
RARITY_COUNTED_TO = 1_000
# A store of up to this many memories is counted for the total; a larger one is estimated.
COUNTED_UP_TO = 5_000


class PostgresText:
    """`text_search` and `term_counts` of the Store protocol; see
    `engram.storage.protocol.Store`."""

    # Defined by PostgresStore; declared for the type checker.
    _query: Callable[..., list[TupleRow]]
    # ts_rank's weights of the labels {D, C, B, A}: content D, entities B, tags A.
    _rank_weights: list[float]

    def text_search(self, terms: Sequence[str], where: Filter, limit: int) -> list[Stub]:
        if not terms:
            return []
        # One word (a save's look for a repeat is one phrase) ranks the same at any weight.
        found = self.term_counts(terms, RARITY_COUNTED_TO) if len(terms) > 1 else None
        # Each term is a phrase of its own (so `"`, `*`, `OR` or `:` are plain words, never
        # query syntax); a memory matches any of them, and ranks by the sum of each one's
        # ts_rank (which saturates with repetition, as BM25 does) times its idf.
        phrases = ", ".join(f"phraseto_tsquery('engram', %s) AS q{i}" for i in range(len(terms)))
        matches = " || ".join(f"q.q{i}" for i in range(len(terms)))
        rank = " + ".join(
            f"%s * ts_rank(%s::float4[], m.search, q.q{i})" for i in range(len(terms))
        )
        weighted: list[object] = []
        for term in terms:
            idf = bm25_idf(found.total, found.counts.get(term, 0)) if found else 1.0
            weighted += [idf, self._rank_weights]
        clauses, params = filter_sql(where)
        rows = self._query(
            f"SELECT {STUB_COLUMNS}, {rank} AS r FROM memories m, (SELECT {phrases}) q "
            f"WHERE m.search @@ ({matches}) {clauses} ORDER BY r DESC, m.seq LIMIT %s",
            [*weighted, *terms, *params, limit],
        )
        return [stub_from_row(row) for row in rows]

    def term_counts(self, words: Sequence[str], cap: int) -> TermCounts:
        distinct = list(dict.fromkeys(words))
        # The memories there are: counted in a store small enough (the numbering, max(seq),
        # counts the deleted too: a store emptied by gc weighed every word as rare), the
        # planner's estimate beyond, where counting would cost more than the search.
        rows = self._query(
            "SELECT w.word, (SELECT count(*) FROM (SELECT 1 FROM memories m "
            "WHERE m.search @@ phraseto_tsquery('engram', w.word) LIMIT %s) s), "
            "(SELECT CASE WHEN c.reltuples >= %s THEN c.reltuples::bigint "
            "ELSE (SELECT count(*) FROM memories) END "
            "FROM pg_class c WHERE c.oid = 'memories'::regclass) "
            "FROM unnest(%s::text[]) AS w(word)",
            [cap, COUNTED_UP_TO, distinct],
        )
        total = int(rows[0][2]) if rows else 0
        return TermCounts(total, {str(word): int(n) for word, n, _ in rows})
