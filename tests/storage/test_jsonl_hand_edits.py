"""The JSONL files edited by hand, or put together by hand, while clients have the store open:
what the files say after an edit is what every client reads, and compaction keeps it."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from tests.storage.test_jsonl import T0, lines, mem, put

from engram import Engram, FixedClock
from engram.config import Settings
from engram.core.models import Relation
from engram.errors import ConfigError, StoreError
from engram.storage.factory import open_store
from engram.storage.jsonl import JSONLStore


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "store"


def edge(ident: str, strength: float, **metadata: object) -> Relation:
    return Relation(
        id=ident,
        from_id="a",
        to_id="b",
        type="related",
        strength=strength,
        metadata=metadata,
        created_at=T0,
    )


def linked_then_torn(folder: Path) -> tuple[Path, bytes]:
    """A store of "a" and "b", an edge and a vector each; then "a"'s line torn and quarantined
    by the next open. Returns memories.jsonl and the good line of "a"."""
    store = JSONLStore(folder, vector_model=("m", 4))
    put(store, mem("a"), mem("b"))
    store.add_relation(edge("ab", 0.9))
    store.put_vectors([(i, np.full(4, 0.5, dtype=np.float32)) for i in "ab"], "m")
    store.close()
    path = folder / "memories.jsonl"
    good_a, rest = path.read_bytes().split(b"\n", 1)
    path.write_bytes(b'{"id": "a", "content": "torn\n' + rest)
    JSONLStore(folder, vector_model=("m", 4)).close()  # "a" goes to quarantine/
    return path, good_a


def test_storage_stats_say_what_waits_in_quarantine(folder: Path) -> None:
    """A line moved aside was said once, as a warning of the open that moved it; afterwards
    no statistics showed it, and `git commit -a` carried its removal to the other clone (a
    probe)."""
    linked_then_torn(folder)
    store = JSONLStore(folder, vector_model=("m", 4))
    try:
        stats = store.stats()
    finally:
        store.close()
    assert stats.quarantined == 1 and "1 unreadable lines wait in quarantine/" in stats.hint


def test_a_memory_put_back_from_quarantine_by_appending_keeps_its_links(folder: Path) -> None:
    """Appended back, the memory's line is read alone: its relation and vector lines, read
    before it, were not in the index, and compaction (which wrote the files from the index)
    deleted them for good."""
    path, good_a = linked_then_torn(folder)
    with path.open("ab") as f:  # the user appends it back: `cat fixed.jsonl >> memories.jsonl`
        f.write(good_a + b"\n")
    repaired = JSONLStore(folder, vector_model=("m", 4))
    repaired.compact()
    assert [r.id for r in repaired.relations(["a"])] == ["ab"]
    assert repaired.vector_counts() == {"m": 2}
    repaired.close()
    assert [x["id"] for x in lines(folder / "relations.jsonl")] == ["ab"]
    assert sorted(str(x["id"]) for x in lines(folder / "vectors.jsonl")) == ["a", "b"]


def test_a_memory_deleted_by_a_tombstone_typed_by_hand_loses_its_links_at_compaction(
    folder: Path,
) -> None:
    """A tombstone typed by hand comes without the tombstones of the memory's relations and
    vectors: compaction took those for the links of a quarantined memory and kept them for ever
    (while reporting none kept)."""
    store = JSONLStore(folder, vector_model=("m", 4))
    put(store, mem("a"), mem("b"))
    store.add_relation(edge("ab", 0.9))
    store.put_vectors([(i, np.full(4, 0.5, dtype=np.float32)) for i in "ab"], "m")
    store.close()
    with (folder / "memories.jsonl").open("ab") as f:
        f.write(b'{"id": "a", "_deleted": true}\n')
    again = JSONLStore(folder, vector_model=("m", 4))
    again.compact()
    stats = again.stats()
    again.close()
    assert lines(folder / "relations.jsonl") == []
    assert [x["id"] for x in lines(folder / "vectors.jsonl")] == ["b"]
    assert all(f.dead == 0 for f in stats.files)


def test_links_put_back_by_a_compaction_reach_the_next_client(folder: Path) -> None:
    """The compaction of a store whose quarantined memory was put back read its links again,
    but wrote the files as they were: the index the next client opens from (the snapshot) was
    left as it had been, without the link, and every client after it trusted it."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.add_relation(edge("ab", 0.9))
    store.close()
    path = folder / "memories.jsonl"
    good_a, rest = path.read_bytes().split(b"\n", 1)
    path.write_bytes(b'{"id": "a", "content": "torn\n' + rest)
    JSONLStore(folder).close()  # "a" goes to quarantine/, the snapshot holds no link
    with path.open("ab") as f:
        f.write(good_a + b"\n")
    JSONLStore(folder).close()  # reads the line alone: its link waits for a whole read
    repaired = JSONLStore(folder)
    repaired.compact()  # the whole read
    repaired.close()
    later = JSONLStore(folder)
    assert [r.id for r in later.relations(["a"])] == ["ab"]
    later.close()


