"""Vectors computed just after a save is acknowledged, in batches, on one worker thread.

Embedding a memory costs several milliseconds, writing it to the store about one; a save that
waited for its vector would be several times slower than it needs to be. So a save commits the
memory (text search finds it at once), hands (id, text) to this queue and returns; the worker
embeds everything waiting in one batch and stores the vectors. Every search, and anything else
that reads vectors, first waits until the queue is empty (`drain`), so within a process a memory
is found by meaning as soon as the save returns. A crash before the worker ran leaves memories
without vectors, exactly as an interrupted `engram embed` would; a long-running process (the MCP
server) then has the worker `catch_up` on them whenever it has nothing else to do.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence

from engram.core.wording import counted
from engram.errors import DamagedStoreError, StoreError

log = logging.getLogger(__name__)

Item = tuple[str, str]  # (memory id, text to embed)
BATCH = 64
# Memories per catch-up batch: few, because a save waits for the batch under way, and each
# memory is up to 17 texts (its passages): 64 of them kept a save's search waiting 4-7 s.
CATCH_UP_BATCH = 8
RETRIES = 3  # more tries of a batch that met a store error
RETRY_PAUSE = 1.0  # seconds before it is tried again

# Queues not closed yet. The worker is a daemon thread (a forgotten handle must not keep a
# process alive), so a script that saved and exited without `close()` lost every vector still
# waiting: 300 memories of one `save_many`, none embedded, and nothing said so. At exit, before
# daemon threads stop, each open queue stores what is waiting.
_open: weakref.WeakSet[EmbeddingQueue] = weakref.WeakSet()
_exit_hook = threading.Lock()
_hooked = False


def _close_open_queues() -> None:
    for queue in list(_open):
        try:
            queue.close()
        except Exception:  # the store may be gone already; nothing more can be saved then
            log.exception("could not store the vectors still waiting at exit")


def _close_at_exit(queue: EmbeddingQueue) -> None:
    """Registered with the first queue, after the store it writes to was opened: exit hooks
    run last-registered first, so this one runs before the store's own clean-up."""
    global _hooked
    with _exit_hook:
        _open.add(queue)
        if not _hooked:
            atexit.register(_close_open_queues)
            _hooked = True


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's threads: a save in it queued its vector for a
    worker that was not there, and its next search waited for ever for the queue to drain.
    Each open queue gets a worker of its own; what the parent was embedding is the parent's
    to store, and locks a parent's thread held at the fork are made anew."""
    global _exit_hook
    _exit_hook = threading.Lock()
    for queue in list(_open):
        queue._start_in_child()


if hasattr(os, "register_at_fork"):  # not on Windows, which never forks
    os.register_at_fork(after_in_child=_after_fork_in_child)


