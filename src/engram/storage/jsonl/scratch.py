"""The private directory each process keeps a JSONL store's index in, and the sweep of those
that a dead process left behind.

A process removes its directory when it closes the store or exits, but not when it is killed
(SIGKILL, a crash, or the MCP server's immediate exit on SIGTERM): the directory then holds a
copy of the whole index, and every such stop left one more in the temporary folder. So each
directory holds a lock file that its process keeps locked while it lives (the OS drops the lock
when the process dies), and opening a store removes every directory whose lock it can take.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import weakref
from pathlib import Path

from engram.clock import system_clock
from engram.storage.locks import lock, open_lock_file

log = logging.getLogger(__name__)

PREFIX = "engram-jsonl-index-"
OWNER = "owner.lock"
# A directory younger than this is left alone even when its lock is free: its process may be
# between creating it and locking it.
ORPHAN_AGE = 60.0


class IndexDir:
    """A fresh directory in the temporary folder, owned by this process until `cleanup`."""

    def __init__(self) -> None:
        sweep_orphans()
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX))
        fd = open_lock_file(self.path / OWNER)
        lock(fd, exclusive=True, wait=False)  # a new directory: nobody else can hold it
        # Removed at interpreter exit too, like a TemporaryDirectory; by this process only (a
        # forked child that exited removed its parent's index from under it).
        self._finalizer = weakref.finalize(self, _remove, self.path, fd, os.getpid())

    def cleanup(self) -> None:
        self._finalizer()


def sweep_orphans(root: Path | None = None, min_age: float = ORPHAN_AGE) -> list[Path]:
    """Remove the index directories of processes that are gone; the removed paths.

    Directories without an owner lock (left by an Engram before this sweep existed, or still
    being created) are never touched: nothing says whether their process lives."""
    folder = Path(tempfile.gettempdir()) if root is None else root
    removed = []
    now = system_clock().timestamp()  # compared with the file system's times
    for path in folder.glob(PREFIX + "*"):
        try:
            if now - path.stat().st_mtime < min_age:
                continue
            fd = os.open(path / OWNER, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            orphaned = lock(fd, exclusive=True, wait=False)
        finally:
            os.close(fd)
        if orphaned:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    if removed:
        log.info("removed %d index folder(s) left by stopped processes", len(removed))
    return removed


def _remove(path: Path, fd: int, owner: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)
