"""Long-term-memory index methods for backends without a full-text engine of their own.

`MemoryLtm` keeps the vault index in plain Python structures (notes by path, term frequencies,
tags, links) and ranks with BM25 over title (×3), tags (×2) and body, with a light suffix
stemmer and accent folding, like the SQLite FTS5 index. A backend that returns a file from
`_ltm_file()` gets it persisted there as JSON lines, rewritten atomically on every write and
re-read when another process changed it; concurrent writers are last-writer-wins, which is safe
because the index is a cache of the vault that `index-ltm` reconciles.

"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import threading
import unicodedata
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from engram.core.notes import Note, NoteHit, NoteLinks, NoteState, link_key, link_name

FIELD_WEIGHTS = (3.0, 2.0, 1.0)  # title, tags, body
K1, B = 1.2, 0.75
PREVIEW_WORDS = 24

_WORD = re.compile(r"[^\W_]+")
_SUFFIXES = ("ations", "ation", "ingly", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(fold(text))]


@dataclass
class _Indexed:
    note: Note
    terms: dict[str, float]  # weighted term frequencies over the three fields
    length: float


def _indexed(note: Note) -> _Indexed:
    terms: dict[str, float] = {}
    length = 0.0
    for weight, text in zip(
        FIELD_WEIGHTS, (note.title, " ".join(note.tags), note.body), strict=True
    ):
        words = tokens(text)
        length += weight * len(words)
        for word in words:
            terms[word] = terms.get(word, 0.0) + weight
    return _Indexed(note, terms, length)


class MemoryLtm:
    """The LTM methods of the Store protocol, in memory (optionally persisted to one file)."""

    _ltm_index: dict[str, _Indexed] | None = None
    _ltm_stamp: tuple[int, int] | None = None
    _ltm_mutex = threading.RLock()

    def _ltm_file(self) -> Path | None:
        return None

    def _ltm_notes(self) -> dict[str, _Indexed]:
        path = self._ltm_file()
        if path is not None:
            try:
                info = path.stat()
                stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
            except FileNotFoundError:
                stamp = None
            if self._ltm_index is None or stamp != self._ltm_stamp:
                self._ltm_index = _load(path) if stamp is not None else {}
                self._ltm_stamp = stamp
        elif self._ltm_index is None:
            self._ltm_index = {}
        return self._ltm_index

    def ltm_states(self) -> dict[str, NoteState]:
        with self._ltm_mutex:
            return {p: e.note.state() for p, e in self._ltm_notes().items()}

    def ltm_write(
        self,
        upsert: Sequence[Note] = (),
        restate: Sequence[NoteState] = (),
        delete: Sequence[str] = (),
    ) -> None:
        if not (upsert or restate or delete):
            return
        with self._ltm_mutex:
            notes = dict(self._ltm_notes())
            for gone in delete:
                notes.pop(gone, None)
            for note in upsert:
                notes[note.path] = _indexed(note)
            for s in restate:
                if s.path in notes:
                    changed = notes[s.path].note.model_copy(
                        update={"mtime_ns": s.mtime_ns, "size": s.size, "digest": s.digest}
                    )
                    notes[s.path] = _Indexed(changed, notes[s.path].terms, notes[s.path].length)
            path = self._ltm_file()
            if path is not None:
                _save(path, notes)
                info = path.stat()
                self._ltm_stamp = (info.st_mtime_ns, info.st_size)
            self._ltm_index = notes

    def ltm_search(self, terms: Sequence[str], tags: Sequence[str], limit: int) -> list[NoteHit]:
        with self._ltm_mutex:
            notes = list(self._ltm_notes().values())
        if tags:
            wanted = [t.casefold().strip("#/") for t in tags]
            notes = [e for e in notes if _has_tag(e.note, wanted)]
        if not terms:
            if not tags:
                return []
            chosen = sorted(notes, key=lambda e: e.note.path)[:limit]
            return [_hit(e.note, 1.0, e.note.body[:200]) for e in chosen]
        query = list(dict.fromkeys(stem(fold(t)) for t in terms))
        total = len(notes) or 1
        average = sum(e.length for e in notes) / total or 1.0
        frequency = {q: sum(1 for e in notes if q in e.terms) for q in query}
        scored = []
        for e in notes:
            score = 0.0
            for q in query:
                tf = e.terms.get(q, 0.0)
                if tf:
                    idf = math.log(1 + (total - frequency[q] + 0.5) / (frequency[q] + 0.5))
                    score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * e.length / average))
            if score > 0:
                scored.append((score, e.note))
        scored.sort(key=lambda item: (-item[0], item[1].path))
        return [_hit(note, score, _preview(note.body, query)) for score, note in scored[:limit]]

    def ltm_links(self, path: str) -> NoteLinks:
        with self._ltm_mutex:
            notes = {p: e.note for p, e in self._ltm_notes().items()}
        by_key: dict[str, list[str]] = {}
        by_name: dict[str, list[str]] = {}
        for p in sorted(notes, key=lambda p: (len(p), p)):
            by_key.setdefault(link_key(p), []).append(p)
            by_name.setdefault(link_name(p), []).append(p)
        outgoing: dict[str, None] = {}
        unresolved: dict[str, None] = {}
        note = notes.get(path)
        for target in note.links if note else ():
            key = link_key(target)
            found = by_key.get(key) or (by_name.get(key) if "/" not in key else None)
            if not found:
                unresolved.setdefault(target)
            elif found[0] != path:
                outgoing.setdefault(found[0])
        key, name = link_key(path), link_name(path)
        incoming = sorted(
            p
            for p, other in notes.items()
            if p != path
            and any(
                link_key(t) == key or ("/" not in link_key(t) and link_key(t) == name)
                for t in other.links
            )
        )
        return NoteLinks(path, tuple(outgoing), tuple(incoming), tuple(unresolved))


def _has_tag(note: Note, wanted: list[str]) -> bool:
    for tag in note.tags:
        folded = tag.casefold()
        if any(folded == w or folded.startswith(w + "/") for w in wanted):
            return True
    return False


def _hit(note: Note, relevance: float, preview: str) -> NoteHit:
    return NoteHit(
        path=note.path,
        title=note.title,
        tags=note.tags,
        engram_id=note.engram_id,
        relevance=relevance,
        preview=" ".join(preview.split()),
    )


def _preview(body: str, query: list[str]) -> str:
    words = body.split()
    for i, word in enumerate(words):
        if any(t in query for t in tokens(word)):
            start = max(0, i - PREVIEW_WORDS // 3)
            chunk = words[start : start + PREVIEW_WORDS]
            return (
                ("… " if start else "")
                + " ".join(chunk)
                + (" …" if len(words) > start + PREVIEW_WORDS else "")
            )
    return " ".join(words[:PREVIEW_WORDS])


def _load(path: Path) -> dict[str, _Indexed]:
    notes: dict[str, _Indexed] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return notes
    for line in lines:
        with suppress(ValueError):
            note = Note.model_validate(json.loads(line))
            notes[note.path] = _indexed(note)
    return notes


def _save(path: Path, notes: dict[str, _Indexed]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".engram-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for entry in notes.values():
                handle.write(json.dumps(entry.note.model_dump(mode="json"), ensure_ascii=False))
                handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
