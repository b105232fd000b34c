"""Writing a file so that a crash leaves the old one or the new one, never half of either:
a temporary file next to the target, flushed to disk, renamed over it (atomic on POSIX and
Windows), then the directory flushed so the rename itself survives a power cut."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from collections.abc import Iterable
from pathlib import Path


def write_atomically(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace `path` with `data` (bytes, or chunks of bytes written in order). The temporary
    file is removed if anything fails; the OSError is the caller's to explain."""
    directory = path.parent if str(path.parent) else Path(".")
    tmp = directory / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        with tmp.open("wb") as f:
            for chunk in [data] if isinstance(data, bytes) else data:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            # The file it replaces keeps its permissions: an export written over a private
            # file (chmod 600) was readable by everyone after it.
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(directory)


def fsync_dir(directory: Path) -> None:
    """Make a rename durable. Windows cannot open a directory (nor needs this); some
    filesystems cannot fsync one. Any other failure is raised."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except (PermissionError, IsADirectoryError):
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # some filesystems cannot fsync a directory
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)
