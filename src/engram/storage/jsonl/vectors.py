"""Embeddings for the JSONL store: `vectors.jsonl` lines, and an exact in-memory cosine search.

A line is `{"id": <memory id>, "model_id": ..., "vector": <base64 of little-endian float32>}`,
with `"rows": n` when the vector holds several rows (the whole text, then its passages); a
tombstone `{"id": ..., "_deleted": true}` retires a memory's vector (the memory was deleted or
its text changed). Vectors of the configured model live in one float32 matrix, so a search is a
single matrix-vector product over every row: exact, and fast enough for the store sizes a
JSONL directory is meant for. Vectors of other models are kept (so compaction and migration
preserve them) but never searched.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engram.storage.jsonl.records import BadLine, Tombstone, parse_object, tombstone_of


@dataclass(frozen=True)
class VectorLine:
    id: str
    model_id: str
    vector: NDArray[np.float32]  # (rows, dims)


def encode_vector(ident: str, model_id: str, vector: NDArray[np.float32]) -> bytes:
    matrix = np.atleast_2d(vector)
    raw = np.ascontiguousarray(matrix, dtype="<f4").tobytes()
    line: dict[str, object] = {
        "id": ident,
        "model_id": model_id,
        "vector": base64.b64encode(raw).decode("ascii"),
    }
    if len(matrix) > 1:
        line["rows"] = len(matrix)
    return json.dumps(line, ensure_ascii=False).encode()


def decode_vector(raw: bytes) -> VectorLine | Tombstone:
    obj = parse_object(raw)
    gone = tombstone_of(obj)
    if gone is not None:
        return gone
    for name in ("id", "model_id", "vector"):
        if not isinstance(obj.get(name), str) or not obj[name]:
            raise BadLine(f"{name}: must be a non-empty string")
    try:
        data = base64.b64decode(obj["vector"], validate=True)
    except (binascii.Error, ValueError):
        raise BadLine("vector: must be base64 of little-endian float32 values") from None
    if not data or len(data) % 4:
        raise BadLine("vector: must be base64 of little-endian float32 values")
    rows = obj.get("rows", 1)
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 1 or (len(data) // 4) % rows:
        raise BadLine("rows: must be a positive whole number dividing the vector's length")
    vector = np.frombuffer(data, dtype="<f4").astype(np.float32).reshape(rows, -1)
    if not np.all(np.isfinite(vector)):
        raise BadLine("vector: must hold finite numbers")
    return VectorLine(obj["id"], obj["model_id"], vector)


class VectorMatrix:
    """Vectors of one model: each memory owns one or more rows of one matrix (stored as given:
    a migration copies them exactly); freed rows are reused."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._matrix = np.zeros((64, dims), dtype=np.float32)
        self._norms = np.zeros(64, dtype=np.float32)
        self._owner: list[str | None] = []  # memory id per row, None = free
        self._rows: dict[str, list[int]] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, ident: str) -> bool:
        return ident in self._rows

    def ids(self) -> list[str]:
        return list(self._rows)

    def get(self, ident: str) -> NDArray[np.float32] | None:
        """The (rows, dims) vectors of a memory."""
        rows = self._rows.get(ident)
        return None if rows is None else self._matrix[rows].copy()

    def put(self, ident: str, vectors: NDArray[np.float32]) -> None:
        self.remove(ident)
        rows: list[int] = []
        for vector in np.atleast_2d(vectors):
            row = self._take_row()
            self._owner[row] = ident
            self._matrix[row] = vector
            self._norms[row] = np.linalg.norm(vector)
            rows.append(row)
        self._rows[ident] = rows

    def _take_row(self) -> int:
        if self._free:
            return self._free.pop()
        row = len(self._owner)
        self._owner.append(None)
        if row >= len(self._matrix):
            grown = np.zeros((len(self._matrix) * 2, self.dims), dtype=np.float32)
            grown[: len(self._matrix)] = self._matrix
            norms = np.zeros(len(grown), dtype=np.float32)
            norms[: len(self._norms)] = self._norms
            self._matrix, self._norms = grown, norms
        return row

    def remove(self, ident: str) -> None:
        for row in self._rows.pop(ident, ()):
            self._owner[row] = None
            self._matrix[row] = 0.0
            self._norms[row] = 0.0
            self._free.append(row)

    def nearest(self, query: NDArray[np.float32]) -> list[tuple[str, float]]:
        """Every memory's (id, cosine similarity of its best row), most similar first."""
        used = len(self._owner)
        if not self._rows or used == 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return []
        with np.errstate(divide="ignore", invalid="ignore"):
            sims = (self._matrix[:used] @ q) / (self._norms[:used] * norm)
        sims = np.nan_to_num(sims, nan=-1.0, posinf=-1.0, neginf=-1.0)
        order = np.argsort(-sims, kind="stable")
        best: dict[str, float] = {}
        for row in order.tolist():
            owner = self._owner[row]
            if owner is not None:
                best.setdefault(owner, float(sims[row]))
        return list(best.items())
