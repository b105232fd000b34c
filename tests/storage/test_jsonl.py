"""What only the JSONL backend has: its line format, several store objects (and processes) on
one directory, damaged lines, compaction. Real files everywhere; crashes are real SIGKILLs."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from tests.support import leftover_temporaries

from engram import Engram
from engram.core.models import Memory, Relation, Schedule, Status
from engram.core.scoring import Policy, ScheduleArrays, memory_schedule, schedule_arrays
from engram.core.timeutil import to_epoch
from engram.errors import StoreError
from engram.storage.jsonl import JSONLStore, scratch
from engram.storage.maintenance import COMPACT, Compactable
from engram.storage.protocol import Filter, ScheduleInputs
from engram.storage.sqlite import SQLiteStore

T0 = datetime(2026, 3, 1, tzinfo=UTC)
NOW = to_epoch(T0)
POLICY = Policy()


def mem(ident: str, content: str = "note", **extra: object) -> Memory:
    fields: dict[str, object] = {"created_at": T0, "last_used": T0, **extra}
    return Memory(id=ident, content=content, **fields)  # type: ignore[arg-type]


def put(store: JSONLStore | SQLiteStore, *memories: Memory) -> None:
    store.insert([(m, memory_schedule(POLICY, m)) for m in memories])


def bump(m: Memory) -> tuple[Memory, Schedule]:
    new = m.model_copy(update={"use_count": m.use_count + 1})
    return new, memory_schedule(POLICY, new)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "store"


# -- the files --------------------------------------------------------------------------------


def test_lines_are_readable_json_with_a_stable_key_order(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a", "Ünïcode ✓", tags=("x",)))
    store.modify(["a"], bump)
    store.delete(["a"])
    store.close()
    text = (folder / "memories.jsonl").read_text(encoding="utf-8")
    assert "Ünïcode ✓" in text  # not \u-escaped: diffs stay readable
    first, second, third = lines(folder / "memories.jsonl")
    assert list(first)[:4] == ["id", "content", "tags", "entities"]
    assert list(first)[-1] == "_schedule" and list(first) == list(second)
    assert first["created_at"] == "2026-03-01T00:00:00+00:00"
    assert (first["use_count"], second["use_count"]) == (0, 1)
    assert third == {"id": "a", "_deleted": True}
    assert json.loads((folder / "meta.json").read_text())["format"] == 1
    assert ".lock" in (folder / ".gitignore").read_text()


def test_everything_survives_reopening(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a", "alpha words"), mem("b", "beta words"), mem("c"))
    store.modify(["a"], bump)
    store.add_relation(Relation(id="r", from_id="a", to_id="b", type="causes", created_at=T0))
    store.delete(["c"])
    store.put_vectors([("a", np.ones(4, dtype=np.float32) / 2)], "m")
    before = store.get_many(["a", "b"])
    store.close()
    again = JSONLStore(folder, vector_model=("m", 4))
    assert again.get_many(["a", "b", "c"]) == before
    assert again.get_many(["a"])[0].use_count == 1
    assert [r.id for r in again.relations(["a"])] == ["r"]
    assert [m.id for m in again.page(None, 10)] == ["a", "b"]
    assert [s.id for s in again.text_search(["words"], Filter(), 10)] != []
    assert again.vector_counts() == {"m": 1}
    assert [s.id for s in again.vector_search(np.ones(4, np.float32), Filter(), 5)] == ["a"]
    again.close()


def test_an_edge_added_again_is_not_written_again(folder: Path) -> None:
    """The index hands back the stored edge, equal to the one given when it is the same
    record (a migration run twice): every re-run appended every relation once more."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    edge = Relation(id="r", from_id="a", to_id="b", type="causes", created_at=T0)
    for _ in range(3):
        assert store.add_relation(edge) == edge
    assert [x["id"] for x in lines(folder / "relations.jsonl")] == ["r"]
    assert store.stats().dead_lines == 0
    store.close()


