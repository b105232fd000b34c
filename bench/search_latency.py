#!/usr/bin/env python3
"""Search latency on a copy of an existing store, for comparing two versions of the code.

    python bench/semantic_scale.py --n 10000 --dir /tmp/engram-bench   # builds the store
    python bench/search_latency.py --store /tmp/engram-bench/semantic-10000.db
    PYTHONPATH=OLD/src python bench/search_latency.py --store ...   # an older checkout's code

`bench/semantic_scale.py` measures search on the store it builds, with the code installed;
this one only searches, on a throwaway copy of a store given (its vector index too), so two
checkouts can be run one after the other on the same data (interleave the runs: the machine's
speed drifts by more than the differences measured). Queries are one to three words of
`bench/scale.py`'s vocabulary, fixed seed; the first 50 warm up. Prints p50 / p95 and which
`engram` package answered.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engram
import scale
from engram import Engram, FixedClock

SUFFIXES = ("", ".vectors.usearch", ".vectors.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, help="a SQLite store file (not changed)")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    source = Path(args.store)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / source.name
        for suffix in SUFFIXES:
            if Path(str(source) + suffix).exists():
                shutil.copy(str(source) + suffix, str(copy) + suffix)
        rng = random.Random(args.seed)
        words = scale.vocabulary(random.Random(0))
        queries = [
            " ".join(rng.sample(words[:5000], rng.randint(1, 3))) for _ in range(args.queries)
        ]
        with Engram.open(str(copy), clock=FixedClock(scale.NOW)) as mem:
            for query in queries[:50]:
                mem.search(query)
            times = []
            for query in queries[50:]:
                start = time.perf_counter()
                mem.search(query)
                times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print("| code | searches | p50 | p95 |")
    print("|---|---|---|---|")
    print(
        f"| {Path(engram.__file__).parent.parent} | {len(times)} | "
        f"{times[len(times) // 2]:.2f} ms | {times[int(len(times) * 0.95)]:.2f} ms |"
    )


if __name__ == "__main__":
    main()