def test_a_memory_back_in_the_files_has_its_links_at_once(folder: Path) -> None:
    """Its line put back after quarantine, or after a tombstone typed by hand, the memory was
    read alone: its relation and vector waited for a compaction or a cold open, and a migration
    of the store said "verified" without them (a helper's probe)."""
    path, good_a = linked_then_torn(folder)
    with path.open("ab") as f:
        f.write(good_a + b"\n")
    back = JSONLStore(folder, vector_model=("m", 4))  # the snapshot, then the line alone
    assert [r.id for r in back.relations(["a"])] == ["ab"]
    assert back.vector_counts() == {"m": 2}
    with path.open("ab") as f:  # deleted by a tombstone typed by hand, read by this client
        f.write(b'{"id": "a", "_deleted": true}\n')
    assert back.relations(["b"]) == []
    with path.open("ab") as f:  # and put back
        f.write(good_a + b"\n")
    assert [r.id for r in back.relations(["a"])] == ["ab"]
    assert back.vector_counts() == {"m": 2}
    back.close()


def test_an_edit_in_place_of_the_same_length_reaches_open_clients(folder: Path) -> None:
    """An editor that saves in place (same file, same length) changed a line before the last
    bytes a client compares: the client kept the old text, and its next write undid the edit."""
    writer = JSONLStore(folder)
    put(writer, *(mem(f"m{i}", f"memory number {i} about the garden") for i in range(20)))
    reader = JSONLStore(folder)
    assert reader.get_many(["m0"])[0].content == "memory number 0 about the garden"
    path = folder / "memories.jsonl"
    with path.open("r+b") as f:  # same inode, same size: only the first line differs
        data = f.read()
        f.seek(0)
        f.write(data.replace(b"memory number 0 about", b"MEMORY NUMBER 0 ABOUT", 1))
    assert reader.get_many(["m0"])[0].content == "MEMORY NUMBER 0 ABOUT the garden"
    writer.close()
    reader.close()


@pytest.mark.parametrize("appended_by", ["the editor", "another client"])
def test_an_edit_in_place_reaches_open_clients_when_lines_were_added_too(
    folder: Path, appended_by: str
) -> None:
    """Only a file of the same length was checked whole: an edit in place followed by a line
    added (in the editor, or by another client's save) passed the check of the last bytes, the
    client kept the old text, and its next touch wrote it back over the edit."""
    writer = JSONLStore(folder)
    put(writer, *(mem(f"m{i}", f"memory number {i} about the garden") for i in range(20)))
    reader = JSONLStore(folder)
    assert reader.get_many(["m0"])[0].content == "memory number 0 about the garden"
    path = folder / "memories.jsonl"
    with path.open("r+b") as f:  # same inode; the first line changes
        data = f.read()
        f.seek(0)
        f.write(data.replace(b"memory number 0 about", b"MEMORY NUMBER 0 ABOUT", 1))
    if appended_by == "the editor":
        with path.open("ab") as f:
            f.write(json.dumps({**json.loads(data.split(b"\n")[1]), "id": "added"}).encode())
            f.write(b"\n")
    else:
        put(JSONLStore(folder), mem("added", "saved by another client"))
    assert reader.get_many(["m0"])[0].content == "MEMORY NUMBER 0 ABOUT the garden"
    assert reader.get_many(["added"])
    writer.close()
    reader.close()


