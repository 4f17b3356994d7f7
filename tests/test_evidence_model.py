"""The verdicts from both variance components: the two-level model where the runs kept interval
series, the rank tests where they did not (an old bundle), the declared primary comparison first,
and what of the over-time runs counts. Synthetic sweeps come from bench/synthetic.py, with known
components and effects; the interval series parser is fed a real captured tpcc_start log."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bench.synthetic import SyntheticDesign, sweep, write_bundle
from pagelab.common.errors import UsageError
from pagelab.evidence.components import RunSeries
from pagelab.evidence.families import AFTER_PRIMARY, NOT_TESTED, PRIMARY, compare_family
from pagelab.evidence.intervals import FASTER, NOT_RESOLVED, SLOWER
from pagelab.evidence.model import PairEffect, over_time_use
from tests.conftest import FIXTURES

CLEAR = SyntheticDesign(rounds=7, effects=(0.0, 0.0, math.log(0.85)), within_a=0.05, between_f=0.0001)


def pagelab(capsys, *args) -> tuple[int, str, str]:
    """`pagelab ARGS` in this process (the command's own entry point): its exit code, stdout, stderr."""
    from pagelab.cli import main

    capsys.readouterr()
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


def stats_json(capsys, bundle) -> dict:
    code, out, err = pagelab(capsys, "stats", bundle, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def stats_text(capsys, bundle) -> str:
    code, out, err = pagelab(capsys, "stats", bundle)
    assert code == 0, err
    return out


def test_runs_with_series_are_judged_by_the_model_and_the_line_says_so(tmp_path, capsys):
    write_bundle(sweep(CLEAR, np.random.default_rng(4)), tmp_path / "b", profile={"primary": "16k vs 4k"})
    text = stats_text(capsys, tmp_path / "b")
    [line] = [line for line in text.splitlines() if line.strip().startswith("16k vs 4k: TpmC")]
    # 16k truly 15% behind 4k: the model's interval holds it and the line names the model
    assert "slower" in line and "two-level model, 7 blocks, t on 6 df" in line, line
    assert "primary, declared before the sweep" in line
    document = stats_json(capsys, tmp_path / "b")
    pairs = {(p["a"], p["b"]): p for p in document["pairs"] if p["metric"] == "tpmc"}
    primary = pairs["16k", "4k"]
    assert primary["low_pct"] < -15 < primary["high_pct"] and primary["confidence_pct"] == 95
    assert primary["role"] == PRIMARY and pairs["8k", "4k"]["role"] == AFTER_PRIMARY
    assert "Variance components of log TpmC" in text and "within a = " in text
    # the components as the json carries them: a of a pair is the two page sizes' a (0.05 each here)
    [pair] = [p for p in document["components"]["pairs"] if (p["a"], p["b"]) == ("16k", "4k")]
    assert pair["within_a"]["low"] < 0.1 < pair["within_a"]["high"] and pair["rounds"] == 7


def test_an_old_bundle_without_series_is_judged_by_the_rank_tests_and_says_which(tmp_path, capsys):
    write_bundle(sweep(CLEAR, np.random.default_rng(4)), tmp_path / "old", with_series=False)
    text = stats_text(capsys, tmp_path / "old")
    [line] = [line for line in text.splitlines() if line.strip().startswith("16k vs 4k: TpmC")]
    assert "exact Wilcoxon signed-rank, 7 rounds" in line, line
    assert "No interval series in this bundle's runs" in text
    assert "two-level model" not in text


def effect(delta: float, se: float, blocks: int = 8) -> PairEffect:
    return PairEffect(delta, se, blocks - 1.0, blocks, 0.0, se ** 2 * blocks)


def test_the_pairs_after_an_unresolved_primary_are_not_tested_however_clear():
    pairs = [([], [])] * 3
    # primary (index 1) unclear, the others far apart: the fixed sequence stops at the primary
    found = compare_family(pairs, models=[effect(0.2, 0.02), effect(0.01, 0.03), effect(-0.2, 0.02)], primary=1)
    assert found[1].role == PRIMARY and found[1].verdict == NOT_RESOLVED
    assert [found[0].role, found[2].role] == [NOT_TESTED, NOT_TESTED]
    assert found[0].verdict == found[2].verdict == NOT_RESOLVED


def test_a_resolved_primary_is_tested_at_the_full_alpha_and_opens_the_others_to_holm():
    pairs = [([], [])] * 3
    found = compare_family(pairs, models=[effect(0.2, 0.02), effect(-0.06, 0.022), effect(0.05, 0.02)], primary=1)
    primary = found[1]
    # alone, at 95%: a t interval on 7 df; a Bonferroni level for three would be 98.33%
    assert primary.confidence == 0.95 and primary.verdict == SLOWER and primary.p_adjusted == primary.p_value
    assert found[0].verdict == FASTER and found[0].role == AFTER_PRIMARY
    assert found[0].confidence == pytest.approx(0.975)  # Bonferroni over the 2 after it
    # Holm over the two after the primary, and never below the primary's p (the fixed sequence)
    # (Holm by hand: the smaller of the two, index 0, times 2; then index 2's own p, never below it)
    assert found[0].p_value < found[2].p_value
    assert found[0].p_adjusted == pytest.approx(max(2 * found[0].p_value, primary.p_value))
    assert found[2].p_adjusted == pytest.approx(max(found[2].p_value, 2 * found[0].p_value, primary.p_value))
    # without a primary the same effects are one Holm family of 3, and the primary's p is multiplied
    plain = compare_family(pairs, models=[effect(0.2, 0.02), effect(-0.06, 0.022), effect(0.05, 0.02)])
    assert plain[1].p_adjusted > 1.9 * primary.p_adjusted and plain[1].role == ""


# The analysis a profile declares before the data: recorded in sweep.json when the bundle is made,
# and a resume with it changed is refused. (knob, declared, its record in sweep.json, a later
# edit of the profile, the refusal's words)
DECLARED_BEFORE_THE_DATA = [
    ("primary", "16k vs 4k", ("primary", "comparison"), "4k vs 16k",
     r"primary comparison is now '4k vs 16k', but '16k vs 4k' was declared"),
    ("block_weights", "precision", ("block_weights", "weights"), "equal",
     r"block_weights is now 'equal', but 'precision' was declared"),
]


@pytest.mark.parametrize("knob, declared, recorded_as, edited, refusal", DECLARED_BEFORE_THE_DATA,
                         ids=[row[0] for row in DECLARED_BEFORE_THE_DATA])
def test_a_declared_analysis_is_recorded_when_the_bundle_is_made_and_cannot_change(tmp_path, capsys, knob, declared,
                                                                                   recorded_as, edited, refusal):
    from pagelab.bundle import read_runs
    from pagelab.sweep.orchestrator import check_resumable

    bundle = tmp_path / "plan"
    code, _, err = pagelab(capsys, "sweep", "--profile", "smoke", "--set", "page_sizes=4k,16k", "--set",
                           f"{knob}={declared}", "--plan-only", "--out", bundle)
    assert code == 0, err
    record = json.loads((bundle / "sweep.json").read_text())
    section, field = recorded_as
    assert record[section][field] == declared == record["profile"][knob]
    assert not any(entry["status"] == "done" for entry in record["runs"])  # declared before any run
    check_resumable(bundle)
    record["profile"][knob] = edited
    (bundle / "sweep.json").write_text(json.dumps(record))
    with pytest.raises(UsageError, match=refusal):
        check_resumable(bundle)
    assert read_runs(bundle).profile[knob] == declared  # what stats reads is the declaration, not the edit


def test_a_primary_naming_a_page_size_not_swept_is_refused_before_anything_starts(tmp_path, capsys):
    bundle = tmp_path / "never"
    code, _, err = pagelab(capsys, "sweep", "--profile", "quick", "--set", "page_sizes=4k,8k", "--plan-only",
                           "--out", bundle)
    assert code != 0
    assert "primary: 16k vs 4k names 16k, which this sweep does not run" in err
    assert not bundle.exists()


def series(logs: np.ndarray, interval_s: float = 10.0) -> RunSeries:
    return RunSeries("16k-over-time", "16k", "over-time", tuple(np.exp(logs)), (interval_s,) * logs.size, "over_time")


def test_a_stationary_over_time_run_counts_after_its_warm_up():
    rng = np.random.default_rng(2)
    warm = np.linspace(-0.6, 0.0, 12)  # 120 s of warm-up rising 60%
    logs = np.log(15_000) + np.concatenate([warm, np.zeros(108)]) + rng.normal(0, 0.05, 120)
    part, use = over_time_use(series(logs), verdict_s=100)
    assert 60 <= use.cut_s <= 200 and part.measured_s == use.counted_s == 1200 - use.cut_s
    assert "all of it counts" in use.why


def test_a_drifting_over_time_run_counts_only_its_first_verdict_length_window():
    rng = np.random.default_rng(3)
    minutes = np.arange(1, 121) / 6
    logs = np.log(15_000) - 0.02 * minutes + rng.normal(0, 0.05, 120)  # losing 2% a minute
    part, use = over_time_use(series(logs), verdict_s=100)
    assert use.drift_pct_per_min == pytest.approx(-2, abs=0.5) and use.drift_p < 0.05
    assert use.counted_s == part.measured_s == 100
    assert "drifts" in use.why


def test_interval_series_are_read_from_a_real_tpcc_start_log(tmp_path):
    from pagelab.evidence.runs import run_series
    from pagelab.parse.tpcc_log import parse_tpcc_log
    from pagelab.tpcc.outputs import write_interval_csv

    log = (FIXTURES / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log").read_text()
    write_interval_csv(tmp_path / "tpcc_intervals.csv", parse_tpcc_log(log).rows)
    found = run_series(tmp_path, {"name": "4k-r1", "page_size": "4k", "repeat": 1, "round": 3})
    # the log's six 10 s lines: 1869, 1841, 1880, 2019, 2041, 2038 New-Orders
    assert found.rates == pytest.approx(tuple(6.0 * n for n in (1869, 1841, 1880, 2019, 2041, 2038)))
    assert found.seconds == (10.0,) * 6 and found.block == "round 3"


def test_the_report_says_which_comparison_was_primary_and_how_much_of_each_over_time_run_counted(tmp_path):
    from pagelab.report import model_report
    from pagelab.report.lab_report import load

    design = SyntheticDesign(rounds=6, over_time_s=600, drift_pct_per_min=3.0, drift_after_s=0,
                             drifting_sizes=("8k",), within_a=0.05)
    write_bundle(sweep(design, np.random.default_rng(9)), tmp_path / "b", profile={"primary": "16k vs 4k"})
    text = model_report.method_markdown(load(tmp_path / "b"))
    assert "The primary comparison, 16k vs 4k, was declared in the profile before any run" in text
    assert "8k-over-time counted 100 s of 600 s" in text and "drifts" in text  # 3%/min: a verdict run's length
    assert "4k-over-time counted" in text and "all of it counts" in text
    write_bundle(sweep(design, np.random.default_rng(9)), tmp_path / "old", with_series=False)
    assert "kept no interval series" in model_report.method_markdown(load(tmp_path / "old"))


def test_a_pool_grid_reads_as_its_levels_with_their_share_of_the_data_in_the_setup_table(tmp_path):
    from pagelab.report.grid_report import pool_level_labels
    from pagelab.report.lab_report import load
    from pagelab.report.setup_tables import benchmark_setup

    bundle = tmp_path / "grid"
    entries = []
    for level, pool in (("40M", 40 << 20), ("80M", 80 << 20), ("160M", 160 << 20)):
        for size, label in ((4096, "4k"), (16384, "16k")):
            name = f"{label}-pool{level}-r1"
            (bundle / name).mkdir(parents=True)
            (bundle / name / "summary.json").write_text(json.dumps(
                {"tpmc": 10_000, "buffer_pool_bytes": pool, "db_bytes": 210 << 20, "page_size_bytes": size,
                 "level_buffer_pool": level}))
            entries.append({"name": name, "page_size": label, "page_size_bytes": size, "repeat": 1, "status": "done",
                            "cell": {"buffer_pool": level}})
    (bundle / "sweep.json").write_text(json.dumps({"runs": entries, "machine": {}, "profile": {
        "page_sizes": [4096, 16384], "buffer_pool": ["40M", "80M", "160M"], "repeats": 1}}))
    data = load(bundle)
    # 40 / 210 = 19%, 80 / 210 = 38%, 160 / 210 = 76%
    assert pool_level_labels(data) == {"40M": "40M (19%)", "80M": "80M (38%)", "160M": "160M (76%)"}
    table = benchmark_setup(data).set_index("Setting")
    assert table.loc["Buffer Pool Size", "This sweep"] == "40M (19%), 80M (38%), 160M (76%)"


def test_a_pairs_over_time_block_compares_the_seconds_both_runs_counted():
    """Two over-time runs that counted different seconds (one cut 100 s of warm-up, one 300 s) are
    compared over 300-1200 s, each side's y its mean rate there, worked here with numpy; a run that
    drifted and so counted only its first 90 s shares less than a verdict run's 90 s with a run that
    cut 100 s, and that pair has no over-time block (its rounds stay)."""
    import math

    import numpy as np

    from pagelab.evidence.model import OVER_TIME_BLOCK, OverTimeUse, RunSeries, over_time_runs

    seconds = (10.0,) * 120
    falling = tuple(1000.0 - 2 * i for i in range(120))  # a long run's rate falling as its data grows
    runs = [RunSeries("4k-over-time", "4k", OVER_TIME_BLOCK, falling, seconds, "over_time"),
            RunSeries("16k-over-time", "16k", OVER_TIME_BLOCK, tuple(0.9 * r for r in falling), seconds, "over_time"),
            RunSeries("8k-over-time", "8k", OVER_TIME_BLOCK, falling, seconds, "over_time"),
            RunSeries("4k-r1", "4k", "round 1", (900.0,) * 9, (10.0,) * 9)]
    uses = [OverTimeUse("4k-over-time", "4k", 1200.0, 100.0, 1100.0, 0.0, 0.5, ""),
            OverTimeUse("16k-over-time", "16k", 1200.0, 300.0, 900.0, 0.0, 0.5, ""),
            OverTimeUse("8k-over-time", "8k", 1200.0, 0.0, 90.0, -1.0, 0.01, "")]
    long_runs = over_time_runs(runs, uses)
    rounds = {"round 1": (math.log(900.0), 90.0)}
    unequal = {**rounds, OVER_TIME_BLOCK: (0.0, 0.0)}  # what each run counted alone: replaced or dropped
    sixteen, four = long_runs.sides("16k", "4k", unequal, unequal)
    shared = np.arange(30, 120)  # the intervals ending after 300 s: 300-1200 s
    assert four[OVER_TIME_BLOCK] == pytest.approx((math.log(np.mean(np.asarray(falling)[shared])), 900.0))
    assert sixteen[OVER_TIME_BLOCK] == pytest.approx((math.log(0.9 * np.mean(np.asarray(falling)[shared])), 900.0))
    # so the block's log-ratio is the 16k run's 10% shortfall, not when each run was counted
    assert sixteen[OVER_TIME_BLOCK][0] - four[OVER_TIME_BLOCK][0] == pytest.approx(math.log(0.9))
    eight, four = long_runs.sides("8k", "4k", unequal, unequal)
    assert OVER_TIME_BLOCK not in eight and OVER_TIME_BLOCK not in four
    assert eight["round 1"] == four["round 1"] == rounds["round 1"]
    assert long_runs.window("8k", "4k") is None and long_runs.window("16k", "4k") == (300.0, 1200.0)
