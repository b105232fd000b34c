"""Append-only line files shared by several processes: locking, catching up, atomic rewrites.

* `DirLock` is an OS file lock (`engram.storage.locks`) on `<dir>/.lock`: exclusive around
  every write, compaction and repair, shared while reading lines other processes appended. The
  OS drops it when a process dies, so a crash never leaves the store locked.
* `LineFile` remembers which inode it read, up to which byte, and a digest of those bytes.
  `read_new` returns the lines appended since (by anyone), or tells the caller to reload
  everything when the file was replaced (another process compacted it) or shrank. `position`
  and `resume` carry that over to another process (`snapshot`), which checks the digest first.
* Appends are one `write` of whole lines, then `fsync`, before the caller acknowledges; a
  failed append is truncated away, so a line is either whole or absent. A write of several
  lines (a merge: the originals archived and the merged memory made active) is also whole or
  absent when the process is killed in it: it first leaves where it starts in a batch record
  (fsynced), and a reader that finds the file ended inside it sets the whole write aside
  (`unfinished_batch`). The kernel stops a write to a file part-way for a kill, page by page,
  and without this the originals stayed archived beside no merged memory.
* `rewrite` replaces a file atomically: temporary file, fsync, rename, fsync of the directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from engram.atomic import (
    PRIVATE_FILE_MODE,
    fsync_dir,
    private_if_new,
    remove_stale_temporaries,
    replacing,
    write_atomically,
)
from engram.clock import system_clock
from engram.errors import StoreError
from engram.storage.locks import lock, open_lock_file, unlock

log = logging.getLogger(__name__)

_NOT_BLOCKING = getattr(os, "O_NONBLOCK", 0)  # POSIX only; Windows has no named pipes here

_READ_BLOCK = 1 << 22  # bytes hashed at a time when checking a file against a position


class DirLock:
    """A shared or exclusive lock on a lock file; re-entrant within one holder (callers
    serialise threads)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd = open_lock_file(path)
        self._pid = os.getpid()
        self._mode: str | None = None  # "shared" or "exclusive" while held
        self._closed = False

    @contextmanager
    def hold(self, exclusive: bool) -> Iterator[None]:
        if self._pid != os.getpid() and self._fd >= 0:
            # A forked child shares the parent's open file, and with it the parent's locks:
            # neither excluded the other, and concurrent touches were lost (audit).
            self._pid, self._mode = os.getpid(), None
            self._reopen()
        if self._mode == "exclusive" or (self._mode == "shared" and not exclusive):
            yield
            return
        if self._mode == "shared":
            raise RuntimeError("cannot upgrade a shared lock to an exclusive one")
        if self._fd < 0 and not self._closed:  # the folder was gone last time: is it back?
            self._reopen()
        lock(self._fd, exclusive)
        while not _still_named(self._fd, self._path):
            # The lock file was deleted (`git clean -X`, or by hand as "stale") or replaced
            # after we opened it: a lock on it no longer excludes a process that opens the
            # path anew, and two clients' concurrent touches were lost (audit).
            unlock(self._fd)
            self._reopen()
            lock(self._fd, exclusive)
        self._mode = "exclusive" if exclusive else "shared"
        try:
            yield
        finally:
            self._mode = None
            unlock(self._fd)

    def _reopen(self) -> None:
        """The lock file opened anew. Closed first, and forgotten before the open, which fails
        while the store's folder is gone: the closed number was kept, and every later request
        locked a descriptor that was no longer this file's ("Bad file descriptor", audit)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._fd = open_lock_file(self._path)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _still_named(fd: int, path: Path) -> bool:
    """Whether `path` is still the file open as `fd`."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


@dataclass
class Chunk:
    """What `read_new` found: complete lines (with 1-based line numbers) since the last read."""

    reset: bool
    lines: list[tuple[int, bytes]] = field(default_factory=list)
    unfinished: bool = False  # the file ends in a write of several lines that did not finish


_SAMPLE = 4096  # bytes before the read offset compared on every read (see LineFile)


def _prefix_digest(fd: int, length: int) -> Any:
    """The digest of a file's first `length` bytes, as `consumed` holds it for what was read."""
    consumed = _digest()
    for start in range(0, length, _READ_BLOCK):
        consumed.update(_read_all(fd, start, min(_READ_BLOCK, length - start)))
    return consumed


def _digest() -> Any:
    return hashlib.blake2b(digest_size=16)


_HEAD_BYTES = 128


def head_path(path: Path) -> Path:
    """Where the last Engram write of a file says what the file then was (`LineFile`)."""
    return path.with_name(f".{path.name}.head")


