"""Hermetic tests: every test gets its own data dir, config dir, store and working directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.postgres import TestPostgres
from tests.postgres import start as start_postgres
from tests.support import START

from engram import Engram, FixedClock


@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache directory for the whole run: the embedding model's integer graph is made once
    (not in the user's ~/.cache), and every server process the tests start loads it from there."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _shared_cache: Path) -> None:
    for key in [k for k in os.environ if k.startswith(("ENGRAM_", "CORTEXGRAPH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.delenv("LTM_VAULT_PATH", raising=False)
    # The console's width is the test's to set: a COLUMNS exported by the shell (or by a
    # parallel runner's worker) wrapped the tables the CLI tests read.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(_shared_cache))
    monkeypatch.setenv("ENGRAM_STORAGE_PATH", str(tmp_path / "engram.db"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[TestPostgres]:
    """One real PostgreSQL + pgvector per session (see tests/postgres.py)."""
    server = start_postgres()
    yield server
    server.close()


@pytest.fixture
def postgres_url(postgres_server: TestPostgres) -> str:
    """The session's database, emptied for this test."""
    return postgres_server.fresh()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def mem(db_path: Path, clock: FixedClock) -> Iterator[Engram]:
    with Engram.open(str(db_path), clock=clock) as engram:
        yield engram
