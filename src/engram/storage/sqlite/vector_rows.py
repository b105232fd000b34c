"""The SQLite side of vectors (capability VECTORS): the stored rows in `memory_vectors`, and
searches through the HNSW index (`vectors.VectorIndex`) re-scored exactly from them.

A mixin of `SQLiteStore`, like `SQLiteGraph` and `SQLiteLtm`: it uses the store's `_write`
transaction, its `_query`, and `_vector_query`, the read-only connection that lets a search look
up meaning while its text query runs on another core. Which memories lack a vector, and how
many have one, are `SqlVectors`'s questions, asked with this schema's statements (`vector_sql`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engram.core.models import Status
from engram.storage.columns import STUB_COLUMNS
from engram.storage.protocol import Filter, Stub, VectorItems, VectorRows
from engram.storage.rows import stub_from_row
from engram.storage.sql_vectors import SqlVectors, VectorSql
from engram.storage.sqlite.sql import delete_in, filter_sql, prune_change_log, rows_in
from engram.storage.sqlite.vectors import VectorIndex, vector_blob

# Above this many rows to look up by seq, one scan of (seq, id) is cheaper than lookups: each
# lookup reads a page of the table, and at 100K memories they miss the cache.
_SCAN_ABOVE = 5_000
# The most memories a filtered vector search reads neighbours of before it gives up on finding
# `limit` that pass the filter (a tag no memory near the query has).
_WIDEST = 20_000


class SQLiteVectors(SqlVectors):
    """Vector methods of the Store protocol; see `engram.storage.protocol.Store`."""

    vector_sql = VectorSql(
        missing=(
            "SELECT m.id, m.content FROM memories m LEFT JOIN memory_vectors v "
            "ON v.seq = m.seq AND v.model_id = ? WHERE v.seq IS NULL ORDER BY m.seq LIMIT ?"
        ),
        counts="SELECT model_id, count(*) FROM memory_vectors GROUP BY model_id",
    )

    # What SQLiteStore defines: declared for the type checker, not stubbed with methods that
    # could only raise.
    _write: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _query: Callable[..., list[tuple[Any, ...]]]
    _vector_query: Callable[..., list[tuple[Any, ...]]]
    _vectors: VectorIndex | None

    def put_vectors(
        self, items: VectorItems, model_id: str, texts: Sequence[str] | None = None
    ) -> int:
        same_text = "" if texts is None else " AND content = ?"
        sql = (
            "INSERT INTO memory_vectors(seq, model_id, vector, row_count) "
            f"SELECT seq, ?, ?, ? FROM memories WHERE id = ?{same_text} "
            "ON CONFLICT(seq) DO UPDATE SET model_id = excluded.model_id, "
            "vector = excluded.vector, row_count = excluded.row_count"
        )
        rows = [
            (model_id, vector_blob(vec), len(np.atleast_2d(vec)), ident)
            + (() if texts is None else (texts[i],))
            for i, (ident, vec) in enumerate(items)
        ]
        with self._write() as conn:
            stored = sum(conn.execute(sql, row).rowcount for row in rows)
            prune_change_log(conn, "vector_changes")
            return stored

    def vector_search(
        self, vector: NDArray[np.float32], where: Filter, limit: int, rows: VectorRows | None = None
    ) -> list[Stub]:
        if self._vectors is None:
            return []
        # Twice the neighbours: a memory may fill several of them with its passages. Of the
        # memories they belong to, only the best by the index's (quantised) similarity are read
        # and re-scored: the oversampled count leaves room for the filter and the quantisation.
        # When the filter leaves fewer than `limit` of them, and the index holds more, the search
        # goes further (4x each time, up to _WIDEST memories): a memory tagged "home" was not
        # found behind 240 closer ones tagged "work", though alone in a store it was (audit).
        wanted = _oversampled(limit, where)
        clauses, params = filter_sql(where, alias="m", by_key=True)
        while True:
            found = self._vectors.search(vector, 2 * wanted)
            near = dict(found[:wanted])
            if not near:
                return []
            read = rows_in(
                self._vector_query,
                lambda marks: (
                    f"SELECT {STUB_COLUMNS}, v.vector, v.row_count FROM memories m "
                    f"JOIN memory_vectors v ON v.seq = m.seq AND v.model_id = ? "
                    f"WHERE m.seq IN ({marks}) {clauses}"
                ),
                list(near),
                before=[self._vectors.model_id],
                after=params,
            )
            seen_all = 2 * wanted >= self._vectors.size() and len(found) <= wanted
            if len(read) >= limit or seen_all or wanted >= _WIDEST:
                break
            wanted = min(4 * wanted, _WIDEST)
        if not read:
            return []
        # The index is quantised: re-score its neighbours exactly from the stored vectors, all
        # rows in one product, then each memory's best row.
        dims = self._vectors.dims
        blobs = [row[6] for row in read]
        counts = np.fromiter((len(b) for b in blobs), np.int64, len(blobs)) // (4 * dims)
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(-1, dims)
        sims = matrix @ vector
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        exact = np.maximum.reduceat(sims, starts).tolist()
        stubs = [
            stub_from_row((*row[:6], float(cos))) for row, cos in zip(read, exact, strict=True)
        ]
        stubs.sort(key=lambda s: -s.relevance)
        if rows is not None:  # as `get_vectors` reads them: all its rows where the count holds
            for row, start, count in zip(read, starts.tolist(), counts.tolist(), strict=True):
                if count == row[7] and len(row[6]) == 4 * count * dims:
                    rows[row[0]] = matrix[start : start + count]
        return stubs[:limit]

    def vector_neighbours(
        self, vectors: Mapping[str, NDArray[np.float32]], where: Filter, k: int
    ) -> dict[str, list[tuple[str, float]]]:
        if self._vectors is None or not vectors:
            return {}
        ids = list(vectors)
        found = self._vectors.search_many(
            np.stack([vectors[i] for i in ids]), _oversampled(k + 1, where)
        )
        seqs = sorted({seq for row in found for seq, _ in row})
        clauses, params = filter_sql(where, alias="m", by_key=True)
        passing: dict[int, str] = {}
        if len(seqs) > _SCAN_ABOVE:  # a large batch: one pass over the table beats lookups
            wanted = set(seqs)
            rows = self._query(f"SELECT m.seq, m.id FROM memories m WHERE 1 = 1 {clauses}", params)
            passing.update((int(seq), str(ident)) for seq, ident in rows if seq in wanted)
        else:
            rows = rows_in(
                self._query,
                lambda marks: (
                    f"SELECT m.seq, m.id FROM memories m WHERE m.seq IN ({marks}) " + clauses
                ),
                seqs,
                after=params,
            )
            passing.update((int(seq), str(ident)) for seq, ident in rows)
        return {
            ident: [
                (passing[seq], cos) for seq, cos in row if seq in passing and passing[seq] != ident
            ][:k]
            for ident, row in zip(ids, found, strict=True)
        }

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        out: dict[str, NDArray[np.float32]] = {}
        rows = rows_in(
            self._query,
            # CROSS JOIN fixes the order: by id first. Left to itself the planner walks every
            # vector of the model (the model_id index) and is 50x slower at 10K memories.
            lambda marks: (
                "SELECT m.id, v.vector, v.row_count FROM memories m CROSS JOIN "
                f"memory_vectors v ON v.seq = m.seq WHERE v.model_id = ? AND m.id IN ({marks})"
            ),
            ids,
            before=[model_id],
        )
        index = self._vectors
        dims = index.dims if index is not None and model_id == index.model_id else None
        for ident, blob, row_count in rows:
            if len(blob) % (4 * int(row_count)) or (
                dims is not None and len(blob) != 4 * int(row_count) * dims
            ):
                continue  # cut short (see VectorIndex.rows): as if missing
            matrix = np.frombuffer(blob, dtype=np.float32).reshape(int(row_count), -1)
            out[str(ident)] = matrix if passages else matrix[0]
        return out

    def delete_vectors(self, ids: Sequence[str]) -> None:
        delete_in(
            self._write,
            lambda marks: (
                "DELETE FROM memory_vectors WHERE seq IN "
                f"(SELECT seq FROM memories WHERE id IN ({marks}))"
            ),
            ids,
        )

    def vector_models(self, ids: Sequence[str]) -> dict[str, str]:
        """The model id of each of these memories' vector, for those that have one."""
        rows = rows_in(
            self._query,
            lambda marks: (
                "SELECT m.id, v.model_id FROM memories m JOIN memory_vectors v "
                f"ON v.seq = m.seq WHERE m.id IN ({marks})"
            ),
            ids,
        )
        return {str(a): str(b) for a, b in rows}


def _oversampled(limit: int, where: Filter) -> int:
    """How many neighbours to take from the index for `limit` results: filters (status, tags,
    window) are applied afterwards, and the index is quantised (re-scored from the stored
    vectors). Restrictive filters need more."""
    narrow = bool(where.tags) or where.used_since is not None or Status.ACTIVE not in where.statuses
    return limit * 3 + 20 if narrow else limit + limit // 2 + 20
