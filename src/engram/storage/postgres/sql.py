"""Row mapping and filters of the PostgreSQL store: what its column types cannot hold is
refused by name (NUL characters in text, NaN or Infinity in JSONB) before PostgreSQL would
refuse it with an error naming neither field nor limit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb

from engram.core.models import Memory, Schedule
from engram.errors import RefusedDataError
from engram.storage.columns import (
    MEMORY_COLUMNS,
    META,
    SCHEDULE_COLUMNS,
    changed_values,
    memory_values,
    schedule_values,
)
from engram.storage.protocol import Filter

Conn = psycopg.Connection[TupleRow]


def on(conn: Conn) -> Callable[[str, list[Any]], list[TupleRow]]:
    """A statement runner on this connection (`sql_reads.schedule_batches`), as SQLite's `on`:
    inside a write transaction, where the store's `_query` would take another connection."""
    return lambda sql, params: conn.execute(sql, params).fetchall()


def no_nul(value: str | None, field: str) -> str | None:
    """The data refused, not the operation (`RefusedDataError`): a migration copies the other
    records and names this one (a NUL in a hand-edited JSONL line's meta stopped it)."""
    if value is not None and "\x00" in value:
        raise RefusedDataError(f"{field}: must not contain NUL characters")
    return value


def checked_json(value: Any, field: str) -> Any:
    """JSONB stores neither NUL characters nor NaN/Infinity: refuse them by name."""
    if isinstance(value, str):
        no_nul(value, field)
    elif isinstance(value, float) and (value != value or value in (float("inf"), -float("inf"))):
        raise RefusedDataError(f"{field}: must not contain NaN or Infinity")
    elif isinstance(value, dict):
        for key, item in value.items():
            no_nul(str(key), field)
            checked_json(item, field)
    elif isinstance(value, list | tuple):
        for item in value:
            checked_json(item, field)
    return value


_TEXT_COLUMNS = ("source", "context", "promoted_to", "episode")  # NUL refused by name
_TEXT = tuple(MEMORY_COLUMNS.index(c) for c in _TEXT_COLUMNS)


def memory_row(m: Memory) -> list[Any]:
    """The row PostgreSQL stores: tags and entities as arrays, meta as JSONB, after refusing
    what those types cannot hold."""
    row = memory_values(m)
    for i, name in zip(_TEXT, _TEXT_COLUMNS, strict=True):
        no_nul(row[i], name)
    row[META] = Jsonb(checked_json(row[META], "meta"))
    return row


def update_row(conn: Conn, old: Memory, new: Memory, schedule: Schedule) -> None:
    """Write only the columns that changed (`changed_values`), and the schedule."""
    changes = changed_values(old, new)
    for name in _TEXT_COLUMNS:
        if name in changes:
            no_nul(changes[name], name)
    if "meta" in changes:
        changes["meta"] = Jsonb(checked_json(changes["meta"], "meta"))
    changes.update(zip(SCHEDULE_COLUMNS, schedule_values(schedule), strict=True))
    sets = sql.SQL(", ").join(
        sql.SQL("{} = {}").format(sql.Identifier(name), sql.Placeholder()) for name in changes
    )
    conn.execute(
        sql.SQL("UPDATE memories SET {} WHERE id = %s").format(sets), [*changes.values(), old.id]
    )


def filter_sql(where: Filter) -> tuple[str, list[Any]]:
    clauses = ["AND m.status = ANY(%s::text[])"]
    params: list[Any] = [[s.value for s in where.statuses]]
    if where.used_since is not None:
        clauses.append("AND m.last_used >= %s")
        params.append(where.used_since)
    if where.tags:
        clauses.append("AND engram_lower(m.tags) && engram_lower(%s::text[])")
        params.append(list(where.tags))
    return " ".join(clauses), params
