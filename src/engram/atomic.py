"""Writing a file so that a crash leaves the old one or the new one, never half of either:
a temporary file next to the target, flushed to disk, renamed over it (atomic on POSIX and
Windows), then the directory flushed so the rename itself survives a power cut.

Every file Engram replaces goes through `replacing`: exports, backups, snapshots, the JSONL
files and their meta, vault notes, the vector index's cache and the HTTP token."""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

# The longest file name most filesystems take, in bytes (ext4, APFS, NTFS in UTF-16 units). The
# temporary file's name carries the target's, to say what it was for; a note whose own name is
# near the limit got a temporary name past it, and could not be rewritten (audit).
NAME_MAX = 255

# Owner read/write only: the store's files, its token, and files that hold its memories.
PRIVATE_FILE_MODE = 0o600


def private_if_new(path: Path) -> int | None:
    """The mode to write `path` with: owner-only if it is new, else None (`replacing` keeps
    the mode of the file it replaces: one the user opened up stays open)."""
    return None if path.exists() else PRIVATE_FILE_MODE


@contextlib.contextmanager
def replacing(
    path: Path,
    *,
    mode: int | None = None,
    prefix: str = ".",
    durable: bool = True,
    place: Callable[[Path, Path], None] = os.replace,
) -> Iterator[BinaryIO]:
    """A new, empty temporary file beside `path`, open for writing (its `name` is its path,
    for writers that want a path); once the block ends it is flushed to disk and `place`d
    over `path` (a rename by default). If anything fails the temporary file is removed and
    the error, an OSError for the caller to explain, goes on.

    `mode`: the new file's permissions; by default those of the file it replaces (an export
    written over a private file must stay private), or the umask's for a new one. `prefix`
    starts the temporary name (hidden by default; the vault's scanner knows its own).
    `durable=False` skips the fsyncs, for caches that are checked when read."""
    directory = path.parent if str(path.parent) else Path(".")
    tmp = directory / f"{prefix}{path.name}.{uuid.uuid4().hex}.tmp"
    if len(os.fsencode(tmp.name)) > NAME_MAX:  # a note titled at the limit: nameless, then
        tmp = directory / f"{prefix}{uuid.uuid4().hex}.tmp"
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(path.stat().st_mode)
    created = 0o666 if mode is None else mode
    try:
        with open(tmp, "xb", opener=lambda p, flags: os.open(p, flags, created)) as handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            with contextlib.suppress(OSError):  # the umask may have narrowed it
                os.chmod(tmp, mode)
        place(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if durable:
        fsync_dir(directory)


def write_atomically(
    path: Path,
    data: bytes | Iterable[bytes],
    *,
    mode: int | None = None,
    durable: bool = True,
    place: Callable[[Path, Path], None] = os.replace,
) -> None:
    """Replace `path` with `data` (bytes, or chunks of bytes written in order); the options
    are `replacing`'s."""
    with replacing(path, mode=mode, durable=durable, place=place) as f:
        for chunk in [data] if isinstance(data, bytes) else data:
            f.write(chunk)


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


# A temporary file older than this is a killed process's (as large as the file it was to
# replace, and nothing removed it: audit); a younger one may be another process's write.
STALE_TEMPORARY = 3_600.0


def temporaries_beside(path: Path) -> list[Path]:
    """The temporary files `replacing` made beside `path` (the ones it names after it)."""
    return list(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))


def remove_stale_temporaries(path: Path, now: float) -> None:
    """Remove the temporary files `replacing` made beside `path` that a killed process left;
    `now` is the wall clock's time (file times are compared with it)."""
    _remove_stale(temporaries_beside(path), now)


def remove_stale_temporaries_in(directory: Path, prefix: str, now: float) -> None:
    """The same for every file `replacing(…, prefix=prefix)` made in `directory`: a writer of
    many files (the vault's notes) sweeps a folder once instead of looking beside each."""
    _remove_stale(directory.glob(f"{glob.escape(prefix)}*.tmp"), now)


def _remove_stale(leftovers: Iterable[Path], now: float) -> None:
    for leftover in leftovers:
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > STALE_TEMPORARY:
                leftover.unlink()
