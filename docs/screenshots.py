#!/usr/bin/env python3
"""Make the screenshots in docs/images: the dashboard and the graph view, on a small store.

    python docs/screenshots.py

Needs the dev extra (Playwright) and Chromium (`python3 tasks.py test` installs both). The
store is made here, with a fixed clock, so every run draws the same memories.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from playwright.sync_api import sync_playwright

from engram import Draft, Engram, FixedClock
from engram.cli.main import cli

IMAGES = Path(__file__).resolve().parent / "images"
TOKEN = "screenshot-token-0123456789"
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
MEMORIES = [
    ("Decided on PostgreSQL 16 for Atlas: logical replication", ["decision", "atlas"], 20, 6),
    ("Atlas deploys go out on Tuesdays and Thursdays", ["atlas", "ops"], 12, 3),
    ("Prefers concise answers with code first", ["preference"], 30, 9),
    ("Allergic to peanuts: never suggest recipes that use them", ["health"], 40, 2),
    ("The billing API allows 500 requests per minute per key", ["api"], 25, 1),
    ("Uses Neovim with the LazyVim distribution", ["tools"], 50, 0),
    ("The Q3 roadmap sync with Dana moved to Friday", ["work"], 9, 0),
]


def build_store(path: Path) -> str:
    clock = FixedClock(NOW)
    with Engram.open(str(path), clock=clock, embedding_model="none") as mem:
        ids = []
        for content, tags, age_days, uses in MEMORIES:
            when = NOW - timedelta(days=age_days)
            saved = mem.save_many(
                [Draft(content=content, tags=tags, created_at=when, last_used=when)]
            )
            for _ in range(uses):
                mem.touch(saved[0].id)
            ids.append(saved[0].id)
        mem.create_relation(ids[0], ids[1], "supports")
        mem.create_relation(ids[4], ids[0], "related")
        return ids[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("needs Chromium: python3 tasks.py test installs it")
    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "shots.db"
        first = build_store(db)
        graph = Path(tmp) / "graph.html"
        CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", str(graph)])
        port = free_port()
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engram.cli.main",
                "--store",
                str(db),
                "ui",
                "--port",
                str(port),
            ],
            env={
                "ENGRAM_HTTP_TOKEN": TOKEN,
                "ENGRAM_EMBEDDING_MODEL": "none",
                "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
                "PATH": "/usr/bin:/bin",
            },
        )
        try:
            time.sleep(3)
            base = f"http://127.0.0.1:{port}/ui"
            with sync_playwright() as play:
                browser = play.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1100, "height": 720})
                page.goto(f"{base}/login")
                page.fill("#token", TOKEN)
                page.click("input[type=submit]")
                page.goto(f"{base}/?q=atlas")
                page.screenshot(path=str(IMAGES / "dashboard-search.png"), full_page=True)
                page.goto(f"{base}/memory/{first}")
                page.screenshot(path=str(IMAGES / "dashboard-memory.png"), full_page=True)
                page.goto(graph.as_uri())
                page.wait_for_timeout(2000)
                page.screenshot(path=str(IMAGES / "graph.png"))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=15)
    for name in ("dashboard-search.png", "dashboard-memory.png", "graph.png"):
        print(IMAGES / name)


if __name__ == "__main__":
    main()
