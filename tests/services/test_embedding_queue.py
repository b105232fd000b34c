"""The queue that computes vectors just after a save returns: order, batching, waiting, errors."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

import pytest

from engram.errors import StoreError
from engram.services.embedding_queue import CATCH_UP_BATCH, EmbeddingQueue


class Recorder:
    """Stands in for "embed and store": records batches; can be held or made to fail."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.fail_on: set[str] = set()
        self.entered = threading.Event()  # a batch has reached "embed and store"

    def __call__(self, items: Sequence[tuple[str, str]]) -> int:
        self.entered.set()
        self.gate.wait(10)
        if self.fail_on & {ident for ident, _ in items}:
            raise RuntimeError("model exploded")
        self.batches.append([ident for ident, _ in items])
        return len(items)


def test_drain_returns_once_everything_submitted_is_stored() -> None:
    record = Recorder()
    record.gate.clear()
    queue = EmbeddingQueue(record, batch=4)
    queue.submit([(f"m{i}", "text") for i in range(10)])
    assert queue.pending() == 10
    queue.submit([("m9", "edited text"), ("m9", "edited again")])  # texts of one memory
    assert queue.pending() == 10  # memories, not texts
    record.gate.set()
    queue.drain()
    assert queue.pending() == 0
    assert [i for batch in record.batches for i in batch] == [f"m{i}" for i in range(10)] + [
        "m9",
        "m9",
    ]
    assert max(len(b) for b in record.batches) <= 4
    queue.close()


