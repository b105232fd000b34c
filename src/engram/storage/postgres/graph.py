"""The PostgreSQL side of the knowledge graph: relations between memories, and episodes.

A mixin of `PostgresStore` (it uses the store's `_write` transaction and `_query`), like
`SQLiteGraph` for SQLite: relations and episode order are one concern, kept apart from the
memory rows. What both dialects write alike (removing an edge, counting, the walk) is
`SqlGraph`'s, given this schema's spelling (`graph_sql`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import psycopg
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb

from engram.core.models import Relation
from engram.core.timeutil import to_epoch
from engram.errors import NotFoundError
from engram.storage.postgres.sql import checked_json
from engram.storage.protocol import EpisodeTail
from engram.storage.rows import relation_from_row
from engram.storage.sql_graph import GraphSql, SqlGraph
from engram.storage.traversal import RELATION_COLUMNS


class PostgresGraph(SqlGraph):
    """Relation and episode methods of the Store protocol; see `engram.storage.protocol.Store`."""

    graph_sql = GraphSql(
        table="relationships",
        param=lambda name: f"%({name})s",
        type_filter="e.type = ANY(%(types)s::text[])",
        bind_types=list,
        start_cast='::text COLLATE "C"',
    )

    # The store's transaction and query functions, which PostgresStore defines: declared for
    # the type checker, not stubbed with methods that could only raise.
    _write: Callable[[], AbstractContextManager[psycopg.Connection[TupleRow]]]
    _query: Callable[..., list[TupleRow]]

    def add_relation(self, relation: Relation) -> Relation:
        find = (
            f"SELECT {RELATION_COLUMNS} FROM relationships "
            "WHERE from_id = %s AND to_id = %s AND type = %s"
        )
        key = (relation.from_id, relation.to_id, relation.type)
        with self._write() as conn:
            existing = conn.execute(find, key).fetchone()
            if existing is not None:
                return relation_from_row(existing)
            # FOR SHARE: neither endpoint can be deleted before the edge is in.
            present = {
                row[0]
                for row in conn.execute(
                    "SELECT id FROM memories WHERE id = ANY(%s::text[]) ORDER BY id FOR SHARE",
                    ([relation.from_id, relation.to_id],),
                )
            }
            for ident in (relation.from_id, relation.to_id):
                if ident not in present:
                    raise NotFoundError("memory", ident)
            inserted = conn.execute(
                f"INSERT INTO relationships ({RELATION_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (from_id, to_id, type) DO NOTHING RETURNING id",
                (
                    relation.id,
                    relation.from_id,
                    relation.to_id,
                    relation.type,
                    relation.strength,
                    Jsonb(checked_json(relation.metadata, "metadata")),
                    to_epoch(relation.created_at),
                ),
            ).fetchone()
            if inserted is None:  # another client added the same edge meanwhile
                row = conn.execute(find, key).fetchone()
                assert row is not None
                return relation_from_row(row)
        return relation

    def episode_tails(self, episodes: Sequence[str]) -> dict[str, EpisodeTail]:
        rows = self._query(
            "SELECT DISTINCT ON (episode) episode, episode_seq, id FROM memories "
            "WHERE episode = ANY(%s::text[]) AND episode_seq IS NOT NULL "
            "ORDER BY episode, episode_seq DESC, id DESC",
            (list(dict.fromkeys(episodes)),),
        )
        return {row[0]: EpisodeTail(int(row[1]), row[2]) for row in rows}

    def episode_neighbours(self, ids: Sequence[str], radius: int) -> list[tuple[str, str]]:
        rows = self._query(
            "SELECT s.id, n.id FROM memories s JOIN memories n ON n.episode = s.episode "
            # bigint does not overflow into a float as SQLite's integers do: a place near the
            # largest (a restored record) failed every search that reached it
            "AND n.episode_seq BETWEEN s.episode_seq - %(r)s "
            "AND s.episode_seq + LEAST(%(r)s, 9223372036854775807 - s.episode_seq) "
            "WHERE s.id = ANY(%(ids)s::text[]) AND s.episode IS NOT NULL AND n.id <> s.id",
            {"r": radius, "ids": list(dict.fromkeys(ids))},
        )
        return [(row[0], row[1]) for row in rows]

    def episode_next(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = self._query(
            "SELECT s.id, n.id FROM memories s JOIN memories n ON n.episode = s.episode "
            # at the largest place the next is itself: one higher overflowed
            "AND n.episode_seq = s.episode_seq + LEAST(1, 9223372036854775807 - s.episode_seq) "
            "WHERE s.id = ANY(%(ids)s::text[]) AND s.episode IS NOT NULL AND n.id <> s.id",
            {"ids": list(dict.fromkeys(ids))},
        )
        return [(row[0], row[1]) for row in rows]

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        if not memory_ids:
            return []
        ids = list(memory_ids)
        rows = self._query(
            f"SELECT {RELATION_COLUMNS} FROM relationships "
            "WHERE from_id = ANY(%s::text[]) OR to_id = ANY(%s::text[]) ORDER BY created_at, id",
            (ids, ids),
        )
        return [relation_from_row(row) for row in rows]
