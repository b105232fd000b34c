"""What the SQLite and PostgreSQL stores are alike beyond their reads (`SqlReads`) and their
note index (`SqlNotes`), written once: the capabilities they share and the audit trail's
append, the same statements but for the placeholder and how a JSON column is written (text on
SQLite, JSONB on PostgreSQL: `encode_json`). Typed against `StoreDialect`, as `SqlReads` is
against `SqlDialect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, closing
from typing import Any, Protocol

from engram.core.models import AuditEntry
from engram.storage.protocol import Capability
from engram.storage.rows import AUDIT_COLUMNS, KEEP_NEWEST_AUDIT, Decode, audit_row
from engram.storage.sql_notes import SqlNotes
from engram.storage.sql_reads import SqlDialect, SqlReads


class StoreDialect(SqlDialect, Protocol):
    @property
    def encode_json(self) -> Decode:  # a Python value -> what the driver writes to a JSON column
        ...

    @property
    def audit_keep(self) -> int: ...

    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction, yielding the dialect's connection (sqlite3 or psycopg)."""
        ...


class SqlStore(SqlReads, SqlNotes):
    location: str
    capabilities = frozenset({Capability.VECTORS, Capability.LTM, Capability.LASTING_POSITIONS})

    def audit_append(self: StoreDialect, entries: Sequence[AuditEntry]) -> None:
        """Through a cursor, the one way both drivers run a statement for many rows."""
        p = self.P
        places = ", ".join([p] * len(AUDIT_COLUMNS.split(",")))
        with self._write() as conn, closing(conn.cursor()) as cur:
            cur.executemany(
                f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES ({places})",
                [audit_row(e, encode=self.encode_json) for e in entries],
            )
            cur.execute(KEEP_NEWEST_AUDIT.format(p=p), (self.audit_keep,))