def test_close_stores_what_is_waiting_and_leaves_later_items_to_backfill(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A save racing with close() committed its memory, then failed with a bare RuntimeError:
    told it failed, the caller had a memory it never got a vector for. Now the save stands and
    the vector is left to `engram embed --backfill`, with a warning."""
    record = Recorder()
    queue = EmbeddingQueue(record)
    queue.submit([("a", "x"), ("b", "y")])
    queue.close()
    assert sorted(i for batch in record.batches for i in batch) == ["a", "b"]
    with caplog.at_level(logging.WARNING, logger="engram"):
        queue.submit([("c", "z")])
    assert "1 memory saved while closing has no vector yet" in caplog.text  # not "1 memories"
    with caplog.at_level(logging.WARNING, logger="engram"):
        queue.submit([("d", "w"), ("e", "v")])
    assert "2 memories saved while closing have no vector yet" in caplog.text
    queue.drain()  # returns: nothing it waits for
    assert sorted(i for batch in record.batches for i in batch) == ["a", "b"]


def test_drain_waits_for_what_was_submitted_before_it_not_after() -> None:
    """drain waited for an empty queue: a search during an import waited for every batch the
    import saved after it (94 s)."""
    first, later = threading.Event(), threading.Event()
    stored: list[str] = []

    def compute(items: Sequence[tuple[str, str]]) -> int:
        (ident, _), *_ = items
        (later if ident.startswith("later") else first).wait(20)
        stored.extend(i for i, _ in items)
        return len(items)

    queue = EmbeddingQueue(compute, batch=1)
    queue.submit([("first", "x")])
    done = threading.Event()
    threading.Thread(target=lambda: (queue.drain(), done.set()), daemon=True).start()
    queue.submit([(f"later{i}", "y") for i in range(5)])  # saved after the search began
    first.set()
    assert done.wait(10) and stored[0] == "first"
    assert not later.is_set() and len(stored) == 1  # the later ones were still waiting
    later.set()
    queue.close()


# The worker thread dies of the error on purpose: pytest reports that as a warning.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_worker_gone_never_leaves_a_search_waiting() -> None:
    """Killed by an error beyond Exception, the worker left every later drain (each search)
    waiting forever."""

    class Fatal(BaseException):
        pass

    def explode(items: Sequence[tuple[str, str]]) -> int:
        raise Fatal

    queue = EmbeddingQueue(explode)
    queue.submit([("a", "x")])
    queue.drain()
    queue._worker.join(10)  # gone
    queue.submit([("b", "y")])  # saved after: left to backfill, not waited for
    finished = threading.Event()
    threading.Thread(target=lambda: (queue.drain(), finished.set()), daemon=True).start()
    assert finished.wait(10)


def test_a_failing_batch_is_logged_and_the_queue_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    record = Recorder()
    record.fail_on = {"bad"}
    queue = EmbeddingQueue(record, batch=1)
    with caplog.at_level(logging.ERROR, logger="engram"):
        queue.submit([("bad", "x"), ("good", "y")])
        queue.drain()
    assert record.batches == [["good"]]
    assert "engram embed" in caplog.text
    queue.close()


def test_catching_up_fills_idle_time_after_saves_and_stops_when_nothing_is_missing() -> None:
    record = Recorder()
    missing = [(f"old{i}", "text") for i in range(5)]

    def still_missing(n: int) -> list[tuple[str, str]]:
        done = {i for batch in record.batches for i in batch}
        return [item for item in missing if item[0] not in done][:n]

    record.gate.clear()
    queue = EmbeddingQueue(record, batch=2)
    queue.submit([("new", "text")])
    queue.catch_up(still_missing)
    record.gate.set()
    queue.drain()
    deadline = threading.Event()
    for _ in range(200):  # catching up runs while idle: wait for it, boundedly
        if len({i for b in record.batches for i in b}) == 6:
            break
        deadline.wait(0.05)
    queue.close()
    assert record.batches[0] == ["new"]  # saves go first
    assert sorted(i for b in record.batches[1:] for i in b) == [f"old{i}" for i in range(5)]


def test_drain_does_not_wait_for_the_catch_up_backlog() -> None:
    """A server started on a store of memories without vectors catches up in the background;
    a search (which drains the queue first) waited for the whole backlog, minutes for a big
    store. Here a catch-up batch is held for good: drain must still return, and a save made
    meanwhile is stored first once the batch ends."""
    record = Recorder()
    backlog = [(f"old{i}", "text") for i in range(100)]
    record.gate.clear()
    queue = EmbeddingQueue(record, batch=2)  # the first catch-up batch will hang until released
    queue.catch_up(lambda n: [i for i in backlog if all(i[0] not in b for b in record.batches)][:n])
    assert record.entered.wait(30)  # the catch-up batch is being embedded, and held there
    drained = threading.Thread(target=queue.drain, daemon=True)
    drained.start()
    drained.join(timeout=30)
    assert not drained.is_alive(), "drain waited for the catch-up backlog"
    assert queue.pending() == 0
    queue.submit([("new", "text")])
    record.gate.set()
    queue.drain()
    assert ["new"] in record.batches
    queue.close()


def test_catching_up_stops_on_a_failing_batch(caplog: pytest.LogCaptureFixture) -> None:
    record = Recorder()
    record.fail_on = {"bad"}
    calls: list[int] = []

    def always_bad(n: int) -> list[tuple[str, str]]:
        calls.append(n)
        return [("bad", "x")]

    queue = EmbeddingQueue(record)
    with caplog.at_level(logging.ERROR, logger="engram"):
        queue.catch_up(always_bad)
        for _ in range(100):
            queue.drain()
            if calls:
                break
            threading.Event().wait(0.01)
        queue.drain()
    queue.close()
    assert calls == [CATCH_UP_BATCH]  # asked once, failed, stopped asking: no busy loop


SAVE_AND_EXIT = """
import sys
from engram import Draft, Engram
mem = Engram.open(sys.argv[1])
mem.save_many([Draft(content=f"note number {i} about the harvest") for i in range(120)])
mem.update(mem.save("Atlas ships in May").id, content="Atlas ships in June")
# no close(): a script that simply ends
"""


def test_a_script_that_exits_without_closing_keeps_its_vectors(store_url: str) -> None:
    """The worker is a daemon thread: a script that saved and ended without `close()` lost
    every vector still waiting (120 memories of one save_many, none embedded), and an edited
    memory had neither its old vector nor a new one."""
    import subprocess
    import sys

    from engram import Engram

    done = subprocess.run(
        [sys.executable, "-c", SAVE_AND_EXIT, store_url], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    with Engram.open(store_url) as mem:
        assert sum(mem.app.context.store.vector_counts().values()) == 121
        (hit,) = mem.search("when does Atlas ship", limit=1)
        assert hit.memory.content == "Atlas ships in June" and hit.why.semantic is not None


class BusyOnce(Recorder):
    """A store that is busy for the first `times` batches (another process held it past the
    busy timeout), then fine."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def __call__(self, items: Sequence[tuple[str, str]]) -> int:
        if self.times > 0:
            self.times -= 1
            raise StoreError("the store is busy: another process is writing")
        return super().__call__(items)


def test_a_batch_that_meets_a_busy_store_is_tried_again(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store error dropped the batch at once (and `drain` returned as if it were stored):
    the memories stayed unfindable by meaning until the server's next start."""
    monkeypatch.setattr("engram.services.embedding_queue.RETRY_PAUSE", 0.01)
    record = BusyOnce(times=2)
    queue = EmbeddingQueue(record)
    with caplog.at_level(logging.WARNING, logger="engram"):
        queue.submit([("a", "x"), ("b", "y")])
        queue.drain()
    assert record.batches == [["a", "b"]] and "trying again" in caplog.text
    queue.close()


def test_a_store_that_stays_busy_is_given_up_on_after_a_few_tries(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("engram.services.embedding_queue.RETRY_PAUSE", 0.01)
    record = BusyOnce(times=100)
    queue = EmbeddingQueue(record)
    with caplog.at_level(logging.WARNING, logger="engram"):
        queue.submit([("a", "x")])
        queue.drain()
    assert record.times == 100 - 4 and record.batches == []  # the first try and three more
    assert "engram embed" in caplog.text
    queue.submit([("c", "z")])  # the queue goes on
    queue.close()


def test_catching_up_asks_for_few_memories_at_a_time() -> None:
    """A save waits for the catch-up batch under way: 64 memories of up to 17 texts each kept
    a search right after a save waiting 4-7 s on a server catching up."""
    record = Recorder()
    asked: list[int] = []

    def missing(n: int) -> list[tuple[str, str]]:
        asked.append(n)
        return [] if len(asked) > 1 else [(f"old{i}", "text") for i in range(n)]

    queue = EmbeddingQueue(record)
    queue.catch_up(missing)
    for _ in range(200):
        if len(asked) > 1:
            break
        threading.Event().wait(0.01)
    queue.close()
    assert asked[0] == CATCH_UP_BATCH <= 8 and record.batches[0] == [f"old{i}" for i in range(8)]


def _wait_for(done: Callable[[], bool]) -> None:
    for _ in range(400):  # catching up runs while idle: wait for it, boundedly
        if done():
            return
        threading.Event().wait(0.01)


def test_catching_up_goes_on_past_a_batch_deleted_while_it_was_embedded() -> None:
    """The oldest memories come first, as in a gc: a batch whose memories were deleted while
    it was embedded stored nothing, and catching up stopped there for good, the 250 memories
    after it left without vectors until the next start (audit)."""
    backlog = [(f"old{i}", "text") for i in range(3 * CATCH_UP_BATCH)]
    stored: list[str] = []
    deleted: set[str] = set()

    def embed_and_store(items: Sequence[tuple[str, str]]) -> int:
        if not deleted:  # another client deletes the first batch's memories meanwhile
            deleted.update(ident for ident, _ in items)
            return 0
        stored.extend(ident for ident, _ in items)
        return len(items)

    def missing(n: int) -> list[tuple[str, str]]:
        return [i for i in backlog if i[0] not in deleted and i[0] not in stored][:n]

    queue = EmbeddingQueue(embed_and_store)
    queue.catch_up(missing)
    _wait_for(lambda: len(stored) == 2 * CATCH_UP_BATCH)
    queue.close()
    assert deleted == {i for i, _ in backlog[:CATCH_UP_BATCH]}
    assert sorted(stored) == sorted(i for i, _ in backlog[CATCH_UP_BATCH:])


def test_catching_up_stops_when_the_same_batch_stores_nothing_twice() -> None:
    """A store that keeps giving back what it will not store is not asked for ever."""
    asked: list[int] = []

    def missing(n: int) -> list[tuple[str, str]]:
        asked.append(n)
        return [("stuck", "text")]

    queue = EmbeddingQueue(lambda items: 0)
    queue.catch_up(missing)
    _wait_for(lambda: len(asked) >= 2)
    threading.Event().wait(0.2)  # a third request would come at once
    queue.close()
    assert len(asked) == 2
