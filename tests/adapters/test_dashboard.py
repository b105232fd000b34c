"""The local dashboard in a real browser: `engram ui` runs as its own process on a real store,
Playwright drives headless Chromium (Debian's `chromium`, installed by tasks.py) through sign-in,
search, a memory's page and a confirmed touch; every request the browser makes is recorded
(all must go to the dashboard itself). Refusals are checked with a plain HTTP client."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx2
import pytest
from playwright.sync_api import Page
from tests.adapters.test_mcp_http import free_port, serve, wait_listening

from engram import Draft, Engram, FixedClock, Memory
from engram.core.scoring import Policy
from engram.web.dashboard import COOKIE, _chart

TOKEN = "dashboard-token-0123456789"


def cookie_of(base: str) -> str:
    """The sign-in cookie of the server at `base`: named after its port."""
    return f"{COOKIE}_{urlsplit(base).port}"


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[tuple[str, Path, dict[str, Memory]]]:
    db = tmp_path / "ui.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        tea = mem.save("Prefers green tea in the morning", tags=["drink"])
        other = mem.save("Atlas deploys on Fridays <b>not bold</b>", tags=["ops"])
    port, proc = start_ui(tmp_path, db)
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}", db, {"tea": tea, "other": other}
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def start_ui(tmp_path: Path, db: Path, **env: str) -> tuple[int, subprocess.Popen[str]]:
    """`engram ui` on a free port, its own process, on the store `db`."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "engram.cli.main", "ui", "--port", str(port)],
        env={
            "ENGRAM_STORAGE_PATH": str(db),
            "ENGRAM_EMBEDDING_MODEL": "none",
            "ENGRAM_HTTP_TOKEN": TOKEN,
            "ENGRAM_SQLITE_BUSY_TIMEOUT": "2",  # a store held by another writer: 2 s, not 30
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "PATH": "/usr/bin:/bin",
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return port, proc


def test_sign_in_search_open_and_touch_in_a_browser(
    dashboard: tuple[str, Path, dict[str, Memory]], browser_page: tuple[Page, list[str]]
) -> None:
    base, db, m = dashboard
    page, requested = browser_page
    asked = f"{base}/ui/memory/{m['tea'].id}"
    page.goto(asked)
    assert page.url.startswith(f"{base}/ui/login")  # not signed in: the sign-in page
    page.fill("#token", "not the token")
    page.click("input[type=submit]")
    assert "not the token" in page.inner_text("#error")
    page.fill("#token", TOKEN)
    page.click("input[type=submit]")
    assert page.url == asked  # back to the page asked for (it went to search, audit)
    page.goto(f"{base}/ui/")

    page.fill("#q", "green tea")
    page.click("input[type=submit]")
    link = page.locator("#results a").first
    assert link.inner_text() == "Prefers green tea in the morning"
    assert "match:" in page.inner_text("#results")  # why it ranked
    saved = m["tea"].created_at.astimezone().date().isoformat()  # the server's calendar
    assert page.locator("#results td.saved").first.inner_text() == saved
    link.click()
    assert page.inner_text("#uses") == "0"
    assert page.locator("#curve polyline").get_attribute("points")  # the decay curve is drawn

    page.click("#action-touch")
    assert "Touch" in page.inner_text("h1")  # a confirmation first
    page.click("#confirm")
    assert page.inner_text("#done") == "Done: touch."
    assert page.inner_text("#uses") == "1"
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.get(m["tea"].id).use_count == 1  # through the same services

    page.goto(f"{base}/ui/?q=Atlas")
    assert "<b>not bold</b>" in page.inner_text("#results")  # text, not markup
    for path in ("review", "promotion", "gc", "stats"):
        page.goto(f"{base}/ui/{path}")
        assert page.locator("h1").count() == 1
    assert page.inner_text("#total") == "2"
    page.click("text=Graph")  # the graph view, served with the same token
    page.wait_for_function("document.body.dataset.rendered === '2 0'", timeout=30_000)
    assert page.locator("#graph canvas").count() == 1
    page.click("text=← dashboard")
    assert page.url == f"{base}/ui/"
    page.click("text=Graph")  # a double click on a memory opens its page (it led nowhere)
    page.wait_for_function("document.body.dataset.rendered === '2 0'", timeout=30_000)
    x, y = page.evaluate(
        """id => {
            const g = window.engramGraph, at = g.network.getPositions([id])[id];
            const dom = g.network.canvasToDOM(at);
            const box = document.getElementById("graph").getBoundingClientRect();
            return [box.left + dom.x, box.top + dom.y];
        }""",
        m["tea"].id,
    )
    page.mouse.dblclick(x, y)
    page.wait_for_url(f"{base}/ui/memory/{m['tea'].id}", timeout=10_000)
    assert page.inner_text("#uses") == "1"
    assert all(url.startswith(base + "/") for url in requested), requested  # nothing else


def test_without_the_token_nothing_changes(dashboard: tuple[str, Path, dict[str, Memory]]) -> None:
    base, db, m = dashboard
    target = f"{base}/ui/memory/{m['other'].id}/delete"
    assert httpx2.post(target, timeout=10).status_code == 401
    for path in (f"memory/{m['other'].id}", "graph"):
        page = httpx2.get(f"{base}/ui/{path}", timeout=10)
        assert page.status_code == 303
        assert page.headers["location"].startswith("/ui/login?next=")
    # A wrong token with a letter beyond ASCII is a wrong token, not a server error.
    wrong = httpx2.post(f"{base}/ui/login", data={"token": "sécret-é"}, timeout=10)
    assert wrong.status_code == 401 and "not the token" in wrong.text
    # Signed in, but the request comes from another site's page: refused too.
    signed_in = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10)
    cookies = signed_in.cookies
    name = cookie_of(base)
    assert name in cookies and TOKEN not in str(cookies.get(name))
    foreign = httpx2.post(
        target, cookies=cookies, headers={"Origin": "https://evil.example"}, timeout=10
    )
    assert foreign.status_code == 403
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.get(m["other"].id).content.startswith("Atlas")
    deleted = httpx2.post(target, cookies=cookies, timeout=10)
    assert deleted.status_code == 303
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.get_many([m["other"].id]) == []


