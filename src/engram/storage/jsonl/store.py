"""The JSONL store: memory you can keep in git.

A directory holds `memories.jsonl` and `relations.jsonl` (one JSON object per line, see
`records`), `meta.json` (format version and the schedule fingerprint) and `.lock`.

* Writes append lines: a changed memory is appended again (the last line for an id wins) and a
  deletion appends a tombstone. `compact` rewrites the files without the dead lines.
* Everything is indexed in memory when the store opens: ids, a token index with BM25 relevance
  (`text`), tags, and sorted schedule keys (`sorted_keys`) so that gc, review, danger-zone and
  promotion queries are range or stabbing queries, as on SQLite.
* Several processes may share a directory. Every write takes the exclusive directory lock,
  first catches up on the lines other processes appended, then appends and fsyncs before it
  returns: `modify` is an atomic read-modify-write across processes. Reads catch up too (one
  `stat` per file when nothing changed). A file replaced by another process's compaction is
  detected by its inode and reloaded, so nothing is lost.
* A line that cannot be read (a crash mid-write, a hand edit) never makes the store unloadable:
  every good line is loaded, each bad one is reported with its line number and moved, byte for
  byte, to `quarantine/<file>.<timestamp>.bad`.
"""

from __future__ import annotations

import gc
import heapq
import json
import logging
import os
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engram.atomic import fsync_dir
from engram.clock import system_clock
from engram.core.models import AuditEntry, Direction, Memory, Relation, Schedule, Status
from engram.core.timeutil import to_epoch
from engram.errors import NotFoundError, StoreError
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
from engram.storage.jsonl.sorted_keys import SortedKeys
from engram.storage.jsonl.text import Fields, TextIndex, phrase
from engram.storage.jsonl.vectors import VectorLine, VectorMatrix, decode_vector, encode_vector
from engram.storage.locks import file_lock
from engram.storage.ltm_memory import MemoryLtm
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

log = logging.getLogger(__name__)

MEMORIES = "memories.jsonl"
RELATIONS = "relations.jsonl"
VECTORS = "vectors.jsonl"
AUDIT = "audit.jsonl"  # the maintenance pipeline's decisions, append-only, read on demand
LTM_NOTES = "ltm.jsonl"  # the vault index (engram.storage.ltm_memory)
META = "meta.json"
FORMAT = 1
GITIGNORE = (
    "# Engram JSONL store: commit memories.jsonl, relations.jsonl, vectors.jsonl, meta.json\n"
    ".lock\nquarantine/\n.*.tmp\n"
    "# the vault index: rebuilt from the vault by `engram index-ltm`\n"
    f"{LTM_NOTES}\n"
)
_EMPTY = Schedule()
_BULK = 256  # applying more lines than this at once: sort the keys once at the end
_NEG_INF = float("-inf")

# Compaction is suggested when at least this share of lines is dead, and at least this many.
COMPACT_RATIO = 0.5
COMPACT_MIN_DEAD = 1_000


@dataclass(slots=True)
class _Entry:
    seq: int
    memory: Memory
    schedule: Schedule
    scheduled: bool
    last_used: float
    created_at: float

    def stub(self, relevance: float = 0.0) -> Stub:
        m = self.memory
        return Stub(
            m.id, m.use_count, m.strength, self.last_used, self.created_at, m.status, relevance
        )

    def fields(self) -> Fields:
        return self.memory.content, self.memory.tags, self.memory.entities


