#!/usr/bin/env python3
"""Peak memory and time of embedding long texts, the memory kept afterwards, and the speed for
short ones.

    python bench/embedding_memory.py

One process, one embedding thread: 64 texts of 300 words (every one truncated to the model's
256 tokens), then 640 short sentences, then 200 single queries (two threads, as search uses).
Prints one table: the peak RSS of the process, the RSS left once the batches are done (what a
long-running server keeps), the batch rate and the query p50.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from pathlib import Path

from engram.embeddings.minilm import MiniLMEmbedder


def rss_mb() -> float:
    for line in Path(f"/proc/{os.getpid()}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    embedder = MiniLMEmbedder(threads=1)
    embedder.embed_batch(["warm up"])
    start = time.perf_counter()
    embedder.embed_batch(["word " * 300 + str(i) for i in range(64)])
    long_s = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    embedder.embed_batch([f"a short sentence about the garden number {i}" for i in range(640)])
    short_rate = 640 / (time.perf_counter() - start)
    kept = rss_mb()
    query = MiniLMEmbedder(threads=2)
    times = []
    for i in range(200):
        start = time.perf_counter()
        query.embed_batch([f"which database did we pick for project {i}"])
        times.append((time.perf_counter() - start) * 1000)
    print("| 64 texts of 300 words | peak RSS | RSS after | 640 short sentences | query p50 |")
    print("|---|---|---|---|---|")
    print(
        f"| {long_s:.1f} s | {peak:.0f} MB | {kept:.0f} MB | {short_rate:.0f} /s | "
        f"{statistics.median(times):.1f} ms |"
    )


if __name__ == "__main__":
    main()
