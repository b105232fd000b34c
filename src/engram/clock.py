"""The only module that reads the wall clock; everything else receives `now` from a Clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from engram.errors import ValidationError

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


class FixedClock:
    """A clock that stands still until moved: for tests, imports and simulations."""

    def __init__(self, start: datetime) -> None:
        if not isinstance(start, datetime) or start.tzinfo is None:
            # An EngramError, as every refusal of the library is (a plain ValueError: a probe).
            raise ValidationError(
                "start", "must be a timezone-aware datetime (datetime(…, tzinfo=UTC))"
            )
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, by: timedelta | None = None, /, **delta: float) -> datetime:
        """Move on by elapsed time, given as a timedelta or as its keywords (`days=3`), whatever
        the start's time zone: an hour is an hour across a daylight-saving change (arithmetic
        on a zoned datetime moves its wall clock instead)."""
        if by is not None and not isinstance(by, timedelta):
            raise ValidationError("by", f"must be a timedelta, not {type(by).__name__}")
        moved = self.now.astimezone(UTC) + (by or timedelta()) + timedelta(**delta)
        self.now = moved.astimezone(self.now.tzinfo)
        return self.now


# The longest a wait sleeps at once. The kernel may hand a Ctrl-C to any thread of the process
# (the embedding model's, the vector worker's), and Python acts on it only when the main thread
# next runs its own code: one long sleep kept `engram consolidate pipeline --scheduled` running
# until its next run, hours later.
PAUSE_STEP = 0.5


def pause(seconds: float) -> None:
    """Sleep `seconds`, in steps of at most PAUSE_STEP: Ctrl-C stops the wait within one."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, PAUSE_STEP))