def test_another_clients_save_is_read_without_reading_the_whole_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above must not cost a read of the whole file at every save of another
    client: the writer, which checked the file the same way, leaves the digest of what it
    wrote beside it (bench/jsonl_catch_up.py: 0.45 against 20 ms at 20,000 memories)."""
    writer = JSONLStore(folder)
    put(writer, *(mem(f"m{i}", f"memory number {i} about the garden") for i in range(20)))
    reader = JSONLStore(folder)
    assert reader.get_many(["m0"])
    put(writer, mem("new", "saved by the other client"))

    def whole_read(*_args: object) -> object:
        raise AssertionError("the whole file was read again")

    monkeypatch.setattr("engram.storage.jsonl.files._prefix_digest", whole_read)
    assert reader.get_many(["new"])[0].content == "saved by the other client"
    writer.close()
    reader.close()
    ignored = (folder / ".gitignore").read_text().split()
    assert ".*.head" in ignored and ".*.batch" in ignored  # a cache, not history


@pytest.mark.parametrize(
    ("file", "old", "new"),
    [
        ("memories.jsonl", '"meta": {}', '"meta": {"score": 1e999}'),
        ("memories.jsonl", '"meta": {}', '"meta": {"score": NaN}'),
        ("relations.jsonl", '"metadata": {}', '"metadata": {"w": -Infinity}'),
    ],
)
def test_a_number_json_cannot_hold_is_quarantined_not_read(
    folder: Path, file: str, old: str, new: str
) -> None:
    """Read as infinity or NaN, such a number made every later write of its line fail with a
    ValueError (a compaction, a touch of the memory): the line is quarantined when read."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.add_relation(edge("ab", 0.5))
    store.close()
    path = folder / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    reopened = JSONLStore(folder)
    reopened.compact()  # raised ValueError: Out of range float values are not JSON compliant
    reopened.close()
    (bad,) = (folder / "quarantine").iterdir()
    assert bad.name.startswith(file)
    assert "1e999" not in (folder / file).read_text() and "NaN" not in path.read_text()


def test_a_nul_typed_into_a_memory_line_is_quarantined_as_every_other_way_in_refuses_it(
    folder: Path,
) -> None:
    """Read as it was, a NUL in a memory's text made every export of the store fail to
    restore (an import refuses it), though the store said nothing (a helper's probe)."""
    store = JSONLStore(folder)
    put(store, mem("a", "first"), mem("b", "second"))
    store.close()
    path = folder / "memories.jsonl"
    path.write_text(path.read_text().replace('"content": "first"', '"content": "fi\\u0000rst"'))
    reopened = JSONLStore(folder)
    assert [m.id for m in reopened.get_many(["a", "b"])] == ["b"]
    reopened.close()
    (bad,) = (folder / "quarantine").iterdir()
    assert bad.name.startswith("memories.jsonl")


def test_a_jsonl_stores_index_cache_is_refused_as_a_store(folder: Path) -> None:
    """Opened as a SQLite store and written to, the cache's memories then showed in the JSONL
    store (a helper's probe)."""
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    assert (folder / ".index.db").exists()
    with pytest.raises(ConfigError, match="index a JSONL store keeps"):
        open_store(str(folder / ".index.db"), Settings())


def test_the_last_line_of_a_relation_wins_as_for_memories(folder: Path) -> None:
    """A relation appended again with a new strength (an edit, or two files merged in git)
    was ignored, the first line standing, and compaction dropped the later one."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.add_relation(edge("ab", 0.9))
    store.close()
    with (folder / "relations.jsonl").open("a") as f:
        f.write(edge("ab", 0.2, note="weak").model_dump_json() + "\n")
    reopened = JSONLStore(folder)
    (found,) = reopened.relations(["a"])
    assert (found.strength, found.metadata) == (0.2, {"note": "weak"})
    reopened.compact()
    reopened.close()
    assert [(x["strength"], x["metadata"]) for x in lines(folder / "relations.jsonl")] == [
        (0.2, {"note": "weak"})
    ]


def test_a_deleted_memorys_unattached_vector_is_retired(folder: Path) -> None:
    """A memory's text edited by hand detaches its vector (it describes the old text); deleting
    the memory then left that vector line live, and every compaction kept it as an orphan's."""
    store = JSONLStore(folder, vector_model=("m", 4))
    put(store, mem("a", "the original text"), mem("b"))
    store.put_vectors([(i, np.full(4, 0.5, dtype=np.float32)) for i in "ab"], "m")
    store.close()
    path = folder / "memories.jsonl"
    first, rest = path.read_text().split("\n", 1)
    edited = {**json.loads(first), "content": "the corrected text"}
    path.write_text(json.dumps(edited) + "\n" + rest)
    reopened = JSONLStore(folder, vector_model=("m", 4))
    assert reopened.vector_counts() == {"m": 1}  # "a"'s vector is of its old text
    reopened.delete(["a", "b"])
    reopened.compact()
    vectors = reopened.stats().files[2]
    assert (vectors.lines, vectors.live, vectors.kept) == (2, 0, 2)  # the tombstones stay
    reopened.close()
    assert lines(folder / "vectors.jsonl") == [{"id": i, "_deleted": True} for i in "ab"]


