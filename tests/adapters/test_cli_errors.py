"""The command line's errors and output at the edges: options named as typed, ids shown whole
enough to pass back, output that cannot be written, file names that are not UTF-8."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.adapters.test_cli import ok, run, run_json, save
from tests.support import signal_another_thread, through_a_fifo

from engram import Draft, Engram, FixedClock


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def error_of(store: Path | None, *args: str) -> str:
    result = run(store, *args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return result.stderr


def test_errors_name_the_options_typed_not_the_services_parameters(store: Path) -> None:
    """`--type bogus` was reported as `relation_type: …`, `--threshold 1.5` of `consolidate
    clusters` as `similarity_threshold: …`: names the command line does not have."""
    a, b = save(store, "Atlas runs on PostgreSQL 16"), save(store, "Atlas ships in May")
    assert "--type" in error_of(store, "relate", a, b, "--type", "bogus")
    assert "TO_ID" in error_of(store, "relate", a, a)
    assert "--type" in error_of(store, "related", a, "--type", "bogus")
    assert "--threshold" in error_of(store, "consolidate", "clusters", "--threshold", "1.5")
    html = str(store.parent / "g.html")
    assert "--max-memories" in error_of(store, "graph", "--html", html, "--max-memories", "0")
    for message in (
        error_of(store, "relate", a, b, "--type", "bogus"),
        error_of(store, "consolidate", "clusters", "--threshold", "1.5"),
    ):
        assert "relation_type" not in message and "similarity_threshold" not in message


def test_search_errors_name_its_options(store: Path) -> None:
    """`--window-days -1` was reported as `window_days: …`."""
    save(store, "Atlas runs on PostgreSQL 16")
    assert error_of(store, "search", "atlas", "--window-days", "-1").startswith(
        "Error: --window-days"
    )
    assert error_of(store, "search", "atlas", "--min-score", "-1").startswith("Error: --min-score")
    # the length as well as the limit, as for content (it said only "exceeds 1000": a probe)
    assert error_of(store, "search", "word " * 300).startswith(
        "Error: QUERY: is 1,500 characters; the limit is 1,000"
    )


@pytest.mark.parametrize(
    "command", [["gc"], ["candidates", "promote"], ["candidates", "review"], ["search", "atlas"]]
)
def test_a_limit_out_of_range_names_the_limit_option(store: Path, command: list[str]) -> None:
    """`gc --limit 0` and `candidates --limit 0` said `limit: …`, as `search` no longer did."""
    save(store, "Atlas runs on PostgreSQL 16")
    message = error_of(store, *command, "--limit", "0")
    assert message.startswith("Error: --limit: must be an integer from 1 to"), message


def test_the_graph_drawing_is_never_written_over_the_store(store: Path) -> None:
    """`graph --html engram.db` replaced the store with the drawing of it (the export has
    refused that since long)."""
    save(store, "Atlas runs on PostgreSQL 16")
    message = error_of(store, "graph", "--html", str(store))
    assert "--html" in message and "store" in message
    with Engram.open(str(store)) as mem:
        assert mem.stats().total == 1


def test_the_graph_drawing_into_a_pipe_is_written_through_it(store: Path, tmp_path: Path) -> None:
    """`graph --html FIFO` (or a device: /dev/null as root) replaced it with a plain file, as
    the export's atomic rename once did."""
    save(store, "Atlas runs on PostgreSQL 16")
    fifo = tmp_path / "drawing"
    drawn = through_a_fifo(fifo, lambda: ok(run(store, "graph", "--html", str(fifo))))
    assert "<html" in drawn.lower() and "PostgreSQL 16" in drawn


def test_undo_refused_for_a_deleted_original_names_the_force_option(store: Path) -> None:
    copies = {"ENGRAM_SAVE_DUPLICATES": "keep"}
    first = json.loads(ok(run(store, "--json", "save", "Prefers oolong tea", **copies)).stdout)
    ok(run(store, "save", "prefers oolong tea!", **copies))
    (cluster,) = run_json(store, "consolidate", "clusters")["clusters"]
    applied = run_json(store, "consolidate", "run", "--apply", "--cluster", cluster["id"])
    merged = applied["merged"][0]["merged"]["id"]
    ok(run(store, "delete", first["id"]))
    message = error_of(store, "consolidate", "undo", merged)
    assert "--force" in message and "merged_id" not in message


