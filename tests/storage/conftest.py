"""The backend matrix: every contract test runs once per backend listed here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engram.storage.jsonl import JSONLStore
from engram.storage.postgres import PostgresStore
from engram.storage.protocol import Store
from engram.storage.sqlite import SQLiteStore

BACKENDS: dict[str, Callable[[Path], Store]] = {
    "sqlite": lambda tmp: SQLiteStore(tmp / "contract.db"),
    "jsonl": lambda tmp: JSONLStore(tmp / "contract-jsonl"),
}
# Backends on a server get their location from a session fixture (one server per session).
SERVER_BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Store]] = {
    "postgres": lambda request: PostgresStore(request.getfixturevalue("postgres_url")),
}


@pytest.fixture(params=sorted([*BACKENDS, *SERVER_BACKENDS]))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param in SERVER_BACKENDS:
        backend = SERVER_BACKENDS[request.param](request)
    else:
        backend = BACKENDS[request.param](tmp_path)
    yield backend
    backend.close()
