"""What one search reads of its memories, each memory's vectors and text read once. Its steps
ask for many of the same memories: its neighbours by meaning are judged on their vectors, the
episode neighbours of its best matches are compared by theirs and then judged by meaning as
matches near a match, the best matches are compared again for diversity. Read by each step,
over a third of the vectors a search read at 10K memories had been read before in the same
search (bench/search_latency.py's store and queries). Their texts likewise: the labels of a
transcript's speakers, the questions and listeners lowered, the answers raised, the words of
expansion and the turns asking for a reply were nine reads of 186 texts a REALTALK question,
116 of them distinct."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from numpy.typing import NDArray

from engram.storage.protocol import MemoryText, Store


class SearchReads:
    """Each memory's rows (its whole text's, then its passages'), as the store gives them with
    `passages`, and its text, read when first asked for; `model_id` None (no embedder) reads no
    vectors."""

    def __init__(self, store: Store, model_id: str | None) -> None:
        self._store = store
        self._model_id = model_id
        self._rows: dict[str, NDArray[np.float32]] = {}
        self._none: set[str] = set()  # read, and without a vector of the model
        self._texts: dict[str, MemoryText] = {}
        self._gone: set[str] = set()  # read, and not in the store

    def texts(self, ids: Iterable[str]) -> dict[str, MemoryText]:
        """The text of each of `ids` the store holds, as `Store.texts` gives it."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._texts and i not in self._gone]
        if missing:
            found = self._store.texts(missing)
            self._texts.update(found)
            self._gone.update(i for i in missing if i not in found)
        return {i: self._texts[i] for i in wanted if i in self._texts}

    def rows(self, ids: Iterable[str]) -> dict[str, NDArray[np.float32]]:
        """Every row of those of `ids` that have vectors (2-D), in the order of their ids: the
        order the store's own read gives them, so that a product over them (`meaning_matches`)
        is the same to the last bit whichever step read them first."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._rows and i not in self._none]
        if missing and self._model_id is not None:
            found = self._store.get_vectors(missing, self._model_id, passages=True)
            self._rows.update(found)
            self._none.update(i for i in missing if i not in found)
        return {i: self._rows[i] for i in sorted(wanted) if i in self._rows}

    def add(self, rows: Mapping[str, NDArray[np.float32]]) -> None:
        """Rows read otherwise (by the vector search), as `rows` gives them."""
        for ident, matrix in rows.items():
            self._rows.setdefault(ident, matrix)
            self._none.discard(ident)

    def whole(self, ids: Iterable[str]) -> dict[str, NDArray[np.float32]]:
        """The whole text's row of those of `ids` that have vectors."""
        return {i: matrix[0] for i, matrix in self.rows(ids).items()}