def test_a_running_client_schedules_a_line_edited_by_hand(tmp_path: Path) -> None:
    """A running client read the edited line but kept it unscheduled until it was restarted:
    a memory edited to fade long ago was never due for gc, nor counted in stats."""
    url = f"jsonl://{tmp_path / 'store'}"
    clock = FixedClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Engram.open(url, clock=clock, embedding_model="none") as running:
        ids = [running.save(f"note {i} about topic {i}").id for i in range(3)]
        assert running.gc(dry_run=True).count == 0
        path = tmp_path / "store" / "memories.jsonl"
        edited = []
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record["id"] == ids[0]:
                old = "2020-01-01T00:00:00+00:00"
                record.update(strength=0.1, created_at=old, last_used=old)
            edited.append(json.dumps(record))
        replacement = path.with_name("edited.tmp")  # as an editor saves: a new file
        replacement.write_text("\n".join(edited) + "\n")
        replacement.replace(path)
        assert running.stats().due_for_gc == 1
        assert running.gc(dry_run=True).memory_ids == [ids[0]]


def test_a_line_glued_onto_a_last_line_without_newline_is_quarantined_not_lost(
    folder: Path,
) -> None:
    """An editor left the last line without its newline, a client read it so, and then a line
    was appended right after it (`>>`): the client took the new bytes for the end of the line
    it had, never read them, and a compaction wrote the files without them, unquarantined
    (audit). The glued line is unreadable as a whole: it goes to quarantine/, byte for byte."""
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    path = folder / "memories.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # saved without a final newline
    running = JSONLStore(folder)
    assert [m.id for m in running.get_many(["a"])] == ["a"]
    glued = json.dumps({"id": "b", "content": "zebra", "created_at": T0.isoformat()}).encode()
    with path.open("ab") as f:
        f.write(glued + b"\n")
    assert running.get_many(["a", "b"]) == []  # the whole line is one unreadable line
    running.compact()
    running.close()
    (moved,) = (folder / "quarantine").iterdir()
    assert glued in moved.read_bytes()


