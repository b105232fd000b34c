"""SQLite schema migrations: blank → head, old → head, and opening twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engram.errors import StoreError
from engram.storage.protocol import Filter
from engram.storage.sqlite import SQLiteStore
from engram.storage.sqlite.migrations import MIGRATIONS, _split, migrate


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
