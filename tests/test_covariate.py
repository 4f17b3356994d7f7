"""CUPED on a pair's rounds (pagelab.evidence.covariate): the adjusted effect, its slope theta and
its degrees of freedom, against values worked out by hand and against a known generating theta."""

from __future__ import annotations

import math

import numpy as np

from pagelab.evidence.covariate import adjusted_floor, cuped_effect


def test_four_rounds_give_the_hand_worked_fit():
    # x = 0 1 2 3 (mean 1.5), d = 1 3 2 6 (mean 3): Sxx = 2.25 + 0.25 + 0.25 + 2.25 = 5,
    # Sxy = (-1.5)(-2) + (-0.5)(0) + (0.5)(-1) + (1.5)(3) = 7, so theta = 7 / 5 = 1.4; the residuals
    # d - 3 - 1.4 (x - 1.5) are 0.1, 0.7, -1.7, 0.9, RSS = 0.01 + 0.49 + 2.89 + 0.81 = 4.2,
    # s^2 = 4.2 / (4 - 2) = 2.1, and the adjusted mean's se = sqrt(2.1 / 4).
    adjusted = cuped_effect([1, 3, 2, 6], [0, 1, 2, 3], within=[0.5, 0.5, 0.5, 0.5])
    assert math.isclose(adjusted.theta, 1.4)
    assert math.isclose(adjusted.effect.delta, 3.0)
    assert math.isclose(adjusted.effect.se, math.sqrt(2.1 / 4))
    # one degree of freedom fewer than the unadjusted mean's n - 1 = 3: theta came from the rounds
    assert adjusted.effect.dof == 2
    assert math.isclose(adjusted.effect.floor, 2.1 - 0.5)
    # r^2 = 1 - RSS / Syy, Syy = 4 + 0 + 1 + 9 = 14
    assert math.isclose(adjusted.r_squared, 1 - 4.2 / 14)
    floor = adjusted_floor([1, 3, 2, 6], [0, 1, 2, 3], [0.5] * 4)
    assert math.isclose(floor.value, 1.6) and floor.dof == 2 and floor.low < 1.6 < floor.high


def test_a_known_theta_is_recovered_and_the_spread_it_explains_goes():
    rng = np.random.default_rng(5)
    n, theta, delta = 400, 0.8, -0.05
    x = rng.normal(0, 0.04, n)
    noise = rng.normal(0, 0.01, n)
    d = delta + theta * x + noise
    adjusted = cuped_effect(d, x)
    assert abs(adjusted.theta - theta) < 4 * 0.01 / (0.04 * math.sqrt(n))  # 4 standard errors of the slope
    assert abs(adjusted.effect.delta - (delta + theta * x.mean())) < 4 * 0.01 / math.sqrt(n)
    # the adjusted rounds' spread is the noise's (0.01), not the unadjusted one's sqrt(0.01^2 + (0.8 * 0.04)^2)
    assert 0.9 * 0.01 < adjusted.effect.se * math.sqrt(n) < 1.1 * 0.01
    assert adjusted.effect.dof == n - 2


def test_too_few_rounds_or_a_constant_probe_give_no_adjustment():
    assert cuped_effect([0.1, 0.2, 0.0], [1, 2, 3]) is None
    assert cuped_effect([0.1, 0.2, 0.0, 0.3], [1, 1, 1, 1]) is None
    assert math.isnan(adjusted_floor([0.1, 0.2, 0.0], [1, 2, 3], [0.1] * 3).value)