@pytest.mark.parametrize(
    "window", [{"danger_from": 20.0, "danger_until": 10.0}, {"danger_until": None}]
)
def test_a_schedule_window_edited_out_of_order_is_recomputed(
    folder: Path, window: dict[str, object]
) -> None:
    """`_schedule` is derived: a window edited to end before it starts, or left with one end,
    its digest unchanged, made the index refuse the line, and no command could open the
    store ("rtree constraint failed", naming no file or line; audit)."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b", use_count=5))
    store.close()
    path = folder / "memories.jsonl"
    records = lines(path)
    for record in records:
        schedule = record["_schedule"]
        assert isinstance(schedule, dict)
        schedule.update(window)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    reopened = JSONLStore(folder)
    assert sorted(m.id for m in reopened.get_many(["a", "b"])) == ["a", "b"]
    reopened.close()


@pytest.mark.parametrize(
    ("kind", "told"), [("folder", "it is a folder"), ("pipe", "it is not a regular file")]
)
def test_a_folder_or_a_pipe_in_a_files_place_is_refused_naming_it(
    folder: Path, kind: str, told: str
) -> None:
    """A folder answered "[Errno 21] Is a directory", naming no file, and a named pipe made
    opening the store wait for a writer for ever (a helper's probe)."""
    store = JSONLStore(folder)
    put(store, mem("a"))
    store.close()
    path = folder / "memories.jsonl"
    path.unlink()
    if kind == "folder":
        path.mkdir()
    elif hasattr(os, "mkfifo"):
        os.mkfifo(path)
    else:
        pytest.skip("named pipes are POSIX's; this platform has none")
    with pytest.raises(StoreError, match=f"cannot read {re.escape(str(path))}: {told}"):
        JSONLStore(folder).get_many(["a"])


@pytest.mark.parametrize("form", ["pretty", "cr"])
def test_a_file_reformatted_whole_is_refused_and_left_as_it_is(folder: Path, form: str) -> None:
    """Pretty-printed by a JSON formatter, or saved with CR line ends, no line of the file
    read: every line went to quarantine/ and the store looked empty (audit). Refused now,
    naming the file, with nothing moved, as a UTF-16 file is."""
    store = JSONLStore(folder)
    put(store, mem("a"), mem("b"))
    store.close()
    path = folder / "memories.jsonl"
    records = lines(path)
    if form == "pretty":
        path.write_text("".join(json.dumps(r, indent=2) + "\n" for r in records))
    else:
        path.write_bytes(b"".join(json.dumps(r).encode() + b"\r" for r in records))
    before = path.read_bytes()
    with pytest.raises(StoreError, match="one JSON object per line"):
        JSONLStore(folder).get_many(["a"])
    assert path.read_bytes() == before and not (folder / "quarantine").exists()


def test_one_record_written_over_several_lines_is_refused_and_left_as_it_is(
    folder: Path,
) -> None:
    """One line pretty-printed by hand: its pieces went to quarantine/, the memory left the
    store and its older line was current again (probe). Refused now, naming the lines."""
    store = JSONLStore(folder)
    put(store, mem("a", "first words"), mem("b"))
    store.close()
    path = folder / "memories.jsonl"
    records = lines(path)
    records.append({**records[0], "content": "newer words"})  # a's newer line, last
    text = "".join(json.dumps(r) + "\n" for r in records[:-1])
    path.write_text(text + json.dumps(records[-1], indent=2) + "\n")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"lines 3-\d+ are one record written over several"):
        JSONLStore(folder).get_many(["a"])
    assert path.read_bytes() == before and not (folder / "quarantine").exists()
    path.write_text(text + json.dumps(records[-1]) + "\n")  # put back on one line
    reopened = JSONLStore(folder)
    assert reopened.get_many(["a"])[0].content == "newer words"
    reopened.close()


def test_git_conflict_markers_stop_the_store_until_the_merge_is_resolved(folder: Path) -> None:
    """Markers were set aside as bad lines, which took git's order of the two sides as the
    resolution: a change made on one side only could come out undone (probe)."""
    store = JSONLStore(folder)
    put(store, mem("a", "base"))
    store.close()
    path = folder / "memories.jsonl"
    (base,) = lines(path)
    ours, theirs = {**base, "content": "ours"}, {**base, "content": "theirs"}
    path.write_text(
        json.dumps(base)
        + "\n<<<<<<< HEAD\n"
        + json.dumps(ours)
        + "\n=======\n"
        + json.dumps(theirs)
        + "\n>>>>>>> origin/main\n"
    )
    before = path.read_bytes()
    with pytest.raises(StoreError, match="line 2 is a git conflict marker: resolve the merge"):
        JSONLStore(folder).get_many(["a"])
    assert path.read_bytes() == before and not (folder / "quarantine").exists()


def test_a_store_url_scheme_in_capitals_is_the_same_scheme(tmp_path: Path) -> None:
    """`JSONL:///x` was refused as "unsupported store URL scheme 'jsonl'", in a message that
    offered jsonl:///path (a probe): URL schemes are case-insensitive."""
    from engram.storage.sqlite import SQLiteStore

    for url, kind, made in (
        (f"JSONL://{tmp_path / 'j'}", JSONLStore, tmp_path / "j" / "memories.jsonl"),
        (f"SQLite://{tmp_path / 's.db'}", SQLiteStore, tmp_path / "s.db"),
    ):
        store = open_store(url, Settings())
        try:
            assert isinstance(store, kind) and made.exists()
        finally:
            store.close()
