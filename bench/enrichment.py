#!/usr/bin/env python3
"""What enrichment on save costs, and what the activation rules cost per message.

    python bench/enrichment.py --n 2000

Saves N generated memories (fixed seed: sentences with names, technologies and importance
markers, as assistants save them) into a fresh SQLite store through the public API, once with
ENGRAM_ENRICH_ON_SAVE on and once off, embeddings off so the difference is the enrichment
alone; then times the rules on their own (entity extraction, importance, intent) over the same
texts. Prints one table of medians and 95th percentiles.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engram import Engram
from engram.core.entities import extract_entities
from engram.core.importance import importance
from engram.core.intent import classify

PEOPLE = ["Dana Kim", "Priya", "Marco", "Sarah", "Tom Becker", "Kevin", "Ana", "Yusuf"]
THINGS = [
    "PostgreSQL 16",
    "TypeScript",
    "Kubernetes",
    "Stripe",
    "GitHub Actions",
    "Redis",
    "the Atlas project",
    "the billing service",
    "Neovim",
    "FastAPI",
]
PLACES = ["Berlin", "Porto", "Lisbon", "Toronto", "Osaka", "the Paris office"]
TEMPLATES = [
    "{p} decided to move {t} to {l} next quarter.",
    "Important: {p} owns {t} from now on.",
    "Remember that {p} prefers {t} over the old setup.",
    "We agreed with {p} to keep {t} in {l}.",
    "Always ask {p} before touching {t}!",
    "{p} said the {t} migration slipped again; the review is in {l}.",
    "Never deploy {t} on Fridays.",
    "Note to self: {p} is allergic to peanuts, book the dinner in {l}.",
]


def texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(TEMPLATES).format(
            p=rng.choice(PEOPLE), t=rng.choice(THINGS), l=rng.choice(PLACES)
        )
        + f" ({i})"
        for i in range(n)
    ]


def timed(fn: Callable[[str], object], items: list[str]) -> list[float]:
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - start) * 1000)
    return out


def saves(items: list[str], enrich: bool, root: Path) -> list[float]:
    path = root / f"enrich-{enrich}.db"
    with Engram.open(path, embedding_model="none", enrich_on_save=enrich) as mem:
        return timed(lambda t: mem.save(t), items)


def row(name: str, ms: list[float]) -> str:
    p95 = statistics.quantiles(ms, n=20)[-1]
    return f"| {name} | {statistics.median(ms):.3f} | {p95:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    items = texts(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        off = saves(items, False, Path(tmp))
        on = saves(items, True, Path(tmp))
    print(f"{args.n} saves, SQLite, embeddings off; milliseconds\n")
    print("| what | p50 ms | p95 ms |\n|---|---|---|")
    print(row("save, enrichment off", off))
    print(row("save, enrichment on", on))
    print(row("extract_entities", timed(extract_entities, items)))
    print(row("importance", timed(importance, items)))
    print(row("classify (intent)", timed(classify, items)))
    added = statistics.median(on) - statistics.median(off)
    print(f"\nadded per save (p50 on − p50 off): {added:.3f} ms")


if __name__ == "__main__":
    main()
