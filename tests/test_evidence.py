"""Two sides compared (pagelab.evidence.intervals): compare's and compare_rounds' verdicts,
intervals and equivalence margins, the rank test that must point the way the interval does, and
what too few runs can and cannot say. The series are synthetic, seeded log-normal runs around set
medians (runs, rounds_with_slow_minutes, _steady_table below, which the other evidence tests
share), so the answer is known; the exact tests' p-values and the median interval's confidence
quoted in the comments are worked by hand.

Elsewhere: steady state within a run (test_steady_state.py), families of pairs and their floors
(test_evidence_families.py), two sweeps side by side (test_two_sweeps.py)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from pagelab.evidence.intervals import (
    EQUIVALENT,
    FASTER,
    NOT_RESOLVED,
    SLOWER,
    compare,
    compare_rounds,
    log_spread,
    median_interval,
    repeats_needed,
    rounds_needed,
)


def runs(median: float, spread: float, n: int, seed: int) -> list[float]:
    """n run results scattered log-normally around `median`, as run-to-run noise is."""
    return list(median * np.exp(np.random.default_rng(seed).normal(0, spread, n)))


def test_a_known_shift_is_found_with_an_interval_around_it():
    a, b = runs(12_000, 0.03, 7, 1), runs(10_000, 0.03, 7, 2)
    comparison = compare(a, b)
    assert comparison.verdict == FASTER
    assert comparison.low < 1.2 < comparison.high
    assert compare(b, a).verdict == SLOWER


def test_no_shift_with_few_runs_is_not_resolved_and_says_what_would_resolve_it():
    a, b = runs(12_000, 0.05, 7, 3), runs(12_000, 0.05, 7, 4)
    comparison = compare(a, b)
    assert comparison.verdict == NOT_RESOLVED
    assert comparison.low < 1 < comparison.high
    assert comparison.low < 0.97 or comparison.high > 1.03  # the interval reaches past the ±3% margin
    assert comparison.detectable_pct > comparison.equivalence_pct == 3.0
    assert comparison.runs_for_equivalence > 7


def test_one_run_a_side_gives_no_interval_and_no_verdict():
    comparison = compare([15_000.0], [10_000.0])
    assert comparison.verdict == NOT_RESOLVED
    assert comparison.ratio == pytest.approx(1.5)
    assert math.isnan(comparison.low)


def test_three_runs_a_side_never_give_a_verdict_however_far_apart():
    # The exact rank test cannot reject with 3 against 3 (smallest two-sided p = 0.1).
    comparison = compare([30_000.0, 30_100.0, 30_200.0], [10_000.0, 10_100.0, 10_200.0])
    assert comparison.verdict == NOT_RESOLVED
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


def test_rounds_with_no_shift_are_not_resolved_at_this_spread():
    a, b = rounds_with_slow_minutes(1.0, seed=8)
    comparison = compare_rounds(a, b)
    assert comparison.paired and comparison.verdict == NOT_RESOLVED
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


def test_equal_rounds_are_equivalent_without_a_test_or_an_error():
    same = {r: 10_000.0 for r in range(1, 8)}
    comparison = compare_rounds(same, dict(same))
    assert comparison.verdict == EQUIVALENT and comparison.p_value == 1.0 and comparison.ratio == 1.0


def test_a_steadier_ratio_needs_fewer_rounds():
    assert rounds_needed(None) is None
    assert 6 <= rounds_needed(0.02) < rounds_needed(0.08)


def test_the_median_interval_says_what_confidence_it_really_has():
    three = median_interval([3.0, 1.0, 2.0])
    assert (three.low, three.median, three.high) == (1.0, 2.0, 3.0)
    assert three.confidence == pytest.approx(0.75)
    ten = median_interval([float(v) for v in range(1, 11)])
    # the 2nd to the 9th of 10 (P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024): 1 - 2 x 11/1024
    assert (ten.low, ten.high) == (2.0, 9.0) and ten.confidence == pytest.approx(1 - 22 / 1024)
    assert ten.far_end_pct == pytest.approx(100 * max(5.5 - ten.low, ten.high - 5.5) / 5.5)


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


def _bundle_table(medians: dict[str, float], seed: int, n: int = 6):
    """A RunTable of n runs per page size around the given medians (3% log-normal spread)."""
    import pandas as pd

    from pagelab.evidence.runs import METRICS, RunTable

    rows = [{"run": f"{size}-r{i + 1}", "page_size": size, "repeat": i + 1, **{m.name: math.nan for m in METRICS},
             "tpmc": value}
            for k, (size, median) in enumerate(medians.items())
            for i, value in enumerate(runs(median, 0.03, n, seed * 10 + k))]
    return RunTable(pd.DataFrame(rows), [], {}, list(medians))


def test_a_side_with_a_zero_median_gives_an_infinite_ratio_without_warnings():
    """IOPS on a tmpfs are 0: the ratio is infinite, said once, and numpy must not print warnings
    into the sweep's log for every resample."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comparison = compare([5.0, 1.0], [0.0, 0.0])
    assert comparison.ratio == math.inf and comparison.verdict == NOT_RESOLVED


