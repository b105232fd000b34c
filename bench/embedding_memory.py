#!/usr/bin/env python3
"""Peak memory and time of embedding long texts, and the rate for short ones.

    python bench/embedding_memory.py

One process, one embedding thread: 64 texts of 300 words (every one truncated to the model's
256 tokens), then 640 short sentences. Prints one table; the peak RSS is the process's.
"""

from __future__ import annotations

import resource
import time

from engram.embeddings.minilm import MiniLMEmbedder


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
    print("| 64 texts of 300 words | peak RSS | 640 short sentences |")
    print("|---|---|---|")
    print(f"| {long_s:.1f} s | {peak:.0f} MB | {short_rate:.0f} /s |")


if __name__ == "__main__":
    main()
