"""Faults of the SQLite file become messages that say what happened and what to do."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from engram import Draft, Engram
from engram.cli.main import cli
from engram.errors import StoreError
from engram.storage.sqlite.sql import interruptible, store_error

FTS = "memories_fts_data"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "pristine.db"
    with Engram.open(str(path), embedding_model="none") as mem:
        for i in range(3000):
            mem.save(f"note {i} about gardens and weather and what happened on day {i}")
    return path


def damaged_copy(pristine: Path, into: Path) -> Path:
    """The store with the pages of its full-text index overwritten (every search reads them;
    SQLite's dbstat table says where they are)."""
    path = into / "damaged.db"
    shutil.copy(pristine, path)
    with sqlite3.connect(path) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (FTS,))]
    assert pages
    with path.open("r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xde\xad\xbe\xef" * (size // 4))
    return path


def test_a_damaged_page_is_reported_and_writes_stop(pristine: Path, tmp_path: Path) -> None:
    db = damaged_copy(pristine, tmp_path)
    with Engram.open(str(db), embedding_model="none") as mem:
        with pytest.raises(StoreError, match=r"is damaged .* \.recover"):
            mem.search("gardens")
        with pytest.raises(StoreError, match="is damaged"):  # no more writes from here on
            mem.save("a new memory on a damaged file")


def test_damage_found_by_a_saves_similar_report_is_its_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Damaged pages of the stored vectors, read by a save's similar report while the memory
    was written: the save logged a traceback, its vector was tried four times a second apart,
    and it said "Saved" (a CLI probe). It is the save's error now, and nothing is retried."""
    path = tmp_path / "vectors.db"
    with Engram.open(str(path)) as mem:
        mem.save_many([Draft(f"note {i} about gardens, boats and the weather") for i in range(300)])
    with sqlite3.connect(path) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        rows = conn.execute("SELECT pageno FROM dbstat WHERE name = 'memory_vectors'")
        pages = [p for (p,) in rows]
    with path.open("r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xde\xad\xbe\xef" * (size // 4))
    with Engram.open(str(path)) as mem, pytest.raises(StoreError, match="is damaged"):
        mem.save("I moved my boat to the harbour in Lisbon")
    assert "trying again" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info]  # no traceback in the log


def test_the_cli_says_so_without_a_traceback(pristine: Path, tmp_path: Path) -> None:
    db = damaged_copy(pristine, tmp_path)
    result = CliRunner().invoke(
        cli, ["--store", str(db), "search", "gardens"], env={"ENGRAM_EMBEDDING_MODEL": "none"}
    )
    assert result.exit_code == 1
    assert "is damaged" in result.stderr and "Traceback" not in result.stderr


def test_a_full_disk_says_the_truth_about_a_save_that_embeds_in_the_foreground(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With vectors computed before a save returns (ENGRAM_EMBED_IN_BACKGROUND false), a disk
    that filled between the memory and its vectors made the save fail saying "nothing was
    written" while the memory was committed (a retry then merged into it). Every save below
    either fails and left no memory, or returns with its memory stored; at least one of them
    lands between the two and says its vector is missing (the disk is capped as above, the
    texts long enough that a memory fits where its 17 vectors do not)."""
    text = " ".join(f"Sentence {i} is about gardening, boats and the weather." for i in range(16))
    with Engram.open(str(tmp_path / "full.db"), embed_in_background=False) as mem:
        mem.save("Saved before the disk filled up")
        conn = mem.app.context.store._conn  # type: ignore[attr-defined]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 12}")
        outcomes = []
        for i in range(40):
            body = f"[{i}] {text}"
            try:
                mem.save(body)
                outcomes.append("saved")
            except StoreError as exc:
                assert "nothing was written" in str(exc)
                outcomes.append("refused")
            stored = [m.content for m in mem.read_graph().memories if m.content == body]
            assert stored == ([body] if outcomes[-1] == "saved" else [])
            if outcomes[-1] == "refused":
                break
        conn.execute("PRAGMA max_page_count = 1073741823")
    assert "refused" in outcomes
    assert "vectors could not be stored" in caplog.text and "--backfill" in caplog.text


def test_a_store_path_under_a_file_names_the_setting(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(StoreError, match="ENGRAM_STORAGE_PATH"):
        Engram.open(str(tmp_path / "a-file" / "engram.db"))


def test_a_full_disk_is_a_message_and_loses_nothing(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" (SQLITE_FULL) — the error a full disk raises — made
    real by capping the file at its current size on the store's own connection: a machine
    cannot be filled up for a test, but this is the same error path inside SQLite."""
    with Engram.open(str(tmp_path / "full.db"), embedding_model="none") as mem:
        kept = mem.save("Saved before the disk filled up")
        conn = mem.app.context.store._conn  # type: ignore[attr-defined]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreError) as failed:
            mem.save("x " * 20_000)
        message = str(failed.value)
        assert "is full" in message and "nothing was written" in message
        assert [m.id for m in mem.read_graph().memories] == [kept.id]
        conn.execute("PRAGMA max_page_count = 1073741823")  # space again: saving works
        assert mem.save("Saved after space was freed").content == "Saved after space was freed"


def test_ctrl_c_inside_one_of_our_sql_functions_stays_an_interrupt(tmp_path: Path) -> None:
    """SQLite reports whatever a function of ours raised as "user-defined function raised
    exception": Ctrl-C that landed in the tag trigger's function during a migration was
    retried memory by memory (the migration went on), and an import said the store failed.
    The interrupt is made to land there by a function that raises it, on a real connection;
    what the function raises otherwise is still a StoreError."""

    def interrupted_tag_key(value: str) -> str:
        raise KeyboardInterrupt

    def failing_tag_key(value: str) -> str:
        raise ValueError(value)

    conn = sqlite3.connect(tmp_path / "x.db")
    conn.create_function("engram_tag_key", 1, interruptible(interrupted_tag_key))
    with pytest.raises(sqlite3.OperationalError, match="user-defined function") as failed:
        conn.execute("SELECT engram_tag_key('x')")
    with pytest.raises(KeyboardInterrupt):
        store_error(failed.value, tmp_path / "x.db")
    conn.create_function("engram_tag_key", 1, interruptible(failing_tag_key))
    with pytest.raises(sqlite3.OperationalError, match="user-defined function") as failed:
        conn.execute("SELECT engram_tag_key('x')")
    assert isinstance(store_error(failed.value, tmp_path / "x.db"), StoreError)


def test_a_real_ctrl_c_while_sqlite_runs_our_function_stays_an_interrupt(tmp_path: Path) -> None:
    """A signal that comes while SQLite's own code runs is raised by Python as the next of our
    frames starts: the wrapper's, before its `try`, so it was never noted, and an import said
    "the store failed" (audit). Here SIGINT comes from another thread during a statement that
    calls the store's own tag function a billion times."""
    # Python's own handler, whatever pytest was started with: a shell's background job
    # ignores SIGINT, and the statement then ran its billion calls (the test hung).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_our_function(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_our_function(tmp_path: Path) -> None:
    with Engram.open(str(tmp_path / "s.db"), embedding_model="none") as mem:
        conn = mem.app.context.store._conn
        statement = (
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 1000000000) "
            "SELECT count(*) FROM r WHERE engram_tag_key('Tag ' || i) IS NOT NULL"
        )
        timer = threading.Timer(0.2, signal.raise_signal, [signal.SIGINT])
        timer.start()
        try:
            with pytest.raises(sqlite3.OperationalError, match="user-defined") as failed:
                conn.execute(statement)
        finally:
            timer.join()
        with pytest.raises(KeyboardInterrupt):
            store_error(failed.value, tmp_path / "s.db")


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_file_deleted_or_replaced_under_a_running_process_refuses_writes(
    tmp_path: Path, how: str
) -> None:
    """A long-running server (the dashboard, MCP) kept writing into the unlinked file after
    the store was deleted, and said "done" for writes nobody would ever read (audit)."""
    path = tmp_path / "s.db"
    with Engram.open(str(path), embedding_model="none") as mem:
        kept = mem.save("Saved before the file went")
        for name in ("s.db", "s.db-wal", "s.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        if how == "replaced":  # a restore put another store in its place
            with Engram.open(str(tmp_path / "other.db"), embedding_model="none") as other:
                other.save("The other store's memory")
            (tmp_path / "other.db").rename(path)
        for write in (
            lambda: mem.save("Saved after"),
            lambda: mem.touch(kept.id),
            lambda: mem.delete([kept.id]),
        ):
            with pytest.raises(StoreError, match=r"s\.db was deleted or replaced while this"):
                write()
    if how == "replaced":
        with Engram.open(str(path), embedding_model="none") as mem:
            assert [m.content for m in mem.read_graph().memories] == ["The other store's memory"]


# A process whose files may not grow past 256 KB, as on a nearly full disk: writes beyond it
# fail with EFBIG (SIGXFSZ ignored, as the shell's `ulimit -f` does not). The store's own
# writes stay small (WAL); the vector index cache does not fit.
_FULL_DISK_CHILD = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))
from engram import Engram
with Engram.open(sys.argv[1]) as mem:
    saved = mem.save("Gate code for the marina is 4417")
    mem.flush()
    found = mem.search("marina gate code")[0].memory.id == saved.id
    print(len(mem.search("lighthouse tide")), found)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="file size limits are POSIX")
def test_a_vector_index_cache_that_does_not_fit_on_disk_fails_nothing(tmp_path: Path) -> None:
    """usearch reports a full disk as a RuntimeError, which only OSError was caught for: a
    save committed in the store exited 1 with a traceback, and searches raised it (a helper's
    probe on a nearly full tmpfs). The cache is only a cache: a warning, and on we go."""
    import subprocess
    import sys

    from engram import Draft

    store = tmp_path / "store.db"
    with Engram.open(str(store)) as mem:
        mem.save_many(
            [Draft(f"Note {i} about lighthouse maintenance and tide tables") for i in range(1000)]
        )
    for cache in tmp_path.glob("store.db.vectors.*"):
        cache.unlink()  # rebuilt and saved by the child
    child = subprocess.run(
        [sys.executable, "-c", _FULL_DISK_CHILD, str(store)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["10", "True"]
    assert "could not save vector index" in child.stderr
    assert not list(tmp_path.glob(".*.tmp")) and not list(tmp_path.glob("*.tmp"))


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows has ACLs")
def test_a_new_store_and_its_vectors_are_readable_by_their_owner_alone(tmp_path: Path) -> None:
    """Under the common umask (022) a new store was readable by every user of the machine
    (644), every memory with it, while the HTTP token beside it was kept at 600 (a helper's
    probe). A store made before keeps the permissions its owner gave it."""
    old = os.umask(0o022)
    try:
        with Engram.open(str(tmp_path / "new.db")) as mem:
            mem.save("The door code is 4411")
            mem.flush()
            assert mem.search("door code")
        given = tmp_path / "shared.db"
        Engram.open(str(given), embedding_model="none").close()
        given.chmod(0o640)
        Engram.open(str(given), embedding_model="none").close()
    finally:
        os.umask(old)
    made = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert made["new.db"] == 0o600
    assert made["new.db.vectors.usearch"] == made["new.db.vectors.json"] == 0o600
    assert made["shared.db"] == 0o640
