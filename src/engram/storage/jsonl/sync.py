"""Between the files and the store's SQLite index, and what the store computes from its lines.

The files are the truth; the `apply_*` functions bring the index up to date with the lines
appended since the last read (by this process or another), in file order, so the index always
holds what a full reload of the files would give.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from engram.core.models import AuditEntry, Memory, Relation, Schedule, Status, is_kept
from engram.core.timeutil import to_epoch
from engram.storage.jsonl.files import LineFile, read_lines
from engram.storage.jsonl.records import SCHEDULE_FIELDS, BadLine, StoredMemory, Tombstone
from engram.storage.jsonl.vectors import VectorLine
from engram.storage.maintenance import FileStats
from engram.storage.protocol import Filter, Rescheduler, ScheduleInputs
from engram.storage.sqlite import SQLiteStore

log = logging.getLogger(__name__)
_EMPTY = Schedule()
_ANY = Filter(statuses=tuple(Status))  # every memory, whatever its status
_PAGE = 1_000  # memories per read when walking the whole store
AUDIT_ENTRY_BYTES = (
    200  # fewer than an audit entry's line holds: the file's size says when to count
)


@dataclass
class Tally:
    """How many lines a file holds and how many are tombstones: what `stats` reports and what
    tells when a compaction is worth it."""

    lines: int = 0
    tombstones: int = 0

    def add(self, lines: int, tombstones: int = 0) -> None:
        self.lines += lines
        self.tombstones += tombstones

    def count(self, records: Sequence[object]) -> None:
        self.add(len(records), sum(isinstance(r, Tombstone) for r in records))

    def stats(self, name: str, size: int, live: int, kept: int) -> FileStats:
        """`kept`: the tombstones among the lines that a compaction keeps."""
        return FileStats(name, size, self.lines, live, self.tombstones, kept)


def apply_memories(
    index: SQLiteStore, records: Sequence[StoredMemory | Tombstone]
) -> dict[str, bool]:
    """The last line of each id wins. A memory deleted and written again takes a new place in
    save order; an update keeps its place. Returns, for each id the lines name, whether its
    live line carries a schedule (a hand-written one may not)."""
    latest: dict[str, StoredMemory | Tombstone] = {}
    reborn: set[str] = set()
    for record in records:
        ident = record.id if isinstance(record, Tombstone) else record.memory.id
        previous = latest.get(ident)
        if isinstance(record, Tombstone) or isinstance(previous, Tombstone):
            if isinstance(previous, Tombstone) and not isinstance(record, Tombstone):
                reborn.add(ident)
            latest.pop(ident, None)
        latest[ident] = record
    existing = {s.id for s in index.stubs(list(latest), _ANY)} if latest else set()
    gone = [
        i for i, r in latest.items() if i in existing and (isinstance(r, Tombstone) or i in reborn)
    ]
    if gone:
        index.delete(gone)
    updates = {
        i: r
        for i, r in latest.items()
        if isinstance(r, StoredMemory) and i in existing and i not in reborn
    }
    if updates:
        index.modify(list(updates), lambda old: stored(updates[old.id]))
    added = [
        stored(r)
        for i, r in latest.items()
        if isinstance(r, StoredMemory) and (i not in existing or i in reborn)
    ]
    if added:
        index.insert(added)
    return {
        ident: not (isinstance(record, StoredMemory) and record.schedule is None)
        for ident, record in latest.items()
    }


def apply_vectors(
    index: SQLiteStore,
    records: Sequence[VectorLine | Tombstone],
    searched: tuple[str, int] | None = None,
) -> None:
    """A memory has one vector line live: the last one (of whatever model), if it describes
    the memory's text as it is now. A vector of the `searched` model (id, dimensions) with
    another length is left out (logged): one such line made every search by meaning fail."""
    latest: dict[str, VectorLine | Tombstone] = {}
    for record in records:
        latest[record.id] = record
    index.delete_vectors(list(latest))
    lines = [r for r in latest.values() if isinstance(r, VectorLine)]
    content = index.contents([r.id for r in lines])
    by_model: dict[str, list[tuple[str, NDArray[np.float32]]]] = {}
    for record in lines:
        ours = searched is not None and record.model_id == searched[0]
        if ours and searched is not None and record.vector.shape[1] != searched[1]:
            log.warning(
                "vectors.jsonl: the vector of %s has %d dimensions, not %d: left out (it "
                "is computed again by `engram embed --backfill`)",
                record.id,
                record.vector.shape[1],
                searched[1],
            )
            continue
        if record.id in content and record.describes(content[record.id]):
            by_model.setdefault(record.model_id, []).append((record.id, record.vector))
    for model_id, items in by_model.items():
        index.put_vectors(items, model_id)


def every_memory(index: SQLiteStore) -> Iterator[Memory]:
    """The whole index, a page at a time."""
    after: str | None = None
    while True:
        page = index.page(after, _PAGE)
        if not page:
            return
        yield from page
        after = page[-1].id


def rescheduled(memories: Sequence[Memory], compute: Rescheduler) -> dict[str, Schedule]:
    """Every memory's schedule by `compute` (the services' decay policy), one vectorised pass."""
    arrays = compute(
        ScheduleInputs(
            use_count=np.array([m.use_count for m in memories], np.float64),
            strength=np.array([m.strength for m in memories], np.float64),
            last_used=np.array([to_epoch(m.last_used) for m in memories], np.float64),
            created_at=np.array([to_epoch(m.created_at) for m in memories], np.float64),
            active=np.array([m.status == Status.ACTIVE for m in memories]),
            kept=np.array([is_kept(m.meta) for m in memories]),
        )
    )
    columns = [getattr(arrays, name).tolist() for name in SCHEDULE_FIELDS]
    return {m.id: _schedule(columns, i) for i, m in enumerate(memories)}


def _schedule(columns: list[list[float]], i: int) -> Schedule:
    values: dict[str, Any] = {
        name: (None if col[i] != col[i] else float(col[i]))
        for name, col in zip(SCHEDULE_FIELDS, columns, strict=True)
    }
    return Schedule.model_construct(**values)


def append_audit(file: LineFile, entries: Sequence[AuditEntry], keep: int) -> None:
    """Add entries to the audit file; past `keep` entries (checked once the file could hold
    that many), the oldest go, in one atomic rewrite (`rows.AUDIT_KEEP`)."""
    file.append(e.model_dump_json().encode() for e in entries)
    if file.size() > keep * AUDIT_ENTRY_BYTES:
        lines = [raw for _, raw in read_lines(file.path) if raw.strip()]
        if len(lines) > keep:
            file.rewrite(lines[-keep:])


def read_audit(path: Path, plan_id: str | None, limit: int) -> list[AuditEntry]:
    """The audit trail, newest first, read from the file each time (it is for people and plans,
    not hot paths). A line that does not parse (a hand edit gone wrong) is skipped, logged."""
    found: list[AuditEntry] = []
    for number, raw in reversed(read_lines(path)):
        try:
            entry = AuditEntry.model_validate_json(raw)
        except ValueError as exc:
            log.warning("%s line %d is not an audit entry: %s", path.name, number, exc)
            continue
        if plan_id is None or entry.plan_id == plan_id:
            found.append(entry)
            if len(found) >= limit:
                break
    return found


def stored(record: StoredMemory) -> tuple[Memory, Schedule]:
    return record.memory, record.schedule or _EMPTY


R = TypeVar("R")


def decoded(
    name: str,
    lines: Sequence[tuple[int, bytes]],
    decode: Callable[[bytes], R],
    bad: list[tuple[str, int, str]],
) -> list[R]:
    """The records of `lines`; an unreadable one is noted in `bad` (file, line number, why),
    for the store to move aside, and left out."""
    out: list[R] = []
    for number, raw in lines:
        try:
            out.append(decode(raw))
        except BadLine as exc:
            bad.append((name, number, str(exc)))
    return out


def links_of_deleted(
    index: SQLiteStore,
    memories: Sequence[StoredMemory | Tombstone],
    model: tuple[str, int] | None,
) -> set[str]:
    """The relations and vectors (by id) these lines' tombstones take from the index with
    their memories. Engram's deletion tombstones them too; a tombstone typed by hand does not,
    and they wait in the files for the memory to come back."""
    gone = [r.id for r in memories if isinstance(r, Tombstone)]
    if not gone:
        return set()
    edges = {r.id for r in index.relations(gone)}
    return edges | (set(index.get_vectors(gone, model[0])) if model else set())


def links_waiting(
    index: SQLiteStore,
    relations: Sequence[Relation | Tombstone],
    vectors: Sequence[VectorLine | Tombstone],
    dropped: set[str],
) -> bool:
    """Whether relation or vector lines wait in the files for a memory the index lacks: lines
    of these (the last of each id) that name one, or links a deletion `dropped` that these do
    not tombstone. An edge needs both ends: the index cannot hold such a line."""
    last: dict[str, Relation | VectorLine | Tombstone] = {r.id: r for r in relations}
    last_vectors: dict[str, VectorLine | Tombstone] = {v.id: v for v in vectors}
    tombstoned = {i for i, r in [*last.items(), *last_vectors.items()] if isinstance(r, Tombstone)}
    if not dropped <= tombstoned:
        return True
    named = {e for r in last.values() if isinstance(r, Relation) for e in (r.from_id, r.to_id)}
    named |= {v.id for v in last_vectors.values() if isinstance(v, VectorLine)}
    if not named:
        return False
    held = {s.id for s in index.stubs(sorted(named), Filter(statuses=tuple(Status)))}
    return bool(named - held)
