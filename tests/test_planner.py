"""The planner (pagelab.evidence.planner, `pagelab plan`): designs from variance components,
checked against statsmodels' power, Kalibera & Jones's optimum and the arithmetic done here by
hand; and no design from a bundle of another machine, of too few rounds or without series.
Light: synthetic bundles (bench/synthetic.py), no server."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from bench.synthetic import SyntheticDesign, sweep, write_bundle
from pagelab.cli import main
from pagelab.evidence.planner import Costs, best_design, detectable_log, power


def test_power_and_detectable_effect_agree_with_statsmodels():
    # one-sample t-test of n rounds' log-ratios with sd 1: se = 1 / sqrt(n), effect size d = delta
    assert power(0.8, 1 / math.sqrt(10), 9, 0.05) == pytest.approx(
        TTestPower().power(effect_size=0.8, nobs=10, alpha=0.05, alternative="two-sided"), abs=1e-6)
    assert detectable_log(1 / math.sqrt(7), 6, 0.05 / 3) == pytest.approx(
        TTestPower().solve_power(nobs=7, alpha=0.05 / 3, power=0.8), abs=1e-5)


def test_the_best_length_is_kalibera_and_jones_optimum_when_rounds_are_plenty():
    a, f, overhead = 0.32, 0.0004, 50.0  # T* = sqrt(a o / f) = sqrt(40,000) = 200 s
    found = best_design(a, f, Costs(overhead, 0.0, 3), budget_s=400 * 3600, alpha=0.05, interval_s=10)
    assert abs(found.run_s - 200) <= 20


def test_the_design_fits_the_budget_and_its_interval_is_the_arithmetic():
    a, f, overhead, fixed, budget, k = 0.32, 0.00026, 55.0, 500.0, 2 * 3600.0, 3
    found = best_design(a, f, Costs(overhead, fixed, k), budget, alpha=0.05, interval_s=10,
                        effect_log=-math.log(0.95))
    n, t = found.rounds, found.run_s
    assert fixed + n * k * (t + overhead) <= budget < fixed + (n + 1) * k * (t + overhead)
    half = stats.t.isf(0.025, n - 1) * math.sqrt((a / t + f) / n)
    assert found.half_width_pct == pytest.approx(100 * math.expm1(half))
    # no other whole length of the grid, with the rounds it leaves, gives a narrower interval
    for length in range(20, 1210, 10):
        rounds = math.floor((budget - fixed) / (k * (length + overhead)))
        if rounds >= 3:
            assert stats.t.isf(0.025, rounds - 1) * math.sqrt((a / length + f) / rounds) >= half - 1e-12


def _bundle(tmp_path, rounds: int = 5, hostname: str | None = None, with_series: bool = True, name: str = "bundle",
            seed: int = 3, effects: tuple[float, ...] = (0.0, 0.0, 0.0), profile: dict | None = None,
            between_f: float = SyntheticDesign.between_f):
    design = SyntheticDesign(rounds=rounds, run_s=60, interval_s=10, effects=effects, between_f=between_f)
    runs = sweep(design, np.random.default_rng(seed))
    bundle = tmp_path / name
    write_bundle(runs, bundle, profile={"repeats": rounds, "measure_s": 60, "interval_s": 10,
                                        "sample_interval_s": 10, **(profile or {})}, with_series=with_series)
    start = 1_800_000_000.0
    for run in runs:  # each run: 20 s of restore, restart and ramp-up, its 60 s, 5 s of record, then the next
        marks = [(start, "starting"), (start + 20, "ramp-up + measure"), (start + 80, "record"), (start + 85, "done")]
        (bundle / run.run / "phases.csv").write_text("".join(f"{t:.3f},{name}\n" for t, name in marks))
        summary = json.loads((bundle / run.run / "summary.json").read_text())
        (bundle / run.run / "summary.json").write_text(json.dumps({**summary, "measure_s": 60}))
        if hostname:
            from pagelab.machine.hosts import host_record

            (bundle / run.run / "host.json").write_text(json.dumps(dict(host_record(tmp_path, None), hostname=hostname)))
        start += 86
    return bundle


def test_plan_prints_a_design_within_the_budget(tmp_path, capsys):
    bundle = _bundle(tmp_path)
    assert main(["plan", "--from", str(bundle), "--budget", "30min", "--resolve", "5%"]) == 0
    out = capsys.readouterr().out
    assert "costs on this machine (from the bundle's timings): 26.0 s a run beyond what it measures" in out
    best = next(line for line in out.splitlines() if "best within the budget" in line)
    rounds, length = (int(x) for x in best.split(": ")[1].split(" s ")[0].split(" rounds × "))
    assert rounds * 3 * (length + 26) <= 30 * 60
    assert "power" in best and "minimum detectable effect" in best


def test_the_steady_state_line_bounds_the_run_length_from_below():
    """Runs shorter than the report's steady-state line leave the lab's throughput claims unchecked:
    with `shortest_s` the search starts there, and is the narrowest of the lengths at or past it."""
    a, f, overhead, fixed, budget, k = 0.32, 0.003, 34.0, 3700.0, 2 * 3600.0, 3  # T* = sqrt(a o / f) = 60 s
    free = best_design(a, f, Costs(overhead, fixed, k), budget, alpha=0.05, interval_s=10)
    bound = best_design(a, f, Costs(overhead, fixed, k), budget, alpha=0.05, interval_s=10, shortest_s=90)
    assert free.run_s < 90 <= bound.run_s
    half = stats.t.isf(0.025, bound.rounds - 1) * math.sqrt((a / bound.run_s + f) / bound.rounds)
    for length in range(90, 1210, 10):
        rounds = math.floor((budget - fixed) / (k * (length + overhead)))
        if rounds >= 3:
            assert stats.t.isf(0.025, rounds - 1) * math.sqrt((a / length + f) / rounds) >= half - 1e-12


def test_plan_names_the_best_design_whose_runs_keep_the_lab_claims_checked(tmp_path, capsys):
    # a floor large enough that Kalibera & Jones's length is under a minute (T* = 39 s here)
    short = _bundle(tmp_path, rounds=8, between_f=0.01, name="short")
    assert main(["plan", "--from", str(short), "--budget", "2h", "--resolve", "5%"]) == 0
    out = capsys.readouterr().out
    best = next(line for line in out.splitlines() if "best within the budget" in line)
    assert int(best.split(" rounds × ")[1].split(" s ")[0]) < 90, best
    [steady] = [line for line in out.splitlines() if "best with runs of 90 s or more" in line]
    rounds, steady_length = (int(x) for x in steady.split("or more: ")[1].split(" s ")[0].split(" rounds × "))
    assert steady_length >= 90 and rounds * 3 * (steady_length + 26) <= 2 * 3600, steady
    assert "the lab's throughput claims (they would read \"not checked here\")" in steady
    # no floor measured: the longest runs are best, and nothing more is said
    assert main(["plan", "--from", str(_bundle(tmp_path, rounds=5, between_f=0.004, name="long")), "--budget", "2h"]) == 0
    assert "best with runs of 90 s or more" not in capsys.readouterr().out


def test_no_design_from_another_machine(tmp_path, capsys):
    bundle = _bundle(tmp_path, hostname="node7")
    assert main(["plan", "--from", str(bundle)]) == 2
    err = capsys.readouterr().err
    assert "was made on another machine (hostname: node7 there" in err and "no design" in err
    assert "a sweep on a cluster's nodes is planned from `pagelab stats BUNDLE` instead (runbooks/slurm.md" in err
    # --as-made plans it for the machine it was made on (a reader checking published figures), and says so
    assert main(["plan", "--from", str(bundle), "--as-made"]) == 0
    out = capsys.readouterr().out
    assert "as made: a design for the machine the bundles were made on" in out and "not a design for this machine" in out
    assert "costs on the machine the bundle was made on (from the bundle's timings): 26.0 s a run" in out, out


def test_no_design_from_fewer_than_three_rounds(tmp_path, capsys):
    assert main(["plan", "--from", str(_bundle(tmp_path, rounds=2))]) == 2
    assert "has 2 round(s) in which both 16k and 4k finished; a design needs at least 3" in capsys.readouterr().err


def test_no_design_without_interval_series(tmp_path, capsys):
    assert main(["plan", "--from", str(_bundle(tmp_path, with_series=False))]) == 2
    assert "kept no interval series" in capsys.readouterr().err


def test_the_over_time_block_is_priced_as_the_models_equal_weight_mean():
    """With equal weights the over-time block is one more block of the mean, with its own within
    part a / T_ot: V = sum (w_b + f) / k^2 (pagelab.evidence.model), worked here by hand for
    a = 0.32, f = 0.000256, 7 rounds of 100 s and a 1200 s block:
    a round's w + f = 0.0032 + 0.000256 = 0.003456, 7 of them 0.024192; the over-time block's
    0.32 / 1200 + 0.000256 = 0.000266667 + 0.000256 = 0.000522667; sum 0.024714667; / 8^2 = 0.000386167
    (counting the block as a round would give 0.003456 / 8 = 0.000432)."""
    from pagelab.evidence.planner import design

    found = design(0.32, 0.000256, Costs(55.0, 3957.0, 3), 7, 100, 0.05, -math.log(0.95), extra_blocks=1,
                   over_time_s=1200)
    assert (found.rounds, found.blocks, found.dof) == (7, 8, 7)
    assert found.variance == pytest.approx(0.000386167, rel=1e-6)
    # t(0.975, 7) = 2.364624 (scipy); 2.364624 x sqrt(0.000386167) = 0.0464675 on the log scale
    assert found.half_width_pct == pytest.approx(100 * math.expm1(0.0464675), abs=1e-4)
    assert found.total_s == pytest.approx(3957 + 7 * 3 * (100 + 55))  # the over-time runs are in the fixed part
    # a drift left the block 185 s: its w is 0.32 / 185 = 0.00172973; (0.024192 + 0.00172973 + 0.000256) / 64
    shorter = design(0.32, 0.000256, Costs(55.0, 3957.0, 3), 7, 100, 0.05, None, extra_blocks=1, over_time_s=185)
    assert shorter.variance == pytest.approx(0.000409027, rel=1e-6)
    with pytest.raises(ValueError, match="needs the seconds it counts"):
        design(0.32, 0.000256, Costs(55.0, 3957.0, 3), 7, 100, 0.05, extra_blocks=1)


def _over_time_bundle(tmp_path, drift: float):
    """_bundle's 5 rounds of 60 s, then one 600 s over-time run per page size (16k's drifting
    `drift` %/min after 300 s), timed alike; the runs, for the test to read what the model kept."""
    design = SyntheticDesign(rounds=5, run_s=60, interval_s=10, over_time_s=600, drift_pct_per_min=drift,
                             drift_after_s=300 if drift else 0.0, drifting_sizes=("16k",))
    runs = sweep(design, np.random.default_rng(5))
    bundle = tmp_path / "bundle"
    write_bundle(runs, bundle, profile={"repeats": 5, "measure_s": 60, "interval_s": 10, "sample_interval_s": 10,
                                        "over_time_s": 600, "primary": "16k vs 4k"})
    start = 1_800_000_000.0
    for run in runs:
        marks = [(start, "starting"), (start + 20, "ramp-up + measure"), (start + 20 + run.measured_s, "record"),
                 (start + 25 + run.measured_s, "done")]
        (bundle / run.run / "phases.csv").write_text("".join(f"{t:.3f},{name}\n" for t, name in marks))
        start += 26 + run.measured_s
    return bundle, runs


@pytest.mark.parametrize("drift", [0.0, 10.0])
def test_plan_prices_the_over_time_block_as_long_as_the_bundles_over_time_runs_kept(tmp_path, capsys, drift):
    """`pagelab plan` with equal weights: the over-time block's w is a / T_ot, T_ot what of the
    bundle's own over-time runs the model kept (MSER-5, then the drift check: a drifting 16k keeps a
    verdict run's length), with each side's own over-time a: w_ot = a_16k/T_16k + a_4k/T_4k, printed
    as one length T for the pair, (a_16k + a_4k)/T = w_ot; V worked here from it."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.model import counted_series
    from pagelab.evidence.runs import components_of

    bundle, runs = _over_time_bundle(tmp_path, drift)
    uses = {use.page_size: use for use in counted_series(runs)[1]}
    if drift:
        assert uses["16k"].counted_s < 600 / 2, uses  # the check cut the drifting run: the case this test is for
    kept = dict.fromkeys(("16k", "4k"), shared_seconds([uses["16k"], uses["4k"]]))
    sides = components_of(read_runs(bundle))
    side_a = {size: sides.size(size).role_a("over_time").value for size in ("16k", "4k")}
    w_ot = side_a["16k"] / kept["16k"] + side_a["4k"] / kept["4k"]
    length = (side_a["16k"] + side_a["4k"]) / w_ot
    capsys.readouterr()
    assert main(["plan", "--from", str(bundle), "--budget", "2h"]) == 0
    out = capsys.readouterr().out
    assert f"as precise as one block of {length:.0f} s on each side" in out, out
    best = next(line for line in out.splitlines() if "best within the budget" in line)
    arithmetic = next(line for line in out.splitlines() if "arithmetic:" in line)
    rounds, run_s = (int(x) for x in best.split(": ")[1].split(" s ")[0].split(" rounds × "))
    pair = components_of(read_runs(bundle)).pair("16k", "4k")
    # the rounds at the verdict runs' a, the over-time block at the over-time runs' own
    a, f = pair.within_a.value, pair.between_f.value
    assert math.isclose(pair.over_time_a.value, side_a["16k"] + side_a["4k"]), pair.over_time_a
    k = rounds + 1
    variance = (rounds * (a / run_s + f) + w_ot + f) / k ** 2
    assert f"/{k}² = {variance:.3g};" in arithmetic, (arithmetic, variance)
    half = stats.t.isf(0.025, k - 1) * math.sqrt(variance)
    assert f"half-width ±{100 * math.expm1(half):.1f}% ({k - 1} degrees of freedom" in best, best
    assert "on the safe side" not in out


