"""PostgreSQL clients writing the same rows at once: every statement that locks several memories
locks them in id order, as `modify` (touch, observe, update) does, so two clients queue up
instead of deadlocking; inserts take turns, so that `seq` follows commit order.

Each test holds a lock in a raw transaction of its own (another client mid-write), lets the
store's call reach the point where it waits, then checks what the other client can still do."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import psycopg
import pytest
from tests.storage.test_contract import POLICY, mem, put

from engram.core.scoring import ScheduleArrays, schedule_arrays
from engram.storage.postgres import PostgresStore
from engram.storage.postgres.store import _INSERT_LOCK
from engram.storage.protocol import ScheduleInputs

WAIT = 30.0  # seconds: a call that should have finished long before has hung


@pytest.fixture
def pg(postgres_url: str) -> Iterator[PostgresStore]:
    store = PostgresStore(postgres_url)
    yield store
    store.close()


class Call(threading.Thread):
    """A store call on a thread of its own; `outcome()` re-raises what it raised."""

    def __init__(self, call: Callable[[], object]) -> None:
        super().__init__(daemon=True)
        self.call, self.error = call, None
        self.start()

    def run(self) -> None:
        try:
            self.call()
        except BaseException as exc:  # re-raised in the test's thread
            self.error = exc

    def outcome(self) -> None:
        self.join(WAIT)
        assert not self.is_alive(), "the call never returned"
        if self.error is not None:
            raise self.error


def wait_until_blocked(url: str) -> None:
    """Until some other session of the database waits for a lock (the call under test)."""
    deadline = time.monotonic() + WAIT
    with psycopg.connect(url, autocommit=True) as watcher:
        while time.monotonic() < deadline:
            row = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            ).fetchone()
            if row is not None and row[0] > 0:
                return
            time.sleep(0.02)
    raise AssertionError("the call never waited for the lock held")


def test_a_delete_locks_rows_in_id_order(pg: PostgresStore, postgres_url: str) -> None:
    """A delete locked its rows in the table's order (b before a here), a touch in id order:
    each held one the other needed. In id order, the delete holds "a" while it waits for "b"."""
    put(pg, mem("b"), mem("a"))
    with psycopg.connect(postgres_url) as other:
        other.execute("SELECT 1 FROM memories WHERE id = 'b' FOR UPDATE")
        deleting = Call(lambda: pg.delete(["a", "b"]))
        wait_until_blocked(postgres_url)
        with pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute("SELECT 1 FROM memories WHERE id = 'a' FOR UPDATE NOWAIT")
        other.rollback()
    deleting.outcome()
    assert pg.get_many(["a", "b"]) == []


def test_storing_vectors_locks_rows_in_id_order(pg: PostgresStore, postgres_url: str) -> None:
    """The background embedding of new memories deadlocked with touches the same way."""
    put(pg, mem("b"), mem("a"))
    vector = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
    with psycopg.connect(postgres_url) as other:
        other.execute("SELECT 1 FROM memories WHERE id = 'b' FOR UPDATE")
        storing = Call(lambda: pg.put_vectors([("b", vector), ("a", vector)], "test-model"))
        wait_until_blocked(postgres_url)
        with pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute("SELECT 1 FROM memories WHERE id = 'a' FOR UPDATE NOWAIT")
        other.rollback()
    storing.outcome()
    assert pg.vector_counts() == {"test-model": 2}


def test_rescheduling_waits_for_a_touch_under_way(pg: PostgresStore, postgres_url: str) -> None:
    """Opening with other decay settings reschedules every memory under a table lock. That
    lock let in a touch that had locked its row, whose update then waited for the lock while
    the rescheduling waited for the row: "deadlock detected" in one of them."""
    put(pg, mem("a"))

    def compute(cols: ScheduleInputs) -> ScheduleArrays:
        return schedule_arrays(
            POLICY, cols.use_count, cols.strength, cols.last_used, cols.created_at, cols.active
        )

    with psycopg.connect(postgres_url) as other:
        other.execute("SELECT 1 FROM memories WHERE id = 'a' FOR UPDATE")
        rescheduling = Call(lambda: pg.reschedule_all(compute, "other settings"))
        wait_until_blocked(postgres_url)
        other.execute("UPDATE memories SET use_count = use_count + 1 WHERE id = 'a'")
        other.commit()
    rescheduling.outcome()
    assert pg.get_many(["a"])[0].use_count == 1
    assert pg.schedule_fingerprint() == "other settings"


def test_inserts_take_turns(pg: PostgresStore, postgres_url: str) -> None:
    """`seq` is drawn when a row is inserted, and paging (read_graph, export, backup) goes by
    it: a single save committing during a long import, with a higher seq than the import's
    rows, moved a pager's cursor past rows that were not yet visible, which it then never
    returned (1,409 of a 20,000-memory import). A save now waits for an insert under way."""
    with psycopg.connect(postgres_url) as importing:
        importing.execute("SELECT pg_advisory_xact_lock(%s)", (_INSERT_LOCK,))
        saving = Call(lambda: put(pg, mem("later")))
        wait_until_blocked(postgres_url)
        assert pg.get_many(["later"]) == []
        importing.commit()
    saving.outcome()
    assert [m.id for m in pg.get_many(["later"])] == ["later"]
