"""The injectable clock: a simulation moves by elapsed time, in any time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engram import FixedClock

NEW_YORK = ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("start", "step", "steps"),
    [
        (datetime(2026, 3, 8, 1, 30, tzinfo=NEW_YORK), {"hours": 1}, 2),  # clocks go forward
        (datetime(2026, 11, 1, 0, 30, tzinfo=NEW_YORK), {"hours": 1}, 2),  # clocks go back
        (datetime(2026, 3, 7, 12, 0, tzinfo=NEW_YORK), {"days": 1}, 1),
    ],
)
def test_advance_moves_by_elapsed_time_across_daylight_saving(
    start: datetime, step: dict[str, float], steps: int
) -> None:
    """Arithmetic on a zoned datetime moves its wall clock: an hour across the spring change
    moved no time at all (decay stood still), a day moved 23 hours."""
    clock = FixedClock(start)
    for _ in range(steps):
        clock.advance(**step)
    # Subtracting two datetimes of one zone compares wall clocks: compare them in UTC.
    assert clock.now.astimezone(UTC) - start.astimezone(UTC) == timedelta(**step) * steps
    assert clock.now.tzinfo is NEW_YORK  # still shown in the zone it started in


def test_a_naive_start_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        FixedClock(datetime(2026, 1, 1))
    assert FixedClock(datetime(2026, 1, 1, tzinfo=UTC)).advance(days=2).day == 3
