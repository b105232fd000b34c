"""Two clients with different decay settings on one store: neither loses the other's memories.

The stored schedule (when each memory crosses the forget threshold) is computed by whichever
client opened the store last; gc forgets only what its own settings also score below the
threshold."""

from __future__ import annotations

from engram import Engram, FixedClock


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
