#!/usr/bin/env python3
"""Soak: many MCP clients on one store at once, each a real `engram serve` over stdio.

    python bench/soak.py --procs 8 --calls 10000

P server processes share one fresh SQLite store (embeddings on). Each client sends its share of
the calls in a fixed-seed mix — saves, searches, touches, observations, updates, and one call in
ten with bad input (unknown ids, out-of-range numbers, misspelled arguments). At the end every
acknowledged save must be in the store, every bad call must have been refused with a message,
every good call answered without error, and no server may have died or written anything but
protocol messages to stdout. Prints one table.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from engram import Engram

BAD: list[tuple[str, dict[str, Any]]] = [
    ("touch_memory", {"memory_id": "no-such-memory"}),
    ("search_memory", {"query": "x", "limit": 1000}),
    ("save_memory", {"content": "   "}),
    ("save_memory", {"content": "ok", "tag": ["misspelled"]}),
    ("delete_memory", {"memory_ids": ["not a valid id!"]}),
]
WORDS = "garden tomato flight lisbon database atlas deploy friday coffee violin report".split()


async def client(
    index: int, calls: int, store: Path, home: Path, seed: int, out: dict[str, Any]
) -> None:
    rng = random.Random(seed + index)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engram.mcp"],
        env={
            "ENGRAM_STORAGE_PATH": str(store),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "PATH": os.environ.get("PATH", ""),
        },
    )
    stray: list[Exception] = []

    async def on_message(message: object) -> None:
        if isinstance(message, Exception):
            stray.append(message)

    saved: list[str] = []
    latencies: list[float] = []
    unexpected: list[str] = []
    refused = 0
    with open(home / f"server-{index}.err", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            for i in range(calls):
                roll = rng.random()
                if roll < 0.1:
                    name, args = rng.choice(BAD)
                elif roll < 0.4 or not saved:
                    words = " ".join(rng.sample(WORDS, 3))
                    name, args = "save_memory", {"content": f"client {index} note {i}: {words}"}
                elif roll < 0.7:
                    name, args = "search_memory", {"query": " ".join(rng.sample(WORDS, 2))}
                elif roll < 0.8:
                    name, args = "touch_memory", {"memory_id": rng.choice(saved)}
                elif roll < 0.9:
                    name, args = (
                        "observe_memory_usage",
                        {
                            "memory_ids": rng.sample(saved, min(3, len(saved))),
                            "context_tags": [rng.choice(WORDS)],
                        },
                    )
                else:
                    name, args = (
                        "update_memory",
                        {
                            "memory_id": rng.choice(saved),
                            "tags": [rng.choice(WORDS)],
                        },
                    )
                start = time.perf_counter()
                with anyio.fail_after(60):
                    result = await session.call_tool(name, args)
                latencies.append((time.perf_counter() - start) * 1000)
                is_bad = roll < 0.1
                if is_bad:
                    refused += bool(result.is_error and result.content)
                    if not result.is_error:
                        unexpected.append(f"{name} accepted bad input {args}")
                elif result.is_error:
                    unexpected.append(f"{name}: {result.content}")
                elif name == "save_memory" and result.structured_content:
                    saved.append(result.structured_content["memory"]["id"])
    out[f"client{index}"] = {
        "saved": saved,
        "latencies": latencies,
        "unexpected": unexpected,
        "refused": refused,
        "stray": len(stray),
    }


async def soak(procs: int, calls: int, seed: int, root: Path) -> dict[str, Any]:
    store = root / "soak.db"
    out: dict[str, Any] = {}
    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for i in range(procs):
            home = root / f"client-{i}"
            home.mkdir()
            group.start_soon(client, i, calls // procs, store, home, seed, out)
    out["wall_s"] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-soak-") as tmp:
        root = Path(tmp)
        out = anyio.run(soak, args.procs, args.calls, args.seed, root)
        results = [out[f"client{i}"] for i in range(args.procs)]
        saved = [i for r in results for i in r["saved"]]
        with Engram.open(str(root / "soak.db"), embedding_model="none") as mem:
            present: set[str] = set()
            for start in range(0, len(saved), 100):
                present |= {m.id for m in mem.get_many(saved[start : start + 100])}
            total = mem.stats().total
        tracebacks = sum(
            "Traceback" in (root / f"client-{i}" / f"server-{i}.err").read_text()
            for i in range(args.procs)
        )
    latencies = [x for r in results for x in r["latencies"]]
    unexpected = [u for r in results for u in r["unexpected"]]
    calls = len(latencies)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    print(
        "| processes | calls | wall | calls/s | p50 / p95 | bad input refused | "
        "unexpected errors | saves acknowledged / present | tracebacks | stray stdout |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    refused = sum(r["refused"] for r in results)
    print(
        f"| {args.procs} | {calls:,} | {out['wall_s']:.0f} s | {calls / out['wall_s']:.0f} | "
        f"{statistics.median(latencies):.0f} / {p95:.0f} ms | {refused} | "
        f"{len(unexpected)} | {len(saved):,} / {len(present):,} (store: {total:,}) | "
        f"{tracebacks} | {sum(r['stray'] for r in results)} |"
    )
    for line in unexpected[:10]:
        print("unexpected:", line)


if __name__ == "__main__":
    main()
