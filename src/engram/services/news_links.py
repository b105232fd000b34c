"""Supersede links for news saved without its similar report, made just after the save returns.

`Engram.save` acknowledges a memory before its vector exists (docs/performance.md). A text that
may say a fact changed ("full day now £2800", "market price going up to £8 a jar") must still be
compared with the stored facts, or the value it replaced keeps ranking first: a tenth blind
probe's four changes of price, manager and date each ranked below what they replaced. Waiting
for that comparison in the save tripled its p95 on REALTALK's turns (7 % of them may be news),
so it runs here, on one thread of its own, and what reads the links (search, activation,
`Engram.flush`, closing the store) first waits for the links asked before it (`wait`), as it
waits for the vectors.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

log = logging.getLogger(__name__)

THREAD_NAME = "engram-news"
# Threads that must not wait for links: the linking thread itself, and the threads work is
# sent ahead on (a save's similar report runs there, and so may the link's own look-ups).
_NO_WAITING = (THREAD_NAME, "engram-ahead")


class SavedAfter:
    """The ids of the memories saved after a piece of news by this store's handle (`writing`),
    as they are when asked. News replaces only what was stored before it: linked on its own
    thread, it was compared with the turns saved after it too, which it could replace, and
    which of them were there depended on the threads' timing (`bench/retrieval.py` gave R@10
    0.842 and 0.850 on the same set, code and seed)."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._ids: set[str] = set()

    def __contains__(self, ident: object) -> bool:
        with self._lock:
            return ident in self._ids

    def add(self, ids: set[str]) -> None:
        """Called with the lock held (`NewsLinks.writing`)."""
        self._ids |= ids


class NewsLinks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._open: list[SavedAfter] = []  # of the links not made yet

    def submit(self, work: Callable[[SavedAfter], None]) -> None:
        """Run `work` on the linking thread, given the memories written after this call
        (`writing`); an error is logged, never raised to a reader."""
        later = SavedAfter(self._lock)

        def run() -> None:
            try:
                work(later)
            except Exception:  # the memory is saved; only its links are missing
                log.exception("linking news to the facts it replaces failed")
            finally:
                with self._lock:
                    self._open = [s for s in self._open if s is not later]

        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix=THREAD_NAME)
            self._open.append(later)
            self._pending.append(self._pool.submit(run))

    def writing(self, ids: Iterable[str]) -> None:
        """Memories about to be written: news waiting for its links does not replace them.
        Called before the write, so that a link that finds one in the store knows it."""
        with self._lock:
            if self._open:
                written = set(ids)
                for later in self._open:
                    later.add(written)

    def wait(self) -> None:
        """Return once every link asked for so far is made (at once on the linking thread and
        the threads work is sent ahead on, which the links themselves may wait for)."""
        if threading.current_thread().name.startswith(_NO_WAITING):
            return
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            future.result()  # `run` logs and swallows the work's own errors
        with self._lock:
            self._pending = [f for f in self._pending if not f.done()]

    def _after_fork_in_child(self) -> None:
        """A forked child has none of its parent's threads: what the parent was linking is
        the parent's, and the child links on a thread of its own."""
        self._lock = threading.Lock()
        self._pool = None
        self._pending = []
        self._open = []


# Every set of links alive, for a forked child to give each a thread of its own.
_instances: weakref.WeakSet[NewsLinks] = weakref.WeakSet()


def news_links() -> NewsLinks:
    """A new set of links to wait for, one per store opened (`Context`)."""
    links = NewsLinks()
    _instances.add(links)
    return links


def _after_fork_in_child() -> None:
    for links in list(_instances):
        links._after_fork_in_child()


if hasattr(os, "register_at_fork"):  # not on Windows, which never forks
    os.register_at_fork(after_in_child=_after_fork_in_child)
