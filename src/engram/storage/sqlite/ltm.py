"""The SQLite side of the long-term-memory index: notes, their tags and wikilinks, full text.

A mixin of `SQLiteStore` (it uses the store's `_write` transaction and `_query`), kept in its own
module so the vault index can evolve without touching the memory tables' code; the frames of a
write and of a search, and the questions only the schema's statements tell apart, are shared
with PostgreSQL (`engram.storage.sql_notes`).
Tags and link targets are stored case-folded so that lookups ignore case in every script, not
only ASCII.

Note vectors live in `ltm_note_vectors` (float32 BLOBs); a search is exact: one matrix-vector
product over every vector of the query's model, held in memory (`_NoteVectors`). Triggers append
every change of that table to `ltm_vector_changes`, so before each search the matrix catches up
on what any process committed since, with one indexed query; it is rebuilt from the table when
the log no longer reaches back that far (it is pruned to its last `CHANGE_LOG_KEEP` entries).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engram.core.notes import Note, NoteHit, distinct_links, link_key, link_name
from engram.storage.exact import ExactIndex
from engram.storage.protocol import NoteIndex
from engram.storage.rows import (
    NOTE_COLUMNS,
    NOTE_FIELD_WEIGHTS,
    NOTE_PREVIEW_CHARS,
    from_json,
    note_hit_from_row,
    note_row,
)
from engram.storage.sql_notes import NoteSql
from engram.storage.sql_reads import nested_tags
from engram.storage.sqlite.sql import on, prune_change_log, rows_in

PREVIEW_TOKENS = 24

_UPSERT = (
    f"INSERT INTO ltm_notes ({', '.join(NOTE_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(NOTE_COLUMNS))}) ON CONFLICT(path) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in NOTE_COLUMNS[1:])
    + " RETURNING seq"
)


Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


class SQLiteLtm(NoteIndex):
    """LTM methods of the Store protocol; see `engram.storage.protocol.Store`."""

    _note_vectors: _NoteVectors | None = None
    _note_vectors_guard = threading.Lock()

    # The store's transaction and query functions, which SQLiteStore defines: declared for the
    # type checker, not stubbed with methods that could only raise. `ltm_write` and
    # `ltm_search` are `SqlNotes`'s, around `_drop_notes`, `_put_notes` and `_notes_matching`.
    _write: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _query: Callable[..., list[tuple[Any, ...]]]

    note_sql = NoteSql(
        missing_vectors=(
            "SELECT n.path, n.digest, n.title, n.body FROM ltm_notes n "
            "LEFT JOIN ltm_note_vectors v ON v.seq = n.seq AND v.model_id = ? "
            "WHERE v.seq IS NULL ORDER BY n.seq LIMIT ?"
        ),
        linking_to=(
            "SELECT DISTINCT n.path FROM ltm_links l JOIN ltm_notes n ON n.seq = l.seq "
            "WHERE (l.key = ? OR (l.key = l.name AND l.name = ?)) AND n.path != ? "
            "ORDER BY n.path"
        ),
    )

    def _drop_notes(self, conn: sqlite3.Connection, paths: Sequence[str]) -> None:
        """Tags, links and vectors go with the note (ON DELETE CASCADE); each vector gone adds
        to the change log, so it is pruned here too."""
        conn.executemany("DELETE FROM ltm_notes WHERE path = ?", [(p,) for p in paths])
        prune_change_log(conn, "ltm_vector_changes")

    def _put_notes(self, conn: sqlite3.Connection, notes: Sequence[Note]) -> None:
        """A row a note, a row a tag and a row a link (a replaced note's old ones removed)."""
        existing = _existing(conn, [n.path for n in notes])
        for note in notes:
            seq = conn.execute(_UPSERT, note_row(note)).fetchone()[0]
            if note.path in existing:
                conn.execute("DELETE FROM ltm_note_tags WHERE seq = ?", (seq,))
                conn.execute("DELETE FROM ltm_links WHERE seq = ?", (seq,))
            conn.executemany(
                "INSERT INTO ltm_note_tags(seq, tag) VALUES (?, ?)",
                [(seq, t) for t in dict.fromkeys(t.casefold() for t in note.tags)],
            )
            conn.executemany(
                "INSERT INTO ltm_links(seq, key, name) VALUES (?, ?, ?)",
                [(seq, link_key(t), link_name(t)) for t in distinct_links(note.links)],
            )

    def _notes_matching(
        self, terms: Sequence[str], tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        tag_sql, tag_params = self._note_tag_filter(tags)
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        wt, wg, wb = NOTE_FIELD_WEIGHTS
        sql = (
            "SELECT n.path, n.title, n.tags, n.engram_id, -bm25(ltm_fts, ?, ?, ?) AS r, "
            f"snippet(ltm_fts, 2, '', '', '…', {PREVIEW_TOKENS}), n.mtime_ns "
            "FROM ltm_fts JOIN ltm_notes n ON n.seq = ltm_fts.rowid "
            f"WHERE ltm_fts MATCH ? {tag_sql} ORDER BY r DESC, n.path LIMIT ?"
        )
        return [
            note_hit_from_row(row, from_json)
            for row in self._query(sql, [wt, wg, wb, match, *tag_params, limit])
        ]

    # -- note vectors -------------------------------------------------------------------------

    def ltm_put_vectors(
        self, items: Sequence[tuple[str, str, NDArray[np.float32]]], model_id: str
    ) -> int:
        if not items:
            return 0
        sql = (
            "INSERT INTO ltm_note_vectors(seq, model_id, vector) "
            "SELECT seq, ?, ? FROM ltm_notes WHERE path = ? AND digest = ? "
            "ON CONFLICT(seq) DO UPDATE SET model_id = excluded.model_id, vector = excluded.vector"
        )
        with self._write() as conn:
            stored = sum(
                conn.execute(sql, (model_id, _blob(vector), path, digest)).rowcount
                for path, digest, vector in items
            )
            prune_change_log(conn, "ltm_vector_changes")
        return stored

    def ltm_vector_search(
        self, vector: NDArray[np.float32], model_id: str, tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if limit <= 0 or query.size == 0:
            return []
        among = None
        if tags:
            tag_sql, tag_params = self._note_tag_filter(tags)
            sql = f"SELECT n.seq FROM ltm_notes n WHERE 1 = 1 {tag_sql}"
            among = [int(row[0]) for row in self._query(sql, tag_params)]
        with self._vector_cache() as cache:
            index = cache.sync(self._query, model_id, query.size)
            near = index.nearest(query, limit, among)
        if not near:
            return []
        rows: dict[int, tuple[Any, ...]] = {}
        seqs = [seq for seq, _ in near]
        for start in range(0, len(seqs), 500):
            chunk = seqs[start : start + 500]
            sql = (
                "SELECT seq, path, title, tags, engram_id, "
                f"substr(body, 1, {NOTE_PREVIEW_CHARS}), mtime_ns "
                f"FROM ltm_notes WHERE seq IN ({', '.join('?' * len(chunk))})"
            )
            rows.update((row[0], row[1:]) for row in self._query(sql, chunk))
        return [
            note_hit_from_row((*rows[seq][:4], cosine, *rows[seq][4:]), from_json)
            for seq, cosine in near
            if seq in rows
        ]

    def ltm_get_vectors(
        self, paths: Sequence[str], model_id: str
    ) -> dict[str, NDArray[np.float32]]:
        rows = rows_in(
            self._query,
            lambda marks: (
                # CROSS JOIN: the notes by path first. Joined plainly, SQLite read every vector
                # of the model through its index and kept the few named (O(vault) a search).
                "SELECT n.path, v.vector FROM ltm_notes n "
                "CROSS JOIN ltm_note_vectors v ON v.seq = n.seq "
                f"WHERE v.model_id = ? AND n.path IN ({marks})"
            ),
            paths,
            before=[model_id],
        )
        return {str(path): np.frombuffer(blob, dtype=np.float32) for path, blob in rows}

    def _vector_cache(self) -> _NoteVectors:
        with self._note_vectors_guard:
            if self._note_vectors is None:
                self._note_vectors = _NoteVectors()
            return self._note_vectors

    def _note_tag_filter(self, tags: Sequence[str]) -> tuple[str, list[Any]]:
        """Notes carrying any of the tags, or a tag nested below one (`project` → `project/x`),
        looked up in `ltm_note_tags`."""
        if not tags:
            return "", []
        folded, patterns = nested_tags(tags)
        exact = ", ".join("?" * len(folded))
        nested = " OR ".join(["tag LIKE ? ESCAPE '\\'"] * len(folded))
        sql = f"AND n.seq IN (SELECT seq FROM ltm_note_tags WHERE tag IN ({exact}) OR {nested})"
        return sql, [*folded, *patterns]


class _NoteVectors:
    """The note vectors of one model as an in-memory matrix, kept in step with the table."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model_id: str | None = None
        self._index: ExactIndex[int] | None = None
        self._applied = 0  # the last change of ltm_vector_changes the matrix reflects

    def __enter__(self) -> _NoteVectors:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def sync(self, query: Query, model_id: str, dims: int) -> ExactIndex[int]:
        """The matrix for this model, up to date with every committed change (lock held)."""
        index = self._index
        if index is None or self._model_id != model_id or index.dims != dims:
            return self._rebuild(query, model_id, dims)
        rows = query(
            "SELECT c.change, c.seq, v.model_id, v.vector FROM ltm_vector_changes c "
            "LEFT JOIN ltm_note_vectors v ON v.seq = c.seq WHERE c.change > ? ORDER BY c.change",
            (self._applied,),
        )
        if not rows:
            return index
        if rows[0][0] != self._applied + 1:  # the log was pruned past what we have seen
            return self._rebuild(query, model_id, dims)
        latest = {int(seq): blob if model == model_id else None for _, seq, model, blob in rows}
        for seq, blob in latest.items():
            if blob is None:
                index.remove(seq)
            else:
                index.put(seq, np.frombuffer(blob, dtype=np.float32))
        self._applied = int(rows[-1][0])
        return index

    def _rebuild(self, query: Query, model_id: str, dims: int) -> ExactIndex[int]:
        # The head first: a change committed between the two reads is applied again later,
        # which is harmless (the latest row wins).
        head = int(query("SELECT coalesce(max(change), 0) FROM ltm_vector_changes", ())[0][0])
        index: ExactIndex[int] = ExactIndex(dims)
        last = -1
        while True:
            rows = query(
                "SELECT seq, vector FROM ltm_note_vectors WHERE model_id = ? AND seq > ? "
                "ORDER BY seq LIMIT 20000",
                (model_id, last),
            )
            for seq, blob in rows:
                index.put(int(seq), np.frombuffer(blob, dtype=np.float32))
            if not rows:
                break
            last = int(rows[-1][0])
        self._index, self._model_id, self._applied = index, model_id, head
        return index


def _blob(vector: NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).reshape(-1).tobytes()


def _existing(conn: sqlite3.Connection, paths: Sequence[str]) -> set[str]:
    rows = rows_in(
        on(conn), lambda marks: f"SELECT path FROM ltm_notes WHERE path IN ({marks})", paths
    )
    return {row[0] for row in rows}
