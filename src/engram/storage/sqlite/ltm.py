"""The SQLite side of the long-term-memory index: notes, their tags and wikilinks, full text.

A mixin of `SQLiteStore` (it uses the store's `_write` transaction and `_query`), kept in its own
module so the vault index can evolve without touching the memory tables' code. Tags and link
targets are stored case-folded so that lookups ignore case in every script, not only ASCII.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from engram.core.notes import Note, NoteHit, NoteLinks, NoteState, link_key, link_name

# BM25 weights of the title, tags and body columns.
LTM_FIELD_WEIGHTS = (3.0, 2.0, 1.0)
PREVIEW_TOKENS = 24
PREVIEW_CHARS = 200

_NOTE_COLUMNS = (
    "path, key, name, title, tags, links, body, frontmatter, engram_id, problem, mtime_ns, "
    "size, digest"
)
_UPSERT = (
    f"INSERT INTO ltm_notes ({_NOTE_COLUMNS}) VALUES ({', '.join('?' * 13)}) "
    "ON CONFLICT(path) DO UPDATE SET "
    + ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in _NOTE_COLUMNS.split(",")[1:])
    + " RETURNING seq"
)


class SQLiteLtm:
    """LTM methods of the Store protocol; see `engram.storage.protocol.Store`."""

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def ltm_states(self) -> dict[str, NoteState]:
        rows = self._query("SELECT path, mtime_ns, size, digest FROM ltm_notes")
        return {row[0]: NoteState(row[0], int(row[1]), int(row[2]), row[3]) for row in rows}

    def ltm_write(
        self,
        upsert: Sequence[Note] = (),
        restate: Sequence[NoteState] = (),
        delete: Sequence[str] = (),
    ) -> None:
        if not (upsert or restate or delete):
            return
        with self._write() as conn:
            if delete:
                conn.executemany("DELETE FROM ltm_notes WHERE path = ?", [(p,) for p in delete])
            existing = _existing(conn, [n.path for n in upsert])
            for note in upsert:
                seq = conn.execute(_UPSERT, _note_row(note)).fetchone()[0]
                if note.path in existing:
                    conn.execute("DELETE FROM ltm_note_tags WHERE seq = ?", (seq,))
                    conn.execute("DELETE FROM ltm_links WHERE seq = ?", (seq,))
                conn.executemany(
                    "INSERT INTO ltm_note_tags(seq, tag) VALUES (?, ?)",
                    [(seq, t) for t in dict.fromkeys(t.casefold() for t in note.tags)],
                )
                conn.executemany(
                    "INSERT INTO ltm_links(seq, key, name) VALUES (?, ?, ?)",
                    [(seq, link_key(t), link_name(t)) for t in _distinct_keys(note.links)],
                )
            conn.executemany(
                "UPDATE ltm_notes SET mtime_ns = ?, size = ?, digest = ? WHERE path = ?",
                [(s.mtime_ns, s.size, s.digest, s.path) for s in restate],
            )

    def ltm_search(self, terms: Sequence[str], tags: Sequence[str], limit: int) -> list[NoteHit]:
        tag_sql, tag_params = _tag_filter(tags)
        if not terms:
            if not tags:
                return []
            sql = (
                "SELECT n.path, n.title, n.tags, n.engram_id, 1.0, "
                f"substr(n.body, 1, {PREVIEW_CHARS}) FROM ltm_notes n WHERE 1 = 1 {tag_sql} "
                "ORDER BY n.path LIMIT ?"
            )
            return [_hit(row) for row in self._query(sql, [*tag_params, limit])]
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        wt, wg, wb = LTM_FIELD_WEIGHTS
        sql = (
            "SELECT n.path, n.title, n.tags, n.engram_id, -bm25(ltm_fts, ?, ?, ?) AS r, "
            f"snippet(ltm_fts, 2, '', '', '…', {PREVIEW_TOKENS}) "
            "FROM ltm_fts JOIN ltm_notes n ON n.seq = ltm_fts.rowid "
            f"WHERE ltm_fts MATCH ? {tag_sql} ORDER BY r DESC, n.path LIMIT ?"
        )
        return [_hit(row) for row in self._query(sql, [wt, wg, wb, match, *tag_params, limit])]

    def ltm_links(self, path: str) -> NoteLinks:
        found = self._query("SELECT seq, links FROM ltm_notes WHERE path = ?", (path,))
        outgoing: dict[str, None] = {}
        unresolved: dict[str, None] = {}
        if found:
            for target in json.loads(found[0][1]):
                resolved = self._resolve(target)
                if resolved is None:
                    unresolved.setdefault(target)
                elif resolved != path:
                    outgoing.setdefault(resolved)
        key, name = link_key(path), link_name(path)
        incoming = self._query(
            "SELECT DISTINCT n.path FROM ltm_links l JOIN ltm_notes n ON n.seq = l.seq "
            "WHERE (l.key = ? OR (l.key = l.name AND l.name = ?)) AND n.path != ? "
            "ORDER BY n.path",
            (key, name, path),
        )
        return NoteLinks(
            path=path,
            outgoing=tuple(outgoing),
            incoming=tuple(row[0] for row in incoming),
            unresolved=tuple(unresolved),
        )

    def _resolve(self, target: str) -> str | None:
        """Obsidian's rule, simplified: a path match wins; a bare name matches the note of
        that name nearest the vault root."""
        exact = self._query(
            "SELECT path FROM ltm_notes WHERE key = ? ORDER BY path LIMIT 1", (link_key(target),)
        )
        if exact:
            return str(exact[0][0])
        if "/" in link_key(target):
            return None
        named = self._query(
            "SELECT path FROM ltm_notes WHERE name = ? ORDER BY length(path), path LIMIT 1",
            (link_name(target),),
        )
        return str(named[0][0]) if named else None


def _existing(conn: sqlite3.Connection, paths: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        sql = f"SELECT path FROM ltm_notes WHERE path IN ({marks})"
        found.update(row[0] for row in conn.execute(sql, chunk))
    return found


def _note_row(note: Note) -> tuple[Any, ...]:
    return (
        note.path,
        link_key(note.path),
        link_name(note.path),
        note.title,
        json.dumps(list(note.tags), ensure_ascii=False),
        json.dumps(list(note.links), ensure_ascii=False),
        note.body,
        json.dumps(note.frontmatter, ensure_ascii=False, default=str),
        note.engram_id,
        note.problem,
        note.mtime_ns,
        note.size,
        note.digest,
    )


def _distinct_keys(links: Sequence[str]) -> Iterator[str]:
    seen: set[str] = set()
    for target in links:
        key = link_key(target)
        if key and key not in seen:
            seen.add(key)
            yield target


def _tag_filter(tags: Sequence[str]) -> tuple[str, list[Any]]:
    if not tags:
        return "", []
    folded = [t.casefold().strip("#/") for t in tags]
    exact = ", ".join("?" * len(folded))
    nested = " OR ".join(["tag LIKE ? ESCAPE '\\'"] * len(folded))
    patterns = [_like_escape(t) + "/%" for t in folded]
    sql = f"AND n.seq IN (SELECT seq FROM ltm_note_tags WHERE tag IN ({exact}) OR {nested})"
    return sql, [*folded, *patterns]


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _hit(row: Sequence[Any]) -> NoteHit:
    return NoteHit(
        path=row[0],
        title=row[1],
        tags=tuple(json.loads(row[2])),
        engram_id=row[3],
        relevance=float(row[4]),
        preview=" ".join(str(row[5] or "").split()),
    )
