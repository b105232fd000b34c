"""The PostgreSQL side of vectors (capability VECTORS): a memory's whole-text embedding in
`memories.embed`, its passages in `memory_passages`, searched through pgvector's HNSW indexes.

A mixin of `PostgresStore`, like `SQLiteVectors` for SQLite: it uses the store's `_write`
transaction and `_query`. Which memories lack a vector, and how many have one, are
`SqlVectors`'s questions, asked with this schema's statements (`vector_sql`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager

import numpy as np
import psycopg
from numpy.typing import NDArray
from pgvector import Vector
from psycopg.rows import TupleRow

from engram.core.text import MAX_PASSAGES
from engram.errors import ValidationError
from engram.storage.columns import STUB_COLUMNS
from engram.storage.postgres.sql import filter_sql
from engram.storage.protocol import Filter, Stub, VectorItems, VectorRows
from engram.storage.rows import stub_from_row
from engram.storage.sql_vectors import SqlVectors, VectorSql

VECTOR_DIMENSIONS = 384  # the `embed vector(384)` column


class PostgresVectors(SqlVectors):
    """Vector methods of the Store protocol; see `engram.storage.protocol.Store`."""

    vector_sql = VectorSql(
        missing=(
            "SELECT id, content FROM memories WHERE embed_model IS DISTINCT FROM %s "
            "ORDER BY seq LIMIT %s"
        ),
        counts=(
            "SELECT embed_model, count(*) FROM memories WHERE embed_model IS NOT NULL "
            "GROUP BY embed_model"
        ),
    )

    # What PostgresStore defines: declared for the type checker, not stubbed with methods that
    # could only raise.
    _write: Callable[[], AbstractContextManager[psycopg.Connection[TupleRow]]]
    _query: Callable[..., list[TupleRow]]
    _vector_model: str | None

    def put_vectors(
        self, items: VectorItems, model_id: str, texts: Sequence[str] | None = None
    ) -> int:
        if not items:
            return 0
        matrices = {ident: np.atleast_2d(vector) for ident, vector in items}
        for ident, matrix in matrices.items():
            if matrix.ndim != 2 or matrix.shape[1] != VECTOR_DIMENSIONS:
                raise ValidationError(
                    "vector",
                    f"of {ident} has shape {matrix.shape}, not (rows, {VECTOR_DIMENSIONS})",
                )
        # NULL text: no condition (COALESCE keeps the row's own content).
        contents = [None] * len(items) if texts is None else list(texts)
        with self._write() as conn:
            conn.execute(  # in id order, as `modify` and `delete` lock them (else a deadlock)
                "SELECT 1 FROM memories WHERE id = ANY(%s::text[]) ORDER BY id FOR UPDATE",
                ([i for i, _ in items],),
            )
            stored = [
                str(row[0])
                for row in conn.execute(
                    "UPDATE memories m SET embed = u.embed, embed_model = %s "
                    "FROM unnest(%s::text[], %s::vector[], %s::text[]) AS u(id, embed, content) "
                    "WHERE m.id = u.id AND m.content = COALESCE(u.content, m.content) "
                    "RETURNING m.id",
                    (
                        model_id,
                        [i for i, _ in items],
                        [Vector(matrices[i][0]) for i, _ in items],
                        contents,
                    ),
                ).fetchall()
            ]
            conn.execute("DELETE FROM memory_passages WHERE memory_id = ANY(%s)", (stored,))
            # Row 0 is the whole text (in `embed`); rows 1.. are its passages.
            parts = [(i, n, matrices[i][n]) for i in stored for n in range(1, len(matrices[i]))]
            if parts:
                conn.execute(
                    "INSERT INTO memory_passages (memory_id, part, embed) "
                    "SELECT * FROM unnest(%s::text[], %s::int[], %s::vector[])",
                    (
                        [i for i, _, _ in parts],
                        [part for _, part, _ in parts],
                        [Vector(v) for _, _, v in parts],
                    ),
                )
            return len(set(stored))

    def vector_search(
        self, vector: NDArray[np.float32], where: Filter, limit: int, rows: VectorRows | None = None
    ) -> list[Stub]:
        """HNSW (cosine) nearest neighbours of the configured model, over whole texts and over
        passages, each memory once with its best; filters are applied during the index scans
        (pgvector's iterative scan), not to a fixed set of neighbours. `rows` is left as it is:
        the vectors are not read."""
        if self._vector_model is None:
            return []
        clauses, params = filter_sql(where)
        q = Vector(vector)
        with self._write() as conn:
            # A wide beam (4x the neighbours asked for) buys recall: the service re-ranks
            # these candidates, so a missed neighbour is a missed result.
            conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(40, 4 * limit))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            found = conn.execute(
                f"SELECT {STUB_COLUMNS}, 1 - (m.embed <=> %s::vector) AS r FROM memories m "
                f"WHERE m.embed_model = %s {clauses} ORDER BY m.embed <=> %s::vector LIMIT %s",
                [q, self._vector_model, *params, q, limit],
            ).fetchall()
            # One memory may fill the nearest passages with its own (up to MAX_PASSAGES): more
            # are read until they come from `limit` memories, or there are no more. A memory
            # with one close passage was missed behind another's fifteen (audit).
            wanted = 2 * limit
            while True:
                passages = conn.execute(
                    f"SELECT {STUB_COLUMNS}, 1 - (p.embed <=> %s::vector) AS r "
                    f"FROM memory_passages p JOIN memories m ON m.id = p.memory_id "
                    f"WHERE m.embed_model = %s {clauses} ORDER BY p.embed <=> %s::vector "
                    "LIMIT %s",
                    [q, self._vector_model, *params, q, wanted],
                ).fetchall()
                enough = len({row[0] for row in passages}) >= limit
                if enough or len(passages) < wanted or wanted >= MAX_PASSAGES * limit:
                    break
                wanted = min(2 * wanted, MAX_PASSAGES * limit)
            found += passages
        best: dict[str, Stub] = {}
        for stub in sorted((stub_from_row(row) for row in found), key=lambda s: -s.relevance):
            best.setdefault(stub.id, stub)
        return list(best.values())[:limit]

    def vector_neighbours(
        self, vectors: Mapping[str, NDArray[np.float32]], where: Filter, k: int
    ) -> dict[str, list[tuple[str, float]]]:
        return {
            ident: [
                (s.id, s.relevance) for s in self.vector_search(v, where, k + 1) if s.id != ident
            ][:k]
            for ident, v in vectors.items()
        }

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        whole = stored_vectors(self._query, "memories", "id", ids, model_id)
        if not passages:
            return whole
        parts: dict[str, list[NDArray[np.float32]]] = {i: [v] for i, v in whole.items()}
        for ident, vec in self._query(
            "SELECT memory_id, embed FROM memory_passages WHERE memory_id = ANY(%s::text[]) "
            "ORDER BY memory_id, part",
            (list(whole),),
        ):
            parts[str(ident)].append(as_array(vec))
        return {i: np.stack(rows) for i, rows in parts.items()}


def stored_vectors(
    query: Callable[..., list[TupleRow]],
    table: str,
    key: str,
    keys: Sequence[str],
    model_id: str,
) -> dict[str, NDArray[np.float32]]:
    """The vectors of this model in `table`'s `embed` column, by `key` (memories by id, notes
    by path); a row without one is left out."""
    if not keys:
        return {}
    rows = query(
        f"SELECT {key}, embed FROM {table} WHERE {key} = ANY(%s::text[]) AND embed_model = %s",
        (list(keys), model_id),
    )
    return {str(k): as_array(vec) for k, vec in rows}


def as_array(vector: Vector) -> NDArray[np.float32]:
    return np.asarray(vector.to_numpy(), dtype=np.float32)
