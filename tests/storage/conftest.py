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
# The same stores searching vectors of model "m" (384 dimensions, as PostgreSQL's column has).
VECTOR_MODEL = ("m", 384)
VECTOR_BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path], Store]] = {
    "sqlite": lambda _, tmp: SQLiteStore(tmp / "contract.db", vector_model=VECTOR_MODEL),
    "jsonl": lambda _, tmp: JSONLStore(tmp / "contract-jsonl", vector_model=VECTOR_MODEL),
    "postgres": lambda request, _: PostgresStore(
        request.getfixturevalue("postgres_url"), vector_model=VECTOR_MODEL
    ),
}


@pytest.fixture(params=sorted([*BACKENDS, *SERVER_BACKENDS]))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param in SERVER_BACKENDS:
        backend = SERVER_BACKENDS[request.param](request)
    else:
        backend = BACKENDS[request.param](tmp_path)
    yield backend
    backend.close()


@pytest.fixture(params=sorted(VECTOR_BACKENDS))
def vector_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backend = VECTOR_BACKENDS[request.param](request, tmp_path)
    yield backend
    backend.close()
