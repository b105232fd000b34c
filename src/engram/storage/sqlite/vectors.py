"""Approximate nearest-neighbour index (usearch HNSW) derived from the SQLite store.

SQLite stays the source of truth: vectors live in `memory_vectors`, and every change to them
(insert, replace, delete, memory deleted) is appended to `vector_changes` by triggers in the same
transaction. The HNSW graph is a cache of that table:

* on first use a process loads `<db>.vectors.usearch` (+ a JSON sidecar naming the last change
  it contains) and replays the changes made since; a missing, corrupt or foreign file (other
  model, other store) is rebuilt from the table;
* before every search it replays changes committed by other processes, so a delete or archive
  made anywhere never resurfaces (results are also re-checked against the table by the store);
* it is saved atomically (temp file + rename) when enough changes accumulate and at close.

A memory's blob holds one or more float32 rows (its whole text, then its passages); each row is
one graph node, keyed by the memory's `seq` with the row number above bit 40, so a search maps
every hit back to its memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engram.atomic import remove_stale_temporaries, replacing, write_atomically
from engram.clock import system_clock

log = logging.getLogger(__name__)

SAVE_EVERY = 5_000  # changes applied since the last save
RECENT = 16  # the changes before a save that its index is checked against when loaded
_REBUILD_BATCH = 20_000
SMALL_GRAPH = 10_000  # nodes; below it, vectors are added to the graph on one thread
# Up to this many rows a query is compared with every row of the index (its quantised vectors):
# about half a millisecond per 10,000 rows here, and nothing is missed. The graph's greedy walk
# can miss the nearest memory outright when the others crowd in tight clusters (thousands of
# templated notes and one odd one, tests/storage/test_contract.py).
EXACT_BELOW = 30_000
# int8 cosine quantisation: 4x smaller than float32 and several times faster to build and
# search on this class of CPU; recall@10 against exact search is measured by
# bench/semantic_scale.py. Part of the sidecar, so changing it rebuilds the file.
DTYPE, CONNECTIVITY, EXPANSION_ADD, EXPANSION_SEARCH = "i8", 16, 64, 96
INDEX_PARAMS = [DTYPE, CONNECTIVITY, EXPANSION_ADD, EXPANSION_SEARCH]

# The index file and its sidecar, named after the database they index ("<db>.vectors.usearch").
INDEX_SUFFIXES = (".vectors.usearch", ".vectors.json")

ROW_SHIFT = 40
SEQ_MASK = (1 << ROW_SHIFT) - 1

Query = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


class VectorIndex:
    def __init__(
        self,
        path: Path | None,
        dims: int,
        model_id: str,
        store_uid: str,
        query: Query,
        mode: int | None = None,
    ) -> None:
        """`path`: where the graph is saved (its sidecar beside it); None keeps it in memory
        only, for an in-memory database (its files went to the working directory, named
        ":memory:.vectors.*", and the next in-memory store took them for another's). `mode`:
        the files' permissions, the store's own (its vectors say what its memories say)."""
        self.path = path
        self.mode = mode
        self.sidecar = None if path is None else path.with_suffix(".json")
        self.dims = dims
        self.model_id = model_id
        self.store_uid = store_uid
        self._query = query
        self._lock = threading.Lock()
        self._index: Any = None
        self._applied = 0
        self._saved = 0

    # -- lifecycle ----------------------------------------------------------------------------

    def _new(self) -> Any:
        Index = usearch_index()
        return Index(
            ndim=self.dims,
            metric="cos",
            dtype=DTYPE,
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    def _open(self) -> None:
        """Load the saved graph if it is ours and intact, else rebuild it from the table."""
        if self._load_saved():
            return
        self._rebuild()

    def _load_saved(self) -> bool:
        Index = usearch_index()
        if self.path is None or self.sidecar is None:
            return False
        if not (self.path.exists() and self.sidecar.exists()):
            return False
        try:
            meta = json.loads(self.sidecar.read_text())
            if not isinstance(meta, dict):  # `null` or a list: every search failed on .get
                raise ValueError("the sidecar is not a JSON object")
            # Checked before the native library sees a byte: damaged index files have crashed
            # the process (SIGSEGV) or made every search fail; a checksum mismatch rebuilds.
            if meta.get("sha256") != file_digest(self.path):
                log.warning("vector index %s is damaged (checksum differs): rebuilding", self.path)
                return False
            if (
                meta.get("model_id"),
                meta.get("store_uid"),
                meta.get("dims"),
                meta.get("params"),
            ) != (self.model_id, self.store_uid, self.dims, INDEX_PARAMS):
                log.warning("vector index %s is another store's or model's: rebuilding", self.path)
                return False
            index = Index.restore(str(self.path))
            if index is None or len(index) != meta.get("count") or index.ndim != self.dims:
                raise ValueError("size or dimensions differ from its sidecar")
            # Not saved in the file. (setattr: the stubs miss this property's setter.)
            setattr(index, "expansion_search", EXPANSION_SEARCH)  # noqa: B010
        except (OSError, ValueError, RuntimeError) as exc:
            log.warning("vector index %s is unreadable (%s): rebuilding", self.path, exc)
            return False
        self._index = index
        try:
            self._applied = self._saved = int(meta["change"])
            same = self._same_history(meta)
        except (KeyError, TypeError, ValueError) as exc:  # a sidecar edited, or another's
            # format: every search and save failed with a TypeError traceback (audit).
            log.warning(
                "vector index %s has an unreadable sidecar (%s): rebuilding", self.path, exc
            )
            return False
        if not same:
            # The database is not the one the index was saved from, though its uid is: a copy
            # restored from before the save (or another copy's index). Its change numbers are
            # reused by other vectors, and catching up from the saved one skipped them all.
            log.warning("vector index %s is not of this database's history: rebuilding", self.path)
            return False
        if not self._catch_up():
            log.warning("vector index %s is older than the change log: rebuilding", self.path)
            return False
        return True

    def _rebuild(self) -> None:
        index = self._new()
        head = self._head()
        last = 0
        while True:
            rows = self._query(
                "SELECT v.seq, v.vector FROM memory_vectors v WHERE v.model_id = ? AND v.seq > ? "
                "ORDER BY v.seq LIMIT ?",
                (self.model_id, last, _REBUILD_BATCH),
            )
            if not rows:
                break
            keys: list[int] = []
            parts: list[NDArray[np.float32]] = []
            for seq, blob in rows:
                matrix = self.rows(blob)
                keys.extend(int(seq) | (row << ROW_SHIFT) for row in range(len(matrix)))
                parts.append(matrix)
            _add(index, np.array(keys, dtype=np.uint64), np.concatenate(parts))
            last = int(rows[-1][0])
        self._index = index
        self._applied = head
        self._catch_up()
        self._save()

    def close(self) -> None:
        with self._lock:
            if self._index is not None and self._applied != self._saved:
                self._save()
            self._index = None

    # -- keeping up with the table ------------------------------------------------------------

    def _change_at(self, change: int) -> list[Any] | None:
        """What identifies the store's change number `change`: the row it touched and that
        row's memory id (a memory's id is unique to it, its row number is not). None for 0,
        and for a change the log no longer holds (then `_catch_up` decides)."""
        if change == 0:
            return None
        rows = self._query(
            "SELECT c.seq, m.id FROM vector_changes c LEFT JOIN memories m ON m.seq = c.seq "
            "WHERE c.change = ?",
            (change,),
        )
        if rows:
            return [int(rows[0][0]), rows[0][1]]
        return None if change <= self._head() else ["ahead of the log"]

    def _recent(self, change: int) -> list[list[Any]]:
        """The last RECENT changes up to `change`: [change number, row, memory id or None]."""
        rows = self._query(
            "SELECT c.change, c.seq, m.id FROM vector_changes c LEFT JOIN memories m "
            "ON m.seq = c.seq WHERE c.change <= ? ORDER BY c.change DESC LIMIT ?",
            (change, RECENT),
        )
        return [[int(c), int(seq), ident] for c, seq, ident in rows]

    def _same_history(self, meta: dict[str, Any]) -> bool:
        """Whether the changes the index was saved after are this database's, as far as its
        log still holds them. One alone was too little: when it was a deletion (no memory id
        left to compare) a restored copy whose later changes had reused the row numbers was
        taken for the same history, and the vectors stored in it before that change were never
        searched (audit)."""
        if "recent" not in meta:  # saved by an earlier Engram: its last change alone
            return "last" not in meta or _same_change(meta["last"], self._change_at(self._applied))
        if self._applied > self._head():
            return False
        now = {c: [seq, ident] for c, seq, ident in self._recent(self._applied)}
        saved = [(c, [seq, ident]) for c, seq, ident in meta["recent"] if c in now]
        differ = [(c, change) for c, change in saved if not _same_change(change, now[c])]
        if not differ:
            return True
        # SQLite numbers a row after the highest there is: the newest memory deleted, the next
        # one saved takes its number, and the log's older changes of that row now join the new
        # memory. Where the log holds a change of the row since the save (the deletion), the
        # number was reused in this history: every such cycle after the third rebuilt the
        # whole index (a helper's probe).
        rows = sorted({int(change[0]) for _, change in differ})
        marks = ", ".join("?" * len(rows))
        since = {
            int(seq)
            for (seq,) in self._query(
                f"SELECT DISTINCT seq FROM vector_changes WHERE change > ? AND seq IN ({marks})",
                (self._applied, *rows),
            )
        }
        return all(change[0] == now[c][0] and change[0] in since for c, change in differ)

    def _head(self) -> int:
        return int(self._query("SELECT coalesce(max(change), 0) FROM vector_changes", ())[0][0])

    def _catch_up(self) -> bool:
        """Apply committed changes after `_applied`. False if the log no longer reaches back."""
        rows = self._query(
            "SELECT c.change, c.seq, v.vector, v.model_id FROM vector_changes c "
            "LEFT JOIN memory_vectors v ON v.seq = c.seq WHERE c.change > ? ORDER BY c.change",
            (self._applied,),
        )
        if not rows:
            return True
        # An index at change 0 (saved while the store had no vectors) needs the log from its
        # first entry too: pruned below that, the vectors stored meanwhile are not all in it.
        if rows[0][0] != self._applied + 1:
            oldest = self._query("SELECT min(change) FROM vector_changes", ())[0][0]
            if oldest is not None and oldest > self._applied + 1:
                return False
        latest: dict[int, bytes | None] = {}
        for _, seq, blob, model in rows:
            latest[int(seq)] = blob if model == self.model_id else None
        for seq, blob in latest.items():
            row = 0
            while self._index.contains(seq | (row << ROW_SHIFT)):
                self._index.remove(seq | (row << ROW_SHIFT))
                row += 1
            if blob is not None:
                matrix = self.rows(blob)
                keys = [seq | (r << ROW_SHIFT) for r in range(len(matrix))]
                _add(self._index, np.array(keys, dtype=np.uint64), matrix)
        self._applied = int(rows[-1][0])
        if self._applied - self._saved >= SAVE_EVERY:
            self._save()
        return True

    def _save(self) -> None:
        # A cache, checked against its digest and the store when loaded: no fsync.
        if self.path is None or self.sidecar is None:
            self._saved = self._applied  # nowhere to save: in memory only
            return
        _remove_stale_temporaries(self.path)
        try:
            with replacing(self.path, mode=self.mode, durable=False) as f:
                self._index.save(f.name)
                digest = file_digest(Path(f.name))
            meta = {
                "model_id": self.model_id,
                "store_uid": self.store_uid,
                "dims": self.dims,
                "params": INDEX_PARAMS,
                "change": self._applied,
                "last": self._change_at(self._applied),
                "recent": self._recent(self._applied),
                "count": len(self._index),
                "sha256": digest,
            }
            write_atomically(self.sidecar, json.dumps(meta).encode(), mode=self.mode, durable=False)
            self._saved = self._applied
        # A cache: failing to save it must not fail the caller. usearch reports a full disk as
        # a RuntimeError ("Failed to serialize into stream"): a save committed in the store
        # said it failed, and searches raised it (a helper's probe).
        except (OSError, RuntimeError) as exc:
            log.warning("could not save vector index %s: %s", self.path, exc)

    # -- queries ------------------------------------------------------------------------------

    def rows(self, blob: bytes) -> NDArray[np.float32]:
        """A stored blob as its (rows, dims) matrix; none for a blob of another length (a
        vector line of a JSONL store cut by a hand edit, carried here by a snapshot or a
        migration): left out of the index rather than failing every search by meaning."""
        if len(blob) % (4 * self.dims):
            log.warning(
                "a stored vector of %s is %d bytes, not rows of %d dimensions: left out (run "
                "`engram embed --backfill` after removing it)",
                self.model_id,
                len(blob),
                self.dims,
            )
            return np.empty((0, self.dims), dtype=np.float32)
        return np.frombuffer(blob, dtype=np.float32).reshape(-1, self.dims)

    def size(self) -> int:
        """How many rows (whole texts and passages) the index holds."""
        with self._lock:
            return 0 if self._index is None else len(self._index)

    def search(self, vector: NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        """(seq, cosine similarity) of the memories of the k nearest rows, best first, each
        memory once with its best row."""
        with self._lock:
            if self._index is None:
                self._open()
            elif not self._catch_up():
                self._rebuild()
            if len(self._index) == 0:
                return []
            size = len(self._index)
            found = self._index.search(
                vector.astype(np.float32), min(k, size), exact=size <= EXACT_BELOW, threads=1
            )
            return _best_per_memory(zip(found.keys, found.distances, strict=True))

    def search_many(self, vectors: NDArray[np.float32], k: int) -> list[list[tuple[int, float]]]:
        """`search` for each row of `vectors`, in one batch call."""
        with self._lock:
            if self._index is None:
                self._open()
            elif not self._catch_up():
                self._rebuild()
            if len(self._index) == 0 or len(vectors) == 0:
                return [[] for _ in range(len(vectors))]
            found = self._index.search(vectors.astype(np.float32), min(k, len(self._index)))
            if not hasattr(found, "counts"):  # usearch answers one query with plain Matches
                return [_best_per_memory(zip(found.keys, found.distances, strict=True))]
            keys, dists, counts = found.keys, found.distances, found.counts
            return [
                _best_per_memory(zip(keys[i][: counts[i]], dists[i][: counts[i]], strict=True))
                for i in range(len(vectors))
            ]


def _best_per_memory(hits: Iterable[tuple[Any, Any]]) -> list[tuple[int, float]]:
    """(key, cosine distance) hits, nearest first → (seq, similarity), each memory once."""
    best: dict[int, float] = {}
    for key, dist in hits:
        best.setdefault(int(key) & SEQ_MASK, 1.0 - float(dist))
    return list(best.items())


def file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _add(index: Any, keys: NDArray[np.uint64], vectors: NDArray[np.float32]) -> None:
    """Add to the graph, on one thread while it is small. usearch (2.26) adding a batch on
    several threads into a graph of a few dozen nodes now and then leaves one or two of them
    unreachable: a rebuilt index of 40 memories missed some in 4 of 150 rebuilds, each such
    memory never found by meaning again (0 of 150 on one thread). A large graph is built on
    every core: the first batch of a rebuild, on one thread, is its start."""
    threads = 1 if len(index) < SMALL_GRAPH else 0
    index.add(keys, vectors, threads=threads)


def usearch_index() -> Any:
    """usearch's `Index` class, imported safely.

    Importing usearch (its SIMD library, numkong) before onnxruntime makes the later
    onnxruntime import crash the process with a segmentation fault (usearch 2.26, onnxruntime
    1.32). The embedder imports onnxruntime lazily, so import it here first, whatever the order
    in which a process first searches and first embeds. tests/services/test_semantic.py keeps
    the order that used to crash.
    """
    import onnxruntime  # noqa: F401  (import order matters, see above)
    from usearch.index import Index

    return Index


def vector_blob(vector: NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def _same_change(saved: Any, now: list[Any] | None) -> bool:
    """Whether the change an index was saved at is the one the database holds under its
    number: the same row, and that row's memory the same (unless either is gone since: a
    memory deleted after the save is no sign of another history)."""
    if saved is None or now is None:
        return saved == now or now is None
    if not isinstance(saved, list) or len(saved) != 2 or len(now) != 2:
        return False
    return bool(saved[0] == now[0] and (None in (saved[1], now[1]) or saved[1] == now[1]))


def _remove_stale_temporaries(index: Path) -> None:
    """The temporary files that a process killed while saving this index or its sidecar left
    beside them."""
    now = system_clock().timestamp()
    remove_stale_temporaries(index, now)
    remove_stale_temporaries(index.with_suffix(".json"), now)
