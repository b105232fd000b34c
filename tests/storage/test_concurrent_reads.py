"""Reads run beside a write in progress: they neither wait for it nor see it.

A search looks up meaning on one thread while its text query runs on another
(`engram.services.search`), and a server's other clients read while one writes; on SQLite that
works because reads have connections of their own (WAL lets readers run beside a writer), on
PostgreSQL because each read takes a pooled connection. The JSONL store is not here: its index
is rebuilt from its files, and its reads wait for a write to finish (its own contract tests
cover that).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from tests.storage.conftest import VECTOR_BACKENDS
from tests.storage.test_contract import _unit, mem, put

from engram.core.models import Memory, Schedule
from engram.storage.protocol import Filter, Store

T = TypeVar("T")
WAIT = 10.0  # seconds; only a failing run waits this long


@pytest.fixture(params=["postgres", "sqlite"])
def concurrent_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backend = VECTOR_BACKENDS[request.param](request, tmp_path)
    yield backend
    backend.close()


@contextmanager
def editing_a(store: Store) -> Iterator[None]:
    """Another thread's write of memory "a" ("alpha" -> "alpha, edited"), its transaction open
    for as long as the block runs, committed after it."""
    inside, release = threading.Event(), threading.Event()

    def slow_edit(m: Memory) -> tuple[Memory, Schedule]:
        inside.set()  # the write transaction is open, and stays open until released
        assert release.wait(WAIT)
        return m.model_copy(update={"content": "alpha, edited"}), Schedule()

    writer = threading.Thread(target=lambda: store.modify(["a"], slow_edit))
    writer.start()
    try:
        assert inside.wait(WAIT)
        yield
    finally:
        release.set()
        writer.join(WAIT)


def read_beside(read: Callable[[], T]) -> T:
    """What `read` returns on a thread of its own; it must not wait for the write."""
    found: list[T] = []
    reader = threading.Thread(target=lambda: found.append(read()))
    reader.start()
    reader.join(WAIT)
    assert not reader.is_alive(), "the read waited for the write"
    return found[0]


def test_a_vector_search_neither_waits_for_a_write_in_progress_nor_sees_it(
    concurrent_store: Store,
) -> None:
    store = concurrent_store
    put(store, mem("a", "alpha"), mem("b", "beta"))
    near_a = _unit(1)[0]
    store.put_vectors([("a", near_a), ("b", _unit(2)[0])], "m")
    with editing_a(store):
        found = read_beside(lambda: [s.id for s in store.vector_search(near_a, Filter(), 5)])
        assert found == ["a", "b"]  # the store as last committed
    # Committed, the edit retired the vector of the old text.
    assert [s.id for s in store.vector_search(near_a, Filter(), 5)] == ["b"]


def test_every_read_runs_beside_a_write_in_progress(concurrent_store: Store) -> None:
    """On SQLite the other reads shared the writing connection: a read waited for any write
    in progress in another thread, and with it for another process's lock (a search took
    3 s while the CLI imported)."""
    store = concurrent_store
    put(store, mem("a", "alpha"), mem("b", "beta"))
    with editing_a(store):
        contents = read_beside(lambda: [m.content for m in store.get_many(["a", "b"])])
        found = read_beside(lambda: [s.id for s in store.text_search(["alpha"], Filter(), 5)])
        counted = read_beside(store.count)
        assert (contents, found) == (["alpha", "beta"], ["a"])  # as last committed
        assert sum(counted.values()) == 2
    assert [m.content for m in store.get_many(["a"])] == ["alpha, edited"]