def test_the_audit_table_shows_ids_that_can_be_passed_back(store: Path) -> None:
    """Ids were cut to eight characters: "project-alpha-1" and "project-alpha-2" were both
    shown as "project-", which names neither."""
    now = datetime.now(UTC)
    nine_days = now - timedelta(days=9)  # inside the danger zone
    with Engram.open(str(store), clock=FixedClock(now)) as mem:
        mem.save_many(
            [
                Draft(f"Project alpha step {i}", id=f"project-alpha-{i}", created_at=nine_days)
                for i in (1, 2)
            ]
        )
    ok(run(store, "consolidate", "pipeline", "--agent", "DecayAnalyzer"))
    table = ok(run(store, "consolidate", "audit")).stdout
    assert "project-alpha-1" in table and "project-alpha-2" in table


def engram(*args: str | bytes, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    command: list[str | bytes] = [sys.executable, "-m", "engram.cli.main", *args]
    env = {**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"}
    return subprocess.run(command, env=env, capture_output=True, timeout=120, **kwargs)  # type: ignore[call-overload, no-any-return]


def test_with_stdout_closed_a_command_fails_before_doing_anything(store: Path) -> None:
    """Tables ended in a traceback and `--json` results were dropped with exit 0, after the
    command had done its work (a relation created, its id lost)."""
    a, b = save(store, "Atlas runs on PostgreSQL 16"), save(store, "Atlas ships in May")
    for args in (["stats"], ["--json", "relate", a, b]):
        shell = ["sh", "-c", '"$0" -m engram.cli.main "$@" >&-', sys.executable]
        closed = subprocess.run(
            [*shell, "--store", str(store), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert closed.returncode == 1, closed.stderr
        assert "Traceback" not in closed.stderr and "standard output is closed" in closed.stderr
    assert run_json(store, "related", a)["count"] == 0  # nothing was done


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="a full device is Linux's /dev/full")
@pytest.mark.parametrize("as_json", [True, False])
def test_output_that_cannot_be_written_says_where_it_went(store: Path, as_json: bool) -> None:
    """`engram --json stats > /dev/full` said only "[Errno 28] No space left on device"."""
    save(store, "Atlas runs on PostgreSQL 16")
    command = [sys.executable, "-m", "engram.cli.main", "--store", str(store), "stats"]
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            command + (["--json"] if as_json else []),
            stdout=full,
            stderr=subprocess.PIPE,
            env={**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"},
            timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr.decode().strip() == (
        "Error: cannot write the result to standard output: No space left on device"
    )


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names not UTF-8")
def test_json_output_stays_utf8_with_a_file_name_that_is_not(store: Path) -> None:
    """The name's undecodable byte was written raw into the JSON: no parser could read it."""
    save(store, "Atlas runs on PostgreSQL 16")
    folder = os.fsencode(store.parent) + b"/odd\xff"
    os.mkdir(folder)
    done = engram("--json", "--store", str(store), "graph", "--html", folder + b"/g.html")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout.decode("utf-8"))
    assert os.fsencode(written["path"]) == folder + b"/g.html"


def test_gc_dry_run_says_what_auto_promotion_would_do(store: Path, tmp_path: Path) -> None:
    """It said "Promoted 1 memory to the vault first" and promoted nothing."""
    now = datetime.now(UTC)
    with Engram.open(str(store), clock=FixedClock(now)) as mem:
        busy = mem.save("Used all the time")
        for _ in range(5):
            mem.touch(busy.id)
        long_ago = now - timedelta(days=200)
        mem.save("Forgotten trivia", created_at=long_ago, last_used=long_ago)
    vault = tmp_path / "vault"
    vault.mkdir()
    env = {"ENGRAM_VAULT_PATH": str(vault), "ENGRAM_AUTO_PROMOTE": "true"}
    dry = ok(run(store, "gc", **env)).stdout
    assert "Would promote 1 memory to the vault first" in dry and "Promoted" not in dry
    assert list(vault.rglob("*.md")) == []


@pytest.mark.parametrize("command", [["save", "-"], ["import", "jsonl", "-"]])
def test_reading_a_closed_stdin_is_one_error_line(store: Path, command: list[str]) -> None:
    """`engram save - <&-` ended in an AttributeError traceback, and `import jsonl -` still
    did (a helper's probe)."""
    shell = ["sh", "-c", '"$0" -m engram.cli.main "$@" <&-', sys.executable]
    done = subprocess.run(
        [*shell, "--store", str(store), *command], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert ": standard input is closed: nothing to read for -" in done.stderr
    assert not store.exists()  # refused before the store was opened, so not created


def test_save_reads_no_more_of_stdin_than_a_content_can_take(store: Path) -> None:
    """`engram save - < /dev/zero` read until the machine ran out of memory (a probe): reading
    stops one byte past what 50,000 characters can take, and says so. A stream that never
    ends stands for the largest input."""
    with subprocess.Popen(
        [sys.executable, "-m", "engram.cli.main", "--store", str(store), "save", "-"],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    ) as child:
        assert child.stdin is not None and child.stderr is not None
        written = 0
        with contextlib.suppress(BrokenPipeError):
            while child.poll() is None and written < 10_000_000:
                child.stdin.write(b"a" * 65_536)
                written += 65_536
        child.stdin.close()
        error = child.stderr.read().decode()
        assert child.wait(timeout=120) == 1
    assert "standard input holds more than 200,012 bytes; the limit is 50,000 characters" in error
    assert written < 10_000_000  # it stopped reading: the pipe broke well before the end


def test_save_reads_stdin_in_the_encoding_its_byte_order_mark_names(store: Path) -> None:
    """PowerShell 5.1 pipes UTF-16: `engram save -` read it as UTF-8 and refused it for "NUL
    characters". Text that starts with a byte order mark is read in its encoding."""

    def save_bytes(data: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "engram.cli.main", "--store", str(store), "--json", "save", "-"],
            input=data,
            capture_output=True,
            timeout=120,
            env={**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"},
        )

    for codec in ("utf-16", "utf-32", "utf-8-sig"):
        done = save_bytes(f"Café order for {codec}\r\n".encode(codec))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["content"] == f"Café order for {codec}"
    torn = save_bytes(b"\xff\xfeh")  # a mark, then half a character
    assert torn.returncode == 1 and b"Traceback" not in torn.stderr
    assert b"CONTENT: standard input starts as UTF-16 text but is not" in torn.stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["   "], "Error: CONTENT: must be non-blank text"),
        (["x", "--strength", "5"], "Error: --strength: must be between"),
        (["x", "--tag", " "], "Error: --tag: entries must be non-blank"),
        (["x", "--episode", "e" * 2000], "Error: --episode: is 2,000 characters; the limit is 200"),
    ],
)
def test_a_refused_save_leaves_no_new_store_behind(
    tmp_path: Path, args: list[str], named: str
) -> None:
    """Opening the store came first: a blank save created the folders and an empty store,
    and a save refused for its strength or tags still did (audit): the next search then
    answered "No memories found." from a store nobody meant to make."""
    target = tmp_path / "new" / "deep" / "x.db"
    assert error_of(target, "save", *args).startswith(named)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["touch", "bad id"], "Error: MEMORY_ID:"),
        (["update", "bad id", "--tag", "x"], "Error: MEMORY_ID:"),
        (["observe", "bad id", "--context-tag", "x"], "Error: IDS:"),
        (["open", "bad id!"], "Error: IDS:"),
        (["delete", "bad id!"], "Error: IDS:"),
        (["graph", "--limit", "0"], "Error: --limit:"),
        (["graph", "--cursor", "a b"], "Error: --cursor:"),
        (["search", "x", "--all", "--limit", "0"], "Error: --limit:"),
        (["search", "x", "--all", "--tag", " "], "Error: --tag:"),
    ],
)
def test_errors_of_every_command_name_its_own_options(
    store: Path, args: list[str], named: str
) -> None:
    """These said `memory_id:`, `limit:`, `cursor:` or `tags:`, the Python API's names,
    where their sibling commands already named the option typed (audit)."""
    save(store, "Atlas runs on PostgreSQL 16")
    assert error_of(store, *args).startswith(named)


