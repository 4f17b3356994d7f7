"""The A/A checks of the two-level model: a sweep's odd rounds against its even rounds
(`pagelab stats --checks`) and two sweeps (`pagelab compare`), each pair's effect by the model in
each and their difference tested on Welch's degrees of freedom; bundles without interval series
keep the older checks and say so. Synthetic sweeps from bench/synthetic.py with known effects,
written as bundles where the command is under test. Light: no server."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bench.synthetic import SyntheticDesign, sweep, write_bundle
from pagelab.evidence.families import AGREE, DIFFER, effect_differences
from pagelab.evidence.model import EffectGap, pair_effect
from pagelab.evidence.self_checks import pair_halves

SIZES = ("4k", "8k", "16k")
# 16k 8% behind 4k, 8k level with it; little within-run noise and a small floor, 10 rounds
STEADY = SyntheticDesign(rounds=10, effects=(0.0, 0.0, math.log(0.92)), within_a=0.02, between_f=0.0001,
                         block_sd=0.03)


def pagelab(capsys, *args) -> tuple[int, str, str]:
    from pagelab.cli import main

    capsys.readouterr()
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


def round_of(runs) -> dict[str, int]:
    """{run: round} of synthetic runs, whose blocks are 'r1', 'r2', ..."""
    return {run.run: int(run.block[1:]) for run in runs if run.role == "verdict"}


def shifted_in_odd_rounds(design: SyntheticDesign, odd_effects: tuple[float, ...], seed: int) -> list:
    """A sweep whose odd rounds ran with other effects than its even rounds, in round order."""
    rng = np.random.default_rng(seed)
    odd = [run for run in sweep(SyntheticDesign(**{**vars(design), "effects": odd_effects}), rng)
           if int(run.block[1:]) % 2 == 1]
    even = [run for run in sweep(design, rng) if int(run.block[1:]) % 2 == 0]
    return sorted(odd + even, key=lambda run: int(run.block[1:]))


def test_the_difference_of_two_model_estimates_is_welchs_t_test_of_their_rounds():
    # with next to no within-run noise the floor never binds, and each estimate is the mean of its
    # rounds' log-ratios: the gap is then Welch's two-sample t-test of those log-ratios (scipy)
    from pagelab.evidence.components import Estimate

    rng = np.random.default_rng(5)
    within = Estimate(1e-9, 1e-9, 1e-9, 100)  # a of 1e-9: the floor is far below the rounds' spread
    d_first, d_second = rng.normal(0.0, 0.03, 6), rng.normal(0.05, 0.06, 4)
    first = pair_effect({f"r{i}": (d, 60) for i, d in enumerate(d_first)}, {f"r{i}": (0.0, 60) for i in range(6)},
                        within, within)
    second = pair_effect({f"r{i}": (d, 60) for i, d in enumerate(d_second)}, {f"r{i}": (0.0, 60) for i in range(4)},
                         within, within)
    welch = stats.ttest_ind(d_first, d_second, equal_var=False)
    gap = EffectGap(first, second)
    assert gap.difference == pytest.approx(d_first.mean() - d_second.mean())
    assert gap.p_value == pytest.approx(welch.pvalue, rel=1e-9)
    assert gap.dof == pytest.approx(welch.df, rel=1e-9)
    assert gap.interval(0.95) == pytest.approx(tuple(welch.confidence_interval(0.95)), rel=1e-9)


def test_halves_of_a_steady_sweep_agree_and_halves_that_differ_are_a_false_call():
    runs = sweep(STEADY, np.random.default_rng(11))
    steady = pair_halves(runs, round_of(runs), SIZES, 3.0)
    assert list(zip(steady["a"], steady["b"])) == [("8k", "4k"), ("16k", "4k"), ("16k", "8k")]
    assert (steady["word"] != DIFFER).all(), steady
    assert steady["method"].str.startswith("two-level model in each (5 and 5 blocks), Welch-Satterthwaite").all()
    assert set(steady["family_size"]) == {3}
    # 16k's effect -20% in the odd rounds, -8% in the even: its two pairs moved between the halves
    moved = shifted_in_odd_rounds(STEADY, (0.0, 0.0, math.log(0.80)), seed=11)
    found = pair_halves(moved, round_of(moved), SIZES, 3.0).set_index(["a", "b"])
    assert found.loc[("16k", "4k"), "word"] == found.loc[("16k", "8k"), "word"] == DIFFER
    assert found.loc[("8k", "4k"), "word"] != DIFFER
    assert found.loc[("16k", "4k"), "p_adjusted"] < 0.05
    assert found.loc[("16k", "4k"), "difference_pts"] == pytest.approx(100 * math.log(0.80 / 0.92), abs=5)


def test_stats_checks_test_the_models_pair_effects_and_an_old_bundle_says_it_cannot(tmp_path, capsys):
    moved = shifted_in_odd_rounds(STEADY, (0.0, 0.0, math.log(0.80)), seed=12)
    write_bundle(moved, tmp_path / "moved", profile={"primary": "16k vs 4k"})
    code, out, err = pagelab(capsys, "stats", tmp_path / "moved", "--checks")
    assert code == 0, err
    [line] = [line for line in out.splitlines() if line.strip().startswith("16k vs 4k: ") and "odd rounds" in line]
    assert "effects differ" in line and "Welch-Satterthwaite t on" in line, line
    assert "A/A false calls of the pair effects: 2 of 3 pairs (16k vs 4k; 16k vs 8k)" in out
    # the levels' check stays, and its lines name their method
    assert "max-T permutation p over the splits of the rounds" in out
    from pagelab.bundle import read_runs
    from pagelab.report.self_check import self_check_markdown

    report = self_check_markdown(read_runs(tmp_path / "moved"))
    assert "TpmC's pair effects, as the verdicts estimate them (the two-level model)" in report
    assert "; 2 false calls (16k vs 4k; 16k vs 8k)" in report, report
    write_bundle(moved, tmp_path / "old", with_series=False)
    code, out, err = pagelab(capsys, "stats", tmp_path / "old", "--checks")
    assert code == 0, err
    assert "A/A of TpmC's pair effects, odd rounds against even rounds: this bundle's runs kept no interval " \
           "series" in out
    assert "A/A false calls: " in out  # the levels' check, as before


def test_compare_tests_each_pairs_effect_by_the_model_in_both_sweeps(tmp_path, capsys):
    write_bundle(sweep(STEADY, np.random.default_rng(21)), tmp_path / "a")
    # the same machine, but 16k 20% behind instead of 8%
    write_bundle(sweep(SyntheticDesign(**{**vars(STEADY), "effects": (0.0, 0.0, math.log(0.80))}),
                       np.random.default_rng(23)), tmp_path / "other")
    code, out, err = pagelab(capsys, "compare", tmp_path / "a", tmp_path / "other")
    assert code == 0, err
    assert "t interval (the two-level model's estimate in each sweep" in out
    tpmc = {line.strip().split(":")[0]: line for line in out.splitlines() if "in a," in line and "in other" in line}
    assert set(tpmc) == {"8k vs 4k", "16k vs 4k", "16k vs 8k"}, tpmc
    assert all("two-level model in each (10 and 10 blocks), Welch-Satterthwaite" in line for line in tpmc.values())
    assert "effects differ (p " in tpmc["16k vs 4k"] and "Holm)" in tpmc["16k vs 4k"], tpmc
    assert "effects differ" not in tpmc["8k vs 4k"], tpmc  # 8k and 4k ran alike in both
    # a sweep without series on one side: the bootstrap, and the line says so
    write_bundle(sweep(STEADY, np.random.default_rng(22)), tmp_path / "old", with_series=False)
    code, out, err = pagelab(capsys, "compare", tmp_path / "a", tmp_path / "old")
    assert code == 0, err
    [line] = [line for line in out.splitlines() if line.strip().startswith("16k vs 4k: ") and "in old" in line][:1]
    assert "ratio of medians, bootstrap over each setting's rounds" in line and "two-level" not in line, line


def test_a_difference_agrees_only_inside_the_margin_and_differs_only_with_the_holm_p():
    from pagelab.evidence.model import PairEffect

    def effect(delta: float, se: float) -> PairEffect:
        return PairEffect(delta, se, 7.0, 8, 0.0, 8 * se ** 2)

    pairs = [(([], []), ([], []))] * 3
    found = effect_differences(pairs, models=[(effect(0.001, 0.004), effect(0.0, 0.004)),
                                              (effect(0.10, 0.01), effect(0.0, 0.01)),
                                              (effect(0.02, 0.03), effect(0.0, 0.03))], equivalence_pct=3.0)
    assert [d.word for d in found] == [AGREE, DIFFER, "not resolved"]
    assert found[0].confidence == pytest.approx(1 - 0.05 / 3)  # Bonferroni over the 3
    assert found[1].p_adjusted == pytest.approx(min(1.0, 3 * found[1].p_value))  # Holm's first step


def test_a_grid_says_its_pairs_have_no_model_to_check():
    import pandas as pd

    from pagelab.evidence.self_checks import pair_halves_lines
    from pagelab.evidence.runs import RunTable

    rows = [{"run": f"{size}-pool64M-r{r}", "page_size": size, "repeat": r, "level_buffer_pool": "64M", "tpmc": 1e4}
            for size in ("4k", "16k") for r in range(1, 7)]
    [line] = pair_halves_lines(RunTable(pd.DataFrame(rows), [], {}, ["4k", "16k"]))
    assert "a grid's pairs are judged within each level by the rank tests" in line, line
