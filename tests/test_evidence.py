"""The statistics behind every verdict, on synthetic series whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pagelab.evidence.intervals import (
    FASTER,
    NOT_DISTINGUISHABLE,
    SLOWER,
    compare,
    compare_rounds,
    log_spread,
    median_interval,
    repeats_needed,
    rounds_needed,
)
from pagelab.evidence.steady import batch_means, mser5


def runs(median: float, spread: float, n: int, seed: int) -> list[float]:
    """n run results scattered log-normally around `median`, as run-to-run noise is."""
    return list(median * np.exp(np.random.default_rng(seed).normal(0, spread, n)))


def test_a_known_shift_is_found_with_an_interval_around_it():
    a, b = runs(12_000, 0.03, 7, 1), runs(10_000, 0.03, 7, 2)
    comparison = compare(a, b)
    assert comparison.verdict == FASTER
    assert comparison.low < 1.2 < comparison.high
    assert compare(b, a).verdict == SLOWER


def test_no_shift_is_not_distinguishable():
    a, b = runs(12_000, 0.05, 7, 3), runs(12_000, 0.05, 7, 4)
    comparison = compare(a, b)
    assert comparison.verdict == NOT_DISTINGUISHABLE
    assert comparison.low < 1 < comparison.high


def test_one_run_a_side_gives_no_interval_and_no_verdict():
    comparison = compare([15_000.0], [10_000.0])
    assert comparison.verdict == NOT_DISTINGUISHABLE
    assert comparison.ratio == pytest.approx(1.5)
    assert math.isnan(comparison.low)


def test_three_runs_a_side_never_give_a_verdict_however_far_apart():
    # The exact rank test cannot reject with 3 against 3 (smallest two-sided p = 0.1).
    comparison = compare([30_000.0, 30_100.0, 30_200.0], [10_000.0, 10_100.0, 10_200.0])
    assert comparison.verdict == NOT_DISTINGUISHABLE
    assert comparison.low > 1  # the interval alone would have said "faster"
    assert comparison.p_value == pytest.approx(0.1)


def rounds_with_slow_minutes(effect: float, seed: int, n: int = 9) -> tuple[dict, dict]:
    """Two page sizes over n rounds, b = 10,000 and a = b * effect, 2% noise per run, and rounds 1
    and 6 slow by 15% for both (a slow minute of the machine falls on every run of its round)."""
    rng = np.random.default_rng(seed)
    slow = np.where(np.isin(np.arange(n), [1, 6]), 0.85, 1.0)
    a = 10_000 * effect * slow * np.exp(rng.normal(0, 0.02, n))
    b = 10_000 * slow * np.exp(rng.normal(0, 0.02, n))
    return dict(enumerate(a.tolist(), start=1)), dict(enumerate(b.tolist(), start=1))


def test_rounds_kept_together_find_a_shift_that_slow_rounds_hide_from_runs_alone():
    a, b = rounds_with_slow_minutes(0.94, seed=7)
    by_round = compare_rounds(a, b)
    assert by_round.paired and by_round.n_a == by_round.n_b == 9
    assert by_round.verdict == SLOWER and by_round.low < 0.94 < by_round.high
    run_by_run = compare(list(a.values()), list(b.values()))
    assert not run_by_run.paired
    assert (by_round.high - by_round.low) < (run_by_run.high - run_by_run.low), "the slow rounds widen only the unpaired interval"
    assert compare_rounds(b, a).verdict == FASTER


def test_rounds_with_no_shift_are_not_distinguishable():
    a, b = rounds_with_slow_minutes(1.0, seed=8)
    comparison = compare_rounds(a, b)
    assert comparison.paired and comparison.verdict == NOT_DISTINGUISHABLE
    assert comparison.low < 1 < comparison.high


def test_a_round_one_side_did_not_finish_is_left_out_and_few_rounds_fall_back_to_runs():
    a, b = rounds_with_slow_minutes(0.94, seed=7)
    a[3] = math.nan  # 4k-r3 failed: round 3 cannot be compared
    del b[5]  # and round 5 has no 16k run at all
    comparison = compare_rounds(a, b)
    assert comparison.paired and comparison.n_a == comparison.n_b == 7
    few_a = {r: a[r] for r in (1, 2, 4, 6, 7)}
    few_b = {r: b[r] for r in (1, 2, 4, 6, 7)}
    fallback = compare_rounds(few_a, few_b)
    assert not fallback.paired, "5 rounds cannot reach p < 0.05 with the signed-rank test"
    assert (fallback.n_a, fallback.n_b) == (5, 5)


def test_equal_rounds_give_no_verdict_and_no_error():
    same = {r: 10_000.0 for r in range(1, 8)}
    comparison = compare_rounds(same, dict(same))
    assert comparison.verdict == NOT_DISTINGUISHABLE and comparison.p_value == 1.0 and comparison.ratio == 1.0


def test_a_steadier_ratio_needs_fewer_rounds():
    assert rounds_needed(None) is None
    assert 6 <= rounds_needed(0.02) < rounds_needed(0.08)


def test_the_median_interval_says_what_confidence_it_really_has():
    three = median_interval([3.0, 1.0, 2.0])
    assert (three.low, three.median, three.high) == (1.0, 2.0, 3.0)
    assert three.confidence == pytest.approx(0.75)
    ten = median_interval([float(v) for v in range(1, 11)])
    assert ten.confidence == 0.95
    assert 1 < ten.low <= 3 and 8 <= ten.high < 10  # order statistics inside the range
    assert ten.half_width_pct == pytest.approx(100 * max(5.5 - ten.low, ten.high - 5.5) / 5.5)


def test_more_spread_needs_more_repeats():
    assert repeats_needed(None) is None
    assert repeats_needed(0.0) == 4  # the fewest with which the rank test can reject
    few, many = repeats_needed(0.02), repeats_needed(0.10)
    assert 4 <= few < many
    assert repeats_needed(0.02, resolve_pct=1) > few


def test_log_spread_pools_groups_around_their_own_centres():
    # Two page sizes far apart but each tight: the spread is small, not the gap between them.
    spread = log_spread([runs(10_000, 0.02, 20, 5), runs(20_000, 0.02, 20, 6)])
    assert 0.01 < spread < 0.03
    assert log_spread([[1.0], [2.0]]) is None


def test_mser5_cuts_a_warm_up_and_calls_what_follows_level():
    rng = np.random.default_rng(7)
    warming = np.linspace(200, 1000, 30) + rng.normal(0, 10, 30)
    level = 1000 + rng.normal(0, 10, 90)
    cut = mser5(np.concatenate([warming, level]))
    assert cut.level
    assert 20 <= cut.cut <= 40


def test_mser5_does_not_call_a_rising_series_level():
    rng = np.random.default_rng(8)
    assert not mser5(np.linspace(200, 1000, 60) + rng.normal(0, 10, 60)).level


def test_mser5_leaves_a_stationary_series_almost_whole():
    cut = mser5(1000 + np.random.default_rng(9).normal(0, 20, 100))
    assert cut.level
    assert cut.cut <= 25


def test_batch_means_cover_the_true_mean_about_95_times_in_100():
    rng = np.random.default_rng(10)
    covered = 0
    for _ in range(400):
        interval = batch_means(500 + rng.normal(0, 50, 200))
        covered += abs(interval.mean - 500) <= interval.half_width
        assert 0 < interval.half_width_pct < 10
    assert 0.90 <= covered / 400 <= 0.99


def test_batch_means_widen_for_correlated_intervals_and_need_enough_values():
    rng = np.random.default_rng(11)
    noise = rng.normal(0, 50, 200)
    correlated = 500 + np.convolve(noise, np.ones(10) / 10, mode="same") * 3  # neighbours move together
    assert batch_means(correlated).half_width > batch_means(500 + noise).half_width
    assert batch_means(noise[:9]) is None


def _bundle_table(medians: dict[str, float], seed: int, n: int = 6):
    """A RunTable of n runs per page size around the given medians (3% log-normal spread)."""
    import pandas as pd

    from pagelab.evidence.tables import METRICS, RunTable

    rows = [{"run": f"{size}-r{i + 1}", "page_size": size, "repeat": i + 1, **{m.name: math.nan for m in METRICS},
             "tpmc": value}
            for k, (size, median) in enumerate(medians.items())
            for i, value in enumerate(runs(median, 0.03, n, seed * 10 + k))]
    return RunTable(pd.DataFrame(rows), [], {}, list(medians))


def test_a_shift_of_the_whole_machine_is_named_and_the_page_size_effect_compared_without_it():
    from pagelab.evidence.tables import compare_bundles, effect_lines, shift_line

    slower_day = _bundle_table({"4k": 13_500, "16k": 12_150}, seed=1)  # 16k 10% below 4k, both 10% down
    faster_day = _bundle_table({"4k": 15_000, "16k": 13_500}, seed=2)
    frame = compare_bundles(slower_day, faster_day, "monday", "tuesday")
    line = shift_line(frame, "monday", "tuesday")
    assert line and "lower in monday than in tuesday" in line, line
    effects = effect_lines(slower_day, faster_day, "monday", "tuesday")
    assert effects[0] == "16k vs 4k: the same verdict", effects
    assert all("slower" in text for text in effects[1:]), effects


def test_no_shift_is_named_when_page_sizes_move_apart():
    from pagelab.evidence.tables import compare_bundles, effect_lines, shift_line

    a = _bundle_table({"4k": 15_000, "16k": 12_000}, seed=3)  # 16k 20% slower in a
    b = _bundle_table({"4k": 13_000, "16k": 13_000}, seed=4)  # and no slower in b
    assert shift_line(compare_bundles(a, b, "a", "b"), "a", "b") is None
    assert effect_lines(a, b, "a", "b")[0] == "16k vs 4k: the verdicts differ"


def test_a_side_with_a_zero_median_gives_an_infinite_ratio_without_warnings():
    """IOPS on a tmpfs are 0: the ratio is infinite, said once, and numpy must not print warnings
    into the sweep's log for every resample."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comparison = compare([5.0, 1.0], [0.0, 0.0])
    assert comparison.ratio == math.inf and comparison.verdict == NOT_DISTINGUISHABLE