def _head_of(st: os.stat_result, consumed: Any) -> bytes:
    # One width, so that a write over the last one needs no truncation (it cost a tenth of a
    # save when the file was truncated first).
    head = f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {consumed.hexdigest()}"
    return head.ljust(_HEAD_BYTES).encode()


def _write_head(path: Path, st: os.stat_result, consumed: Any) -> None:
    """Best effort and not fsynced: a head that is missing, stale or torn vouches for
    nothing, and the reader checks the file itself."""
    with contextlib.suppress(OSError):
        fd = os.open(head_path(path), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
        try:
            os.pwrite(fd, _head_of(st, consumed), 0)
        finally:
            os.close(fd)


def _read_head(path: Path) -> bytes:
    try:
        return head_path(path).read_bytes()
    except OSError:
        return b""


_BATCH_BYTES = 96
_BEFORE_BATCH = 64  # bytes before a batch whose digest its record holds


def batch_path(path: Path) -> Path:
    """Where a write of several lines says where it starts until it is done (`LineFile`)."""
    return path.with_name(f".{path.name}.batch")


def _batch_record(ino: int, start: int, end: int, before: bytes) -> bytes:
    digest = hashlib.blake2b(before, digest_size=8).hexdigest()
    return f"{ino} {start} {end} {digest}".ljust(_BATCH_BYTES).encode()


def unfinished_batch(path: Path, fd: int, st: os.stat_result) -> int | None:
    """Where the write of several lines that this file (open as `fd`) ends inside begins: its
    record names this file (inode, and the digest of the bytes before it) and the file stops
    after its start and before its end. None when the file holds no such write."""
    try:
        record = os.open(batch_path(path), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fields = os.read(record, _BATCH_BYTES).split()
        ino, start, end = (int(f) for f in fields[:3])
        digest = fields[3].decode()
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None  # a blank record (the last batch finished) or a torn one
    finally:
        os.close(record)
    if ino != st.st_ino or not start < st.st_size < end:
        return None
    before = _read_all(fd, max(0, start - _BEFORE_BATCH), min(start, _BEFORE_BATCH))
    return start if hashlib.blake2b(before, digest_size=8).hexdigest() == digest else None


def clear_batch(path: Path) -> None:
    """Blank the batch record: the write it names is done. Best effort and not fsynced: a
    record left naming a finished write names a file that does not stop inside it."""
    with contextlib.suppress(OSError):
        fd = os.open(batch_path(path), os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.pwrite(fd, b" " * _BATCH_BYTES, 0)
        finally:
            os.close(fd)


def _begin_batch(path: Path, fd: int, ino: int, start: int, end: int) -> None:
    """Record, durably, that the bytes from `start` to `end` of the file are one write."""
    before = _read_all(fd, max(0, start - _BEFORE_BATCH), min(start, _BEFORE_BATCH))
    record = batch_path(path)
    created = not record.exists()
    bfd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    try:
        os.pwrite(bfd, _batch_record(ino, start, end, before), 0)
        os.fsync(bfd)
    finally:
        os.close(bfd)
    if created:
        fsync_dir(path.parent)


@dataclass
class LineFile:
    path: Path
    ino: int | None = None
    offset: int = 0  # bytes consumed
    line_no: int = 0  # lines consumed (including empty ones), for reporting
    clean_end: bool = True  # the consumed bytes end with a newline (or nothing was consumed)
    consumed: Any = field(default_factory=_digest)  # digest of the bytes consumed
    # The last bytes consumed, and the file's mtime when last read: a compaction writes a new
    # file, and the file system may hand it the old inode number again. Same inode, a size past
    # our offset and a newline there do not prove that it is the file we read: these do.
    sample: bytes = b""
    mtime_ns: int | None = None

    @property
    def name(self) -> str:
        return self.path.name

    def forget(self) -> None:
        self.ino, self.offset, self.line_no, self.clean_end = None, 0, 0, True
        self.consumed = _digest()
        self.sample, self.mtime_ns = b"", None

    def position(self) -> dict[str, Any]:
        """How far this file was read, and a digest of what was read: `resume` takes it."""
        return {
            "offset": self.offset,
            "line_no": self.line_no,
            "clean_end": self.clean_end,
            "digest": self.consumed.hexdigest(),
        }

    def resume(self, position: dict[str, Any]) -> bool:
        """Carry on from a `position` taken by another process, if the file still starts with
        exactly the bytes read then (checked by their digest: an edit anywhere in them, or a
        replacement, means reading it all again). False, and nothing changed, otherwise."""
        try:
            offset = int(position["offset"])
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | _NOT_BLOCKING)
        except (KeyError, TypeError, ValueError, OSError):
            return False
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size < offset:
                return False
            consumed = _prefix_digest(fd, offset)
            sample = _read_all(fd, max(0, offset - _SAMPLE), min(offset, _SAMPLE))
        finally:
            os.close(fd)
        if consumed.hexdigest() != position.get("digest"):
            return False
        self.ino, self.offset, self.consumed = st.st_ino, offset, consumed
        self.sample, self.mtime_ns = sample, st.st_mtime_ns
        self.line_no = int(position.get("line_no", 0))
        self.clean_end = bool(position.get("clean_end", True))
        return True

    def unchanged(self) -> bool:
        """Cheap test (one stat): nothing was appended or replaced since the last read."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return self.ino is None
        return (
            st.st_ino == self.ino and st.st_size == self.offset and st.st_mtime_ns == self.mtime_ns
        )

    def read_new(self) -> Chunk:
        """Lines appended since the last read. Call with the directory lock held (shared or
        exclusive): then no writer is half-way through a line, and a last line without its
        newline is a finished line or a torn one, never one still being written."""
        try:
            # Not blocking: a named pipe in the file's place waited for a writer for ever
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | _NOT_BLOCKING)
        except FileNotFoundError:
            reset = self.ino is not None
            self.forget()
            return Chunk(reset=reset)
        except OSError as exc:  # "[Errno 13] Permission denied", naming no file
            raise StoreError(f"cannot read {self.path}: {exc.strerror}") from exc
        new: bytes | None = None  # what was appended since, once read
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # "[Errno 21] Is a directory", naming no file
                kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
                raise StoreError(f"cannot read {self.path}: it is {kind}")
            # A write of several lines killed part-way is read up to where it began: none of
            # it counts until the store sets it aside (`repair`).
            moved = st.st_ino != self.ino or st.st_size != self.offset
            cut = unfinished_batch(self.path, fd, st) if moved else None
            size = st.st_size if cut is None else cut
            reset = st.st_ino != self.ino or size < self.offset
            if not reset and self.offset:
                # Another file under the same inode number (a compaction), or a hand edit that
                # rewrote it in place: the bytes before our offset are not the ones we read.
                before = _read_all(fd, self.offset - len(self.sample), len(self.sample))
                reset = before != self.sample
            if not reset and self.offset and st.st_mtime_ns != self.mtime_ns:
                # Written since by someone else: an editor that saves in place (same inode) may
                # have changed a line before the sample, and added lines too, or another client
                # appended after such an edit. Running clients kept the old text, and their
                # next write undid the edit. Only the digest of all we read tells: the one the
                # last Engram write left (it had read the file whole, checked the same way),
                # or, when that does not vouch for this very file, the file's own.
                new = _read_all(fd, self.offset, size - self.offset)
                if cut is not None or not self._vouched(st, new):
                    reset = _prefix_digest(fd, self.offset).hexdigest() != self.consumed.hexdigest()
            if reset:
                self.forget()
                self.ino = st.st_ino
            self.mtime_ns = st.st_mtime_ns
            if size == self.offset:
                return Chunk(reset=reset, unfinished=cut is not None)
            if new is None or reset:
                new = _read_all(fd, self.offset, size - self.offset)
            data = new
            if not self.clean_end and not data.startswith(b"\n"):
                # The last line, read without its newline, went on: a line was glued onto it
                # (a hand edit, `>>` after an editor left no final newline). Skipped as the
                # mere end of that line, it was lost, and a compaction then dropped it
                # unquarantined (audit). Read whole again: the glued line is then a bad one.
                self.forget()
                self.ino, self.mtime_ns, reset = st.st_ino, st.st_mtime_ns, True
                data = _read_all(fd, 0, size)
        finally:
            os.close(fd)
        if self.offset == 0 and data.startswith((b"\xff\xfe", b"\xfe\xff")):
            # Saved as "Unicode" by an editor: every line would be quarantined as bad JSON.
            self.forget()
            raise StoreError(
                f"{self.path} is UTF-16 text; Engram's files are UTF-8: convert it back (e.g. "
                f"`iconv -f UTF-16 -t UTF-8`) and open the store again; nothing was changed"
            )
        pieces = data.split(b"\n")
        tail = pieces.pop()  # after the last newline: empty, or a last line lacking its newline
        lines: list[tuple[int, bytes]] = []
        number = self.line_no
        for i, piece in enumerate(pieces):
            if i == 0 and not self.clean_end:
                continue  # the newline that finishes the line we consumed without one
            number += 1
            if piece.strip():
                lines.append((number, piece))
        if tail:
            number += 1
            lines.append((number, tail))
        self.line_no = number
        self.offset += len(data)
        self.consumed.update(data)
        self.sample = (self.sample + data)[-_SAMPLE:]
        self.clean_end = not tail
        return Chunk(reset=reset, lines=lines, unfinished=cut is not None)

    def _vouched(self, st: os.stat_result, new: bytes) -> bool:
        """The file is what we read and then `new`: the last Engram write says it left this
        very file (inode, size, mtime) with the digest of all we read and `new`."""
        whole = self.consumed.copy()
        whole.update(new)
        return _read_head(self.path) == _head_of(st, whole)

    def append(self, lines: Iterable[bytes]) -> int:
        """Append whole lines durably; returns how many. Call with the exclusive lock held,
        after `read_new` (so the file is the one read, up to its end)."""
        body = b"".join(line + b"\n" for line in lines)
        if not body:
            return 0
        count = body.count(b"\n")
        several = count > 1
        try:
            # A new file is private, as a SQLite store is: the memories' text (a probe found
            # a JSONL store readable by every user of the machine).
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
            fd = os.open(self.path, flags, PRIVATE_FILE_MODE)
        except OSError as exc:
            raise StoreError(f"cannot write {self.path}: {exc.strerror}") from exc
        try:
            st = os.fstat(fd)
            size = st.st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                body = b"\n" + body  # never glue a record onto a line left without its newline
            try:
                if several:
                    _begin_batch(self.path, fd, st.st_ino, size, size + len(body))
                _write_all(fd, body)
                os.fsync(fd)
                written = os.fstat(fd)
            except BaseException as exc:
                os.ftruncate(fd, size)  # all or nothing: no half line is left behind
                if isinstance(exc, OSError):
                    raise StoreError(f"cannot write {self.path}: {exc.strerror}") from exc
                raise
            finally:
                if several:
                    clear_batch(self.path)
        finally:
            os.close(fd)
        if self.ino is None:
            self.ino = st.st_ino
        if st.st_ino == self.ino and size == self.offset:
            self.offset = size + len(body)
            self.consumed.update(body)
            self.sample = (self.sample + body)[-_SAMPLE:]
            self.mtime_ns = written.st_mtime_ns
            self.line_no += count
            self.clean_end = True
            _write_head(self.path, written, self.consumed)
        return count

    def check_writable(self) -> None:
        """Fail as `append` and `rewrite` would on a file that may not be written (read-only):
        a change to several files checks them all first, so as not to be done part-way."""
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise StoreError(f"cannot write {self.path}: Permission denied")

    def rewrite(self, lines: Iterable[bytes]) -> int:
        """Atomically replace the file with these lines; returns how many were written. A
        read-only file is refused as an append refuses it (a compaction replaced it), and a
        file that is a link is replaced where it points (the link was replaced by a copy, and
        later writes went to the copy)."""
        self.check_writable()
        # A rewrite killed before its rename (a compaction) left its temporary file, as large
        # as the file, which nothing else removes.
        remove_stale_temporaries(self.path.resolve(), system_clock().timestamp())
        count = 0
        size = 0
        consumed = _digest()
        sample = b""
        try:
            with replacing(self.path.resolve()) as f:
                remaining = iter(lines)
                while chunk := list(islice(remaining, 4096)):
                    data = b"".join(line + b"\n" for line in chunk)
                    count += len(chunk)
                    size += f.write(data)
                    consumed.update(data)
                    sample = (sample + data)[-_SAMPLE:]
                f.flush()
                written = os.fstat(f.fileno())
        except OSError as exc:
            raise StoreError(f"cannot rewrite {self.path}: {exc.strerror}") from exc
        self.ino, self.offset, self.line_no, self.clean_end = written.st_ino, size, count, True
        self.consumed, self.sample, self.mtime_ns = consumed, sample, written.st_mtime_ns
        _write_head(self.path, written, consumed)
        return count

    def size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return 0


def writable(files: Iterable[LineFile]) -> None:
    """`check_writable` of each: a change that writes several files is then not done part-way
    for want of permission."""
    for file in files:
        file.check_writable()


def read_lines(path: Path) -> list[tuple[int, bytes]]:
    """Every line of a file with its 1-based number (the last may lack its newline)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    return read_lines_of(data)


def read_lines_of(data: bytes) -> list[tuple[int, bytes]]:
    """The lines of a file's bytes, as `read_lines` numbers them."""
    pieces = data.split(b"\n")
    if pieces and not pieces[-1]:
        pieces.pop()
    return [(i + 1, piece) for i, piece in enumerate(pieces)]


def replace_small(path: Path, data: bytes) -> None:
    """Atomically replace a small file (meta.json)."""
    try:
        write_atomically(path, data, mode=private_if_new(path))
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror}") from exc


def _read_all(fd: int, offset: int, size: int) -> bytes:
    parts: list[bytes] = []
    while size > 0:
        part = os.pread(fd, size, offset)
        if not part:
            break
        parts.append(part)
        offset += len(part)
        size -= len(part)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> int:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    return len(data)
