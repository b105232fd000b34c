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


@dataclass(frozen=True)
class FileStats:
    name: str
    bytes: int
    lines: int  # readable records (memories or relations, tombstones included)
    live: int  # records current now
    tombstones: int

    @property
    def dead(self) -> int:
        """Lines a compaction would drop: older versions, tombstones, edges of deleted ends."""
        return self.lines - self.live


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


@dataclass(frozen=True)
class CompactionResult:
    before: StorageStats
    after: StorageStats


@runtime_checkable
class Compactable(Protocol):
    """A store whose capabilities include COMPACT."""

    def stats(self) -> StorageStats: ...
    def compact(self) -> CompactionResult: ...
