"""Lines compaction keeps although the index does not hold them: the relations and vectors of
a memory that is not in the store yet was never deleted.

A deletion writes tombstones for a memory's relations and vectors too, so a live relation or
vector line whose memory is missing belongs to a memory whose line was quarantined as
unreadable (or cut out by hand). The index cannot hold such a line (an edge needs both ends),
and compaction rewrites the files from the index: without this, compacting a store with one
torn memory line lost that memory's links and vectors for good, although the memory itself
can be repaired from `quarantine/`. Kept, they come back with it when the store next reads its
files whole (as it does when an editor saves memories.jsonl; a line appended to the file is
read alone, and its links wait for the next whole read, which a compaction begins with).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import NamedTuple, TypeVar

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


class DeadLines(NamedTuple):
    relations: list[str]  # ids of relations still live in relations.jsonl
    vectors: list[str]  # ids of memories whose vectors are still live in vectors.jsonl


def lines_of_deleted(memories: Path, relations: Path, vectors: Path) -> DeadLines:
    """The relation and vector lines, still live in their files, of memories that only a
    tombstone in memories.jsonl says are deleted: a rewrite of that file without the tombstone
    must first bury them."""
    deleted = deleted_memories(memories)
    if not deleted:
        return DeadLines([], [])
    edges = _last_lines_of(relations, decode_relation)
    vectors_of = _last_lines_of(vectors, decode_vector)
    return DeadLines(
        [
            r.id
            for r in edges
            if isinstance(r, Relation) and (r.from_id in deleted or r.to_id in deleted)
        ],
        [v.id for v in vectors_of if isinstance(v, VectorLine) and v.id in deleted],
    )


def _last_lines_of(path: Path, decode: Callable[[bytes], R]) -> list[R]:
    return [record for _, record in _latest(path, decode).values()]


def orphan_relations(
    path: Path, memories: Collection[str], deleted: Collection[str] = ()
) -> list[bytes]:
    """The last line of each relation not deleted whose ends are not both in `memories`, and
    neither of them `deleted`."""

    def unheld(record: Relation | Tombstone) -> bool:
        return (
            isinstance(record, Relation)
            and not (record.from_id in memories and record.to_id in memories)
            and record.from_id not in deleted
            and record.to_id not in deleted
        )

    return _last_lines(path, decode_relation, unheld)


def orphan_vectors(
    path: Path, memories: Collection[str], deleted: Collection[str] = ()
) -> list[bytes]:
    """The last vector line of each memory not in `memories`, nor `deleted`, whose vector
    was not retired."""

    def unheld(record: VectorLine | Tombstone) -> bool:
        return (
            isinstance(record, VectorLine)
            and record.id not in memories
            and record.id not in deleted
        )

    return _last_lines(path, decode_vector, unheld)


def _last_lines(
    path: Path, decode: Callable[[bytes], R], unheld: Callable[[R], bool]
) -> list[bytes]:
    return [raw for raw, record in _latest(path, decode).values() if unheld(record)]


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


class OrphanCount:
    """How many orphan lines each file holds, for the store's statistics: lines a compaction
    keeps are not dead (counted dead, a store with one quarantined memory was told to compact
    at every look, and each compaction reported lines dropped that it kept). Counting reads the
    files, so the counts are kept until one of them changes."""

    def __init__(self) -> None:
        self._seen: tuple[tuple[int, int], ...] = ()
        self._counts = (0, 0)

    def of(
        self, files: tuple[Path, Path, Path], index: SQLiteStore, memories: int
    ) -> tuple[int, int]:
        """(relation lines, vector lines) kept although their memory is not among the
        `memories` the index holds; `files`: memories, relations and vectors."""
        state = tuple(_state(p) for p in files)
        if state != self._seen:
            live = set(index.ids_with_prefix("", memories))
            relations = orphan_relations(files[1], live)
            vectors = orphan_vectors(files[2], live)
            if relations or vectors:  # only then is memories.jsonl read for its tombstones
                deleted = deleted_memories(files[0])
                relations = orphan_relations(files[1], live, deleted)
                vectors = orphan_vectors(files[2], live, deleted)
            self._counts = (len(relations), len(vectors))
            self._seen = state
        return self._counts


def _state(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return (0, 0)
    return info.st_size, info.st_mtime_ns
