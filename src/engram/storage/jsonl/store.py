"""The JSONL store: memory you can keep in git.

A directory holds `memories.jsonl`, `relations.jsonl`, `vectors.jsonl` (JSON lines: `records`,
`vectors`), `meta.json` (format version, schedule fingerprint), `audit.jsonl` and `.lock`.

* The files are the truth. Writes append lines (the last line for an id wins; a deletion is a
  tombstone); `compact` rewrites the files without the dead lines.
* Everything is searched through an index: a private SQLite database with the SQLite
  backend's own schema and queries, so full-text ranking, vector search, schedules and
  traversal behave exactly as on SQLite, by construction. It starts from the snapshot the last
  client to close the store left, when the files still begin with what that client had read
  (`snapshot`), and from nothing otherwise; then the lines not yet in it are read. The vault's
  note index, which must outlive the process, is an SQLite file next to the memories (`ltm.db`).
* Several processes may share a directory. Every write takes the exclusive directory lock,
  first catches up on the lines other processes appended, then appends and fsyncs before it
  returns: `modify` is an atomic read-modify-write across processes. Reads catch up too (one
  `stat` per file when nothing changed); a file replaced (a compaction) rebuilds the index.
* A line that cannot be read (a crash mid-write, a hand edit) never makes the store unloadable:
  every good line is loaded, each bad one is reported with its line number and moved, byte for
  byte, to `quarantine/<file>.<timestamp>.bad`.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from engram.core.models import AuditEntry, Memory, Relation, Schedule, Status
from engram.errors import EngramError, RefusedDataError, StoreError
from engram.storage.changes import apply_changes
from engram.storage.columns import FIELD_WEIGHTS, FieldWeights
from engram.storage.jsonl import compaction, orphans, snapshot
from engram.storage.jsonl.delegation import index_read
from engram.storage.jsonl.edges import apply_relations, held_under_another_id
from engram.storage.jsonl.files import Chunk, DirLock, LineFile, writable
from engram.storage.jsonl.layout import (
    AUDIT,
    MEMORIES,
    RELATIONS,
    VECTORS,
    initialise,
    open_folder,
    read_meta,
    write_meta,
)
from engram.storage.jsonl.records import (
    decode_memory,
    decode_relation,
    encode_memory,
    encode_relation,
    encode_tombstone,
)
from engram.storage.jsonl.repair import quarantine_bad_lines, quarantined_lines
from engram.storage.jsonl.scratch import IndexDir
from engram.storage.jsonl.sync import (
    Tally,
    append_audit,
    apply_memories,
    apply_vectors,
    decoded,
    every_memory,
    links_of_deleted,
    links_waiting,
    read_audit,
    rescheduled,
)
from engram.storage.jsonl.vault import JSONLVault
from engram.storage.jsonl.vectors import decode_vector, encode_vector
from engram.storage.locks import file_lock
from engram.storage.maintenance import CompactionResult, StorageStats
from engram.storage.protocol import (
    Capability,
    Change,
    Filter,
    Rescheduler,
    VectorItems,
)
from engram.storage.rows import AUDIT_KEEP
from engram.storage.sqlite import SQLiteStore

log = logging.getLogger(__name__)

_ANY = Filter(statuses=tuple(Status))  # every memory, whatever its status
_INHERITED: list[Any] = []  # a forked child's handles of its parent's databases (`_forked`)
FILES = (MEMORIES, RELATIONS, VECTORS)


class JSONLStore(JSONLVault):
    location: str
    _unscheduled: set[str]  # memories whose line has no schedule (`_clear_counts`)
    _links_waiting: bool  # lines of links read whose memory was missing (`_read_links_again`)
    capabilities = frozenset({Capability.COMPACT, Capability.VECTORS, Capability.LTM})
    audit_keep = AUDIT_KEEP

    def __init__(
        self,
        path: str | Path,
        *,
        field_weights: FieldWeights = FIELD_WEIGHTS,
        vector_model: tuple[str, int] | None = None,
    ) -> None:
        """`vector_model` = (model id, dimensions) of the embedder whose vectors are searched."""
        self.path = Path(path).expanduser().absolute()
        self.location = f"jsonl://{self.path}"
        self.field_weights = field_weights
        self.vector_model = vector_model
        open_folder(self.path)
        self._pid = os.getpid()
        self._mutex = threading.RLock()
        self._lock = DirLock(self.path / ".lock")
        self._files = tuple(LineFile(self.path / name) for name in FILES)
        self._memories, self._relations, self._vectors = self._files
        self._audit = LineFile(self.path / AUDIT)
        self._bad: list[tuple[str, int, str]] = []
        self._index_dir: IndexDir | None = None
        self._notes: SQLiteStore | None = None  # the vault index, opened when first used
        self._restored: dict[str, Any] | None = None  # how far the snapshot had read
        self._clear_counts()
        try:
            with self._mutex, self._lock.hold(exclusive=True):
                initialise(self.path, [file.path for file in self._files])
                self._index = self._restored_index() or self._new_index()
                self._sync()
                self._repair_if_needed()
        except BaseException:
            self._close_index()
            self._lock.close()
            raise

    # -- plumbing -----------------------------------------------------------------------------

    def close(self) -> None:
        with self._mutex:
            if not self._lock.closed:
                self._save_snapshot()
            self._close_index()
            if self._notes is not None:
                self._notes.close()
                self._notes = None
            self._lock.close()

    def _new_index(self) -> SQLiteStore:
        """An empty index in a fresh private directory (the previous one is removed)."""
        return self._open_index(self._fresh_index_path())

    def _fresh_index_path(self) -> Path:
        self._close_index()
        self._index_dir = IndexDir()
        return self._index_dir.path / "index.db"

    def _open_index(self, path: Path) -> SQLiteStore:
        return SQLiteStore(
            path, field_weights=self.field_weights, vector_model=self.vector_model, durable=False
        )

    def _restored_index(self) -> SQLiteStore | None:
        """The index the last process to close the store left (`snapshot`), if every file
        still starts with exactly what it had read; the lines appended since are read next."""
        path = self._fresh_index_path()
        index: SQLiteStore | None = None
        try:
            if not snapshot.restore(self.path, path):
                return None
            index = self._open_index(path)
            saved = snapshot.parse_state(index.meta_value(snapshot.STATE_KEY))
            if saved is None or not all(f.resume(saved["files"][f.name]) for f in self._files):
                raise ValueError("the files changed since it was taken")
            self._mem, self._rel, self._vec = (Tally(*saved["tallies"][f]) for f in FILES)
            self._unscheduled = set(saved["unscheduled"])
            self._links_waiting = bool(saved.get("links_waiting", True))  # older: may wait
        except (OSError, StoreError, KeyError, TypeError, ValueError) as exc:
            log.info("not using the index snapshot of %s (%s): reading the files", self.path, exc)
            if index is not None:
                index.close()
            for file in self._files:
                file.forget()
            self._clear_counts()
            return None
        self._restored = self._positions()
        return index

    def _positions(self) -> dict[str, Any]:
        return {file.name: file.position() for file in self._files}

    def _save_snapshot(self) -> None:
        """Leave this index to the next process if it knows more (`snapshot`); failures: logged."""
        index = getattr(self, "_index", None)
        if index is None or self._index_dir is None or self._bad:
            return
        path = self._index_dir.path / "index.db"
        positions = self._positions()
        tallies = {f: [t.lines, t.tombstones] for f, t in zip(FILES, self._tallies(), strict=True)}
        try:
            index.set_meta_value(
                snapshot.STATE_KEY,
                snapshot.state(positions, tallies, sorted(self._unscheduled), self._links_waiting),
            )
            index.close()
            if positions != self._restored or snapshot.vectors_missing(path, self.path):
                with self._lock.hold(exclusive=True):
                    snapshot.save(path, self.path)
        except (OSError, StoreError) as exc:
            log.warning("could not save the index snapshot of %s: %s", self.path, exc)

    def _tallies(self) -> tuple[Tally, Tally, Tally]:
        return self._mem, self._rel, self._vec

    def _close_index(self) -> None:
        index = getattr(self, "_index", None)
        if index is not None:
            index.close()
        if self._index_dir is not None:
            self._index_dir.cleanup()
            self._index_dir = None

    def _clear_counts(self) -> None:
        """Line counts (for `stats`); memories whose line has no schedule (hand-written)."""
        self._unscheduled = set()
        self._links_waiting, self._mem, self._rel, self._vec = False, Tally(), Tally(), Tally()
        self._orphans = orphans.OrphanCount()

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
                sizes = [file.size() for file in self._files]
                try:
                    yield self._index
                except EngramError:
                    # A check or a change callback refused before any append: the index is
                    # as the files are. But a write that failed part-way (a full disk on its
                    # second file) has appended lines the index never saw: rebuild it.
                    if [file.size() for file in self._files] != sizes:
                        self._reload()
                    raise
                except BaseException:
                    self._reload()
                    raise

    def _check_open(self) -> None:
        if self._lock.closed:
            raise StoreError(f"JSONL store {self.path} is closed")
        if self._pid != os.getpid():
            self._forked()

    def _forked(self) -> None:
        """A forked child reads the files into an index of its own: the one in the parent's
        private folder the parent goes on writing. The parent's handles are kept, not closed:
        closing a database another process has open may remove its journal."""
        self._pid = os.getpid()
        _INHERITED.append((self._index, self._notes))
        self._index, self._notes, self._index_dir = None, None, None  # type: ignore[assignment]
        self._reload()

    # -- reading the files into the index -----------------------------------------------------

    def _sync(self) -> None:
        """Apply the lines appended since the last read (all of them after a replacement)."""
        # Loading builds many objects, no cycles: the cyclic collector would rescan them often.
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
        self._note_unfinished(MEMORIES, chunk)
        memories = decoded(MEMORIES, chunk.lines, decode_memory, self._bad)
        self._mem.count(memories)
        dropped = links_of_deleted(self._index, memories, self.vector_model)
        applied = apply_memories(self._index, memories)
        for ident, scheduled in applied.items():
            (self._unscheduled.discard if scheduled else self._unscheduled.add)(ident)
        if applied and self._links_waiting:
            self._read_links_again()
        rchunk = self._relations.read_new()
        if rchunk.reset and self._rel.lines:  # replaced by another process: read afresh
            self._index.delete_relations([r.id for r in self._index.all_relations()])
            self._rel = Tally()
        self._note_unfinished(RELATIONS, rchunk)
        relations = decoded(RELATIONS, rchunk.lines, decode_relation, self._bad)
        self._rel.count(relations)
        apply_relations(self._index, relations)
        vchunk = self._vectors.read_new()
        if vchunk.reset and self._vec.lines:  # replaced by another process: read afresh
            self._index.delete_vectors([m.id for m in every_memory(self._index)])
            self._vec = Tally()
        self._note_unfinished(VECTORS, vchunk)
        vectors = decoded(VECTORS, vchunk.lines, decode_vector, self._bad)
        self._vec.count(vectors)
        apply_vectors(self._index, vectors, self.vector_model)
        self._links_waiting |= links_waiting(self._index, relations, vectors, dropped)

    def _note_unfinished(self, name: str, chunk: Chunk) -> None:
        """A write of several lines killed part-way is set aside as bad lines are."""
        if chunk.unfinished:
            self._bad.append((name, 0, "a write of several lines that did not finish"))

    def _read_links_again(self) -> None:
        """The links whole again: a memory came back (quarantined, or tombstoned by hand) while
        lines of its links waited; a migration said "verified" without them (a probe)."""
        self._index.delete_relations([r.id for r in self._index.all_relations()])
        self._index.delete_vectors([m.id for m in every_memory(self._index)])
        self._rel, self._vec = Tally(), Tally()
        self._relations.forget()
        self._vectors.forget()
        self._links_waiting = False

    def _reload(self) -> None:
        self._restored = None  # left for the next client: it knows more than a snapshot can
        for file in self._files:
            file.forget()
        self._index = self._new_index()
        self._clear_counts()
        self._bad.clear()
        self._sync()

    def _rebuild_damaged_index(self) -> None:
        with self._mutex, self._lock.hold(exclusive=False):
            log.warning("the index of %s is damaged: rebuilding it from the files", self.path)
            self._reload()  # and the next close replaces the damaged snapshot

    def _repair_if_needed(self) -> None:
        """Move unreadable lines aside and reload from the files without them (`repair`)."""
        if not self._bad:
            return
        quarantine_bad_lines(self.path, self._files, {name for name, _, _ in self._bad})
        self._reload()  # which forgets the bad lines first
        self._bad.clear()

    def _retire_vectors(self, ids: Sequence[str]) -> None:
        """Tombstones in vectors.jsonl: a fresh load never revives these memories' vectors."""
        gone = [encode_tombstone(ident) for ident in ids]
        if gone:
            self._vectors.append(gone)
            self._vec.add(len(gone), tombstones=len(gone))

    # -- memories -----------------------------------------------------------------------------

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None:
        with self._writing() as index:
            ids = [m.id for m, _ in items]
            taken = {s.id for s in index.stubs(ids, _ANY)}
            if taken or len(set(ids)) < len(ids):
                dup = next(i for n, i in enumerate(ids) if i in taken or i in ids[:n])
                raise RefusedDataError(f"cannot insert memories: id {dup!r} already exists")
            self._memories.append(encode_memory(m, s) for m, s in items)
            self._mem.add(len(items))
            index.insert(items)
            self._unscheduled.difference_update(ids)

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]:
        with self._writing() as index:
            stored = {m.id: m for m in index.get_many(list(dict.fromkeys(ids)))}
            done = apply_changes(ids, stored, change, rewrite=self._unscheduled)
            writes = done.writes
            if writes:
                edited = [i for i, (new, _) in writes.items() if new.content != stored[i].content]
                stale = [i for i in edited if i in index.vector_models(edited)]
                self._memories.append(encode_memory(m, s) for m, s in writes.values())
                self._mem.add(len(writes))
                self._retire_vectors(stale)
                index.modify(list(writes), lambda old: writes[old.id])
                self._unscheduled.difference_update(writes)
            return done.pairs

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
            # All or nothing: a read-only relations.jsonl failed it after the memory's tombstone.
            vectors = bool(self._vectors.size())
            writable([self._memories] + [self._relations] * bool(edges) + [self._vectors] * vectors)
            self._memories.append(encode_tombstone(ident) for ident in victims)
            self._mem.add(len(victims), tombstones=len(victims))
            # The memory tombstones already hide these edges; the relation tombstones record it
            # in relations.jsonl too, so a re-used id never brings them back.
            self._relations.append(encode_tombstone(rid) for rid in edges)
            self._rel.add(len(edges), tombstones=len(edges))
            if vectors:  # every victim's: one the index did not hold (of a text edited by
                self._retire_vectors(victims)  # hand) was kept as an orphan's
            index.delete(victims)
            self._unscheduled.difference_update(victims)
            return victims

    get_many = index_read(SQLiteStore.get_many)
    texts = index_read(SQLiteStore.texts)
    ids_with_prefix = index_read(SQLiteStore.ids_with_prefix)
    count = index_read(SQLiteStore.count)
    # -- finding (the index answers, exactly as the SQLite backend) ---------------------------
    text_search = index_read(SQLiteStore.text_search)
    term_counts = index_read(SQLiteStore.term_counts)
    indexed_terms = index_read(SQLiteStore.indexed_terms)
    stubs = index_read(SQLiteStore.stubs)
    browse = index_read(SQLiteStore.browse)
    saved_between = index_read(SQLiteStore.saved_between)
    due_for_gc = index_read(SQLiteStore.due_for_gc)
    near_review_peak = index_read(SQLiteStore.near_review_peak)
    in_danger_zone = index_read(SQLiteStore.in_danger_zone)
    schedule_counts = index_read(SQLiteStore.schedule_counts)
    in_promotion_window = index_read(SQLiteStore.in_promotion_window)
    page = index_read(SQLiteStore.page)
    position = index_read(SQLiteStore.position)
    page_texts = index_read(SQLiteStore.page_texts)
    episode_tails = index_read(SQLiteStore.episode_tails)
    episode_neighbours = index_read(SQLiteStore.episode_neighbours)
    episode_next = index_read(SQLiteStore.episode_next)
    # -- schedules ----------------------------------------------------------------------------

    def schedule_fingerprint(self) -> str | None:
        """None when some memory has no stored schedule (a hand-written line): the services
        then recompute every schedule, as after a change of decay settings."""
        with self._reading():
            if self._unscheduled:
                return None
            value = read_meta(self.path).get("schedule_fingerprint")
            return value if isinstance(value, str) else None

    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int:
        with self._writing() as index:
            current = read_meta(self.path).get("schedule_fingerprint")
            if current == fingerprint and not self._unscheduled:
                return 0  # another process did it a moment ago
            memories = list(every_memory(self._index))
            if memories:
                schedules = rescheduled(memories, compute)
                # In place, every other line kept (tombstones too): see `compaction`.
                compaction.reschedule(
                    self._memories, {m.id: encode_memory(m, schedules[m.id]) for m in memories}
                )
                write_meta(self.path, schedule_fingerprint=fingerprint)
                index.modify(list(schedules), lambda old: (old, schedules[old.id]))
                self._unscheduled.clear()
                log.info("rescheduled %d memories", len(memories))
            else:
                write_meta(self.path, schedule_fingerprint=fingerprint)
            return len(memories)

    # -- relations ----------------------------------------------------------------------------

    def add_relation(self, relation: Relation) -> Relation:
        with self._writing() as index:
            stored = index.add_relation(relation)
            if stored is relation:  # added now; an edge stored before is read back anew
                try:
                    self._relations.append([encode_relation(relation)])
                except BaseException:
                    self._reload()  # the index holds an edge the files do not: it was kept
                    raise
                self._rel.add(1)
            return stored

    def delete_relation(self, relation_id: str) -> Relation | None:
        """By its id, or by the id under which another clone made the same edge (`edges`):
        then both ids get a tombstone."""
        with self._writing() as index:
            removed = index.delete_relation(relation_id)
            if removed is None:
                same = held_under_another_id(self._relations.path, relation_id, index)
                removed = None if same is None else index.delete_relation(same.id)
            if removed is not None:
                ids = list(dict.fromkeys([removed.id, relation_id]))
                try:
                    self._relations.append(encode_tombstone(i) for i in ids)
                except BaseException:
                    self._reload()  # the files still hold the edge: so does the index again
                    raise
                self._rel.add(len(ids), tombstones=len(ids))
            return removed

    relations = index_read(SQLiteStore.relations)
    count_relations = index_read(SQLiteStore.count_relations)
    traverse = index_read(SQLiteStore.traverse)
    # -- the maintenance pipeline -------------------------------------------------------------

    def audit_append(self, entries: Sequence[AuditEntry]) -> None:
        with self._writing():
            append_audit(self._audit, entries, self.audit_keep)

    def audit_entries(self, plan_id: str | None, limit: int) -> list[AuditEntry]:
        with self._reading(), self._lock.hold(exclusive=False):
            return read_audit(self.path / AUDIT, plan_id, limit)

    def exclusive(self, name: str, wait: bool = False) -> AbstractContextManager[None]:
        return file_lock(self.path / f".{name}.lock", name, wait)

    # -- vectors ------------------------------------------------------------------------------

    def put_vectors(
        self, items: VectorItems, model_id: str, texts: Sequence[str] | None = None
    ) -> int:
        with self._writing() as index:
            current = index.contents([i for i, _ in items])
            latest = {
                ident: np.atleast_2d(np.asarray(vec, dtype=np.float32))
                for n, (ident, vec) in enumerate(items)
                if ident in current and (texts is None or current[ident] == texts[n])
            }
            if not latest:
                return 0
            self._vectors.append(
                encode_vector(i, model_id, v, current[i]) for i, v in latest.items()
            )
            self._vec.add(len(latest))
            index.delete_vectors(list(latest))
            return index.put_vectors(list(latest.items()), model_id)

    vector_search = index_read(SQLiteStore.vector_search)
    vector_neighbours = index_read(SQLiteStore.vector_neighbours)
    get_vectors = index_read(SQLiteStore.get_vectors)
    missing_vectors = index_read(SQLiteStore.missing_vectors)
    vector_counts = index_read(SQLiteStore.vector_counts)
    # -- maintenance --------------------------------------------------------------------------

    def stats(self) -> StorageStats:
        with self._reading():
            return self._stats()

    def _stats(self) -> StorageStats:
        index, memories = self._index, sum(self._index.count().values())
        relations, vectors = index.count_relations(), sum(index.vector_counts().values())
        paths = (self._memories.path, self._relations.path, self._vectors.path)
        kept = self._orphans.of(paths, index, memories)
        gone = kept.tombstones
        files = (
            self._mem.stats(MEMORIES, self._memories.size(), memories, gone[0]),
            self._rel.stats(RELATIONS, self._relations.size(), relations + kept.relations, gone[1]),
            self._vec.stats(VECTORS, self._vectors.size(), vectors + kept.vectors, gone[2]),
        )
        out = quarantined_lines(self.path)
        return StorageStats.of_files("jsonl", self.location, memories, relations, files, out)

    def compact(self) -> CompactionResult:
        """Rewrite the files without their dead lines, moving none (`compaction`), atomically,
        under the exclusive lock after catching up: no other process's write can be lost."""
        with self._writing():
            # A whole read first (relation and vector lines are applied when read: those of a
            # memory put back from quarantine/ were dropped), and bad lines to quarantine/.
            self._reload()
            self._repair_if_needed()
            before = self._stats()
            done = compaction.compact(
                self._index, (self._memories, self._relations, self._vectors), self._unscheduled
            )
            self._mem, self._rel, self._vec = done.tallies
            if done.reordered:  # as every other client and the next one to open now have it
                self._reload()
            return CompactionResult(before=before, after=self._stats())
