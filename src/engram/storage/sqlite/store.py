"""The embedded default store: one SQLite file, WAL, safe for several processes at once.

Every write runs in a `BEGIN IMMEDIATE` transaction, which takes the file's write lock before
reading, so a read-modify-write (touch, observe) can never interleave with another process's.
Full-text, tag and schedule indexes are maintained by triggers inside the same transaction.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any

from engram.atomic import PRIVATE_FILE_MODE
from engram.core.models import Memory, Schedule
from engram.errors import RefusedDataError, StoreError
from engram.storage.changes import apply_changes
from engram.storage.columns import (
    CUES,
    ENTITIES,
    FIELD_WEIGHTS,
    JSON_COLUMNS,
    MEMORY_COLUMN_LIST,
    MEMORY_COLUMNS,
    META,
    SCHEDULE_COLUMNS,
    STUB_COLUMNS,
    TAGS,
    FieldWeights,
    changed_values,
    memory_values,
    schedule_values,
)
from engram.storage.locks import file_lock, locking_available, thread_lock
from engram.storage.protocol import (
    Change,
    Filter,
    MemoryText,
    Rescheduler,
    Stub,
)
from engram.storage.rows import from_json, memory_from_row, stub_from_row
from engram.storage.sql_reads import FINGERPRINT_KEY, PageEnds, Params, schedule_batches
from engram.storage.sql_store import SqlStore
from engram.storage.sqlite.graph import SQLiteGraph
from engram.storage.sqlite.ltm import SQLiteLtm
from engram.storage.sqlite.migrations import migrate, refuse_foreign, register_functions
from engram.storage.sqlite.sql import (
    file_identity,
    filter_sql,
    on,
    prune_change_log,
    rows_in,
    store_error,
)
from engram.storage.sqlite.text import SQLiteText, TermCountCache
from engram.storage.sqlite.vector_rows import SQLiteVectors
from engram.storage.sqlite.vectors import INDEX_SUFFIXES, VectorIndex

log = logging.getLogger(__name__)
# How much of the store file a reading connection maps into memory (`_read_connection`):
# SQLite lowers it to its build's limit, and reads past it as before. Mapped pages are the
# operating system's file cache, shared and given back under memory pressure, but they count
# in the process's resident size once read.
READ_MMAP_BYTES = 2 << 30
# A memory marked to be kept for good (`engram.core.models.KEEP`: JSON true, not 1 or "yes").
_KEPT = "json_type(meta, '$.keep') = 'true'"


class SQLiteStore(SqlStore, SQLiteText, SQLiteGraph, SQLiteLtm, SQLiteVectors):
    P = "?"
    decode_json = staticmethod(from_json)
    encode_json = staticmethod(json.dumps)

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = 30.0,
        field_weights: FieldWeights = FIELD_WEIGHTS,
        vector_model: tuple[str, int] | None = None,
        durable: bool = True,
    ) -> None:
        """`vector_model` = (model id, dimensions) of the embedder whose vectors are indexed.
        `durable=False` skips fsync: for a database that is only an index of files that are
        themselves durable (the JSONL store's), rebuilt from them after a crash."""
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self.page_ends = PageEnds()
        self.field_weights = field_weights
        self._locks: dict[str, threading.Lock] = {}
        if str(path) != ":memory:":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # e.g. a file where a folder of the path should be
                raise StoreError(
                    f"cannot create the folder of the store {self.path} ({exc.strerror}): "
                    "check ENGRAM_STORAGE_PATH (or --store)"
                ) from exc
        try:
            is_folder = self.path.is_dir()
            mode = self.path.stat().st_mode if self.path.exists() else 0
        except OSError as exc:  # a name longer than the file system allows
            raise StoreError(f"cannot open the store {self.path} ({exc.strerror})") from exc
        if is_folder:
            raise StoreError(
                f"{self.path} is a folder, not a SQLite file: a JSONL store? open it as "
                f"jsonl://{self.path.absolute()}"
            )
        if mode and not stat.S_ISREG(mode):
            # SQLite's open of a pipe waits forever, and of /dev/null wrote /dev/null-journal
            raise StoreError(
                f"{self.path} is not a file (a device, a named pipe or a socket): give a file"
            )
        if not mode and str(path) != ":memory:":
            _create_private(self.path)
        try:
            self._conn = sqlite3.connect(
                str(self.path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            refuse_foreign(self._conn)
            self._conn.execute(f"PRAGMA journal_mode = {'WAL' if durable else 'MEMORY'}")
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'OFF'}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            migrate(self._conn)
        except StoreError as exc:  # written by a newer Engram
            self._conn.close()
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            if not mode and str(path) != ":memory:":
                _check_creatable(self.path)
            raise StoreError(
                f"cannot open SQLite store {self.path}: {store_error(exc, self.path)}"
            ) from exc
        # Locks are named after the file itself (via a symlink, two processes applied one plan
        # twice), resolved once: every save takes a lock.
        self._lock_stem = str(path) if str(path) == ":memory:" else str(self.path.resolve())
        # The file this process writes to, checked before each write: deleted or replaced
        # under a running server, it took every write into the unlinked file and said "done".
        self._identity = file_identity(self.path) if durable and str(path) != ":memory:" else None
        self._lock = threading.RLock()
        self._writer: int | None = None  # the thread in a write transaction, if any
        self._commits = 0  # write transactions committed through this store (`_data_token`)
        self._term_cache = TermCountCache()
        self._damaged: StoreError | None = None  # once seen, no more writes from this process
        # Reads go through connections of their own. WAL lets readers run beside a writer,
        # but a read on the writing connection waited for a write of another thread, and with
        # it for another process's lock (up to the busy timeout: a search took 3 s while the
        # CLI imported). Vector reads have one more, so that a search looks up meaning on one
        # core while its text query runs on the other (bench/scale.py --embeddings). A store
        # without WAL (the JSONL store's index) has the one connection.
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()
        self._aside: sqlite3.Connection | None = None
        self._aside_lock = threading.Lock()
        if durable and str(path) != ":memory:":
            try:
                self._reader = self._read_connection(busy_timeout)
                if vector_model is not None:
                    self._aside = self._read_connection(busy_timeout)
            except sqlite3.DatabaseError as exc:
                self._conn.close()
                raise StoreError(
                    f"cannot open SQLite store {self.path}: {store_error(exc, self.path)}"
                ) from exc
        self._vectors: VectorIndex | None = None
        if vector_model is not None:
            uid = self._query("SELECT value FROM store_meta WHERE key = 'store_uid'")[0][0]
            in_memory = str(self.path) == ":memory:"
            self._vectors = VectorIndex(
                None if in_memory else Path(str(self.path) + INDEX_SUFFIXES[0]),
                mode=None if in_memory else _mode_of(self.path),
                dims=vector_model[1],
                model_id=vector_model[0],
                store_uid=str(uid),
                query=self._vector_query,
            )

    # -- plumbing -----------------------------------------------------------------------------

    def _read_connection(self, busy_timeout: float) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(self.path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA query_only = ON")
        # Reads through the operating system's page cache in place, not a copy of each page
        # per read: a search's row lookups at 1M memories (its best text matches joined to
        # their rows and indexed text) took a quarter less (docs/performance.md).
        conn.execute(f"PRAGMA mmap_size = {READ_MMAP_BYTES}")
        register_functions(conn)
        return conn

    def close(self) -> None:
        if self._vectors is not None:
            self._vectors.close()
        for conn, lock in ((self._aside, self._aside_lock), (self._reader, self._reader_lock)):
            if conn is not None:
                with lock:
                    conn.close()
        with self._lock:
            self._conn.close()

    def _failed(self, exc: sqlite3.DatabaseError) -> StoreError:
        error = store_error(exc, self.path)
        if "damaged" in str(error):
            self._damaged = error  # writing on would spread the damage: refuse from now on
        return error

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._damaged is not None:
                raise self._damaged
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc) from exc
            if self._identity is not None and file_identity(self.path) != self._identity:
                self._conn.execute("ROLLBACK")
                raise StoreError(
                    f"the store {self.path} was deleted or replaced while this process had it "
                    "open: nothing was written; open it again (restart the server)"
                )
            self._writer = threading.get_ident()  # its reads see its own changes
            try:
                yield self._conn
            except BaseException as exc:
                with suppress(sqlite3.Error):  # a failed statement may have ended it already
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.DatabaseError):
                    raise self._failed(exc) from exc
                raise
            else:
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.DatabaseError as exc:
                    with suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                    raise self._failed(exc) from exc
                self._commits += 1
            finally:
                self._writer = None

    def _data_token(self) -> tuple[int, int] | None:
        """A value that changes whenever the store's rows may have: this store's commits and
        the reading connection's `data_version` (every other connection's, another process's
        too). None in this thread's write transaction, whose reads see rows not committed."""
        if self._writer == threading.get_ident():
            return None
        if self._reader is None:
            return (self._commits, 0)
        version = self._read(self._reader, self._reader_lock, "PRAGMA data_version", ())
        return (self._commits, int(version[0][0]))

    def _query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """A read: on the reading connection, or in the write transaction of this thread."""
        if self._reader is None or self._writer == threading.get_ident():
            return self._read(self._conn, self._lock, sql, params)
        return self._read(self._reader, self._reader_lock, sql, params)

    def _vector_query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """A read for vector search: on the connection kept for it, when there is one."""
        if self._aside is None:
            return self._query(sql, params)
        return self._read(self._aside, self._aside_lock, sql, params)

    def _read(
        self, conn: sqlite3.Connection, lock: Any, sql: str, params: Params
    ) -> list[tuple[Any, ...]]:
        with lock:
            try:
                return conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc) from exc

    # -- memories -----------------------------------------------------------------------------

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None:
        rows = [(*_memory_row(m), *schedule_values(s)) for m, s in items]
        placeholders = ", ".join("?" * (len(MEMORY_COLUMNS) + len(SCHEDULE_COLUMNS)))
        sql = (
            f"INSERT INTO memories ({MEMORY_COLUMN_LIST}, {', '.join(SCHEDULE_COLUMNS)}) "
            f"VALUES ({placeholders})"
        )
        with self._write() as conn:
            try:
                conn.executemany(sql, rows)
            except sqlite3.IntegrityError as exc:
                raise RefusedDataError(f"cannot insert memories: {exc}") from exc

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        # A range on the unique index: the ids that sort from the prefix up to the prefix
        # followed by the highest code point.
        sql = "SELECT id FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT ?"
        return [row[0] for row in self._query(sql, [prefix, prefix + "\U0010ffff", limit])]

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        found = {m.id: m for m in self._memories(self._query, ids)}
        return [found[i] for i in ids if i in found]

    def texts(self, ids: Sequence[str]) -> dict[str, MemoryText]:
        rows = rows_in(
            self._query,
            lambda marks: f"SELECT id, content, episode FROM memories WHERE id IN ({marks})",
            ids,
        )
        return {ident: MemoryText(text, episode) for ident, text, episode in rows}

    def contents(self, ids: Sequence[str]) -> dict[str, str]:
        """Id → text of the memories that exist: what a vector must describe (the JSONL
        index checks each vector line against it), without building whole records."""
        rows = rows_in(
            self._query,
            lambda marks: f"SELECT id, content FROM memories WHERE id IN ({marks})",
            ids,
        )
        return {str(ident): str(text) for ident, text in rows}

    @staticmethod
    def _memories(run: Callable[[str, list[Any]], list[Any]], ids: Sequence[str]) -> list[Memory]:
        rows = rows_in(
            run,
            lambda marks: f"SELECT {MEMORY_COLUMN_LIST} FROM memories WHERE id IN ({marks})",
            ids,
        )
        return [memory_from_row(row, from_json) for row in rows]

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]:
        with self._write() as conn:
            stored = {m.id: m for m in self._memories(on(conn), ids)}
            done = apply_changes(ids, stored, change)
            for ident, (new, schedule) in done.writes.items():
                _update(conn, stored[ident], new, schedule)
        return done.pairs

    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        guard = "" if due_before is None else " AND forget_at IS NOT NULL AND forget_at < ?"
        extra = [] if due_before is None else [due_before]
        with self._write() as conn:
            rows = rows_in(
                on(conn),
                lambda marks: f"DELETE FROM memories WHERE id IN ({marks}){guard} RETURNING id",
                ids,
                after=extra,
            )
            prune_change_log(conn, "vector_changes")  # a deleted memory's vectors are logged
        removed = {row[0] for row in rows}
        return [i for i in dict.fromkeys(ids) if i in removed]

    # -- finding ------------------------------------------------------------------------------

    def stubs(self, ids: Sequence[str], where: Filter) -> list[Stub]:
        clauses, params = filter_sql(where, alias="m", by_key=True)
        rows = rows_in(
            self._query,
            lambda marks: (
                f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.id IN ({marks}) " + clauses
            ),
            ids,
            after=params,
        )
        return [stub_from_row(row) for row in rows]

    def browse(self, where: Filter, limit: int) -> list[Stub]:
        out: dict[str, Stub] = {}
        for status in where.statuses:
            narrowed = Filter(statuses=(status,), tags=where.tags, used_since=where.used_since)
            clauses, params = filter_sql(narrowed, alias="m")
            for order in ("m.forget_at DESC, m.last_used DESC", "m.last_used DESC"):
                sql = (
                    f"SELECT {STUB_COLUMNS}, 1.0 FROM memories m WHERE 1 = 1 {clauses} "
                    f"ORDER BY {order} LIMIT ?"
                )
                for row in self._query(sql, [*params, limit]):
                    out.setdefault(row[0], stub_from_row(row))
        return list(out.values())

    def saved_between(self, start: float, end: float, where: Filter, limit: int) -> list[Stub]:
        # `by_key`: the filter's columns unindexed (a unary +), so that the planner reads the
        # range of the saving-time index instead of walking every active memory by status.
        clauses, params = filter_sql(where, alias="m", by_key=True)
        sql = (
            f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.created_at >= ? "
            f"AND m.created_at < ? {clauses} ORDER BY m.created_at DESC LIMIT ?"
        )
        return [stub_from_row(row) for row in self._query(sql, [start, end, *params, limit])]

    def due_for_gc(self, now: float, limit: int) -> list[str]:
        """Exact, not a superset: forget_at was computed by the same formula as the score."""
        sql = (
            "SELECT id FROM memories WHERE forget_at IS NOT NULL AND forget_at < ? "
            "ORDER BY forget_at LIMIT ?"
        )
        return [row[0] for row in self._query(sql, (now, limit))]

    def near_review_peak(self, now: float, limit: int) -> list[Stub]:
        """Up to `limit` memories whose peak review urgency is nearest to now, either side."""
        half = max(1, limit // 2)
        later = (
            f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE review_at >= ? "
            "ORDER BY review_at LIMIT ?"
        )
        earlier = (
            f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE review_at < ? "
            "ORDER BY review_at DESC LIMIT ?"
        )
        rows = self._query(later, (now, half)) + self._query(earlier, (now, half))
        return [stub_from_row(row) for row in rows]

    def in_danger_zone(self, now: float, limit: int) -> list[Stub]:
        # R*Tree coordinates are 32-bit floats rounded outwards: a superset, as the protocol
        # allows. CROSS JOIN pins the R*Tree as the outer loop.
        sql = (
            f"SELECT {STUB_COLUMNS}, 0.0 FROM danger_rt r CROSS JOIN memories m ON m.seq = r.id "
            "WHERE r.t0 <= ? AND r.t1 >= ? LIMIT ?"
        )
        return [stub_from_row(row) for row in self._query(sql, (now, now, limit))]

    def schedule_counts(self, now: float) -> tuple[int, int]:
        """(due for gc, in the danger zone) now, counted from the indexes alone."""
        due = self._query(
            "SELECT count(*) FROM memories WHERE forget_at IS NOT NULL AND forget_at < ?", (now,)
        )[0][0]
        # The R*Tree's 32-bit bounds are rounded outwards (minutes at today's epoch): it finds
        # the candidates, the exact columns decide, as the listings do.
        zone = self._query(
            "SELECT count(*) FROM danger_rt r CROSS JOIN memories m ON m.seq = r.id "
            "WHERE r.t0 <= ? AND r.t1 >= ? AND m.danger_from <= ? AND m.danger_until >= ?",
            (now, now, now, now),
        )[0][0]
        return int(due), int(zone)

    def in_promotion_window(self, now: float, limit: int) -> list[Stub]:
        # R*Tree coordinates are 32-bit floats rounded outwards: a superset, filtered exactly
        # by the service.
        sql = (
            # CROSS JOIN pins the R*Tree as the outer loop (the planner may otherwise scan).
            f"SELECT {STUB_COLUMNS}, 0.0 FROM promote_rt r CROSS JOIN memories m ON m.seq = r.id "
            "WHERE r.t0 <= ? AND r.t1 >= ? AND m.status = 'active' LIMIT ?"
        )
        return [stub_from_row(row) for row in self._query(sql, (now, now, limit))]

    # -- schedules ----------------------------------------------------------------------------

    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int:
        updated = 0
        sets = ", ".join(f"{c} = ?" for c in SCHEDULE_COLUMNS)
        with self._write() as conn:
            for seqs, inputs in schedule_batches(on(conn), "?", _KEPT):
                arrays = compute(inputs)
                columns = [getattr(arrays, c) for c in SCHEDULE_COLUMNS]
                payload = [
                    (*(_nullable(float(col[i])) for col in columns), seq)
                    for i, seq in enumerate(seqs)
                ]
                conn.executemany(f"UPDATE memories SET {sets} WHERE seq = ?", payload)
                updated += len(seqs)
                log.info("rescheduled %d memories", updated)
            conn.execute(
                "INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)",
                (FINGERPRINT_KEY, fingerprint),
            )
        return updated

    # -- the maintenance pipeline -------------------------------------------------------------

    def exclusive(self, name: str, wait: bool = False) -> AbstractContextManager[None]:
        # An in-memory store is one process's: a lock of its own, no file in the cwd. Where the
        # platform cannot lock files, a waited lock (a save's) guards this process only.
        if str(self.path) == ":memory:" or (wait and not locking_available()):
            return thread_lock(self._locks.setdefault(name, threading.Lock()), name, wait)
        return file_lock(Path(f"{self._lock_stem}.{name}.lock"), name, wait)

    # -- beyond the protocol: what an index of other files (the JSONL store's) needs -----------

    def meta_value(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM store_meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta_value(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", (key, value)
            )

    def schedules(self, ids: Sequence[str]) -> dict[str, Schedule]:
        columns = ", ".join(SCHEDULE_COLUMNS)
        rows = rows_in(
            self._query,
            lambda marks: f"SELECT id, {columns} FROM memories WHERE id IN ({marks})",
            ids,
        )
        return {
            row[0]: Schedule.model_construct(**dict(zip(SCHEDULE_COLUMNS, row[1:], strict=True)))
            for row in rows
        }


# -- row mapping -------------------------------------------------------------------------------


def _nullable(value: float) -> float | None:
    return None if value != value else value  # NaN -> NULL


def _memory_row(m: Memory) -> list[Any]:
    """The row SQLite stores: the JSON columns as text."""
    row = memory_values(m)
    for i in (TAGS, ENTITIES, META, CUES):
        row[i] = json.dumps(row[i], ensure_ascii=False)
    return row


def _update(conn: sqlite3.Connection, old: Memory, new: Memory, schedule: Schedule) -> None:
    """Write only the columns that changed (`changed_values`), and the schedule."""
    changes = changed_values(old, new)
    for name in JSON_COLUMNS:
        if name in changes:
            changes[name] = json.dumps(changes[name], ensure_ascii=False)
    changes.update(zip(SCHEDULE_COLUMNS, schedule_values(schedule), strict=True))
    sets = ", ".join(f"{name} = ?" for name in changes)
    conn.execute(f"UPDATE memories SET {sets} WHERE id = ?", [*changes.values(), old.id])


def _check_creatable(path: Path) -> None:
    """Why a new store's file could not be made, in the system's words: SQLite says only
    "unable to open database file" (a folder without write permission, a read-only disk)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return  # made meanwhile (another process): SQLite's own error says what failed
    except OSError as exc:
        raise StoreError(f"cannot create the store {path} ({exc.strerror})") from None
    os.close(fd)
    path.unlink(missing_ok=True)


def _create_private(path: Path) -> None:
    """A new store's file, readable by its owner alone, as the HTTP token is: SQLite made it
    readable by every user of the machine (the umask's 644), every memory with it (a
    helper's probe). SQLite gives its WAL and shared-memory files the same permissions; one
    made already (another process, a moment ago) is left as it is, and a path SQLite cannot
    create either is left for its own error."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))


def _mode_of(path: Path) -> int | None:
    """The store file's permissions, for the files kept beside it (its vector index)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
