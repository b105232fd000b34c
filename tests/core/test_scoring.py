"""Scores, review priority, promotion rule and threshold-crossing schedules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.core.decay import DecayParams
from engram.core.models import Memory, Status
from engram.core.scoring import (
    Policy,
    crossing_times,
    memory_schedule,
    memory_score,
    promotion_reason,
    review_priority,
    score,
    score_curve,
)
from engram.core.timeutil import DAY, LAST_DAY, from_epoch, to_epoch

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POLICY = Policy()


def make(
    use_count: int = 0,
    strength: float = 1.0,
    age_days: float = 0.0,
    idle_days: float = 0.0,
    status: Status = Status.ACTIVE,
) -> Memory:
    created = T0 - timedelta(days=age_days)
    return Memory(
        id="m1",
        content="x",
        created_at=created,
        last_used=T0 - timedelta(days=idle_days),
        use_count=use_count,
        strength=strength,
        status=status,
    )


NOW = to_epoch(T0)


def test_score_formula() -> None:
    value = float(score(POLICY, 4, 1.5, 7 * DAY))
    assert value == pytest.approx(5**0.6 * 0.293 * 1.5, rel=2e-3)


def test_fresh_memory_scores_its_strength() -> None:
    assert memory_score(POLICY, make(strength=1.3), NOW) == pytest.approx(1.3)


def test_use_count_boost_is_sublinear() -> None:
    boosts = [float(score(POLICY, n - 1, 1.0, 0)) for n in (1, 5, 10, 50)]
    assert boosts == pytest.approx([1.0, 2.63, 3.98, 10.46], abs=0.01)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.10, 0.0), (0.15, 0.0), (0.20, 0.75), (0.25, 1.0), (0.30, 0.75), (0.35, 0.0), (0.5, 0.0)],
)
def test_review_priority_is_an_inverted_parabola_over_the_danger_zone(
    value: float, expected: float
) -> None:
    assert float(review_priority(POLICY, value)) == pytest.approx(expected, abs=1e-9)


def test_a_promoted_memory_does_not_fade_in_its_score_or_its_curve() -> None:
    """The dashboard drew a promoted memory's curve falling past the forget threshold next
    to a score that no longer changes."""
    active = make(use_count=3, idle_days=40)
    promoted = make(use_count=3, idle_days=40, status=Status.PROMOTED)
    assert memory_score(POLICY, promoted, NOW) == pytest.approx(float(score(POLICY, 3, 1.0, 0)))
    assert memory_score(POLICY, active, NOW) < memory_score(POLICY, promoted, NOW)
    _, flat = score_curve(POLICY, promoted, NOW)
    _, falling = score_curve(POLICY, active, NOW)
    assert np.allclose(flat, flat[0]) and flat[0] == pytest.approx(
        memory_score(POLICY, promoted, NOW)
    )
    assert falling[-1] < falling[0]


@pytest.mark.parametrize("idle_days", [0, 3, 400, 3000])
def test_now_always_sits_inside_a_memorys_curve(idle_days: int) -> None:
    """The horizon stopped at five years: a memory last used eight years ago had a curve
    ending three years before now, and the dashboard drew its "now" there."""
    times, _ = score_curve(POLICY, make(idle_days=idle_days), NOW)
    assert times[0] <= NOW < times[-1]


def test_a_curve_ends_by_the_last_day_a_date_can_name() -> None:
    """A memory last used in 9999 (a clock far ahead, an import) had a curve into the year
    10000: its dashboard page failed (500) to label the curve's end."""
    last = datetime(9999, 12, 30, tzinfo=UTC)
    times, scores = score_curve(POLICY, make().model_copy(update={"last_used": last}), NOW)
    assert times[0] == to_epoch(last) and times[-1] <= LAST_DAY and len(scores) == len(times)
    assert from_epoch(float(times[-1])).year == 9999


def test_a_strength_too_small_to_divide_by_is_below_every_threshold_without_a_warning() -> None:
    """1e-320 (a valid strength) overflowed the ratio to the threshold: numpy printed a
    RuntimeWarning with a source line under `engram save --strength 1e-320`."""
    times = crossing_times(
        POLICY, 0.05, np.array([0.0]), np.array([1e-320]), np.array([NOW])
    )  # warnings are errors in the tests
    assert times[0] < NOW


def test_fresh_memory_is_never_promoted() -> None:
    """The upstream promoted every fresh memory (score 1.0 >= 0.65). Ours must not."""
    assert promotion_reason(POLICY, make(strength=2.0), NOW) is None


def test_unreinforced_memory_is_never_promoted_on_score() -> None:
    strong = make(strength=2.0, age_days=4, idle_days=4)  # score 2 * f(4d) ≈ 0.83 >= 0.65
    assert memory_score(POLICY, strong, NOW) >= 0.65
    assert promotion_reason(POLICY, strong, NOW) is None


def test_reinforced_memory_still_strong_after_min_age_is_promoted_on_score() -> None:
    m = make(use_count=2, age_days=5, idle_days=2)
    assert promotion_reason(POLICY, m, NOW) == "score"


