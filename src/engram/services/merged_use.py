"""A use of a fact goes to the memory that holds it now: an original a merge archived counts
on the live merged memory that holds it (docs/consolidation.md), even when the merge lands
between the look and the write.

Touch, observe and a repeated save read which memory to write, then write it in one atomic
`modify`; a merge by another client could archive that memory in between, and the write then
brought the original back to life beside its merged memory (a helper's probe: the fact live
twice, and the use on the wrong memory, on every backend). So the write refuses a memory that
was live when read and is archived when written (`Moved`), and the caller looks again.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.merge import merges_into
from engram.core.models import Memory, Schedule, Status
from engram.errors import BusyError
from engram.storage.protocol import Change, Store

# Looks at which memory to write before giving up: each retry follows a merge that landed in
# between, and merges one after another on the same memory are rare.
ATTEMPTS = 5
# How many merges of merges are followed from an original to the memory holding it now.
CHAIN_MAX = 10


class Moved(Exception):
    """A memory read as live was archived before it was written: look again."""


def looked_up(store: Store, ids: Sequence[str]) -> tuple[dict[str, str], set[str]]:
    """For each archived original among `ids` that a live merged memory holds, that memory's
    id — through merges of merges: an original of a merge merged again is held by the last
    (saying it again made a live copy beside both, an MCP probe); and which memories to write
    were live when read: one read of them, so that a merge landing after it is caught by the
    write (`live_guard`)."""
    read = store.get_many(ids)
    live = {m.id for m in read if m.status != Status.ARCHIVED}
    # each archived memory looked at, with the originals among `ids` it stands for
    frontier: dict[str, list[str]] = {m.id: [m.id] for m in read if m.status == Status.ARCHIVED}
    out: dict[str, str] = {}
    for _ in range(CHAIN_MAX):
        if not frontier:
            break
        edges = [
            r
            for r in store.relations(sorted(frontier))
            if r.type == "consolidated_from" and r.to_id in frontier
        ]
        merged = {m.id: m for m in store.get_many(sorted({r.from_id for r in edges}))}
        further: dict[str, list[str]] = {}
        for r in edges:
            m = merged.get(r.from_id)
            if m is None or not merges_into(m, r.to_id):
                continue
            if m.status != Status.ARCHIVED:
                for original in frontier[r.to_id]:
                    out.setdefault(original, m.id)
                live.add(m.id)
            else:
                further.setdefault(m.id, []).extend(frontier[r.to_id])
        frontier = further
    return out, live


def live_guard(change: Change, live: set[str]) -> Change:
    """`change`, refusing (`Moved`) a memory of `live` that is archived when written."""

    def guarded(old: Memory) -> tuple[Memory, Schedule] | None:
        if old.status == Status.ARCHIVED and old.id in live:
            raise Moved(old.id)
        return change(old)

    return guarded


def use(
    store: Store, ids: Sequence[str], change: Change
) -> tuple[list[tuple[Memory, Memory]], dict[str, str]]:
    """Write `change` to the memories `ids` stand for now (the live merged memory holding an
    original, else the memory itself); returns what `modify` does, and which of `ids` were
    written on a merged memory instead."""
    for _ in range(ATTEMPTS):
        holders, live = looked_up(store, ids)
        targets = list(dict.fromkeys(holders.get(i, i) for i in ids))
        try:
            return store.modify(targets, live_guard(change, live)), holders
        except Moved:
            continue
    raise BusyError("these memories kept being merged while they were used; try again")
