"""The two variance components, recovered from synthetic interval series whose components are
known (bench/synthetic.py generates them); the expected values come from the generating
parameters, never from the code under test."""

from __future__ import annotations

import math

import numpy as np

from bench.synthetic import SyntheticDesign, sweep
from pagelab.evidence.components import lag1_test, variance_components, within_component


def test_within_and_between_components_are_recovered_from_known_series():
    design = SyntheticDesign(rounds=40, run_s=100, interval_s=10, within_a=0.32, between_f=0.0025, block_sd=0.15)
    found = variance_components(sweep(design, np.random.default_rng(11)))
    for size in found.sizes:
        # a: 400 batches of 10 s per page size; its 95% interval holds the true 0.32
        assert size.within_a.low < 0.32 < size.within_a.high, size
        assert 0.8 * 0.32 < size.within_a.value < 1.25 * 0.32
        # independent intervals need no batching (a second size when the 5% test errs)
        assert size.lag1.batch_intervals <= 2
        # one page size's runs over rounds: the floor plus what a round shares
        assert size.between_f.low < 0.0025 + 0.15 ** 2 < size.between_f.high, size
    for pair in found.pairs:
        assert pair.rounds == 40 and pair.run_s == 100
        assert pair.within_a.low < 2 * 0.32 < pair.within_a.high
        # the pair's floor: each side's run effect (the round's share cancels)
        assert pair.between_f.low < 2 * 0.0025 < pair.between_f.high, pair
        assert pair.between_f.high < 0.15 ** 2  # the round's 15% did not leak into the pair


def test_a_floor_of_zero_is_estimated_near_zero_and_its_interval_reaches_it():
    design = SyntheticDesign(rounds=30, within_a=0.32, between_f=0.0, block_sd=0.08)
    found = variance_components(sweep(design, np.random.default_rng(5)))
    for pair in found.pairs:
        assert pair.between_f.low == 0.0
        # one round of 100 s spreads by about sqrt(2 * 0.32 / 100) = 8%
        assert abs(math.sqrt(pair.round_variance()) - math.sqrt(2 * 0.32 / 100)) < 0.025


def test_correlated_intervals_are_batched_until_the_batch_means_are_not():
    design = SyntheticDesign(rounds=20, run_s=1280, interval_s=10, ar1=0.7, between_f=0.0)
    runs = [run for run in sweep(design, np.random.default_rng(3)) if run.page_size == "4k"]
    a, lag1, _ = within_component(runs)
    assert lag1.batch_intervals >= 4 and lag1.independent
    # AR(1) with 0.7: the long-run variance is what a means; unbatched intervals would give
    # a * (1 - 0.7) / (1 + 0.7) = 0.18 of it
    assert 0.6 * 0.32 < a.value < 1.3 * 0.32


def test_the_lag1_test_rejects_a_correlated_series_and_keeps_an_independent_one():
    rng = np.random.default_rng(8)
    independent = [rng.normal(0, 1, 10) for _ in range(30)]
    r1, expected, p = lag1_test(independent)
    assert p > 0.05 and abs(expected - (-0.1)) < 1e-9  # -1/k for k = 10
    walk = [np.cumsum(rng.normal(0, 1, 10)) for _ in range(30)]
    assert lag1_test(walk)[2] < 0.001


def test_one_round_says_its_spread_needs_two_rounds_rather_than_nan():
    """With one round f has no estimate; `pagelab stats` says so in words, not 'nan%'."""
    from pagelab.evidence.components_text import components_lines

    design = SyntheticDesign(rounds=1, run_s=100, interval_s=10, within_a=0.32, between_f=0.0025, block_sd=0.15)
    lines = components_lines(variance_components(sweep(design, np.random.default_rng(5))))
    pair_lines = [line for line in lines if " vs " in line]
    assert pair_lines and all("spreads — (two rounds needed)" in line for line in pair_lines), pair_lines
    assert not any("nan" in line for line in lines), lines


def test_one_drifting_over_time_run_does_not_set_the_batch_size_of_its_page_sizes_verdict_runs():
    """A 1200 s run whose level drifts (here 3%/min, fed in whole, as a drift the drift test missed)
    asks for long batches that no 100 s verdict run fills; a must still rest on the 7 verdict runs
    (their own batch size, 4 or more degrees of freedom each) and stay near the true a = 0.32, with
    the drifting run's few long batches weighing only their degrees of freedom."""
    design = SyntheticDesign(rounds=7, run_s=100, interval_s=10, within_a=0.32, between_f=0.0, over_time_s=1200,
                             drift_pct_per_min=3.0, drifting_sizes=("4k",))
    runs = [run for run in sweep(design, np.random.default_rng(4)) if run.page_size == "4k"]
    size = variance_components(runs).size("4k")
    verdict, over_time = size.groups
    assert len(verdict.runs) == 7 and verdict.within_a.dof >= 28, verdict
    assert over_time.runs == ("4k-over-time",) and over_time.within_a.value > 3 * 0.32, over_time
    assert size.within_a.dof == verdict.within_a.dof + over_time.within_a.dof
    assert 0.6 * 0.32 < size.within_a.value < 1.6 * 0.32, size.within_a


def test_the_groups_test_is_bartletts_and_a_page_size_whose_groups_differ_is_noted():
    """Two runs that are each a group of their own (over-time runs), at batches of 1 interval: the
    groups' test must give scipy.stats.bartlett's p on their log rates (Bartlett 1937), and a note
    names the page size when the runs' within-run noise differs fourfold, none when it is alike."""
    import scipy.stats

    from pagelab.evidence.components import RunSeries, groups_differ, within_parts

    rng = np.random.default_rng(12)

    def run(name: str, sd: float) -> RunSeries:
        rates = tuple(np.exp(np.log(15_000) + rng.normal(0, sd, 120)))
        return RunSeries(name, "4k", "over-time", rates, (10.0,) * 120, "over_time")

    for sds, noted in (((0.02, 0.08), True), ((0.05, 0.05), False)):
        runs = [run("4k-long-a", sds[0]), run("4k-long-b", sds[1])]
        parts = within_parts(runs)
        assert [g.lag1.batch_intervals for g in parts] == [1, 1], parts  # the comparison below needs batches of 1
        expected = scipy.stats.bartlett(*[np.log(r.rates) for r in runs]).pvalue
        assert math.isclose(groups_differ(parts), expected, rel_tol=1e-9), (groups_differ(parts), expected)
        notes = variance_components(runs).notes
        assert any("4k: its groups' within-run a differ" in note for note in notes) == noted, notes
