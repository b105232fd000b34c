"""The graph view in a real browser: `engram graph --html` writes a page, headless Chromium
(Debian's `chromium`, installed by tasks.py) runs its script, and the rendered DOM is checked."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from engram import Engram
from engram.cli.main import cli

HOSTILE = "</script><script>document.title='pwned'</script> & <b>bold</b>"


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("this test needs Chromium: `python3 tasks.py test` installs it with apt")
    return found


def rendered_dom(page: Path) -> str:
    """The DOM after the page's scripts ran (a few seconds of virtual time for the layout)."""
    done = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.titles: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles.append(data)


def test_the_graph_page_draws_every_memory_and_relation(tmp_path: Path) -> None:
    db = tmp_path / "graph.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        atlas = mem.save("Atlas runs on PostgreSQL 16", tags=["atlas"], entities=["Atlas"])
        for _ in range(4):
            mem.touch(atlas.id)
        deploy = mem.save("Atlas deploys on Fridays", tags=["atlas"])
        old = mem.save("Old VPN endpoint")
        hostile = mem.save(HOSTILE)
        mem.archive([old.id])
        mem.create_relation(atlas.id, deploy.id, "supports", strength=0.8)
        mem.create_relation(hostile.id, atlas.id, "contradicts")
    page = tmp_path / "graph.html"
    result = CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert "4 memories and 2 relations" in result.output
    html = page.read_text()
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # nothing fetched

    dom = rendered_dom(page)
    parsed = Elements()
    parsed.feed(dom)
    assert re.search(r'<body data-rendered="4 2"', dom), "the script did not finish"
    circles = {a["data-id"]: a for tag, a in parsed.found if tag == "circle"}
    assert set(circles) == {atlas.id, deploy.id, old.id, hostile.id}
    assert circles[old.id]["data-status"] == "archived"
    assert circles[old.id]["fill"] != circles[atlas.id]["fill"]  # colour by status
    assert float(circles[atlas.id]["r"] or 0) > float(circles[deploy.id]["r"] or 0)  # by use
    lines = [a for tag, a in parsed.found if tag == "line"]
    assert {a["data-type"] for a in lines} == {"supports", "contradicts"}
    assert len({a["stroke"] for a in lines}) == 2  # colour by relation type
    assert all(a.get("x1") not in (None, "NaN") for a in lines)  # laid out
    tooltip = next(t for t in parsed.titles if t.startswith("Atlas runs on PostgreSQL 16"))
    assert "tags: atlas" in tooltip and "entities: Atlas" in tooltip
    assert any(HOSTILE in t for t in parsed.titles)  # the memory's text, shown as text
    assert "<title>pwned</title>" not in dom and "Engram memory graph</title>" in dom
