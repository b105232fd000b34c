"""The injectable clock: a simulation moves by elapsed time, in any time zone."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from engram import ConfigError, Engram, FixedClock, ValidationError
from engram.clock import PAUSE_STEP, pause

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
    with pytest.raises(ValidationError, match="start: must be a timezone-aware"):
        FixedClock(datetime(2026, 1, 1))
    assert FixedClock(datetime(2026, 1, 1, tzinfo=UTC)).advance(days=2).day == 3


def test_a_clock_moves_by_a_timedelta_too() -> None:
    """`clock.advance(timedelta(days=1))` was a TypeError from Python (a probe)."""
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    assert clock.advance(timedelta(days=1), hours=12) == datetime(2026, 1, 2, 12, tzinfo=UTC)
    with pytest.raises(ValidationError, match="by: must be a timedelta"):
        clock.advance(3)  # type: ignore[arg-type]


def test_a_clock_that_is_no_clock_is_refused_by_name(tmp_path: Path) -> None:
    """`clock=time.time` was accepted, then every save failed with an AttributeError."""
    with pytest.raises(ValidationError, match="clock: must be a function"):
        Engram.open(str(tmp_path / "a.db"), clock="now", embedding_model="none")  # type: ignore[arg-type]
    with Engram.open(str(tmp_path / "b.db"), clock=time.time, embedding_model="none") as mem:  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="the clock returned float, not a datetime"):
            mem.save("a fact")
        assert sum(mem.app.context.store.count().values()) == 0


def test_a_pause_sleeps_in_short_steps_that_add_up_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """One long sleep kept a Ctrl-C that reached another thread waiting until it ended (hours,
    between scheduled runs): Python acts on a signal only between steps. Time is simulated
    here, since the pause being tested is two hours long."""
    now = [1000.0]
    steps: list[float] = []

    def sleep(seconds: float) -> None:
        steps.append(seconds)
        now[0] += seconds

    monkeypatch.setattr("engram.clock.time.monotonic", lambda: now[0])
    monkeypatch.setattr("engram.clock.time.sleep", sleep)
    pause(7200.25)
    assert all(0 < s <= PAUSE_STEP for s in steps)
    assert sum(steps) == pytest.approx(7200.25) and len(steps) == 14_401
    steps.clear()
    pause(0)
    assert steps == []
