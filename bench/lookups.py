#!/usr/bin/env python3
"""Lookups by id at scale: what search's context step asks the store for.

    python bench/lookups.py --n 10000 100000

For each N, on the store of bench/scale.py (built if missing), in a fresh process: 200 times,
the stubs of 60 random ids (`Store.stubs`, what search reads for the episode neighbours of its
best matches), their texts and episodes (`Store.texts`, what it reads to tell speakers and
tastes) and the same ids' full records (`Store.get_many`). Prints p50 / p95 in
milliseconds. A lookup of a fixed number of ids should cost about the same at any N.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import scale
from engram import Engram
from engram.storage.protocol import Filter

IDS = 60
ROUNDS = 200


def measure(path: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with Engram.open(str(path), embedding_model="none") as mem:
        store = mem.app.context.store
        ids = [m.id for m in mem.read_graph(limit=1000).memories]
        out: dict[str, Any] = {}
        for name, call in (
            ("stubs", lambda chosen: store.stubs(chosen, Filter())),
            ("texts", lambda chosen: store.texts(chosen)),
            ("get_many", lambda chosen: store.get_many(chosen)),
        ):
            times = []
            for _ in range(ROUNDS):
                chosen = rng.sample(ids, IDS)
                start = time.perf_counter()
                call(chosen)
                times.append((time.perf_counter() - start) * 1000)
            out[name] = (statistics.median(times), scale.pct(times, 0.95))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.seed)))
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    print(
        f"| N | stubs of {IDS} ids p50 / p95 | texts of {IDS} ids p50 / p95 "
        f"| full records of {IDS} ids p50 / p95 |"
    )
    print("|---|---|---|---|")
    for n in args.n:
        path = args.dir / f"scale-{n}.db"
        scale.build(scale.SQLiteTarget(path), n, args.seed)
        child = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(child.stdout)
        print(
            f"| {n:,} | {r['stubs'][0]:.2f} / {r['stubs'][1]:.2f} ms | "
            f"{r['texts'][0]:.2f} / {r['texts'][1]:.2f} ms | "
            f"{r['get_many'][0]:.2f} / {r['get_many'][1]:.2f} ms |"
        )


if __name__ == "__main__":
    main()
