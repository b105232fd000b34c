"""Turn a store location (path or URL) into a backend. The one place that names backends."""

from __future__ import annotations

import glob
import re
from pathlib import Path
from typing import TypedDict
from urllib.parse import ParseResult, unquote, urlparse

from engram.about import DISTRIBUTION
from engram.config import Settings
from engram.errors import ConfigError
from engram.storage.columns import FieldWeights
from engram.storage.jsonl import JSONLStore
from engram.storage.jsonl.layout import INDEX_SNAPSHOT, MEMORIES, META
from engram.storage.protocol import Store
from engram.storage.sqlite import SQLiteStore
from engram.storage.sqlite.vectors import INDEX_SUFFIXES


def open_store(
    location: str, settings: Settings, vector_model: tuple[str, int] | None = None
) -> Store:
    """`vector_model`: (model id, dimensions) of the embedder in use, or None."""
    location = _scheme_in_lower_case(location)
    if is_postgres_url(location):
        return open_postgres(location, settings, vector_model)
    if is_jsonl_url(location):
        return JSONLStore(jsonl_path(location), **_common(settings, vector_model))
    path = sqlite_path(location)
    if path.name == INDEX_SNAPSHOT and (path.parent / MEMORIES).exists():
        # Written to as a store, its memories then showed in the JSONL store (a helper's
        # probe): it is a cache of that store's files, rebuilt from them.
        raise ConfigError(
            f"{location} is the index a JSONL store keeps of its files, not a store: open the "
            f"store itself, jsonl://{path.parent.absolute()}"
        )
    if not is_sqlite_file(path):
        # Opened, it was called damaged ("restore it from a backup") although it may be that
        # very backup, an export given as the store.
        raise ConfigError(
            f"{location} is not a SQLite store; nothing was changed (an export? read one back "
            "with `engram import jsonl FILE`; a JSONL store is a directory: jsonl:///path)"
        )
    return SQLiteStore(
        path, busy_timeout=settings.sqlite_busy_timeout, **_common(settings, vector_model)
    )


def is_sqlite_file(path: Path) -> bool:
    """Whether `path` may be opened as a SQLite store: missing or empty (a store not yet
    written), or a file starting with SQLite's header."""
    try:
        if not path.expanduser().is_file():
            return True  # missing (made on open), a folder, a pipe: opening it says what it is
        with path.expanduser().open("rb") as f:
            head = f.read(16)
    except OSError:
        return True  # unreadable: opening it says what is wrong
    return head in (b"", b"SQLite format 3\x00")


class _Common(TypedDict):
    field_weights: FieldWeights
    vector_model: tuple[str, int] | None


def _common(settings: Settings, vector_model: tuple[str, int] | None) -> _Common:
    """What every backend is opened with, whatever else it takes: the full-text weights of
    content, tags, entities and cues (in the index's column order) and the embedder in use."""
    weights = (
        settings.fts_weight_content,
        settings.fts_weight_tags,
        settings.fts_weight_entities,
        settings.fts_weight_cues,
    )
    return _Common(field_weights=weights, vector_model=vector_model)


_SCHEME = re.compile(r"^(postgresql|postgres|jsonl|sqlite):", re.IGNORECASE)


def _scheme_in_lower_case(location: str) -> str:
    """A URL's scheme is case-insensitive: `JSONL:///x` was refused as an unsupported scheme
    'jsonl', in a message offering `jsonl:///path` (a probe)."""
    found = _SCHEME.match(location)
    return location if found is None else found.group(1).lower() + location[found.end(1) :]


def is_postgres_url(location: str) -> bool:
    return _scheme_in_lower_case(location).startswith(("postgresql://", "postgres://"))


def open_postgres(
    url: str, settings: Settings, vector_model: tuple[str, int] | None = None
) -> Store:
    """`postgresql://user:password@host:port/db` (or `postgres://`, or a unix socket directory
    as `?host=/path`). The driver is an optional extra, imported only when asked for."""
    try:
        from engram.storage.postgres import PostgresStore
    except ImportError as exc:
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: a PostgreSQL store needs the postgres extra "
            f"(pip install '{DISTRIBUTION}[postgres]'): {exc}"
        ) from None
    return PostgresStore(
        url, pool_size=settings.postgres_pool_size, **_common(settings, vector_model)
    )


