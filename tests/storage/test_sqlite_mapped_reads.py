"""The SQLite store's reading connections read the file mapped in memory
(`READ_MMAP_BYTES`), and still see every write committed after they mapped it: by the store's
own writer, and by another client's."""

from __future__ import annotations

from pathlib import Path

from engram import Engram
from engram.storage.sqlite.store import READ_MMAP_BYTES


def test_reading_connections_map_the_file_and_see_later_writes(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Engram.open(str(path)) as mem:
        mem.save("Atlas runs on PostgreSQL 16")
        store = mem._app.context.store
        readers = [store._reader, store._aside]
        assert all(conn is not None for conn in readers)
        for conn in readers:
            mapped = conn.execute("PRAGMA mmap_size").fetchone()[0]
            assert 0 < mapped <= READ_MMAP_BYTES  # SQLite lowers it to its build's limit
        assert [h.memory.content for h in mem.search("Atlas")] == ["Atlas runs on PostgreSQL 16"]

        mem.save("Atlas deploys on Tuesdays")
        with Engram.open(str(path)) as other:  # another client: connections of its own
            other.save("Atlas backups run nightly")

        found = {h.memory.content for h in mem.search("Atlas")}
        assert found == {
            "Atlas runs on PostgreSQL 16",
            "Atlas deploys on Tuesdays",
            "Atlas backups run nightly",
        }
