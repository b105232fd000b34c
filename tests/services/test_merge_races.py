"""A use racing a merge, on every backend: a touch, an observe or a repeated save whose memory
another client merges between the look and the write counts on the merged memory, and never
brings the original back beside it (a helper's probe found the fact live twice).

The interleaving is made exact by running the other client's merge (a second handle on the
same store, as another process would) right after this one has looked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engram import Engram, FixedClock
from engram.core.models import Status
from engram.services import merged_use
from engram.services.memories import MemoryService

TEXTS = (
    "Dana really enjoys chess on weekends with family",
    "Dana really enjoys chess on the weekends with family",
    "Dana really enjoys chess on weekends with the family",
)


@pytest.fixture
def two(store_url: str, clock: FixedClock) -> Iterator[tuple[Engram, Engram, list[str]]]:
    with (
        Engram.open(store_url, clock=clock, save_duplicates="keep") as mine,
        Engram.open(store_url, clock=clock) as other,
    ):
        ids = [mine.save(text).id for text in TEXTS]
        mine.flush()
        yield mine, other, ids


def merging_after(
    monkeypatch: pytest.MonkeyPatch, target: Any, name: str, merge: Callable[[], None]
) -> None:
    """`target.name` runs as before, and the other client's merge lands right after its first
    call."""
    looked = getattr(target, name)
    calls = []

    def then_merge(*args: Any) -> Any:
        found = looked(*args)
        if not calls:
            calls.append(1)
            merge()
        return found

    monkeypatch.setattr(target, name, then_merge)


def live(mem: Engram) -> list[str]:
    return [m.id for m in mem.read_graph(limit=100).memories if m.status != Status.ARCHIVED]


@pytest.mark.parametrize("use", ["touch", "observe"])
def test_a_use_racing_a_merge_counts_on_the_merged_memory(
    two: tuple[Engram, Engram, list[str]], monkeypatch: pytest.MonkeyPatch, use: str
) -> None:
    mine, other, ids = two
    merged: list[str] = []

    def merge() -> None:
        done = other.consolidate(mode="apply", memory_ids=ids, auto_detect=False)
        merged.append(done.merged[0].merged.id)

    merging_after(monkeypatch, merged_use, "looked_up", merge)
    if use == "touch":
        result = mine.touch(ids[0])
        assert (result.memory_id, result.instead_of, result.unarchived) == (
            merged[0],
            ids[0],
            False,
        )
    else:
        (observed,) = mine.observe([ids[0]], [])
        assert (observed.memory.id, observed.instead_of) == (merged[0], [ids[0]])
    assert live(mine) == merged  # the original stays archived
    assert mine.get(merged[0]).use_count == 1


def test_a_repeat_saved_while_it_is_merged_counts_on_the_merged_memory(
    store_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        Engram.open(store_url, clock=clock, save_duplicates="keep") as copies,
        Engram.open(store_url, clock=clock) as mine,  # a repeat is a use here
        Engram.open(store_url, clock=clock) as other,
    ):
        ids = [copies.save(text).id for text in TEXTS]
        copies.flush()
        merged: list[str] = []

        def merge() -> None:
            done = other.consolidate(mode="apply", memory_ids=ids, auto_detect=False)
            merged.append(done.merged[0].merged.id)

        merging_after(monkeypatch, MemoryService, "repeat_of", merge)
        result = mine.save_result(TEXTS[0])
        assert (result.action, result.duplicate_of) == ("merged", merged[0])
        assert live(mine) == merged