def test_a_deleted_relation_is_a_tombstone_in_the_file_that_compaction_keeps(folder: Path) -> None:
    """The files are the truth: a removed edge is a tombstone line (readable, and diffable in
    git), a fresh load does not bring the edge back, and compaction drops the edge's line but
    keeps the tombstone (the last line of a file stays, so a compaction merges in git with the
    lines another clone appended)."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.add_relation(Relation(id="r", from_id="a", to_id="b", type="causes", created_at=T0))
    assert store.delete_relation("r") is not None
    assert lines(folder / "relations.jsonl")[-1] == {"id": "r", "_deleted": True}
    store.close()
    (folder / ".index.db").unlink()  # read from the files alone, not from the snapshot
    again = JSONLStore(folder)
    assert again.relations(["a", "b"]) == [] and again.stats().dead_lines == 1
    again.compact()
    assert (folder / "relations.jsonl").read_bytes() == b'{"id": "r", "_deleted": true}\n'
    assert again.stats().dead_lines == 0
    again.close()


def test_a_relation_delete_that_cannot_be_written_keeps_the_edge(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tombstone is written after the index has dropped the edge: when the file refuses it
    (a full disk: simulated, a real one cannot be arranged here), the index is read from the
    files again and still holds the edge, as they do."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.add_relation(Relation(id="r", from_id="a", to_id="b", type="causes", created_at=T0))

    def disk_full(lines: object) -> int:
        raise StoreError("cannot write relations.jsonl: No space left on device")

    monkeypatch.setattr(store._relations, "append", disk_full)
    with pytest.raises(StoreError, match="No space left"):
        store.delete_relation("r")
    assert [r.id for r in store.relations(["a"])] == ["r"]
    monkeypatch.undo()
    store.close()
    again = JSONLStore(folder)
    assert [r.id for r in again.relations(["a"])] == ["r"]
    again.close()


def test_a_directory_that_is_not_an_engram_store_is_refused(folder: Path) -> None:
    folder.mkdir()
    (folder / "memories.jsonl").write_text('{"id": "x", "content": "from elsewhere"}\n')
    with pytest.raises(StoreError, match="not an Engram JSONL store"):
        JSONLStore(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["memories.jsonl"]  # nothing added


def test_a_newer_format_is_refused(folder: Path) -> None:
    JSONLStore(folder).close()
    (folder / "meta.json").write_text('{"format": 99}')
    with pytest.raises(StoreError, match="newer Engram"):
        JSONLStore(folder)


# -- damaged lines ----------------------------------------------------------------------------


def test_a_corrupt_line_is_reported_by_number_and_kept_aside(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"), mem("c"))
    store.close()
    path = folder / "memories.jsonl"
    rows = path.read_bytes().splitlines(keepends=True)
    garbage = b'{"id": "b", "content": "half a line wr\n'
    path.write_bytes(rows[0] + garbage + rows[2])
    with caplog.at_level(logging.WARNING, logger="engram"):
        again = JSONLStore(folder)
    assert [m.id for m in again.page(None, 10)] == ["a", "c"]
    (report,) = [r.getMessage() for r in caplog.records]
    assert "memories.jsonl line 2 is unreadable (not valid JSON" in report
    (kept,) = (folder / "quarantine").iterdir()
    assert kept.name.startswith("memories.jsonl.") and kept.suffix == ".bad"
    assert kept.read_bytes() == garbage
    assert str(kept) in report
    assert garbage not in path.read_bytes()  # reported once, not at every open
    again.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="engram"):
        JSONLStore(folder).close()
    assert caplog.records == []


def test_compaction_keeps_the_links_and_vector_of_a_quarantined_memory(folder: Path) -> None:
    """A memory line damaged by hand goes to quarantine; compaction rewrote relations.jsonl
    and vectors.jsonl from the index, which cannot hold an edge to a missing memory: the
    memory could be repaired from quarantine/, its links and vector were gone for good. What
    was deleted stays deleted."""
    store = JSONLStore(folder, vector_model=("m", 4))
    put(store, mem("a"), mem("b"), mem("c"), mem("d"))
    store.add_relation(Relation(id="ab", from_id="a", to_id="b", type="causes", created_at=T0))
    store.add_relation(Relation(id="cd", from_id="c", to_id="d", type="causes", created_at=T0))
    store.put_vectors([(i, np.full(4, 0.5, dtype=np.float32)) for i in "abcd"], "m")
    store.delete(["d"])  # its edge and vector are deleted with it
    store.close()
    path = folder / "memories.jsonl"
    rows = path.read_bytes().splitlines(keepends=True)
    good_b = rows[1]
    path.write_bytes(rows[0] + b'{"id": "b", "content": "torn\n' + b"".join(rows[2:]))
    damaged = JSONLStore(folder, vector_model=("m", 4))
    assert [m.id for m in damaged.page(None, 10)] == ["a", "c"]
    done = damaged.compact()
    # The lines it keeps are not dead: they were counted so, and every compaction said it
    # dropped them while the next look still recommended one.
    assert [f.dead for f in done.after.files] == [0, 0, 0]
    assert damaged.stats().dead_lines == 0
    assert done.before.dead_lines == sum(f.lines for f in done.before.files) - sum(
        f.lines for f in done.after.files
    )
    damaged.close()
    gone = {"id": "cd", "_deleted": True}  # tombstones stay
    assert [x["id"] for x in lines(folder / "relations.jsonl")[:-1]] == ["ab"]
    assert lines(folder / "relations.jsonl")[-1] == gone
    assert [x["id"] for x in lines(folder / "vectors.jsonl")] == ["a", "b", "c", "d"]
    assert lines(folder / "vectors.jsonl")[-1] == {"id": "d", "_deleted": True}
    # The user puts the memory back from quarantine/ in an editor, which saves the whole file.
    path.write_bytes(path.read_bytes().replace(rows[0], rows[0] + good_b))
    repaired = JSONLStore(folder, vector_model=("m", 4))
    assert [r.id for r in repaired.relations(["b"])] == ["ab"]
    assert repaired.vector_counts() == {"m": 3}
    assert repaired.relations(["c"]) == [] and repaired.get_many(["d"]) == []
    repaired.compact()  # now held by the index: written once, not twice
    assert [x["id"] for x in lines(folder / "relations.jsonl")] == ["ab", "cd"]
    repaired.close()


def test_a_byte_order_mark_saved_by_an_editor_is_not_a_bad_line(folder: Path) -> None:
    """Windows Notepad saves UTF-8 with a byte order mark: the first memory was moved to
    quarantine as "not valid JSON", gone from the store."""
    store = JSONLStore(folder)
    put(store, mem("alpha", "alpha memory"), mem("beta", "beta memory"))
    store.close()
    path = folder / "memories.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    again = JSONLStore(folder)
    assert sorted(m.id for m in again.page(None, 10)) == ["alpha", "beta"]
    assert not (folder / "quarantine").exists()
    put(again, mem("gamma"))
    again.close()
    assert sorted(m.id for m in JSONLStore(folder).page(None, 10)) == ["alpha", "beta", "gamma"]


def test_a_file_saved_as_utf16_is_refused_and_left_as_it_is(folder: Path) -> None:
    """Saved as "Unicode" by an editor, every line was quarantined as invalid JSON and the
    store opened empty."""
    store = JSONLStore(folder)
    put(store, mem("alpha", "alpha memory"))
    store.close()
    path = folder / "memories.jsonl"
    wide = b"\xff\xfe" + path.read_text().encode("utf-16-le")
    path.write_bytes(wide)
    (folder / ".index.db").unlink()
    with pytest.raises(StoreError, match="UTF-16"):
        JSONLStore(folder)
    assert path.read_bytes() == wide and not (folder / "quarantine").exists()


@pytest.mark.parametrize(
    ("bad", "reasons"),
    [
        pytest.param(
            [{"use_count": "five"}, {"created_at": "2026-03-01T00:00:00"}],
            ["use_count:", "created_at: must be timezone-aware"],
            id="wrong-type",
        ),
        # A hand-edited counter beyond 64 bits used to reach the index's SQLite insert and
        # fail there, on every open, for good: the store could not be opened.
        pytest.param(
            [{"use_count": 10**20}, {"episode_seq": 2**64}],
            ["use_count: Input should be less than or equal to", "episode_seq:"],
            id="beyond-every-backend",
        ),
    ],
)
def test_a_bad_field_is_named_and_its_line_kept_aside(
    folder: Path,
    caplog: pytest.LogCaptureFixture,
    bad: list[dict[str, object]],
    reasons: list[str],
) -> None:
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    good = lines(folder / "memories.jsonl")[0]
    with (folder / "memories.jsonl").open("a") as f:
        for ident, change in zip("bc", bad, strict=True):
            f.write(json.dumps({**good, "id": ident, **change}) + "\n")
    with caplog.at_level(logging.WARNING, logger="engram"):
        again = JSONLStore(folder)
    messages = "\n".join(r.getMessage() for r in caplog.records)
    for line, reason in enumerate(reasons, start=2):
        assert f"line {line} is unreadable ({reason}" in messages
    assert [m.id for m in again.page(None, 10)] == ["a"]
    again.close()


def test_a_misspelled_key_or_an_unusable_id_is_named_and_the_line_still_loads(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A misspelled key ("stregth") was ignored without a word, and an id with a space
    loaded into a record no command could name. Both are named now; the lines still load,
    as they did before (kept aside, they would be lost from git: quarantine/ is ignored)."""
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    good = lines(folder / "memories.jsonl")[0]
    with (folder / "memories.jsonl").open("a") as f:
        f.write(json.dumps({**good, "id": "b", "stregth": 2.0}) + "\n")
        f.write(json.dumps({**good, "id": "has space"}) + "\n")
    before = (folder / "memories.jsonl").read_bytes()
    with caplog.at_level(logging.WARNING, logger="engram"):
        again = JSONLStore(folder)
    assert sorted(m.id for m in again.page(None, 10)) == ["a", "b", "has space"]
    assert "record 'b': 'stregth' is not a field and is ignored" in caplog.text
    assert "record 'has space': id 'has space' is not an id a command can name" in caplog.text
    assert (folder / "memories.jsonl").read_bytes() == before
    assert not (folder / "quarantine").exists()
    again.close()


