"""Engram's errors travel as Python's do: pickled from a process pool's worker, copied."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from engram import Engram
from engram.errors import (
    BusyError,
    ConfigError,
    DamagedStoreError,
    EngramError,
    NotFoundError,
    StoreError,
    ValidationError,
)

ERRORS = [
    ValidationError("content", "is 50,001 characters; the limit is 50,000"),
    NotFoundError("memory", "3115c8a3", "promote it again"),
    NotFoundError("memory", "3115c8a3"),
    ConfigError("ENGRAM_STORAGE_PATH: unsupported store URL scheme 'ftp'"),
    StoreError("the store is locked"),
    DamagedStoreError("the store is damaged"),
    BusyError("another merge is running"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling_and_copying(error: EngramError) -> None:
    """NotFoundError and ValidationError were made again from their message alone, which
    their constructors do not take: a TypeError, and a process pool broken by it (a probe)."""
    for again in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert type(again) is type(error) and str(again) == str(error)
        assert vars(again) == vars(error)  # field, reason, ident… as they were


def _get(path: str) -> None:
    with Engram.open(path, embedding_model="none") as mem:
        mem.get("no-such-memory")


def test_a_workers_not_found_reaches_the_parent_as_itself(tmp_path: Path) -> None:
    store = str(tmp_path / "x.db")
    with Engram.open(store, embedding_model="none") as mem:
        mem.save("a store to read")
    with (
        ProcessPoolExecutor(max_workers=1) as pool,
        pytest.raises(NotFoundError, match="memory not found: no-such-memory"),
    ):
        pool.submit(_get, store).result(timeout=120)
