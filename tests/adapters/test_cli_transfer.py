"""`engram maintenance`, `engram migrate`, `engram import cortexgraph` and `engram export`,
end to end through click's CliRunner on real stores."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.support import through_a_fifo

from engram import Engram
from engram.cli.main import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "cortexgraph"
FAST = {"ENGRAM_EMBEDDING_MODEL": "none"}  # embeddings are not what these tests are about


def run(store: str | None, *args: str) -> Result:
    argv = ([] if store is None else ["--store", store]) + list(args)
    return CliRunner().invoke(cli, argv, env=FAST, catch_exceptions=False)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def table_counts(text: str) -> dict[str, int]:
    """The rows of a printed table of counts: label -> number."""
    return {k: int(n.replace(",", "")) for k, n in re.findall(r"│ (.+?) +│ +([\d,]+) │", text)}


def run_json(store: str | None, *args: str) -> Any:
    return json.loads(ok(run(store, "--json", *args)).stdout)


@pytest.fixture
def jsonl(tmp_path: Path) -> str:
    return f"jsonl://{tmp_path / 'store'}"


def test_maintenance_stats_and_compact_on_a_jsonl_store(jsonl: str) -> None:
    ident = run_json(jsonl, "save", "Prefers dark mode", "--tag", "ui")["id"]
    for _ in range(3):
        ok(run(jsonl, "touch", ident))
    stats = run_json(jsonl, "maintenance", "stats")
    assert stats["supported"] and stats["backend"] == "jsonl" and stats["memories"] == 1
    memories = stats["files"][0]
    assert (memories["name"], memories["lines"], memories["live"], memories["dead"]) == (
        "memories.jsonl",
        4,
        1,
        3,
    )
    text = ok(run(jsonl, "maintenance", "stats")).stdout
    assert "memories.jsonl" in text and "3 dead lines (75%)" in text
    compacted = run_json(jsonl, "maintenance", "compact")
    assert compacted["before"]["dead_lines"] == 3 and compacted["after"]["dead_lines"] == 0
    assert "Compacted" in ok(run(jsonl, "maintenance", "compact")).stdout
    assert run_json(jsonl, "open", ident)["memories"][0]["use_count"] == 3


def test_maintenance_on_sqlite_says_there_is_nothing_to_do(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    ok(run(db, "save", "a memory"))
    for command in ("stats", "compact"):
        result = ok(run(db, "maintenance", command))
        assert "is not a JSONL store" in result.stdout
        assert run_json(db, "maintenance", command)["supported"] is False


def test_migrate_verifies_and_is_safe_to_rerun(tmp_path: Path, jsonl: str) -> None:
    db = str(tmp_path / "source.db")
    a = run_json(db, "save", "Atlas uses PostgreSQL 16", "--tag", "decision")["id"]
    b = run_json(db, "save", "Prefers concise answers")["id"]
    ok(run(db, "relate", a, b, "--type", "supports"))
    ok(run(db, "touch", a))
    report = run_json(None, "migrate", "--from", db, "--to", jsonl)
    assert report["verified"] and (report["copied"], report["relations"]) == (2, 1)
    assert run_json(jsonl, "open", a) == run_json(db, "open", a)
    rerun = ok(run(None, "migrate", "--from", db, "--to", jsonl))
    assert "Verified: 2 memories, 1 relation and" in rerun.stdout

    ok(run(jsonl, "touch", a))  # the copy moves on: a re-run keeps it and says so
    diverged = run(None, "migrate", "--from", db, "--to", jsonl)
    assert diverged.exit_code == 1 and "NOT verified" in diverged.stdout
    assert f"differs: {a}" in diverged.stdout and "--overwrite" in diverged.stdout
    assert run_json(jsonl, "open", a)["memories"][0]["use_count"] == 2
    replaced = run_json(None, "migrate", "--from", db, "--to", jsonl, "--overwrite")
    assert replaced["verified"] and replaced["overwritten"] == 1
    assert run_json(jsonl, "open", a)["memories"][0]["use_count"] == 1


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("{tmp}/missing.db", "{tmp}/t.db", "Error: --from: there is no store at"),
        ("jsonl://{tmp}/missing", "{tmp}/t.db", "Error: --from: there is no store at"),
        ("{tmp}/s.db", "{tmp}/s.db", "Error: --to: is the same store as --from"),
        ("{tmp}/sub/../s.db", "{tmp}/s.db", "Error: --to: is the same store as --from"),
        # any folder opens as a (new) JSONL store: the source, only read, got one made in it
        ("jsonl://{tmp}", "{tmp}/t.db", "Error: --from: there is no store at jsonl://"),
        ("{tmp}", "{tmp}/t.db", "is a folder (a JSONL store? name it jsonl://"),
        ("{tmp}/s.db", "jsonl://host/x", "a JSONL store is a local directory"),
        # an export is no store: it was called damaged, and the target created anyway
        ("{tmp}/export.jsonl", "{tmp}/t.db", "Error: --from: {tmp}/export.jsonl is not a SQLite"),
    ],
)
def test_migrate_refuses_bad_locations_cleanly(
    tmp_path: Path, source: str, target: str, message: str
) -> None:
    (tmp_path / "sub").mkdir()
    ok(run(str(tmp_path / "s.db"), "save", "something"))
    ok(run(str(tmp_path / "s.db"), "export", "--out", str(tmp_path / "export.jsonl")))
    result = run(
        None, "migrate", "--from", source.format(tmp=tmp_path), "--to", target.format(tmp=tmp_path)
    )
    assert result.exit_code == 1 and message.format(tmp=tmp_path) in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "missing").exists() and not (tmp_path / "missing.db").exists()
    assert not (tmp_path / "t.db").exists()  # a refused migration creates no target either
    assert not (tmp_path / "meta.json").exists()


def test_import_cortexgraph_reports_and_reruns(jsonl: str) -> None:
    report = run_json(jsonl, "import", "cortexgraph", str(FIXTURE))
    assert (report["imported"], report["relations_imported"], report["skipped"]) == (8, 3, 4)
    assert any(s["line"] == 14 for s in report["skipped_records"])
    # by file and line, whether reading or writing skipped them (line 12 came after 14)
    where = [(s["file"], s["line"]) for s in report["skipped_records"]]
    assert where == sorted(where)
    table = ok(run(jsonl, "import", "cortexgraph", str(FIXTURE))).stdout
    assert "Imported 0 memories and 0 relations" in table and "8 memories and 3 relations" in table
    assert "skipped memories.jsonl line 12 (0a1b2c3d-6666-4f70-8a1b-2c3d4e5f6a7b)" in table
    counts = table_counts(table)
    assert counts["already in the store, kept"] == 8 and counts["deleted (tombstones)"] == 1
    assert counts["relations"] == 5 and counts["relations to deleted or skipped memories"] == 1
    hits = run_json(jsonl, "search", "PostgreSQL pgvector")["hits"]
    assert hits[0]["memory"]["id"] == "mem-123"


def test_a_skipped_record_whose_id_is_not_text_is_reported(tmp_path: Path, jsonl: str) -> None:
    """Printing the id of a record skipped for a lone surrogate in it failed in turn: a
    UnicodeEncodeError traceback after the import had run."""
    data = tmp_path / "data"
    data.mkdir()
    lines = [
        {"id": "odd \ud800", "content": "d", "created_at": 1700000000},
        {"id": "ok", "content": "a fine memory", "created_at": 1700000000},
    ]
    (data / "memories.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    table = ok(run(jsonl, "import", "cortexgraph", str(data))).stdout
    assert "skipped memories.jsonl line 1 (odd \\ud800): id: must be valid Unicode" in table
    assert "Imported 1 memory and 0 relations" in table


def test_an_export_read_back_restores_the_store(tmp_path: Path, jsonl: str) -> None:
    """`engram backup` commits an export; `engram import jsonl` is how it comes back."""
    run_json(jsonl, "import", "cortexgraph", str(FIXTURE))
    ok(run(jsonl, "export", "--out", str(tmp_path / "e.jsonl")))
    restored = f"sqlite:///{tmp_path / 'restored.db'}"
    report = run_json(restored, "import", "jsonl", str(tmp_path / "e.jsonl"))
    assert (report["imported"], report["relations_imported"], report["skipped"]) == (8, 3, 0)
    table = ok(run(restored, "import", "jsonl", str(tmp_path / "e.jsonl"))).stdout
    assert "Imported 0 memories and 0 relations" in table and "8 memories and 3 relations" in table
    counts = table_counts(table)
    assert counts["memories (the last line of each id)"] == 8 and counts["lines"] == 12
    assert counts["relations already in the store, kept"] == 3
    hits = run_json(restored, "search", "PostgreSQL pgvector")["hits"]
    assert hits[0]["memory"]["id"] == "mem-123"
    missing = run(restored, "import", "jsonl", str(tmp_path / "nothing.jsonl"))
    assert missing.exit_code == 1 and "Error: FILE:" in missing.stderr
    elsewhere = tmp_path / "new.db"  # a mistyped FILE used to create the store all the same
    missing = run(str(elsewhere), "import", "jsonl", str(tmp_path / "nothing.jsonl"))
    assert missing.exit_code == 1 and not elsewhere.exists()
    (tmp_path / "notes.txt").write_text("not an export\n")
    refused = run(str(elsewhere), "import", "jsonl", str(tmp_path / "notes.txt"))
    assert "is not an Engram export" in refused.stderr and not elsewhere.exists()
    (tmp_path / "empty.jsonl").write_text("")  # imported, exit code 0, with a warning
    refused = run(str(elsewhere), "import", "jsonl", str(tmp_path / "empty.jsonl"))
    assert refused.exit_code == 1 and "is empty" in refused.stderr and not elsewhere.exists()


def test_a_restore_that_leaves_records_behind_exits_1_after_its_report(
    tmp_path: Path, jsonl: str
) -> None:
    """It exited 0 having imported none of eight lines: a script restoring a backup could not
    tell. The report still comes (one JSON document with --json), and what could be read is in."""
    run_json(jsonl, "import", "cortexgraph", str(FIXTURE))
    ok(run(jsonl, "export", "--out", str(tmp_path / "e.jsonl")))
    lines = (tmp_path / "e.jsonl").read_text().splitlines()
    (tmp_path / "cut.jsonl").write_text("\n".join(["not json", *lines]) + "\n")
    restored = f"sqlite:///{tmp_path / 'restored.db'}"
    result = run(restored, "--json", "import", "jsonl", str(tmp_path / "cut.jsonl"))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["imported"], report["skipped"]) == (8, 1)


def test_the_export_of_an_empty_store_imports_as_nothing(tmp_path: Path, jsonl: str) -> None:
    """It is its end line alone, and was refused as "not an Engram export"."""
    Engram.open(jsonl).close()
    ok(run(jsonl, "export", "--out", str(tmp_path / "e.jsonl")))
    report = run_json(
        f"sqlite:///{tmp_path / 'b.db'}", "import", "jsonl", str(tmp_path / "e.jsonl")
    )
    assert (report["lines"], report["imported"], report["warning"]) == (1, 0, None)


def test_import_of_a_missing_directory_is_a_clean_error(tmp_path: Path, jsonl: str) -> None:
    result = run(jsonl, "import", "cortexgraph", str(tmp_path / "nowhere"))
    assert result.exit_code == 1 and "Error: DIR:" in result.stderr
    assert not (tmp_path / "store").exists()  # nothing created for a mistyped DIR


@pytest.mark.parametrize("name", ["memories.jsonl", "relations.jsonl"])
def test_a_folder_where_a_cortexgraph_file_belongs_is_a_clean_error(
    tmp_path: Path, jsonl: str, name: str
) -> None:
    """A bare "[Errno 21] Is a directory", after the store had been made."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "memories.jsonl").write_text("")
    (data / name).unlink(missing_ok=True)
    (data / name).mkdir()
    result = run(jsonl, "import", "cortexgraph", str(data))
    assert result.exit_code == 1 and f"Error: DIR: {data / name} is not a file" in result.stderr
    assert not (tmp_path / "store").exists()


