"""A store-wide lock held in a file: for the stores that live in files (SQLite, JSONL)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram.errors import StoreError


@contextmanager
def file_lock(path: Path, what: str) -> Iterator[None]:
    """Hold an exclusive flock on `path` (created if missing); a StoreError naming `what` when
    someone else holds it. The kernel releases it when the holder dies, so a killed process
    never leaves the lock behind."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot open lock file {path}: {exc.strerror}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"{what} is already running on this store (lock {path})") from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
