"""Scores, thresholds and the schedule of threshold crossings.

score = (use_count + 1)^β · f(Δt) · strength, with f from `engram.core.decay`.

Because f is monotone, each memory's score crosses a fixed threshold τ exactly once, at
last_used + f⁻¹(τ / ((use_count + 1)^β · strength)). `schedule_arrays` computes those moments so
the store can answer "due for gc", "in the danger zone" and "promotable" from an index.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from engram.core.decay import DecayParams, retention, time_to_retention
from engram.core.models import Memory, Schedule, Status, is_kept
from engram.core.timeutil import DAY, LAST_DAY, to_epoch

PromotionReason = Literal["usage", "score"]


# Raised whenever `schedule_arrays` changes what it computes for the same parameters: every
# store is then rescheduled once, when it is next opened.
SCHEDULE_VERSION = 3


@dataclass(frozen=True)
class Policy:
    """Every number that turns a memory's counters into decisions."""

    decay: DecayParams = field(default_factory=DecayParams)
    beta: float = 0.6
    forget_threshold: float = 0.05
    promote_threshold: float = 0.65
    promote_use_count: int = 5
    promote_time_window_days: float = 14.0
    promote_min_age_days: float = 3.0
    danger_zone_min: float = 0.15
    danger_zone_max: float = 0.35

    def fingerprint(self) -> str:
        """Identifies how the stored schedules were computed: these parameters, and the
        version of the computation (a store scheduled by an earlier one kept its crossings for
        good: gc and promotion then disagreed with the scores)."""
        return f"{replace(self, decay=self.decay.in_use())!r} schedules/{SCHEDULE_VERSION}"


def score(
    policy: Policy, use_count: ArrayLike, strength: ArrayLike, dt: ArrayLike
) -> NDArray[np.float64]:
    """The decay score of memories `dt` seconds after their last use. A promoted memory no
    longer fades: its callers pass dt = 0 (`memory_score`, `Context.scores`)."""
    n = np.asarray(use_count, dtype=np.float64)
    s = np.asarray(strength, dtype=np.float64)
    return np.power(n + 1.0, policy.beta) * retention(policy.decay, dt) * s


def memory_score(policy: Policy, memory: Memory, now: float) -> float:
    promoted = memory.status == Status.PROMOTED
    dt = 0.0 if promoted else now - to_epoch(memory.last_used)
    return float(score(policy, memory.use_count, memory.strength, dt))


def review_priority(policy: Policy, scores: ArrayLike) -> NDArray[np.float64]:
    """0 outside the danger zone, an inverted parabola peaking mid-zone inside it."""
    x = np.asarray(scores, dtype=np.float64)
    lo, hi = policy.danger_zone_min, policy.danger_zone_max
    pos = (x - lo) / (hi - lo)
    prio = np.clip(1.0 - 4.0 * (pos - 0.5) ** 2, 0.0, 1.0)
    return np.where((x >= lo) & (x <= hi), prio, 0.0)


NO_PROMOTION, BY_USAGE, BY_SCORE = 0, 1, 2


def promotion_reasons(
    policy: Policy,
    use_count: ArrayLike,
    strength: ArrayLike,
    last_used: ArrayLike,
    created_at: ArrayLike,
    now: float,
) -> NDArray[np.int8]:
    """Why each (active) memory deserves long-term storage now: BY_USAGE, BY_SCORE or 0.

    usage: reinforced `promote_use_count` times while younger than the time window.
    score: reinforced at least once, at least `promote_min_age_days` old, and still scoring
    ≥ `promote_threshold`. A never-reinforced memory is never promoted on score: a fresh memory
    scores its strength (≥ 1.0 by default), which says nothing about its worth.
    """
    n = np.asarray(use_count, dtype=np.float64)
    age = now - np.asarray(created_at, dtype=np.float64)
    current = score(policy, n, strength, now - np.asarray(last_used, dtype=np.float64))
    usage = (n >= policy.promote_use_count) & (age <= policy.promote_time_window_days * DAY)
    by_score = (
        (n >= 1)
        & (age >= policy.promote_min_age_days * DAY)
        & (current >= policy.promote_threshold)
    )
    return np.where(usage, BY_USAGE, np.where(by_score, BY_SCORE, NO_PROMOTION)).astype(np.int8)


