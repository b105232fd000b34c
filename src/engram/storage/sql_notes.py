"""What the SQLite and PostgreSQL vault-note indexes do alike, written once.

A write (`ltm_write`) is the same transaction on both: the removals, then the notes, then the
new file states of unchanged notes, and no transaction at all for nothing to do. Only how a note
with its tags and links is stored and removed differs (SQLite keeps tags and links in tables of
their own, PostgreSQL in array columns), and each store's LTM mixin says that in `_put_notes`
and `_drop_notes`. Likewise a search without terms is one query but for the tag filter
(`_note_tag_filter`); one with terms is each full-text index's own (`_notes_matching`). Where
only the statement differs (which notes lack a vector, which link to a note), `NoteSql` holds
each schema's. The methods are typed against `NoteDialect`, as `SqlReads` is against
`SqlDialect`: a protocol of what they use, so the class has no stub hooks to override.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, closing
from dataclasses import dataclass
from typing import Any, Protocol

from engram.core.notes import Note, NoteHit, NoteState, NoteText, link_key, link_name
from engram.storage.rows import NOTE_PREVIEW_CHARS, note_hit_from_row
from engram.storage.sql_reads import SqlDialect


@dataclass(frozen=True)
class NoteSql:
    # (path, digest, title, body) of the notes without a vector of a model; the model id and
    # the limit bound.
    missing_vectors: str
    # The paths of the other notes whose links reach a note, sorted; the note's link key, its
    # name and its path bound.
    linking_to: str


class NoteDialect(SqlDialect, Protocol):
    @property
    def note_sql(self) -> NoteSql: ...

    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction, yielding the dialect's connection (sqlite3 or psycopg)."""
        ...

    def _drop_notes(self, conn: Any, paths: Sequence[str]) -> None:
        """Remove the notes at these paths, with their tags, links and vectors."""
        ...

    def _put_notes(self, conn: Any, notes: Sequence[Note]) -> None:
        """Insert or replace these notes, with their tags and links."""
        ...

    def _note_tag_filter(self, tags: Sequence[str]) -> tuple[str, list[Any]]:
        """`AND …` keeping the notes (`ltm_notes n`) that carry any of the tags or a tag
        nested below one, and its parameters; nothing for no tags."""
        ...

    def _notes_matching(
        self, terms: Sequence[str], tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        """`ltm_search` with terms, through the dialect's full-text index."""
        ...


class SqlNotes:
    def ltm_write(
        self: NoteDialect,
        upsert: Sequence[Note] = (),
        restate: Sequence[NoteState] = (),
        delete: Sequence[str] = (),
    ) -> None:
        """`NoteIndex.ltm_write`, one transaction; none (on SQLite, no wait for the file's
        write lock) when there is nothing to write."""
        if not (upsert or restate or delete):
            return
        with self._write() as conn:
            if delete:
                self._drop_notes(conn, delete)
            if upsert:
                self._put_notes(conn, upsert)
            if restate:
                _restate(conn, self.P, restate)

    def ltm_search(
        self: NoteDialect, terms: Sequence[str], tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        """Without terms, the notes carrying the tags, by path (none without tags), the start
        of the body as the preview."""
        if terms:
            return self._notes_matching(terms, tags, limit)
        if not tags:
            return []
        tag_sql, tag_params = self._note_tag_filter(tags)
        rows = self._query(
            "SELECT n.path, n.title, n.tags, n.engram_id, 1.0, "
            f"substr(n.body, 1, {NOTE_PREVIEW_CHARS}), n.mtime_ns FROM ltm_notes n "
            f"WHERE 1 = 1 {tag_sql} ORDER BY n.path LIMIT {self.P}",
            [*tag_params, limit],
        )
        return [note_hit_from_row(row, self.decode_json) for row in rows]

    def ltm_missing_vectors(self: NoteDialect, model_id: str, limit: int) -> list[NoteText]:
        rows = self._query(self.note_sql.missing_vectors, (model_id, limit))
        return [NoteText(str(p), str(d), str(t), str(b)) for p, d, t, b in rows]

    def _linking_to(self: NoteDialect, path: str) -> list[str]:
        rows = self._query(self.note_sql.linking_to, (link_key(path), link_name(path), path))
        return [str(row[0]) for row in rows]


def _restate(conn: Any, p: str, states: Sequence[NoteState]) -> None:
    """New file states (mtime, size, digest) of notes whose indexed content stands: the row,
    and with it the note's vectors, stays. Through a cursor, the one way both drivers run a
    statement for many rows (psycopg's connection has no `executemany`)."""
    with closing(conn.cursor()) as cur:
        cur.executemany(
            f"UPDATE ltm_notes SET mtime_ns = {p}, size = {p}, digest = {p} WHERE path = {p}",
            [(s.mtime_ns, s.size, s.digest, s.path) for s in states],
        )
