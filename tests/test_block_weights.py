"""TpmC's blocks weighed by their precision (`block_weights: precision`, pagelab.evidence.block_weights):
the estimate against values worked here without statsmodels (numpy's sums and scipy's root finder on
the Q statistic written out), the equal-weight model it must reduce to when the blocks are alike,
the real captured course bundle, the knob declared before the data, and the planner's arithmetic.
Light: no server."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
from scipy import optimize, stats

from bench.synthetic import SyntheticDesign, sweep, write_bundle
from pagelab.evidence.block_weights import PRECISION, precision_mean
from pagelab.evidence.components import Estimate
from pagelab.evidence.model import pair_effect
from pagelab.evidence.planner import precision_variance
from tests.conftest import FIXTURES

COURSE = FIXTURES / "course-2026-11-28"


def worked(d, w) -> tuple[float, float, float]:
    """(estimate, variance, tau^2 bound) as the module comment defines them, written out here."""
    d, w = np.asarray(d, float), np.asarray(w, float)
    k = len(d)

    def q(tau2: float) -> float:
        v = 1 / (w + tau2)
        m = (v * d).sum() / v.sum()
        return float((v * (d - m) ** 2).sum())

    target = stats.chi2.ppf(0.05, k - 1)
    bound = 0.0 if q(0.0) <= target else optimize.brentq(lambda t: q(t) - target, 0.0, 10.0, xtol=1e-15)
    v = 1 / (w + bound)
    m = (v * d).sum() / v.sum()
    return float(m), max(q(bound), target) / (k - 1) / float(v.sum()), bound


def test_unequal_blocks_match_the_estimate_worked_by_hand():
    d = [0.02, -0.05, 0.08, -0.01, 0.04, -0.03, 0.015]  # seven rounds, then a long over-time block
    w = [0.0027] * 6 + [0.00023]
    found = precision_mean(d, w)
    m, variance, bound = worked(d, w)
    assert found.estimate == pytest.approx(m, rel=1e-9)
    assert found.variance == pytest.approx(variance, rel=1e-6)
    assert found.tau2_bound == pytest.approx(bound, rel=1e-6)
    assert found.shares[-1] == pytest.approx((1 / (w[-1] + bound)) / sum(1 / (x + bound) for x in w), rel=1e-6)
    assert not found.floored


def test_with_blocks_alike_it_is_the_equal_weight_model_floor_included():
    within = Estimate(0.1, 0.05, 0.2, 100)
    rng = np.random.default_rng(1)
    for spread in (0.05, 0.003):  # rounds that vary, and rounds that agree better than their runs' noise allows
        d = rng.normal(0, spread, 7)
        a = {f"r{i}": (float(x), 100.0) for i, x in enumerate(d)}
        b = {f"r{i}": (0.0, 100.0) for i in range(7)}
        effect = pair_effect(a, b, within, within, PRECISION)
        w, k, s2 = 0.2 / 100, 7, float(np.var(d, ddof=1))
        # the closed form: tau^2's bound is S^2 (k - 1) / chi2(0.05, k - 1) - w, and Var = S^2 / k,
        # or the floor w chi2(0.05, k - 1) / (k - 1) / k
        floor = w * stats.chi2.ppf(0.05, k - 1) / (k - 1)
        assert effect.delta == pytest.approx(d.mean(), rel=1e-9)
        assert effect.se == pytest.approx(math.sqrt(max(s2, floor) / k), rel=1e-6)
        assert effect.dof == 6 and effect.floored == (s2 < floor)
        equal = pair_effect(a, b, within, within)
        assert (equal.delta, equal.floor) == pytest.approx((effect.delta, effect.floor))


def _pagelab_json(capsys, bundle) -> dict:
    from pagelab.cli import main

    capsys.readouterr()
    assert main(["stats", str(bundle), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _tpmc(document: dict, a: str, b: str) -> dict:
    return next(p for p in document["pairs"] if p["metric"] == "tpmc" and (p["a"], p["b"]) == (a, b))


def _blocks(bundle, a: str, b: str):
    """The pair's blocks as the model sees them (pagelab.evidence.runs.model_data): d_b and w_b, each
    run's a its group's (the over-time block's runs their own, a round's the verdict runs')."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import model_data

    data = model_data(read_runs(bundle))
    sizes = {size.page_size: size for size in data.components.sizes}

    def a_of(size: str, block: str) -> float:
        return sizes[size].role_a("over_time" if block == "over-time" else "verdict").value

    first, second = data.sides(a, b)  # the over-time block over the seconds both runs counted
    blocks = sorted(k for k in first if k in second)
    d = [first[k][0] - second[k][0] for k in blocks]
    w = [a_of(a, k) / first[k][1] + a_of(b, k) / second[k][1] for k in blocks]
    return blocks, d, w


def test_the_real_course_bundle_with_precision_declared(tmp_path, capsys):
    bundle = tmp_path / "course"
    shutil.copytree(COURSE, bundle)
    record = json.loads((bundle / "sweep.json").read_text())
    record["profile"]["block_weights"] = PRECISION
    (bundle / "sweep.json").write_text(json.dumps(record))
    _, d, w = _blocks(bundle, "16k", "4k")
    m, variance, _ = worked(d, w)
    row = _tpmc(_pagelab_json(capsys, bundle), "16k", "4k")
    half = stats.t.isf(0.025, len(d) - 1) * math.sqrt(variance)
    assert row["change_pct"] == pytest.approx(100 * math.expm1(m), abs=1e-6)
    assert (row["low_pct"], row["high_pct"]) == pytest.approx((100 * math.expm1(m - half), 100 * math.expm1(m + half)),
                                                              abs=1e-4)
    assert "precision weights" in row["method"] and "t on 6 df" in row["method"]


def test_a_long_stationary_block_weighs_more_and_the_line_says_how_much(tmp_path, capsys):
    design = SyntheticDesign(rounds=8, run_s=100, interval_s=10, within_a=0.136, between_f=0.0, block_sd=0.05,
                             over_time_s=1200, effects=(0.0, 0.0, math.log(0.95)))
    runs = sweep(design, np.random.default_rng(8))
    for weights in ("equal", PRECISION):
        write_bundle(runs, tmp_path / weights, profile={"primary": "16k vs 4k", "block_weights": weights})
    blocks, d, w = _blocks(tmp_path / PRECISION, "16k", "4k")
    long = blocks.index("over-time")
    assert w[long] < min(w[:long] + w[long + 1:]) / 5
    m, variance, bound = worked(d, w)
    share = (1 / (w[long] + bound)) / sum(1 / (x + bound) for x in w)
    assert share > 1 / len(d)  # it weighs more than an equal block
    row = _tpmc(_pagelab_json(capsys, tmp_path / PRECISION), "16k", "4k")
    assert row["change_pct"] == pytest.approx(100 * math.expm1(m), abs=1e-6)
    assert f"the over-time block {100 * share:.0f}% of the weight" in row["method"]
    assert "9 blocks (the 8 rounds and the over-time runs' block)" in row["method"]
    equal = _tpmc(_pagelab_json(capsys, tmp_path / "equal"), "16k", "4k")
    assert equal["change_pct"] == pytest.approx(100 * math.expm1(np.mean(d)), abs=1e-6)
    assert "precision" not in equal["method"]
    from pagelab.cli import main

    capsys.readouterr()
    assert main(["stats", str(tmp_path / PRECISION)]) == 0
    assert "the blocks' log-ratios weighed by their precision" in capsys.readouterr().out


def test_a_weighting_not_offered_is_refused_naming_the_choices(capsys):
    from pagelab.cli import main

    assert main(["sweep", "--profile", "smoke", "--set", "block_weights=inverse", "--plan-only"]) != 0
    assert "block_weights: inverse is not allowed; allowed: equal precision" in capsys.readouterr().err


def test_the_planners_precision_variance_is_the_arithmetic():
    a, f, rounds, run_s, kept = 0.2721, 0.0004, 7, 100.0, 1140.0
    found = precision_variance(a, f, rounds, run_s, kept)
    w = np.array([a / run_s] * rounds + [a / kept])
    k = rounds + 1
    bound = (a / run_s + f) * (k - 1) / stats.chi2.ppf(0.05, k - 1) - a / run_s
    v = 1 / (w + bound)
    assert found.bound == pytest.approx(bound)
    assert found.variance == pytest.approx(float((v ** 2 * (w + f)).sum() / v.sum() ** 2))
    assert found.known_f == pytest.approx(float(1 / (1 / (w + f)).sum()))
    assert found.known_f < found.variance < (a / run_s + f) / k  # between f known and the equal-weight design
    assert found.over_time_share == pytest.approx(float(v[-1] / v.sum()))


def test_the_reports_method_says_how_the_blocks_were_weighed_and_the_over_time_blocks_share(tmp_path):
    from pagelab.report.model_details import model_sentences
    from tests.test_report_words import bundle, load

    design = SyntheticDesign(rounds=7, effects=(0.0, 0.0, math.log(0.95)), within_a=0.136, between_f=0.0,
                             over_time_s=1200)
    data = load(bundle(tmp_path, profile={"over_time_s": 1200, "block_weights": PRECISION}, design=design))
    text = model_sentences(data)
    assert "declared, before its runs, that TpmC's blocks are weighed by their precision" in text, text
    assert "Hartung-Knapp-Sidik-Jonkman" in text and "the blocks less one" in text
    assert "counts once in the mean of the log-ratios" not in text  # the equal-weight sentence is not said
    _, d, w = _blocks(tmp_path / "b", "16k", "4k")
    _, _, bound = worked(d, w)
    long = _blocks(tmp_path / "b", "16k", "4k")[0].index("over-time")
    share = (1 / (w[long] + bound)) / sum(1 / (x + bound) for x in w)
    assert f"16k vs 4k {100 * share:.0f}% (1/8 would be 12%)" in text, text


def test_plan_for_a_profile_declaring_precision_weighs_the_over_time_block_and_shows_the_other_design(tmp_path, capsys):
    from pagelab.bundle import read_runs
    from pagelab.cli import main
    from pagelab.evidence.runs import components_of
    from tests.test_planner import _bundle

    bundle = _bundle(tmp_path)  # 5 rounds of 60 s, no over-time runs
    profile = tmp_path / "weighed.yaml"
    profile.write_text("page_sizes: [4k, 8k, 16k]\nrepeats: 5\nmeasure_s: 60\ninterval_s: 10\nsample_interval_s: 10\n"
                       "over_time_s: 600\nprimary: 16k vs 4k\nblock_weights: precision\n")
    capsys.readouterr()
    assert main(["plan", "--from", str(bundle), "--profile", str(profile), "--budget", "2h"]) == 0
    out = capsys.readouterr().out
    assert "the bundle ran no over-time runs of 16k and 4k, so a design assumes all 600 s of each count" in out
    arithmetic = next(line for line in out.splitlines() if "arithmetic:" in line)
    best = next(line for line in out.splitlines() if "best within the budget" in line)
    rounds, length = (int(x) for x in best.split(": ")[1].split(" s ")[0].split(" rounds × "))
    pair = components_of(read_runs(bundle)).pair("16k", "4k")
    a, f = pair.within_a.value, pair.between_f.value
    k = rounds + 1
    w = np.array([a / length] * rounds + [a / 600])
    bound = max((a / length + f) * (k - 1) / stats.chi2.ppf(0.05, k - 1) - a / length, 0.0)
    v = 1 / (w + bound)
    variance = float((v ** 2 * (w + f)).sum() / v.sum() ** 2)
    assert f"over {k} blocks" in arithmetic and f"= {variance:.3g}, the over-time block" in arithmetic, arithmetic
    assert f"the over-time block {100 * v[-1] / v.sum():.0f}% of the weight" in arithmetic
    half = stats.t.isf(0.025, k - 1) * math.sqrt(variance)
    assert f"half-width ±{100 * math.expm1(half):.1f}% ({k - 1} degrees of freedom" in best, best
    assert any(line.strip().startswith("with block_weights: equal instead") for line in out.splitlines())


def test_the_reports_precision_paragraph_plans_with_the_weights_the_sweep_declared(tmp_path):
    from tests.test_planner import assert_power_said, precision_paragraph_of_seven_rounds

    text, length, a, f, w_ot = precision_paragraph_of_seven_rounds(tmp_path, {"over_time_s": 1200,
                                                                           "block_weights": PRECISION})
    assert f"weighed by its precision, as this sweep declared, and counting {length:.0f} s of each of its two runs" in text, text
    # the power, worked here: 7 rounds of 100 s and that block, weighed at f's planning bound
    w = np.array([a / 100] * 7 + [w_ot])
    bound = max((a / 100 + f) * 7 / stats.chi2.ppf(0.05, 7) - a / 100, 0.0)
    v = 1 / (w + bound)
    assert_power_said(text, math.sqrt(float((v ** 2 * (w + f)).sum() / v.sum() ** 2)))