class EmbeddingQueue:
    def __init__(self, compute: Callable[[Sequence[Item]], int], batch: int = BATCH) -> None:
        """`compute(items)` embeds and stores one batch and says how many it stored; it runs on
        the worker thread only."""
        self._compute = compute
        self._batch = batch
        self._cond = threading.Condition()
        self._waiting: list[Item] = []
        self._busy: set[str] = set()  # memories of the submitted items the worker embeds now
        # Items ever submitted, and of those, stored or given up: `drain` waits for the ones
        # submitted before it was called, not for an empty queue (a search during an import
        # waited 94 s, for every batch saved after it).
        self._submitted = 0
        self._done = 0
        self._stopped = False  # the worker ended (closed, or killed by an error beyond Exception)
        self._closed = False
        self._missing: Callable[[int], Sequence[Item]] | None = None
        self._tries: dict[str, int] = {}  # memory id -> batches of it that met a store error
        self._catch_up_failures = 0
        # The last catch-up batch that stored nothing: the same again means stuck.
        self._fruitless: frozenset[Item] = frozenset()
        self._worker = threading.Thread(target=self._run, name="engram-embed", daemon=True)
        self._worker.start()
        _close_at_exit(self)

    def _start_in_child(self) -> None:
        self._cond = threading.Condition()
        self._waiting, self._busy = [], set()
        self._done = self._submitted
        if self._closed or self._stopped:
            self._stopped = True  # the parent's worker object: the child's join returns at once
            return
        self._worker = threading.Thread(target=self._run, name="engram-embed", daemon=True)
        self._worker.start()

    def submit(self, items: Sequence[Item]) -> None:
        if not items:
            return
        with self._cond:
            if self._closed or self._stopped:
                # A save that committed while the store was closing: it is saved; its vector
                # is left to `engram embed --backfill` (the next open says so), not an error.
                n = len(items)
                log.warning(
                    "%s saved while closing %s no vector yet",
                    counted(n, "memory"),
                    "has" if n == 1 else "have",
                )
                return
            self._waiting.extend(items)
            self._submitted += len(items)
            self._cond.notify_all()

    def catch_up(self, missing: Callable[[int], Sequence[Item]]) -> None:
        """Whenever nothing else waits, embed what `missing(n)` returns (n at a time) until it
        returns nothing, or the same batch twice with nothing stored (`_caught_up`). Saves
        always go first."""
        with self._cond:
            self._missing = missing
            self._cond.notify_all()

    def pending(self) -> int:
        """Memories saved in this process whose vector is not stored yet."""
        with self._cond:
            # Memories, not texts: an edit queues a text again, and the earlier one is dropped
            # when stored (it no longer describes the memory): five edits were "5 pending".
            return len({ident for ident, _ in self._waiting} | self._busy)

    def drain(self) -> None:
        """Return once every item submitted so far has been stored (or has failed); what is
        submitted meanwhile is not waited for."""
        with self._cond:
            target = self._submitted
            self._cond.wait_for(lambda: self._done >= target or self._stopped)

    def close(self) -> None:
        """Store what is waiting, then stop the worker."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._worker.join()
        _open.discard(self)

    def _run(self) -> None:
        try:
            self._work()
        finally:  # a search must never wait for a worker that is gone
            with self._cond:
                self._stopped = True
                self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._waiting or self._closed or self._missing is not None
                )
                catching_up = not self._waiting
                if catching_up and self._closed:
                    return  # closed and nothing submitted left: catching up can wait
                batch = self._waiting[: self._batch]
                del self._waiting[: self._batch]
                missing = self._missing
                # A catch-up batch is not counted: `drain` waits for what was submitted, not
                # for the whole backlog (a search right after a server started on a store of
                # memories without vectors waited for every one of them to be embedded).
                self._busy = {ident for ident, _ in batch}
            stored = -1
            busy = False
            try:
                if catching_up and missing is not None:
                    batch = list(missing(CATCH_UP_BATCH))
                if batch:
                    stored = self._compute(batch)
            except StoreError as exc:
                busy = self._retry_later(batch, catching_up, exc)
            except Exception:  # the memories stay without vectors: `engram embed` retries
                log.exception("could not embed %d memories; `engram embed` will retry", len(batch))
            finally:
                with self._cond:
                    if stored >= 0:  # stored: its earlier failures are forgotten
                        for ident, _ in batch:
                            self._tries.pop(ident, None)
                        self._catch_up_failures = 0 if catching_up else self._catch_up_failures
                    if catching_up and not busy and self._caught_up(batch, stored):
                        self._missing = None  # caught up, stuck or failing: stop asking
                    if not catching_up and not busy:  # stored or given up; not queued again
                        self._done += len(batch)
                    self._busy = set()
                    self._cond.notify_all()
            if busy:
                time.sleep(RETRY_PAUSE)

    def _caught_up(self, batch: Sequence[Item], stored: int) -> bool:
        """Whether catching up is over: nothing is missing, embedding failed, or the store gave
        back the very batch it stored nothing of last time. A batch of memories deleted or
        edited while it was embedded stores nothing and is no reason to stop: deleting 50 old
        memories during a catch-up left the 250 after them without vectors (audit)."""
        if not batch or stored < 0:
            return True
        if stored > 0:
            self._fruitless = frozenset()
            return False
        stuck = frozenset(batch) == self._fruitless
        self._fruitless = frozenset(batch)
        return stuck

    def _retry_later(self, batch: Sequence[Item], catching_up: bool, exc: StoreError) -> bool:
        """A store error (another process held the store past the busy timeout) is passing:
        the batch is tried again after a pause, a few times. It was dropped at once, and the
        memories stayed unfindable by meaning until the next start. A damaged store is not
        passing: it was tried four times, a second apart, before a command could end (a
        probe). True if it will be."""
        passing = not isinstance(exc, DamagedStoreError)
        with self._cond:
            if catching_up:
                self._catch_up_failures += 1
                again = passing and self._catch_up_failures <= RETRIES
            else:
                again = passing and all(self._tries.get(ident, 0) < RETRIES for ident, _ in batch)
                if again:
                    for ident, _ in batch:
                        self._tries[ident] = self._tries.get(ident, 0) + 1
                    self._waiting[:0] = batch
                else:
                    for ident, _ in batch:
                        self._tries.pop(ident, None)
        if again:
            log.warning("could not store %d vectors (%s); trying again", len(batch), exc)
        else:
            log.error("could not store %d vectors: %s; `engram embed` will retry", len(batch), exc)
        return again
