"""The JSONL store: memory you can keep in git.

A directory holds `memories.jsonl`, `relations.jsonl` and `vectors.jsonl` (one JSON object per
line, see `records` and `vectors`), `meta.json` (format version and the schedule fingerprint),
`audit.jsonl` (the maintenance pipeline's decisions) and `.lock`.

* The files are the truth. Writes append lines: a changed memory is appended again (the last
  line for an id wins) and a deletion appends a tombstone. `compact` rewrites the files
  without the dead lines.
* Everything is searched through an index: a private SQLite database (in a temporary
  directory, rebuilt from the files when the store opens) with the SQLite backend's own schema
  and queries, so full-text ranking, vector search, schedules and traversal behave exactly as
  on SQLite, by construction. The vault's note index, which must outlive the process, is an
  SQLite file of its own next to the memories (`ltm.db`, ignored by git).
* Several processes may share a directory. Every write takes the exclusive directory lock,
  first catches up on the lines other processes appended, then appends and fsyncs before it
  returns: `modify` is an atomic read-modify-write across processes. Reads catch up too (one
  `stat` per file when nothing changed). A file replaced by another process's compaction is
  detected by its inode and the index is rebuilt, so nothing is lost.
* A line that cannot be read (a crash mid-write, a hand edit) never makes the store unloadable:
  every good line is loaded, each bad one is reported with its line number and moved, byte for
  byte, to `quarantine/<file>.<timestamp>.bad`.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from engram.atomic import fsync_dir
from engram.clock import system_clock
from engram.core.models import AuditEntry, Direction, Memory, Relation, Schedule, Status
from engram.core.notes import Note, NoteHit, NoteLinks, NoteState, NoteText
from engram.core.timeutil import to_epoch
from engram.errors import EngramError, NotFoundError, StoreError
from engram.storage.jsonl.files import DirLock, LineFile, read_lines, replace_small
from engram.storage.jsonl.records import (
    SCHEDULE_FIELDS,
    BadLine,
    StoredMemory,
    Tombstone,
    decode_memory,
    decode_relation,
    encode_memory,
    encode_relation,
    encode_tombstone,
)
from engram.storage.jsonl.vectors import VectorLine, decode_vector, encode_vector
from engram.storage.locks import file_lock
from engram.storage.maintenance import CompactionResult, FileStats, StorageStats
from engram.storage.protocol import (
    Capability,
    Change,
    Filter,
    Hop,
    Rescheduler,
    ScheduleInputs,
    Stub,
)
from engram.storage.sqlite import SQLiteStore

log = logging.getLogger(__name__)
R = TypeVar("R")

MEMORIES = "memories.jsonl"
RELATIONS = "relations.jsonl"
VECTORS = "vectors.jsonl"
AUDIT = "audit.jsonl"  # the maintenance pipeline's decisions, append-only, read on demand
LTM_DB = "ltm.db"  # the vault index: rebuilt from the vault by `engram index-ltm`
META = "meta.json"
FORMAT = 1
GITIGNORE = (
    "# Engram JSONL store: commit memories.jsonl, relations.jsonl, vectors.jsonl, meta.json\n"
    ".lock\n.*.lock\nquarantine/\n.*.tmp\n"
    "# the vault index: rebuilt from the vault by `engram index-ltm`\n"
    f"{LTM_DB}\n{LTM_DB}-*\nltm.jsonl\n"
)
_EMPTY = Schedule()
_ANY = Filter(statuses=tuple(Status))  # every memory, whatever its status
_PAGE = 1_000  # memories per read when walking the whole store

# Compaction is suggested when at least this share of lines is dead, and at least this many.
COMPACT_RATIO = 0.5
COMPACT_MIN_DEAD = 1_000


class JSONLStore:
    location: str
    capabilities = frozenset({Capability.COMPACT, Capability.VECTORS, Capability.LTM})

    def __init__(
        self,
        path: str | Path,
        *,
        field_weights: tuple[float, float, float] = (1.0, 2.0, 2.0),
        vector_model: tuple[str, int] | None = None,
    ) -> None:
        """`vector_model` = (model id, dimensions) of the embedder whose vectors are searched."""
        self.path = Path(path).expanduser().absolute()
        self.location = f"jsonl://{self.path}"
        self.field_weights = field_weights
        self.vector_model = vector_model
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create JSONL store {self.path}: {exc.strerror}") from exc
        if not self.path.is_dir():
            raise StoreError(f"JSONL store {self.path} is not a directory")
        _refuse_foreign(self.path)
        self._mutex = threading.RLock()
        self._lock = DirLock(self.path / ".lock")
        self._memories = LineFile(self.path / MEMORIES)
        self._relations = LineFile(self.path / RELATIONS)
        self._vectors = LineFile(self.path / VECTORS)
        self._files = (self._memories, self._relations, self._vectors)
        self._audit = LineFile(self.path / AUDIT)
        self._bad: list[tuple[str, int, str]] = []
        self._index_dir: tempfile.TemporaryDirectory[str] | None = None
        self._index = self._new_index()
        self._notes: SQLiteStore | None = None  # the vault index, opened when first used
        self._clear_counts()
        try:
            with self._mutex, self._lock.hold(exclusive=True):
                self._initialise()
                self._sync()
                self._repair_if_needed()
        except BaseException:
            self._close_index()
            self._lock.close()
            raise

    # -- plumbing -----------------------------------------------------------------------------

    def close(self) -> None:
        with self._mutex:
            self._close_index()
            if self._notes is not None:
                self._notes.close()
                self._notes = None
            self._lock.close()

    def _new_index(self) -> SQLiteStore:
        """An empty index in a fresh private directory (the previous one is removed)."""
        self._close_index()
        self._index_dir = tempfile.TemporaryDirectory(prefix="engram-jsonl-index-")
        return SQLiteStore(
            Path(self._index_dir.name) / "index.db",
            field_weights=self.field_weights,
            vector_model=self.vector_model,
            durable=False,
        )

    def _close_index(self) -> None:
        index = getattr(self, "_index", None)
        if index is not None:
            index.close()
        if self._index_dir is not None:
            self._index_dir.cleanup()
            self._index_dir = None

    def _clear_counts(self) -> None:
        """Line counts of the files (for `stats`), and the memories whose line has no schedule
        (hand-written: the services then recompute every schedule)."""
        self._unscheduled: set[str] = set()
        self._mem_lines = self._mem_tombstones = 0
        self._rel_lines = self._rel_tombstones = 0
        self._vec_lines = self._vec_tombstones = 0

    def _initialise(self) -> None:
        """Create the files of a new store; refuse a directory that is not one of ours."""
        meta = self.path / META
        if not meta.exists():
            _refuse_foreign(self.path)
            replace_small(meta, _meta_bytes({"format": FORMAT, "schedule_fingerprint": None}))
        self._read_meta()
        created = False
        for file in self._files:
            if not file.path.exists():
                file.path.touch()
                created = True
        ignore = self.path / ".gitignore"
        if not ignore.exists():
            ignore.write_text(GITIGNORE)
            created = True
        elif LTM_DB not in (kept := ignore.read_text()) and kept.startswith(GITIGNORE[:20]):
            # Written by an Engram that kept the vault index in ltm.jsonl: ignore its successor.
            ignore.write_text(kept.rstrip("\n") + f"\n{LTM_DB}\n{LTM_DB}-*\n")
        if created:
            fsync_dir(self.path)

    def _read_meta(self) -> dict[str, Any]:
        try:
            meta = json.loads((self.path / META).read_text())
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s is unreadable (%s): schedules will be recomputed", META, exc)
            return {}
        version = meta.get("format", FORMAT)
        if not isinstance(version, int) or version > FORMAT:
            raise StoreError(
                f"{self.path / META}: format {version!r} was written by a newer Engram "
                f"(this one reads format {FORMAT})"
            )
        return meta

    def _write_meta(self, **changes: Any) -> None:
        meta = {"format": FORMAT, "schedule_fingerprint": None}
        meta.update({k: v for k, v in self._read_meta().items() if k in meta})
        meta.update(changes)
        replace_small(self.path / META, _meta_bytes(meta))

    @contextmanager
    def _reading(self) -> Iterator[SQLiteStore]:
        """Catch up on other processes' writes (a stat per file when there are none)."""
        with self._mutex:
            self._check_open()
            if not all(file.unchanged() for file in self._files):
                with self._lock.hold(exclusive=False):
                    self._sync()
            if self._bad:
                with self._lock.hold(exclusive=True):
                    self._sync()
                    self._repair_if_needed()
            yield self._index

    @contextmanager
    def _writing(self) -> Iterator[SQLiteStore]:
        """Exclusive lock, caught up with every line on disk: a read-modify-write is atomic.
        Lines are appended before the index is told; should the index fail after an append, it
        is rebuilt from the files, which hold the truth."""
        with self._mutex:
            self._check_open()
            with self._lock.hold(exclusive=True):
                self._sync()
                self._repair_if_needed()
                try:
                    yield self._index
                except EngramError:  # a check or a change callback refused, before any append
                    raise
                except BaseException:
                    self._reload()
                    raise

    def _check_open(self) -> None:
        if self._lock.closed:
            raise StoreError(f"JSONL store {self.path} is closed")

    # -- reading the files into the index -----------------------------------------------------

    def _sync(self) -> None:
        """Apply the lines appended since the last read (all of them after a replacement)."""
        # Loading builds many objects and no cycles: the cyclic collector would only rescan
        # them again and again.
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._sync_files()
        finally:
            if enabled:
                gc.enable()

    def _sync_files(self) -> None:
        chunk = self._memories.read_new()
        if chunk.reset:
            self._index = self._new_index()
            self._clear_counts()
            self._relations.forget()
            self._vectors.forget()
        self._apply_memories(self._decoded(MEMORIES, chunk.lines, decode_memory))
        rchunk = self._relations.read_new()
        relations = self._decoded(RELATIONS, rchunk.lines, decode_relation)
        self._apply_relations(relations, reset=rchunk.reset)
        vchunk = self._vectors.read_new()
        vectors = self._decoded(VECTORS, vchunk.lines, decode_vector)
        self._apply_vectors(vectors, reset=vchunk.reset)

    def _decoded(
        self, name: str, lines: Sequence[tuple[int, bytes]], decode: Callable[[bytes], R]
    ) -> list[R]:
        """The records of `lines`; an unreadable one is noted (file, line number, why) for
        `_repair_if_needed` and left out."""
        out: list[R] = []
        for number, raw in lines:
            try:
                out.append(decode(raw))
            except BadLine as exc:
                self._bad.append((name, number, str(exc)))
        return out

    def _apply_memories(self, records: Sequence[StoredMemory | Tombstone]) -> None:
        """The last line of each id wins. A memory deleted and written again takes a new place
        in save order; an update keeps its place."""
        if not records:
            return
        latest: dict[str, StoredMemory | Tombstone] = {}
        reborn: set[str] = set()
        for record in records:
            ident = _record_id(record)
            previous = latest.get(ident)
            if isinstance(record, Tombstone) or isinstance(previous, Tombstone):
                if isinstance(previous, Tombstone) and not isinstance(record, Tombstone):
                    reborn.add(ident)
                latest.pop(ident, None)
            latest[ident] = record
        self._mem_lines += len(records)
        self._mem_tombstones += sum(isinstance(r, Tombstone) for r in records)
        index = self._index
        existing = {s.id for s in index.stubs(list(latest), _ANY)}
        gone = [
            i
            for i, r in latest.items()
            if i in existing and (isinstance(r, Tombstone) or i in reborn)
        ]
        if gone:
            index.delete(gone)
        updates = {
            i: r
            for i, r in latest.items()
            if isinstance(r, StoredMemory) and i in existing and i not in reborn
        }
        if updates:
            index.modify(list(updates), lambda old: _stored(updates[old.id]))
        added = [
            _stored(r)
            for i, r in latest.items()
            if isinstance(r, StoredMemory) and (i not in existing or i in reborn)
        ]
        if added:
            index.insert(added)
        for ident, record in latest.items():
            if isinstance(record, StoredMemory) and record.schedule is None:
                self._unscheduled.add(ident)
            else:
                self._unscheduled.discard(ident)

    def _apply_relations(self, records: Sequence[Relation | Tombstone], reset: bool) -> None:
        if reset and self._rel_lines:  # replaced by another process: read afresh
            self._index.delete_relations([r.id for r in self._index.all_relations()])
            self._rel_lines = self._rel_tombstones = 0
        if not records:
            return
        self._rel_lines += len(records)
        self._rel_tombstones += sum(isinstance(r, Tombstone) for r in records)
        # In file order: runs of additions in one transaction, tombstones as they come.
        run: list[Relation] = []
        for record in records:
            if isinstance(record, Tombstone):
                self._index.add_relations(run)
                run = []
                self._index.delete_relations([record.id])
            else:
                run.append(record)
        self._index.add_relations(run)

    def _apply_vectors(self, records: Sequence[VectorLine | Tombstone], reset: bool) -> None:
        """A memory has one vector line live: the last one (of whatever model)."""
        if reset and self._vec_lines:  # replaced by another process: read afresh
            everything = [m.id for m in self._every_memory()]
            self._index.delete_vectors(everything)
            self._vec_lines = self._vec_tombstones = 0
        if not records:
            return
        self._vec_lines += len(records)
        self._vec_tombstones += sum(isinstance(r, Tombstone) for r in records)
        latest: dict[str, VectorLine | Tombstone] = {}
        for record in records:
            latest[record.id] = record
        self._index.delete_vectors(list(latest))
        by_model: dict[str, list[tuple[str, NDArray[np.float32]]]] = {}
        for record in latest.values():
            if isinstance(record, VectorLine):
                by_model.setdefault(record.model_id, []).append((record.id, record.vector))
        for model_id, items in by_model.items():
            self._index.put_vectors(items, model_id)

    def _every_memory(self) -> Iterator[Memory]:
        after: str | None = None
        while True:
            page = self._index.page(after, _PAGE)
            if not page:
                return
            yield from page
            after = page[-1].id

    def _reload(self) -> None:
        for file in self._files:
            file.forget()
        self._index = self._new_index()
        self._clear_counts()
        self._bad.clear()
        self._sync()

    def _repair_if_needed(self) -> None:
        """Move unreadable lines aside (byte for byte) and rewrite the files without them.
        Runs under the exclusive lock; the reader reports each with its line number."""
        if not self._bad:
            return
        stamp = system_clock().strftime("%Y%m%dT%H%M%S.%fZ")
        decoders: dict[str, Callable[[bytes], object]] = {
            MEMORIES: decode_memory,
            RELATIONS: decode_relation,
            VECTORS: decode_vector,
        }
        for file in self._files:
            if not any(name == file.name for name, _, _ in self._bad):
                continue
            good: list[bytes] = []
            bad: list[tuple[int, bytes, str]] = []
            for number, raw in read_lines(file.path):
                if not raw.strip():
                    continue
                try:
                    decoders[file.name](raw)
                except BadLine as exc:
                    bad.append((number, raw, str(exc)))
                else:
                    good.append(raw)
            if not bad:
                continue
            target = self._quarantine(file.name, stamp, [raw for _, raw, _ in bad])
            file.rewrite(good)
            for number, _, reason in bad:
                log.warning(
                    "%s line %d is unreadable (%s): moved it to %s",
                    file.path,
                    number,
                    reason,
                    target,
                )
        self._bad.clear()
        self._reload()
        self._bad.clear()

    def _quarantine(self, name: str, stamp: str, lines: list[bytes]) -> Path:
        folder = self.path / "quarantine"
        folder.mkdir(exist_ok=True)
        for attempt in range(1000):
            suffix = "" if attempt == 0 else f"-{attempt}"
            target = folder / f"{name}.{stamp}{suffix}.bad"
            try:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            try:
                os.write(fd, b"".join(line + b"\n" for line in lines))
                os.fsync(fd)
            finally:
                os.close(fd)
            fsync_dir(folder)
            return target
        raise StoreError(f"cannot create a quarantine file in {folder}")

    def _retire_vectors(self, ids: Sequence[str]) -> None:
        """Record in vectors.jsonl that these memories' vectors are gone, so a fresh load never
        revives them."""
        gone = [encode_tombstone(ident) for ident in ids]
        if gone:
            self._vectors.append(gone)
            self._vec_lines += len(gone)
            self._vec_tombstones += len(gone)

    # -- memories -----------------------------------------------------------------------------

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None:
        with self._writing() as index:
            ids = [m.id for m, _ in items]
            taken = {s.id for s in index.stubs(ids, _ANY)}
            if taken or len(set(ids)) < len(ids):
                dup = next(i for n, i in enumerate(ids) if i in taken or i in ids[:n])
                raise StoreError(f"cannot insert memories: id {dup!r} already exists")
            self._memories.append(encode_memory(m, s) for m, s in items)
            self._mem_lines += len(items)
            index.insert(items)
            self._unscheduled.difference_update(ids)

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]:
        with self._writing() as index:
            stored = {m.id: m for m in index.get_many(list(dict.fromkeys(ids)))}
            current: dict[str, Memory] = {}
            results: list[tuple[Memory, Memory]] = []
            writes: dict[str, tuple[Memory, Schedule]] = {}
            for ident in ids:
                old = current.get(ident) or stored.get(ident)
                if old is None:
                    raise NotFoundError("memory", ident)
                outcome = change(old)
                if outcome is None:
                    continue
                new, schedule = outcome
                if new.id != ident:
                    raise StoreError(f"a change may not alter a memory's id ({ident!r})")
                current[ident] = new
                writes[ident] = (new, schedule)
                results.append((old, new))
            if writes:
                edited = [i for i, (new, _) in writes.items() if new.content != stored[i].content]
                stale = [i for i in edited if i in index.vector_models(edited)]
                self._memories.append(encode_memory(m, s) for m, s in writes.values())
                self._mem_lines += len(writes)
                self._retire_vectors(stale)
                index.modify(list(writes), lambda old: writes[old.id])
                self._unscheduled.difference_update(writes)
            return results

    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        with self._writing() as index:
            wanted = list(dict.fromkeys(ids))
            present = {s.id for s in index.stubs(wanted, _ANY)}
            if due_before is not None:
                due = index.schedules(list(present))
                present = {
                    i for i in present if (at := due[i].forget_at) is not None and at < due_before
                }
            victims = [i for i in wanted if i in present]
            if not victims:
                return []
            edges = [r.id for r in index.relations(victims)]
            embedded = list(index.vector_models(victims))
            self._memories.append(encode_tombstone(ident) for ident in victims)
            self._mem_lines += len(victims)
            self._mem_tombstones += len(victims)
            # The memory tombstones already hide these edges; the relation tombstones record it
            # in relations.jsonl too, so a re-used id never brings them back.
            self._relations.append(encode_tombstone(rid) for rid in edges)
            self._rel_lines += len(edges)
            self._rel_tombstones += len(edges)
            self._retire_vectors(embedded)
            index.delete(victims)
            self._unscheduled.difference_update(victims)
            return victims

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        with self._reading() as index:
            return index.get_many(ids)

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        with self._reading() as index:
            return index.ids_with_prefix(prefix, limit)

    def count(self) -> dict[Status, int]:
        with self._reading() as index:
            return index.count()

    # -- finding (the index answers, exactly as the SQLite backend) ---------------------------

    def text_search(self, terms: Sequence[str], where: Filter, limit: int) -> list[Stub]:
        with self._reading() as index:
            return index.text_search(terms, where, limit)

    def stubs(self, ids: Sequence[str], where: Filter) -> list[Stub]:
        with self._reading() as index:
            return index.stubs(ids, where)

    def browse(self, where: Filter, limit: int) -> list[Stub]:
        with self._reading() as index:
            return index.browse(where, limit)

    def due_for_gc(self, now: float, limit: int) -> list[str]:
        with self._reading() as index:
            return index.due_for_gc(now, limit)

    def near_review_peak(self, now: float, limit: int) -> list[Stub]:
        with self._reading() as index:
            return index.near_review_peak(now, limit)

    def schedule_counts(self, now: float) -> tuple[int, int]:
        with self._reading() as index:
            return index.schedule_counts(now)

    def in_promotion_window(self, now: float, limit: int) -> list[Stub]:
        with self._reading() as index:
            return index.in_promotion_window(now, limit)

    def page(self, after: str | None, limit: int) -> list[Memory]:
        with self._reading() as index:
            return index.page(after, limit)

    def page_texts(self, after: str | None, limit: int) -> list[tuple[str, Status, str]]:
        with self._reading() as index:
            return index.page_texts(after, limit)

    def episode_tails(self, episodes: Sequence[str]) -> dict[str, int]:
        with self._reading() as index:
            return index.episode_tails(episodes)

    def episode_neighbours(self, ids: Sequence[str], radius: int) -> list[tuple[str, str]]:
        with self._reading() as index:
            return index.episode_neighbours(ids, radius)

    # -- schedules ----------------------------------------------------------------------------

    def schedule_fingerprint(self) -> str | None:
        """None when some memory has no stored schedule (a hand-written line): the services
        then recompute every schedule, as after a change of decay settings."""
        with self._reading():
            if self._unscheduled:
                return None
            value = self._read_meta().get("schedule_fingerprint")
            return value if isinstance(value, str) else None

    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int:
        with self._writing() as index:
            current = self._read_meta().get("schedule_fingerprint")
            if current == fingerprint and not self._unscheduled:
                return 0  # another process did it a moment ago
            memories = list(self._every_memory())
            if memories:
                arrays = compute(
                    ScheduleInputs(
                        use_count=np.array([m.use_count for m in memories], np.float64),
                        strength=np.array([m.strength for m in memories], np.float64),
                        last_used=np.array([to_epoch(m.last_used) for m in memories], np.float64),
                        created_at=np.array([to_epoch(m.created_at) for m in memories], np.float64),
                        active=np.array([m.status == Status.ACTIVE for m in memories]),
                    )
                )
                columns = [getattr(arrays, name).tolist() for name in SCHEDULE_FIELDS]
                schedules = {m.id: _schedule(columns, i) for i, m in enumerate(memories)}
                self._memories.rewrite(encode_memory(m, schedules[m.id]) for m in memories)
                self._write_meta(schedule_fingerprint=fingerprint)
                index.modify(list(schedules), lambda old: (old, schedules[old.id]))
                self._mem_lines, self._mem_tombstones = len(memories), 0
                self._unscheduled.clear()
                log.info("rescheduled %d memories", len(memories))
            else:
                self._write_meta(schedule_fingerprint=fingerprint)
            return len(memories)

    # -- relations ----------------------------------------------------------------------------

    def add_relation(self, relation: Relation) -> Relation:
        with self._writing() as index:
            stored = index.add_relation(relation)
            if stored == relation:
                self._relations.append([encode_relation(relation)])
                self._rel_lines += 1
            return stored

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        with self._reading() as index:
            return index.relations(memory_ids)

    def count_relations(self) -> int:
        with self._reading() as index:
            return index.count_relations()

    def traverse(
        self, start: str, depth: int, types: Sequence[str], direction: Direction, limit: int
    ) -> list[Hop]:
        with self._reading() as index:
            return index.traverse(start, depth, types, direction, limit)

    # -- the maintenance pipeline -------------------------------------------------------------

    def audit_append(self, entries: Sequence[AuditEntry]) -> None:
        with self._writing():
            self._audit.append(e.model_dump_json().encode() for e in entries)

    def audit_entries(self, plan_id: str | None, limit: int) -> list[AuditEntry]:
        """Read from the file each time: the trail is for people and plans, not hot paths.
        A line that does not parse (a hand edit gone wrong) is skipped with a warning."""
        with self._reading(), self._lock.hold(exclusive=False):
            found: list[AuditEntry] = []
            for number, raw in reversed(read_lines(self.path / AUDIT)):
                try:
                    entry = AuditEntry.model_validate_json(raw)
                except ValueError as exc:
                    log.warning("%s line %d is not an audit entry: %s", AUDIT, number, exc)
                    continue
                if plan_id is None or entry.plan_id == plan_id:
                    found.append(entry)
                    if len(found) >= limit:
                        break
            return found

    def exclusive(self, name: str) -> AbstractContextManager[None]:
        return file_lock(self.path / f".{name}.lock", name)

    # -- vectors ------------------------------------------------------------------------------

    def put_vectors(
        self,
        items: Sequence[tuple[str, NDArray[np.float32]]],
        model_id: str,
        texts: Sequence[str] | None = None,
    ) -> int:
        with self._writing() as index:
            current = {m.id: m.content for m in index.get_many([i for i, _ in items])}
            latest = {
                ident: np.atleast_2d(np.asarray(vec, dtype=np.float32))
                for n, (ident, vec) in enumerate(items)
                if ident in current and (texts is None or current[ident] == texts[n])
            }
            if not latest:
                return 0
            self._vectors.append(encode_vector(i, model_id, v) for i, v in latest.items())
            self._vec_lines += len(latest)
            index.delete_vectors(list(latest))
            return index.put_vectors(list(latest.items()), model_id)

    def vector_search(self, vector: NDArray[np.float32], where: Filter, limit: int) -> list[Stub]:
        with self._reading() as index:
            return index.vector_search(vector, where, limit)

    def vector_neighbours(
        self, vectors: Mapping[str, NDArray[np.float32]], where: Filter, k: int
    ) -> dict[str, list[tuple[str, float]]]:
        with self._reading() as index:
            return index.vector_neighbours(vectors, where, k)

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        with self._reading() as index:
            return index.get_vectors(ids, model_id, passages)

    def missing_vectors(self, model_id: str, limit: int) -> list[tuple[str, str]]:
        with self._reading() as index:
            return index.missing_vectors(model_id, limit)

    def vector_counts(self) -> dict[str, int]:
        with self._reading() as index:
            return index.vector_counts()

    # -- long-term memory: the vault index, an SQLite file next to the memories ---------------

    def _note_index(self) -> SQLiteStore:
        with self._mutex:
            self._check_open()
            if self._notes is None:
                self._notes = SQLiteStore(
                    self.path / LTM_DB,
                    field_weights=self.field_weights,
                    vector_model=self.vector_model,
                )
            return self._notes

    def ltm_states(self) -> dict[str, NoteState]:
        return self._note_index().ltm_states()

    def ltm_write(
        self,
        upsert: Sequence[Note] = (),
        restate: Sequence[NoteState] = (),
        delete: Sequence[str] = (),
    ) -> None:
        self._note_index().ltm_write(upsert, restate, delete)

    def ltm_search(self, terms: Sequence[str], tags: Sequence[str], limit: int) -> list[NoteHit]:
        return self._note_index().ltm_search(terms, tags, limit)

    def ltm_links(self, path: str) -> NoteLinks:
        return self._note_index().ltm_links(path)

    def ltm_put_vectors(
        self, items: Sequence[tuple[str, str, NDArray[np.float32]]], model_id: str
    ) -> int:
        return self._note_index().ltm_put_vectors(items, model_id)

    def ltm_vector_search(
        self, vector: NDArray[np.float32], model_id: str, tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        return self._note_index().ltm_vector_search(vector, model_id, tags, limit)

    def ltm_missing_vectors(self, model_id: str, limit: int) -> list[NoteText]:
        return self._note_index().ltm_missing_vectors(model_id, limit)

    # -- maintenance --------------------------------------------------------------------------

    def stats(self) -> StorageStats:
        with self._reading():
            return self._stats()

    def _stats(self) -> StorageStats:
        index = self._index
        memories = sum(index.count().values())
        relations = index.count_relations()
        files = (
            FileStats(
                name=MEMORIES,
                bytes=self._memories.size(),
                lines=self._mem_lines,
                live=memories,
                tombstones=self._mem_tombstones,
            ),
            FileStats(
                name=RELATIONS,
                bytes=self._relations.size(),
                lines=self._rel_lines,
                live=relations,
                tombstones=self._rel_tombstones,
            ),
            FileStats(
                name=VECTORS,
                bytes=self._vectors.size(),
                lines=self._vec_lines,
                live=sum(index.vector_counts().values()),
                tombstones=self._vec_tombstones,
            ),
        )
        lines = sum(f.lines for f in files)
        dead = sum(f.lines - f.live for f in files)
        ratio = dead / lines if lines else 0.0
        recommended = dead >= COMPACT_MIN_DEAD and ratio >= COMPACT_RATIO
        if recommended:
            hint = (
                f"{dead:,} of {lines:,} lines are superseded or deleted: "
                "`engram maintenance compact` would rewrite the files without them"
            )
        elif dead:
            hint = f"{dead:,} dead lines ({ratio:.0%}): compaction is not needed yet"
        else:
            hint = "no dead lines: nothing to compact"
        return StorageStats(
            backend="jsonl",
            location=self.location,
            memories=memories,
            relations=relations,
            files=files,
            dead_lines=dead,
            dead_ratio=ratio,
            compaction_recommended=recommended,
            hint=hint,
        )

    def compact(self) -> CompactionResult:
        """Rewrite the files with only the current line of each live record, atomically
        (temp file, fsync, rename, fsync of the directory), under the exclusive lock after
        catching up, so no other process's write can be lost."""
        with self._writing() as index:
            before = self._stats()
            memories = list(self._every_memory())
            ids = [m.id for m in memories]
            schedules = index.schedules(ids)
            self._memories.rewrite(
                encode_memory(m, None if m.id in self._unscheduled else schedules[m.id])
                for m in memories
            )
            relations = index.all_relations()
            self._relations.rewrite(encode_relation(r) for r in relations)
            vectors = self._vectors.rewrite(self._vector_lines(index, ids))
            # The files now hold exactly what the index holds: only the line counts change.
            self._mem_lines, self._mem_tombstones = len(memories), 0
            self._rel_lines, self._rel_tombstones = len(relations), 0
            self._vec_lines, self._vec_tombstones = vectors, 0
            return CompactionResult(before=before, after=self._stats())

    def _vector_lines(self, index: SQLiteStore, ids: Sequence[str]) -> Iterator[bytes]:
        for start in range(0, len(ids), _PAGE):
            page = ids[start : start + _PAGE]
            models = index.vector_models(page)
            found: dict[str, NDArray[np.float32]] = {}
            for model_id in set(models.values()):
                found |= index.get_vectors(
                    [i for i in page if models.get(i) == model_id], model_id, passages=True
                )
            for ident in page:
                if ident in found:
                    yield encode_vector(ident, models[ident], found[ident])


def _record_id(record: StoredMemory | Tombstone) -> str:
    return record.id if isinstance(record, Tombstone) else record.memory.id


def _stored(record: StoredMemory) -> tuple[Memory, Schedule]:
    return record.memory, record.schedule or _EMPTY


def _schedule(columns: list[list[float]], i: int) -> Schedule:
    values: dict[str, Any] = {
        name: (None if col[i] != col[i] else float(col[i]))
        for name, col in zip(SCHEDULE_FIELDS, columns, strict=True)
    }
    return Schedule.model_construct(**values)


def _refuse_foreign(path: Path) -> None:
    """Data files without meta.json: another program's directory (CortexGraph's, say)."""
    if (path / META).exists():
        return
    for name in (MEMORIES, RELATIONS):
        try:
            size = (path / name).stat().st_size
        except FileNotFoundError:
            continue
        if size:
            raise StoreError(
                f"{path} holds {name} but no {META}: not an Engram JSONL store "
                "(a CortexGraph directory is imported with `engram import cortexgraph DIR`)"
            )


def _meta_bytes(meta: dict[str, Any]) -> bytes:
    return (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode()
