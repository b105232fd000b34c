"""Keep numpy's matrix products on one thread in Engram's servers.

OpenBLAS, which numpy ships, starts a thread per core and, after a product it shared between
them, keeps those threads spinning for a while, waiting for the next. Search does a few small
products per query (the query against the reference sentences, the memory's side of meaning,
diversity), so in a server a second core stayed busy through every search: 30 ms of CPU for a
16 ms search at 10,000 memories (`bench/mcp_latency.py`, "server CPU per search"). Engram's
matrices are too small to gain from a second thread: one is as fast and leaves the other core
to the embedding model, the client and the rest of the machine.

A library does not change its host's threads: only Engram's own servers call this.
"""

from __future__ import annotations


def one_blas_thread() -> None:
    """Matrix products on the calling process's BLAS libraries run on one thread from now on."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
