"""Each block's within variance from the a of its runs' group (SizeComponents.role_a): a round's
runs the verdict group's a, the over-time block's runs their own, in the components, the model's
w_b and the planner; every expected figure worked by hand here. Light: no server."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from pagelab.evidence.components import RunSeries, variance_components
from pagelab.evidence.components_text import GROUP_A_WORDS, components_lines
from pagelab.evidence.model import pair_effect
from pagelab.evidence.planner import Costs, design, equal_variance, precision_variance


def _alternating(name: str, size: str, block: str, n: int, step: float, role: str = "verdict") -> RunSeries:
    """n intervals of 10 s whose log rates alternate +step, -step about log 1000: batch means of one
    interval pass the lag-1 test (their autocorrelation is -1), so a = 10 s x the log rates' variance."""
    logs = [step if i % 2 == 0 else -step for i in range(n)]
    return RunSeries(name, size, block, tuple(1000 * math.exp(x) for x in logs), (10.0,) * n, role)


def _sweep() -> list[RunSeries]:
    runs = []
    for size in ("4k", "16k"):
        runs += [_alternating(f"{size}-r{r}", size, f"r{r}", 10, 0.1) for r in (1, 2, 3)]
        runs.append(_alternating(f"{size}-over-time", size, "over-time", 100, 0.05, "over_time"))
    return runs


# By hand: a verdict run's 10 log rates are +-0.1 about their mean 0, so their variance on 9 df is
# 10 x 0.01 / 9 and a = 10 s x that = 1/9; the over-time run's 100 are +-0.05: 100 x 0.0025 / 99 x 10 s
VERDICT_A, OVER_TIME_A = 1 / 9, 2.5 / 99
POOLED_A = (27 * VERDICT_A + 99 * OVER_TIME_A) / 126  # 3 verdict runs x 9 df, and 99 df


def test_a_run_takes_its_groups_a_and_the_pooled_a_stays_the_summary():
    found = variance_components(_sweep(), ("4k", "16k"))
    size = found.size("16k")
    assert size.within_a.value == pytest.approx(POOLED_A)
    assert size.role_a("verdict").value == pytest.approx(VERDICT_A)
    assert size.role_a("over_time").value == pytest.approx(OVER_TIME_A)
    pair = found.pair("16k", "4k")
    assert pair.within_a.value == pytest.approx(2 * VERDICT_A)  # the rounds' a: the two verdict groups'
    assert pair.over_time_a.value == pytest.approx(2 * OVER_TIME_A)
    said = "\n".join(components_lines(found))  # `pagelab stats`: the pooled a per page size, and what the blocks took
    assert f"a = {1e4 * POOLED_A:,.0f} [" in said and "(the verdict runs' a, as its rounds' w)" in said
    assert GROUP_A_WORDS in said
    # without over-time runs a page size's over-time a is its verdict runs', and a pair has none of its own
    rounds_only = variance_components([run for run in _sweep() if run.role == "verdict"], ("4k", "16k"))
    assert rounds_only.size("16k").role_a("over_time").value == pytest.approx(VERDICT_A)
    assert rounds_only.pair("16k", "4k").over_time_a is None


def test_the_models_floor_takes_each_blocks_own_groups_a():
    found = variance_components(_sweep(), ("4k", "16k"))
    # d_b = 0 in all 4 blocks (S^2 = 0), so the floor sets the variance: mean w chi2(0.05, 3) / 3 / 4
    side = {"r1": (0.0, 100.0), "r2": (0.0, 100.0), "r3": (0.0, 100.0), "over-time": (0.0, 1000.0)}
    effect = pair_effect(side, side, found.size("16k"), found.size("4k"))
    round_w = 2 * VERDICT_A / 100  # a_A / T_A + a_B / T_B, the verdict runs' a
    over_time_w = 2 * OVER_TIME_A / 1000  # the over-time runs' own a
    mean_w = (3 * round_w + over_time_w) / 4
    assert effect.floored
    assert effect.se ** 2 == pytest.approx(mean_w * stats.chi2.ppf(0.05, 3) / 3 / 4)
    assert effect.round_variance == pytest.approx(round_w)  # the median of the 4 w (3 rounds alike) + f = 0


def test_the_planner_prices_the_over_time_block_with_its_own_a():
    a, f, ot_a = 0.2, 0.001, 0.05  # 3 rounds of 100 s, an over-time block of 1000 s
    by_hand = (3 * (0.2 / 100 + 0.001) + 0.05 / 1000 + 0.001) / 4 ** 2  # = 0.000628125
    assert by_hand == pytest.approx(0.000628125)
    assert equal_variance(a, f, 3, 100, 1000, ot_a) == pytest.approx(by_hand)
    assert design(a, f, Costs(0, 0, 2), 3, 100, 0.05, extra_blocks=1, over_time_s=1000,
                  over_time_a=ot_a).variance == pytest.approx(by_hand)
    # precision weights: w = 0.002 (3 rounds), 0.00005 (the over-time block); f_U = (w + f) 3 / chi2(0.05, 3) - w
    bound = 0.003 * 3 / 0.35184631915 - 0.002
    v = [1 / (0.002 + bound)] * 3 + [1 / (0.00005 + bound)]
    expected = (3 * v[0] ** 2 * 0.003 + v[3] ** 2 * 0.00105) / sum(v) ** 2
    found = precision_variance(a, f, 3, 100, 1000, ot_a)
    assert found.bound == pytest.approx(bound, rel=1e-6)  # chi2(0.05, 3) to 11 digits
    assert found.variance == pytest.approx(expected)
    assert found.over_time_share == pytest.approx(v[3] / sum(v))
