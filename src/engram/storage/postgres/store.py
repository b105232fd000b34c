"""PostgreSQL + pgvector: the store for many clients and large collections.

psycopg 3 over a connection pool. Every write is one transaction; a read-modify-write (touch,
observe) locks its rows with `SELECT ... FOR UPDATE` first, so concurrent clients never lose an
increment. Full text is a generated `tsvector` column under a GIN index; the threshold-crossing
schedule is indexed with B-trees (gc, review) and GiST indexes over generated ranges (danger
zone, promotion window), so every candidate query is an index scan. Times are float8 epoch
seconds, exactly the floats the core computes with.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import TupleRow
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from engram.config import redact_secrets, redact_url
from engram.core.models import Memory, Schedule
from engram.core.scoring import Policy
from engram.errors import BusyError, ConfigError, RefusedDataError, StoreError, UnavailableError
from engram.storage.changes import apply_changes
from engram.storage.columns import (
    FIELD_WEIGHTS,
    MEMORY_COLUMN_LIST,
    MEMORY_COLUMNS,
    SCHEDULE_COLUMNS,
    STUB_COLUMNS,
    FieldWeights,
    schedule_values,
)
from engram.storage.postgres.graph import PostgresGraph
from engram.storage.postgres.ltm import PostgresLtm
from engram.storage.postgres.migrations import migrate
from engram.storage.postgres.sql import Conn, filter_sql, memory_row, on, update_row
from engram.storage.postgres.text import PostgresText
from engram.storage.postgres.vectors import VECTOR_DIMENSIONS, PostgresVectors
from engram.storage.protocol import (
    Change,
    Filter,
    MemoryText,
    Rescheduler,
    Stub,
)
from engram.storage.rows import as_is, memory_from_row, stub_from_row
from engram.storage.sql_reads import FINGERPRINT_KEY, PageEnds, Params, schedule_batches
from engram.storage.sql_store import SqlStore

log = logging.getLogger(__name__)


class _OwnPoolRetries(logging.Filter):
    """Drops the pool's line for each failed try of Engram's own pool ("error connecting in
    'engram': …", five a call while the server is down): the error raised says why once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "in 'engram'" not in record.getMessage()


logging.getLogger("psycopg.pool").addFilter(_OwnPoolRetries())

# A memory marked to be kept for good (`engram.core.models.KEEP`: JSON true, not 1 or "yes").
_KEPT = "meta -> 'keep' = 'true'::jsonb"
_INSERT_LOCK = 0x656E6772616D01  # advisory lock serialising inserts ("engram", 1)
# The advisory lock of an exclusive section: its name, and the store's schema unless that is
# public (the key every Engram used, before stores in other schemas of one database refused
# each other's pipeline runs and queued behind each other's saves; audit).
_SECTION_KEY = (
    "hashtext(CASE current_schema() WHEN 'public' THEN %(key)s "
    "ELSE %(key)s || '@' || current_schema() END)"
)
_BULK = 1_000  # inserts of at least this many rows may refresh the planner's statistics
_STALE = 0.2  # ... when more than this fraction of the table changed since the last ANALYZE


# The threshold queries, each answered from an index (B-tree on forget_at / review_at, GiST on
# the danger and promotion spans); tests EXPLAIN them. Parameters: now, then limits.
SCHEDULE_SQL = {
    "due_for_gc": (
        "SELECT id FROM memories WHERE forget_at IS NOT NULL AND forget_at < %s "
        "ORDER BY forget_at LIMIT %s"
    ),
    "near_review_peak": (
        f"(SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.review_at >= %s "
        "ORDER BY m.review_at LIMIT %s) UNION ALL "
        f"(SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.review_at < %s "
        "ORDER BY m.review_at DESC LIMIT %s)"
    ),
    "schedule_counts": (
        "SELECT (SELECT count(*) FROM memories WHERE forget_at IS NOT NULL AND forget_at < %s), "
        "(SELECT count(*) FROM memories "
        "WHERE danger_span IS NOT NULL AND danger_span @> %s::float8)"
    ),
    "in_danger_zone": (
        f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m "
        "WHERE m.danger_span IS NOT NULL AND m.danger_span @> %s::float8 LIMIT %s"
    ),
    "in_promotion_window": (
        f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m "
        "WHERE m.promote_span IS NOT NULL AND m.promote_span @> %s::float8 "
        "AND m.status = 'active' LIMIT %s"
    ),
}


class PostgresStore(SqlStore, PostgresGraph, PostgresLtm, PostgresText, PostgresVectors):
    P = "%s"
    decode_json = staticmethod(as_is)
    encode_json = Jsonb

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 4,
        connect_timeout: float = 10.0,
        field_weights: FieldWeights = FIELD_WEIGHTS,
        vector_model: tuple[str, int] | None = None,
    ) -> None:
        """`vector_model` = (model id, dimensions) of the embedder whose vectors are searched."""
        self.location = redact_url(url)
        self.page_ends = PageEnds()
        # The pool connection holding a waited lock, used for every call of the thread that
        # holds it (`_waited_lock`): no connection beyond the pool's, and no deadlock waiting
        # for one while holding another.
        self._pinned = threading.local()
        self._url = url
        self._connect_timeout = connect_timeout = _connect_timeout(url, connect_timeout)
        if vector_model is not None and vector_model[1] != VECTOR_DIMENSIONS:
            raise ConfigError(
                f"ENGRAM_EMBEDDING_MODEL: the PostgreSQL store holds {VECTOR_DIMENSIONS}-"
                f"dimensional vectors; {vector_model[0]!r} makes {vector_model[1]}"
            )
        self._vector_model = None if vector_model is None else vector_model[0]
        # ts_rank weighs the labels {D, C, B, A} (content D, cues C, entities B, tags A), each
        # in [0, 1]: the field weights scaled by the largest keep their ratios.
        top = max(field_weights)
        content, tags, entities, cues = (w / top for w in field_weights)
        self._rank_weights = [content, cues, entities, tags]
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout) as conn:
                applied = migrate(conn)
                vector_type = TypeInfo.fetch(conn, "vector")
                folds = conn.execute("SELECT lower('ÉTÉ') = 'été'").fetchone()
        except psycopg.errors.InvalidSchemaName as exc:  # said as raw SQL ("no schema has been
            # selected to create in" and a CREATE TABLE statement)
            raise StoreError(
                f"cannot open PostgreSQL store {self.location}: no schema on its search_path "
                "exists; create the schema first (CREATE SCHEMA …), or name one that exists"
            ) from exc
        except psycopg.Error as exc:
            reason = redact_secrets(str(exc), url)
            raise StoreError(f"cannot open PostgreSQL store {self.location}: {reason}") from exc
        except StoreError as exc:  # written by a newer Engram
            raise StoreError(f"cannot open PostgreSQL store {self.location}: {exc}") from None
        if applied:
            log.info("migrated %s: %s", self.location, ", ".join(applied))
        if not (folds and folds[0]):
            # lower() and the text parser follow the database's LC_CTYPE.
            log.warning(
                "the database of %s knows ASCII letters only (LC_CTYPE C): 'été' will not find "
                "'ÉTÉ' in tags or text, a word touching a curly quote or an emoji is read with "
                "it; create the database with a UTF-8 locale (e.g. LC_CTYPE 'C.UTF-8')",
                self.location,
            )
        self._vector_type = vector_type
        # Set when a call found the server unreachable, until the pool has a connection again.
        self._unreachable = False
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            kwargs={"autocommit": True, "connect_timeout": connect_timeout},
            min_size=1,
            max_size=pool_size,
            open=True,
            timeout=connect_timeout * 3,
            num_workers=1,
            name="engram",
            configure=self._configure,
            # A connection the server dropped (a restart) is replaced, not handed out: each
            # call after a restart failed until every pooled connection had been tried.
            check=ConnectionPool.check_connection,
        )

    # -- plumbing -----------------------------------------------------------------------------

    def close(self) -> None:
        self._pool.close()

    @contextmanager
    def _conn(self) -> Iterator[Conn]:
        try:
            pinned: Conn | None = getattr(self._pinned, "conn", None)
            if pinned is not None:
                yield pinned
                return
            if (
                self._unreachable
                and not self._pool.closed  # closed by `close`: it says so (PoolClosed)
                and not self._pool.get_stats().get("pool_available")
            ):
                with self._own_connection() as conn:
                    yield conn
                return
            self._unreachable = False
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            # The pool says only that it waited; why it could not connect was in its log.
            self._unreachable = True
            reason = self._why_unreachable() or str(exc)
            raise UnavailableError(
                f"PostgreSQL store {self.location} is unavailable: {reason}"
            ) from exc
        except (psycopg.errors.DataError, psycopg.errors.IntegrityError) as exc:
            raise RefusedDataError(f"PostgreSQL refused the data: {exc}") from exc
        except psycopg.OperationalError as exc:  # the server went away mid-statement
            self._unreachable = True
            reason = redact_secrets(str(exc), self._url)
            raise UnavailableError(f"PostgreSQL store {self.location}: {reason}") from exc
        except psycopg.Error as exc:  # the server down or read-only, a privilege missing
            reason = redact_secrets(str(exc), self._url)
            raise StoreError(f"PostgreSQL store {self.location}: {reason}") from exc

    def _configure(self, conn: Conn) -> None:
        register_vector_info(conn, self._vector_type)

    @contextmanager
    def _own_connection(self) -> Iterator[Conn]:
        """A connection of the call's own, while the pool has none after the server was found
        unreachable: the pool retries at growing intervals, and each call waited its 30 s for
        it, during an outage and for up to half a minute after the server was back, where a
        new connection fails at once or works (a probe). Down, this fails as fast as the CLI;
        back, the call works, and the pool's own come back in their time."""
        with psycopg.connect(
            self._url, autocommit=True, connect_timeout=self._connect_timeout
        ) as conn:
            self._configure(conn)
            yield conn

    def _why_unreachable(self) -> str | None:
        """The server's own reason a new connection fails now ("the server is not running",
        "database … is not currently accepting connections"), or None if one succeeds."""
        try:
            with psycopg.connect(self._url, connect_timeout=self._connect_timeout):
                return None
        except psycopg.Error as exc:
            return redact_secrets(str(exc), self._url).strip()

    @contextmanager
    def _write(self) -> Iterator[Conn]:
        with self._conn() as conn, conn.transaction():
            yield conn

    def _query(self, query: str, params: Params = ()) -> list[TupleRow]:
        with self._conn() as conn:
            return conn.execute(query, params).fetchall()

    # -- memories -----------------------------------------------------------------------------

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None:
        columns = (*MEMORY_COLUMNS, *SCHEDULE_COLUMNS)
        query = (
            f"INSERT INTO memories ({', '.join(columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))})"
        )
        rows = [(*memory_row(m), *schedule_values(s)) for m, s in items]
        with self._write() as conn, conn.cursor() as cur:  # a taken id: a StoreError (_conn)
            # One insert at a time, as on SQLite: else an import committing after a later save
            # (its seq drawn at insert) had rows below that save's, and paging by seq skipped them.
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_INSERT_LOCK,))
            cur.executemany(query, rows)
        if len(rows) >= _BULK:
            self._refresh_statistics()

    def _refresh_statistics(self) -> None:
        """After a bulk load or delete, ANALYZE now rather than when autovacuum gets to it (up
        to a minute later): with stale statistics the planner misjudges every filter."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT n_mod_since_analyze, n_live_tup FROM pg_stat_user_tables "
                "WHERE relid = 'memories'::regclass"
            ).fetchone()
            if row is None or row[0] > _STALE * max(int(row[1]), _BULK):
                conn.execute("ANALYZE memories")

    def _refresh_after_delete(self, removed: int) -> None:
        """Word weights read the table's size from the statistics (`postgres.text`): gc
        emptying most of a store left every word looking rare until autovacuum came. The
        size recorded is compared, not the activity counters, which reach the statistics
        views up to a second late."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass"
            ).fetchone()
            if row is not None and removed > _STALE * float(row[0]):
                conn.execute("ANALYZE memories")

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        rows = self._query(
            "SELECT id FROM memories WHERE starts_with(id, %s) ORDER BY id LIMIT %s",
            (prefix, limit),
        )
        return [row[0] for row in rows]

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        rows = self._query(
            f"SELECT {MEMORY_COLUMN_LIST} FROM memories WHERE id = ANY(%s::text[])", (list(ids),)
        )
        found = {row[0]: memory_from_row(row) for row in rows}
        return [found[i] for i in ids if i in found]

    def texts(self, ids: Sequence[str]) -> dict[str, MemoryText]:
        rows = self._query(
            "SELECT id, content, episode FROM memories WHERE id = ANY(%s::text[])", (list(ids),)
        )
        return {ident: MemoryText(text, episode) for ident, text, episode in rows}

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]:
        with self._write() as conn:
            # Lock every row up front, in id order, so two clients modifying overlapping sets
            # queue up instead of deadlocking.
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMN_LIST} FROM memories WHERE id = ANY(%s::text[]) "
                "ORDER BY id FOR UPDATE",
                (list(ids),),
            ).fetchall()
            stored = {row[0]: memory_from_row(row) for row in rows}
            done = apply_changes(ids, stored, change)
            for ident, (new, schedule) in done.writes.items():
                update_row(conn, stored[ident], new, schedule)
        return done.pairs

    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        if not ids:
            return []
        guard = "" if due_before is None else " AND forget_at IS NOT NULL AND forget_at < %s"
        params: list[Any] = [list(ids)] + ([] if due_before is None else [due_before])
        with self._write() as conn:
            # Rows locked in id order, as `modify` does (in a bitmap scan's, a touch deadlocked).
            removed = {
                row[0]
                for row in conn.execute(
                    "DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE "
                    f"id = ANY(%s::text[]) ORDER BY id FOR UPDATE){guard} RETURNING id",
                    params,
                ).fetchall()
            }
        if removed:
            self._refresh_after_delete(len(removed))
        return [i for i in dict.fromkeys(ids) if i in removed]

    # -- finding ------------------------------------------------------------------------------

    def stubs(self, ids: Sequence[str], where: Filter) -> list[Stub]:
        clauses, params = filter_sql(where)
        rows = self._query(
            f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.id = ANY(%s::text[]) {clauses}",
            [list(dict.fromkeys(ids)), *params],
        )
        return [stub_from_row(row) for row in rows]

    def browse(self, where: Filter, limit: int) -> list[Stub]:
        """Two index ranges per status (`Store.browse`)."""
        out: dict[str, Stub] = {}
        for status in where.statuses:
            narrowed = Filter(statuses=(status,), tags=where.tags, used_since=where.used_since)
            clauses, params = filter_sql(narrowed)
            for order in ("m.forget_at DESC NULLS LAST, m.last_used DESC", "m.last_used DESC"):
                rows = self._query(
                    f"SELECT {STUB_COLUMNS}, 1.0 FROM memories m WHERE true {clauses} "
                    f"ORDER BY {order} LIMIT %s",
                    [*params, limit],
                )
                for row in rows:
                    out.setdefault(row[0], stub_from_row(row))
        return list(out.values())

    def saved_between(self, start: float, end: float, where: Filter, limit: int) -> list[Stub]:
        clauses, params = filter_sql(where)
        rows = self._query(
            f"SELECT {STUB_COLUMNS}, 0.0 FROM memories m WHERE m.created_at >= %s "
            f"AND m.created_at < %s {clauses} ORDER BY m.created_at DESC LIMIT %s",
            [start, end, *params, limit],
        )
        return [stub_from_row(row) for row in rows]

    def due_for_gc(self, now: float, limit: int) -> list[str]:
        return [row[0] for row in self._query(SCHEDULE_SQL["due_for_gc"], (now, limit))]

    def near_review_peak(self, now: float, limit: int) -> list[Stub]:
        half = max(1, limit // 2)
        rows = self._query(SCHEDULE_SQL["near_review_peak"], (now, half, now, half))
        return [stub_from_row(row) for row in rows]

    def schedule_counts(self, now: float) -> tuple[int, int]:
        rows = self._query(SCHEDULE_SQL["schedule_counts"], (now, now))
        return int(rows[0][0]), int(rows[0][1])

    def in_danger_zone(self, now: float, limit: int) -> list[Stub]:
        rows = self._query(SCHEDULE_SQL["in_danger_zone"], (now, limit))
        return [stub_from_row(row) for row in rows]

    def in_promotion_window(self, now: float, limit: int) -> list[Stub]:
        rows = self._query(SCHEDULE_SQL["in_promotion_window"], (now, limit))
        return [stub_from_row(row) for row in rows]

    # -- schedules ----------------------------------------------------------------------------

    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int:
        updated = 0
        sets = ", ".join(f"{c} = u.{c}" for c in SCHEDULE_COLUMNS)
        arrays = ", ".join("%s::float8[]" for _ in SCHEDULE_COLUMNS)
        with self._write() as conn:
            # Writers wait until the new schedules are in; readers carry on.
            # EXCLUSIVE: SHARE ROW EXCLUSIVE let in a touch locking its rows, then deadlocked.
            conn.execute("LOCK TABLE memories IN EXCLUSIVE MODE")
            for seqs, inputs in schedule_batches(on(conn), "%s", _KEPT):
                result = compute(inputs)
                columns = [
                    [None if v != v else v for v in getattr(result, c).tolist()]
                    for c in SCHEDULE_COLUMNS
                ]
                conn.execute(
                    f"UPDATE memories m SET {sets} FROM unnest(%s::bigint[], {arrays}) "
                    f"AS u(seq, {', '.join(SCHEDULE_COLUMNS)}) WHERE m.seq = u.seq",
                    [seqs, *columns],
                )
                updated += len(seqs)
                log.info("rescheduled %d memories", updated)
            conn.execute(
                "INSERT INTO store_meta(key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (FINGERPRINT_KEY, fingerprint),
            )
        return updated

    # -- the maintenance pipeline -------------------------------------------------------------

    @contextmanager
    def exclusive(self, name: str, wait: bool = False) -> Iterator[None]:
        """A session advisory lock on a connection of its own (not the pool's: holding one for
        a long pipeline run must not starve the other calls). It is unlocked before that
        connection closes: the server drops a closed session's locks a moment later, and a run
        started in that moment was refused. If this process dies, the server still drops it.
        Waited for (a save's short step), on a pool connection: a new connection per save
        would cost more than the save."""
        key = f"engram:{name}"
        if wait:
            with self._waited_lock(key):
                yield
            return
        try:
            conn = psycopg.connect(
                self._url, autocommit=True, connect_timeout=self._connect_timeout
            )
        except psycopg.Error as exc:
            reason = redact_secrets(str(exc), self._url)
            raise StoreError(f"PostgreSQL store {self.location}: {reason}") from exc
        with conn:
            held = conn.execute(
                f"SELECT pg_try_advisory_lock({_SECTION_KEY})", {"key": key}
            ).fetchone()
            if not (held and held[0]):
                raise BusyError(f"{name} is already running on this store ({self.location})")
            try:
                yield
            finally:
                with suppress(psycopg.Error):  # a lost connection has dropped the lock already
                    conn.execute(f"SELECT pg_advisory_unlock({_SECTION_KEY})", {"key": key})

    @contextmanager
    def _waited_lock(self, key: str) -> Iterator[None]:
        with self._conn() as conn:
            conn.execute(f"SELECT pg_advisory_lock({_SECTION_KEY})", {"key": key})
            self._pinned.conn = conn
            try:
                yield
            finally:
                self._pinned.conn = None
                with suppress(psycopg.Error):  # a lost connection has dropped the lock already
                    conn.execute(f"SELECT pg_advisory_unlock({_SECTION_KEY})", {"key": key})

    # -- SQL-side scoring ---------------------------------------------------------------------

    def decay_scores(self, ids: Sequence[str], now: float, policy: Policy) -> dict[str, float]:
        """The decay score of each memory at `now`, computed by the database (`engram_score`,
        created by a migration) with `policy`'s parameters: the same numbers as
        `engram.core.scoring.memory_score` (a promoted memory no longer fades), available to
        SQL-side ranking."""
        if not ids:
            return {}
        d = policy.decay
        rows = self._query(
            "SELECT id, engram_score(use_count, strength, "
            "CASE WHEN status = 'promoted' THEN 0 ELSE %s - last_used END, %s, %s, "
            "%s, %s, %s, %s, %s, %s) FROM memories WHERE id = ANY(%s::text[])",
            (
                now,
                d.model,
                policy.beta,
                d.pl_alpha,
                d.pl_t0,
                d.decay_lambda,
                d.tc_weight_fast,
                d.tc_lambda_fast,
                d.tc_lambda_slow,
                list(ids),
            ),
        )
        return {row[0]: float(row[1]) for row in rows}

    def explain(self, query: str, params: Sequence[Any] = ()) -> str:
        """EXPLAIN of a query on this store (for tests and diagnosis)."""
        rows = self._query("EXPLAIN " + query, params)
        return "\n".join(str(row[0]) for row in rows)


def _connect_timeout(url: str, default: float) -> int:
    """The URL's `connect_timeout` when it gives one, else `default`, in whole seconds. The
    first connection used `default` whatever the URL said and the pool the URL's own: a
    malformed one ("5s") made the store, then hung for 30 s and failed with the reason only in
    the log (audit)."""
    try:
        given = conninfo_to_dict(url).get("connect_timeout")
    except psycopg.ProgrammingError as exc:  # the server's reason, without the password
        reason = redact_secrets(str(exc), url)
        raise StoreError(f"cannot open PostgreSQL store {redact_url(url)}: {reason}") from None
    if given is None:
        return max(1, round(default))
    if not str(given).isdigit() or int(str(given)) < 1:
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: connect_timeout={given!r} in the PostgreSQL URL must be a "
            "whole number of seconds, 1 or more"
        )
    return int(str(given))
