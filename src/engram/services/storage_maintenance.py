"""Storage upkeep that only some backends need: file statistics and compaction.

A JSONL store grows by appending (a touched memory is written again, a deletion appends a
tombstone), so it offers `stats()` and `compact()` under the COMPACT capability. SQLite and
PostgreSQL reclaim space themselves: for them these report that there is nothing to do.
"""

from __future__ import annotations

from typing import cast

from pydantic import Field

from engram.services.context import Context
from engram.services.results import Result
from engram.storage.maintenance import Compactable, StorageStats
from engram.storage.protocol import Capability


class FileReport(Result):
    name: str
    bytes: int
    lines: int
    live: int
    tombstones: int
    dead: int  # lines a compaction drops: older versions, edges and vectors of deleted memories


class StorageReport(Result):
    supported: bool  # False: this backend has no files to compact
    location: str
    backend: str | None = None
    memories: int | None = None
    relations: int | None = None
    files: list[FileReport] = Field(default_factory=list)
    dead_lines: int = 0
    dead_ratio: float = 0.0
    compaction_recommended: bool = False
    quarantined: int = 0  # unreadable lines moved aside to quarantine/, waiting for a person
    message: str


class CompactionReport(Result):
    supported: bool
    location: str
    before: StorageReport | None = None
    after: StorageReport | None = None
    message: str


def _unsupported(location: str) -> str:
    return (
        f"the store at {location} is not a JSONL store: it reclaims space by itself, so there "
        "is nothing to inspect or compact (`engram maintenance` applies to jsonl:// stores)"
    )


def _report(stats: StorageStats) -> StorageReport:
    return StorageReport(
        supported=True,
        location=stats.location,
        backend=stats.backend,
        memories=stats.memories,
        relations=stats.relations,
        files=[
            FileReport(
                name=f.name,
                bytes=f.bytes,
                lines=f.lines,
                live=f.live,
                tombstones=f.tombstones,
                dead=f.dead,
            )
            for f in stats.files
        ],
        dead_lines=stats.dead_lines,
        dead_ratio=stats.dead_ratio,
        compaction_recommended=stats.compaction_recommended,
        quarantined=stats.quarantined,
        message=stats.hint,
    )


class StorageMaintenanceService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def _compactable(self) -> Compactable | None:
        store = self.ctx.store
        return cast(Compactable, store) if Capability.COMPACT in store.capabilities else None

    def stats(self) -> StorageReport:
        store = self._compactable()
        if store is None:
            location = self.ctx.store.location
            return StorageReport(supported=False, location=location, message=_unsupported(location))
        return _report(store.stats())

    def compact(self) -> CompactionReport:
        """Rewrite the store's files without dead lines, atomically and under the store's
        lock, so clients using the store meanwhile lose nothing."""
        store = self._compactable()
        location = self.ctx.store.location
        if store is None:
            return CompactionReport(
                supported=False, location=location, message=_unsupported(location)
            )
        result = store.compact()
        before, after = _report(result.before), _report(result.after)
        saved = sum(f.bytes for f in before.files) - sum(f.bytes for f in after.files)
        return CompactionReport(
            supported=True,
            location=location,
            before=before,
            after=after,
            message=(
                f"compacted: dropped {before.dead_lines:,} dead lines, "
                f"{max(saved, 0):,} bytes smaller"
            ),
        )
