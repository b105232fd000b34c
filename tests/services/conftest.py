"""Service tests run on every backend: `mem` (and `store_url`) are parametrized over STORE_URLS."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engram import Engram, FixedClock

# backend name -> the location of a fresh, empty store for one test
STORE_URLS: dict[str, Callable[[pytest.FixtureRequest, Path], str]] = {
    "sqlite": lambda request, tmp: str(tmp / "store.db"),
    "jsonl": lambda request, tmp: f"jsonl://{tmp / 'store-jsonl'}",
    "postgres": lambda request, tmp: request.getfixturevalue("postgres_url"),
}


@pytest.fixture(params=sorted(STORE_URLS))
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return STORE_URLS[request.param](request, tmp_path)


@pytest.fixture
def mem(store_url: str, clock: FixedClock) -> Iterator[Engram]:
    with Engram.open(store_url, clock=clock) as engram:
        yield engram
