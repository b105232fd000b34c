"""A store-wide lock held in a file: for the stores that live in files (SQLite, JSONL)."""

from __future__ import annotations

import errno
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
    fd = open_lock_file(path)
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


def open_lock_file(path: Path) -> int:
    """The lock file's descriptor (created if missing). Every writer needs it, so a folder the
    user cannot write is reported here, as what it is."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise StoreError(
                f"the store at {path.parent} is read-only for this user (cannot open its lock "
                f"file {path.name}: {exc.strerror}); nothing was written: check the permissions "
                "of that folder and its files"
            ) from exc
        raise StoreError(f"cannot open lock file {path}: {exc.strerror}") from exc