def test_a_sweep_made_to_grow_is_planned_at_its_last_looks_boundary(tmp_path, capsys):
    bundle = _bundle(tmp_path, rounds=10)
    record = json.loads((bundle / "sweep.json").read_text())
    record["profile"]["max_rounds"] = 15  # looks after 5 and 10 rounds, the last at 15: thirds
    record["profile"]["primary"] = "16k vs 4k"  # tested at the full 5%, spent over the looks
    record["looks"] = [{"look": 1, "rounds": 5, "time": "a"}, {"look": 2, "rounds": 10, "time": "b"}]
    (bundle / "sweep.json").write_text(json.dumps(record))
    assert main(["plan", "--from", str(bundle), "--budget", "30min"]) == 0
    out = capsys.readouterr().out
    # the published last boundary of three equal looks (gsDesign's sfLDOF, two-sided 5%) is 1.9930
    level = 2 * stats.norm.sf(1.9930)
    assert "with looks after 5, 10, 15 rounds" in out and "|z| >= 1.993" in out, out
    best = next(line for line in out.splitlines() if "best within the budget" in line)
    assert f"level {level:.3g})" in best, best
    rounds, length = (int(x) for x in best.split(": ")[1].split(" s ")[0].split(" rounds × "))
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    pair = components_of(read_runs(bundle)).pair("16k", "4k")
    a, f = pair.within_a.value, pair.between_f.value
    half = stats.t.isf(level / 2, rounds - 1) * math.sqrt((a / length + f) / rounds)
    assert f"half-width ±{100 * math.expm1(half):.1f}%" in best
    fixed_half = stats.t.isf(0.025, rounds - 1) * math.sqrt((a / length + f) / rounds)
    assert f"half-width ±{100 * math.expm1(fixed_half):.1f}%" not in best


