"""What every SQL backend's migrations share: the check that refuses a newer schema, and the
tables both dialects' first migrations made alike.

The memories' columns (but for the two keys, `seq` and `id`) and the relations table have the
same names, checks and defaults on SQLite and PostgreSQL; only the types are spelled each
dialect's way (`_SPELLINGS`). They are written here once, and frozen like the migrations that
create them: a change here would change what those migrations ran, on new stores only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from engram.errors import StoreError


def refuse_newer(done: set[str], known: Sequence[tuple[str, str]]) -> None:
    """A store a newer Engram has migrated is not opened: its triggers may call functions
    this one lacks (every save failed with "no such function"), its columns mean what this
    one does not know."""
    unknown = sorted(done - {name for name, _ in known})
    if unknown:
        raise StoreError(
            f"it was written by a newer Engram (its schema has {unknown[-1]}, which this "
            "version does not know): upgrade Engram to open it"
        )


# How each dialect spells the types in those tables: (SQLite, PostgreSQL).
_SPELLINGS = {
    "text": ("TEXT", "text"),
    "real": ("REAL", "float8"),
    "integer": ("INTEGER", "integer"),
    "names": ("TEXT", "text[]"),  # tags, entities: a JSON list, an array
    "no_names": ("'[]'", "'{}'"),  # none of them, as a default
    "json": ("TEXT", "jsonb"),  # meta, metadata
    "key": ("TEXT", 'text COLLATE "C"'),  # an id
    "memory": ("memories(id)", "memories (id)"),  # a memory's id, as a foreign key names it
}
Dialect = Literal["sqlite", "postgres"]

_MEMORY_COLUMNS = """\
            content {text} NOT NULL,
            tags {names} NOT NULL DEFAULT {no_names},
            entities {names} NOT NULL DEFAULT {no_names},
            source {text},
            context {text},
            meta {json} NOT NULL DEFAULT '{{}}',
            created_at {real} NOT NULL,
            last_used {real} NOT NULL,
            use_count {integer} NOT NULL DEFAULT 0 CHECK (use_count >= 0),
            strength {real} NOT NULL DEFAULT 1.0 CHECK (strength BETWEEN 0 AND 2),
            status {text} NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'promoted', 'archived')),
            promoted_at {real},
            promoted_to {text},
            review_priority {real} NOT NULL DEFAULT 0,
            last_review_at {real},
            review_count {integer} NOT NULL DEFAULT 0,
            cross_domain_count {integer} NOT NULL DEFAULT 0,
            forget_at {real},
            review_at {real},
            danger_from {real},
            danger_until {real},
            promote_from {real},
            promote_until {real}"""

_RELATIONS = """\
        CREATE TABLE {table} (
            id {key} PRIMARY KEY,
            from_id {key} NOT NULL REFERENCES {memory} ON DELETE CASCADE,
            to_id {key} NOT NULL REFERENCES {memory} ON DELETE CASCADE,
            type {text} NOT NULL,
            strength {real} NOT NULL CHECK (strength BETWEEN 0 AND 1),
            metadata {json} NOT NULL DEFAULT '{{}}',
            created_at {real} NOT NULL,
            UNIQUE (from_id, to_id, type)
        );"""


def memory_columns(dialect: Dialect) -> str:
    """The memories table's columns after `seq` and `id`, from `content` to `promote_until`
    (no comma after it: the dialect's own columns may follow)."""
    return _spelled(_MEMORY_COLUMNS, dialect)


def relations_table(dialect: Dialect, table: str) -> str:
    """The relations table, named `table`."""
    return _spelled(_RELATIONS, dialect, table=table)


def _spelled(template: str, dialect: Dialect, **names: str) -> str:
    side = 0 if dialect == "sqlite" else 1
    return template.format(**{kind: both[side] for kind, both in _SPELLINGS.items()}, **names)
