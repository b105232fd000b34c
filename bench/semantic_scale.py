#!/usr/bin/env python3
"""Semantic-search scale benchmark (also reachable as `bench/scale.py --embeddings`).

    python bench/semantic_scale.py --n 100000 1000000

For each N it reuses (or builds) the plain store of bench/scale.py, then gives every memory a
vector and measures, in a fresh child process:

* saves: single saves (acknowledged: the vector follows on a worker thread) and one bulk
  `save_many` of 1,000 until every vector is stored;
* HNSW index build from the store (first search with no index file) and load (reopen);
* hybrid search p50/p95 — query embedding + vector neighbours + full text + fusion;
* peak RSS.

Vectors: `--real` (default 10,000) English-like sentences are embedded with the real model (that
is the "embed/s" column); every memory then gets one of those real vectors plus small Gaussian
noise, re-normalised — embedding 1M synthetic texts on 2 cores would take an hour and measure
nothing new. The index holds N realistic unit vectors; query embeddings are always real.
Recall@10 compares what search gets from the index (neighbours oversampled, then re-scored
exactly) with exact search over every stored vector.

The store with its vectors, and its vector index, are kept under --dir; every measurement runs on
a throwaway copy of them (the measured saves would otherwise grow the kept store run after run):
the "index build" run copies the store alone, the "index load" run the store and its index.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# `scale` is bench/scale.py: the script's own directory is on sys.path when it runs.
import scale
from engram import Draft, Engram, FixedClock
from engram.core.models import Status
from engram.embeddings.minilm import MODEL_ID
from engram.storage.protocol import Filter

BATCH = 5_000


NAMES = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Grace", "Hugo", "Iris", "Jon"]
VERBS = ["visited", "cooked", "booked", "fixed", "painted", "sold", "learned", "lost", "found"]
THINGS = [
    "a bike",
    "the kitchen",
    "a flight",
    "the garden",
    "a violin",
    "the car",
    "a recipe",
    "the report",
    "a puppy",
    "the roof",
    "a new job",
    "the marathon",
]
PLACES = ["in Lisbon", "at home", "near the station", "in Porto", "at work", "by the lake"]
WHEN = ["last Monday", "this weekend", "in March", "yesterday", "two weeks ago", "on Friday"]


def sentences(rng: random.Random, count: int) -> list[str]:
    """English-like sentences of realistic length (the memories' own texts are word salad)."""
    return [
        f"{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(THINGS)} "
        f"{rng.choice(PLACES)} {rng.choice(WHEN)}."
        for _ in range(count)
    ]


def attach_vectors(path: Path, real: int, seed: int) -> float:
    """Give every memory a vector; returns real sentences embedded per second."""
    marker = path.with_suffix(".vectors.done")
    # The vectors belong to one build of the store and one model: a rebuilt store (new size,
    # seed or format) or another model gets new ones.
    build = json.loads(path.with_suffix(".json").read_text())["build_s"]
    if marker.exists():
        done = json.loads(marker.read_text())
        if done.get("build_s") == build and done.get("model") == MODEL_ID:
            return float(done["embed_per_s"])
    rng = np.random.default_rng(seed)
    texts = sentences(random.Random(seed), real)
    with sqlite3.connect(path) as conn:  # start from a clean slate: no vectors yet
        conn.execute("DELETE FROM memory_vectors")
    with Engram.open(str(path), clock=FixedClock(scale.NOW)) as mem:
        store = mem.app.context.store
        embedder = mem.app.context.embedder
        assert embedder is not None
        start = time.perf_counter()
        pool = embedder.embed_batch(texts)
        rate = real / (time.perf_counter() - start)
        model = embedder.model_id
        done = 0
        while True:
            missing = store.missing_vectors(model, BATCH)
            if not missing:
                break
            base = pool[rng.integers(0, len(pool), len(missing))]
            noisy = base + rng.normal(0, 0.05, base.shape).astype(np.float32)
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            store.put_vectors([(i, noisy[j]) for j, (i, _) in enumerate(missing)], model)
            done += len(missing)
            print(f"  vectors {done:,}", file=sys.stderr, end="\r")
    for suffix in (".vectors.usearch", ".vectors.json"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    marker.write_text(
        json.dumps({"embed_per_s": rate, "real": real, "build_s": build, "model": MODEL_ID})
    )
    return rate


def recall_at_10(mem: Engram, queries: list[str]) -> float:
    """HNSW neighbours vs exact search over every stored vector, for the same queries."""
    ctx = mem.app.context
    assert ctx.embedder is not None
    store: Any = ctx.store
    qv = ctx.embedder.embed_batch(queries)
    best: list[list[tuple[float, int]]] = [[] for _ in queries]
    last = 0
    while True:  # exact top-10 by scanning the vector table in chunks
        rows = store._query(
            "SELECT seq, vector FROM memory_vectors WHERE seq > ? ORDER BY seq LIMIT 50000",
            (last,),
        )
        if not rows:
            break
        keys = np.array([r[0] for r in rows])
        mat = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        sims = qv @ mat.T
        for qi in range(len(queries)):
            top = np.argpartition(-sims[qi], 10)[:10]
            best[qi] = sorted(best[qi] + [(float(sims[qi, t]), int(keys[t])) for t in top])[-10:]
        last = int(rows[-1][0])
    hits = 0
    everything = Filter(statuses=tuple(Status))
    for qi in range(len(queries)):
        # What search does: HNSW neighbours (oversampled), re-scored exactly from the store.
        found = {s.id for s in store.vector_search(qv[qi], everything, 10)}
        exact_ids = {
            row[0]
            for seq in [s for _, s in best[qi]]
            for row in store._query("SELECT id FROM memories WHERE seq = ?", (seq,))
        }
        hits += len(found & exact_ids)
    return hits / (10 * len(queries))


def measure(path: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed + 2)
    words = scale.vocabulary(random.Random(seed))
    out: dict[str, Any] = {}
    start = time.perf_counter()
    mem = Engram.open(str(path), clock=FixedClock(scale.NOW))
    out["open_ms"] = (time.perf_counter() - start) * 1000
    queries = [" ".join(rng.sample(words[:5000], rng.randint(1, 3))) for _ in range(200)]
    start = time.perf_counter()
    mem.search(queries[0])  # loads the model and builds (or loads) the HNSW index
    out["first_search_s"] = time.perf_counter() - start
    times = []
    for q in queries[1:]:
        t = time.perf_counter()
        mem.search(q)
        times.append((time.perf_counter() - t) * 1000)
    out["search_p50"], out["search_p95"] = scale.pct(times, 0.5), scale.pct(times, 0.95)
    singles = []
    # Numbered after what the store holds: the store is reused between runs, and a note saved
    # by an earlier run would be a repeat (merged, a different and cheaper path).
    offset = mem.stats().total
    for i in range(100):
        t = time.perf_counter()
        mem.save(f"benchmark note {offset + i}: " + queries[i])
        singles.append((time.perf_counter() - t) * 1000)
    out["save_p50"], out["save_p95"] = scale.pct(singles, 0.5), scale.pct(singles, 0.95)
    mem.flush()  # the single saves' vectors, computed in the background meanwhile
    drafts = [Draft(content=f"bulk note {offset + i}: {queries[i % 200]}") for i in range(1000)]
    t = time.perf_counter()
    mem.save_many(drafts)
    mem.flush()  # bulk throughput includes every vector
    out["bulk_per_s"] = 1000 / (time.perf_counter() - t)
    out["recall_at_10"] = recall_at_10(mem, sentences(random.Random(seed + 3), 50))
    mem.close()
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


INDEX_FILES = (".vectors.usearch", ".vectors.json")


def ensure_index(path: Path) -> None:
    """The vector index of the kept store, built once by a child process (which saves it)."""
    if all(Path(str(path) + suffix).exists() for suffix in INDEX_FILES):
        return
    subprocess.run([sys.executable, __file__, "--warm", str(path)], check=True)


def warm(path: Path) -> None:
    with Engram.open(str(path), clock=FixedClock(scale.NOW)) as mem:
        mem.search("building the vector index")


def measure_copy(
    path: Path, seed: int, with_index: bool, script: str = __file__, extra: Sequence[str] = ()
) -> dict[str, Any]:
    """`script --measure` (and `extra` arguments) in a child process, on a throwaway copy of
    the kept store (and of its vector index, `with_index`); its JSON output."""
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        if with_index:
            for suffix in INDEX_FILES:
                shutil.copyfile(str(path) + suffix, str(copy) + suffix)
        child = subprocess.run(
            [sys.executable, script, "--measure", str(copy), "--seed", str(seed), *extra],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ},
        )
    result: dict[str, Any] = json.loads(child.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real", type=int, default=10_000, help="real sentences embedded")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.seed)))
        return
    if args.warm:
        warm(args.warm)
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in args.n:
        path = args.dir / f"semantic-{n}.db"
        scale.build(scale.SQLiteTarget(path), n, args.seed)
        rate = attach_vectors(path, args.real, args.seed)
        ensure_index(path)
        # First: the index built from the store; second: the saved index loaded.
        runs = [measure_copy(path, args.seed, with_index) for with_index in (False, True)]
        rows.append((n, rate, runs))
    print(
        "| N | embed/s (batch) | index build | index load | hybrid search p50 / p95 |"
        " save p50 / p95 | bulk save/s | HNSW recall@10 | RSS MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n, rate, (build, load) in rows:
        print(
            f"| {n:,} | {rate:,.0f} | {build['first_search_s']:.1f} s | "
            f"{load['first_search_s']:.1f} s | "
            f"{load['search_p50']:.1f} / {load['search_p95']:.1f} ms"
            f" | {load['save_p50']:.1f} / {load['save_p95']:.1f} ms | {load['bulk_per_s']:,.0f} | "
            f"{load['recall_at_10']:.3f} | {max(build['rss_mb'], load['rss_mb']):.0f} |"
        )
    print("\n'index build' and 'index load' include loading the embedding model (~0.5 s).")


if __name__ == "__main__":
    main()
