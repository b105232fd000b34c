"""`SearchReads`: a search reads each memory's vectors once, and gets them in the order the
store's own read gives them (by id), whichever of its steps read them first; and each memory's
text once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.typing import NDArray

from engram import Engram
from engram.services.search_reads import SearchReads
from engram.storage.protocol import MemoryText, Store


class CountingStore:
    """`get_vectors` over a few fixed matrices, each call recorded."""

    def __init__(self, rows: dict[str, NDArray[np.float32]]) -> None:
        self.rows = rows
        self.asked: list[tuple[list[str], bool]] = []

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        self.asked.append((list(ids), passages))
        found = {i: self.rows[i] for i in sorted(set(ids)) if i in self.rows}
        return found if passages else {i: m[0] for i, m in found.items()}


def matrix(n: int, seed: int) -> NDArray[np.float32]:
    return np.random.default_rng(seed).standard_normal((n, 4)).astype(np.float32)


def test_each_memory_is_read_once_and_given_back_in_id_order() -> None:
    store = CountingStore({"b": matrix(2, 1), "a": matrix(1, 2), "c": matrix(3, 3)})
    seen = SearchReads(cast(Store, store), "m")
    assert list(seen.rows(["c", "b", "missing"])) == ["b", "c"]
    whole = seen.whole(["c", "a", "b", "missing"])
    assert list(whole) == ["a", "b", "c"]
    assert np.array_equal(whole["c"], store.rows["c"][0])
    assert np.array_equal(seen.rows(["c"])["c"], store.rows["c"])  # every row, as stored
    # "missing" was asked for once: known to have no vector, it is not read again
    assert store.asked == [(["c", "b", "missing"], True), (["a"], True)]


def test_rows_handed_over_are_not_read_again() -> None:
    store = CountingStore({"a": matrix(1, 4), "b": matrix(2, 5)})
    seen = SearchReads(cast(Store, store), "m")
    seen.add({"b": store.rows["b"]})
    assert list(seen.rows(["b", "a"])) == ["a", "b"]
    assert store.asked == [(["a"], True)]


def test_without_a_model_nothing_is_read() -> None:
    store = CountingStore({"a": matrix(1, 6)})
    assert SearchReads(cast(Store, store), None).whole(["a"]) == {}
    assert store.asked == []


class RecordingTexts:
    """A real store's `texts`, each call's ids recorded."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.asked: list[list[str]] = []

    def texts(self, ids: Sequence[str]) -> dict[str, MemoryText]:
        self.asked.append(list(ids))
        return self.store.texts(ids)


def test_each_memorys_text_is_read_once(mem: Engram) -> None:
    """The speakers' labels, the questions lowered, the replies credited and the expansion's
    words read many of the same texts in one search: the store is asked for each once, and
    an id it does not hold is not asked for again."""
    a = mem.save("Kaito: is the flat near the station?")
    b = mem.save("Siobhan: ten minutes from the flat")
    store = mem.app.context.store
    recording = RecordingTexts(store)
    seen = SearchReads(cast(Store, recording), None)
    first = seen.texts([b.id, a.id, "missing"])
    assert list(first) == [b.id, a.id]
    assert first[a.id].content == "Kaito: is the flat near the station?"
    assert seen.texts([a.id, "missing"]) == {a.id: first[a.id]}
    assert recording.asked == [[b.id, a.id, "missing"]]
