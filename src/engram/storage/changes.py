"""`Store.modify`'s read-modify-write, written once for every backend.

Each store reads the memories under its own lock (a transaction, `FOR UPDATE`, the directory
lock), runs the caller's change through `apply_changes`, and writes what it returns.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from engram.core.models import Memory, Schedule
from engram.errors import NotFoundError, StoreError
from engram.storage.protocol import Change


@dataclass
class Changes:
    """What a `modify` did: each (before, after) in call order, and the last write per id."""

    pairs: list[tuple[Memory, Memory]] = field(default_factory=list)
    writes: dict[str, tuple[Memory, Schedule]] = field(default_factory=dict)


def apply_changes(
    ids: Sequence[str],
    stored: Mapping[str, Memory],
    change: Change,
    rewrite: Collection[str] | None = None,
) -> Changes:
    """Run `change` over `ids` in order against the `stored` memories. An id named twice sees
    its own earlier change; a change that returns None leaves its memory alone; an unknown id
    stops everything (nothing is written) and a change may not alter a memory's id.

    With `rewrite` (the ids whose record must be written anyway), a change that leaves a
    memory as it was writes nothing: in a JSONL store kept in git, `unarchive` of an active
    memory appended a copy of its line, and merged after another machine's touch, the copy
    came last and undid it (a helper's probe)."""
    out = Changes()
    for ident in ids:
        old = out.writes[ident][0] if ident in out.writes else stored.get(ident)
        if old is None:
            raise NotFoundError("memory", ident)
        outcome = change(old)
        if outcome is None:
            continue
        new, schedule = outcome
        if new.id != ident:
            raise StoreError(f"a change may not alter a memory's id ({ident!r})")
        if rewrite is not None and new == old and ident not in rewrite:
            out.pairs.append((old, new))
            continue
        out.writes[ident] = (new, schedule)
        out.pairs.append((old, new))
    return out
