"""File locks for the stores that live in files (SQLite, JSONL).

`portalocker` gives one API over `flock` (POSIX) and `LockFileEx` (Windows), shared and
exclusive. It is imported when a lock is first taken, not with the package: `import engram`
and a SQLite store work even where the platform's locking module cannot be imported, and only
the features that need a lock (the JSONL backend, one maintenance pipeline at a time) say so.
Locks are tied to an open file, so the OS drops them when a process dies: a crash never leaves
a store locked.
"""

from __future__ import annotations

import errno
import functools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engram.errors import BusyError, StoreError


@contextmanager
def file_lock(path: Path, what: str, wait: bool = False) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing); a StoreError naming `what` when
    someone else holds it, unless told to `wait` for it."""
    fd = open_lock_file(path)
    try:
        if not lock(fd, exclusive=True, wait=wait):
            raise BusyError(f"{what} is already running on this store (lock {path})")
        try:
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)


@contextmanager
def thread_lock(held: threading.Lock, what: str, wait: bool = False) -> Iterator[None]:
    """`file_lock` for a store that lives in this process only (an in-memory database)."""
    if not held.acquire(blocking=wait):
        raise BusyError(f"{what} is already running on this store")
    try:
        yield
    finally:
        held.release()


def lock(fd: int, exclusive: bool, wait: bool = True) -> bool:
    """Take a shared or exclusive lock on an open file; False if `wait` is off and another
    process holds a conflicting one."""
    locker = _portalocker()
    flags = locker.LockFlags.EXCLUSIVE if exclusive else locker.LockFlags.SHARED
    if not wait:
        flags |= locker.LockFlags.NON_BLOCKING
    try:
        locker.lock(fd, flags)
    except locker.exceptions.AlreadyLocked:
        return False
    return True


def unlock(fd: int) -> None:
    _portalocker().unlock(fd)


def open_lock_file(path: Path) -> int:
    """The lock file's descriptor (created if missing). Every writer needs it, so a folder the
    user cannot write is reported here, as what it is."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise StoreError(
                f"the store at {path.parent} is read-only for this user (cannot open its lock "
                f"file {path.name}: {exc.strerror}); nothing was written: check the permissions "
                "of that folder and its files"
            ) from exc
        raise StoreError(f"cannot open lock file {path}: {exc.strerror}") from exc


@functools.cache
def locking_available() -> bool:
    try:
        _portalocker()
    except StoreError:
        return False
    return True


def _portalocker() -> Any:
    try:
        import portalocker
    except ImportError as exc:  # the platform's locking module itself is missing
        raise StoreError(f"file locking is not available here ({exc}): use a SQLite store") from exc
    return portalocker