def store_exists(location: str) -> bool:
    """Whether a store is at `location` already: its SQLite file, a JSONL folder holding its
    files, or a database holding its tables (asked without writing: a mistyped database name,
    or the server's default one, got Engram's schema for a `search`)."""
    if is_postgres_url(location):
        from engram.storage.postgres.migrations import holds_a_store  # psycopg: on demand

        return holds_a_store(location)
    if is_jsonl_url(location):
        folder = jsonl_path(location)
        if not folder.is_dir():  # a file there: the store says what it is
            return folder.exists()
        return (folder / MEMORIES).is_file() or (folder / META).is_file()
    path = sqlite_path(location)
    try:
        return path.exists()
    except OSError as exc:  # a name too long: Python 3.11 raises it from exists()
        shown = str(path) if len(str(path)) <= 80 else str(path)[:80] + "…"
        raise ConfigError(f"ENGRAM_STORAGE_PATH: {shown} cannot be used ({exc.strerror})") from None


def is_jsonl_url(location: str) -> bool:
    return _scheme_in_lower_case(location).startswith("jsonl:")


def _plain_url(location: str) -> ParseResult:
    """A sqlite: or jsonl: URL names a file or folder, nothing more: options after `?` or `#`
    were dropped without a word (`?mode=ro` opened the store for writing). Its path is
    percent-decoded, as a URL's is (`%20` made a file named "q%20sp.db")."""
    url = urlparse(location)
    if url.query or url.fragment:
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: {location!r}: a {url.scheme}: URL takes no options "
            "(after '?' or '#'): give the path alone"
        )
    return url._replace(path=_without_nul(unquote(url.path), location))


def _without_nul(path: str, location: str) -> str:
    """A NUL (`%00` in a URL) made a traceback from the first system call."""
    if "\x00" in path:
        raise ConfigError(f"ENGRAM_STORAGE_PATH: {location!r} holds a NUL character")
    return path


def jsonl_path(location: str) -> Path:
    """`jsonl:///abs/dir`, `jsonl://~/dir` or `jsonl:relative/dir`: a directory."""
    url = _plain_url(location)
    if url.netloc in ("~", ".", ".."):
        path = url.netloc + url.path
    elif url.netloc:
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: {location!r}: a JSONL store is a local directory "
            "(jsonl:///absolute/dir or jsonl://~/dir)"
        )
    else:
        path = url.path
    if not path.strip("/"):
        raise ConfigError(f"ENGRAM_STORAGE_PATH: {location!r} has no directory path")
    return Path(path).expanduser()


def sqlite_files(database: Path) -> list[Path]:
    """Every file of the SQLite store `database`: itself, its journals, its vector index and
    its lock files (what removing a store removes, and what nothing else may be written over)."""
    locks = sorted(database.parent.glob(glob.escape(database.name) + ".*.lock"))
    suffixes = ("", "-wal", "-shm", "-journal", *INDEX_SUFFIXES)
    return [*(Path(f"{database}{suffix}") for suffix in suffixes), *locks]


def sqlite_path(location: str) -> Path:
    """`sqlite:///abs/path.db`, `sqlite://~/x.db`, `sqlite:relative.db` or a plain path."""
    if location.startswith("sqlite:") and "://" not in location:
        location = location.removeprefix("sqlite:")  # as `jsonl:relative/dir` (a file was
        if not location.strip():  # named "sqlite:relative.db", and "sqlite:" alone "sqlite:")
            raise ConfigError("ENGRAM_STORAGE_PATH: 'sqlite:' has no file path")
    if "://" not in location:
        return Path(_without_nul(location, location)).expanduser()
    scheme = urlparse(location).scheme
    if scheme != "sqlite":
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: unsupported store URL scheme {scheme!r} "
            "(supported: sqlite:///path/to/engram.db, a plain file path, "
            "jsonl:///path/to/dir, postgresql://user@host/db)"
        )
    url = _plain_url(location)
    if not url.path:
        # sqlite://relative.db: the name was read as a host, and "has no file path" alone
        # did not say where the path goes.
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: {location!r} has no file path (sqlite:///absolute/path.db, "
            "sqlite://~/path.db, sqlite:relative.db or a plain path)"
        )
    if url.netloc in ("~", ".", ".."):
        return Path(url.netloc + url.path).expanduser()
    if url.netloc:  # sqlite://tmp/x.db was /x.db: the "tmp" dropped without a word
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: {location!r}: a SQLite store is a local file "
            "(sqlite:///absolute/path.db, sqlite://~/path.db or a plain path)"
        )
    return Path("/" + url.path.lstrip("/"))


def same_store(a: str, b: str) -> bool:
    """Whether two locations name one store: the same file or folder however it is spelled
    (`x/../x/a.db`, a symbolic link, `~`), or the same server URL."""
    if is_postgres_url(a) or is_postgres_url(b):
        return a == b
    if is_jsonl_url(a) != is_jsonl_url(b):
        return False
    first, second = (jsonl_path(x) if is_jsonl_url(x) else sqlite_path(x) for x in (a, b))
    try:
        return first.samefile(second)
    except OSError:  # one is not there yet
        return first.resolve() == second.resolve()
