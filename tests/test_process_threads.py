"""Engram's servers keep numpy's matrix products on one thread (OpenBLAS's idle threads spin,
and kept a second core busy through every search); the library leaves its host's alone.

Each case runs in a child process whose BLAS was given three threads first (set from a thread
of its own: OpenBLAS keeps a count the main thread set for the main thread), whatever this
machine's core count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLAS_THREADS = """
import threading

import numpy
from threadpoolctl import threadpool_info as all_pools, threadpool_limits


def threadpool_info():
    return [pool for pool in all_pools() if pool["user_api"] == "blas"]

def on_a_new_thread(work):
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()

on_a_new_thread(lambda: threadpool_limits(limits=3, user_api="blas"))

def blas_threads():
    # As a new thread finds them: a server's searches run on worker threads.
    found = []
    on_a_new_thread(lambda: found.extend(i["num_threads"] for i in threadpool_info()))
    return sorted(set(found))
"""


def run(code: str, tmp_path: Path) -> dict[str, list[int]]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "ENGRAM_STORAGE_PATH": str(tmp_path / "store.db"),
        "ENGRAM_EMBEDDING_MODEL": "none",
    }
    script = BLAS_THREADS + textwrap.dedent(code)
    child = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    result: dict[str, list[int]] = json.loads(child.stdout)
    return result


def test_a_server_runs_matrix_products_on_one_thread(tmp_path: Path) -> None:
    found = run(
        """
        import json, time
        from engram.mcp.runtime import EngramRuntime

        before = blas_threads()
        runtime = EngramRuntime()
        runtime.warm_up()  # what every server does at start (stdio, HTTP, dashboard)
        runtime.app()
        deadline = time.monotonic() + 30
        while blas_threads() != [1] and time.monotonic() < deadline:
            time.sleep(0.05)
        print(json.dumps({"before": before, "after": blas_threads()}))
        runtime.close()
        """,
        tmp_path,
    )
    assert found == {"before": [3], "after": [1]}


def test_the_library_leaves_its_hosts_threads_alone(tmp_path: Path) -> None:
    found = run(
        """
        import json
        from engram import Engram

        with Engram.open() as mem:
            mem.save("Atlas runs on PostgreSQL 16")
            mem.search("which database")
        print(json.dumps({"after": blas_threads()}))
        """,
        tmp_path,
    )
    assert found == {"after": [3]}


def test_a_search_runs_its_products_on_one_thread_and_gives_the_count_back(
    tmp_path: Path,
) -> None:
    """Overlapping searches on two threads: the first sets one thread and gives the host's
    three back when it leaves, the second never touching the count (threadpoolctl ignores a
    thread that does not control OpenBLAS: a count restored by the second while the first
    lived was ignored, and the host kept one thread). Nested searches keep it to the end. The
    host can set its own count afterwards: the control was handed back."""
    found = run(
        """
        import json, threading
        from threadpoolctl import threadpool_limits
        from engram.process_threads import blas_on_one_thread

        def threads_now():
            return sorted({i["num_threads"] for i in threadpool_info()})

        seen = {}
        first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

        def first():
            with blas_on_one_thread():
                with blas_on_one_thread():  # a search inside a search
                    pass
                seen["first inside, after a nested one"] = threads_now()
                first_in.set()
                second_in.wait()
            first_out.set()

        def second():
            first_in.wait()
            with blas_on_one_thread():
                seen["second inside"] = threads_now()
                second_in.set()
                first_out.wait()
                seen["second inside, first gone"] = threads_now()

        workers = [threading.Thread(target=first), threading.Thread(target=second)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        seen["after"] = blas_threads()
        with blas_on_one_thread():
            pass
        on_a_new_thread(lambda: threadpool_limits(limits=2, user_api="blas"))
        seen["host's own count, after a search on this thread"] = blas_threads()
        print(json.dumps(seen))
        """,
        tmp_path,
    )
    assert found == {
        "first inside, after a nested one": [1],
        "second inside": [1],
        "second inside, first gone": [3],
        "after": [3],
        "host's own count, after a search on this thread": [2],
    }
