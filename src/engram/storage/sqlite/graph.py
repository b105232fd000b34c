"""The SQLite side of the knowledge graph: relations between memories, and episodes.

A mixin of `SQLiteStore` (it uses the store's `_write` transaction and `_query`), like
`SQLiteLtm`: relations and episode order are one concern, kept apart from the memory rows.
What both dialects write alike (removing an edge, counting, the walk) is `SqlGraph`'s, given
this schema's spelling (`graph_sql`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from engram.core.models import Relation
from engram.core.timeutil import to_epoch
from engram.errors import NotFoundError
from engram.storage.protocol import EpisodeTail
from engram.storage.rows import from_json, relation_from_row
from engram.storage.sql_graph import GraphSql, SqlGraph
from engram.storage.sqlite.sql import MAX_VARS, chunks, delete_in, rows_in
from engram.storage.traversal import RELATION_COLUMNS


class SQLiteGraph(SqlGraph):
    """Relation and episode methods of the Store protocol; see `engram.storage.protocol.Store`."""

    graph_sql = GraphSql(
        table="relations",
        param=lambda name: f":{name}",
        type_filter="e.type IN (SELECT value FROM json_each(:types))",
        bind_types=json.dumps,
    )

    # The store's transaction and query functions, which SQLiteStore defines: declared for the
    # type checker, not stubbed with methods that could only raise.
    _write: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _query: Callable[..., list[tuple[Any, ...]]]

    def add_relation(self, relation: Relation) -> Relation:
        """`relation` itself when it was added; the edge already stored with the same (from,
        to, type) otherwise (the JSONL store appends a line only in the first case)."""
        with self._write() as conn:
            existing = conn.execute(
                f"SELECT {RELATION_COLUMNS} FROM relations "
                "WHERE from_id = ? AND to_id = ? AND type = ?",
                (relation.from_id, relation.to_id, relation.type),
            ).fetchone()
            if existing is not None:
                return relation_from_row(existing, from_json)
            for ident in (relation.from_id, relation.to_id):
                if conn.execute("SELECT 1 FROM memories WHERE id = ?", (ident,)).fetchone() is None:
                    raise NotFoundError("memory", ident)
            conn.execute(
                f"INSERT INTO relations({RELATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                relation_row(relation),
            )
        return relation

    def add_relations(self, relations: Sequence[Relation]) -> None:
        """Add many relations in one transaction; one whose end is missing, or whose (from, to,
        type) or id is taken, is skipped (the first edge stands)."""
        sql = (
            f"INSERT OR IGNORE INTO relations({RELATION_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?) "
            "AND EXISTS (SELECT 1 FROM memories WHERE id = ?)"
        )
        rows = [(*relation_row(r), r.from_id, r.to_id) for r in relations]
        with self._write() as conn:
            conn.executemany(sql, rows)

    def all_relations(self) -> list[Relation]:
        """Every relation, in the order they were added."""
        rows = self._query(f"SELECT {RELATION_COLUMNS} FROM relations ORDER BY rowid")
        return [relation_from_row(row, from_json) for row in rows]

    def delete_relations(self, ids: Sequence[str]) -> None:
        delete_in(self._write, lambda marks: f"DELETE FROM relations WHERE id IN ({marks})", ids)

    def episode_tails(self, episodes: Sequence[str]) -> dict[str, EpisodeTail]:
        rows = rows_in(
            self._query,
            lambda marks: (
                "SELECT t.episode, t.seq, MAX(m.id) FROM (SELECT episode, MAX(episode_seq) AS seq "
                f"FROM memories WHERE episode IN ({marks}) AND episode_seq IS NOT NULL "
                "GROUP BY episode) t JOIN memories m "
                "ON m.episode = t.episode AND m.episode_seq = t.seq GROUP BY t.episode"
            ),
            episodes,
        )
        return {row[0]: EpisodeTail(int(row[1]), row[2]) for row in rows}

    def episode_neighbours(self, ids: Sequence[str], radius: int) -> list[tuple[str, str]]:
        rows = rows_in(
            self._query,
            lambda marks: (
                "SELECT s.id, n.id FROM memories s JOIN memories n "
                "ON n.episode = s.episode "
                "AND n.episode_seq BETWEEN s.episode_seq - ? AND s.episode_seq + ? "
                f"WHERE s.id IN ({marks}) AND s.episode IS NOT NULL AND n.id <> s.id"
            ),
            ids,
            before=[radius, radius],
        )
        return [(row[0], row[1]) for row in rows]

    def episode_next(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = rows_in(
            self._query,
            lambda marks: (
                "SELECT s.id, n.id FROM memories s JOIN memories n ON n.episode = s.episode "
                # at the largest place the next is itself, not a float one higher
                "AND n.episode_seq = s.episode_seq + min(1, 9223372036854775807 - s.episode_seq) "
                f"WHERE s.id IN ({marks}) AND s.episode IS NOT NULL AND n.id <> s.id"
            ),
            ids,
        )
        return [(row[0], row[1]) for row in rows]

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        out: dict[str, Relation] = {}
        for chunk in chunks(list(memory_ids), size=MAX_VARS // 2):
            marks = ", ".join("?" * len(chunk))
            sql = (
                f"SELECT {RELATION_COLUMNS} FROM relations "
                f"WHERE from_id IN ({marks}) OR to_id IN ({marks}) ORDER BY created_at, id"
            )
            for row in self._query(sql, [*chunk, *chunk]):
                out[row[0]] = relation_from_row(row, from_json)
        return sorted(out.values(), key=lambda r: (r.created_at, r.id))


def relation_row(r: Relation) -> tuple[Any, ...]:
    """id, from_id, to_id, type, strength, metadata, created_at: as the relations table holds
    them."""
    return (
        r.id,
        r.from_id,
        r.to_id,
        r.type,
        r.strength,
        json.dumps(r.metadata),
        to_epoch(r.created_at),
    )
