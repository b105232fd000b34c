"""The PostgreSQL side of the long-term-memory index: the vault's notes, tags and wikilinks.

A mixin of `PostgresStore` (it uses the store's `_write` transaction and `_query`), like the
SQLite one, with which it shares the frame of a write and of a search, and the questions only
the schema's statements tell apart (`engram.storage.sql_notes`): one row per note, with its
case-folded tag and link keys as arrays (GIN-indexed) and a generated `tsvector` over title,
tags and body, ranked with the same field weights as SQLite's BM25 (title 3, tags 2, body 1).
The index is a cache of the vault, which `index-ltm` reconciles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pgvector import Vector
from psycopg.rows import TupleRow

from engram.core.notes import Note, NoteHit, distinct_links, link_key
from engram.errors import ValidationError
from engram.storage.postgres.sql import Conn
from engram.storage.postgres.text import weighted_query
from engram.storage.postgres.vectors import stored_vectors
from engram.storage.protocol import NoteIndex
from engram.storage.rows import (
    NOTE_COLUMNS,
    NOTE_FIELD_WEIGHTS,
    NOTE_PREVIEW_CHARS,
    note_hit_from_row,
    note_row,
)
from engram.storage.sql_notes import NoteSql
from engram.storage.sql_reads import nested_tags

VECTOR_DIMENSIONS = 384  # the `embed vector(384)` column of ltm_notes
PREVIEW_WORDS = 24

# The key arrays last: what the Note → row conversion of both schemas (`note_row`) leaves out.
_COLUMNS = (*NOTE_COLUMNS, "tag_keys", "link_keys", "bare_links")
_UPSERT = (
    f"INSERT INTO ltm_notes ({', '.join(_COLUMNS)}) VALUES ({', '.join(['%s'] * len(_COLUMNS))}) "
    "ON CONFLICT (path) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in _COLUMNS[1:])
)
# ts_rank weighs the labels {D, C, B, A}: body D, tags B, title A.
_TOP = max(NOTE_FIELD_WEIGHTS)
_RANK_WEIGHTS = [NOTE_FIELD_WEIGHTS[2] / _TOP, 0.0, NOTE_FIELD_WEIGHTS[1] / _TOP, 1.0]
# No marks around the matched words: empty selectors, double-quoted (in the SQL literal this
# is written into, '' is one quote, and PostgreSQL read "StartSel=', StopSel=" as one
# selector, putting ", StopSel=" and "</b>" into every preview: a probe).
_HEADLINE = f'MaxWords={PREVIEW_WORDS}, MinWords={PREVIEW_WORDS // 2}, StartSel="", StopSel=""'


class PostgresLtm(NoteIndex):
    """LTM methods of the Store protocol; see `engram.storage.protocol.Store`."""

    # The store's transaction and query functions, which PostgresStore defines: declared for
    # the type checker, not stubbed with methods that could only raise. `ltm_write` and
    # `ltm_search` are `SqlNotes`'s, around `_drop_notes`, `_put_notes` and `_notes_matching`.
    _write: Callable[[], AbstractContextManager[Conn]]
    _query: Callable[..., list[TupleRow]]

    note_sql = NoteSql(
        missing_vectors=(
            "SELECT path, digest, title, body FROM ltm_notes "
            "WHERE embed_model IS DISTINCT FROM %s ORDER BY path LIMIT %s"
        ),
        linking_to=(
            "SELECT path FROM ltm_notes WHERE (%s = ANY(link_keys) OR %s = ANY(bare_links)) "
            "AND path <> %s ORDER BY path"
        ),
    )

    def _drop_notes(self, conn: Conn, paths: Sequence[str]) -> None:
        conn.execute("DELETE FROM ltm_notes WHERE path = ANY(%s::text[])", (list(paths),))

    def _put_notes(self, conn: Conn, notes: Sequence[Note]) -> None:
        """One row a note: its tags and links are arrays on it."""
        with conn.cursor() as cur:
            cur.executemany(_UPSERT, [_note_row(n) for n in notes])

    def _notes_matching(
        self, terms: Sequence[str], tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        tag_sql, tag_params = self._note_tag_filter(tags)
        q = weighted_query(self._query, "ltm_notes", "n", terms, _RANK_WEIGHTS)
        rows = self._query(
            "SELECT path, title, tags, engram_id, r, "
            f"ts_headline('engram', body, matches, '{_HEADLINE}'), mtime_ns FROM ("
            "  SELECT n.path, n.title, n.tags, n.engram_id, n.body, n.mtime_ns, "
            f"         {q.matches} AS matches, "
            f"         {q.rank} AS r "
            f"  FROM ltm_notes n, (SELECT {q.phrases}) q "
            f"  WHERE n.search @@ ({q.matches}) {tag_sql} ORDER BY r DESC, n.path LIMIT %s"
            ") best ORDER BY r DESC, path",
            [*q.rank_params, *q.phrase_params, *tag_params, limit],
        )
        return [note_hit_from_row(row) for row in rows]

    # -- note vectors -------------------------------------------------------------------------

    def ltm_put_vectors(
        self, items: Sequence[tuple[str, str, NDArray[np.float32]]], model_id: str
    ) -> int:
        if not items:
            return 0
        for path, _, vector in items:
            if np.shape(vector) != (VECTOR_DIMENSIONS,):
                raise ValidationError(
                    "vector", f"of {path} has shape {np.shape(vector)}, not ({VECTOR_DIMENSIONS},)"
                )
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE ltm_notes n SET embed = u.embed, embed_model = %s "
                "FROM unnest(%s::text[], %s::text[], %s::vector[]) AS u(path, digest, embed) "
                "WHERE n.path = u.path AND n.digest = u.digest",
                (
                    model_id,
                    [p for p, _, _ in items],
                    [d for _, d, _ in items],
                    [Vector(np.asarray(v, dtype=np.float32)) for _, _, v in items],
                ),
            )
            return cur.rowcount

    def ltm_vector_search(
        self, vector: NDArray[np.float32], model_id: str, tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        """HNSW (cosine) nearest notes; the tag filter is applied during the index scan
        (pgvector's iterative scan), not to a fixed set of neighbours."""
        if limit <= 0 or np.shape(vector) != (VECTOR_DIMENSIONS,):
            return []
        tag_sql, tag_params = self._note_tag_filter(tags)
        query = Vector(np.asarray(vector, dtype=np.float32))
        with self._write() as conn:
            conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(40, 4 * limit))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                "SELECT n.path, n.title, n.tags, n.engram_id, 1 - (n.embed <=> %s::vector), "
                f"substr(n.body, 1, {NOTE_PREVIEW_CHARS}), n.mtime_ns FROM ltm_notes n "
                f"WHERE n.embed_model = %s {tag_sql} ORDER BY n.embed <=> %s::vector LIMIT %s",
                [query, model_id, *tag_params, query, limit],
            ).fetchall()
        # Ties in path order: the index returns equally near notes in any order (a contract
        # test asking for two notes as near as each other failed once in four full runs).
        return sorted(
            (note_hit_from_row(row) for row in rows), key=lambda h: (-h.relevance, h.path)
        )

    def ltm_get_vectors(
        self, paths: Sequence[str], model_id: str
    ) -> dict[str, NDArray[np.float32]]:
        return stored_vectors(self._query, "ltm_notes", "path", paths, model_id)

    def _note_tag_filter(self, tags: Sequence[str]) -> tuple[str, list[Any]]:
        """Notes carrying any of the tags, or a tag nested below one (`project` → `project/x`):
        an overlap with the GIN-indexed `tag_keys`, or a LIKE over them."""
        if not tags:
            return "", []
        folded, patterns = nested_tags(tags)
        sql = (
            "AND (n.tag_keys && %s::text[] OR EXISTS ("
            "SELECT 1 FROM unnest(n.tag_keys) AS k WHERE k LIKE ANY(%s::text[])))"
        )
        return sql, [folded, patterns]


def _text(value: str) -> str:
    """PostgreSQL text cannot hold NUL; the index is a cache of the file, so drop them."""
    return value.replace("\x00", "")


def _note_row(note: Note) -> tuple[Any, ...]:
    """`note_row` with arrays for lists and NULs dropped, then the case-folded keys the GIN
    indexes look tags and links up by."""
    keys = [link_key(t) for t in distinct_links([_text(t) for t in note.links])]
    return (
        *note_row(note, encode_list=list, clean=_text),
        list(dict.fromkeys(_text(t).casefold() for t in note.tags)),
        keys,
        [k for k in keys if "/" not in k],
    )
