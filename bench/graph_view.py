#!/usr/bin/env python3
"""How fast the graph view (`engram graph --html`) opens in a real browser.

    python bench/graph_view.py --n 1000 5000

For each N: a fresh SQLite store (embeddings off) with N memories (fixed seed: tags from a small
vocabulary, one status in ten archived) and N/2 random relations, written as the HTML page,
then opened in headless Chromium (Playwright driving the system's `chromium`). Times, median
of three loads: until the page says it has drawn every memory and relation (`load`), and the
script's own layout time before the first frame (`layout`). Prints one table.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from engram import Draft, Engram
from engram.web.graph_page import graph_html

TAGS = ["atlas", "ops", "family", "travel", "health", "finance", "reading", "music", "work"]


def build(path: Path, n: int, seed: int) -> str:
    rng = random.Random(seed)
    with Engram.open(str(path), embedding_model="none", enrich_on_save=False) as mem:
        saved = mem.save_many(
            [
                Draft(f"memory {i} about {rng.choice(TAGS)}", tags=rng.sample(TAGS, 2))
                for i in range(n)
            ]
        )
        archived = [m.id for m in saved[::10]]
        for i in range(0, len(archived), 100):  # the API takes 100 ids a call
            mem.archive(archived[i : i + 100])
        for _ in range(n // 2):
            a, b = rng.sample(saved, 2)
            mem.create_relation(a.id, b.id, rng.choice(["related", "supports", "causes"]))
        return graph_html(mem.app.graph.snapshot(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser_path is None:
        raise SystemExit("needs Chromium (Debian: apt-get install chromium)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as play:
        browser = play.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        for n in args.n:
            page_file = Path(tmp) / f"graph-{n}.html"
            page_file.write_text(build(Path(tmp) / f"graph-{n}.db", n, args.seed))
            loads, layouts = [], []
            for _ in range(3):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(page_file.as_uri())
                page.wait_for_function("document.body.dataset.rendered", timeout=120_000)
                loads.append(time.perf_counter() - start)
                layouts.append(int(page.evaluate("document.body.dataset.renderMs")) / 1000)
                page.close()
            size = page_file.stat().st_size / 1e6
            rows.append((n, size, statistics.median(loads), statistics.median(layouts)))
        browser.close()
    print("| memories | relations | page size | load (median of 3) | layout |")
    print("|---|---|---|---|---|")
    for n, size, load, layout in rows:
        print(f"| {n:,} | {n // 2:,} | {size:.1f} MB | {load:.2f} s | {layout:.2f} s |")


if __name__ == "__main__":
    main()
