"""Lookups by key cost the same in a small store and a big one.

The work is counted in SQLite virtual-machine steps (a progress handler called every
`STEP` instructions): deterministic, unlike a wall clock. A lookup of a few ids that walks an
index over every active memory instead — what SQLite's planner chose for search's context
lookups, 160 ms at 100K memories — costs steps in proportion to the store and fails here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engram import Draft, Engram
from engram.storage.protocol import Filter
from engram.vault.index import parse_note

DIMS = 384

STEP = 100
SIZES = (500, 4_000)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, Engram]]:
    opened: dict[int, Engram] = {}
    for n in SIZES:
        mem = Engram.open(
            str(tmp_path_factory.mktemp("lookups") / f"{n}.db"), embedding_model="none"
        )
        mem.save_many([Draft(content=f"note {i} on topic {i % 37}") for i in range(n)])
        opened[n] = mem
    yield opened
    for mem in opened.values():
        mem.close()


def steps(mem: Engram, work: Callable[[Any], object]) -> int:
    """Steps on every connection of the store: reads go to a connection of their own (the
    writing one counted nothing, and the test could not fail)."""
    store = mem.app.context.store
    conns = [c for c in (store._conn, store._reader, store._aside) if c is not None]  # type: ignore[attr-defined]
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    for conn in conns:
        conn.set_progress_handler(tick, STEP)
    try:
        work(store)
    finally:
        for conn in conns:
            conn.set_progress_handler(None, STEP)
    return count


def some_ids(mem: Engram, k: int = 20) -> list[str]:
    return [m.id for m in mem.read_graph(limit=k).memories]


@pytest.mark.parametrize(
    "lookup",
    [
        pytest.param(lambda store, ids: store.stubs(ids, Filter()), id="stubs"),
        pytest.param(lambda store, ids: store.get_many(ids), id="get_many"),
        pytest.param(lambda store, ids: store.episode_neighbours(ids, 3), id="episode_neighbours"),
        pytest.param(lambda store, ids: store.episode_next(ids), id="episode_next"),
    ],
)
def test_a_lookup_by_id_does_not_grow_with_the_store(
    stores: dict[int, Engram], lookup: Callable[[Any, list[str]], object]
) -> None:
    small, big = (stores[n] for n in SIZES)
    cost_small = steps(small, lambda store: lookup(store, some_ids(small)))
    cost_big = steps(big, lambda store: lookup(store, some_ids(big)))
    # 8x the memories; a scan would cost about 8x the steps. Allow for a deeper B-tree.
    assert cost_small > 0 and cost_big <= 2 * cost_small + 5, (cost_small, cost_big)


def test_reading_a_few_notes_vectors_does_not_grow_with_the_vault(tmp_path: Path) -> None:
    """Search reads back the vectors of the notes it found by meaning alone (section 1b of
    docs/search.md). Joined plainly, SQLite walked every vector of the model through its index
    and kept the few named: about a millisecond per search at a thousand notes, and linear."""
    costs = []
    for n in SIZES:
        with Engram.open(str(tmp_path / f"notes-{n}.db"), embedding_model="none") as mem:
            store: Any = mem.app.context.store
            texts = [f"Note {i} about topic {i % 37}.\n" for i in range(n)]
            store.ltm_write(
                upsert=[
                    parse_note(f"n/{i}.md", t.encode(), mtime_ns=1, size=len(t))
                    for i, t in enumerate(texts)
                ]
            )
            states = store.ltm_states()
            vector = np.ones(DIMS, dtype=np.float32) / np.sqrt(DIMS)
            items = [(path, state.digest, vector) for path, state in states.items()]
            assert store.ltm_put_vectors(items, "test-model") == n
            wanted = [f"n/{i}.md" for i in range(0, n, n // 20)][:20]
            got: dict[str, Any] = {}

            def read(s: Any, wanted: list[str] = wanted, got: dict[str, Any] = got) -> None:
                got.update(s.ltm_get_vectors(wanted, "test-model"))

            costs.append(steps(mem, read))
            assert sorted(got) == sorted(wanted)
    cost_small, cost_big = costs
    # 8x the notes; a walk over every vector would cost about 8x the steps.
    assert cost_small > 0 and cost_big <= 2 * cost_small + 5, (cost_small, cost_big)