REASON_NAMES: dict[int, PromotionReason] = {BY_USAGE: "usage", BY_SCORE: "score"}


def _columns(memory: Memory) -> tuple[list[int], list[float], list[float], list[float]]:
    """One memory as the columns the vectorised functions take: use count, strength, last
    used and created (epoch seconds)."""
    return (
        [memory.use_count],
        [memory.strength],
        [to_epoch(memory.last_used)],
        [to_epoch(memory.created_at)],
    )


def promotion_reason(policy: Policy, memory: Memory, now: float) -> PromotionReason | None:
    if memory.status != Status.ACTIVE:
        return None
    code = promotion_reasons(policy, *_columns(memory), now)[0]
    return REASON_NAMES.get(int(code))


# About 31 million years after 1970: later than any date a memory can carry (year 9999), and
# small enough for a 32-bit float (the R*Tree indexes of the schedules).
FAR_FUTURE = 1e15


def crossing_times(
    policy: Policy,
    threshold: float,
    use_count: NDArray[np.float64],
    strength: NDArray[np.float64],
    last_used: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Epoch second at which each score falls below `threshold`.

    A memory that starts below the threshold is below it at every moment, before its last use
    too (a time later than "now": imported from a clock that was ahead, or saved by a client
    whose clock is): its crossing is the far past, so `now > crossing` always holds (it was
    its last use less a second, and such a memory was neither due for gc nor in the danger
    zone while its score said it was). One that starts exactly at it falls below right after:
    its crossing is its last use (gc's own test, score < threshold, agrees at every moment).
    """
    peak = np.power(use_count + 1.0, policy.beta) * strength
    # A strength as small as 1e-320 overflows the ratio to infinity, which is its meaning: a
    # numpy warning was printed under `engram save --strength 1e-320`.
    with np.errstate(divide="ignore", over="ignore"):
        ratio = np.where(peak > 0, threshold / np.where(peak > 0, peak, 1.0), np.inf)
    # A crossing beyond FAR_FUTURE (or never: +inf) is stored as FAR_FUTURE: a store cannot
    # hold infinity (JSON has none), and no clock reaches either.
    crossing = np.minimum(last_used + time_to_retention(policy.decay, ratio), FAR_FUTURE)
    return np.where(ratio > 1.0, -FAR_FUTURE, crossing)


@dataclass(frozen=True)
class ScheduleArrays:
    """Column-wise schedules (NaN = never); see `Schedule` for the meaning of each field."""

    forget_at: NDArray[np.float64]
    review_at: NDArray[np.float64]
    danger_from: NDArray[np.float64]
    danger_until: NDArray[np.float64]
    promote_from: NDArray[np.float64]
    promote_until: NDArray[np.float64]


def schedule_arrays(
    policy: Policy,
    use_count: ArrayLike,
    strength: ArrayLike,
    last_used: ArrayLike,
    created_at: ArrayLike,
    active: ArrayLike,
    kept: ArrayLike | None = None,
) -> ScheduleArrays:
    """`kept` (default none): memories marked to be kept for good (`models.KEEP`) are never
    due for gc nor in the danger zone; they may still be promoted."""
    n = np.asarray(use_count, dtype=np.float64)
    s = np.asarray(strength, dtype=np.float64)
    last = np.asarray(last_used, dtype=np.float64)
    created = np.asarray(created_at, dtype=np.float64)
    live = np.asarray(active, dtype=bool)
    fading = live if kept is None else live & ~np.asarray(kept, dtype=bool)
    nan = np.full_like(last, np.nan)

    forget_at = crossing_times(policy, policy.forget_threshold, n, s, last)
    reaches_zone = np.power(n + 1.0, policy.beta) * s >= policy.danger_zone_min
    danger_from = crossing_times(policy, policy.danger_zone_max, n, s, last)
    danger_until = np.where(
        reaches_zone, crossing_times(policy, policy.danger_zone_min, n, s, last), np.nan
    )
    danger_from = np.where(reaches_zone, danger_from, np.nan)
    mid_zone = 0.5 * (policy.danger_zone_min + policy.danger_zone_max)
    review_at = np.where(reaches_zone, crossing_times(policy, mid_zone, n, s, last), np.nan)

    # Promotion: the bounding interval of the usage window and the score window; the exact rule
    # (promotion_reason) filters what the index returns.
    usage_ok = n >= policy.promote_use_count
    usage_end = created + policy.promote_time_window_days * DAY
    score_start = created + policy.promote_min_age_days * DAY
    score_end = crossing_times(policy, policy.promote_threshold, n, s, last)
    score_ok = (n >= 1) & (score_end >= score_start)
    # The usage window has no start: a memory "created" after now (a clock ahead) is as young
    # as can be, and the exact rule promotes it.
    start = np.where(usage_ok, -FAR_FUTURE, np.where(score_ok, score_start, np.nan))
    end = np.where(
        usage_ok & score_ok,
        np.maximum(usage_end, score_end),
        np.where(usage_ok, usage_end, np.where(score_ok, score_end, np.nan)),
    )
    return ScheduleArrays(
        forget_at=np.where(fading, forget_at, nan),
        review_at=np.where(fading, review_at, nan),
        danger_from=np.where(fading, danger_from, nan),
        danger_until=np.where(fading, danger_until, nan),
        promote_from=np.where(live, start, nan),
        promote_until=np.where(live, end, nan),
    )


def memory_schedule(policy: Policy, memory: Memory) -> Schedule:
    arrays = schedule_arrays(
        policy, *_columns(memory), [memory.status == Status.ACTIVE], [is_kept(memory.meta)]
    )

    def pick(column: NDArray[np.float64]) -> float | None:
        value = float(column[0])
        return None if np.isnan(value) else value

    return Schedule(
        forget_at=pick(arrays.forget_at),
        review_at=pick(arrays.review_at),
        danger_from=pick(arrays.danger_from),
        danger_until=pick(arrays.danger_until),
        promote_from=pick(arrays.promote_from),
        promote_until=pick(arrays.promote_until),
    )


def score_curve(
    policy: Policy, memory: Memory, now: float, points: int = 80
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(epoch seconds, score) of a memory from its last use into the future, if nothing
    reinforces it: what a chart of its fading shows. The horizon is the moment it falls below
    the forget threshold, or at least twice the time since its last use (one day at least,
    five years at most, but always past now), so "now" sits inside the curve: a memory last
    used eight years ago had a curve ending three years before now, and the dashboard drew its
    "now" there."""
    since = max(now - to_epoch(memory.last_used), 0.0)
    forgets = time_to_retention(
        policy.decay,
        policy.forget_threshold
        / max(np.power(memory.use_count + 1.0, policy.beta) * memory.strength, 1e-12),
    )
    longest = 5 * 365 * DAY
    horizon = max(
        min(max(2.0 * since, 1.1 * min(float(forgets), longest), DAY), longest), 1.1 * since
    )
    # Nor past the last day a date can name: a memory last used in 9999 (a clock far ahead,
    # an import) had a curve into the year 10000, and its dashboard page failed to draw it.
    horizon = max(min(horizon, LAST_DAY - to_epoch(memory.last_used)), 0.0)
    offsets = np.linspace(0.0, horizon, points)
    # A promoted memory no longer fades (`memory_score`): its curve is flat.
    elapsed = np.zeros_like(offsets) if memory.status == Status.PROMOTED else offsets
    scores = score(policy, memory.use_count, memory.strength, elapsed)
    return to_epoch(memory.last_used) + offsets, scores
