#!/usr/bin/env python3
"""Acknowledged single saves with embeddings on, the way an assistant saves: one at a time.

    python bench/save_latency.py --n 10000
    python bench/save_latency.py --n 10000 --texts ../shared/data/realtalk   (prose)

Uses the store of bench/semantic_scale.py for N (built, with vectors, if missing) and measures
on a throwaway copy, in a fresh child process: 200 new memories saved back to back (each save
returns while the background worker may still be storing the previous one's vector), then 200
saved with the worker idle between them (`flush` after each, not timed). Both ways of saving are
measured, each on texts of its own: `save`, which returns the memory alone, and `save_result`,
which also reports the stored memories the new one nearly repeats (what the MCP tool and the CLI
show; ENGRAM_SAVE_SIMILAR_THRESHOLD, 0 turns the report off) and so embeds the text before it
returns. The texts are the synthetic store's word salad unless --texts names a conversation
set. Prints p50 / p95.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale
import semantic_scale
from conversations import load
from engram import Engram, FixedClock


def word_salad(seed: int) -> list[str]:
    """400 texts of the synthetic store's invented words: the worst case for the tokenizer
    (each word splits into several pieces, so each text costs the model more than prose)."""
    rng = random.Random(seed + 11)
    words = scale.vocabulary(random.Random(seed))
    return [
        f"note {i}: " + " ".join(rng.sample(words[:5000], rng.randint(3, 12))) for i in range(800)
    ]


def conversation_turns(path: Path, seed: int) -> list[str]:
    """800 turns of a conversation set (`--texts ../shared/data/realtalk`), drawn with the seed:
    what an assistant saves is prose."""
    turns = [t.content for conv in load(path) for t in conv.turns]
    return random.Random(seed).sample(turns, 800)


def measure(path: Path, seed: int, texts_from: Path | None) -> dict[str, Any]:
    texts = word_salad(seed) if texts_from is None else conversation_turns(texts_from, seed)
    out: dict[str, Any] = {}
    with Engram.open(str(path), clock=FixedClock(scale.NOW)) as mem:
        mem.search("warming up")  # the model and the vector index
        mem.flush()
        ways: dict[str, Callable[[str], object]] = {
            "save": mem.save,
            "save_result": mem.save_result,
        }
        for (name, save), chunk in zip(ways.items(), (texts[:400], texts[400:]), strict=True):
            busy: list[float] = []
            for text in chunk[:200]:
                start = time.perf_counter()
                save(text)
                busy.append((time.perf_counter() - start) * 1000)
            mem.flush()
            idle: list[float] = []
            for text in chunk[200:]:
                start = time.perf_counter()
                save(text)
                idle.append((time.perf_counter() - start) * 1000)
                mem.flush()
            out[name] = {"busy": busy, "idle": idle}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    parser.add_argument(
        "--texts",
        type=Path,
        help="save turns of this conversation set (e.g. ../shared/data/realtalk) instead of "
        "the synthetic word salad",
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.seed, args.texts)))
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    source = args.dir / f"semantic-{args.n}.db"
    scale.build(scale.SQLiteTarget(source), args.n, args.seed)
    semantic_scale.attach_vectors(source, 10_000, args.seed)
    semantic_scale.ensure_index(source)
    extra = [] if args.texts is None else ["--texts", str(args.texts.resolve())]
    result = semantic_scale.measure_copy(
        source, args.seed, with_index=True, script=__file__, extra=extra
    )
    what = "synthetic word salad" if args.texts is None else f"turns of {args.texts.name}"
    print("| N | texts | call | back to back p50 / p95 | worker idle between saves p50 / p95 |")
    print("|---|---|---|---|---|")
    for name, times in result.items():
        busy, idle = times["busy"], times["idle"]
        print(
            f"| {args.n:,} | {what} | `{name}` | "
            f"{scale.pct(busy, 0.5):.1f} / {scale.pct(busy, 0.95):.1f} ms | "
            f"{scale.pct(idle, 0.5):.1f} / {scale.pct(idle, 0.95):.1f} ms |"
        )
    for name, times in result.items():
        busy = times["busy"]
        print(f"mean back to back, `{name}`: {statistics.mean(busy):.1f} ms over {len(busy)} saves")


if __name__ == "__main__":
    main()
