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
    """One BLAS thread while any caller is inside, the host's count given back when the last
    leaves: two searches on two threads must not restore each other's limit (the second would
    have saved the first's 1 as the host's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._controller: Any = None
        self._limiter: Any = None

    def enter(self) -> None:
        with self._lock:
            if self._inside == 0:
                if self._controller is None:  # finds the loaded libraries: once, ~1 ms
                    from threadpoolctl import ThreadpoolController

                    self._controller = ThreadpoolController()
                self._limiter = self._controller.limit(limits=1, user_api="blas")
            self._inside += 1

    def leave(self) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0 and self._limiter is not None:
                self._limiter.restore_original_limits()
                self._limiter = None


_SEARCHES = _WhileInUse()


@contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """Matrix products on one thread inside the block, the host's setting back after it.
    A search with the spinning threads took 12.8-21.7 ms (p50) and 22-58 ms (p95) at 10,000
    memories on a busy machine, 11.5-13.8 and 13.7-20.6 ms without (docs/performance.md)."""
    _SEARCHES.enter()
    try:
        yield
    finally:
        _SEARCHES.leave()