def test_an_export_sweeps_what_a_killed_export_of_that_file_left(tmp_path: Path) -> None:
    """A kill -9 during `export --out` left a part-written copy of the memories in a hidden
    temporary file, which later exports to that file never removed (a probe); an hour old, it
    goes, as other atomic writers' leftovers do. A fresh one may be another export's, in use."""
    db = str(tmp_path / "s.db")
    ok(run(db, "save", "a memory"))
    out = tmp_path / "memories.jsonl"
    old = tmp_path / f".memories.jsonl.{'0' * 32}.tmp"  # as `atomic.replacing` names it
    fresh = tmp_path / f".memories.jsonl.{'1' * 32}.tmp"
    for left in (old, fresh):
        left.write_text('{"kind": "memory", "content": "half')
    two_hours_ago = old.stat().st_mtime - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    ok(run(db, "export", "--out", str(out)))
    assert not old.exists() and fresh.exists() and out.exists()


def test_an_export_that_cannot_be_written_names_out_and_the_path(tmp_path: Path) -> None:
    """It named the temporary file beside it ("[Errno 2] … '/proc/.x.….tmp'"): /proc takes
    no new file, root's neither. A name of 250 characters, which the folder takes, failed
    too, its temporary file's name being longer than any file's may be; now it is written."""
    db = str(tmp_path / "s.db")
    ok(run(db, "save", "a memory"))
    refused = Path("/proc") / "engram-export.jsonl"
    result = run(db, "export", "--out", str(refused))
    assert result.exit_code == 1 and f"Error: --out: cannot write {refused}:" in result.stderr
    assert ".tmp" not in result.stderr and not refused.exists()
    out = tmp_path / ("x" * 250)
    ok(run(db, "export", "--out", str(out)))
    assert out.read_text().count("\n") == 2  # the memory, and the line that ends an export
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(("command", "option"), [("export", "--out"), ("graph", "--html")])
def test_a_file_that_cannot_be_written_names_its_option(
    tmp_path: Path, command: str, option: str
) -> None:
    """`graph --html` into a missing folder said click's "Could not open file", while `export
    --out` named its option (probe): one way of writing a file for both."""
    db = str(tmp_path / "s.db")
    ok(run(db, "save", "a memory"))
    missing = tmp_path / "no-such-folder" / "out"
    result = run(db, command, option, str(missing))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"Error: {option}: directory {missing.parent} does not exist"
    refused = Path("/proc") / "engram-file"
    result = run(db, command, option, str(refused))
    assert result.exit_code == 1 and f"Error: {option}: cannot write {refused}:" in result.stderr


