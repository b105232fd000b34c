"""What the SQLite and PostgreSQL knowledge graphs do alike, written once.

The two schemas name the relations table differently (their first migrations did), bind a named
parameter and a list of types each its own way, and PostgreSQL compares ids in the "C"
collation; `GraphSql` holds those differences, each dialect's graph mixin one of them. The
rest of a removal, the count and the walk (`traversal_sql`) is the same SQL. Adding an edge and
reading the edges of many memories stay with each dialect: they lock and batch differently. The
methods are typed against `GraphDialect`, as `SqlReads` is against `SqlDialect`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from engram.core.models import Direction, Relation
from engram.storage.protocol import Hop
from engram.storage.rows import relation_from_row
from engram.storage.sql_reads import SqlDialect
from engram.storage.traversal import RELATION_COLUMNS, traversal_sql


@dataclass(frozen=True)
class GraphSql:
    """How one dialect spells what the graph's shared statements need."""

    table: str  # the relations table
    param: Callable[[str], str]  # a named placeholder (`:name`, `%(name)s`)
    type_filter: str  # the condition on `e.type` for a walk along some types only, `types` bound
    bind_types: Callable[[list[str]], Any]  # those types as the `types` parameter
    start_cast: str = ""  # after the start node's placeholder


class GraphDialect(SqlDialect, Protocol):
    @property
    def graph_sql(self) -> GraphSql: ...

    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction, yielding the dialect's connection (sqlite3 or psycopg)."""
        ...


class SqlGraph:
    def delete_relation(self: GraphDialect, relation_id: str) -> Relation | None:
        table = self.graph_sql.table
        with self._write() as conn:
            row = conn.execute(
                f"DELETE FROM {table} WHERE id = {self.P} RETURNING {RELATION_COLUMNS}",
                (relation_id,),
            ).fetchone()
        return None if row is None else relation_from_row(row, self.decode_json)

    def count_relations(self: GraphDialect) -> int:
        return int(self._query(f"SELECT count(*) FROM {self.graph_sql.table}")[0][0])

    def traverse(
        self: GraphDialect,
        start: str,
        depth: int,
        types: Sequence[str],
        direction: Direction,
        limit: int,
    ) -> list[Hop]:
        """Breadth-first, one recursive CTE (`engram.storage.traversal`)."""
        dialect = self.graph_sql
        query = traversal_sql(
            table=dialect.table,
            direction=direction,
            typed=bool(types),
            param=dialect.param,
            type_filter=dialect.type_filter,
            start_cast=dialect.start_cast,
        )
        params: dict[str, Any] = {"start": start, "depth": depth, "limit": limit}
        if types:
            params["types"] = dialect.bind_types(list(types))
        rows = self._query(query, params)
        return [
            Hop(row[0], int(row[1]), row[2], relation_from_row(row[3:], self.decode_json))
            for row in rows
        ]
