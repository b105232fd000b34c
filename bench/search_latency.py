#!/usr/bin/env python3
"""Search latency on copies of existing stores, for comparing two versions of the code.

    python bench/semantic_scale.py --n 10000 --dir /tmp/engram-bench   # builds the store
    python bench/search_latency.py --store /tmp/engram-bench/semantic-10000.db
    PYTHONPATH=OLD/src python bench/search_latency.py --store ...   # an older checkout's code

    python bench/retrieval.py --data bench/data/locomo_style --workdir /tmp/runs/locomo
    python bench/search_latency.py --data bench/data/locomo_style --workdir /tmp/runs/locomo

`bench/semantic_scale.py` measures search on the store it builds, with the code installed;
this one only searches, on throwaway copies of stores given (their vector indexes too), so two
checkouts can be run one after the other on the same data (interleave the runs: the machine's
speed drifts by more than the differences measured).
- `--store`: queries of one to three words of `bench/scale.py`'s vocabulary, fixed seed; the
  first 50 warm up.
- `--data` with `--workdir`: the questions of conversational sets, each asked once of its
  conversation's store as `bench/retrieval.py --workdir` kept it (built there first). Real
  questions are sentences, several of them embedded (without the names, as the speaker named
  would ask), where the synthetic queries are one to three words. Each store warms up on a
  query of its own first.

Prints p50 / p95 and which `engram` package answered.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engram
import scale
from conversations import load
from engram import Engram, FixedClock
from retrieval import store_path

SUFFIXES = ("", ".vectors.usearch", ".vectors.json")
WARM_UP = 50


@contextmanager
def copied(source: Path) -> Iterator[Path]:
    """A throwaway copy of a store and its vector index."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / source.name
        for suffix in SUFFIXES:
            if Path(str(source) + suffix).exists():
                shutil.copy(str(source) + suffix, str(copy) + suffix)
        yield copy


def timed(mem: Engram, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        mem.search(query)
        times.append((time.perf_counter() - start) * 1000)
    return times


def synthetic(store: Path, count: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    words = scale.vocabulary(random.Random(0))
    queries = [" ".join(rng.sample(words[:5000], rng.randint(1, 3))) for _ in range(count)]
    with copied(store) as copy, Engram.open(str(copy), clock=FixedClock(scale.NOW)) as mem:
        timed(mem, queries[:WARM_UP])
        return timed(mem, queries[WARM_UP:])


def conversational(data: list[Path], workdirs: list[Path]) -> list[float]:
    times: list[float] = []
    each = workdirs * len(data) if len(workdirs) == 1 else workdirs
    for path, workdir in zip(data, each, strict=True):
        for conv in load(path):
            kept = store_path(workdir, conv)
            if not kept.exists():
                sys.exit(f"{kept} is missing: run bench/retrieval.py --data {path} --workdir …")
            with copied(kept) as copy, Engram.open(str(copy), clock=FixedClock(conv.now)) as mem:
                mem.search("what did we talk about last time?")
                times += timed(mem, [q.text for q in conv.questions])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a SQLite store file (not changed)")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--data", type=Path, action="append", help="repeatable")
    parser.add_argument(
        "--workdir",
        type=Path,
        action="append",
        help="where bench/retrieval.py kept the stores: one for all --data, or one each",
    )
    args = parser.parse_args()
    workdirs = args.workdir or []
    if (args.store is None) == (args.data is None) or (args.data and not workdirs):
        parser.error("give --store, or --data with --workdir")
    if args.store is not None and not args.store.is_file():
        parser.error(f"--store {args.store}: no such store file")
    if args.data and len(workdirs) not in (1, len(args.data)):
        parser.error("give one --workdir, or one for each --data")
    if args.store is not None:
        times = synthetic(args.store, args.queries, args.seed)
    else:
        times = conversational(args.data, workdirs)
    times.sort()
    print("| code | searches | p50 | p95 |")
    print("|---|---|---|---|")
    print(
        f"| {Path(engram.__file__).parent.parent} | {len(times)} | "
        f"{times[len(times) // 2]:.2f} ms | {times[int(len(times) * 0.95)]:.2f} ms |"
    )


if __name__ == "__main__":
    main()
