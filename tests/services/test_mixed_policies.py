"""Two clients with different decay settings on one store: neither loses the other's memories.

The stored schedule (when each memory crosses the forget threshold) is computed by whichever
client opened the store last; gc forgets only what its own settings also score below the
threshold."""

from __future__ import annotations

import numpy as np

from engram import Engram, FixedClock
from engram.core.scoring import ScheduleArrays
from engram.storage.protocol import ScheduleInputs


def test_gc_never_forgets_what_its_own_settings_keep(store_url: str, clock: FixedClock) -> None:
    slow = {"pl_halflife_days": 30.0}
    fast = {"pl_halflife_days": 3.0}
    with Engram.open(store_url, clock=clock, **slow) as mine:
        kept = mine.save("The staging database password rotates monthly")
    clock.advance(days=60)  # 3-day half-life: score 0.04 (forgotten); 30-day: 0.33 (kept)
    with Engram.open(store_url, clock=clock, **fast) as other:  # reschedules with a 3-day curve
        assert [m for m in other.gc(dry_run=True).memory_ids] == [kept.id]
    with (
        Engram.open(store_url, clock=clock, **slow) as mine,
        Engram.open(store_url, clock=clock, **fast) as other,
    ):
        assert mine.app.maintenance.ctx.policy.forget_threshold < mine.app.memories.score(kept)
        assert mine.gc(dry_run=False).memory_ids == []  # alive by its own settings
        assert mine.get_many([kept.id]) != []
        assert other.gc(dry_run=False).memory_ids == [kept.id]  # forgotten by the other's


def test_schedules_of_an_earlier_computation_are_made_again(
    store_url: str, clock: FixedClock
) -> None:
    """A store scheduled by an earlier version of the computation, same settings: its
    crossings were trusted for good, and gc kept a memory its score had long forgotten."""
    with Engram.open(store_url, clock=clock) as mem:
        old = mem.save("A note nobody will read again")
        store, policy = mem.app.maintenance.ctx.store, mem.app.maintenance.ctx.policy

        def never(cols: ScheduleInputs) -> ScheduleArrays:
            far = np.full(len(cols.use_count), 1e15)  # never: far in the future
            return ScheduleArrays(far, far, far, far, far, far)

        store.reschedule_all(never, repr(policy))  # what the earlier version recorded
    clock.advance(days=90)
    with Engram.open(store_url, clock=clock) as again:
        assert again.app.memories.score(again.get(old.id)) < policy.forget_threshold
        assert again.gc(dry_run=True).memory_ids == [old.id]
