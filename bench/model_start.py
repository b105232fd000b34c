#!/usr/bin/env python3
"""How long a new process takes to load the embedding model, with the cache as a user has it.

    python bench/model_start.py               # 5 processes after a first one fills the cache
    python bench/model_start.py --runs 9

Each run is a fresh Python process that imports Engram's model and times `_load()` (the
tokenizer, the integer graph from the cache, the probe that picks the graph this CPU runs
exactly). The first process fills an empty cache (a temporary XDG_CACHE_HOME) and is reported
apart; the others load from it, as every later `engram` command and server start does. Prints
the first load, the median and range of the later ones, which graph runs, and the cache's size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = (
    "import json, time; from engram.embeddings import minilm; t = time.perf_counter(); "
    "m = minilm._load(); print(json.dumps({'ms': 1000 * (time.perf_counter() - t), "
    "'signed': m.signed}))"
)


def load_once(cache: Path) -> dict[str, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="later starts to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-model-start-") as tmp:
        cache = Path(tmp)
        first = load_once(cache)
        later = [load_once(cache) for _ in range(args.runs)]
        size = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    times = [r["ms"] for r in later]
    graph = "uint8 × int8 (signed)" if later[-1]["signed"] else "uint8 × uint8 (unsigned)"
    print("| first load (empty cache) | later loads p50 (min–max) | graph | cache |")
    print("|---|---|---|---|")
    print(
        f"| {first['ms']:.0f} ms | {statistics.median(times):.0f} ms "
        f"({min(times):.0f}–{max(times):.0f}) | {graph} | {size / 1e6:.0f} MB |"
    )


if __name__ == "__main__":
    main()
