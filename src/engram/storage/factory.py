"""Turn a store location (path or URL) into a backend. The one place that names backends."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from engram.config import Settings
from engram.errors import ConfigError
from engram.storage.protocol import Store
from engram.storage.sqlite import SQLiteStore


def open_store(location: str, settings: Settings) -> Store:
    path = sqlite_path(location)
    return SQLiteStore(
        path,
        busy_timeout=settings.sqlite_busy_timeout,
        field_weights=(
            settings.fts_weight_content,
            settings.fts_weight_tags,
            settings.fts_weight_entities,
        ),
    )


def sqlite_path(location: str) -> Path:
    """`sqlite:///abs/path.db`, `sqlite:///~/x.db` or a plain path."""
    if "://" not in location:
        return Path(location).expanduser()
    url = urlparse(location)
    if url.scheme != "sqlite":
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: unsupported store URL scheme {url.scheme!r} "
            "(supported: sqlite:///path/to/engram.db or a plain file path)"
        )
    if not url.path:
        raise ConfigError(f"ENGRAM_STORAGE_PATH: {location!r} has no file path")
    if url.netloc == "~":
        return Path("~" + url.path).expanduser()
    return Path("/" + url.path.lstrip("/"))