# --- equivalence (known answers) -----------------------------------------------------------------


def test_equal_sides_are_equivalent_with_many_runs_and_not_resolved_with_few():
    many = compare(runs(10_000, 0.03, 60, 21), runs(10_000, 0.03, 60, 22))
    assert many.verdict == EQUIVALENT
    assert 0.97 <= many.low and many.high <= 1.03
    few = compare(runs(10_000, 0.03, 4, 23), runs(10_000, 0.03, 4, 24))
    assert few.verdict == NOT_RESOLVED
    assert not (0.97 <= few.low and few.high <= 1.03)
    assert few.runs_for_equivalence > 4 and few.detectable_pct > 3


def test_a_ten_percent_shift_is_faster_one_way_and_slower_the_other():
    higher, base = runs(11_000, 0.03, 9, 25), runs(10_000, 0.03, 9, 26)
    assert compare(higher, base).verdict == FASTER
    assert compare(base, higher).verdict == SLOWER
    by_round = compare_rounds(dict(enumerate(higher)), dict(enumerate(base)))
    assert by_round.paired and by_round.verdict == FASTER


def test_a_wider_margin_turns_not_resolved_into_equivalent():
    a, b = runs(10_000, 0.03, 12, 27), runs(10_000, 0.03, 12, 28)
    narrow, wide = compare(a, b, equivalence_pct=0.5), compare(a, b, equivalence_pct=20)
    assert narrow.verdict == NOT_RESOLVED and wide.verdict == EQUIVALENT


def _steady_table(medians: dict[str, float], seed: int, n: int = 10, spread: float = 0.01):
    """A RunTable of n runs per page size around the given medians, 1% log-normal spread."""
    import pandas as pd

    from pagelab.evidence.runs import METRICS, RunTable

    rows = [{"run": f"{size}-r{i + 1}", "page_size": size, "repeat": i + 1, **{m.name: math.nan for m in METRICS},
             "tpmc": value}
            for k, (size, median) in enumerate(medians.items())
            for i, value in enumerate(runs(median, spread, n, seed * 10 + k))]
    return RunTable(pd.DataFrame(rows), [], {"equivalence_pct": 3.0}, list(medians))


def test_stats_json_carries_the_estimate_interval_adjusted_p_word_and_margin(tmp_path):
    import json

    from tests.conftest import pagelab_here  # in-process: a process of its own spends seconds importing

    bundle = tmp_path / "bundle"
    entries = []
    for k, (size, label, median) in enumerate(((4096, "4k", 10_000), (16384, "16k", 8_000))):
        for i, value in enumerate(runs(median, 0.02, 7, 60 + k)):
            name = f"{label}-r{i + 1}"
            (bundle / name).mkdir(parents=True)
            (bundle / name / "summary.json").write_text(json.dumps({"tpmc": value}))
            entries.append({"name": name, "page_size_bytes": size, "page_size": label, "repeat": i + 1,
                            "status": "done"})
    (bundle / "sweep.json").write_text(json.dumps({"runs": entries,
                                                   "profile": {"page_sizes": [4096, 16384], "equivalence_pct": 4}}))
    done = pagelab_here("stats", bundle, "--format", "json")
    assert done.returncode == 0, done.stderr
    [pair] = [p for p in json.loads(done.stdout)["pairs"] if p["metric"] == "tpmc"]
    assert (pair["a"], pair["b"], pair["verdict"], pair["equivalence_pct"]) == ("16k", "4k", "slower", 4)
    assert pair["low_pct"] < pair["change_pct"] < pair["high_pct"] < 0
    assert pair["change_pct"] == pytest.approx(-20, abs=3)
    assert 0 < pair["p_adjusted"] < 0.05 and pair["paired"] is True


def test_equivalence_pct_zero_or_negative_is_refused():
    from pagelab.common.errors import UsageError
    from pagelab.sweep.profiles import load_profile

    assert load_profile("smoke").equivalence_pct == 3.0
    for bad in ("0", "-2"):
        with pytest.raises(UsageError, match=f"equivalence_pct: {bad} is out of range; allowed: a number above 0"):
            load_profile("smoke", [f"equivalence_pct={bad}"])