def test_reinforced_but_too_young_memory_waits() -> None:
    assert promotion_reason(POLICY, make(use_count=2, age_days=1), NOW) is None


def test_usage_rule_applies_within_the_window_only() -> None:
    assert promotion_reason(POLICY, make(use_count=5, age_days=13, idle_days=13), NOW) == "usage"
    assert promotion_reason(POLICY, make(use_count=5, age_days=15, idle_days=15), NOW) is None


def test_only_active_memories_are_promoted() -> None:
    m = make(use_count=9, age_days=2, status=Status.PROMOTED)
    assert promotion_reason(POLICY, m, NOW) is None


@pytest.mark.parametrize("model", ["power_law", "exponential", "two_component"])
@settings(max_examples=60, deadline=None)
@given(
    use_count=st.integers(0, 60),
    strength=st.floats(0.05, 2.0),
    idle_days=st.floats(0, 40),
    age_extra=st.floats(0, 30),
    probe_days=st.floats(0, 400),
)
def test_schedule_agrees_with_exact_rules(
    model: str,
    use_count: int,
    strength: float,
    idle_days: float,
    age_extra: float,
    probe_days: float,
) -> None:
    """At any moment, membership from the stored schedule equals the rule computed directly."""
    policy = Policy(decay=DecayParams(model=model))  # type: ignore[arg-type]
    m = make(
        use_count=use_count, strength=strength, age_days=idle_days + age_extra, idle_days=idle_days
    )
    sched = memory_schedule(policy, m)
    t = to_epoch(m.last_used) + probe_days * DAY
    s = memory_score(policy, m, t)
    margin = 1e-6 * max(1.0, s)
    assert sched.forget_at is not None
    if abs(s - policy.forget_threshold) > margin:
        assert (t > sched.forget_at) == (s < policy.forget_threshold)
    if all(abs(s - z) > margin for z in (policy.danger_zone_min, policy.danger_zone_max)):
        in_zone = policy.danger_zone_min <= s <= policy.danger_zone_max
        scheduled = (
            sched.danger_from is not None
            and sched.danger_until is not None
            and sched.danger_from <= t <= sched.danger_until
        )
        assert scheduled == in_zone
    if promotion_reason(policy, m, t) is not None:
        assert sched.promote_from is not None and sched.promote_until is not None
        assert sched.promote_from - 1e-3 <= t <= sched.promote_until + 1e-3


def test_non_active_memories_have_no_schedule() -> None:
    sched = memory_schedule(POLICY, make(status=Status.ARCHIVED))
    assert sched.model_dump() == dict.fromkeys(sched.model_dump())


def test_a_memory_kept_for_good_is_never_forgotten_nor_reviewed_but_may_be_promoted() -> None:
    used = make(use_count=6, age_days=5, idle_days=1)
    fading = memory_schedule(POLICY, used)
    kept = memory_schedule(POLICY, used.model_copy(update={"meta": {"keep": True}}))
    assert fading.forget_at is not None and fading.danger_from is not None
    assert (kept.forget_at, kept.review_at, kept.danger_from, kept.danger_until) == (None,) * 4
    assert kept.promote_from == fading.promote_from is not None
    assert kept.promote_until == fading.promote_until
    not_true = memory_schedule(POLICY, used.model_copy(update={"meta": {"keep": "yes"}}))
    assert not_true == fading  # only JSON true keeps


def test_crossing_is_exact_for_power_law() -> None:
    m = make()
    sched = memory_schedule(POLICY, m)
    assert sched.forget_at is not None
    assert memory_score(POLICY, m, sched.forget_at) == pytest.approx(0.05, rel=1e-9)


def test_schedule_arrays_are_vectorised() -> None:
    from engram.core.scoring import schedule_arrays

    arrays = schedule_arrays(
        POLICY,
        np.array([0, 3]),
        np.array([1.0, 1.0]),
        np.array([NOW, NOW]),
        np.array([NOW, NOW]),
        np.array([True, False]),
    )
    assert arrays.forget_at[0] > NOW
    assert np.isnan(arrays.forget_at[1])


def test_the_schedules_fingerprint_holds_only_the_curve_in_use() -> None:
    """A λ left set for the exponential curve changes nothing under the power law, yet each
    switch of it recomputed every schedule of the store (two clients, one with a leftover
    setting, would recompute a large store back and forth; audit)."""
    default = Policy()
    assert Policy(decay=DecayParams(decay_lambda=1e-5)).fingerprint() == default.fingerprint()
    assert Policy(decay=DecayParams(tc_weight_fast=0.2)).fingerprint() == default.fingerprint()
    assert Policy(decay=DecayParams(pl_alpha=2.0)).fingerprint() != default.fingerprint()
    exponential = Policy(decay=DecayParams(model="exponential"))
    quicker = Policy(decay=DecayParams(model="exponential", decay_lambda=1e-5))
    assert quicker.fingerprint() != exponential.fingerprint() != default.fingerprint()
    assert "pl_alpha=1.1," in Policy(decay=DecayParams(pl_halflife_days=3.0)).fingerprint()
