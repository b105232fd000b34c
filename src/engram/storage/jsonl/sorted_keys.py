"""Sorted (key, seq) lists: the JSONL store's B-tree stand-ins for schedule and browse order."""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Iterator
from typing import Generic, TypeVar

K = TypeVar("K", int, float, tuple[float, float])


class SortedKeys(Generic[K]):
    """Entries (key, seq), kept sorted; seq breaks ties so every entry is unique.

    While loading many lines at once (`bulk=True`), additions are appended and removals noted,
    and the list is sorted (and the removals dropped) once, on first use: no quadratic cost
    when a file holds many versions of the same memories.
    """

    def __init__(self) -> None:
        self._items: list[tuple[K, int]] = []
        self._removed: Counter[tuple[K, int]] = Counter()
        self._sorted = True

    def __len__(self) -> int:
        return len(self._ready())

    def _ready(self) -> list[tuple[K, int]]:
        if not self._sorted:
            self._items.sort()
            if self._removed:
                kept: list[tuple[K, int]] = []
                for item in self._items:
                    if self._removed[item] > 0:
                        self._removed[item] -= 1
                    else:
                        kept.append(item)
                self._items = kept
                self._removed.clear()
            self._sorted = True
        return self._items

    def add(self, key: K, seq: int, bulk: bool = False) -> None:
        if bulk or not self._sorted:
            self._items.append((key, seq))
            self._sorted = False
        else:
            insort(self._items, (key, seq))

    def remove(self, key: K, seq: int) -> None:
        if not self._sorted:
            self._removed[(key, seq)] += 1
            return
        items = self._items
        i = bisect_left(items, (key, seq))
        if i < len(items) and items[i] == (key, seq):
            del items[i]

    def count_below(self, key: K) -> int:
        """Entries with a key strictly below `key`."""
        return bisect_left(self._ready(), (key, -1))

    def count_at_most(self, key: K) -> int:
        """Entries with a key at most `key`."""
        return bisect_right(self._ready(), (key, sys.maxsize))

    def ascending_from(self, start: int) -> Iterator[tuple[K, int]]:
        items = self._ready()
        for i in range(start, len(items)):
            yield items[i]

    def descending_below(self, stop: int) -> Iterator[tuple[K, int]]:
        items = self._ready()
        for i in range(min(stop, len(items)) - 1, -1, -1):
            yield items[i]
