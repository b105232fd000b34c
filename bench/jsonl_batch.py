#!/usr/bin/env python3
"""JSONL writes of one line and of several: what the batch record costs.

    python bench/jsonl_batch.py --n 1000 --runs 200
    PYTHONPATH=/path/to/other/src python bench/jsonl_batch.py   (an A/B against a worktree)

An append of several lines records where it starts (`.<file>.batch`, fsynced) before it is
written, so that a kill in the middle counts for none of its lines (docs/storage.md). This
times, on a fresh JSONL store of N memories: one `insert` of all N at once, then `modify` of
five memories at a time (one five-line append) and of one (one line, no record). Prints the
medians. Interleave runs of two checkouts: the machine's speed drifts more than this moves.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import engram
from engram.core.models import Memory, Schedule
from engram.core.scoring import Policy, memory_schedule
from engram.storage.jsonl import JSONLStore

T0 = datetime(2026, 3, 1, tzinfo=UTC)
POLICY = Policy()


def used(m: Memory) -> tuple[Memory, Schedule]:
    new = m.model_copy(update={"use_count": m.use_count + 1})
    return new, memory_schedule(POLICY, new)


def timed_modify(store: JSONLStore, n: int, runs: int, width: int) -> list[float]:
    times = []
    for r in range(runs):
        ids = [f"m{(r * width + j) % n}" for j in range(width)]
        start = time.perf_counter()
        store.modify(ids, used)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="memories in the store")
    parser.add_argument("--runs", type=int, default=200, help="modify calls of each kind")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    try:
        store = JSONLStore(folder / "store")
        memories = [
            Memory(id=f"m{i}", content=f"note {i} about things", created_at=T0, last_used=T0)
            for i in range(args.n)
        ]
        start = time.perf_counter()
        store.insert([(m, memory_schedule(POLICY, m)) for m in memories])
        bulk = (time.perf_counter() - start) * 1000
        five = timed_modify(store, args.n, args.runs, 5)
        one = timed_modify(store, args.n, args.runs, 1)
        store.close()
    finally:
        shutil.rmtree(folder)
    print("| code | insert of N at once | modify of 5 p50 | modify of 1 p50 |")
    print("|---|---|---|---|")
    print(
        f"| {Path(engram.__file__).parent.parent} | {bulk:.0f} ms "
        f"| {statistics.median(five):.2f} ms | {statistics.median(one):.2f} ms |"
    )


if __name__ == "__main__":
    main()
