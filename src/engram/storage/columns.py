"""The memory table's columns, named once for both SQL stores.

The column lists are derived from the models (a field added to `Memory` or `Schedule` is a
column, in the same place, for SQLite and PostgreSQL alike); `memory_values` is the one
Memory → row conversion and `changed_values` the one update diff. Each store only encodes the
four JSON columns its own way (text for SQLite, JSONB and arrays for PostgreSQL) and names its
placeholders. Rows come back through `engram.storage.rows`, in the same column order.
"""

from __future__ import annotations

from typing import Any

from engram.core.models import Memory, Schedule
from engram.core.timeutil import to_epoch

MEMORY_COLUMNS: tuple[str, ...] = tuple(Memory.model_fields)
SCHEDULE_COLUMNS: tuple[str, ...] = tuple(Schedule.model_fields)
MEMORY_COLUMN_LIST = ", ".join(MEMORY_COLUMNS)  # for SQL; `rows.memory_from_row` reads this order
# The full-text weights of a memory's content, tags, entities and cues, in the index's order.
FieldWeights = tuple[float, float, float, float]
FIELD_WEIGHTS: FieldWeights = (1.0, 2.0, 2.0, 1.0)
# What ranking needs of a memory (see `Stub`), from the memories table aliased `m`.
STUB_COLUMNS = "m.id, m.use_count, m.strength, m.last_used, m.created_at, m.status"
JSON_COLUMNS = ("tags", "entities", "meta", "cues")
TAGS, ENTITIES, META, CUES = (MEMORY_COLUMNS.index(c) for c in JSON_COLUMNS)


def memory_values(m: Memory) -> list[Any]:
    """A memory as plain values in MEMORY_COLUMNS order: times in epoch seconds, tags,
    entities and cues as lists, meta as a dict (the store encodes those four), status as its text.
    Spelled out rather than looped over the fields: bulk inserts call it for every memory."""
    return [
        m.id,
        m.content,
        list(m.tags),
        list(m.entities),
        m.source,
        m.context,
        m.meta,
        to_epoch(m.created_at),
        to_epoch(m.last_used),
        m.use_count,
        m.strength,
        m.status.value,
        None if m.promoted_at is None else to_epoch(m.promoted_at),
        m.promoted_to,
        m.review_priority,
        None if m.last_review_at is None else to_epoch(m.last_review_at),
        m.review_count,
        m.cross_domain_count,
        m.episode,
        m.episode_seq,
        list(m.cues),
    ]


def schedule_values(s: Schedule) -> tuple[float | None, ...]:
    return tuple(getattr(s, c) for c in SCHEDULE_COLUMNS)


def changed_values(old: Memory, new: Memory) -> dict[str, Any]:
    """The columns whose values differ between two versions of a memory (never `id`), as plain
    values: an update writes only these, so text triggers fire only on text edits."""
    return {
        name: value
        for name, prev, value in zip(
            MEMORY_COLUMNS, memory_values(old), memory_values(new), strict=True
        )
        if prev != value and name != "id"
    }
