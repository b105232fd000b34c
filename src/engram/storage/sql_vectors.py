"""What the SQLite and PostgreSQL vector mixins ask alike, written once.

SQLite keeps a memory's vectors in a table of their own, PostgreSQL in a column of the memory's
row: the question which memories still lack a vector of a model, and how many have one of each,
is the same but for the statement, which `VectorSql` holds (each dialect's vector mixin one of
them). Storing and searching differ beyond their SQL (an in-memory index re-scored exactly on
SQLite, pgvector's HNSW on PostgreSQL) and stay with each dialect. Typed against
`VectorDialect`, as `SqlReads` is against `SqlDialect`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engram.storage.sql_reads import SqlDialect


@dataclass(frozen=True)
class VectorSql:
    # (id, content) of the memories without a vector of a model, in saving order; the model
    # id and the limit bound.
    missing: str
    # (model id, how many memories have a vector of it), for every model.
    counts: str


class VectorDialect(SqlDialect, Protocol):
    @property
    def vector_sql(self) -> VectorSql: ...


class SqlVectors:
    def missing_vectors(self: VectorDialect, model_id: str, limit: int) -> list[tuple[str, str]]:
        rows = self._query(self.vector_sql.missing, (model_id, limit))
        return [(str(a), str(b)) for a, b in rows]

    def vector_counts(self: VectorDialect) -> dict[str, int]:
        return {str(model): int(n) for model, n in self._query(self.vector_sql.counts)}
