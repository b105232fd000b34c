"""MCP over HTTP: a real `engram serve --http` process and a real MCP client over streamable
HTTP, with and without the bearer token."""

from __future__ import annotations

import json
import logging
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.adapters.test_mcp import initialize_request

from engram import Engram, FixedClock
from engram.config import Settings
from engram.errors import ConfigError
from engram.mcp.http import bound_socket, loopback_hosts, token_for, url_host
from engram.mcp.runtime import MAX_SESSIONS, EngramRuntime

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(home: Path, port: int, *options: str, **env: str) -> subprocess.Popen[str]:
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "engram.cli.main", "serve", "--http"),
            *("--port", str(port), *options),
        ],
        env={
            "ENGRAM_STORAGE_PATH": str(home / "engram.db"),
            "ENGRAM_EMBEDDING_MODEL": "none",
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "PATH": "/usr/bin:/bin",
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_listening(port: int, proc: subprocess.Popen[str], host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex((host, port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("server did not start listening")


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    proc = serve(tmp_path / "home", port, ENGRAM_HTTP_TOKEN=TOKEN)
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.terminate()
        proc.communicate(timeout=15)  # closes the pipe too


@pytest.mark.anyio
async def test_a_client_with_the_token_saves_and_searches(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, _ = http_server
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as client,
        streamable_http_client(url, http_client=client) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        saved = await session.call_tool("save_memory", {"content": "Atlas runs on PostgreSQL 16"})
        assert not saved.is_error
        found = await session.call_tool("search_memory", {"query": "postgresql"})
        assert not found.is_error and found.structured_content is not None
        assert found.structured_content["hits"][0]["content"] == "Atlas runs on PostgreSQL 16"


def test_without_the_right_token_nothing_is_reached(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, _ = http_server
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    wrong = (
        {},
        {"Authorization": "Bearer wrong-token-wrong-token"},
        {"Authorization": TOKEN},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer{TOKEN}"},
    )
    for headers in wrong:
        response = httpx2.post(url, json=ping, headers=headers, timeout=10)
        assert response.status_code == 401, headers
        assert "Authorization: Bearer" in response.json()["error"]
    # The scheme is case-insensitive (RFC 7235): any spelling of Bearer with the token is in.
    accept = {"Accept": "application/json, text/event-stream"}
    for scheme in ("bearer", "BEARER"):
        headers = {"Authorization": f"{scheme} {TOKEN}", **accept}
        response = httpx2.post(url, json=ping, headers=headers, timeout=10)
        assert response.status_code != 401, scheme


def test_a_token_is_generated_once_and_kept_private(tmp_path: Path) -> None:
    port = free_port()
    home = tmp_path / "home"
    proc = serve(home, port)
    try:
        wait_listening(port, proc)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    token_file = home / "config" / "engram" / "http-token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    token = token_file.read_text().strip()
    assert len(token) >= 32 and token not in err  # the log names the file, never the token
    assert str(token_file) in err and "Authorization: Bearer <token>" in err


def test_a_token_file_edited_by_hand_is_held_to_the_settings_rules(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file others could read was used as it was, and a three-letter token in it was
    accepted although ENGRAM_HTTP_TOKEN refuses anything under 16 characters."""
    token_file = tmp_path / "http-token"
    token_file.write_text("a" * 40 + "\n")
    token_file.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="engram"):
        assert token_for(Settings(), tmp_path) == ("a" * 40, str(token_file))
    assert token_file.stat().st_mode & 0o777 == 0o600 and "made owner-only" in caplog.text
    for weak in ("abc", "a" * 20 + " " + "b" * 20):
        token_file.write_text(weak)
        with pytest.raises(
            ConfigError, match="must be 16-512 characters of printable ASCII without spaces"
        ):
            token_for(Settings(), tmp_path)
    token_file.write_bytes(b"\xff\xfe" + b"a" * 30)  # not text: a UnicodeDecodeError traceback
    with pytest.raises(
        ConfigError, match="must be 16-512 characters of printable ASCII without spaces"
    ):
        token_for(Settings(), tmp_path)


def test_a_token_file_this_user_cannot_fix_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """It said "made owner-only" and then failed with a bare Errno; a link made chmod change
    the file it points to, wherever that is."""
    target = tmp_path / "elsewhere" / "token"
    target.parent.mkdir()
    target.write_text("a" * 40 + "\n")
    target.chmod(0o644)
    config = tmp_path / "config"
    config.mkdir()
    (config / "http-token").symlink_to(target)
    with pytest.raises(ConfigError, match=r"links to .*token, which other users can read"):
        token_for(Settings(), config)
    assert target.stat().st_mode & 0o777 == 0o644  # left as it was
    (config / "http-token").unlink()
    (config / "http-token").write_text("a" * 40 + "\n")
    (config / "http-token").chmod(0o644)

    def refused(*_args: object, **_kwargs: object) -> None:
        # Stands in for another user's file: the tests run as root, who may chmod anything.
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(Path, "chmod", refused)
    with (
        caplog.at_level(logging.WARNING, logger="engram"),
        pytest.raises(ConfigError, match="cannot make it private"),
    ):
        token_for(Settings(), config)
    assert "made owner-only" not in caplog.text


def test_an_ipv6_host_is_written_in_brackets_in_the_urls_shown() -> None:
    """ "http://::1:8765/mcp" is no URL a client can use."""
    assert url_host("::1") == "[::1]" and url_host("127.0.0.1") == "127.0.0.1"
    assert url_host("[::1]") == "[::1]" and url_host("localhost") == "localhost"


@pytest.mark.skipif(not socket.has_dualstack_ipv6(), reason="this machine has no dual-stack IPv6")
def test_listening_on_every_ipv6_address_takes_ipv4_clients_too() -> None:
    """`--host ::` listened on IPv6 alone: 127.0.0.1 and the LAN's IPv4 address were refused,
    under a log line saying other machines could reach it (a helper's probe)."""
    sock = bound_socket("::", 0)
    try:
        sock.listen()
        port = sock.getsockname()[1]
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        socket.create_connection(("::1", port), timeout=5).close()
    finally:
        sock.close()


def test_a_browser_at_the_servers_address_is_sent_to_the_dashboard(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    """It answered the MCP endpoint's 401 JSON (a helper's probe)."""
    url, _ = http_server
    root = url.rsplit("/mcp", 1)[0] + "/"
    answer = httpx2.get(root, timeout=10, follow_redirects=False)
    assert answer.status_code == 307 and answer.headers["location"] == "/ui/"


def test_a_foreign_host_header_is_refused_even_with_the_token(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 must not reach the server."""
    url, _ = http_server
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Authorization": f"Bearer {TOKEN}", "Host": "evil.example"}
    response = httpx2.post(url, json=ping, headers=headers, timeout=10)
    assert response.status_code in (400, 403, 421)


def test_loopback_written_another_way_keeps_the_host_checks(tmp_path: Path) -> None:
    """Loopback was recognised by its spelling: `--host 127.1` (or "[::1]", "LOCALHOST")
    switched the SDK's Host and Origin checks and the dashboard's off, and warned that other
    machines could reach the server."""
    port = free_port()
    proc = serve(tmp_path / "home", port, "--host", "127.1", ENGRAM_HTTP_TOKEN=TOKEN)
    try:
        wait_listening(port, proc)
        url = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        evil = {**auth, "Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        accept = {"Accept": "application/json, text/event-stream"}
        initialize = initialize_request("test")
        fine = httpx2.post(f"{url}/mcp", json=initialize, headers={**auth, **accept}, timeout=10)
        assert fine.status_code == 200
        refused = httpx2.post(f"{url}/mcp", json=initialize, headers={**evil, **accept}, timeout=10)
        assert refused.status_code == 421
        assert httpx2.get(f"{url}/ui/login", headers=evil, timeout=10).status_code == 421
        assert httpx2.get(f"{url}/ui/login", timeout=10).status_code == 200
        # a host name in any case is the same name: /mcp refused it with 421, /ui took it
        upper = {**auth, **accept, "Host": f"LOCALHOST:{port}"}
        assert httpx2.post(f"{url}/mcp", json=initialize, headers=upper, timeout=10).is_success
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=15)
    assert "other machines can reach" not in stderr


def test_a_server_on_another_loopback_address_answers_at_the_url_it_announces(
    tmp_path: Path,
) -> None:
    """`--host 127.0.0.2` announced http://127.0.0.2:PORT/mcp and answered every request there
    with 421 (only 127.0.0.1, localhost and [::1] were allowed); a foreign Host still is."""
    port = free_port()
    proc = serve(tmp_path / "home", port, "--host", "127.0.0.2", ENGRAM_HTTP_TOKEN=TOKEN)
    try:
        wait_listening(port, proc, "127.0.0.2")
        url = f"http://127.0.0.2:{port}"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        accept = {"Accept": "application/json, text/event-stream"}
        initialize = initialize_request("test")
        fine = httpx2.post(f"{url}/mcp", json=initialize, headers={**auth, **accept}, timeout=10)
        assert fine.status_code == 200
        assert httpx2.get(f"{url}/ui/login", timeout=10).status_code == 200
        evil = {**auth, "Host": f"evil.example:{port}"}
        assert httpx2.get(f"{url}/ui/login", headers=evil, timeout=10).status_code == 421
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=15)
    assert f"http://127.0.0.2:{port}/mcp" in stderr
    # where it listens, as a plain line: logged as a WARNING, a normal start read as a problem
    started = next(line for line in stderr.splitlines() if "/mcp" in line)
    assert started.startswith("Engram MCP over HTTP on") and "WARNING" not in started


class BoundTo:
    """Stands in for a listening socket where a real one cannot be had: binding port 80 needs
    root. `loopback_hosts` reads only its address."""

    def __init__(self, *address: object) -> None:
        self.address = address

    def getsockname(self) -> tuple[object, ...]:
        return self.address


def test_the_host_names_a_loopback_server_answers_to() -> None:
    """A browser leaves port 80 out of the Host header: a dashboard there refused them all."""
    assert loopback_hosts(BoundTo("127.0.0.1", 8766)) == {
        "127.0.0.1:8766",
        "localhost:8766",
        "[::1]:8766",
    }
    on_80 = loopback_hosts(BoundTo("::1", 80, 0, 0))
    assert on_80 is not None and {"127.0.0.1", "localhost", "[::1]", "[::1]:80"} <= on_80
    # All of 127/8 is loopback; the address bound and the name the operator gave are answered
    # too (127.0.1.1 is the machine's own name on Debian: the URL announced refused all).
    assert {"127.0.0.2:9000", "localhost:9000"} <= (
        loopback_hosts(BoundTo("127.0.0.2", 9000)) or set()
    )
    assert "vm:9000" in (loopback_hosts(BoundTo("127.0.1.1", 9000), "VM") or set())
    assert loopback_hosts(BoundTo("192.168.1.5", 80)) is None  # the operator's to name


def test_servers_started_together_agree_on_the_first_token(tmp_path: Path) -> None:
    """`engram serve --http` and `engram ui` started at once, no token file yet: each used to
    write a token of its own, and the first kept one nobody could see."""
    barrier = threading.Barrier(8)
    tokens: list[str] = []

    def start() -> None:
        barrier.wait()
        tokens.append(token_for(Settings(), tmp_path)[0])

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(tokens) == {(tmp_path / "http-token").read_text().strip()}
    assert [p.name for p in tmp_path.iterdir()] == ["http-token"]  # no temporary file left


def test_token_show_and_rotate(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    engram = [sys.executable, "-m", "engram.cli.main", "token"]
    first = subprocess.run([*engram, "show"], env=env, capture_output=True, text=True, check=True)
    again = subprocess.run([*engram, "show"], env=env, capture_output=True, text=True, check=True)
    assert first.stdout == again.stdout and len(first.stdout.strip()) >= 32
    assert "http-token" in first.stderr
    subprocess.run([*engram, "rotate"], env=env, capture_output=True, check=True)
    rotated = subprocess.run([*engram, "show"], env=env, capture_output=True, text=True, check=True)
    assert rotated.stdout != first.stdout
    token_file = tmp_path / "config" / "engram" / "http-token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    # --json: one JSON document on stdout, like every other command.
    as_json = [sys.executable, "-m", "engram.cli.main", "--json", "token"]
    shown = subprocess.run([*as_json, "show"], env=env, capture_output=True, text=True, check=True)
    assert json.loads(shown.stdout) == {"token": rotated.stdout.strip(), "source": str(token_file)}
    again = subprocess.run(
        [*as_json, "rotate"], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(again.stdout) == {"path": str(token_file)}
    assert token_file.read_text().strip() != rotated.stdout.strip()
    refused = subprocess.run(
        [*engram, "rotate"],
        env={**env, "ENGRAM_HTTP_TOKEN": "a-token-given-by-setting"},
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "ENGRAM_HTTP_TOKEN is set" in refused.stderr


def test_a_token_path_taken_by_a_folder_is_a_clear_error_leaving_no_copy(tmp_path: Path) -> None:
    """`rotate` left its temporary file, holding a valid token, beside the folder and said
    "[Errno 21] Is a directory"; `show` said the same."""
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    folder = tmp_path / "config" / "engram" / "http-token"
    folder.mkdir(parents=True)
    engram = [sys.executable, "-m", "engram.cli.main", "token"]
    for command in ("rotate", "show"):
        run = subprocess.run([*engram, command], env=env, capture_output=True, text=True)
        assert run.returncode != 0, command
        assert f"the HTTP token file {folder} is a folder" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr
    assert [p.name for p in folder.parent.iterdir()] == ["http-token"]


def test_the_dashboard_sits_beside_mcp_with_its_own_sign_in(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    """Under `serve --http` the dashboard is at /ui: a browser without the cookie is sent to
    its sign-in page (not a JSON 401), while /mcp still wants the bearer token."""
    url, _ = http_server
    base = url.removesuffix("/mcp")
    page = httpx2.get(f"{base}/ui/", timeout=10)
    assert page.status_code == 303
    assert page.headers["location"].endswith("/ui/login?next=%2Fui%2F")
    assert httpx2.get(f"{base}/ui/login", timeout=10).status_code == 200
    headers = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx2.get(f"{base}/ui/stats", headers=headers, timeout=10).status_code == 200
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert httpx2.post(url, json=ping, timeout=10).status_code == 401


def test_the_sdks_records_are_plain_lines_not_rich_renderings() -> None:
    """The SDK gave the root logger a rich handler: each record of a client that dropped
    mid-request, a boxed 43-line traceback, was rendered on the event loop (100-170 ms each;
    a hundred such clients stalled the server for 17 s). Records are plain lines now."""
    script = (
        "import logging\n"
        "from engram.mcp.server import build_server\n"
        "build_server()\n"
        "try:\n"
        "    raise OSError('client went away')\n"
        "except OSError:\n"
        "    logging.getLogger('mcp.server.streamable_http').exception('stream ended')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "ERROR mcp.server.streamable_http: stream ended" in done.stderr
    assert "OSError: client went away" in done.stderr and "╭" not in done.stderr


@pytest.mark.anyio
async def test_each_client_session_is_its_own_episode_and_sessionless_ones_share_none(
    http_server: tuple[str, subprocess.Popen[str]],
) -> None:
    """Clients of the protocol without sessions (2026-07-28, the SDK's default) all fell under
    one key and shared one episode for the server's life, each credited with the others'
    memories. A session keeps its episode; a request without one belongs to none."""
    url, _ = http_server
    headers = {"Authorization": f"Bearer {TOKEN}"}

    async def saved_episodes(*contents: str) -> list[object]:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            out = []
            for content in contents:
                result = await session.call_tool("save_memory", {"content": content})
                assert not result.is_error and result.structured_content is not None
                out.append(result.structured_content["memory"]["episode"])
            return out

    first = await saved_episodes("plan the kayak trip", "which weekend works")
    second = await saved_episodes("another conversation")
    assert first[0] is not None and first[0] == first[1] != second[0]

    async def sessionless(content: str) -> object:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as client,
            Client(streamable_http_client(url, http_client=client)) as c,
        ):
            result = await c.call_tool("save_memory", {"content": content})
            assert not result.is_error and result.structured_content is not None
            return result.structured_content["memory"]["episode"]

    assert [await sessionless("one client"), await sessionless("another client")] == [None, None]


def test_the_episodes_of_ended_sessions_do_not_pile_up() -> None:
    runtime = EngramRuntime(None)
    first = runtime.episode_for("session-0")
    for i in range(1, MAX_SESSIONS + 5):
        runtime.episode_for(f"session-{i}")
    assert len(runtime._episodes) == MAX_SESSIONS
    assert runtime.episode_for("session-0") != first  # the oldest went
    assert runtime.episode_for(f"session-{MAX_SESSIONS + 4}") == runtime.episode_for(
        f"session-{MAX_SESSIONS + 4}"
    )


def test_a_session_quiet_for_half_an_hour_starts_a_new_episode() -> None:
    """A desktop client keeps one stdio server across conversations: saves close together are
    one episode, a save after EPISODE_GAP without one starts another (each session its own)."""
    clock = FixedClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    runtime = EngramRuntime(None, clock)
    morning = runtime.episode_for(None)
    clock.advance(minutes=20)
    assert runtime.episode_for(None) == morning
    clock.advance(minutes=25)  # 45 minutes after the first save, 25 after the last
    assert runtime.episode_for(None) == morning
    other = runtime.episode_for("another session")
    clock.advance(minutes=31)
    afternoon = runtime.episode_for(None)
    assert len({morning, afternoon, other}) == 3
    assert runtime.episode_for(None) == afternoon


@pytest.mark.parametrize("command", [["serve", "--http"], ["ui"]])
def test_a_port_in_use_is_named_and_no_server_is_announced(
    tmp_path: Path, command: list[str]
) -> None:
    """The address is bound before the server says where it listens: a port held by another
    program was announced as Engram's, then the web server's bind error followed."""
    with Engram.open(str(tmp_path / "engram.db"), embedding_model="none") as mem:
        mem.save("a store to serve")  # `ui` opens no store that is not there
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "engram.cli.main", *command, "--port", str(port)],
            env={
                "ENGRAM_STORAGE_PATH": str(tmp_path / "engram.db"),
                "ENGRAM_EMBEDDING_MODEL": "none",
                "ENGRAM_HTTP_TOKEN": TOKEN,
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "PATH": "/usr/bin:/bin",
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"--port {port}: cannot listen on 127.0.0.1:{port} (another program uses it)" in (
        done.stderr
    )
    assert "http://" not in done.stderr  # no URL announced for a server that never ran


def test_a_host_that_is_not_this_machines_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--host nosuch\.invalid: not an address"):
        bound_socket("nosuch.invalid", free_port())
    with pytest.raises(ConfigError, match=r"--host 192\.0\.2\.1: not an address of this"):
        bound_socket("192.0.2.1", free_port())  # TEST-NET-1: never a local address
    with bound_socket("::1", 0) as six:  # the IPv6 loopback, in or out of brackets
        assert six.family == socket.AF_INET6
    with bound_socket("[::1]", 0) as six:
        assert six.getsockname()[0] == "::1"


@pytest.mark.anyio
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
async def test_a_call_in_progress_when_the_server_is_stopped_is_answered(
    tmp_path: Path, stop: str
) -> None:
    """Stopped (Ctrl-C, SIGTERM) while a save waited for a store another process held, the
    server stored the memory and ended the call's stream unanswered: the client was told the
    save failed (audit). It now answers what it took, then stops. The save waits because
    another connection holds the store's write lock for a second."""
    port = free_port()
    home = tmp_path / "home"
    proc = serve(home, port, ENGRAM_HTTP_TOKEN=TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    holder = sqlite3.connect(home / "engram.db", isolation_level=None, check_same_thread=False)
    release = threading.Timer(1.0, holder.execute, ["ROLLBACK"])
    try:
        wait_listening(port, proc)
        answers: list[Any] = []
        try:
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as client,
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (
                    read,
                    write,
                    *_,
                ),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                # As clients do at start: the SDK's client reads a result against the tool's
                # schema, and would ask for the list after the server stopped listening.
                await session.list_tools()
                holder.execute("BEGIN IMMEDIATE")
                release.start()
                async with anyio.create_task_group() as tasks:

                    async def save() -> None:
                        answers.append(await session.call_tool("save_memory", {"content": "kept"}))

                    tasks.start_soon(save)
                    await anyio.sleep(0.3)  # the call is in progress, waiting for the store
                    proc.send_signal(getattr(signal, stop))
        except* httpx2.ConnectError:
            pass  # the client's stream to a server that has stopped, as asked, on leaving
        (answer,) = answers
        assert not answer.is_error and answer.structured_content is not None
        assert answer.structured_content["memory"]["content"] == "kept"
        assert proc.wait(timeout=30) is not None  # and then it stops
    finally:
        if release.is_alive():
            release.join()
        holder.close()
        proc.kill()
        proc.communicate(timeout=15)
    with Engram.open(str(home / "engram.db"), embedding_model="none") as mem:
        assert [m.content for m in mem.read_graph().memories] == ["kept"]
