"""Unreadable lines (a crash mid-write, a hand edit) are moved aside, never fatal.

Each bad line is copied byte for byte to `quarantine/<file>.<timestamp>.bad` (fsynced, so the
evidence survives a crash) before its file is rewritten without it; the log names its line
number and why it could not be read.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from engram.atomic import PRIVATE_FILE_MODE, fsync_dir
from engram.clock import system_clock
from engram.errors import StoreError
from engram.storage.jsonl.files import LineFile, clear_batch, read_lines_of, unfinished_batch
from engram.storage.jsonl.layout import MEMORIES, RELATIONS, VECTORS
from engram.storage.jsonl.records import BadLine, decode_memory, decode_relation
from engram.storage.jsonl.vectors import decode_vector

DECODERS: dict[str, Callable[[bytes], object]] = {
    MEMORIES: decode_memory,
    RELATIONS: decode_relation,
    VECTORS: decode_vector,
}


def quarantine_bad_lines(folder: Path, files: Sequence[LineFile], names: Collection[str]) -> None:
    """Rewrite each of `files` named in `names` without the lines that do not decode, and
    without a write of several lines that did not finish, after copying those to the store's
    quarantine folder. Runs under the exclusive lock."""
    stamp = system_clock().strftime("%Y%m%dT%H%M%S.%fZ")
    for file in files:
        if file.name not in names:
            continue
        lines, unfinished = _lines_and_unfinished(file.path)
        if unfinished:
            _set_aside_unfinished(folder, file, stamp, [raw for _, raw in lines], unfinished)
        good: list[bytes] = []
        bad: list[tuple[int, bytes, str]] = []
        for number, raw in lines:
            if not raw.strip():
                continue
            try:
                DECODERS[file.name](raw)
            except BadLine as exc:
                bad.append((number, raw, str(exc)))
            else:
                good.append(raw)
        if not bad:
            continue
        if not good and (len(bad) > 1 or b"\r" in bad[0][1].strip()):
            # No line reads: the file as a whole is in another form (pretty-printed by a JSON
            # formatter, CR line ends). Quarantined line by line, it was emptied and the store
            # looked empty (audit); refused as a UTF-16 file is.
            raise StoreError(
                f"no line of {file.path} can be read (line {bad[0][0]}: {bad[0][2]}): it "
                f"must hold one JSON object per line, each ending in a newline; nothing was "
                f"changed"
            )
        _refuse_unfinished_edits(file, bad)
        target = _quarantine(folder / "quarantine", f"{file.name}.{stamp}", [r for _, r, _ in bad])
        file.rewrite(good)
        for number, _, reason in bad:
            logging.getLogger(__name__).warning(
                "%s line %d is unreadable (%s): moved it to %s", file.path, number, reason, target
            )


def _lines_and_unfinished(path: Path) -> tuple[list[tuple[int, bytes]], list[bytes]]:
    """The file's numbered lines before a write of several lines that did not finish, and
    that write's lines (none when there is no such write)."""
    try:
        with path.open("rb") as f:
            start = unfinished_batch(path, f.fileno(), os.fstat(f.fileno()))
            data = f.read()
    except FileNotFoundError:
        return [], []
    if start is None:
        return read_lines_of(data), []
    return read_lines_of(data[:start]), [raw for raw in data[start:].split(b"\n") if raw.strip()]


def _set_aside_unfinished(
    folder: Path, file: LineFile, stamp: str, before: list[bytes], unfinished: list[bytes]
) -> None:
    """Copy the write that did not finish to the quarantine, then rewrite the file as it was
    before it (`before`: its lines, bad ones too, which the caller then sets aside)."""
    target = _quarantine(folder / "quarantine", f"{file.name}.{stamp}.unfinished", unfinished)
    file.rewrite(before)
    clear_batch(file.path)
    logging.getLogger(__name__).warning(
        "%s ended in a write of %d lines that did not finish (the process writing it was "
        "stopped): none of it counts; moved it to %s",
        file.path,
        len(unfinished),
        target,
    )


_MERGE_MARKER = re.compile(rb"^(<{7}|={7}|>{7}|\|{7})(\s|$)")


def _refuse_unfinished_edits(file: LineFile, bad: Sequence[tuple[int, bytes, str]]) -> None:
    """Bad lines that are a person's edit, not damage, stop the store with nothing moved: git's
    conflict markers (set aside, they resolved the merge in git's order of its two sides, and a
    change made on one side only could come out undone), and one record written over several
    lines (set aside in pieces, the memory left the store and its older line came back)."""
    for number, raw, _ in bad:
        if _MERGE_MARKER.match(raw):
            raise StoreError(
                f"{file.path} line {number} is a git conflict marker: resolve the merge (keep "
                "the lines of both sides, without the markers) before using the store; nothing "
                "was changed"
            )
    run: list[tuple[int, bytes, str]] = []
    for line in [*bad, (-1, b"", "")]:
        if run and line[0] == run[-1][0] + 1:
            run.append(line)
            continue
        if len(run) > 1:
            try:
                DECODERS[file.name](b" ".join(raw.strip() for _, raw, _ in run))
            except BadLine:
                pass
            else:
                raise StoreError(
                    f"{file.path} lines {run[0][0]}-{run[-1][0]} are one record written over "
                    "several lines: put it back on one line; nothing was changed"
                )
        run = [line]


def _quarantine(folder: Path, stem: str, lines: list[bytes]) -> Path:
    """A new file (never overwriting an earlier quarantine) holding `lines`, fsynced."""
    folder.mkdir(exist_ok=True)
    for attempt in range(1000):
        suffix = "" if attempt == 0 else f"-{attempt}"
        target = folder / f"{stem}{suffix}.bad"
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
        except FileExistsError:
            continue
        try:
            os.write(fd, b"".join(line + b"\n" for line in lines))
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(folder)
        return target
    raise StoreError(f"cannot create a quarantine file in {folder}")


def quarantined_lines(folder: Path) -> int:
    """How many lines the store's `quarantine/` holds: after the one warning when they were
    moved aside, nothing said so, and `git commit -a` carried their removal to the other
    clone (a probe)."""
    total = 0
    for bad in sorted((folder / "quarantine").glob("*.bad")):
        try:
            total += sum(1 for line in bad.read_bytes().split(b"\n") if line.strip())
        except OSError:
            continue
    return total
