#!/usr/bin/env python3
"""JSONL cold open without a snapshot: every line of the files read into the index.

    python bench/jsonl_open.py --n 20000 --runs 4
    PYTHONPATH=/path/to/other/src python bench/jsonl_open.py --n 20000   (an A/B against a worktree)

Builds (once, kept under --dir) a JSONL store of N memories with a fixed seed, each naming three
people or places (so enrichment's entities reach the full-text index), then opens it in a fresh
child process per run after removing the index snapshot, and prints the time to open. A client
normally opens from the snapshot and reads only the lines appended since; this measures the
other case: a fresh clone, or files replaced by another process's compaction.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

# `scale` is bench/scale.py: the script's own directory is on sys.path when it runs.
import scale

NOW = datetime(2026, 6, 1, tzinfo=UTC)
SNAPSHOT = (".index.db", ".index.db.vectors.usearch", ".index.db.vectors.json")


def build(folder: Path, n: int, seed: int) -> None:
    from engram import Draft, Engram, FixedClock

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(5000)]
    with Engram.open(f"jsonl://{folder}", clock=FixedClock(NOW), embedding_model="none") as mem:
        for start in range(0, n, 2000):
            mem.save_many(
                [
                    Draft(
                        content="Kate met Dana in Lisbon: " + " ".join(rng.choices(words, k=12)),
                        tags=[f"t{rng.randint(0, 50)}"],
                        created_at=NOW - timedelta(days=rng.uniform(0, 60)),
                        episode=f"e{i // 20}",
                    )
                    for i in range(start, min(n, start + 2000))
                ]
            )


def open_once(folder: Path) -> float:
    """Runs in the child: the seconds to open, every line read."""
    from engram import Engram, FixedClock

    for name in SNAPSHOT:
        (folder / name).unlink(missing_ok=True)
    start = time.perf_counter()
    Engram.open(f"jsonl://{folder}", clock=FixedClock(NOW), embedding_model="none")
    return time.perf_counter() - start


def main() -> None:
    parser = scale.run_parser(__doc__, n=20_000, runs=4)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(f"{open_once(args.child):.3f}", flush=True)
        os._exit(0)  # no snapshot left behind: every run reads every line
    folder = args.dir / f"jsonl-open-{args.n}-{args.seed}"
    if not (folder / "memories.jsonl").exists():
        build(folder, args.n, args.seed)
    times = [
        float(
            subprocess.run(
                [sys.executable, __file__, "--child", str(folder)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(args.runs)
    ]
    print("| N | runs | cold open, every line read: median (min–max) |")
    print("|---|---|---|")
    print(
        f"| {args.n:,} | {args.runs} | {statistics.median(times):.2f} s "
        f"({min(times):.2f}–{max(times):.2f}) |"
    )


if __name__ == "__main__":
    main()
