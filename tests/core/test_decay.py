"""Forgetting curves: reference values from the specification, and their properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.core.decay import DecayParams, retention, time_to_retention
from engram.core.timeutil import DAY

POWER = DecayParams(model="power_law")
EXPO = DecayParams(model="exponential")
TWO = DecayParams(model="two_component")
MODELS = [POWER, EXPO, TWO]


@pytest.mark.parametrize(("days", "expected"), [(3, 0.5), (7, 0.1984), (14, 0.0394), (30, 0.00098)])
def test_exponential_matches_reference_values(days: float, expected: float) -> None:
    assert float(retention(EXPO, days * DAY)) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize(("days", "expected"), [(1, 0.754), (3, 0.5), (7, 0.293), (30, 0.081)])
def test_power_law_matches_reference_values(days: float, expected: float) -> None:
    assert float(retention(POWER, days * DAY)) == pytest.approx(expected, abs=1e-3)


def test_default_lambda_is_a_three_day_half_life() -> None:
    assert EXPO.decay_lambda == pytest.approx(2.673e-6, rel=1e-3)


@pytest.mark.parametrize("params", [POWER, EXPO], ids=["power_law", "exponential"])
def test_half_life_gives_exactly_one_half(params: DecayParams) -> None:
    assert float(retention(params, 3 * DAY)) == pytest.approx(0.5, abs=1e-12)


def test_two_component_mixes_fast_and_slow_exponentials() -> None:
    t = 5 * DAY
    expected = 0.7 * math.exp(-1.603e-5 * t) + 0.3 * math.exp(-1.147e-6 * t)
    assert float(retention(TWO, t)) == pytest.approx(expected, rel=1e-12)


def test_models_really_differ() -> None:
    """The upstream computed plain exponential for every model; ours must not."""
    values = {p.model: float(retention(p, 10 * DAY)) for p in MODELS}
    assert len({round(v, 6) for v in values.values()}) == 3


@pytest.mark.parametrize("params", MODELS, ids=lambda p: p.model)
def test_retention_is_one_at_zero_and_never_negative_time(params: DecayParams) -> None:
    assert float(retention(params, 0.0)) == 1.0
    assert float(retention(params, -100.0)) == 1.0


@pytest.mark.parametrize("params", MODELS, ids=lambda p: p.model)
@given(a=st.floats(0, 1e8), b=st.floats(0, 1e8))
def test_retention_is_monotone_decreasing(params: DecayParams, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert float(retention(params, lo)) >= float(retention(params, hi))


@pytest.mark.parametrize("params", MODELS, ids=lambda p: p.model)
@given(y=st.floats(1e-6, 0.999999))
def test_time_to_retention_inverts_retention(params: DecayParams, y: float) -> None:
    dt = float(time_to_retention(params, y))
    assert float(retention(params, dt)) == pytest.approx(y, rel=1e-9)


@given(
    weight=st.floats(0.0, 1.0),
    fast=st.floats(1e-9, 1.0),
    slow_exponent=st.floats(-300.0, -1.0),
    y=st.floats(1e-6, 0.999999),
)
def test_two_component_inversion_holds_for_rates_far_apart(
    weight: float, fast: float, slow_exponent: float, y: float
) -> None:
    """The bracket between the two pure exponentials may span 10^300: halving it linearly
    80 times put the forget time of `tc_weight_fast=1, tc_lambda_slow=1e-30` at day 27.3
    instead of 13.0, and gc never collected a memory that had long crossed (audit)."""
    params = DecayParams(
        model="two_component",
        tc_weight_fast=weight,
        tc_lambda_fast=fast,
        tc_lambda_slow=10.0**slow_exponent,
    )
    dt = float(time_to_retention(params, y))
    if math.isfinite(dt) and dt < 1e299:
        assert float(retention(params, dt)) == pytest.approx(y, rel=1e-9)
    else:  # slower than floats can tell: it never crosses within any time a store holds
        assert float(retention(params, 1e299)) > y


@pytest.mark.parametrize("model", ["exponential", "two_component"])
def test_a_rate_near_the_float_minimum_never_crosses_and_warns_nothing(model: str) -> None:
    """`ENGRAM_DECAY_LAMBDA=1e-320` printed numpy's "overflow encountered in divide" on
    every save (warnings are errors in these tests)."""
    params = DecayParams(
        model=model, decay_lambda=1e-320, tc_lambda_fast=1e-320, tc_lambda_slow=1e-320
    )
    assert float(time_to_retention(params, 0.05)) > 1e299


def test_time_to_retention_edges() -> None:
    out = time_to_retention(POWER, np.array([1.0, 2.0, 0.0, -1.0]))
    assert list(out[:2]) == [0.0, 0.0]
    assert np.isinf(out[2:]).all()


def test_power_law_has_the_heavier_tail() -> None:
    assert float(retention(POWER, 30 * DAY)) > 50 * float(retention(EXPO, 30 * DAY))