def test_export_to_stdout_and_to_a_file(tmp_path: Path, jsonl: str) -> None:
    a = run_json(jsonl, "save", "first memory", "--tag", "x")["id"]
    b = run_json(jsonl, "save", "second memory")["id"]
    ok(run(jsonl, "relate", a, b))
    lines = ok(run(jsonl, "export")).stdout.splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["memory", "memory", "relation", "end"]
    out = tmp_path / "export.md"
    summary = run_json(jsonl, "export", "--format", "markdown", "--out", str(out))
    assert (summary["memories"], summary["relations"], summary["path"]) == (2, 1, str(out))
    text = out.read_text()
    assert text.startswith("# Engram export") and "## second memory" in text
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    bad = run(jsonl, "export", "--out", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert bad.exit_code == 1 and "Error: --out: directory" in bad.stderr
    # --json promises JSON on stdout: a Markdown export there printed the document (a probe)
    mixed = run(jsonl, "--json", "export", "--format", "markdown")
    assert mixed.exit_code == 2 and "--json: a Markdown export to stdout is no JSON" in mixed.output
    assert "# Engram export" not in mixed.stdout


def test_an_export_over_a_file_keeps_its_permissions_and_a_pipe_stays_a_pipe(
    tmp_path: Path, jsonl: str
) -> None:
    """The atomic rename made a private file (chmod 600) readable by everyone, and replaced
    a FIFO (or a device, /dev/null as root) with a plain file."""
    run_json(jsonl, "save", "the wifi password is hunter2")
    private = tmp_path / "private.jsonl"
    private.write_text("")
    private.chmod(0o600)
    ok(run(jsonl, "export", "--out", str(private)))
    assert private.stat().st_mode & 0o777 == 0o600 and "hunter2" in private.read_text()
    fifo = tmp_path / "fifo"
    sent = through_a_fifo(fifo, lambda: ok(run(jsonl, "export", "--out", str(fifo))))
    assert [json.loads(line)["kind"] for line in sent.splitlines()] == ["memory", "end"]
    # a new file holds the memories as the store does, as privately: the graph page was
    # readable by every user of the machine (a probe); one written over keeps its own
    old = os.umask(0o022)
    try:
        for args, made in (
            (["export", "--out"], tmp_path / "new.jsonl"),
            (["graph", "--html"], tmp_path / "graph.html"),
        ):
            ok(run(jsonl, *args, str(made)))
            assert made.stat().st_mode & 0o777 == 0o600 and "hunter2" in made.read_text()
        shared = tmp_path / "shared.jsonl"
        shared.write_text("")
        shared.chmod(0o644)
        ok(run(jsonl, "export", "--out", str(shared)))
        assert shared.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


@pytest.mark.parametrize("own", ["", "-wal", ".vectors.json"])
def test_an_export_is_never_written_over_the_store_it_exports(tmp_path: Path, own: str) -> None:
    """The export's atomic rename used to replace the live database with text."""
    store = tmp_path / "engram.db"
    run_json(str(store), "save", "keep me")
    result = run(str(store), "export", "--out", f"{store}{own}")
    assert result.exit_code == 1 and "Error: --out:" in result.stderr
    assert "file of the store being exported" in result.stderr
    assert [m["content"] for m in run_json(str(store), "graph")["memories"]] == ["keep me"]


def test_an_export_is_never_written_inside_the_jsonl_store(tmp_path: Path, jsonl: str) -> None:
    run_json(jsonl, "save", "keep me")
    inside = Path(jsonl.removeprefix("jsonl://")) / "memories.jsonl"
    result = run(jsonl, "export", "--out", str(inside))
    assert result.exit_code == 1 and "inside the store being exported" in result.stderr
    assert [m["content"] for m in run_json(jsonl, "graph")["memories"]] == ["keep me"]


def test_an_export_piped_into_import_jsonl_dash_is_read_from_standard_input(
    tmp_path: Path, jsonl: str
) -> None:
    """A CLI probe: `engram export | engram import jsonl -` said "FILE: - does not exist",
    where `save -` and `update --content -` read standard input."""
    run_json(jsonl, "import", "cortexgraph", str(FIXTURE))
    exported = ok(run(jsonl, "export")).stdout
    restored = f"sqlite:///{tmp_path / 'piped.db'}"
    result = CliRunner().invoke(
        cli, ["--store", restored, "--json", "import", "jsonl", "-"], input=exported, env=FAST
    )
    report = json.loads(ok(result).stdout)
    assert (report["imported"], report["relations_imported"], report["source"]) == (
        8,
        3,
        "<stdin>",
    )
    bad = CliRunner().invoke(cli, ["--store", restored, "import", "jsonl", "-"], input="{}\n")
    assert bad.exit_code == 1 and "<stdin> is not an Engram export" in bad.stderr
