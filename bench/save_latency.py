#!/usr/bin/env python3
"""Acknowledged single saves with embeddings on, the way an assistant saves: one at a time.

    python bench/save_latency.py --n 10000

Uses the store of bench/semantic_scale.py for N (built, with vectors, if missing) and measures
on a throwaway copy, in a fresh child process: 200 new memories saved back to back (each save
returns while the background worker may still be storing the previous one's vector), then 200
saved with the worker idle between them (`flush` after each, not timed). Every save looks for
similar memories (ENGRAM_SAVE_SIMILAR_THRESHOLD) unless that is set to 0. Prints p50 / p95.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale
import semantic_scale
from engram import Engram, FixedClock


def measure(path: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed + 11)
    words = scale.vocabulary(random.Random(seed))
    texts = [
        f"note {i}: " + " ".join(rng.sample(words[:5000], rng.randint(3, 12))) for i in range(400)
    ]
    with Engram.open(str(path), clock=FixedClock(scale.NOW)) as mem:
        mem.search("warming up")  # the model and the vector index
        mem.flush()
        busy: list[float] = []
        for text in texts[:200]:
            start = time.perf_counter()
            mem.save(text)
            busy.append((time.perf_counter() - start) * 1000)
        mem.flush()
        idle: list[float] = []
        for text in texts[200:]:
            start = time.perf_counter()
            mem.save(text)
            idle.append((time.perf_counter() - start) * 1000)
            mem.flush()
    return {"busy": busy, "idle": idle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.seed)))
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    source = args.dir / f"semantic-{args.n}.db"
    scale.build(scale.SQLiteTarget(source), args.n, args.seed)
    semantic_scale.attach_vectors(source, 10_000, args.seed)
    semantic_scale.ensure_index(source)
    result = semantic_scale.measure_copy(source, args.seed, with_index=True, script=__file__)
    print("| N | saves back to back p50 / p95 | worker idle between saves p50 / p95 |")
    print("|---|---|---|")
    busy, idle = result["busy"], result["idle"]
    print(
        f"| {args.n:,} | {scale.pct(busy, 0.5):.1f} / {scale.pct(busy, 0.95):.1f} ms | "
        f"{scale.pct(idle, 0.5):.1f} / {scale.pct(idle, 0.95):.1f} ms |"
    )
    print(f"\nmean back to back: {statistics.mean(busy):.1f} ms over {len(busy)} saves")


if __name__ == "__main__":
    main()
