#!/usr/bin/env python3
"""Consolidation at scale: clustering time, and finding planted duplicates among many memories.

    python bench/consolidate.py --n 10000 100000

For each N it reuses (or builds) the store of bench/semantic_scale.py (N memories with
realistic vectors), copies it, and plants 100 groups of three near-copies of distinct real
sentences (other case and punctuation) through the public API. Then, in this order:

* clustering every active memory (`Engram.clusters`: one neighbour search per memory);
* precision and recall of the planted groups among the clusters found (a planted group counts
  when one cluster holds exactly its three memories);
* applying the merge of the planted clusters, and undoing every merge;
* clustering again after 1 % of the memories changed (same process: incremental).

Prints one table. Times are wall-clock seconds on this machine, one run.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import scale
import semantic_scale
from engram import Engram, FixedClock

GROUPS = 100


def variants(sentence: str) -> list[str]:
    return [sentence, sentence.lower(), sentence.rstrip(".") + "!"]


def distinct_facts(mem: Engram, seed: int) -> list[str]:
    """GROUPS sentences no two of which would link (cosine below 0.8), so each planted group is
    one cluster of its own."""
    embedder = mem.app.context.embedder
    assert embedder is not None
    pool = list(dict.fromkeys(semantic_scale.sentences(random.Random(seed + 5), 20 * GROUPS)))
    vectors = embedder.embed_batch(pool)
    chosen: list[int] = []
    for i in range(len(pool)):
        if all(float(vectors[i] @ vectors[j]) < 0.8 for j in chosen):
            chosen.append(i)
        if len(chosen) == GROUPS:
            break
    return [pool[i] for i in chosen]


def measure(path: Path, seed: int) -> dict[str, float]:
    out: dict[str, float] = {}
    # Repeats kept as copies: the planted near-copies are what clustering must find.
    with Engram.open(str(path), clock=FixedClock(scale.NOW), save_duplicates="keep") as mem:
        facts = distinct_facts(mem, seed)
        planted = [frozenset(mem.save(text).id for text in variants(fact)) for fact in facts]
        mem.flush()
        start = time.perf_counter()
        found = mem.clusters()
        out["cluster_s"] = time.perf_counter() - start
        out["considered"] = found.memories_considered
        out["clusters"] = found.count
        groups = {frozenset(c.member_ids): c.id for c in found.clusters}
        hits = [groups[g] for g in planted if g in groups]
        planted_ids = set().union(*planted)
        touching = [c for c in found.clusters if planted_ids & set(c.member_ids)]
        out["recall"] = len(hits) / len(planted)
        out["precision"] = len(hits) / max(len(touching), 1)
        start = time.perf_counter()
        applied = mem.consolidate(mode="apply", cluster_ids=hits)
        out["apply_s"] = time.perf_counter() - start
        out["merged"] = len(applied.merged)
        start = time.perf_counter()
        for done in applied.merged:
            mem.undo_consolidation(done.merged.id)
        out["undo_s"] = time.perf_counter() - start
        # 1 % of the memories change, then clustering runs again in the same process: only
        # they are searched (the rest keep the links the first run found).
        rng = random.Random(seed + 9)
        page = mem.read_graph(limit=1000).memories
        ids = [m.id for m in page]
        while len(ids) < found.memories_considered:
            more = mem.read_graph(cursor=ids[-1], limit=1000).memories
            if not more:
                break
            ids += [m.id for m in more]
        changed = rng.sample(ids, max(1, len(ids) // 100))
        for i, ident in enumerate(changed):
            mem.update(ident, content=f"changed note {i}: " + rng.choice(facts))
        mem.flush()
        start = time.perf_counter()
        mem.search("garden")  # the HNSW index takes in the re-embedded memories (timed apart)
        out["catch_up_s"] = time.perf_counter() - start
        start = time.perf_counter()
        mem.clusters()
        out["incremental_s"] = time.perf_counter() - start
        out["changed"] = len(changed)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real", type=int, default=3_000, help="real sentences embedded")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in args.n:
        source = args.dir / f"semantic-{n}.db"
        scale.build(scale.SQLiteTarget(source), n, args.seed)
        semantic_scale.attach_vectors(source, args.real, args.seed)
        with tempfile.TemporaryDirectory(prefix="engram-consolidate-") as tmp:
            copy = Path(tmp) / "store.db"
            shutil.copy(source, copy)
            for suffix in (".vectors.usearch", ".vectors.json"):
                if Path(str(source) + suffix).exists():
                    shutil.copy(Path(str(source) + suffix), Path(str(copy) + suffix))
            rows.append((n, measure(copy, args.seed)))
        print(f"  {n:,} done", file=sys.stderr)
    print(
        "| N | memories clustered | clusters | clustering | planted: precision / recall |"
        " apply 100 merges | undo 100 | again after 1 % changed | index catch-up before it |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n, r in rows:
        quality = f"{r['precision']:.2f} / {r['recall']:.2f}"
        print(
            f"| {n:,} | {r['considered']:,.0f} | {r['clusters']:,.0f} | {r['cluster_s']:.1f} s | "
            f"{quality} | {r['apply_s']:.1f} s | {r['undo_s']:.1f} s | "
            f"{r['incremental_s']:.1f} s ({r['changed']:,.0f} changed) | {r['catch_up_s']:.1f} s |"
        )


if __name__ == "__main__":
    main()
