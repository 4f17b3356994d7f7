"""Two sweeps set side by side (pagelab.evidence.two_sweeps and effect_difference): whether their
effects agree or differ, a uniform shift of every page size told from an interaction, and the knobs
that make two sweeps incomparable. The sweeps are synthetic (tests/test_evidence.py's runs,
rounds_with_slow_minutes and _steady_table: seeded log-normal runs around set medians), so the
effects and their difference are known; log(0.9 / 0.7) is worked by hand."""

from __future__ import annotations

import math

import pytest

from pagelab.evidence.intervals import NOT_RESOLVED
from tests.test_evidence import _steady_table, rounds_with_slow_minutes, runs


def test_an_effect_difference_of_twenty_points_is_found_and_equal_effects_agree():
    from pagelab.evidence import AGREE, DIFFER, effect_difference

    base = runs(10_000, 0.01, 10, 50)
    equal = effect_difference((runs(9_000, 0.01, 10, 51), base), (runs(10_800, 0.01, 10, 52), runs(12_000, 0.01, 10, 53)))
    assert equal.word == AGREE and -3 <= equal.low <= equal.high <= 3
    assert equal.first_pct == pytest.approx(-10, abs=2) and equal.second_pct == pytest.approx(-10, abs=2)
    moved = effect_difference((runs(9_000, 0.01, 10, 54), base), (runs(7_000, 0.01, 10, 55), runs(10_000, 0.01, 10, 56)))
    assert moved.word == DIFFER and moved.low > 0  # -10% against -30%: log(0.9 / 0.7) = +25 log points
    assert moved.low < 100 * math.log(0.9 / 0.7) < moved.high
    one_run = effect_difference(([9_000.0], [10_000.0]), (runs(7_000, 0.01, 10, 57), base))
    assert one_run.word == NOT_RESOLVED and math.isnan(one_run.low)


def test_an_effect_difference_resamples_rounds_where_a_setting_has_them():
    from pagelab.evidence import effect_difference

    a, b = rounds_with_slow_minutes(0.94, seed=7)
    c, d = rounds_with_slow_minutes(0.94, seed=9)
    by_round = effect_difference((a, b), (c, d))
    unpaired = effect_difference((list(a.values()), list(b.values())), (list(c.values()), list(d.values())))
    assert by_round.paired_first and by_round.paired_second and not unpaired.paired_first
    assert by_round.high - by_round.low < unpaired.high - unpaired.low, "the slow rounds cancel only when paired"


def test_two_sweeps_whose_levels_differ_by_20_percent_and_effects_agree_are_a_uniform_shift():
    from pagelab.evidence.two_sweeps import compare_bundles, effect_lines, effect_table, shift_lines

    slow = _steady_table({"4k": 10_000, "16k": 9_000}, seed=1)  # 16k 10% below 4k in both
    fast = _steady_table({"4k": 12_000, "16k": 10_800}, seed=2)  # every page size 20% higher
    effects = effect_table(slow, fast)
    tpmc = effects[effects["metric"] == "tpmc"]
    assert list(tpmc["word"]) == ["agree"]
    [line] = effect_lines(effects, "slow", "fast")
    assert line.startswith("16k vs 4k: ") and "] (95% CI), effects agree within ±3 points" in line, line
    text = "\n".join(shift_lines(compare_bundles(slow, fast, "slow", "fast"), effects, "slow", "fast"))
    assert "uniform shift" in text and "slow 4k vs fast 4k: TpmC −16." in text, text


def test_two_sweeps_whose_16k_effect_differs_by_20_points_are_an_interaction_not_a_shift():
    from pagelab.evidence.two_sweeps import compare_bundles, effect_lines, effect_table, shift_lines

    a = _steady_table({"4k": 10_000, "16k": 9_000}, seed=3)  # 16k -10%
    b = _steady_table({"4k": 12_000, "16k": 8_400}, seed=4)  # 16k -30%
    effects = effect_table(a, b)
    [line] = effect_lines(effects, "a", "b")
    assert "effects differ" in line and "agree" not in line, line
    text = "\n".join(shift_lines(compare_bundles(a, b, "a", "b"), effects, "a", "b"))
    assert "uniform shift" not in text and "interacts" in text, text


def test_two_sweeps_over_different_transports_are_told_apart():
    """The socket alone moves TpmC by 6-23% on 2 cores: compare must say when the transports differ,
    and need not say so for the stall limit, which changes no run that finishes, nor for the disk's
    read speed, recorded or not (knob disk_profile), which changes no run."""
    from pagelab.evidence.two_sweeps import knob_differences

    a = {"transport": "tcp", "stall_s": 30, "driver_mode": "statements", "disk_profile": True}
    b = {"transport": "socket", "stall_s": 60, "driver_mode": "statements"}  # made before the knob disk_profile
    assert knob_differences(a, b) == ["transport: 'tcp' vs 'socket'"]
