"""Lines compaction keeps although the index does not hold them: the relations and vectors of
a memory that is not in the store yet was never deleted.

A deletion writes tombstones for a memory's relations and vectors too, so a live relation or
vector line whose memory is missing belongs to a memory whose line was quarantined as
unreadable (or cut out by hand). The index cannot hold such a line (an edge needs both ends),
and compaction keeps only the lines of what the index holds, and tombstones: without this,
compacting a store with one torn memory line lost that memory's links and vectors for good,
although the memory itself can be repaired from `quarantine/`. Kept, they come back with it:
a store that read links waiting for a memory reads its relations and vectors whole again once
a memory line comes (`JSONLStore._read_links_again`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from engram.core.models import Relation
from engram.storage.jsonl.files import read_lines
from engram.storage.jsonl.records import BadLine, Tombstone, decode_relation, parse_object
from engram.storage.jsonl.vectors import VectorLine, decode_vector
from engram.storage.sqlite.store import SQLiteStore

R = TypeVar("R", Relation | Tombstone, VectorLine | Tombstone)
D = TypeVar("D")


def deleted_memories(path: Path) -> set[str]:
    """The memories whose last line in memories.jsonl is a tombstone. Their relation and
    vector lines are dead, not orphans: a tombstone typed by hand (the documented way to delete
    in an editor) comes without theirs, and compaction kept them for ever."""
    last: dict[str, bool] = {}
    for _, obj in _readable(path, parse_object):  # the JSON alone: a tombstone, or an id
        ident = obj.get("id")
        if isinstance(ident, str):
            last[ident] = obj.get("_deleted") is True
    return {ident for ident, gone in last.items() if gone}


def orphan_relations(
    path: Path, memories: Collection[str], deleted: Collection[str] = ()
) -> dict[str, bytes]:
    """The last line of each relation not deleted whose ends are not both in `memories`, and
    neither of them `deleted`, by relation id."""
    latest = _latest(path, decode_relation)
    return {i: raw for i, (raw, r) in latest.items() if _unheld_relation(r, memories, deleted)}


def orphan_vectors(
    path: Path, memories: Collection[str], deleted: Collection[str] = ()
) -> dict[str, bytes]:
    """The last vector line of each memory not in `memories`, nor `deleted`, whose vector
    was not retired, by memory id."""
    latest = _latest(path, decode_vector)
    return {i: raw for i, (raw, v) in latest.items() if _unheld_vector(v, memories, deleted)}


def _unheld_relation(
    record: Relation | Tombstone, memories: Collection[str], deleted: Collection[str]
) -> bool:
    return (
        isinstance(record, Relation)
        and not (record.from_id in memories and record.to_id in memories)
        and record.from_id not in deleted
        and record.to_id not in deleted
    )


def _unheld_vector(
    record: VectorLine | Tombstone, memories: Collection[str], deleted: Collection[str]
) -> bool:
    return isinstance(record, VectorLine) and record.id not in memories and record.id not in deleted


def _latest(path: Path, decode: Callable[[bytes], R]) -> dict[str, tuple[bytes, R]]:
    """Each id's last line (without a CR) and record, in the order of those last lines."""
    latest: dict[str, tuple[bytes, R]] = {}
    for raw, record in _readable(path, decode):
        latest.pop(record.id, None)  # the last line of an id wins, in its place in the order
        latest[record.id] = (raw.rstrip(b"\r"), record)
    return latest


def _readable(path: Path, decode: Callable[[bytes], D]) -> Iterator[tuple[bytes, D]]:
    """Each line of the file that decodes, with its record (the others were moved to
    quarantine/ when the store was loaded)."""
    for _, raw in read_lines(path):
        if not raw.strip():
            continue
        try:
            record = decode(raw)
        except BadLine:
            continue
        yield raw, record


class Kept(NamedTuple):
    """Lines a compaction keeps that hold no live record."""

    relations: int  # orphan relation lines
    vectors: int  # orphan vector lines
    tombstones: tuple[int, int, int]  # the last line of their id, in each of the three files


class OrphanCount:
    """How many lines each file holds that a compaction keeps although they are no live record
    (orphans, and tombstones), for the store's statistics: counted dead, a store with one
    quarantined memory was told to compact at every look, and each compaction reported lines
    dropped that it kept. Counting reads the files, so the counts are kept until one of them
    changes."""

    def __init__(self) -> None:
        self._seen: tuple[tuple[int, int], ...] = ()
        self._counts = Kept(0, 0, (0, 0, 0))

    def of(self, files: tuple[Path, Path, Path], index: SQLiteStore, memories: int) -> Kept:
        """What is kept of `files` (memories, relations and vectors) besides the `memories`
        the index holds and their relations and vectors."""
        state = tuple(_state(p) for p in files)
        if state != self._seen:
            live = set(index.ids_with_prefix("", memories))
            deleted = deleted_memories(files[0])  # and so the memory tombstones kept
            edges = _latest(files[1], decode_relation)
            vectors = _latest(files[2], decode_vector)
            self._counts = Kept(
                sum(_unheld_relation(r, live, deleted) for _, r in edges.values()),
                sum(_unheld_vector(v, live, deleted) for _, v in vectors.values()),
                (len(deleted), _tombstones(edges), _tombstones(vectors)),
            )
            self._seen = state
        return self._counts


def _tombstones(latest: dict[str, tuple[bytes, Any]]) -> int:
    return sum(isinstance(record, Tombstone) for _, record in latest.values())


def _state(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return (0, 0)
    return info.st_size, info.st_mtime_ns