class JSONLStore(MemoryLtm):
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
        self._clear_memories()
        self._clear_relations()
        self._clear_vectors()
        try:
            with self._mutex, self._lock.hold(exclusive=True):
                self._initialise()
                self._sync()
                self._repair_if_needed()
        except BaseException:
            self._lock.close()
            raise

    # -- plumbing -----------------------------------------------------------------------------

    def close(self) -> None:
        with self._mutex:
            self._lock.close()

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
    def _reading(self) -> Iterator[None]:
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
            yield

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Exclusive lock, caught up with every line on disk: a read-modify-write is atomic."""
        with self._mutex:
            self._check_open()
            with self._lock.hold(exclusive=True):
                self._sync()
                self._repair_if_needed()
                yield

    def _check_open(self) -> None:
        if self._lock.closed:
            raise StoreError(f"JSONL store {self.path} is closed")

    # -- reading the files --------------------------------------------------------------------

    def _sync(self) -> None:
        """Apply the lines appended since the last read (all of them after a replacement)."""
        # Loading builds many objects and no cycles: the cyclic collector would only rescan
        # them again and again (a third of the load time at 100K memories).
        with _collector_paused():
            self._sync_files()

    def _sync_files(self) -> None:
        chunk = self._memories.read_new()
        if chunk.reset:
            self._clear_memories()
            self._clear_relations()
            self._clear_vectors()
            self._relations.forget()
            self._vectors.forget()
        bulk = len(chunk.lines) > _BULK
        for number, raw in chunk.lines:
            try:
                record = decode_memory(raw)
            except BadLine as exc:
                self._bad.append((MEMORIES, number, str(exc)))
                continue
            self._apply_memory(record, bulk)
        rchunk = self._relations.read_new()
        if rchunk.reset:
            self._clear_relations()
        for number, raw in rchunk.lines:
            try:
                relation = decode_relation(raw)
            except BadLine as exc:
                self._bad.append((RELATIONS, number, str(exc)))
                continue
            self._apply_relation(relation)
        vchunk = self._vectors.read_new()
        if vchunk.reset:
            self._clear_vectors()
        for number, raw in vchunk.lines:
            try:
                vector = decode_vector(raw)
            except BadLine as exc:
                self._bad.append((VECTORS, number, str(exc)))
                continue
            self._apply_vector(vector)

    def _reload(self) -> None:
        for file in self._files:
            file.forget()
        self._clear_memories()
        self._clear_relations()
        self._clear_vectors()
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

    # -- in-memory state ----------------------------------------------------------------------

    def _clear_memories(self) -> None:
        self._by_id: dict[str, _Entry] = {}
        self._by_seq: dict[int, _Entry] = {}
        self._order: list[int] = []  # live seqs in save order
        self._next_seq = 1
        self._counts = {status: 0 for status in Status}
        self._tags: dict[str, set[int]] = {}
        # episode -> (episode_seq, seq) of its memories
        self._episodes: dict[str, SortedKeys[int]] = {}
        self._text = TextIndex(self.field_weights)
        self._text_built = False  # built on the first text search: other commands skip it
        self._forget: SortedKeys[float] = SortedKeys()
        self._review: SortedKeys[float] = SortedKeys()
        self._danger_from: SortedKeys[float] = SortedKeys()
        self._danger_until: SortedKeys[float] = SortedKeys()
        self._promote_from: SortedKeys[float] = SortedKeys()
        self._promote_until: SortedKeys[float] = SortedKeys()
        self._browse: dict[Status, SortedKeys[tuple[float, float]]] = {
            status: SortedKeys() for status in Status
        }
        self._unscheduled = 0
        self._mem_lines = 0
        self._mem_tombstones = 0
        self._bad: list[tuple[str, int, str]] = [
            b for b in getattr(self, "_bad", []) if b[0] != MEMORIES
        ]

    def _clear_relations(self) -> None:
        self._rels: dict[str, Relation] = {}
        self._rel_key: dict[tuple[str, str, str], str] = {}
        self._rel_of: dict[str, set[str]] = {}
        self._rel_lines = 0
        self._rel_tombstones = 0
        self._bad = [b for b in getattr(self, "_bad", []) if b[0] != RELATIONS]

    def _clear_vectors(self) -> None:
        dims = None if self.vector_model is None else self.vector_model[1]
        self._searchable = None if dims is None else VectorMatrix(dims)
        self._other_vectors: dict[str, tuple[str, NDArray[np.float32]]] = {}
        self._vec_lines = 0
        self._vec_tombstones = 0
        self._bad = [b for b in getattr(self, "_bad", []) if b[0] != VECTORS]

    def _apply_memory(self, record: StoredMemory | Tombstone, bulk: bool = False) -> None:
        self._mem_lines += 1
        if isinstance(record, Tombstone):
            self._mem_tombstones += 1
            self._drop_memory(record.id)
        else:
            self._put_memory(record.memory, record.schedule, bulk)

    def _put_memory(self, memory: Memory, schedule: Schedule | None, bulk: bool = False) -> None:
        old = self._by_id.get(memory.id)
        if old is None:
            seq = self._next_seq
            self._next_seq += 1
            self._order.append(seq)
            same_text = False
        else:
            seq = old.seq
            same_text = old.fields() == (memory.content, memory.tags, memory.entities)
            self._unindex(old, keep_text=same_text)
            if old.memory.content != memory.content:
                self._drop_vector(memory.id)  # it described the old text
        entry = _Entry(
            seq=seq,
            memory=memory,
            schedule=schedule or _EMPTY,
            scheduled=schedule is not None,
            last_used=to_epoch(memory.last_used),
            created_at=to_epoch(memory.created_at),
        )
        self._index(entry, bulk, keep_text=same_text)

    def _drop_memory(self, ident: str) -> None:
        entry = self._by_id.get(ident)
        if entry is None:
            return
        self._unindex(entry)
        i = bisect_left(self._order, entry.seq)
        if i < len(self._order) and self._order[i] == entry.seq:
            del self._order[i]
        for rid in list(self._rel_of.get(ident, ())):
            self._forget_relation(rid)
        self._drop_vector(ident)

    def _index(self, e: _Entry, bulk: bool, keep_text: bool = False) -> None:
        m = e.memory
        self._by_id[m.id] = e
        self._by_seq[e.seq] = e
        self._counts[m.status] += 1
        if not keep_text:
            for tag in m.tags:
                self._tags.setdefault(tag.casefold(), set()).add(e.seq)
            if self._text_built:
                self._text.add(e.seq, e.fields())
        if m.episode is not None and m.episode_seq is not None:
            self._episodes.setdefault(m.episode, SortedKeys()).add(m.episode_seq, e.seq, bulk)
        if not e.scheduled:
            self._unscheduled += 1
        s = e.schedule
        if s.forget_at is not None:
            self._forget.add(s.forget_at, e.seq, bulk)
        if s.review_at is not None:
            self._review.add(s.review_at, e.seq, bulk)
        if _interval(s.danger_from, s.danger_until):
            self._danger_from.add(s.danger_from, e.seq, bulk)  # type: ignore[arg-type]
            self._danger_until.add(s.danger_until, e.seq, bulk)  # type: ignore[arg-type]
        if _interval(s.promote_from, s.promote_until):
            self._promote_from.add(s.promote_from, e.seq, bulk)  # type: ignore[arg-type]
            self._promote_until.add(s.promote_until, e.seq, bulk)  # type: ignore[arg-type]
        self._browse[m.status].add(_browse_key(e), e.seq, bulk)

    def _unindex(self, e: _Entry, keep_text: bool = False) -> None:
        m = e.memory
        del self._by_id[m.id]
        del self._by_seq[e.seq]
        self._counts[m.status] -= 1
        if not keep_text:
            for tag in m.tags:
                members = self._tags.get(tag.casefold())
                if members is not None:
                    members.discard(e.seq)
                    if not members:
                        del self._tags[tag.casefold()]
            if self._text_built:
                self._text.remove(e.seq, e.fields())
        if m.episode is not None and m.episode_seq is not None:
            episode = self._episodes[m.episode]
            episode.remove(m.episode_seq, e.seq)
            if not len(episode):
                del self._episodes[m.episode]
        if not e.scheduled:
            self._unscheduled -= 1
        s = e.schedule
        if s.forget_at is not None:
            self._forget.remove(s.forget_at, e.seq)
        if s.review_at is not None:
            self._review.remove(s.review_at, e.seq)
        if _interval(s.danger_from, s.danger_until):
            self._danger_from.remove(s.danger_from, e.seq)  # type: ignore[arg-type]
            self._danger_until.remove(s.danger_until, e.seq)  # type: ignore[arg-type]
        if _interval(s.promote_from, s.promote_until):
            self._promote_from.remove(s.promote_from, e.seq)  # type: ignore[arg-type]
            self._promote_until.remove(s.promote_until, e.seq)  # type: ignore[arg-type]
        self._browse[m.status].remove(_browse_key(e), e.seq)

    def _apply_relation(self, record: Relation | Tombstone) -> None:
        self._rel_lines += 1
        if isinstance(record, Tombstone):
            self._rel_tombstones += 1
            self._forget_relation(record.id)
            return
        if record.from_id not in self._by_id or record.to_id not in self._by_id:
            return  # an endpoint was deleted: the relation went with it
        self._forget_relation(record.id)
        key = (record.from_id, record.to_id, record.type)
        if key in self._rel_key:
            return  # a second edge with the same endpoints and type: the first one stands
        self._rels[record.id] = record
        self._rel_key[key] = record.id
        for end in (record.from_id, record.to_id):
            self._rel_of.setdefault(end, set()).add(record.id)

    def _forget_relation(self, rid: str) -> None:
        relation = self._rels.pop(rid, None)
        if relation is None:
            return
        del self._rel_key[(relation.from_id, relation.to_id, relation.type)]
        for end in (relation.from_id, relation.to_id):
            ids = self._rel_of.get(end)
            if ids is not None:
                ids.discard(rid)
                if not ids:
                    del self._rel_of[end]

    def _apply_vector(self, record: VectorLine | Tombstone) -> None:
        self._vec_lines += 1
        if isinstance(record, Tombstone):
            self._vec_tombstones += 1
            self._drop_vector(record.id)
        elif record.id in self._by_id:  # else its memory was deleted: the vector went with it
            self._drop_vector(record.id)
            matrix = self._searchable
            if (
                matrix is not None
                and self.vector_model is not None
                and record.model_id == self.vector_model[0]
                and record.vector.shape[1] == matrix.dims
            ):
                matrix.put(record.id, record.vector)
            else:
                self._other_vectors[record.id] = (record.model_id, record.vector)

    def _drop_vector(self, ident: str) -> None:
        if self._searchable is not None:
            self._searchable.remove(ident)
        self._other_vectors.pop(ident, None)

    def _has_vector(self, ident: str) -> bool:
        return ident in self._other_vectors or (
            self._searchable is not None and ident in self._searchable
        )

    def _vector_of(self, ident: str) -> tuple[str, NDArray[np.float32]] | None:
        other = self._other_vectors.get(ident)
        if other is not None:
            return other
        if self._searchable is not None and self.vector_model is not None:
            vector = self._searchable.get(ident)
            if vector is not None:
                return self.vector_model[0], vector
        return None

    def _retire_vectors(self, ids: Sequence[str]) -> None:
        """Record in vectors.jsonl that these memories' vectors are gone (already dropped in
        memory), so a fresh load never revives them."""
        gone = [encode_tombstone(ident) for ident in ids]
        if gone:
            self._vectors.append(gone)
            self._vec_lines += len(gone)
            self._vec_tombstones += len(gone)

    # -- writing ------------------------------------------------------------------------------

    def _append_memories(self, records: Sequence[StoredMemory | Tombstone]) -> None:
        lines = [
            encode_tombstone(r.id)
            if isinstance(r, Tombstone)
            else encode_memory(r.memory, r.schedule)
            for r in records
        ]
        self._memories.append(lines)
        bulk = len(records) > _BULK
        for record in records:
            self._apply_memory(record, bulk)

    def _append_relations(self, records: Sequence[Relation | Tombstone]) -> None:
        lines = [
            encode_tombstone(r.id) if isinstance(r, Tombstone) else encode_relation(r)
            for r in records
        ]
        self._relations.append(lines)
        for record in records:
            self._apply_relation(record)

    # -- memories -----------------------------------------------------------------------------

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None:
        with self._writing():
            seen: set[str] = set()
            for memory, _ in items:
                if memory.id in self._by_id or memory.id in seen:
                    raise StoreError(f"cannot insert memories: id {memory.id!r} already exists")
                seen.add(memory.id)
            self._append_memories([StoredMemory(m, s) for m, s in items])

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        with self._reading():
            return sorted(i for i in self._by_id if i.startswith(prefix))[:limit]

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        with self._reading():
            return [self._by_id[i].memory for i in ids if i in self._by_id]

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]:
        with self._writing():
            current: dict[str, Memory] = {}
            results: list[tuple[Memory, Memory]] = []
            writes: dict[str, StoredMemory] = {}
            for ident in ids:
                old = current.get(ident)
                if old is None:
                    entry = self._by_id.get(ident)
                    if entry is None:
                        raise NotFoundError("memory", ident)
                    old = entry.memory
                outcome = change(old)
                if outcome is None:
                    continue
                new, schedule = outcome
                if new.id != ident:
                    raise StoreError(f"a change may not alter a memory's id ({ident!r})")
                current[ident] = new
                writes[ident] = StoredMemory(new, schedule)
                results.append((old, new))
            if writes:
                stale = [
                    ident
                    for ident, stored in writes.items()
                    if self._has_vector(ident)
                    and stored.memory.content != self._by_id[ident].memory.content
                ]
                self._append_memories(list(writes.values()))
                self._retire_vectors(stale)
            return results

    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        with self._writing():
            victims = []
            for ident in dict.fromkeys(ids):
                entry = self._by_id.get(ident)
                if entry is None:
                    continue
                due = entry.schedule.forget_at
                if due_before is not None and (due is None or not due < due_before):
                    continue
                victims.append(ident)
            if not victims:
                return []
            edges = sorted({rid for ident in victims for rid in self._rel_of.get(ident, ())})
            embedded = [ident for ident in victims if self._has_vector(ident)]
            self._append_memories([Tombstone(ident) for ident in victims])
            # The memory tombstones already hide these edges; the relation tombstones record it
            # in relations.jsonl too, so a re-used id never brings them back.
            self._relations.append([encode_tombstone(rid) for rid in edges])
            self._rel_lines += len(edges)
            self._rel_tombstones += len(edges)
            self._retire_vectors(embedded)
            return victims

    def count(self) -> dict[Status, int]:
        with self._reading():
            return dict(self._counts)

    # -- finding ------------------------------------------------------------------------------

    def _accepts(self, where: Filter) -> Callable[[int], bool]:
        statuses = frozenset(where.statuses)
        since = where.used_since
        allowed: set[int] | None = None
        if where.tags:
            allowed = set()
            for tag in where.tags:
                allowed |= self._tags.get(tag.casefold(), set())
        by_seq = self._by_seq

        def accept(seq: int) -> bool:
            entry = by_seq.get(seq)
            if entry is None or entry.memory.status not in statuses:
                return False
            if since is not None and entry.last_used < since:
                return False
            return allowed is None or seq in allowed

        return accept

    def text_search(self, terms: Sequence[str], where: Filter, limit: int) -> list[Stub]:
        if not terms or limit <= 0:
            return []
        with self._reading():
            phrases = [phrase(t) for t in terms]
            if not self._text_built:
                with _collector_paused():
                    for entry in self._by_seq.values():
                        self._text.add(entry.seq, entry.fields())
                self._text_built = True
            scores = self._text.search(
                phrases, lambda seq: self._by_seq[seq].fields(), self._accepts(where)
            )
            best = heapq.nlargest(limit, scores.items(), key=lambda kv: (kv[1], -kv[0]))
            return [self._by_seq[seq].stub(relevance) for seq, relevance in best]

    def stubs(self, ids: Sequence[str], where: Filter) -> list[Stub]:
        with self._reading():
            accept = self._accepts(where)
            entries = (self._by_id.get(i) for i in dict.fromkeys(ids))
            return [e.stub(0.0) for e in entries if e is not None and accept(e.seq)]

    def browse(self, where: Filter, limit: int) -> list[Stub]:
        """Most durable first (latest forget_at, then latest use), per status, as on SQLite."""
        out: list[Stub] = []
        with self._reading():
            accept = self._accepts(where)
            for status in dict.fromkeys(where.statuses):
                keys = self._browse[status]
                taken = 0
                for _, seq in keys.descending_below(len(keys)):
                    if taken >= limit:
                        break
                    if accept(seq):
                        out.append(self._by_seq[seq].stub(1.0))
                        taken += 1
        return out

    def due_for_gc(self, now: float, limit: int) -> list[str]:
        """Exact: forget_at was computed by the same formula as the score."""
        with self._reading():
            stop = min(self._forget.count_below(now), max(limit, 0))
            out: list[str] = []
            for _, seq in self._forget.ascending_from(0):
                if len(out) >= stop:
                    break
                out.append(self._by_seq[seq].memory.id)
            return out

    def near_review_peak(self, now: float, limit: int) -> list[Stub]:
        half = max(1, limit // 2)
        with self._reading():
            split = self._review.count_below(now)
            later = [seq for _, seq in _take(self._review.ascending_from(split), half)]
            earlier = [seq for _, seq in _take(self._review.descending_below(split), half)]
            return [self._by_seq[seq].stub() for seq in later + earlier]

    def schedule_counts(self, now: float) -> tuple[int, int]:
        """(due for gc, in the danger zone): two bisections each, no scan. Every indexed
        danger interval has start <= end, so those in it = started - ended."""
        with self._reading():
            due = self._forget.count_below(now)
            zone = self._danger_from.count_at_most(now) - self._danger_until.count_below(now)
            return due, zone

    def in_promotion_window(self, now: float, limit: int) -> list[Stub]:
        """Active memories whose promotion interval contains now. Walks the smaller of
        "started by now" and "not ended by now" and checks the other bound."""
        with self._reading():
            started = self._promote_from.count_at_most(now)
            ended = self._promote_until.count_below(now)
            if started <= len(self._promote_until) - ended:
                seqs = (seq for _, seq in _take(self._promote_from.ascending_from(0), started))
            else:
                seqs = (seq for _, seq in self._promote_until.ascending_from(ended))
            out: list[Stub] = []
            for seq in seqs:
                if len(out) >= limit:
                    break
                entry = self._by_seq[seq]
                s = entry.schedule
                if (
                    entry.memory.status == Status.ACTIVE
                    and s.promote_from is not None
                    and s.promote_until is not None
                    and s.promote_from <= now <= s.promote_until
                ):
                    out.append(entry.stub())
            return out

    def page(self, after: str | None, limit: int) -> list[Memory]:
        with self._reading():
            start = 0
            if after is not None:
                entry = self._by_id.get(after)
                if entry is None:
                    raise NotFoundError("cursor", after)
                start = bisect_right(self._order, entry.seq)
            seqs = self._order[start : start + max(limit, 0)]
            return [self._by_seq[seq].memory for seq in seqs]

    def page_texts(self, after: str | None, limit: int) -> list[tuple[str, Status, str]]:
        return [(m.id, m.status, m.content) for m in self.page(after, limit)]

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
        with self._writing():
            current = self._read_meta().get("schedule_fingerprint")
            if current == fingerprint and not self._unscheduled:
                return 0  # another process did it a moment ago
            entries = [self._by_seq[seq] for seq in self._order]
            if entries:
                arrays = compute(
                    ScheduleInputs(
                        use_count=np.array([e.memory.use_count for e in entries], np.float64),
                        strength=np.array([e.memory.strength for e in entries], np.float64),
                        last_used=np.array([e.last_used for e in entries], np.float64),
                        created_at=np.array([e.created_at for e in entries], np.float64),
                        active=np.array([e.memory.status == Status.ACTIVE for e in entries]),
                    )
                )
                columns = [getattr(arrays, name).tolist() for name in SCHEDULE_FIELDS]
                schedules = [_schedule(columns, i) for i in range(len(entries))]
                self._memories.rewrite(
                    encode_memory(e.memory, s) for e, s in zip(entries, schedules, strict=True)
                )
                self._write_meta(schedule_fingerprint=fingerprint)
                for entry, schedule in zip(entries, schedules, strict=True):
                    self._unindex(entry, keep_text=True)
                    entry.schedule, entry.scheduled = schedule, True
                    self._index(entry, bulk=True, keep_text=True)
                self._mem_lines, self._mem_tombstones = len(entries), 0
                log.info("rescheduled %d memories", len(entries))
            else:
                self._write_meta(schedule_fingerprint=fingerprint)
            return len(entries)

    # -- relations ----------------------------------------------------------------------------

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

    def add_relation(self, relation: Relation) -> Relation:
        with self._writing():
            existing = self._rel_key.get((relation.from_id, relation.to_id, relation.type))
            if existing is not None:
                return self._rels[existing]
            for ident in (relation.from_id, relation.to_id):
                if ident not in self._by_id:
                    raise NotFoundError("memory", ident)
            if relation.id in self._rels:
                raise StoreError(f"cannot add relation: id {relation.id!r} already exists")
            self._append_relations([relation])
            return relation

    def episode_tails(self, episodes: Sequence[str]) -> dict[str, int]:
        with self._reading():
            out: dict[str, int] = {}
            for name in episodes:
                members = self._episodes.get(name)
                if members is not None and len(members):
                    out[name] = next(members.descending_below(len(members)))[0]
            return out

    def episode_neighbours(self, ids: Sequence[str], radius: int) -> list[tuple[str, str]]:
        with self._reading():
            out: list[tuple[str, str]] = []
            for ident in dict.fromkeys(ids):
                entry = self._by_id.get(ident)
                if entry is None:
                    continue
                m = entry.memory
                if m.episode is None or m.episode_seq is None:
                    continue
                members = self._episodes[m.episode]
                start = members.count_below(m.episode_seq - radius)
                for key, seq in members.ascending_from(start):
                    if key > m.episode_seq + radius:
                        break
                    if seq != entry.seq:
                        out.append((ident, self._by_seq[seq].memory.id))
            return out

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        with self._reading():
            rids = {rid for ident in memory_ids for rid in self._rel_of.get(ident, ())}
            return sorted((self._rels[r] for r in rids), key=lambda r: (r.created_at, r.id))

    def count_relations(self) -> int:
        with self._reading():
            return len(self._rels)

    def traverse(
        self, start: str, depth: int, types: Sequence[str], direction: Direction, limit: int
    ) -> list[Hop]:
        """Breadth-first over the in-memory adjacency (see `Store.traverse` for the rules)."""
        wanted = frozenset(types)

        def edges(node: str) -> Iterator[Relation]:
            for rid in self._rel_of.get(node, ()):
                relation = self._rels[rid]
                if not wanted or relation.type in wanted:
                    yield relation

        def far_end(relation: Relation, node: str, way: Direction) -> str | None:
            if way in ("out", "both") and relation.from_id == node:
                return relation.to_id
            if way in ("in", "both") and relation.to_id == node:
                return relation.from_id
            return None

        back: dict[str, Direction] = {"out": "in", "in": "out", "both": "both"}
        with self._reading():
            distance = {start: 0}
            frontier = [start]
            for level in range(1, max(depth, 0) + 1):
                reached: list[str] = []
                for node in frontier:
                    for relation in edges(node):
                        other = far_end(relation, node, direction)
                        if other is not None and other not in distance:
                            distance[other] = level
                            reached.append(other)
                frontier = reached
            hops: list[Hop] = []
            for node, level in distance.items():
                if level == 0:
                    continue
                parents = [
                    (relation, parent)
                    for relation in edges(node)
                    if (parent := far_end(relation, node, back[direction])) is not None
                    and distance.get(parent) == level - 1
                ]
                via, parent = min(parents, key=lambda rp: (rp[0].created_at, rp[0].id))
                hops.append(Hop(node, level, parent, via))
            hops.sort(key=lambda h: (h.depth, h.via.created_at, h.via.id))
            return hops[: max(limit, 0)]

    # -- vectors ------------------------------------------------------------------------------

    def put_vectors(
        self,
        items: Sequence[tuple[str, NDArray[np.float32]]],
        model_id: str,
        texts: Sequence[str] | None = None,
    ) -> int:
        with self._writing():
            latest = {
                ident: vec
                for i, (ident, vec) in enumerate(items)
                if ident in self._by_id
                and (texts is None or self._by_id[ident].memory.content == texts[i])
            }
            records = [
                VectorLine(ident, model_id, np.atleast_2d(np.asarray(vec, dtype=np.float32)))
                for ident, vec in latest.items()
            ]
            self._vectors.append(encode_vector(r.id, r.model_id, r.vector) for r in records)
            for record in records:
                self._apply_vector(record)
            return len(records)

    def vector_search(self, vector: NDArray[np.float32], where: Filter, limit: int) -> list[Stub]:
        """Exact cosine similarity against every vector of the configured model."""
        with self._reading():
            if self._searchable is None or limit <= 0:
                return []
            accept = self._accepts(where)
            out: list[Stub] = []
            for ident, similarity in self._searchable.nearest(vector):
                entry = self._by_id.get(ident)
                if entry is not None and accept(entry.seq):
                    out.append(entry.stub(similarity))
                    if len(out) >= limit:
                        break
            return out

    def vector_neighbours(
        self, vectors: Mapping[str, NDArray[np.float32]], where: Filter, k: int
    ) -> dict[str, list[tuple[str, float]]]:
        """Exact: every stored vector is compared (JSONL stores are small)."""
        with self._reading():
            if self._searchable is None:
                return {}
            accept = self._accepts(where)
            out: dict[str, list[tuple[str, float]]] = {}
            for ident, vector in vectors.items():
                near: list[tuple[str, float]] = []
                for other, similarity in self._searchable.nearest(vector):
                    entry = self._by_id.get(other)
                    if other != ident and entry is not None and accept(entry.seq):
                        near.append((other, similarity))
                        if len(near) >= k:
                            break
                out[ident] = near
            return out

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        with self._reading():
            out: dict[str, NDArray[np.float32]] = {}
            for ident in ids:
                found = self._vector_of(ident)
                if found is not None and found[0] == model_id:
                    out[ident] = found[1].copy() if passages else found[1][0].copy()
            return out

    def missing_vectors(self, model_id: str, limit: int) -> list[tuple[str, str]]:
        with self._reading():
            out: list[tuple[str, str]] = []
            for seq in self._order:
                if len(out) >= limit:
                    break
                memory = self._by_seq[seq].memory
                found = self._vector_of_model(memory.id)
                if found != model_id:
                    out.append((memory.id, memory.content))
            return out

    def _vector_lines(self, entries: Sequence[_Entry]) -> Iterator[bytes]:
        for entry in entries:
            found = self._vector_of(entry.memory.id)
            if found is not None:
                yield encode_vector(entry.memory.id, found[0], found[1])

    def _vector_of_model(self, ident: str) -> str | None:
        other = self._other_vectors.get(ident)
        if other is not None:
            return other[0]
        if self._searchable is not None and self.vector_model is not None:
            return self.vector_model[0] if ident in self._searchable else None
        return None

    def vector_counts(self) -> dict[str, int]:
        with self._reading():
            counts: dict[str, int] = {}
            if (
                self._searchable is not None
                and self.vector_model is not None
                and len(self._searchable)
            ):
                counts[self.vector_model[0]] = len(self._searchable)
            for model, _ in self._other_vectors.values():
                counts[model] = counts.get(model, 0) + 1
            return counts

    # -- long-term memory index: MemoryLtm, persisted next to the memories -------------------

    def _ltm_file(self) -> Path | None:
        return self.path / LTM_NOTES

    # -- maintenance --------------------------------------------------------------------------

    def stats(self) -> StorageStats:
        with self._reading():
            return self._stats()

    def _stats(self) -> StorageStats:
        files = (
            FileStats(
                name=MEMORIES,
                bytes=self._memories.size(),
                lines=self._mem_lines,
                live=len(self._by_id),
                tombstones=self._mem_tombstones,
            ),
            FileStats(
                name=RELATIONS,
                bytes=self._relations.size(),
                lines=self._rel_lines,
                live=len(self._rels),
                tombstones=self._rel_tombstones,
            ),
            FileStats(
                name=VECTORS,
                bytes=self._vectors.size(),
                lines=self._vec_lines,
                live=len(self._other_vectors)
                + (0 if self._searchable is None else len(self._searchable)),
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
            memories=len(self._by_id),
            relations=len(self._rels),
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
        with self._writing():
            before = self._stats()
            entries = [self._by_seq[seq] for seq in self._order]
            self._memories.rewrite(
                encode_memory(e.memory, e.schedule if e.scheduled else None) for e in entries
            )
            self._relations.rewrite(encode_relation(r) for r in list(self._rels.values()))
            vectors = self._vectors.rewrite(self._vector_lines(entries))
            # The files now hold exactly what is in memory: only the line counts change.
            self._mem_lines, self._mem_tombstones = len(entries), 0
            self._rel_lines, self._rel_tombstones = len(self._rels), 0
            self._vec_lines, self._vec_tombstones = vectors, 0
            return CompactionResult(before=before, after=self._stats())


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


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _interval(start: float | None, end: float | None) -> bool:
    return start is not None and end is not None and start <= end


def _browse_key(e: _Entry) -> tuple[float, float]:
    forget = e.schedule.forget_at
    return (_NEG_INF if forget is None else forget, e.last_used)


def _take(items: Iterator[tuple[Any, int]], n: int) -> Iterator[tuple[Any, int]]:
    for i, item in enumerate(items):
        if i >= n:
            return
        yield item


def _meta_bytes(meta: dict[str, Any]) -> bytes:
    return (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode()
