"""The graph view in a real browser: `engram graph --html` writes a page, Playwright drives
headless Chromium (Debian's `chromium`, installed by tasks.py) over it, and every request the
page makes is recorded (there must be none beyond the file itself)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from playwright.sync_api import Page

from engram import Engram, Memory
from engram.cli.main import cli
from engram.web import graph_page

HOSTILE = "</script><script>document.title='pwned'</script> & <b>bold</b>"
# 400 memories of 49,000 characters made a page of 20 MB and tooltips 12,000 px tall (a probe)
LONG = " ".join(f"sentence{i} of a very long memory." for i in range(500))


def planted(db: Path) -> dict[str, Memory]:
    with Engram.open(str(db), embedding_model="none") as mem:
        atlas = mem.save("Atlas runs on PostgreSQL 16", tags=["atlas"], entities=["Atlas"])
        for _ in range(4):
            mem.touch(atlas.id)
        deploy = mem.save("Atlas deploys on Fridays", tags=["atlas", "ops"])
        old = mem.save("Old VPN endpoint", tags=["ops"])
        hostile = mem.save(HOSTILE)
        long = mem.save(LONG)
        mem.archive([old.id])
        mem.create_relation(atlas.id, deploy.id, "supports", strength=0.8)
        mem.create_relation(hostile.id, atlas.id, "contradicts")
    return {"atlas": atlas, "deploy": deploy, "old": old, "hostile": hostile, "long": long}


def hover_text(page: Page, memory_id: str) -> str:
    """Moves the mouse over a memory's circle and returns the tooltip vis-network shows."""
    x, y, corner_x, corner_y = page.evaluate(
        """id => {
            const g = window.engramGraph, at = g.network.getPositions([id])[id];
            const dom = g.network.canvasToDOM(at);
            const box = document.getElementById("graph").getBoundingClientRect();
            return [box.left + dom.x, box.top + dom.y, box.right - 2, box.bottom - 2];
        }""",
        memory_id,
    )
    tip = page.locator("div.vis-tooltip")
    page.mouse.move(corner_x, corner_y)  # empty canvas: any earlier tooltip goes
    tip.wait_for(state="hidden", timeout=10_000)
    page.mouse.move(x, y)
    tip.wait_for(state="visible", timeout=10_000)
    text: str = tip.inner_text()
    assert tip.locator("b").count() == 0  # memory text is shown as text, never as markup
    return text


def test_the_graph_page_draws_filters_and_fetches_nothing(
    tmp_path: Path, browser_page: tuple[Page, list[str]]
) -> None:
    db = tmp_path / "graph.db"
    m = planted(db)
    page_file = tmp_path / "graph.html"
    result = CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", str(page_file)])
    assert result.exit_code == 0, result.output
    assert "5 memories and 2 relations" in result.output
    written = page_file.read_text()
    assert "vis-network" in written  # the library is inlined, not fetched
    assert LONG[:1_900] in written and LONG[2_100:] not in written  # cut as a search hit is

    page, requested = browser_page
    page.goto(page_file.as_uri())
    page.wait_for_function("document.body.dataset.rendered === '5 2'", timeout=30_000)
    assert requested == [page_file.as_uri()]  # nothing else: no CDN, no network
    assert page.title() == "Engram memory graph"  # the hostile memory ran nothing
    assert page.locator("#graph canvas").count() == 1

    nodes = {n["id"]: n for n in page.evaluate("window.engramGraph.nodes.get()")}
    assert set(nodes) == {x.id for x in m.values()}
    assert nodes[m["old"].id]["status"] == "archived"
    colour = {k: n["color"]["background"] for k, n in nodes.items()}
    assert colour[m["old"].id] != colour[m["atlas"].id]  # colour by status
    assert nodes[m["atlas"].id]["size"] > nodes[m["deploy"].id]["size"]  # size by use
    positions = page.evaluate("window.engramGraph.network.getPositions()")
    assert all(abs(p["x"]) < 1e6 and abs(p["y"]) < 1e6 for p in positions.values())
    edges = page.evaluate("window.engramGraph.edges.get()")
    assert {e["type"] for e in edges} == {"supports", "contradicts"}
    assert len({e["color"]["color"] for e in edges}) == 2  # colour by relation type

    page.uncheck("#physics")  # the layout stops moving, so the circles stay where we point
    assert page.evaluate("window.engramGraph.network.physics.physicsEnabled") is False
    atlas_tip = hover_text(page, m["atlas"].id)
    assert atlas_tip.startswith("Atlas runs on PostgreSQL 16")
    assert "tags: atlas" in atlas_tip and "entities: Atlas" in atlas_tip
    assert hover_text(page, m["hostile"].id).startswith(HOSTILE)
    long_tip = hover_text(page, m["long"].id)
    assert long_tip.startswith(LONG[:250]) and len(long_tip) < 400

    faded = "window.engramGraph.{}.get({{filter: x => x.faded}}).length"
    page.fill("#search", "postgresql")
    assert page.evaluate("document.body.dataset.matching") == "1"
    assert page.evaluate(faded.format("nodes")) == 4
    page.fill("#search", "")
    page.select_option("#status", "archived")
    assert page.evaluate("document.body.dataset.matching") == "1"
    page.select_option("#status", "")
    page.select_option("#tag", "ops")
    assert page.evaluate("document.body.dataset.matching") == "2"
    assert page.evaluate(faded.format("edges")) == 2  # no relation has both ends tagged ops


def test_without_the_graph_extra_the_command_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on a machine without pyvis: the distribution lookup fails, the command explains."""
    monkeypatch.setattr(graph_page, "VIS_DISTRIBUTION", "no-such-distribution-engram-test")
    db = tmp_path / "graph.db"
    planted(db)
    page_file = tmp_path / "graph.html"
    result = CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", str(page_file)])
    assert result.exit_code == 1
    assert "pip install 'engram-local[graph]'" in result.output
    assert not page_file.exists()


def test_with_json_the_command_prints_one_json_document(tmp_path: Path) -> None:
    """docs/cli.md: --json gives exactly one JSON document on stdout; --html printed a line."""
    db = tmp_path / "graph.db"
    planted(db)
    page_file = tmp_path / "graph.html"
    args = ["--store", str(db), "--json", "graph", "--html", str(page_file)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "path": str(page_file),
        "memories": 5,
        "relations": 2,
        "total": 5,
    }
    assert page_file.exists()


def test_a_dash_writes_the_page_to_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--html -` wrote a file named "-" (a probe); "-" is stdin or stdout elsewhere."""
    db = tmp_path / "graph.db"
    planted(db)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", "-"])
    assert result.exit_code == 0, result.output
    assert (
        result.stdout.startswith("<!doctype html>")
        and "Atlas runs on PostgreSQL 16" in result.stdout
    )
    assert not (tmp_path / "-").exists()
    mixed = CliRunner().invoke(cli, ["--store", str(db), "--json", "graph", "--html", "-"])
    assert mixed.exit_code == 2 and "--json: the page on stdout is no JSON" in mixed.output
