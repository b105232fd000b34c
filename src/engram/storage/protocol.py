"""The storage contract every backend implements.

Backends store and index; they do not decide. Scores, schedules, validation and policy are
computed above (core + services) and handed down, so one conformance suite can hold every
backend to the same behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from engram.core.models import Memory, Relation, Schedule, Status
from engram.core.scoring import ScheduleArrays

# change(old) -> (new, schedule) to write, or None to leave the memory as it is.
Change = Callable[[Memory], tuple[Memory, Schedule] | None]


@dataclass(frozen=True)
class Stub:
    """The few columns ranking and candidate rules need, so hot paths can score hundreds of
    memories without building full records; full memories are fetched for the winners only."""

    id: str
    use_count: int
    strength: float
    last_used: float  # epoch seconds
    created_at: float
    status: Status
    relevance: float = 0.0  # text relevance, higher is better (search only)


@dataclass(frozen=True)
class Filter:
    """Restrictions shared by text search and browsing."""

    statuses: tuple[Status, ...] = (Status.ACTIVE, Status.PROMOTED)
    tags: tuple[str, ...] = ()  # any of these (case-insensitive); empty = no restriction
    used_since: float | None = None  # epoch seconds; last_used >= used_since


@dataclass(frozen=True)
class ScheduleInputs:
    """The columns a schedule is computed from, for recomputing a whole store at once."""

    use_count: NDArray[np.float64]
    strength: NDArray[np.float64]
    last_used: NDArray[np.float64]
    created_at: NDArray[np.float64]
    active: NDArray[np.bool_]


Rescheduler = Callable[[ScheduleInputs], ScheduleArrays]


class Store(Protocol):
    """A memory store. Every write is atomic; `modify` is an atomic read-modify-write."""

    location: str

    def close(self) -> None: ...

    # Memories
    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None: ...
    def get_many(self, ids: Sequence[str]) -> list[Memory]: ...
    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]: ...
    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        """Delete and return the ids deleted; with `due_before`, only memories still due for gc
        at that time (so a memory reinforced meanwhile by another client is spared)."""
        ...

    def count(self) -> dict[Status, int]: ...

    # Finding memories without scanning
    def text_search(self, terms: Sequence[str], where: Filter, limit: int) -> list[Stub]: ...
    def browse(self, where: Filter, limit: int) -> list[Stub]: ...
    def due_for_gc(self, now: float, limit: int) -> list[str]: ...
    def near_review_peak(self, now: float, limit: int) -> list[Stub]: ...
    def schedule_counts(self, now: float) -> tuple[int, int]: ...
    def in_promotion_window(self, now: float, limit: int) -> list[Stub]: ...
    def page(self, after: str | None, limit: int) -> list[Memory]: ...

    # Schedules (index keys derived from the decay settings)
    def schedule_fingerprint(self) -> str | None: ...
    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int: ...

    # Relations
    def add_relation(self, relation: Relation) -> Relation: ...
    def relations(self, memory_ids: Sequence[str]) -> list[Relation]: ...
    def count_relations(self) -> int: ...