def test_a_torn_last_line_does_not_corrupt_the_next_append(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    path = folder / "memories.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + whole[:40])  # a crash half-way through the second line
    again = JSONLStore(folder)
    put(again, mem("b"))
    again.close()
    assert [row["id"] for row in lines(path)] == ["a", "b"]
    (kept,) = (folder / "quarantine").iterdir()
    assert kept.read_bytes() == whole[:40] + b"\n"
    third = JSONLStore(folder)
    assert [m.id for m in third.page(None, 10)] == ["a", "b"]
    third.close()


def test_a_complete_last_line_without_newline_is_kept_and_not_glued_to(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    path = folder / "memories.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # an editor that drops the final newline
    again = JSONLStore(folder)
    put(again, mem("b"))
    again.close()
    assert [row["id"] for row in lines(path)] == ["a", "b"]
    assert not (folder / "quarantine").exists()


def test_a_date_no_store_can_give_back_quarantines_its_line(folder: Path) -> None:
    """ "Never" typed as 9999-12-31T23:59:59.999999Z rounds to the year 10000 in epoch
    seconds: the line loaded, and every open, search or delete then failed with a traceback."""
    line = {
        "id": "never",
        "content": "typed by hand",
        "created_at": "2025-01-01T00:00:00Z",
        "last_used": "9999-12-31T23:59:59.999999Z",
    }
    kept = {**line, "id": "kept", "last_used": "2025-01-02T00:00:00Z"}
    JSONLStore(folder).close()
    (folder / "memories.jsonl").write_text(json.dumps(line) + "\n" + json.dumps(kept) + "\n")
    store = JSONLStore(folder)
    assert [m.id for m in store.get_many(["never", "kept"])] == ["kept"]
    store.close()
    (bad,) = (folder / "quarantine").iterdir()
    assert json.loads(bad.read_text())["id"] == "never"


def test_a_hand_written_line_without_schedule_gets_one_at_the_next_open(folder: Path) -> None:
    store = JSONLStore(folder)
    store.reschedule_all(_compute(POLICY), "fp")
    store.close()
    line = {
        "id": "hand",
        "content": "typed by hand",
        "created_at": "2025-01-01T00:00:00Z",
        "last_used": "2025-01-01T00:00:00Z",
    }
    (folder / "memories.jsonl").write_text(json.dumps(line) + "\n")
    again = JSONLStore(folder)
    assert again.schedule_fingerprint() is None  # so the services recompute schedules
    assert again.due_for_gc(NOW, 10) == []
    assert again.reschedule_all(_compute(POLICY), "fp") == 1
    assert again.schedule_fingerprint() == "fp"
    assert again.due_for_gc(NOW, 10) == ["hand"]
    again.close()


@pytest.mark.parametrize(
    ("field", "old", "new"),
    [
        ("strength", '"strength": 1.0', '"strength": 0.01'),
        (
            "last_used",
            '"last_used": "2026-03-01T00:00:00+00:00"',
            '"last_used": "2025-01-01T00:00:00+00:00"',
        ),
    ],
)
def test_a_hand_edit_of_what_a_schedule_depends_on_makes_it_recomputed(
    folder: Path, field: str, old: str, new: str
) -> None:
    """The stored schedule was trusted after a hand edit of the values it comes from: a
    memory edited down to strength 0.01 (score below the forget threshold) was never due for
    gc. Each schedule now carries a digest of its inputs; a mismatch recomputes it."""
    store = JSONLStore(folder)
    store.reschedule_all(_compute(POLICY), "fp")
    put(store, mem("edited", "forget me"), mem("kept", "keep me"))
    store.close()
    path = folder / "memories.jsonl"
    text = path.read_text()
    first, rest = text.split("\n", 1)
    assert old in first and '"of": ' in first
    path.write_text(first.replace(old, new) + "\n" + rest)
    again = JSONLStore(folder)
    assert again.schedule_fingerprint() is None  # so the services recompute schedules
    assert again.reschedule_all(_compute(POLICY), "fp") == 2
    later = NOW + 30 * 86_400
    assert again.due_for_gc(later, 10) == ["edited"], field
    again.close()


def test_a_line_written_before_schedule_digests_keeps_its_schedule(folder: Path) -> None:
    store = JSONLStore(folder)
    store.reschedule_all(_compute(POLICY), "fp")
    put(store, mem("old"))
    store.close()
    path = folder / "memories.jsonl"
    line = json.loads(path.read_text())
    del line["_schedule"]["of"]
    path.write_text(json.dumps(line) + "\n")
    again = JSONLStore(folder)
    assert again.schedule_fingerprint() == "fp"  # trusted: no rewrite of every line
    again.close()


def _compute(policy: Policy):  # type: ignore[no-untyped-def]
    def compute(cols: ScheduleInputs) -> ScheduleArrays:
        return schedule_arrays(
            policy, cols.use_count, cols.strength, cols.last_used, cols.created_at, cols.active
        )

    return compute


# -- several store objects on one directory ---------------------------------------------------


def test_a_write_failing_part_way_leaves_the_index_as_the_files_are(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete appends to memories.jsonl, then to vectors.jsonl. If the second append fails
    (a full disk: simulated, a real one cannot be arranged here), the first is on disk: the
    index used to keep the memory, and the snapshot carried that to later processes."""
    store = JSONLStore(folder)
    put(store, mem("m1"), mem("m2"))
    store.put_vectors([("m1", np.ones(4, np.float32) / 2)], "test-model")

    def disk_full(lines: object) -> int:
        raise StoreError("cannot write vectors.jsonl: No space left on device")

    monkeypatch.setattr(store._vectors, "append", disk_full)
    with pytest.raises(StoreError, match="No space left"):
        store.delete(["m1"])
    on_disk = [line["id"] for line in lines(folder / "memories.jsonl")]
    assert on_disk[-1] == "m1"  # the tombstone of m1 was written before the failure
    assert [m.id for m in store.get_many(["m1", "m2"])] == ["m2"]  # as the files say
    store.close()
    again = JSONLStore(folder)  # from the snapshot the first store saved
    assert [m.id for m in again.get_many(["m1", "m2"])] == ["m2"]
    again.close()


def test_another_file_under_the_same_inode_is_read_again_not_appended_to(folder: Path) -> None:
    """A compaction writes a new file, and the file system may give it the old inode number.
    Simulated here by rewriting the file in place (same inode) with what such a compaction
    leaves: m00 dropped, two lines added, every line the same length, so that the size passes
    B's offset and a newline sits there. B used to take the new bytes past its offset for
    appended lines: it kept the deleted m00 and missed m10."""
    a = JSONLStore(folder)
    put(a, *(mem(f"m{i:02d}") for i in range(10)))
    b = JSONLStore(folder)
    assert b.count()[Status.ACTIVE] == 10  # B has read the file up to its end
    path = folder / "memories.jsonl"
    old = path.read_bytes().splitlines(keepends=True)
    assert len({len(line) for line in old}) == 1
    new = [*old[1:], old[0].replace(b'"m00"', b'"m10"'), old[0].replace(b'"m00"', b'"m11"')]
    inode = path.stat().st_ino
    with path.open("r+b") as f:
        f.write(b"".join(new))
    assert path.stat().st_ino == inode and path.stat().st_size > 10 * len(old[0])
    assert {m.id for m in b.get_many(["m00", "m10", "m11"])} == {"m10", "m11"}
    a.close()
    b.close()


def test_each_store_object_sees_the_others_writes(folder: Path) -> None:
    a, b = JSONLStore(folder), JSONLStore(folder)
    put(a, mem("x", "shared words"))
    assert [m.id for m in b.get_many(["x"])] == ["x"]
    b.modify(["x"], bump)
    a.modify(["x"], bump)
    assert b.get_many(["x"])[0].use_count == 2
    b.add_relation(Relation(id="r", from_id="x", to_id="x", type="related", created_at=T0))
    assert a.count_relations() == 1
    a.delete(["x"])
    assert b.get_many(["x"]) == [] and b.count_relations() == 0
    assert b.text_search(["shared"], Filter(), 5) == []
    a.close()
    b.close()


def test_compaction_by_one_object_loses_nothing_another_writes(folder: Path) -> None:
    """The upstream lost 500 memories this way: a compaction from a stale in-memory copy."""
    a, b = JSONLStore(folder), JSONLStore(folder)
    put(a, *(mem(f"a{i}") for i in range(50)))
    assert len(b.page(None, 1000)) == 50  # b has loaded a's memories
    put(b, *(mem(f"b{i}") for i in range(500)))  # a has not seen these yet
    a.delete([f"a{i}" for i in range(10)])
    result = a.compact()
    assert result.after.memories == 540 and result.after.dead_lines == 0
    put(b, mem("after"))  # b writes into the compacted file
    assert len(b.page(None, 1000)) == 541 and len(a.page(None, 1000)) == 541
    a.close()
    b.close()
    fresh = JSONLStore(folder)
    assert len(fresh.page(None, 1000)) == 541
    fresh.close()


def test_stats_and_compaction(folder: Path) -> None:
    store = JSONLStore(folder)
    assert COMPACT in store.capabilities and isinstance(store, Compactable)
    put(store, *(mem(f"m{i:04d}", f"note {i}") for i in range(600)))
    for _ in range(3):
        store.modify([f"m{i:04d}" for i in range(600)], bump)
    store.add_relation(
        Relation(id="r", from_id="m0000", to_id="m0001", type="related", created_at=T0)
    )
    store.delete(["m0001"])
    stats = store.stats()
    memories = stats.files[0]
    assert (memories.lines, memories.live, memories.tombstones) == (2401, 599, 1)
    assert stats.files[1].lines == 2 and stats.files[1].live == 0
    assert stats.compaction_recommended and "engram maintenance compact" in stats.hint
    before = store.page(None, 1000)
    size = memories.bytes
    result = store.compact()
    assert result.before == stats
    # The memories' last lines, and the tombstone, which a compaction keeps.
    assert result.after.files[0].lines == 600 and result.after.files[0].bytes < size / 3
    assert (result.after.files[0].tombstones, result.after.files[0].kept) == (1, 1)
    assert result.after.dead_lines == 0 and not result.after.compaction_recommended
    assert store.page(None, 1000) == before  # same memories, same save order
    store.close()
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    again = JSONLStore(folder)
    assert again.page(None, 1000) == before
    assert again.stats().dead_lines == 0
    again.close()


def test_vectors_follow_their_memory(folder: Path) -> None:
    store = JSONLStore(folder, vector_model=("m", 3))
    put(store, mem("a", "one"), mem("b", "two"), mem("c", "three"))
    unit = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert store.put_vectors([("a", unit), ("b", unit), ("gone", unit)], "m") == 2
    assert store.put_vectors([("c", np.ones(8, dtype=np.float32))], "other") == 1
    assert store.vector_counts() == {"m": 2, "other": 1}
    assert store.missing_vectors("m", 10) == [("c", "three")]

    def edit(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"content": "rewritten"})
        return new, memory_schedule(POLICY, new)

    store.modify(["a"], edit)  # its vector described the old text
    store.delete(["b"])
    assert store.vector_counts() == {"other": 1}
    store.compact()
    store.close()
    again = JSONLStore(folder, vector_model=("m", 3))
    assert again.vector_counts() == {"other": 1}
    assert again.vector_search(unit, Filter(), 5) == []
    again.close()


def test_a_vector_of_text_edited_by_hand_is_not_attached(folder: Path) -> None:
    """A memory whose text was edited in the file kept the old text's vector: found by
    meaning for what it used to say, never re-embedded (it had a vector). Now each vector line
    carries a digest of its text, and one that no longer matches is left out."""
    store = JSONLStore(folder, vector_model=("m", 3))
    put(store, mem("cat", "The cat sleeps on the sofa"), mem("k8s", "We deploy on Kubernetes"))
    unit = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert store.put_vectors([("cat", unit), ("k8s", unit)], "m") == 2
    store.close()
    path = folder / "memories.jsonl"
    path.write_text(path.read_text().replace("The cat sleeps on the sofa", "Revenue grew"))
    again = JSONLStore(folder, vector_model=("m", 3))
    assert again.missing_vectors("m", 10) == [("cat", "Revenue grew")]
    assert [s.id for s in again.vector_search(unit, Filter(), 5)] == ["k8s"]
    again.compact()  # keeps only the vector that still describes its memory
    again.close()
    lines = [json.loads(x) for x in (folder / "vectors.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == ["k8s"]


def test_a_vector_of_the_wrong_length_is_left_out(folder: Path) -> None:
    """One vector line cut short (a hand edit, a bad merge) made every search by meaning fail
    with "cannot reshape array"; it is left out, and the memory is missing a vector."""
    store = JSONLStore(folder, vector_model=("m", 3))
    put(store, mem("a", "one"), mem("b", "two"))
    unit = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert store.put_vectors([("a", unit), ("b", unit)], "m") == 2
    store.close()
    path = folder / "vectors.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    raw = base64.b64decode(rows[0]["vector"])
    rows[0]["vector"] = base64.b64encode(raw[:-4]).decode()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / ".index.db").unlink()
    again = JSONLStore(folder, vector_model=("m", 3))
    assert [s.id for s in again.vector_search(unit, Filter(), 5)] == ["b"]
    assert again.missing_vectors("m", 10) == [("a", "one")]
    again.close()
    # Read by a client that searches no model, the line reaches the snapshot as it is; the
    # next client that does search must still leave it out (the review's bypass).
    (folder / ".index.db").unlink()
    JSONLStore(folder).close()
    third = JSONLStore(folder, vector_model=("m", 3))
    assert [s.id for s in third.vector_search(unit, Filter(), 5)] == ["b"]
    assert set(third.get_vectors(["a", "b"], "m")) == {"b"}
    third.close()


# -- the index snapshot -----------------------------------------------------------------------


def _decoded_lines(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every memory line the store decodes from now on (reading the files into its index)."""
    import engram.storage.jsonl.store as module

    seen: list[bytes] = []
    real = module.decode_memory

    def counting(raw: bytes):  # type: ignore[no-untyped-def]
        seen.append(raw)
        return real(raw)

    monkeypatch.setattr(module, "decode_memory", counting)
    return seen


def test_a_reopened_store_reads_only_the_lines_appended_since_its_snapshot(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = JSONLStore(folder, vector_model=("m", 3))
    put(store, *(mem(f"m{i}", f"memory number {i}") for i in range(20)))
    store.put_vectors([("m1", np.array([1.0, 0.0, 0.0], dtype=np.float32))], "m")
    assert [s.id for s in store.vector_search(np.array([1.0, 0.0, 0.0]), Filter(), 1)] == ["m1"]
    store.close()
    assert (folder / ".index.db").exists() and (folder / ".index.db.vectors.usearch").exists()
    assert ".index.db" in (folder / ".gitignore").read_text().split()
    other = JSONLStore(folder)  # another process appends after the snapshot was taken
    put(other, mem("late", "appended after the snapshot"))
    other.modify(["m3"], bump)
    seen = _decoded_lines(monkeypatch)
    again = JSONLStore(folder, vector_model=("m", 3))
    assert len(seen) == 2  # the two appended lines, not the 22 of the file
    assert sum(again.count().values()) == 21
    assert [s.id for s in again.text_search(["appended"], Filter(), 5)] == ["late"]
    assert again.get_many(["m3"])[0].use_count == 1
    assert [s.id for s in again.vector_search(np.array([1.0, 0.0, 0.0]), Filter(), 1)] == ["m1"]
    assert again.stats().files[0].lines == 22
    again.close()
    other.close()


def test_a_file_edited_in_place_since_the_snapshot_is_read_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = JSONLStore(folder)
    put(store, mem("a", "original alpha"), mem("b", "original beta"))
    store.close()
    path = folder / "memories.jsonl"
    text = path.read_text()
    path.write_text(text.replace("original alpha", "replaced alpha"))  # same size, same inode
    seen = _decoded_lines(monkeypatch)
    again = JSONLStore(folder)
    assert len(seen) == 2
    assert again.get_many(["a"])[0].content == "replaced alpha"
    assert [s.id for s in again.text_search(["original"], Filter(), 5)] == ["b"]
    again.close()


def test_a_damaged_or_foreign_snapshot_is_ignored_and_replaced(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a", "kept in the files"))
    store.close()
    (folder / ".index.db").write_bytes(b"not a database" * 100)
    again = JSONLStore(folder)
    assert [s.id for s in again.text_search(["files"], Filter(), 5)] == ["a"]
    again.close()
    snapshot = SQLiteStore(folder / ".index.db")  # the next close left a good one
    state = json.loads(snapshot.meta_value("jsonl_snapshot") or "{}")
    snapshot.set_meta_value("jsonl_snapshot", json.dumps({**state, "format": 999}))
    snapshot.close()
    third = JSONLStore(folder)  # a snapshot of another format is read as if absent
    assert [s.id for s in third.text_search(["files"], Filter(), 5)] == ["a"]
    third.close()


def test_a_compaction_after_the_snapshot_is_followed(folder: Path) -> None:
    store = JSONLStore(folder)
    put(store, mem("a", "first"), mem("b", "second"))
    store.modify(["a"], bump)
    store.close()
    compactor = JSONLStore(folder)
    store_b = JSONLStore(folder)  # opened from the snapshot, then the files are compacted
    compactor.delete(["b"])
    compactor.compact()
    compactor.close()
    assert sum(store_b.count().values()) == 1
    store_b.close()
    again = JSONLStore(folder)
    assert [m.id for m in again.get_many(["a", "b"])] == ["a"]
    assert again.stats().dead_lines == 0
    again.close()


def test_an_old_gitignore_learns_of_the_snapshot(folder: Path) -> None:
    JSONLStore(folder).close()
    ignore = folder / ".gitignore"
    old = ignore.read_text().split("# the search index")[0]
    ignore.write_text(old + "my own line\n")
    JSONLStore(folder).close()
    text = ignore.read_text()
    assert "my own line" in text and ".index.db" in text.split()
    assert text.count(".index.db\n") == 1


def test_an_old_gitignore_learns_of_the_lock_files(folder: Path) -> None:
    """An early .gitignore named only `.lock`: the pipeline's `.pipeline.lock` showed in git
    status, to be committed."""
    JSONLStore(folder).close()
    ignore = folder / ".gitignore"
    ignore.write_text(ignore.read_text().replace(".*.lock\n", ""))
    JSONLStore(folder).close()
    assert ignore.read_text().split().count(".*.lock") == 1


def test_a_gitignore_of_the_users_gets_engrams_lines(tmp_path: Path) -> None:
    """A store made at the root of a repository that had its own .gitignore (a template's)
    got none of Engram's lines, and `git add -A` committed the index cache and the lock
    files, which conflicted at every pull from the other machine (a probe)."""
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / ".gitignore").write_text("__pycache__/\n*.log\n")
    JSONLStore(folder).close()
    JSONLStore(folder).close()  # and only once
    text = (folder / ".gitignore").read_text()
    assert text.startswith("__pycache__/\n*.log\n")
    assert {".index.db", ".lock", ".*.lock", ".*.head", "ltm.db"} <= set(text.split())
    assert text.count(".index.db\n") == 1


# -- real processes ---------------------------------------------------------------------------

COMPACTOR = textwrap.dedent(
    """
    import sys, time
    from engram.storage.jsonl import JSONLStore
    store = JSONLStore(sys.argv[1])
    pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    n = 0
    while True:
        store.compact()
        n += 1
        print(n, flush=True)
        time.sleep(pause)  # lets writers in between compactions
    """
)
NO_EMBEDDINGS = {**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"}

WRITER = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1]) as mem:
        ids = [mem.save(f"writer note {i}", tags=["w"]).id for i in range(int(sys.argv[2]))]
        for ident in ids[::2]:
            mem.touch(ident)
    print(len(ids))
    """
)


@pytest.mark.slow
def test_compaction_in_another_process_loses_no_write(tmp_path: Path) -> None:
    url = f"jsonl://{tmp_path / 'shared'}"
    from engram import Engram

    with Engram.open(url, embedding_model="none") as mem:
        keep = [mem.save(f"kept {i}").id for i in range(50)]
    compactor = subprocess.Popen(
        [sys.executable, "-c", COMPACTOR, str(tmp_path / "shared"), "0.05"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert compactor.stdout is not None
    compactor.stdout.readline()  # it is compacting
    writer = subprocess.run(
        [sys.executable, "-c", WRITER, url, "200"],
        capture_output=True,
        text=True,
        timeout=300,
        env=NO_EMBEDDINGS,
    )
    compacted = int(compactor.stdout.readline())
    compactor.kill()
    compactor.wait()
    compactor.stdout.close()
    assert writer.returncode == 0, writer.stderr
    assert compacted >= 2  # compactions really interleaved with the writes
    with Engram.open(url, embedding_model="none") as mem:
        hits = mem.search(tags=["w"], limit=100, status="all")
        assert mem.stats().total == 250 and len(hits) == 100
        assert len(mem.get_many(keep)) == 50
        touched = [h.memory for h in hits if h.memory.use_count == 1]
        assert touched  # touches survived compactions too
    store = JSONLStore(tmp_path / "shared")
    counts = {m.content: m.use_count for m in store.page(None, 1000)}
    store.close()
    assert sum(counts.values()) == 100  # every other one of the 200 was touched, none lost


@pytest.mark.slow
def test_kill_9_during_compaction_leaves_a_loadable_store_with_everything(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    store = JSONLStore(folder)
    put(store, *(mem(f"m{i:04d}", f"content {i} " + "x" * 200) for i in range(2000)))
    for _ in range(2):
        store.modify([f"m{i:04d}" for i in range(0, 2000, 2)], bump)
    expected = store.page(None, 5000)
    store.close()
    for round_ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", COMPACTOR, str(folder)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        for _ in range(round_ + 1):
            proc.stdout.readline()
        os.kill(proc.pid, signal.SIGKILL)  # somewhere inside the next compaction
        proc.wait()
        proc.stdout.close()
        again = JSONLStore(folder)
        # Every memory as it was; a compaction that finished may have moved a changed memory
        # to its current line's place in saving order (docs/storage.md, "Upkeep").
        assert sorted(again.page(None, 5000), key=lambda m: m.id) == expected
        again.close()
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert all(name.startswith(".") for name in leftovers)  # hidden, ignored, never loaded


SAVER = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1], embedding_model="none") as mem:
        i = 0
        while True:
            m = mem.save(f"crash test note {i} " + "x" * 500)
            mem.touch(m.id)
            print(m.id, flush=True)
            i += 1
    """
)


@pytest.mark.slow
def test_kill_9_during_appends_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    url = f"jsonl://{tmp_path / 'crash'}"
    proc = subprocess.Popen([sys.executable, "-c", SAVER, url], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acknowledged = [proc.stdout.readline().strip() for _ in range(200)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acknowledged += [line.strip() for line in proc.stdout.read().splitlines() if line.strip()]
    proc.stdout.close()
    store = JSONLStore(tmp_path / "crash")
    found = {m.id: m for m in store.page(None, 100_000)}
    assert set(acknowledged) <= set(found)  # every acknowledged save, and its touch
    assert all(found[i].use_count == 1 for i in acknowledged)
    assert len(found) - len(acknowledged) <= 1  # at most the save in flight
    assert len(store.text_search(["crash"], Filter(), 5)) == 5
    store.close()


CUT_SHORT = textwrap.dedent(
    """
    import os, resource, signal, sys
    from datetime import UTC, datetime
    from engram.core.models import Memory, Schedule
    from engram.storage.jsonl import JSONLStore
    store = JSONLStore(sys.argv[1])
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    batch = [
        (Memory(id=f"batch-{i}", content=f"one of a batch {i} " + "x" * 2000,
                created_at=t0, last_used=t0), Schedule())
        for i in range(200)
    ]
    size = os.path.getsize(os.path.join(sys.argv[1], "memories.jsonl"))
    # The kernel writes up to the limit and kills the process (SIGXFSZ, which Python ignores
    # unless told otherwise) at its next write: a write cut short as a kill -9 cuts it.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100_000, resource.RLIM_INFINITY))
    store.insert(batch)
    print("not cut", flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="file size limits are POSIX")
def test_a_write_of_several_lines_killed_part_way_counts_for_none_of_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A merge writes the originals archived and the merged memory active as one append; a
    kill in it left whole lines of the first part and a torn last line, and the originals
    stayed archived beside no merged memory (a kill test, one run in many). The whole write is
    set aside now, its lines kept in quarantine/."""
    folder = tmp_path / "store"
    open_before = JSONLStore(folder)  # catches up on the file after the kill
    put(open_before, mem("before", "saved before the batch"))
    child = subprocess.run(
        [sys.executable, "-c", CUT_SHORT, str(folder)], capture_output=True, text=True
    )
    assert child.returncode == -signal.SIGXFSZ, child.stderr
    written = (folder / "memories.jsonl").read_bytes()
    assert written.count(b'"batch-') > 10 and not written.endswith(b"\n")  # whole lines, torn
    with caplog.at_level(logging.WARNING):
        assert {m.id for m in open_before.page(None, 1000)} == {"before"}
        open_before.close()
        store = JSONLStore(folder)
        assert {m.id for m in store.page(None, 1000)} == {"before"}  # none of it, nothing lost
        put(store, mem("after", "saved after the crash"))
        store.close()
    assert "write of" in caplog.text and "did not finish" in caplog.text
    (kept,) = (folder / "quarantine").iterdir()
    assert kept.read_bytes().count(b'"batch-') == written.count(b'"batch-')
    store = JSONLStore(folder)
    assert {m.id for m in store.page(None, 1000)} == {"before", "after"}
    store.close()


HOLDER = textwrap.dedent(
    """
    import sys
    from engram.storage.jsonl import JSONLStore
    store = JSONLStore(sys.argv[1])
    print(store._index_dir.path, flush=True)
    sys.stdin.read()  # keeps the store open until the test closes stdin or kills it
    """
)


def test_the_index_folder_of_a_killed_process_is_removed_by_the_next_one_to_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed process (SIGKILL, or the MCP server's exit on SIGTERM) cannot remove its
    private copy of the index; the next store to open removes it, and only those of dead
    processes. Before, every kill left one in the temporary folder for good."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}

    def holder() -> tuple[subprocess.Popen[str], Path]:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(tmp_path / "store")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        return proc, Path(proc.stdout.readline().strip())

    killed, killed_dir = holder()
    alive, alive_dir = holder()
    os.kill(killed.pid, signal.SIGKILL)
    killed.communicate()
    assert killed_dir.is_dir() and alive_dir.is_dir()
    assert killed_dir.parent == temp

    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    old = os.path.getmtime(killed_dir) - scratch.ORPHAN_AGE - 1
    for folder in (killed_dir, alive_dir):
        os.utime(folder, (old, old))  # as if both were older than a starting process's
    store = JSONLStore(tmp_path / "store")
    assert not killed_dir.exists()
    assert alive_dir.is_dir()  # its process still holds the lock
    assert store._index_dir is not None and store._index_dir.path.parent == temp

    alive.communicate("")  # closes its stdin: it exits normally and removes its own
    assert not alive_dir.exists()
    store.close()
    assert [p.name for p in temp.iterdir()] == []


def test_a_young_or_lockless_index_folder_is_left_alone(tmp_path: Path) -> None:
    """A folder just created (its process may not hold the lock yet) or without an owner lock
    (from an Engram before the sweep, whose process may be alive) is never removed."""
    young = tmp_path / (scratch.PREFIX + "young")
    young.mkdir()
    (young / scratch.OWNER).touch()
    lockless = tmp_path / (scratch.PREFIX + "old")
    lockless.mkdir()
    os.utime(lockless, (0, 0))
    assert scratch.sweep_orphans(tmp_path) == []
    assert young.is_dir() and lockless.is_dir()
    assert scratch.sweep_orphans(tmp_path, min_age=0) == [young]


def test_a_damaged_index_snapshot_is_rebuilt_from_the_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The snapshot is a cache: pages of it damaged (here the full-text index's, found with
    SQLite's dbstat) failed every search, telling the user to restore a backup of files that
    were intact, and the damaged snapshot was never replaced. The index is rebuilt from the
    files, the search answers, and the next open finds a sound snapshot."""
    from engram import Draft, Engram

    path = tmp_path / "store"
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        m.save_many([Draft(content=f"note {i} about kiwi and mango") for i in range(500)])
    snapshot_file = path / ".index.db"
    with sqlite3.connect(snapshot_file) as conn:
        query = "SELECT pageno FROM dbstat WHERE name = 'memories_fts_data'"
        pages = [p for (p,) in conn.execute(query)]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    with snapshot_file.open("r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xff" * size)
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        assert len(m.search("kiwi", limit=10)) == 10
    assert "is damaged: rebuilding it from the files" in caplog.text
    caplog.clear()
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        assert len(m.search("mango", limit=10)) == 10
    assert "damaged" not in caplog.text


def test_a_memory_deleted_by_hand_loses_its_links_even_when_the_tombstone_goes_first(
    tmp_path: Path,
) -> None:
    """A tombstone typed by hand is the documented way to delete; the next compaction drops
    the memory's relation and vector lines. A line without a schedule (also typed by hand)
    makes the next open rewrite memories.jsonl first, which dropped the tombstone: compaction
    then took the relation line for a quarantined memory's and kept it for ever. The rewrite
    keeps it now (it drops no line)."""
    from engram import Engram

    path = tmp_path / "store"
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        a, b = m.save("alpha apples"), m.save("beta bananas")
        m.create_relation(a.id, b.id)
    with (path / "memories.jsonl").open("a") as f:
        f.write(json.dumps({"id": a.id, "_deleted": True}) + "\n")
        hand = {
            "id": "hand-1",
            "content": "written by hand",
            "created_at": "2026-01-01T10:00:00Z",
            "last_used": "2026-01-02T10:00:00Z",
        }
        f.write(json.dumps(hand) + "\n")
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        assert m.stats().total == 2  # the schedules computed, memories.jsonl rewritten
        assert '"_schedule"' in (path / "memories.jsonl").read_text().splitlines()[-1]
        assert '"_deleted"' in (path / "memories.jsonl").read_text()
        m.compact()
        assert (path / "relations.jsonl").read_text() == ""
        assert m.stats().total == 2 and m.stats().relations == 0


def test_compaction_rewrites_a_linked_file_where_it_points(tmp_path: Path) -> None:
    """memories.jsonl as a link into another folder (a dotfiles repository): compaction
    replaced the link with a copy, and later saves went to the copy."""
    from engram import Engram

    path, elsewhere = tmp_path / "store", tmp_path / "dotfiles"
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        first = m.save("kept in the dotfiles repository")
    elsewhere.mkdir()
    (path / "memories.jsonl").rename(elsewhere / "memories.jsonl")
    (path / "memories.jsonl").symlink_to(elsewhere / "memories.jsonl")
    with Engram.open(f"jsonl://{path}", embedding_model="none") as m:
        m.update(first.id, content="edited, so there is a dead line to drop")
        m.compact()
        m.save("saved after the compaction")
    assert (path / "memories.jsonl").is_symlink()
    lines = (elsewhere / "memories.jsonl").read_text().splitlines()
    assert len(lines) == 2 and "saved after the compaction" in lines[1]


def test_a_lock_file_deleted_while_a_client_has_it_open_still_excludes(tmp_path: Path) -> None:
    """`.lock` is git-ignored, so `git clean -X` removes it (as does a user removing a "stale"
    lock) while a client runs: a client opened after locked a new file, the two no longer
    excluded each other, and of 600 concurrent touches 324 counted (audit)."""
    from engram.storage.jsonl.files import DirLock

    path = tmp_path / ".lock"
    first = DirLock(path)
    path.unlink()
    second = DirLock(path)  # creates a new .lock
    acquired = threading.Event()

    def take() -> None:
        with second.hold(exclusive=True):
            acquired.set()

    with first.hold(exclusive=True):
        taker = threading.Thread(target=take, daemon=True)
        taker.start()
        assert not acquired.wait(0.5), "the second client got the lock the first holds"
    assert acquired.wait(30)
    taker.join(30)
    first.close()
    second.close()


def test_a_store_folder_deleted_while_open_is_the_same_clear_error_until_it_is_back(
    tmp_path: Path,
) -> None:
    """The first request after the folder was deleted said it could not open the lock file;
    every later one failed with "Bad file descriptor" (the closed descriptor's number was kept
    and locked again, possibly someone else's file by then), and restoring the folder did not
    always help (audit)."""
    from engram import Engram

    folder = tmp_path / "store"
    with Engram.open(f"jsonl://{folder}", embedding_model="none") as mem:
        kept = mem.save("Saved before the folder went")
        aside = tmp_path / "aside"
        folder.rename(aside)
        for _ in range(3):
            with pytest.raises(StoreError, match=r"lock"):
                mem.touch(kept.id)
        aside.rename(folder)  # restored
        assert mem.touch(kept.id).use_count == 1
        mem.save("Saved once it was back")
    with Engram.open(f"jsonl://{folder}", embedding_model="none") as mem:
        assert sorted(m.content for m in mem.read_graph().memories) == [
            "Saved before the folder went",
            "Saved once it was back",
        ]


def test_a_temporary_file_a_killed_compaction_left_goes_at_the_next_rewrite(folder: Path) -> None:
    """Killed before its rename, a compaction left `.memories.jsonl.<id>.tmp`, as large as the
    file, and later compactions never removed it. One as young as another writer's is kept."""
    store = JSONLStore(folder)
    put(store, *(mem(f"m{i}") for i in range(20)))
    stale = folder / ".memories.jsonl.0123abcd.tmp"
    young = folder / ".memories.jsonl.4567ef01.tmp"
    leftover_temporaries(stale, young)
    store.compact()
    assert not stale.exists() and young.exists()
    assert len(store.page(None, 100)) == 20
    store.close()


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows has ACLs")
def test_a_new_jsonl_stores_files_are_readable_by_their_owner_alone(tmp_path: Path) -> None:
    """A SQLite store is owner-only (600); a JSONL store's files, the same memories' text, were
    readable by every user of the machine under the common umask (a probe). Locks and the
    .gitignore hold no memory."""
    old = os.umask(0o022)
    try:
        with Engram.open(f"jsonl://{tmp_path / 'j'}") as engram:
            a, b = engram.save("The door code is 4411"), engram.save("The gate code is 9911")
            engram.create_relation(a.id, b.id)
            engram.flush()
            engram.compact()
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "j").iterdir() if p.is_file()}
    kept = {n for n in modes if "lock" not in n and n != ".gitignore"}
    assert {"memories.jsonl", "relations.jsonl", "vectors.jsonl", "meta.json", ".index.db"} <= kept
    assert {n: modes[n] for n in kept} == dict.fromkeys(kept, 0o600)
