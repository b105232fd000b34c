"""Embeddings for the JSONL store: the lines of `vectors.jsonl`.

A line is `{"id": <memory id>, "model_id": ..., "vector": <base64 of little-endian float32>}`,
with `"rows": n` when the vector holds several rows (the whole text, then its passages) and
`"text"`: a digest of the text it was computed from. A vector whose memory says something else
by now (its line edited by hand, or one side of a git merge) is not attached: the memory is
then missing a vector and is embedded again (`engram embed --backfill`, the MCP server's next
catch-up), instead of being found by meaning for what it used to say. A
tombstone `{"id": ..., "_deleted": true}` retires a memory's vector (the memory was deleted or
its text changed). The store's index (SQLite) keeps and searches them; vectors of other models
are kept too (so compaction and migration preserve them) but never searched.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
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
    text: str | None = None  # digest of the text it describes (None: written before digests)

    def describes(self, content: str) -> bool:
        return self.text is None or self.text == text_digest(content)


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def encode_vector(ident: str, model_id: str, vector: NDArray[np.float32], text: str) -> bytes:
    matrix = np.atleast_2d(vector)
    raw = np.ascontiguousarray(matrix, dtype="<f4").tobytes()
    line: dict[str, object] = {
        "id": ident,
        "model_id": model_id,
        "vector": base64.b64encode(raw).decode("ascii"),
    }
    if len(matrix) > 1:
        line["rows"] = len(matrix)
    line["text"] = text_digest(text)
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
    text = obj.get("text")
    return VectorLine(obj["id"], obj["model_id"], vector, text if isinstance(text, str) else None)