def _plan_lines(bundle, capsys) -> tuple[dict, str]:
    """pagelab plan's costs and best design (the lines that say them), and what it noted."""
    assert main(["plan", "--from", str(bundle), "--budget", "30min", "--resolve", "5%"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    return {"costs": next(line for line in lines if line.startswith("costs on this machine")),
            "best": next(line for line in lines if "best within the budget" in line),
            "arithmetic": next(line for line in lines if "arithmetic:" in line)}, captured.err


def _set(bundle, **changes) -> None:
    document = json.loads((bundle / "sweep.json").read_text())
    document.update(changes)
    (bundle / "sweep.json").write_text(json.dumps(document))


def _iso(epoch: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S%z")


# _bundle's 5 rounds of 3 page sizes: 15 runs, 86 s apart from 1_800_000_000, each done 85 s after its start
LAST_DONE = 1_800_000_000.0 + 14 * 86 + 85


def test_the_report_counts_the_sweeps_own_report_step_not_its_last_writing(tmp_path, capsys):
    """The report's time is the one sweep.json records of the sweep's own report step: a report
    written again an hour later (`pagelab report BUNDLE`) moves neither it nor the design."""
    bundle = _bundle(tmp_path)
    assert len(json.loads((bundle / "sweep.json").read_text())["runs"]) == 15
    _set(bundle, report={"written": _iso(LAST_DONE + 8)},
         report_step={"started": _iso(LAST_DONE), "ended": _iso(LAST_DONE + 8), "seconds": 8.0})
    then, noted = _plan_lines(bundle, capsys)
    # no init or load in these runs and no over-time runs: the fixed part is the report's 8 s alone
    assert "; report 8 s" in then["costs"] and "+ fixed 8 s =" in then["arithmetic"], then
    assert "predates" not in noted
    _set(bundle, report={"written": _iso(LAST_DONE + 3600)})  # re-rendered an hour later
    now, _ = _plan_lines(bundle, capsys)
    assert now == then


def test_a_bundle_from_before_the_record_counts_a_bound_a_rerender_cannot_move(tmp_path, capsys):
    """Without sweep.json's report_step the report counts the time from the last run's end to the
    sweep's tidy-up after its report (instances_removed), at most 60 s; without that tidy-up, 60 s;
    said in a note. Its last writing counts for nothing."""
    bundle = _bundle(tmp_path)
    _set(bundle, report={"written": _iso(LAST_DONE + 929)}, instances_removed=_iso(LAST_DONE + 9))
    found, noted = _plan_lines(bundle, capsys)
    assert "; report 9 s" in found["costs"] and "+ fixed 9 s =" in found["arithmetic"], found
    assert "predates the record of its report step's time: the report counts the 9 s from its last run's end" in noted
    _set(bundle, report={"written": _iso(LAST_DONE + 9 + 3600)})
    assert _plan_lines(bundle, capsys)[0] == found
    _set(bundle, instances_removed=_iso(LAST_DONE + 900))  # a tidy-up by a resume long after: bounded
    assert "; report 60 s" in _plan_lines(bundle, capsys)[0]["costs"]
    document = json.loads((bundle / "sweep.json").read_text())
    del document["instances_removed"]  # instances kept (--keep-instances)
    (bundle / "sweep.json").write_text(json.dumps(document))
    found, noted = _plan_lines(bundle, capsys)
    assert "; report 60 s" in found["costs"] and "has no tidy-up after it: the report counts 60 s" in noted


def test_the_reports_precision_paragraph_prices_equal_weights_with_the_over_time_block_its_runs_kept(tmp_path):
    """The report's precision paragraph (pagelab.report.precision), for a sweep with the over-time runs
    and equal weights: the power of 7 rounds of 100 s and that block, V = sum (w_b + f) / k^2 with the
    block's w = a / T_ot from what of the sweep's own over-time runs counted, worked here."""
    text, length, a, f, w_ot = precision_paragraph_of_seven_rounds(tmp_path, {"over_time_s": 1200})
    assert f"with the over-time block counting {length:.0f} s of each of its two runs, the seconds both counted" in text, text
    assert_power_said(text, math.sqrt((7 * (a / 100 + f) + w_ot + f) / 8 ** 2))


def shared_seconds(uses) -> float:
    """The seconds both over-time runs kept, worked here from what each kept: a pair compares its two
    runs over the same seconds (from the later warm-up cut to the earlier end), each side's T alike."""
    uses = list(uses)
    return min(use.cut_s + use.counted_s for use in uses) - max(use.cut_s for use in uses)


def precision_paragraph_of_seven_rounds(tmp_path, profile: dict) -> tuple[str, float, float, float, float]:
    """The report's precision paragraph for a synthetic sweep of 7 rounds of 100 s and 1200 s
    over-time runs (16k 5% behind), with `profile`'s knobs; the over-time block's length T (with
    (a_16k + a_4k)/T = w_ot), the 16k-vs-4k pair's a and f (f >= 0), and the over-time block's
    within part w_ot = a_16k/T_16k + a_4k/T_4k, each side's a its over-time run's, T its kept seconds."""
    from pagelab.evidence.model import counted_series
    from pagelab.evidence.runs import components_of
    from pagelab.report.precision import precision_markdown
    from tests.test_report_words import bundle, load

    design = SyntheticDesign(rounds=7, effects=(0.0, 0.0, math.log(0.95)), within_a=0.136, between_f=0.0,
                             over_time_s=1200)
    runs = sweep(design, np.random.default_rng(11))  # the runs tests.test_report_words.bundle writes
    data = load(bundle(tmp_path, profile=profile, design=design))
    kept = dict.fromkeys(("16k", "4k"), shared_seconds(use for use in counted_series(runs)[1]
                                                       if use.page_size in ("16k", "4k")))
    components = components_of(data.evidence)
    pair = components.pair("16k", "4k")
    side_a = {size: components.size(size).role_a("over_time").value for size in ("16k", "4k")}
    w_ot = side_a["16k"] / kept["16k"] + side_a["4k"] / kept["4k"]
    return (precision_markdown(data), (side_a["16k"] + side_a["4k"]) / w_ot, pair.within_a.value,
            max(pair.between_f.value, 0.0), w_ot)


def assert_power_said(text: str, se: float) -> None:
    """The paragraph gives the power of the t-test on 7 df for a 5% effect at standard error `se`."""
    from pagelab.report.precision import EFFECT

    power = stats.nct.sf(stats.t.isf(0.025, 7), 7, -math.log(1 - EFFECT) / se)
    assert f"gives this design a power of {100 * power:.0f}% for a 5% effect" in text, text


def _log_ratios_and_within(bundle, a: str, b: str) -> tuple[list[float], list[float]]:
    """Each round's log-ratio a/b of the runs' mean rates, and its within part a_a/T_a + a_b/T_b, worked
    here from the runs' series with numpy (the within-run a from the components of the bundle alone)."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    table = read_runs(bundle)
    sides = components_of(table)
    runs = {(run.page_size, run.block): run for run in table.series if run.role == "verdict"}
    blocks = sorted({block for size, block in runs if size == a} & {block for size, block in runs if size == b})

    def log_mean(run) -> float:
        rates, seconds = np.asarray(run.rates, float), np.asarray(run.seconds, float)
        return math.log(float((rates * seconds).sum() / seconds.sum()))

    d = [log_mean(runs[a, k]) - log_mean(runs[b, k]) for k in blocks]
    w = [sides.size(a).role_a("verdict").value / runs[a, k].measured_s
         + sides.size(b).role_a("verdict").value / runs[b, k].measured_s for k in blocks]
    return d, w


def test_plan_pools_the_floor_of_bundles_of_one_set_up_each_about_its_own_mean(tmp_path, capsys):
    """Two sweeps of one set-up, the second with 16k 10% slower: f pooled over both bundles' rounds
    (4 + 6 degrees of freedom), each bundle's log-ratios about their own mean, so the shift between
    them is not taken for between-run noise (pagelab.evidence.pooled)."""
    first = _bundle(tmp_path, rounds=5, name="first", seed=3, between_f=0.02)
    second = _bundle(tmp_path, rounds=7, name="second", seed=4, effects=(0.0, 0.0, math.log(0.9)), between_f=0.02)
    capsys.readouterr()
    assert main(["plan", "--from", str(first), "--from", str(second), "--budget", "30min"]) == 0
    out = capsys.readouterr().out
    assert "pooled from first (5 rounds of 60 s), second (7 rounds of 60 s), the floor on 10 degrees of freedom" in out
    moments = [_log_ratios_and_within(bundle, "16k", "4k") for bundle in (first, second)]
    spread = sum((len(d) - 1) * np.var(d, ddof=1) for d, _ in moments) / 10
    within = sum((len(d) - 1) * np.mean(w) for d, w in moments) / 10
    f = max(spread - within, 0.0)
    assert f > 0, "the synthetic floor should show"
    assert f"between-run floor f = {f:.3g} (√f = {100 * math.sqrt(f):.2f}%" in out, (f, out)
    # all rounds about one mean would take the 10% shift for noise
    together = np.var([x for d, _ in moments for x in d], ddof=1) - within
    assert f"f = {together:.3g} " not in out


def test_plan_refuses_to_pool_bundles_of_another_set_up_or_one_bundle_twice(tmp_path, capsys):
    first = _bundle(tmp_path, rounds=5, name="first")
    other = _bundle(tmp_path, rounds=5, name="other", seed=4, profile={"warehouses": 7})
    assert main(["plan", "--from", str(first), "--from", str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{other} was made with another set-up than {first} (warehouses " in err, err
    # whether a sweep recorded its disk's read speed changes no run (knob disk_profile): the same set-up
    unmeasured = _bundle(tmp_path, rounds=5, name="unmeasured", seed=5, profile={"disk_profile": False})
    assert main(["plan", "--from", str(first), "--from", str(unmeasured), "--budget", "30min"]) == 0, capsys.readouterr().err
    assert main(["plan", "--from", str(first), "--from", str(first)]) == 2
    assert "given more than once: a bundle's rounds would count twice" in capsys.readouterr().err
