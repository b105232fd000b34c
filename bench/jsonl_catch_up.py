#!/usr/bin/env python3
"""JSONL catch-up: what a client pays to see one memory another client saved.

    python bench/jsonl_catch_up.py --n 20000 --runs 50
    PYTHONPATH=/path/to/other/src python bench/jsonl_catch_up.py   (an A/B against a worktree)

Uses the store `bench/jsonl_open.py` builds (N memories, fixed seed, kept under --dir), opened
twice: the second handle saves one memory, the first then reads it with `get` (which reads the
lines appended since its last read). Prints the median of the save, the median and 95th
percentile of that read, and the median of the same read when nothing was written (the one
stat that says so). It runs on a throwaway copy of the store.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

# `jsonl_open` is bench/jsonl_open.py: the script's own directory is on sys.path when it runs.
import scale
from engram import Engram, FixedClock
from jsonl_open import NOW, build


def main() -> None:
    parser = scale.run_parser(__doc__, n=20_000, runs=50)
    args = parser.parse_args()
    folder = args.dir / f"jsonl-open-{args.n}-{args.seed}"
    if not (folder / "memories.jsonl").exists():
        build(folder, args.n, args.seed)
    # A throwaway copy: the saves below must not grow the kept store.
    work = Path(tempfile.mkdtemp(dir=args.dir)) / "store"
    shutil.copytree(folder, work)
    url = f"jsonl://{work}"
    with (
        Engram.open(url, clock=FixedClock(NOW), embedding_model="none") as reader,
        Engram.open(url, clock=FixedClock(NOW), embedding_model="none") as writer,
    ):
        after_save: list[float] = []
        idle: list[float] = []
        saves: list[float] = []
        for i in range(args.runs):
            start = time.perf_counter()
            saved = writer.save(f"catch-up note {i} written by the other client")
            saves.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            assert reader.get(saved.id).id == saved.id
            after_save.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            reader.get(saved.id)
            idle.append((time.perf_counter() - start) * 1000)
    size = (work / "memories.jsonl").stat().st_size
    shutil.rmtree(work.parent)
    print(
        "| N | file | the save p50 | read after another client's save p50 / p95 "
        "| with nothing new p50 |"
    )
    print("|---|---|---|---|---|")
    print(
        f"| {args.n:,} | {size / 1e6:.1f} MB | {statistics.median(saves):.2f} ms "
        f"| {statistics.median(after_save):.2f} / {scale.pct(after_save, 0.95):.2f} ms "
        f"| {statistics.median(idle):.2f} ms |"
    )


if __name__ == "__main__":
    main()
