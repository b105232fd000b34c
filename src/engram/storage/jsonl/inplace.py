"""Whole-file rewrites that move no line: what keeps a compaction or a reschedule mergeable in git.

The last line of an id wins. A rewrite that wrote the records in saving order moved lines, and
git, merging that with the lines another clone appended, could put a line of a record after
the other clone's newer one: a change made on one side only was then undone without a word.
So a rewrite here keeps every line it keeps where it stands, in the same order: it may drop a
superseded line (compaction) or replace an id's last line (with the record as the store now
holds it), never reorder. In git a compaction is then only removed lines, a reschedule only
changed ones, and either merges with appends made elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engram.storage.jsonl.records import BadLine, parse_object


@dataclass(frozen=True)
class Line:
    """One line of a file: its bytes (without the newline), the id it names (None for a line
    that is no record, which a rewrite keeps as it is), and whether it is a tombstone."""

    raw: bytes
    ident: str | None
    tombstone: bool


def read(raws: Iterable[bytes]) -> list[Line]:
    """The non-blank lines, each with its id. Run after unreadable lines were quarantined: a
    line that still does not parse is kept by a rewrite, never dropped."""
    out: list[Line] = []
    for raw in raws:
        if not raw.strip():
            continue
        try:
            obj = parse_object(raw)
        except BadLine:
            out.append(Line(raw, None, False))
            continue
        ident = obj.get("id")
        named = ident if isinstance(ident, str) else None
        out.append(Line(raw, named, obj.get("_deleted") is True))
    return out


# What to write in the place of an id's last line, given the id and the line (None: drop it).
Current = Callable[[str, Line], bytes | None]


@dataclass(frozen=True)
class Rewrite:
    lines: list[bytes]
    tombstones: int  # how many of them are tombstones (for the file's `Tally`)
    ids: list[str]  # the ids whose last line was kept, in the order of those lines


def rewritten(lines: list[Line], current: Current, *, superseded: bool) -> Rewrite:
    """`lines` in their order: each id's last line as `current` gives it, the earlier lines of
    an id (superseded, dead) kept as they are when `superseded`, else dropped."""
    last = {line.ident: n for n, line in enumerate(lines) if line.ident is not None}
    out: list[bytes] = []
    ids: list[str] = []
    tombstones = 0
    for n, line in enumerate(lines):
        if line.ident is None:
            kept: bytes | None = line.raw
        elif last[line.ident] == n:
            kept = current(line.ident, line)
            if kept is not None:
                ids.append(line.ident)
        else:
            kept = line.raw if superseded else None
        if kept is not None:
            out.append(kept)
            tombstones += line.tombstone
    return Rewrite(out, tombstones, ids)