def test_a_sign_in_sent_in_part_neither_holds_the_server_nor_logs_a_traceback(
    tmp_path: Path,
) -> None:
    """A client that sent part of a sign-in form and waited kept the server running after
    SIGTERM for as long as it waited (a minute, in a helper's probe: its stop waits for every
    request but a GET), and one that hung up logged a 49-line traceback. The form has
    LOGIN_READ_SECONDS to come; a client gone is answered quietly."""
    db = tmp_path / "ui.db"
    Engram.open(str(db), embedding_model="none").close()
    port, proc = start_ui(tmp_path, db)
    partial = (
        f"POST /ui/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken="
    ).encode()
    try:
        wait_listening(port, proc)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as gone:
            gone.sendall(partial)  # and hangs up
        with socket.create_connection(("127.0.0.1", port), timeout=30) as waiting:
            waiting.sendall(partial)
            time.sleep(0.5)  # the request is in progress
            proc.terminate()
            answer = waiting.recv(4096).decode("latin-1")  # within the read's 10 s
            assert answer.startswith("HTTP/1.1 408"), answer
            _, stderr = proc.communicate(timeout=30)  # it stops, its client still connected
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=15)
    assert "Traceback" not in stderr and "ClientDisconnect" not in stderr, stderr


def test_the_sign_in_form_reads_no_more_than_a_token(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """Anyone who can reach the port may post to the sign-in form: a 300 MB upload was spooled
    to disk, and 300 fields of 1 MB held in memory, before the token was even checked."""
    base = dashboard[0]
    upload = httpx2.post(
        f"{base}/ui/login", files={"token": ("t.txt", b"x" * 2_000_000)}, timeout=30
    )
    assert upload.status_code == 413 and "not a sign-in form" in upload.text
    fields = {f"f{i}": "y" * 1_000 for i in range(10)}
    assert httpx2.post(f"{base}/ui/login", data=fields, timeout=30).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: read until the limit, no further
        yield b"token="
        for _ in range(100):
            yield b"z" * 10_000

    streamed = httpx2.post(
        f"{base}/ui/login",
        content=chunks(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=30,
    )
    assert streamed.status_code == 413
    # A small body of another kind is not "too large" (it was 413): 415.
    as_json = httpx2.post(f"{base}/ui/login", json={"token": TOKEN}, timeout=10)
    assert as_json.status_code == 415 and "not a sign-in form" in as_json.text
    signed_in = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10)
    assert signed_in.status_code == 303  # a real sign-in still works
    for scheme in ("Bearer", "bearer"):  # the scheme in any case, as /mcp takes it
        headers = {"Authorization": f"{scheme} {TOKEN}"}
        assert httpx2.get(f"{base}/ui/graph", headers=headers, timeout=10).status_code == 200


def test_a_memory_that_is_not_there_is_not_found(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """An unknown id answered 400 (a bad request), and deleting it redirected to "deleted" as
    if something had been (a second tab, a stale link)."""
    base, _db, m = dashboard
    cookies = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10).cookies
    assert (
        httpx2.get(f"{base}/ui/memory/nonexistent", cookies=cookies, timeout=10).status_code == 404
    )
    target = f"{base}/ui/memory/{m['other'].id}/delete"
    # HEAD (`curl -I`, a no-cors fetch from another port) deleted it: it asks, as GET does
    foreign = {"Origin": "http://evil.example"}
    assert httpx2.head(target, cookies=cookies, headers=foreign, timeout=10).status_code == 200
    assert httpx2.get(f"{base}/ui/memory/{m['other'].id}", cookies=cookies).status_code == 200
    assert httpx2.post(target, cookies=cookies, timeout=10).status_code == 303
    again = httpx2.post(target, cookies=cookies, timeout=10)
    assert again.status_code == 404 and m["other"].id in again.text


def test_a_memory_used_in_the_year_9999_has_a_page(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """Its decay curve ran into the year 10000 (an import keeps a clock ahead's times): the
    page answered 500 while search and the graph showed the memory."""
    base, db, _m = dashboard
    far = FixedClock(datetime(9999, 12, 31, 12, tzinfo=UTC))
    with Engram.open(str(db), embedding_model="none", clock=far) as mem:
        ident = mem.save("A note from a clock far ahead").id
    cookies = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10).cookies
    page = httpx2.get(f"{base}/ui/memory/{ident}", cookies=cookies, timeout=10)
    assert page.status_code == 200 and "A note from a clock far ahead" in page.text
    assert "9999-12-31" in page.text


def test_a_store_that_cannot_answer_now_is_a_503_not_a_bad_request(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """A touch while another process held the store's write lock answered 400 (the client's
    fault); it is the server's state, and trying again later is the remedy."""
    base, db, m = dashboard
    cookies = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10).cookies
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        touch = f"{base}/ui/memory/{m['tea'].id}/touch"
        busy = httpx2.post(touch, cookies=cookies, timeout=30)
        assert busy.status_code == 503 and "busy" in busy.text
    finally:
        holder.close()
    assert httpx2.post(touch, cookies=cookies, timeout=30).status_code == 303


def test_pages_say_what_was_done_and_how_many_are_due(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """The gc page counted only the 100 it lists ("100 memories have faded" of 103 due), a
    delete said nothing, and any text in a link's `done` was shown as done."""
    base, db, m = dashboard
    long_ago = FixedClock(datetime.now(UTC) - timedelta(days=400))
    with Engram.open(str(db), clock=long_ago, embedding_model="none") as mem:
        mem.save_many([Draft(content=f"parking spot {i} on level 2") for i in range(103)])
    headers = {"Authorization": f"Bearer {TOKEN}"}
    gc = httpx2.get(f"{base}/ui/gc", headers=headers, timeout=30)
    assert "103 memories have faded below the forget threshold (the first 100 shown)" in gc.text
    target = f"{base}/ui/memory/{m['other'].id}/delete"
    deleted = httpx2.post(target, headers=headers, timeout=10, follow_redirects=True)
    assert f"Deleted {m['other'].id}." in deleted.text
    # Only what the dashboard did is said: a link named a memory that is there, any text, or
    # an id that is no memory ("Deleted Your_vault_was_wiped_call:555-0100."), and the page
    # said so; the redirect's signature is all that makes it say "Deleted".
    for spoof in (m["tea"].id, "anything at all", "Your_vault_was_wiped_call:555-0100"):
        page = httpx2.get(f"{base}/ui/?deleted={spoof}", headers=headers, timeout=10)
        assert page.status_code == 200 and "Deleted" not in page.text
    assert "Deleted" not in httpx2.get(deleted.url.copy_remove_param("flash"), headers=headers).text
    # lists that stop at their length say so (search said "20 results" of 103 matches)
    found = httpx2.get(f"{base}/ui/?q=parking", headers=headers, timeout=30).text
    assert "The 20 best matches for “parking” (there may be more" in found
    fading = FixedClock(datetime.now(UTC) - timedelta(days=9))  # in the danger zone now
    with Engram.open(str(db), clock=fading, embedding_model="none") as mem:
        mem.save_many([Draft(content=f"errand {i} for the weekend") for i in range(55)])
    review = httpx2.get(f"{base}/ui/review", headers=headers, timeout=30).text
    assert 'id="capped"' in review and "The first 50" in review
    # the command it names runs ("engram candidates" alone wants promote or review, probe)
    assert "<code>engram candidates review --limit 100</code> lists up to 100" in review
    memory = f"{base}/ui/memory/{m['tea'].id}"
    for link in ("deleted", "delete", "touch"):  # a use that was never made, a delete never done
        said = httpx2.get(f"{memory}?done={link}", headers=headers, timeout=10).text
        assert "Done:" not in said
    touched = httpx2.post(f"{memory}/touch", headers=headers, timeout=10, follow_redirects=True)
    assert "Done: touch." in touched.text


def test_no_page_may_frame_the_dashboard_nor_reach_it_by_another_name(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """A page on another port of 127.0.0.1 framed a delete confirmation under a button of its
    own (one click deleted), and a page whose name was rebound to 127.0.0.1 (DNS rebinding)
    signed in and changed memories through the dashboard, while /mcp refused it."""
    base, _db, m = dashboard
    headers = {"Authorization": f"Bearer {TOKEN}"}
    confirm = httpx2.get(f"{base}/ui/memory/{m['other'].id}/delete", headers=headers, timeout=10)
    assert confirm.status_code == 200
    assert confirm.headers["x-frame-options"] == "DENY"
    assert confirm.headers["content-security-policy"] == "frame-ancestors 'none'"
    port = base.rsplit(":", 1)[1]
    for name in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert httpx2.get(f"{base}/ui/stats", headers={**headers, "Host": name}).status_code == 200
    rebound = {"Host": f"rebind.example:{port}"}
    signed_in = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, headers=rebound, timeout=10)
    assert signed_in.status_code == 421 and "engram_ui" not in signed_in.headers.get(
        "set-cookie", ""
    )
    archived = httpx2.post(
        f"{base}/ui/memory/{m['tea'].id}/archive", headers={**headers, **rebound}, timeout=10
    )
    assert archived.status_code == 421
    with Engram.open(str(_db), embedding_model="none") as mem:
        assert mem.get(m["tea"].id).status.value == "active"


def test_a_sign_in_is_a_session_that_ends(dashboard: tuple[str, Path, dict[str, Memory]]) -> None:
    """The cookie was a fixed digest of the token: the same at every sign-in, valid forever
    (across restarts), with no way to sign out."""
    base, _db, _m = dashboard
    first = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10)
    second = httpx2.post(f"{base}/ui/login", data={"token": TOKEN}, timeout=10)
    name = cookie_of(base)
    one, two = first.cookies[name], second.cookies[name]
    assert one != two and TOKEN not in (one, two)
    assert "Max-Age=43200" in first.headers["set-cookie"]
    stats = f"{base}/ui/stats"
    assert httpx2.get(stats, cookies={name: one}, timeout=10).status_code == 200
    out = httpx2.post(f"{base}/ui/logout", cookies={name: one}, timeout=10)
    assert out.status_code == 303 and out.headers["location"].endswith("/ui/login")
    assert httpx2.get(stats, cookies={name: one}, timeout=10).status_code == 303
    assert httpx2.get(stats, cookies={name: two}, timeout=10).status_code == 200


def test_two_servers_on_one_machine_keep_their_own_sign_in(
    dashboard: tuple[str, Path, dict[str, Memory]], tmp_path: Path
) -> None:
    """Cookies know no ports: two Engram servers on 127.0.0.1 (`engram ui` and `engram serve
    --http`) set one cookie, so signing in to one signed the browser out of the other."""
    base = dashboard[0]
    port = free_port()
    other = serve(tmp_path / "other", port, ENGRAM_HTTP_TOKEN=TOKEN)
    try:
        wait_listening(port, other)
        with httpx2.Client(timeout=10) as browser:  # one cookie jar, as a browser keeps
            for server in (base, f"http://127.0.0.1:{port}"):
                assert browser.post(f"{server}/ui/login", data={"token": TOKEN}).status_code == 303
            assert browser.get(f"{base}/ui/stats").status_code == 200
            assert browser.get(f"http://127.0.0.1:{port}/ui/stats").status_code == 200
    finally:
        other.terminate()
        other.communicate(timeout=15)


def test_promoting_a_promoted_memory_says_nothing_was_done(tmp_path: Path) -> None:
    """A second promote said "Done: promote." of a memory promoted already (audit)."""
    db, vault = tmp_path / "ui.db", tmp_path / "vault"
    vault.mkdir()
    with Engram.open(str(db), embedding_model="none") as mem:
        kept = mem.save("Atlas runs on PostgreSQL 16")
    port, proc = start_ui(tmp_path, db, ENGRAM_VAULT_PATH=str(vault))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    promote = f"http://127.0.0.1:{port}/ui/memory/{kept.id}/promote"
    try:
        wait_listening(port, proc)
        first = httpx2.post(promote, headers=headers, timeout=30, follow_redirects=True)
        assert "Done: promote." in first.text and "Nothing to do" not in first.text
        again = httpx2.post(promote, headers=headers, timeout=30, follow_redirects=True)
        assert "Done:" not in again.text
        assert "Nothing to do: it is promoted already." in again.text
        # and no link can say so of a memory the dashboard did not touch
        spoof = httpx2.get(f"{promote.rsplit('/', 1)[0]}?done=unchanged", headers=headers)
        assert "Nothing to do" not in spoof.text
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_a_promoted_memory_page_says_it_lasts_and_its_delete_what_stays(tmp_path: Path) -> None:
    """Deleting a promoted memory asked "Delete for good?" and left its vault note unsaid; its
    page drew a decay curve on the chart's top edge for a memory that no longer fades; and one
    memory was "The 20 most durable memories", one match "1 results" (a helper's probe)."""
    db, vault = tmp_path / "ui.db", tmp_path / "vault"
    vault.mkdir()
    with Engram.open(str(db), embedding_model="none", vault_path=str(vault)) as mem:
        kept = mem.save("Atlas runs on PostgreSQL 16")
        mem.promote(kept.id)
        note = mem.get(kept.id).promoted_to
    assert note is not None
    port, proc = start_ui(tmp_path, db, ENGRAM_VAULT_PATH=str(vault))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    base = f"http://127.0.0.1:{port}/ui"
    try:
        wait_listening(port, proc)
        confirm = httpx2.get(f"{base}/memory/{kept.id}/delete", headers=headers, timeout=30)
        assert f"its note {note} stays in the vault" in confirm.text
        shown = httpx2.get(f"{base}/memory/{kept.id}", headers=headers, timeout=30).text
        assert 'id="lasting"' in shown and "<svg" not in shown
        assert "The 1 most durable memory" in httpx2.get(f"{base}/", headers=headers).text
        assert "1 result for" in httpx2.get(f"{base}/?q=atlas", headers=headers).text
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_a_memory_page_links_its_relations_and_archived_memories_can_be_searched(
    tmp_path: Path,
) -> None:
    """A helper's probe could follow no relation from a memory's page (what supersedes it,
    what a merge took in), reach no archived memory from any page, and found a 12,000-character
    memory set whole as the page's heading."""
    db = tmp_path / "ui.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        old = mem.save("Standup is at 9:30")
        news = mem.save("Standup moved to 10:15")
        mem.create_relation(news.id, old.id, "supersedes")
        gone = mem.save("The old office was on Baker Street")
        mem.archive([gone.id])
        long = mem.save("word " * 2_000)
        hub = mem.save("The Atlas project")
        for i in range(55):  # more than the page lists: it said nothing of the rest (a probe)
            mem.create_relation(mem.save(f"Atlas detail {i}").id, hub.id, "supports")
    port, proc = start_ui(tmp_path, db)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    base = f"http://127.0.0.1:{port}/ui"
    try:
        wait_listening(port, proc)
        shown = httpx2.get(f"{base}/memory/{old.id}", headers=headers, timeout=30).text
        assert f'href="/ui/memory/{news.id}"' in shown and "← supersedes" in shown
        searched = httpx2.get(f"{base}/?q=office", headers=headers, timeout=30).text
        assert gone.id not in searched
        searched = httpx2.get(f"{base}/?q=office&archived=1", headers=headers, timeout=30).text
        assert gone.id in searched and 'id="archived" checked' in searched
        page = httpx2.get(f"{base}/memory/{long.id}", headers=headers, timeout=30).text
        heading = page.split("<h1>", 1)[1].split("</h1>", 1)[0]
        assert len(heading) < 100
        assert 'id="more-related"' not in shown
        hub_page = httpx2.get(f"{base}/memory/{hub.id}", headers=headers, timeout=30).text
        assert hub_page.count("← supports") == 50
        assert f"The first 50 relations; <code>engram related {hub.id}</code>" in hub_page
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_no_promote_without_a_vault_and_a_wrong_page_is_a_page_of_the_dashboard(
    tmp_path: Path,
) -> None:
    """Promote was offered without a vault, and failed after its confirmation; a wrong address
    answered a bare "Not Found", a link to sign out a bare "Method Not Allowed" (a helper's
    probe)."""
    db = tmp_path / "ui.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        kept = mem.save("Atlas runs on PostgreSQL 16")
        gone = mem.save("The old office was on Baker Street")
        mem.archive([gone.id])
    port, proc = start_ui(tmp_path, db)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    base = f"http://127.0.0.1:{port}/ui"
    try:
        wait_listening(port, proc)
        shown = httpx2.get(f"{base}/memory/{kept.id}", headers=headers, timeout=30).text
        assert 'id="action-touch"' in shown and 'id="action-promote"' not in shown
        # nor asked for by its address: "Promote?" of it, or of an archived memory, then a
        # failure after the confirmation (a probe)
        for ident, why in ((kept.id, "no vault"), (gone.id, "it is archived")):
            asked = httpx2.get(f"{base}/memory/{ident}/promote", headers=headers, timeout=30)
            assert asked.status_code == 400
            assert f"Promote to the vault is not offered for this memory ({why})" in asked.text
        again = httpx2.get(f"{base}/memory/{gone.id}/archive", headers=headers, timeout=30)
        assert again.status_code == 400 and "(it is archived)" in again.text
        allowed = httpx2.get(f"{base}/memory/{gone.id}/unarchive", headers=headers, timeout=30)
        assert allowed.status_code == 200 and "Yes" in allowed.text
        wrong = httpx2.get(f"{base}/nope", headers=headers, timeout=30)
        assert (
            wrong.status_code == 404 and "No such page." in wrong.text and "<header>" in wrong.text
        )
        linked = httpx2.get(f"{base}/logout", headers=headers, timeout=30)
        assert linked.status_code == 405 and "from a button" in linked.text
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_a_proxy_on_this_machine_is_answered_by_the_names_it_forwards(tmp_path: Path) -> None:
    """Behind a TLS proxy on the same machine every page and action was refused: with the
    proxy's default Host, posts were "another site"; with the browser's Host, 421 (a helper's
    probe). ENGRAM_HTTP_ALLOWED_HOSTS names what the proxy forwards."""
    db = tmp_path / "ui.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        kept = mem.save("Atlas runs on PostgreSQL 16")
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    public = {**bearer, "Host": "engram.example.com"}
    port, proc = start_ui(tmp_path, db, ENGRAM_HTTP_ALLOWED_HOSTS="engram.example.com")
    try:
        wait_listening(port, proc)
        base = f"http://127.0.0.1:{port}/ui"
        assert httpx2.get(f"{base}/", headers=public, timeout=30).status_code == 200
        touch = f"{base}/memory/{kept.id}/touch"
        posted = {**public, "Origin": "https://engram.example.com"}
        assert httpx2.post(touch, headers=posted, timeout=30).status_code == 303
        other = {**bearer, "Host": "evil.example"}
        assert httpx2.get(f"{base}/", headers=other, timeout=30).status_code == 421
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    port, proc = start_ui(tmp_path, db)  # without the setting: loopback's names only
    try:
        wait_listening(port, proc)
        refused = httpx2.get(f"http://127.0.0.1:{port}/ui/", headers=public, timeout=30)
        assert refused.status_code == 421
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_a_store_that_cannot_be_opened_is_said_at_start_and_is_a_503(tmp_path: Path) -> None:
    """`engram ui` on a file that is not a SQLite store started in silence, and every page
    answered 400, as if each request were at fault (audit)."""
    db = tmp_path / "corrupt.db"
    db.write_bytes(b"this is not a database, " * 100)
    port, proc = start_ui(tmp_path, db)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        wait_listening(port, proc)
        page = httpx2.get(f"http://127.0.0.1:{port}/ui/stats", headers=headers, timeout=30)
        assert page.status_code == 503 and "corrupt.db" in page.text
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=15)
    assert "cannot open the store" in stderr and "corrupt.db" in stderr