def test_columns_zero_does_not_blank_the_output(store: Path) -> None:
    """rich took COLUMNS=0 as it was: nothing printed, a save's id never shown."""
    saved = ok(run(store, "save", "Atlas runs on PostgreSQL 16", COLUMNS="0"))
    assert saved.stdout.startswith("Saved ")


def test_a_reader_that_stops_early_ends_a_large_json_answer_with_1(store: Path) -> None:
    """One large write to a pipe whose reader quit stopped at 64 KiB without an error: the
    command exited 0 with its answer cut, which `set -o pipefail` could not hear."""
    with Engram.open(str(store), embedding_model="none") as mem:
        mem.save_many([Draft(f"Atlas note {i}: " + "details " * 300) for i in range(100)])
    script = 'set -o pipefail; "$0" -m engram.cli.main "$@" | head -1 >/dev/null; echo "rc=$?"'
    shell = ["bash", "-c", script]
    piped = subprocess.run(
        [
            *shell,
            sys.executable,
            "--store",
            str(store),
            "--json",
            "search",
            "atlas",
            "--limit",
            "100",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"},
    )
    assert "Traceback" not in piped.stderr
    assert piped.stdout.strip() == "rc=1", piped.stderr


def test_an_export_given_as_the_store_is_not_called_damaged(store: Path, tmp_path: Path) -> None:
    """`--store export.jsonl` said the store was damaged and to restore it from a backup: the
    file was that backup."""
    save(store, "Atlas ships in May")
    export = tmp_path / "export.jsonl"
    ok(run(store, "export", "--out", str(export)))
    before = export.read_bytes()
    message = error_of(export, "stats")
    assert "is not a SQLite store" in message and "engram import jsonl" in message
    assert "damaged" not in message and export.read_bytes() == before


def test_options_of_the_other_graph_mode_are_refused(store: Path) -> None:
    """A bogus --cursor with --html, or --max-memories without it, was ignored without a word."""
    save(store, "Atlas ships in May")
    for args in (
        ("graph", "--html", str(store.parent / "g.html"), "--cursor", "bogus"),
        ("graph", "--max-memories", "0"),
    ):
        result = run(store, *args)
        assert result.exit_code == 2 and "Traceback" not in result.output, args
    assert not (store.parent / "g.html").exists()


SLOW_EXPORT = """
import sys, time
from pathlib import Path
from engram.cli.main import main
from engram.services.transfer.service import TransferService

export_lines = TransferService.export_lines
started = Path(sys.argv[1])


def slow(self, *args, **kwargs):
    for line in export_lines(self, *args, **kwargs):
        yield line
        started.touch()  # the export file is being written
        for _ in range(600):  # in steps: a signal that came before one long sleep waited it out
            time.sleep(0.1)


TransferService.export_lines = slow
sys.argv = ["engram", *sys.argv[2:]]
main()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM cannot be sent to a child there")
def test_sigterm_stops_an_export_through_its_clean_up(store: Path, tmp_path: Path) -> None:
    """Killed by SIGTERM (`timeout`, a service manager), the process died on the spot and left
    its temporary file beside the export. The export is slowed down here by the script above
    (a long one cannot be killed at a chosen moment otherwise); the signal is real."""
    save(store, "Atlas runs on PostgreSQL 16")
    started, out = tmp_path / "started", tmp_path / "out" / "export.jsonl"
    out.parent.mkdir()
    env = {**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"}
    args = [str(started), "--store", str(store), "export", "--out", str(out)]
    with subprocess.Popen(  # closed and waited for, even when the test fails
        [sys.executable, "-c", SLOW_EXPORT, *args], env=env, stderr=subprocess.PIPE
    ) as child:
        try:
            deadline = time.monotonic() + 60
            while not started.exists() and child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert started.exists() and list(out.parent.iterdir()) != []  # a temporary file
            child.send_signal(signal.SIGTERM)
            _, stderr = child.communicate(timeout=60)
        finally:
            child.kill()
    assert child.returncode == 128 + signal.SIGTERM, stderr
    assert list(out.parent.iterdir()) == []  # no export, and no temporary file left
    assert b"Traceback" not in stderr


# Ctrl-C as a terminal's foreground job receives it. A job a script starts in the background
# (`cmd &` without job control: how a CI step may run this suite) inherits SIGINT ignored, and
# Python, like the command line, leaves it so: the tests below then failed on a Ctrl-C that
# never came through.
AS_IN_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"

SLOW_START = (
    AS_IN_A_TERMINAL
    + """
import builtins, sys, time
from pathlib import Path

loading = Path(sys.argv[1])
real_import = builtins.__import__


def slow_import(name, *args, **kwargs):
    if name == "engram.cli.main":
        loading.touch()  # the command line is being loaded
        for _ in range(600):  # in steps: a signal that came before one long sleep waited it out
            time.sleep(0.1)
    return real_import(name, *args, **kwargs)


builtins.__import__ = slow_import
from engram.cli.entry import main

sys.argv = ["engram", "stats"]
main()
"""
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT cannot be sent to a child there")
def test_ctrl_c_while_the_command_line_loads_aborts_without_a_traceback(tmp_path: Path) -> None:
    """A Ctrl-C in the first second of any command (while click, rich and the rest loaded)
    ended in a traceback and exit code 130, where the docs promise `Aborted!` and 1 (probe).
    The load is slowed down by the script above, to be interrupted at a chosen moment; the
    signal is real."""
    loading = tmp_path / "loading"
    with subprocess.Popen(  # closed and waited for, even when the test fails
        [sys.executable, "-c", SLOW_START, str(loading)], stderr=subprocess.PIPE
    ) as child:
        try:
            deadline = time.monotonic() + 60
            while not loading.exists() and child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert loading.exists()
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=60)
        finally:
            child.kill()
    assert child.returncode == 1, stderr
    assert b"Aborted!" in stderr and b"Traceback" not in stderr


COMMAND_LINE = (
    AS_IN_A_TERMINAL
    + """
import sys
from engram.cli.main import main

sys.argv = ["engram", *sys.argv[1:]]
main()
"""
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sends to one thread with tgkill")
def test_ctrl_c_on_another_thread_stops_a_scheduled_pipeline_between_runs(store: Path) -> None:
    """Between runs the command slept the whole interval at once. A Ctrl-C the kernel handed to
    another of its threads (the embedding model's) was acted on only when that sleep ended: the
    schedule ran on until its next run, an hour later here. The signal is real; the threads
    are the command's own."""
    save(store, "Atlas runs on PostgreSQL 16")
    args = ["--json", "--store", str(store), "consolidate", "pipeline", "--scheduled"]
    with subprocess.Popen(  # closed and waited for, even when the test fails
        [sys.executable, "-c", COMMAND_LINE, *args, "--interval-hours", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None
        try:
            ready, _, _ = select.select([child.stdout], [], [], 60)  # never hang the suite
            assert ready and json.loads(child.stdout.readline())["dry_run"]  # the first run
            signal_another_thread(child.pid, signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
        finally:
            child.kill()
    assert child.returncode == 1, stderr
    assert b"Aborted!" in stderr and b"Traceback" not in stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["consolidate", "pipeline", "--interval-hours", "0"], "--interval-hours goes with"),
        (["embed", "--batch", "7"], "--batch goes with --backfill"),
        (["graph", "--max-memories", "5"], "--max-memories goes with --html"),
    ],
)
def test_an_option_of_another_mode_is_refused_not_ignored(
    store: Path, args: list[str], said: str
) -> None:
    """`consolidate pipeline --interval-hours 0` ran once and `embed --batch 7` only
    reported, both exiting 0 as if the option had been used (audit)."""
    save(store, "Atlas runs on PostgreSQL 16")
    refused = run(store, *args)
    assert refused.exit_code == 2 and said in refused.stderr


def test_a_text_that_starts_with_a_dash_is_told_to_go_after_two(store: Path) -> None:
    """ "-5°C in Berlin today" said "No such option '-5'." and no more (probe); a mistyped
    option keeps click's own suggestion."""
    text = "-5°C in Berlin today"
    result = run(store, "save", text)
    assert result.exit_code == 2
    assert "a text that starts with '-' goes after --: engram save -- TEXT" in result.stderr
    typo = run(store, "save", "--tagg", "x", "hello")
    assert typo.exit_code == 2 and "Did you mean '--tag'?" in typo.stderr
    assert "goes after --" not in typo.stderr
    assert run(store, "save", "--", text).exit_code == 0


def test_a_named_pipe_given_as_the_store_is_refused_not_waited_on(tmp_path: Path) -> None:
    """SQLite's open of a named pipe waits for a writer: `engram --store PIPE stats` hung until
    killed. (Run in a child with a timeout, so that a hang fails the test instead.)"""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    done = subprocess.run(
        [sys.executable, "-m", "engram.cli.main", "--store", str(pipe), "stats"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{pipe} is not a file (a device, a named pipe or a socket)" in done.stderr


def test_a_device_given_as_the_store_is_refused_and_nothing_is_written_beside_it() -> None:
    """`--store /dev/null` said "disk I/O error" and made /dev/null-journal, world-writable."""
    journal = Path("/dev/null-journal")
    before = journal.stat() if journal.exists() else None
    error = error_of(Path("/dev/null"), "save", "hello")
    assert "/dev/null is not a file (a device, a named pipe or a socket)" in error
    assert (journal.stat() if journal.exists() else None) == before


def test_a_store_that_cannot_be_made_says_why(tmp_path: Path) -> None:
    """A new store in a folder it may not write said only "unable to open database file"."""
    if os.geteuid() == 0:  # root writes any folder; /proc takes no new file even from root
        folder = Path("/proc/self")
    else:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
    error = error_of(folder / "new.db", "save", "hello")
    assert f"cannot create the store {folder / 'new.db'} (" in error
    assert "unable to open database file" not in error


def test_a_store_location_typed_as_an_option_is_named_as_typed(tmp_path: Path) -> None:
    """`--store mysql://x` said "ENGRAM_STORAGE_PATH: unsupported store URL scheme": a setting
    the user never gave."""
    source = tmp_path / "source.db"
    save(source, "Standup is at 9:30")
    for args, option in (
        (["--store", "mysql://x/y", "stats"], "--store"),
        (["--store", "", "stats"], "--store"),
        (["migrate", "--from", str(source), "--to", "mysql://x/y"], "--to"),
        (["migrate", "--from", "mysql://x/y", "--to", str(tmp_path / "t.db")], "--from"),
    ):
        message = error_of(None, *args)
        assert message.startswith(f"Error: {option}: "), message
        assert "ENGRAM_STORAGE_PATH" not in message
    assert not (tmp_path / "t.db").exists()
    # in words, not pydantic's "String should have at least 1 character" (probe)
    assert error_of(None, "--store", "", "stats").strip() == "Error: --store: must not be empty"


def test_every_command_names_a_refused_field_as_its_command_line_spells_it(
    store: Path, tmp_path: Path
) -> None:
    """docs/cli.md: errors name the CLI's own spelling. `vault show ../x` said "path: …",
    `analyze ""` "message: …", `import jsonl` "path: …": the Python API's parameters."""
    save(store, "Standup is at 9:30")
    vault = tmp_path / "vault"
    vault.mkdir()
    for args, spelled in (
        (["vault", "show", "../etc/passwd"], "PATH"),
        (["search", "--all"], "QUERY"),
        (["analyze", ""], "MESSAGE"),
        (["import", "jsonl", str(tmp_path / "missing.jsonl")], "FILE"),
        (["import", "cortexgraph", str(tmp_path / "missing")], "DIR"),
    ):
        message = run(store, *args, ENGRAM_VAULT_PATH=str(vault)).stderr
        assert message.startswith(f"Error: {spelled}: "), (args, message)


def test_an_empty_file_or_folder_option_is_refused_in_words(store: Path) -> None:
    """A CLI probe: `export --out ""` said "cannot write …: Is a directory" of the working
    directory, and `backup --repo ""` "(a string or a Path)", the Python API's wording."""
    save(store, "Standup is at 9:30")
    out = run(store, "export", "--out", "")
    assert out.exit_code == 1 and out.stderr.startswith("Error: --out: must name a file, not")
    repo = run(store, "backup", "--repo", "")
    assert repo.stderr.strip() == "Error: --repo: must name a file or folder (it is empty)"
