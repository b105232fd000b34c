#!/usr/bin/env python3
"""What an assistant feels: Engram's MCP server through a real client session over stdio.

    python bench/mcp_latency.py --n 10000

Uses the store of bench/semantic_scale.py for N (built, with vectors, if missing), copied so
the run leaves it as it was. For each of --runs fresh server processes it measures: spawn →
`initialize` answered; the first `search_memory` sent right after `initialize` (the model is
then still loading in the background, so it may answer from the text alone — the table says
how often); then, after the warm-up, `search_memory` p50/p95 over 200 queries and
`save_memory` p50 over 100 saves, each the full round trip; the round trip of a tool that does
almost nothing (`open_memories` of an unknown id, p50 over 200 calls: what the protocol itself
costs, transport and validation on both sides); how much of a search's round trip the client
spends checking the result against the tool's output schema (the Python SDK does it with
`jsonschema` on every call); the CPU time the server process spends per search, all its
threads (Linux: /proc); the size of a 10-hit search
response, median and largest over the 200 queries (compact hits, as by default: its structured
content as the wire carries it, and the text block that most clients show the model); and the
server's peak RSS.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale
import semantic_scale


def server_pid(store: Path) -> int:
    """The server process serving `store` (the SDK's client does not expose it)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if f"ENGRAM_STORAGE_PATH={store}".encode() in environ:
                cmdline = (entry / "cmdline").read_bytes()
                if b"engram.mcp" in cmdline:
                    return int(entry.name)
    raise RuntimeError("server process not found")


class SchemaCheckTimer:
    """Times the client's check of each tool result against the tool's output schema (part
    of every round trip measured here, spent in the client, not the server)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._real = ClientSession.validate_tool_result

    def __enter__(self) -> SchemaCheckTimer:
        real, times = self._real, self.times

        async def timed(session: ClientSession, name: str, result: Any) -> None:
            start = time.perf_counter()
            try:
                await real(session, name, result)
            finally:
                times.append((time.perf_counter() - start) * 1000)

        ClientSession.validate_tool_result = timed  # type: ignore[method-assign, assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        ClientSession.validate_tool_result = self._real  # type: ignore[method-assign]


def cpu_seconds(pid: int) -> float:
    """CPU time the process has used, all its threads (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one_run(store: Path, home: Path, queries: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engram.mcp"],
        env={
            **get_default_environment(),
            # The client passes on only a few variables; PYTHONPATH is how a run measures
            # another checkout (a git worktree of the code before a change).
            **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
            "ENGRAM_STORAGE_PATH": str(store),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
        },
        cwd=home,
    )
    out: dict[str, Any] = {}
    with (home / "stderr.log").open("w") as errlog:
        start = time.perf_counter()
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            out["initialize_s"] = time.perf_counter() - start
            t = time.perf_counter()
            first = await session.call_tool("search_memory", {"query": queries[0]})
            out["first_search_ms"] = (time.perf_counter() - t) * 1000
            out["first_text_only"] = "still loading" in json.dumps(first.structured_content)
            await anyio.sleep(3)  # the warm-up finishes
            pid = server_pid(store)
            cpu_before = cpu_seconds(pid)
            times = []
            sizes: list[float] = []
            texts: list[float] = []
            with SchemaCheckTimer() as checks:
                for q in queries[1:]:
                    t = time.perf_counter()
                    result = await session.call_tool("search_memory", {"query": q, "limit": 10})
                    times.append((time.perf_counter() - t) * 1000)
                    # As the wire carries it: compact JSON, UTF-8.
                    structured = json.dumps(
                        result.structured_content, ensure_ascii=False, separators=(",", ":")
                    )
                    sizes.append(len(structured.encode()))
                    texts.append(
                        sum(len(c.text.encode()) for c in result.content if c.type == "text")
                    )
            out["search_p50"], out["search_p95"] = scale.pct(times, 0.5), scale.pct(times, 0.95)
            out["search_cpu_ms"] = (cpu_seconds(pid) - cpu_before) * 1000 / len(times)
            out["search_schema_check_p50"] = scale.pct(checks.times, 0.5)
            out["response_bytes"], out["response_bytes_max"] = scale.pct(sizes, 0.5), max(sizes)
            # the text block most clients show the model
            out["text_bytes"], out["text_bytes_max"] = scale.pct(texts, 0.5), max(texts)
            saves = []
            for i in range(100):
                t = time.perf_counter()
                await session.call_tool(
                    "save_memory", {"content": f"latency note {i}: {queries[i]}"}
                )
                saves.append((time.perf_counter() - t) * 1000)
            out["save_p50"] = scale.pct(saves, 0.5)
            trips = []
            for _ in range(200):
                t = time.perf_counter()
                await session.call_tool("open_memories", {"memory_ids": ["no-such-memory"]})
                trips.append((time.perf_counter() - t) * 1000)
            out["round_trip_p50"] = scale.pct(trips, 0.5)
            out["rss_mb"] = peak_rss_mb(pid)
    return out


def main() -> None:
    parser = scale.run_parser(__doc__, n=10_000, runs=3)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    source = args.dir / f"semantic-{args.n}.db"
    scale.build(scale.SQLiteTarget(source), args.n, args.seed)
    semantic_scale.attach_vectors(source, 10_000, args.seed)
    semantic_scale.ensure_index(source)
    rng = random.Random(args.seed + 5)
    words = scale.vocabulary(random.Random(args.seed))
    runs = []
    for r in range(args.runs):
        queries = [" ".join(rng.sample(words[:5000], rng.randint(1, 3))) for _ in range(201)]
        with tempfile.TemporaryDirectory(prefix="engram-mcp-latency-") as tmp:
            home = Path(tmp)
            store = home / "store.db"
            for suffix in ("", ".vectors.usearch", ".vectors.json"):
                if Path(str(source) + suffix).exists():
                    shutil.copy(str(source) + suffix, str(store) + suffix)
            runs.append(anyio.run(one_run, store, home, queries))
        print(f"run {r + 1}/{args.runs}: {json.dumps(runs[-1])}", file=sys.stderr)

    def med(key: str) -> float:
        return statistics.median(float(run[key]) for run in runs)

    text_only = sum(1 for run in runs if run["first_text_only"])
    print(
        "| N | start → initialize | first search (text-only) | search p50 / p95 |"
        " server CPU per search | of which the client's schema check | save p50 | round trip p50 |"
        " 10-hit response p50 / largest | its text block p50 / largest | server peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.n:,} | {med('initialize_s'):.2f} s | {med('first_search_ms'):.0f} ms "
        f"({text_only}/{len(runs)}) | {med('search_p50'):.1f} / {med('search_p95'):.1f} ms | "
        f"{med('search_cpu_ms'):.1f} ms | "
        f"{med('search_schema_check_p50'):.2f} ms | "
        f"{med('save_p50'):.1f} ms | {med('round_trip_p50'):.2f} ms | "
        f"{med('response_bytes') / 1024:.1f} / {med('response_bytes_max') / 1024:.1f} KB | "
        f"{med('text_bytes') / 1024:.1f} / {med('text_bytes_max') / 1024:.1f} KB | "
        f"{med('rss_mb'):.0f} MB |"
    )
    print(
        f"\nmedians of {len(runs)} server processes; python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
