"""SQLite schema migrations: blank → head, old → head, and opening twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.storage.test_contract import T0

from engram.cli.main import cli
from engram.core.models import Memory
from engram.core.scoring import Policy, memory_schedule
from engram.core.text import query_terms
from engram.errors import StoreError
from engram.storage.protocol import Filter
from engram.storage.sqlite import SQLiteStore
from engram.storage.sqlite.migrations import MIGRATIONS, _split, migrate, register_functions


def applied(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def test_blank_file_migrates_to_head(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "x.db")
    store.close()
    assert applied(tmp_path / "x.db") == [name for name, _ in MIGRATIONS]


def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "x.db").close()
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    assert migrate(conn) == []
    conn.close()


def test_another_programs_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path: Path) -> None:
    """`engram --store their.db stats` added thirty tables to another program's database and
    switched it to WAL; also through the CLI, which must say what the file is."""
    path = tmp_path / "their.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"another program, not an Engram store .*invoices"):
        SQLiteStore(path)
    argv = ["--store", str(path), "stats"]
    run = CliRunner().invoke(cli, argv, env={"ENGRAM_EMBEDDING_MODEL": "none"})
    assert run.exit_code == 1 and "not an Engram store" in run.output
    assert run.exception is None or isinstance(run.exception, SystemExit)  # no traceback
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["their.db"]  # no -wal, no -shm


def test_a_store_a_newer_engram_migrated_is_refused_and_left_alone(tmp_path: Path) -> None:
    """It opened without a word, then every save failed with "no such function" (the newer
    schema's triggers call what this version lacks)."""
    path = tmp_path / "newer.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 0)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"newer Engram .*9999_from_the_future"):
        SQLiteStore(path)
    assert path.read_bytes() == before


def test_old_schema_with_data_migrates_and_indexes_existing_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    name, sql = MIGRATIONS[0]
    for statement in _split(sql):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_migrations VALUES (?, 0)", (name,))
    conn.execute(
        "INSERT INTO memories(id, content, tags, created_at, last_used, danger_from, "
        "danger_until) VALUES ('old', 'legacy memory about gardening', ?, 0, 0, 10, 20)",
        (json.dumps(["hobby"]),),
    )
    conn.close()
    store = SQLiteStore(path)
    try:
        assert [m.id for m in store.text_search(["gardening"], Filter(), 5)] == ["old"]
        assert [s.id for s in store.browse(Filter(tags=("HOBBY",)), 5)] == ["old"]  # keyed
        assert store.schedule_counts(15.0) == (0, 1)
    finally:
        store.close()
    assert applied(path) == [n for n, _ in MIGRATIONS]


def migrated_before(path: Path, migration: str) -> sqlite3.Connection:
    """A store at `path` with the schema of the migrations before `migration`, open."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    register_functions(conn)
    for name, sql in [(n, sql) for n, sql in MIGRATIONS if n < migration]:
        for statement in _split(sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, 0)", (name,))
    return conn


def test_rows_indexed_before_0011_lose_the_entities_their_text_mentions(tmp_path: Path) -> None:
    """Migration 0011 re-indexes the memories that have entities: a name the text mentions
    no longer counts twice; one it does not mention is still found."""
    path = tmp_path / "old.db"
    conn = migrated_before(path, "0011")
    text = "Kate rode the Lisbon trams; we trust them"
    for ident, entities in (
        ("enriched", ["Kate", "Lisbon", "Porto", "Rust"]),
        ("plain", ["Porto", "Rust"]),
    ):
        conn.execute(
            "INSERT INTO memories(id, content, entities, created_at, last_used) "
            "VALUES (?, ?, ?, 0, 0)",
            (ident, text, json.dumps(entities)),
        )
    (before,) = conn.execute(
        "SELECT entities FROM memories_fts WHERE rowid = "
        "(SELECT seq FROM memories WHERE id = 'enriched')"
    ).fetchone()
    assert before == "Kate Lisbon Porto Rust"
    conn.close()
    store = SQLiteStore(path)
    try:
        found = {m.id: m.relevance for m in store.text_search(["kate"], Filter(), 5)}
        assert found["enriched"] == pytest.approx(found["plain"], rel=1e-9)
        for word in ("porto", "rust"):  # not in the text as words: still indexed
            assert {m.id for m in store.text_search([word], Filter(), 5)} == {"enriched", "plain"}
    finally:
        store.close()


def test_rows_indexed_before_0015_are_found_by_a_word_inside_cjk_text(tmp_path: Path) -> None:
    """Migration 0015 indexes each CJK character as a word: the memories written before it
    are indexed again, and their words found, as new ones are."""
    path = tmp_path / "old.db"
    conn = migrated_before(path, "0015")
    rows = (("ja", "東京に住んでいます", ["旅行"]), ("en", "I live in Tokyo", []))
    for ident, text, tags in rows:
        conn.execute(
            "INSERT INTO memories(id, content, tags, created_at, last_used) VALUES (?, ?, ?, 0, 0)",
            (ident, text, json.dumps(tags, ensure_ascii=False)),
        )
    conn.close()
    store = SQLiteStore(path)
    try:
        for query, found in {"東京": ["ja"], "旅行": ["ja"], "tokyo": ["en"]}.items():
            assert [m.id for m in store.text_search(query_terms(query), Filter(), 5)] == found
        new = Memory(id="new", content="東京タワー", created_at=T0, last_used=T0)
        store.insert([(new, memory_schedule(Policy(), new))])
        assert {m.id for m in store.text_search(["東 京"], Filter(), 5)} == {"ja", "new"}
    finally:
        store.close()


def test_split_keeps_trigger_bodies_whole() -> None:
    parts = _split(
        "CREATE TABLE a(x);\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
        "  SELECT 1;\n  SELECT 2;\nEND;\n"
    )
    assert len(parts) == 2 and parts[1].endswith("END;")


def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open SQLite store"):
        SQLiteStore(bad)


def test_rows_written_before_0019_have_no_cues_and_new_ones_are_searched_by_theirs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    conn = migrated_before(path, "0019")
    conn.execute(
        "INSERT INTO memories(id, content, entities, created_at, last_used) "
        "VALUES ('old', 'he passed!! second try', '[\"Owen\"]', 0, 0)"
    )
    conn.close()
    store = SQLiteStore(path)
    try:
        assert store.get_many(["old"])[0].cues == ()
        assert [s.id for s in store.text_search(["owen"], Filter(), 5)] == ["old"]
        new = Memory(id="new", content="yes, on thursday", created_at=T0, last_used=T0)
        new = new.model_copy(update={"cues": ("driving", "test")})
        store.insert([(new, memory_schedule(Policy(), new))])
        assert [s.id for s in store.text_search(["driving"], Filter(), 5)] == ["new"]
    finally:
        store.close()