def test_runs_with_a_zero_give_no_interval_rather_than_a_point_that_reads_equivalent():
    """A metric that is 0 in some runs (no device I/O on a tmpfs) leaves some resamples without a
    ratio. That is no interval, not the point estimate as one: a point inside ±3% would say
    "equivalent" of runs that range from 0 to 11."""
    from pagelab.evidence.families import AGREE, effect_difference
    from pagelab.evidence.wording import verdict_line

    a, b = [10, 10.5, 11, 0, 0], [10, 10.2, 10.1, 10.3, 0]
    found = compare(a, b)
    assert found.verdict == NOT_RESOLVED and math.isnan(found.low) and math.isnan(found.high)
    row = {"metric": "tpmc", "a": "16k", "b": "4k", "runs_a": 5, "runs_b": 5, "change_pct": found.change_pct,
           "low_pct": found.low_pct, "high_pct": found.high_pct, "verdict": found.verdict,
           "equivalence_pct": 3.0, "detectable_pct": found.detectable_pct, "runs_for_equivalence": None,
           "paired": False}
    assert "some resampled medians are 0 (no ratio), no interval: not resolved" in verdict_line(row)
    # every run alike on each side is still a point, and an honest one
    alike = compare([10, 10, 10, 10], [10, 10, 10, 10])
    assert (alike.low, alike.high) == (1.0, 1.0) and alike.verdict == EQUIVALENT
    changed = effect_difference((a, b), ([10, 10.1, 10.2, 10.3], [10, 10.1, 10.2, 10.3]))
    assert changed.word != AGREE and math.isnan(changed.low)


def test_a_verdict_needs_the_rank_test_to_point_the_way_the_interval_does():
    """30 rounds: in 16, a is 0.5 below b (at b = 1 and at b = 3); in 14, a is 0.1 above b = 1. The
    medians put a 10% above b, with a narrow interval, and the signed-rank test rejects -- for a
    below b. That is no "faster"."""
    jitter = np.exp(np.random.default_rng(1).normal(0, 0.002, (2, 30)))
    b = np.array([1.0] * 8 + [3.0] * 8 + [1.0] * 14) * jitter[0]
    a = np.array([0.5] * 8 + [2.5] * 8 + [1.1] * 14) * jitter[1]
    assert (a < b).sum() == 16 and np.median(a) / np.median(b) > 1.05
    found = compare_rounds(dict(enumerate(a)), dict(enumerate(b)))
    assert found.paired and found.low > 1 and found.p_value < 0.05, found
    assert found.verdict == NOT_RESOLVED
    # swapped, the interval lies below 1 and the test points up: no "slower" either
    assert compare_rounds(dict(enumerate(b)), dict(enumerate(a))).verdict == NOT_RESOLVED
    # and its line says why the test alone did not call it
    assert found.test_alone == "direction", found
    from pagelab.evidence.runs import METRICS_BY_NAME
    from pagelab.evidence.pairs import comparison_row
    from pagelab.evidence.wording import verdict_line

    line = verdict_line(comparison_row(found, "16k", "4k", METRICS_BY_NAME["tpmc"]))
    assert "the test alone would call it, but it points the other way from the interval" in line, line


def test_a_line_whose_test_rejects_but_whose_interval_reaches_across_no_change_says_why_it_is_not_resolved():
    """Read IOPS 8k vs 4k on the shipped course sweep: p 0.039 after Holm, below 5%, and the interval
    [-16.7%, +0.77%]: not resolved, as a call needs both, and the line says so beside its p."""
    from pagelab.evidence.intervals import judged
    from pagelab.evidence.runs import METRICS_BY_NAME
    from pagelab.evidence.pairs import comparison_row
    from pagelab.evidence.wording import verdict_line

    a, b = runs(95, 0.05, 8, 1), runs(100, 0.05, 8, 2)
    measured = compare_rounds(dict(enumerate(a)), dict(enumerate(b)))
    straddling = replace(measured, low=0.833, high=1.0077, direction=-1)
    found = judged(straddling, 0.039, 0.95, 2)
    assert found.verdict == NOT_RESOLVED and found.test_alone == "interval", found
    line = verdict_line(comparison_row(found, "8k", "4k", METRICS_BY_NAME["read_iops"]))
    assert "(p 0.039, Holm: the test alone would call it, but the interval reaches across no change, and a call " \
           "needs both; " in line, line
    # the same pair with its test above the level says nothing of the kind
    assert judged(straddling, 0.06, 0.95, 2).test_alone == ""
    # nor a called one
    assert judged(replace(straddling, high=0.99), 0.039, 0.95, 2).test_alone == ""
