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


def test_time_to_retention_edges() -> None:
    out = time_to_retention(POWER, np.array([1.0, 2.0, 0.0, -1.0]))
    assert list(out[:2]) == [0.0, 0.0]
    assert np.isinf(out[2:]).all()


def test_power_law_has_the_heavier_tail() -> None:
    assert float(retention(POWER, 30 * DAY)) > 50 * float(retention(EXPO, 30 * DAY))
