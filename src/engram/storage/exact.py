"""Exact cosine search over a few hundred thousand vectors: one float32 matrix, one product.

Used for the vault's note vectors (at most ~100K notes): a matrix-vector product over every
vector is exact and takes milliseconds, and it needs no index file to keep in step. Rows are
kept unit-length, so a dot product with the unit query is the cosine similarity; freed rows are
reused.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

K = TypeVar("K", bound=Hashable)


class ExactIndex(Generic[K]):
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._matrix = np.zeros((64, dims), dtype=np.float32)
        self._owner: list[K | None] = []  # key per row, None = free
        self._row: dict[K, int] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, key: object) -> bool:
        return key in self._row

    def put(self, key: K, vector: NDArray[np.float32]) -> None:
        """Add or replace; a vector of other dimensions, or of zero length, is not searchable."""
        v = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(v)) if v.shape == (self.dims,) else 0.0
        if not np.isfinite(norm) or norm == 0.0:
            self.remove(key)
            return
        row = self._row.get(key)
        if row is None:
            row = self._free.pop() if self._free else self._grow()
            self._row[key] = row
            self._owner[row] = key
        self._matrix[row] = v / norm

    def _grow(self) -> int:
        row = len(self._owner)
        self._owner.append(None)
        if row >= len(self._matrix):
            grown = np.zeros((len(self._matrix) * 2, self.dims), dtype=np.float32)
            grown[: len(self._matrix)] = self._matrix
            self._matrix = grown
        return row

    def remove(self, key: K) -> None:
        row = self._row.pop(key, None)
        if row is not None:
            self._owner[row] = None
            self._matrix[row] = 0.0
            self._free.append(row)

    def nearest(
        self, query: NDArray[np.float32], k: int, among: Iterable[K] | None = None
    ) -> list[tuple[K, float]]:
        """The k keys most similar to `query` (cosine, best first), only from `among` if given."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q)) if q.shape == (self.dims,) else 0.0
        if k <= 0 or not self._row or not np.isfinite(norm) or norm == 0.0:
            return []
        if among is None:
            rows = None
            sims = self._matrix[: len(self._owner)] @ (q / norm)
            if self._free:
                sims[self._free] = -np.inf
        else:
            rows = np.fromiter(
                (r for key in among if (r := self._row.get(key)) is not None), dtype=np.int64
            )
            if rows.size == 0:
                return []
            sims = self._matrix[rows] @ (q / norm)
        k = min(k, int(np.isfinite(sims).sum()))
        if k == 0:
            return []
        top = np.argpartition(-sims, k - 1)[:k] if k < sims.size else np.arange(sims.size)
        top = top[np.argsort(-sims[top], kind="stable")]
        out: list[tuple[K, float]] = []
        for i in top.tolist():
            owner = self._owner[i if rows is None else int(rows[i])]
            if owner is not None:
                out.append((owner, float(sims[i])))
        return out
