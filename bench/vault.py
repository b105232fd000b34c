#!/usr/bin/env python3
"""Vault benchmark: index an Obsidian vault of N notes, then search memories and notes at once.

    python bench/vault.py --notes 10000

Builds a vault of N Markdown notes with a fixed seed (frontmatter on most, inline #tags,
[[wikilinks]], a few with broken frontmatter, nested folders), then, for each embedding model
(`--models`, default `none,minilm`: full text only, then full text and vectors), a fresh store of
short-term memories, and measures:

- `index-ltm` on the whole vault (first run: every note read and parsed, and embedded),
- `index-ltm` again with nothing changed (only `stat` calls),
- `index-ltm` after 1% of the notes were edited (only those are read, and embedded again),
- `search_unified` p50 / p95 over random two- and three-word queries (and the memory search
  alone, to show what the notes add).

Prints one Markdown table, a column per model. Times are wall-clock on this machine; nothing
here is a test.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from engram import Draft, Engram, FixedClock

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua", "bri", "dor", "fen"]
FOLDERS = ["Daily", "Projects", "People", "Reading", "Archive/2024", "Archive/2025", "Inbox"]


def vocabulary(rng: random.Random, size: int = 8_000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def note_text(rng: random.Random, words: list[str], names: list[str], i: int) -> str:
    body_words = rng.choices(words, k=rng.randint(80, 400))
    for _ in range(rng.randint(0, 4)):
        body_words.insert(rng.randrange(len(body_words)), f"[[{rng.choice(names)}]]")
    for _ in range(rng.randint(0, 3)):
        body_words.insert(rng.randrange(len(body_words)), f"#{rng.choice(words)}")
    lines = [" ".join(body_words[j : j + 14]) for j in range(0, len(body_words), 14)]
    body = f"# {' '.join(rng.choices(words, k=4)).title()}\n\n" + "\n".join(lines) + "\n"
    if i % 50 == 0:
        return f"---\ntitle: [broken\n---\n{body}"  # 2% with broken frontmatter
    if i % 5 == 0:
        return body  # no frontmatter
    tags = ", ".join(rng.sample(words[:300], k=rng.randint(1, 4)))
    return f"---\ntitle: Note {i}\ntags: [{tags}]\ncreated: 2025-01-{1 + i % 28:02d}\n---\n{body}"


def build_vault(root: Path, n: int, rng: random.Random, words: list[str]) -> list[Path]:
    names = [f"note-{i:05d}" for i in range(n)]
    paths = []
    for i, name in enumerate(names):
        path = root / FOLDERS[i % len(FOLDERS)] / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, words, names, i), encoding="utf-8")
        paths.append(path)
    return paths


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def measure(
    work: Path, vault: Path, paths: list[Path], model: str, args: argparse.Namespace
) -> dict[str, str]:
    """Index the vault into a fresh store and search it; a row of the table per measure."""
    rng = random.Random(args.seed + 1)  # the same memories, edits and queries for each model
    words = vocabulary(random.Random(args.seed))
    clock = FixedClock(NOW)
    settings = {"vault_path": str(vault), "embedding_model": model}
    rows: dict[str, str] = {}
    with Engram.open(str(work / f"bench-{model}.db"), clock=clock, **settings) as mem:
        drafts = [
            Draft(content=" ".join(rng.choices(words, k=rng.randint(6, 20))))
            for _ in range(args.memories)
        ]
        print(f"[{model}] saving {len(drafts):,} memories", file=sys.stderr)
        for first in range(0, len(drafts), 5_000):
            mem.save_many(drafts[first : first + 5_000])

        print(f"[{model}] indexing {len(paths):,} notes", file=sys.stderr)
        start = time.perf_counter()
        report = mem.index_ltm()
        full = time.perf_counter() - start
        nothing = timed(mem.index_ltm)

        touched = rng.sample(paths, max(1, len(paths) // 100))
        originals = {path: path.read_bytes() for path in touched}
        for path in touched:
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"\nedited {rng.choice(words)}\n")
            stat = path.stat()
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        start = time.perf_counter()
        edited = mem.index_ltm()
        incremental = time.perf_counter() - start
        for path, data in originals.items():  # the next model indexes the same vault
            path.write_bytes(data)

        queries = [" ".join(rng.choices(words[:2_000], k=rng.randint(2, 3))) for _ in range(200)]
        latencies = []
        hits = 0
        for query in queries[: args.queries]:
            start = time.perf_counter()
            result = mem.search_unified(query, limit=10)
            latencies.append((time.perf_counter() - start) * 1_000)
            hits += result.count
        latencies.sort()
        memory_only = []
        for query in queries[: args.queries]:
            start = time.perf_counter()
            mem.search(query, limit=10)
            memory_only.append((time.perf_counter() - start) * 1_000)

    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    rows["notes (with broken frontmatter)"] = f"{report.notes:,} ({len(report.problems)})"
    rows["index-ltm, first run"] = f"{full:.2f} s ({report.embedded:,} notes embedded)"
    rows["index-ltm, nothing changed"] = f"{nothing:.2f} s"
    rows["index-ltm after editing 1% of the notes"] = (
        f"{incremental:.2f} s ({edited.updated} re-read, {edited.embedded} embedded)"
    )
    rows[f"search_unified p50 ({len(latencies)} queries, limit 10)"] = f"{p50:.1f} ms"
    rows["search_unified p95"] = f"{p95:.1f} ms"
    rows["search (memories only) p50, for comparison"] = f"{statistics.median(memory_only):.1f} ms"
    rows["mean results per query"] = f"{hits / len(latencies):.1f}"
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--models",
        default="none,minilm",
        help="embedding models to measure, comma-separated (none = full text only)",
    )
    parser.add_argument("--dir", type=Path, default=None, help="work folder (default: temp)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    words = vocabulary(rng)
    work = args.dir or Path(tempfile.mkdtemp(prefix="engram-vault-bench-"))
    vault = work / "vault"
    vault.mkdir(parents=True, exist_ok=True)
    print(f"building {args.notes:,} notes in {vault}", file=sys.stderr)
    paths = build_vault(vault, args.notes, rng, words)

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    columns = {model: measure(work, vault, paths, model, args) for model in models}
    print(
        f"\nvault of {args.notes:,} notes, {args.memories:,} memories, seed {args.seed}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n"
    )
    print("| measure | " + " | ".join(f"`ENGRAM_EMBEDDING_MODEL={m}`" for m in models) + " |")
    print("|---|" + "---|" * len(models))
    for measure_name in columns[models[0]]:
        print(f"| {measure_name} | " + " | ".join(columns[m][measure_name] for m in models) + " |")


if __name__ == "__main__":
    main()
