"""Long-term-memory index methods for backends without a full-text engine of their own.

`MemoryLtm` keeps the vault index in plain Python structures (notes by path, term frequencies,
tags, links) and ranks with BM25 over title (×3), tags (×2) and body, with a light suffix
stemmer and accent folding, like the SQLite FTS5 index. A backend that returns a file from
`_ltm_file()` gets it persisted there as JSON lines, rewritten atomically on every write and
re-read when another process changed it; concurrent writers are last-writer-wins, which is safe
because the index is a cache of the vault that `index-ltm` reconciles.

Note vectors are kept with their note (and persisted on the note's line, as base64 of
little-endian float32 with the model id), so a note and its vector are always written together:
a new title or body drops the vector in the same write. A search is exact: one matrix-vector
product over the vectors of the query's model (`ExactIndex`), built once per version of the
index.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engram.atomic import write_atomically
from engram.core.notes import Note, NoteHit, NoteLinks, NoteState, NoteText, link_key, link_name
from engram.storage.exact import ExactIndex
from engram.storage.protocol import NoteIndex

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


Vector = tuple[str, NDArray[np.float32]]  # (model id, embedding of title and body)


@dataclass
class _Indexed:
    note: Note
    terms: dict[str, float]  # weighted term frequencies over the three fields
    length: float
    vector: Vector | None = None


def _indexed(note: Note, vector: Vector | None = None) -> _Indexed:
    terms: dict[str, float] = {}
    length = 0.0
    for weight, text in zip(
        FIELD_WEIGHTS, (note.title, " ".join(note.tags), note.body), strict=True
    ):
        words = tokens(text)
        length += weight * len(words)
        for word in words:
            terms[word] = terms.get(word, 0.0) + weight
    return _Indexed(note, terms, length, vector)


class MemoryLtm(NoteIndex):
    """The LTM methods of the Store protocol, in memory (optionally persisted to one file)."""

    _ltm_index: dict[str, _Indexed] | None = None
    _ltm_stamp: tuple[int, int] | None = None
    _ltm_mutex = threading.RLock()
    # (the index it was built from, model id, the vectors of that model)
    _ltm_matrix: tuple[dict[str, _Indexed], str, ExactIndex[str]] | None = None

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
                old = notes.get(note.path)
                same_text = old is not None and (old.note.title, old.note.body) == (
                    note.title,
                    note.body,
                )
                notes[note.path] = _indexed(note, old.vector if old and same_text else None)
            for s in restate:
                if s.path in notes:
                    entry = notes[s.path]
                    changed = entry.note.model_copy(
                        update={"mtime_ns": s.mtime_ns, "size": s.size, "digest": s.digest}
                    )
                    notes[s.path] = _Indexed(changed, entry.terms, entry.length, entry.vector)
            self._ltm_commit(notes)

    def _ltm_commit(self, notes: dict[str, _Indexed]) -> None:
        path = self._ltm_file()
        if path is not None:
            _save(path, notes)
            info = path.stat()
            self._ltm_stamp = (info.st_mtime_ns, info.st_size)
        self._ltm_index = notes

    def ltm_put_vectors(
        self, items: Sequence[tuple[str, str, NDArray[np.float32]]], model_id: str
    ) -> int:
        if not items:
            return 0
        with self._ltm_mutex:
            notes = dict(self._ltm_notes())
            stored = 0
            for path, digest, vector in items:
                entry = notes.get(path)
                if entry is not None and entry.note.digest == digest:
                    copy = np.array(vector, dtype=np.float32).reshape(-1)
                    notes[path] = _Indexed(entry.note, entry.terms, entry.length, (model_id, copy))
                    stored += 1
            if stored:
                self._ltm_commit(notes)
            return stored

    def ltm_vector_search(
        self, vector: NDArray[np.float32], model_id: str, tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if limit <= 0 or query.size == 0:
            return []
        with self._ltm_mutex:
            notes = self._ltm_notes()
            cached = self._ltm_matrix
            if cached is None or cached[0] is not notes or cached[1] != model_id:
                index: ExactIndex[str] = ExactIndex(query.size)
                for path, entry in notes.items():
                    if entry.vector is not None and entry.vector[0] == model_id:
                        index.put(path, entry.vector[1])
                cached = self._ltm_matrix = (notes, model_id, index)
        notes, _, index = cached
        if index.dims != query.size:
            return []
        among = None
        if tags:
            wanted = [t.casefold().strip("#/") for t in tags]
            among = [p for p, e in notes.items() if _has_tag(e.note, wanted)]
        return [
            _hit(notes[path].note, cosine, notes[path].note.body[:200])
            for path, cosine in index.nearest(query, limit, among)
        ]

    def ltm_missing_vectors(self, model_id: str, limit: int) -> list[NoteText]:
        with self._ltm_mutex:
            notes = list(self._ltm_notes().values())
        out: list[NoteText] = []
        for e in notes:
            if len(out) >= limit:
                break
            if e.vector is None or e.vector[0] != model_id:
                out.append(NoteText(e.note.path, e.note.digest, e.note.title, e.note.body))
        return out

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
            data = json.loads(line)
            if not isinstance(data, dict):
                continue
            vector = _decode_vector(data.pop("vector", None))
            note = Note.model_validate(data)
            notes[note.path] = _indexed(note, vector)
    return notes


def _encode_vector(vector: Vector) -> dict[str, str]:
    raw = np.ascontiguousarray(vector[1], dtype="<f4").tobytes()
    return {"model_id": vector[0], "data": base64.b64encode(raw).decode("ascii")}


def _decode_vector(value: object) -> Vector | None:
    """A stored vector, or None when there is none or it cannot be read (the note stays)."""
    if not isinstance(value, dict):
        return None
    model, data = value.get("model_id"), value.get("data")
    if not isinstance(model, str) or not isinstance(data, str):
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw or len(raw) % 4:
        return None
    vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    return (model, vector) if bool(np.all(np.isfinite(vector))) else None


def _save(path: Path, notes: dict[str, _Indexed]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)

    def lines() -> Iterator[bytes]:
        for entry in notes.values():
            line = entry.note.model_dump(mode="json")
            if entry.vector is not None:
                line["vector"] = _encode_vector(entry.vector)
            yield json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n"

    write_atomically(path, lines())