def test_a_sign_in_goes_back_only_to_a_page_of_the_dashboard(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    base, _, _ = dashboard
    sent = httpx2.get(f"{base}/ui/stats?x=1", timeout=10)
    assert sent.status_code == 303
    assert sent.headers["location"] == "/ui/login?next=%2Fui%2Fstats%3Fx%3D1"
    for wanted, target in [
        ("/ui/stats?x=1", "/ui/stats?x=1"),
        ("//evil.example/ui/", "/ui/"),
        ("https://evil.example/ui/", "/ui/"),
        ("/ui/\\evil.example", "/ui/"),
        ("/elsewhere", "/ui/"),
        ("/ui/x\nSet-Cookie: a=b", "/ui/"),
        # out of the dashboard by its dots, written or escaped (it led to /mcp, probe)
        ("/ui/../mcp", "/ui/"),
        ("/ui/%2e%2e/mcp", "/ui/"),
        ("/ui/%2E%2E%2Fmcp", "/ui/"),
        ("/ui/./stats", "/ui/"),
        ("/ui/logout", "/ui/"),  # a page only a POST reaches: "Method Not Allowed"
        ("/ui/login?next=/ui/", "/ui/"),
    ]:
        signed = httpx2.post(f"{base}/ui/login", data={"token": TOKEN, "next": wanted}, timeout=10)
        assert (signed.status_code, signed.headers["location"]) == (303, target), wanted


def test_an_archived_memory_can_be_brought_back_and_nothing_done_says_so(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """Archiving twice said "Done: archive." of nothing done, an archived memory's page
    offered touch, promote (refused) and archive, and nothing brought it back (probe)."""
    base, db, m = dashboard
    headers = {"Authorization": f"Bearer {TOKEN}"}
    memory = f"{base}/ui/memory/{m['tea'].id}"
    archived = httpx2.post(f"{memory}/archive", headers=headers, follow_redirects=True)
    assert "Done: archive." in archived.text
    offered = {"touch", "promote", "archive", "unarchive", "delete"}
    assert {a for a in offered if f'id="action-{a}"' in archived.text} == {"unarchive", "delete"}
    again = httpx2.post(f"{memory}/archive", headers=headers, follow_redirects=True)
    assert "Done:" not in again.text and "Nothing to do: it is archived already." in again.text
    back = httpx2.post(f"{memory}/unarchive", headers=headers, follow_redirects=True)
    assert "Done: unarchive." in back.text
    # promote is offered only with a vault, which this dashboard has not
    assert {a for a in offered if f'id="action-{a}"' in back.text} == offered - {
        "unarchive",
        "promote",
    }
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.get(m["tea"].id).status.value == "active"
    same = httpx2.post(f"{memory}/unarchive", headers=headers, follow_redirects=True)
    assert "Done:" not in same.text and "Nothing to do: it is not archived." in same.text


def test_pages_are_private_and_a_signed_out_page_offers_no_menu(
    dashboard: tuple[str, Path, dict[str, Memory]],
) -> None:
    """Memory pages stayed in the browser's cache after signing out, and the sign-in page
    showed the menu and a "Sign out" that answered "Sign in first." (probe)."""
    base, _db, m = dashboard
    headers = {"Authorization": f"Bearer {TOKEN}"}
    for path in (f"/ui/memory/{m['tea'].id}", "/ui/", "/ui/graph", "/ui/stats"):
        page = httpx2.get(f"{base}{path}", headers=headers, timeout=30)
        assert page.headers["cache-control"] == "no-store", path
        assert page.headers["x-content-type-options"] == "nosniff", path
        assert page.headers["referrer-policy"] == "same-origin", path
    signed_out = httpx2.get(f"{base}/ui/login", timeout=10).text
    assert "Sign out" not in signed_out and "Review queue" not in signed_out
    signed_in = httpx2.get(f"{base}/ui/stats", headers=headers, timeout=10).text
    assert "Sign out" in signed_in and "Review queue" in signed_in


def test_long_words_wrap_line_breaks_stay_and_times_are_the_servers(
    tmp_path: Path, browser_page: tuple[Page, list[str]]
) -> None:
    """One 5,000-letter word made the memory page 116,209 px wide, a memory's line breaks
    were run into one line, and its times were UTC beside search's local days (probe)."""
    db = tmp_path / "ui.db"
    text = "A" * 5_000 + "\nsecond line\r\nthird line"
    with Engram.open(str(db), embedding_model="none") as mem:
        long = mem.save(text)
    port, proc = start_ui(tmp_path, db, TZ="Asia/Tokyo")
    page, _ = browser_page
    base = f"http://127.0.0.1:{port}"
    try:
        wait_listening(port, proc)
        page.goto(f"{base}/ui/login")
        page.fill("#token", TOKEN)
        page.click("input[type=submit]")
        for path in (f"/ui/memory/{long.id}", f"/ui/memory/{long.id}/delete", "/ui/?q=second"):
            page.goto(f"{base}{path}")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.evaluate("window.innerWidth"), path
        page.goto(f"{base}/ui/memory/{long.id}")
        assert page.inner_text("#content").split("\n")[1:] == ["second line", "third line"]
        tokyo = long.created_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%Y-%m-%d %H:%M")
        assert page.inner_text("#times").startswith(tokyo)
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_an_empty_store_says_so(tmp_path: Path) -> None:
    db = tmp_path / "ui.db"
    Engram.open(str(db), embedding_model="none").close()
    port, proc = start_ui(tmp_path, db)
    try:
        wait_listening(port, proc)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        page = httpx2.get(f"http://127.0.0.1:{port}/ui/", headers=headers, timeout=30).text
        assert "No memories yet" in page and "most durable" not in page
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_the_decay_chart_keeps_its_highest_point_inside_the_drawing() -> None:
    """A curve as high as the chart's top was drawn on its top edge, half clipped."""
    flat = [(0.0, 3.5), (86_400.0, 3.5)]
    chart = _chart(flat, 0.0, Policy(), UTC, width=100, height=100)
    ys = [float(p.split(",")[1]) for p in chart["points"].split()]
    assert all(5 < y < 100 for y in ys)
