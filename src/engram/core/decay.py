"""Forgetting curves: how much of a memory survives after Δt seconds without use.

Each model is a monotone decreasing f with f(0) = 1 and f(∞) = 0, so every score threshold is
crossed exactly once. `retention` evaluates f; `time_to_retention` inverts it, which is what lets
the store index *when* each memory will cross the gc / danger-zone / promotion thresholds.
All functions accept numpy arrays (vectorised) or plain floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from engram.core.timeutil import DAY

DecayModel = Literal["power_law", "exponential", "two_component"]
_BISECTION_STEPS = 80
# Seconds: a memory whose score crosses a threshold later than this never does (10^292 years).
_NEVER = 1e300


@dataclass(frozen=True)
class DecayParams:
    """Parameters of the three forgetting curves; `model` selects the one in use."""

    model: DecayModel = "power_law"
    pl_alpha: float = 1.1
    pl_halflife_days: float = 3.0
    decay_lambda: float = math.log(2) / (3 * DAY)
    tc_lambda_fast: float = 1.603e-5
    tc_lambda_slow: float = 1.147e-6
    tc_weight_fast: float = 0.7

    def in_use(self) -> DecayParams:
        """These parameters with those of the other curves at their defaults: what the scores
        depend on. A λ left set for the exponential curve under the power law changed nothing,
        yet every switch of it recomputed every schedule of the store (audit)."""
        defaults = DecayParams()
        used = {
            "power_law": ("pl_alpha", "pl_halflife_days"),
            "exponential": ("decay_lambda",),
            "two_component": ("tc_lambda_fast", "tc_lambda_slow", "tc_weight_fast"),
        }[self.model]
        kept = {name: getattr(self, name) for name in used}
        return replace(defaults, model=self.model, **kept)

    @property
    def pl_t0(self) -> float:
        """Time scale chosen so that the power law halves exactly at its half-life."""
        return self.pl_halflife_days * DAY / (2 ** (1 / self.pl_alpha) - 1)


def retention(params: DecayParams, dt: ArrayLike) -> NDArray[np.float64]:
    """f(Δt): the surviving fraction after `dt` seconds without use (negative Δt counts as 0)."""
    d = np.maximum(np.asarray(dt, dtype=np.float64), 0.0)
    if params.model == "power_law":
        return np.power(1.0 + d / params.pl_t0, -params.pl_alpha)
    if params.model == "exponential":
        return np.exp(-params.decay_lambda * d)
    w = params.tc_weight_fast
    return w * np.exp(-params.tc_lambda_fast * d) + (1.0 - w) * np.exp(-params.tc_lambda_slow * d)


def time_to_retention(params: DecayParams, y: ArrayLike) -> NDArray[np.float64]:
    """The Δt ≥ 0 at which f(Δt) = y; 0 where y ≥ 1, +inf where y ≤ 0."""
    target = np.asarray(y, dtype=np.float64)
    out = np.zeros_like(target)
    inside = (target > 0.0) & (target < 1.0)
    out[target <= 0.0] = np.inf
    if not inside.any():
        return out
    yi = target[inside]
    if params.model == "power_law":
        with np.errstate(over="ignore"):  # beyond float range: +inf, as for y ≤ 0
            out[inside] = params.pl_t0 * (np.power(yi, -1.0 / params.pl_alpha) - 1.0)
    elif params.model == "exponential":
        with np.errstate(over="ignore"):  # a λ near the float minimum: +inf, never crosses
            out[inside] = -np.log(yi) / params.decay_lambda
    else:
        out[inside] = _invert_two_component(params, yi)
    return out


def _invert_two_component(params: DecayParams, y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bisection: no closed form, but f is bracketed by the two pure exponentials. On a log
    scale: the bracket's ends may be 10^30 apart and more (a slow rate near zero), and halving
    it linearly 80 times left the answer days off (audit); halving its logarithm reaches a
    relative width of 10^-12 within 60 steps from any bracket floats hold."""
    slow = min(params.tc_lambda_fast, params.tc_lambda_slow)
    fast = max(params.tc_lambda_fast, params.tc_lambda_slow)
    with np.errstate(over="ignore"):
        lo = np.log(-np.log(y) / fast)
        hi = np.log(np.minimum(-np.log(y) / slow, _NEVER))
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        above = retention(params, np.exp(mid)) > y
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return np.exp(0.5 * (lo + hi))
