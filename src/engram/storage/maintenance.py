"""Optional storage maintenance: what a backend with the COMPACT capability offers.

Backends differ here (a JSONL directory accumulates superseded lines and tombstones; SQLite and
PostgreSQL reclaim space themselves), so it is a capability flag in `Store.capabilities`, tested
with `COMPACT in store.capabilities`, never with isinstance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from engram.storage.protocol import Capability

COMPACT = Capability.COMPACT

# Compaction is suggested when at least this share of lines is dead, and at least this many.
COMPACT_RATIO = 0.5
COMPACT_MIN_DEAD = 1_000


@dataclass(frozen=True)
class FileStats:
    name: str
    bytes: int
    lines: int  # readable records (memories or relations, tombstones included)
    live: int  # records current now
    tombstones: int
    # Tombstones a compaction keeps (the last line of their id): dropped, a deletion merged in
    # git with a change made to the record on another clone was undone.
    kept: int = 0

    @property
    def dead(self) -> int:
        """Lines a compaction would drop: older versions, superseded tombstones, edges of
        deleted ends."""
        return self.lines - self.live - self.kept


@dataclass(frozen=True)
class StorageStats:
    backend: str
    location: str
    memories: int
    relations: int
    files: tuple[FileStats, ...]
    dead_lines: int
    dead_ratio: float  # dead lines / all lines
    compaction_recommended: bool
    hint: str
    quarantined: int = 0  # lines moved aside as unreadable (a JSONL store's `quarantine/`)

    @classmethod
    def of_files(
        cls,
        backend: str,
        location: str,
        memories: int,
        relations: int,
        files: tuple[FileStats, ...],
        quarantined: int = 0,
    ) -> StorageStats:
        """The totals, and whether a compaction is worth it, from each file's line counts."""
        lines = sum(f.lines for f in files)
        dead = sum(f.dead for f in files)
        ratio = dead / lines if lines else 0.0
        recommended = dead >= COMPACT_MIN_DEAD and ratio >= COMPACT_RATIO
        if recommended:
            hint = (
                f"{dead:,} of {lines:,} lines are superseded or deleted: "
                "`engram maintenance compact` would rewrite the files without them"
            )
        elif dead:
            hint = f"{dead:,} dead lines ({ratio:.0%}): compaction is not needed yet"
        else:
            hint = "no dead lines: nothing to compact"
        if quarantined:
            hint += (
                f"; {quarantined:,} unreadable lines wait in quarantine/ (not in git): mend and "
                "append them back to their file, or delete them"
            )
        return cls(
            backend=backend,
            location=location,
            memories=memories,
            relations=relations,
            files=files,
            dead_lines=dead,
            dead_ratio=ratio,
            compaction_recommended=recommended,
            hint=hint,
            quarantined=quarantined,
        )


@dataclass(frozen=True)
class CompactionResult:
    before: StorageStats
    after: StorageStats


@runtime_checkable
class Compactable(Protocol):
    """A store whose capabilities include COMPACT."""

    def stats(self) -> StorageStats: ...
    def compact(self) -> CompactionResult: ...
