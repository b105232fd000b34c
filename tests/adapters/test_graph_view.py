"""The graph view in a real browser: `engram graph --html` writes a page, Playwright drives
headless Chromium (Debian's `chromium`, installed by tasks.py) over it, and every request the
page makes is recorded (there must be none beyond the file itself)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from playwright.sync_api import Page

from engram import Engram, Memory
from engram.cli.main import cli

HOSTILE = "</script><script>document.title='pwned'</script> & <b>bold</b>"


def planted(db: Path) -> dict[str, Memory]:
    with Engram.open(str(db), embedding_model="none") as mem:
        atlas = mem.save("Atlas runs on PostgreSQL 16", tags=["atlas"], entities=["Atlas"])
        for _ in range(4):
            mem.touch(atlas.id)
        deploy = mem.save("Atlas deploys on Fridays", tags=["atlas", "ops"])
        old = mem.save("Old VPN endpoint", tags=["ops"])
        hostile = mem.save(HOSTILE)
        mem.archive([old.id])
        mem.create_relation(atlas.id, deploy.id, "supports", strength=0.8)
        mem.create_relation(hostile.id, atlas.id, "contradicts")
    return {"atlas": atlas, "deploy": deploy, "old": old, "hostile": hostile}


def attrs(page: Page, selector: str, names: list[str]) -> list[dict[str, str | None]]:
    found: list[dict[str, str | None]] = page.eval_on_selector_all(
        selector,
        "(els, names) => els.map(e => Object.fromEntries(names.map(n => [n, e.getAttribute(n)])))",
        names,
    )
    return found


def test_the_graph_page_draws_filters_and_fetches_nothing(
    tmp_path: Path, browser_page: tuple[Page, list[str]]
) -> None:
    db = tmp_path / "graph.db"
    m = planted(db)
    page_file = tmp_path / "graph.html"
    result = CliRunner().invoke(cli, ["--store", str(db), "graph", "--html", str(page_file)])
    assert result.exit_code == 0, result.output
    assert "4 memories and 2 relations" in result.output

    page, requested = browser_page
    page.goto(page_file.as_uri())
    page.wait_for_function("document.body.dataset.rendered === '4 2'", timeout=30_000)
    assert requested == [page_file.as_uri()]  # nothing else: no CDN, no network
    assert page.title() == "Engram memory graph"  # the hostile memory ran nothing

    circles = {
        a["data-id"]: a for a in attrs(page, "circle", ["data-id", "data-status", "fill", "r"])
    }
    assert set(circles) == {x.id for x in m.values()}
    assert circles[m["old"].id]["data-status"] == "archived"
    assert circles[m["old"].id]["fill"] != circles[m["atlas"].id]["fill"]  # colour by status
    assert float(circles[m["atlas"].id]["r"] or 0) > float(circles[m["deploy"].id]["r"] or 0)
    lines = attrs(page, "line", ["data-type", "stroke", "x1"])
    assert {a["data-type"] for a in lines} == {"supports", "contradicts"}
    assert len({a["stroke"] for a in lines}) == 2 and all(
        a["x1"] not in (None, "NaN") for a in lines
    )

    titles = page.eval_on_selector_all("circle > title", "els => els.map(e => e.textContent)")
    atlas_tip = next(t for t in titles if t.startswith("Atlas runs on PostgreSQL 16"))
    assert "tags: atlas" in atlas_tip and "entities: Atlas" in atlas_tip
    assert any(t.startswith(HOSTILE) for t in titles)  # shown as text

    page.fill("#search", "postgresql")
    assert page.evaluate("document.body.dataset.matching") == "1"
    assert page.locator("circle:not(.dim)").count() == 1
    page.fill("#search", "")
    page.select_option("#status", "archived")
    assert page.evaluate("document.body.dataset.matching") == "1"
    page.select_option("#status", "")
    page.select_option("#tag", "ops")
    assert page.evaluate("document.body.dataset.matching") == "2"
    assert page.locator("line:not(.dim)").count() == 0  # no relation has both ends tagged ops
