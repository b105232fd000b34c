"""Keep numpy's matrix products on one thread: for good in Engram's servers, and while a
search runs in a program that uses Engram as a library.

OpenBLAS, which numpy ships, starts a thread per core and, after a product it shared between
them, keeps those threads spinning for a while, waiting for the next. Search does a few small
products per query (the query against the reference sentences, the memory's side of meaning,
diversity), so in a server a second core stayed busy through every search: 30 ms of CPU for a
16 ms search at 10,000 memories (`bench/mcp_latency.py`, "server CPU per search"). Engram's
matrices are too small to gain from a second thread: one is as fast and leaves the other core
to the embedding model, the client and the rest of the machine.

A library does not change its host's threads for good: a search limits them while it runs
and gives them back (`blas_on_one_thread`); only Engram's own servers call `one_blas_thread`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def one_blas_thread() -> None:
    """Matrix products on the calling process's BLAS libraries run on one thread from now on."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


class _WhileInUse:
    """One BLAS thread while a search runs, set and given back by the same thread.

    threadpoolctl lets one live thread at a time control OpenBLAS's shared pool and ignores the
    others: a count set by one search's thread and restored by another's was ignored while the
    first still lived, and the host was left with one thread (a test saw it one run in three).
    So the first search to enter sets the limit and gives it back when it leaves, as a context
    manager, which also hands the control back; searches that overlap it just run under it
    (after it leaves, on the host's threads: slower, never wrong)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._controller: Any = None
        self._owner: threading.Thread | None = None
        self._depth = 0  # the owner's searches inside one another (unified search's two)
        self._limiter: Any = None

    def enter(self) -> None:
        with self._lock:
            if self._owner is threading.current_thread():
                self._depth += 1
            if self._owner is not None:
                return
            if self._controller is None:  # finds the loaded libraries: once, ~1 ms
                from threadpoolctl import ThreadpoolController

                self._controller = ThreadpoolController()
            self._limiter = self._controller.limit(limits=1, user_api="blas")
            self._limiter.__enter__()
            self._owner = threading.current_thread()

    def leave(self) -> None:
        with self._lock:
            if self._owner is not threading.current_thread():
                return
            if self._depth > 0:
                self._depth -= 1
                return
            self._limiter.__exit__(None, None, None)
            self._owner = self._limiter = None


_SEARCHES = _WhileInUse()


@contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """Matrix products on one thread inside the block, the host's setting back after it. At
    10,000 memories a search's p95 was 16.1-17.3 ms with the spinning threads, 13.5-14.2 ms
    without; with a test suite on the same two cores, 29-58 against 17-18 ms
    (docs/performance.md)."""
    _SEARCHES.enter()
    try:
        yield
    finally:
        _SEARCHES.leave()
