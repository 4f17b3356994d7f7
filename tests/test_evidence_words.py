"""The evidence's words say what the numbers are: a median interval's confidence is the one it
really has, its farther end is defined, an effect that rounds to zero has no sign, the bootstrap's
resamples and seed are stated, and the variance components' units are explained. The expected
values are worked out here by hand (binomial coefficients with math.comb, scipy.stats.bootstrap
called anew), not read back from the code under test.

Light: synthetic tables of runs and a synthetic bundle (bench/synthetic.py), no server."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from tests.conftest import REPO_ROOT


def _table(values_by_size: dict[str, list[float]], shared_rounds: bool = True):
    """A RunTable whose TpmC runs are the given values, one round per position (or, without
    `shared_rounds`, each run a block of its own: compared unpaired)."""
    from pagelab.evidence.runs import METRICS, RunTable

    rows = [{"run": f"{size}-r{i + 1}", "page_size": size, "repeat": i + 1,
             "block": f"round {i + 1}" if shared_rounds else f"{size} run {i + 1}",
             "host": "one machine", **{m.name: math.nan for m in METRICS}, "tpmc": value}
            for size, values in values_by_size.items() for i, value in enumerate(values)]
    return RunTable(pd.DataFrame(rows), [], {"equivalence_pct": 3.0}, list(values_by_size))


def _below(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2), by counting: the sum of C(n, i) over 2^n."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


# --- a. the median interval's confidence is the one it has ---------------------------------------


def test_seven_runs_give_the_range_at_98_4_percent_not_95():
    from pagelab.evidence.intervals import median_interval

    runs = [27_000.0, 25_000.0, 19_845.0, 26_705.0, 28_059.0, 26_000.0, 26_900.0]
    found = median_interval(runs)
    assert (found.low, found.high) == (min(runs), max(runs)) and (found.low_rank, found.high_rank) == (1, 7)
    # the range misses the median only when all 7 runs fall on one side of it: 2 x (1/2)^7 = 2/128
    assert found.confidence == pytest.approx(1 - 2 / 128) == pytest.approx(0.984375)


@pytest.mark.parametrize("n", range(2, 31))
def test_every_n_gets_the_narrowest_pair_reaching_95_and_its_own_coverage(n):
    """Conover's interval counted by hand: r the largest rank with P(B <= r - 1) <= 2.5% (else the
    range), s = n + 1 - r, coverage 1 - 2 P(B <= r - 1)."""
    from pagelab.evidence.intervals import median_interval

    r = max([k for k in range(1, (n + 1) // 2 + 1) if _below(n, k - 1) <= 0.025], default=1)
    found = median_interval([float(v) for v in range(1, n + 1)])
    assert (found.low, found.high) == (float(r), float(n + 1 - r))
    assert found.confidence == pytest.approx(1 - 2 * _below(n, r - 1))
    assert (found.confidence < 0.95) == (n < 6)  # fewer than 6 runs cannot reach 95%, and say so


def test_the_table_the_stats_lines_and_the_report_columns_say_the_actual_confidence():
    from pagelab.evidence.medians import median_columns, median_note, page_size_table, page_size_text

    rng = np.random.default_rng(3)
    table = _table({"4k": list(26_000 * np.exp(rng.normal(0, 0.05, 7))),
                    "16k": list(25_000 * np.exp(rng.normal(0, 0.05, 10)))})
    per_size = page_size_table(table)
    tpmc = per_size[per_size["metric"] == "tpmc"].set_index("page_size")
    seven, ten = 100 * (1 - 2 * 0.5 ** 7), 100 * (1 - 2 * _below(10, 1))  # 98.4375, 97.8516
    assert tpmc.loc["4k", "confidence_pct"] == pytest.approx(round(seven, 1)) == 98.4
    assert tpmc.loc["16k", "confidence_pct"] == pytest.approx(round(ten, 1)) == 97.9
    text = "\n".join(page_size_text(per_size))
    assert " at 98.4%, " in text and " at 97.9%, " in text and " at 95%" not in text, text
    note = median_note(tpmc.reset_index())
    assert "with 7 runs, from the smallest to the largest run" in note and "1 − 2 × 0.5^7 = 98.4%" in note, note
    assert "with 10 runs, from the 2nd smallest to the 2nd largest run" in note and "= 97.9%" in note, note
    # the next narrower pair of 7 runs (2nd to 6th) holds the median only 1 - 2 P(B <= 1) = 87.5% of the time
    assert f"holds it only {100 * (1 - 2 * _below(7, 1)):.1f}% of the time" in note and "87.5%" in note
    assert "Conover" in note and "scipy.stats.binom" in note
    assert median_columns("tpmc")["confidence_pct"] == ("Interval's actual confidence (%)", 1)


def test_the_report_notebook_shows_the_median_tables_with_these_columns_and_note():
    text = (REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text()
    assert "Half-width" not in text and "half_width_pct" not in text and '\\"Confidence (%)\\"' not in text
    assert text.count("median_columns(") >= 3 and text.count("median_note(") >= 2


# --- b. the farther end, defined as the code computes it ------------------------------------------


def test_the_farther_end_is_the_larger_distance_from_the_median_and_the_note_says_so():
    from pagelab.evidence.medians import median_columns, median_note, page_size_table, page_size_text

    table = _table({"4k": [80.0, 99.0, 100.0, 100.0, 100.0, 101.0, 104.0]})  # median 100: -20% and +4%
    per_size = page_size_table(table)
    row = per_size[per_size["metric"] == "tpmc"].iloc[0]
    assert row["far_end_pct"] == pytest.approx(20.0) and "half_width_pct" not in per_size
    assert "farther end 20.0%" in "\n".join(page_size_text(per_size))
    note = median_note(per_size[per_size["metric"] == "tpmc"])
    assert ("The farther end is the larger of the two distances from the median to the interval's ends, in % of "
            "the median") in note
    assert median_columns("tpmc")["far_end_pct"] == ("Farther end from the median (%)", 1)


# --- c. an effect that rounds to zero has no sign, and one that does not shows its digits ------------


# Worked by hand: one decimal, or as many as two significant digits need (at most three); a value
# under 0.0005 in size rounds to zero and reads 0.0%, unsigned.
@pytest.mark.parametrize("value, shown", [(-0.0, "0.0%"), (0.0003, "0.0%"), (-0.0004, "0.0%"), (-0.04, "−0.040%"),
                                          (0.04, "+0.040%"), (-0.045225, "−0.045%"), (-0.06, "−0.060%"),
                                          (0.0996, "+0.10%"), (-0.4998, "−0.50%"), (0.996, "+1.0%"),
                                          (-4.1, "−4.1%"), (9.5, "+9.5%"), (15.04, "+15.0%"), (math.nan, "—")])
def test_an_effect_prints_with_a_true_minus_no_sign_at_zero_and_two_significant_digits(value, shown):
    from pagelab.evidence.wording import pct_text

    assert pct_text(value) == shown


def test_every_effect_above_the_last_decimal_prints_nonzero_and_within_rounding():
    """The rule's promise, checked on 2,000 values from 0.0005 to 1000 in size: the printed number is
    not zero, has the value's sign, is within half a unit of its last digit of the value, has one to
    three decimals, and two significant digits or more from 0.0095 up."""
    from pagelab.evidence.wording import pct_text

    rng = np.random.default_rng(7)
    values = rng.choice([-1.0, 1.0], 2_000) * 10 ** rng.uniform(math.log10(0.0005), 3, 2_000)
    for value in values:
        text = pct_text(value)
        number = text.removesuffix("%")
        shown = float(number.replace("−", "-"))
        decimals = len(number.split(".")[1])
        significant = len(number.lstrip("+−").replace(".", "").lstrip("0"))
        assert shown != 0 and math.copysign(1, shown) == math.copysign(1, value), (value, text)
        assert abs(shown - value) <= 0.5 * 10 ** -decimals + 1e-12, (value, text)
        assert 1 <= decimals <= 3 and (significant >= 2 or abs(value) < 0.0095), (value, text)
        assert "-" not in text, text


def test_zero_has_no_sign_and_a_small_effect_shows_in_intervals_verdict_lines_and_tables():
    from pagelab.evidence.wording import interval_text, number_text, verdict_line

    assert interval_text(-0.0004, 0.3, 97.5) == "[0.0%, +0.30%] (97.5% CI)"
    assert number_text(-0.04, 1) == "0.0" and number_text(-0.4, 0) == "0" and number_text(-1234.5, 0) == "-1,234"
    # the course bundle's hit ratio, 8k vs 4k: an effect of about -0.045% once printed as "0.0% [−0.1%, 0.0%]"
    row = {"metric": "hit_ratio", "a": "8k", "b": "4k", "runs_a": 7, "runs_b": 7, "change_pct": -0.045225,
           "low_pct": -0.051967, "high_pct": -0.034635, "confidence_pct": 97.5, "verdict": "lower", "p_value": 0.016,
           "p_adjusted": 0.031, "family_size": 2, "equivalence_pct": 3.0, "paired": True,
           "method": "exact Wilcoxon signed-rank, 7 rounds", "role": ""}
    line = verdict_line(row)
    assert line.startswith("8k vs 4k: Hit ratio −0.045% [−0.052%, −0.035%] (97.5% CI), lower"), line


@pytest.mark.parametrize("detectable, said", [(0.043, "±0.043%"), (0.46, "±0.46%"), (7.26, "±7.3%")])
def test_the_smallest_effect_the_runs_resolve_has_an_effects_digits(detectable, said):
    """A hit ratio's pairs resolve effects far under 0.1%: "about ±0.0%" would say they resolve none."""
    from pagelab.evidence.wording import unresolved_advice

    row = {"equivalence_pct": 3.0, "paired": True, "runs_a": 7, "runs_b": 7, "detectable_pct": detectable,
           "runs_for_equivalence": math.nan}
    assert unresolved_advice(row) == f"these 7 rounds resolve effects of about {said}"


def test_no_other_module_formats_a_signed_number_of_its_own():
    """One formatter: a signed number format (':+.2f') appears only in pagelab.evidence.numbers, the
    primitive under wording.pct_text that the components (lag-1) and the model (drift) print with too."""
    signed = re.compile(r":\+[,_0-9]*(\.(\d+|\{\w+\}))?[dfge%]\}")
    found = [f"{path.relative_to(REPO_ROOT)}: {line.strip()}"
             for path in sorted((REPO_ROOT / "lib" / "pagelab").rglob("*.py"))
             for line in path.read_text().splitlines() if signed.search(line)]
    assert [line for line in found if not line.startswith("lib/pagelab/evidence/numbers.py")] == [], found


def _true_minus(value: float, decimals: int) -> str:
    """What a signed number should read, worked out apart from the code: Python's own signed format
    with its hyphen made the true minus sign."""
    return f"{value:+.{decimals}f}".replace("-", "\N{MINUS SIGN}")


def test_the_components_lag1_prints_with_the_true_minus():
    """The course bundle's 8k printed "lag-1 -0.27" with a hyphen where every other number has −."""
    from pagelab.evidence.components import Estimate, Lag1, SizeComponents, VarianceComponents
    from pagelab.evidence.components_text import components_lines

    lag1 = Lag1(batch_intervals=2, batch_s=20.0, autocorrelation=-0.27, expected=-0.03, p_value=0.04,
                independent=False)
    size = SizeComponents("8k", 7, 35, 100.0, Estimate(0.13, 0.08, 0.24, 34), Estimate(0.0067, 0.002, 0.037, 6),
                          lag1)
    lines = components_lines(VarianceComponents((size,), (), 0.95, ("8k: correlated",)))
    line = next(line for line in lines if line.startswith("    8k:"))
    assert f"lag-1 {_true_minus(-0.27, 2)})" in line, line
    assert re.search(r"(?<!lag)-\d", line) is None, line  # no hyphen before a number but lag-1's own


def test_an_over_time_runs_drift_prints_with_the_true_minus():
    from pagelab.evidence.components import RunSeries
    from pagelab.evidence.model import over_time_use

    # losing half a percent a minute, without noise: the batch means' log falls 0.005 a minute, exactly
    minutes = np.arange(1, 121) / 6
    rates = tuple(15_000 * np.exp(-0.005 * minutes))
    _, use = over_time_use(RunSeries("16k-over-time", "16k", "over-time", rates, (10.0,) * 120, "over_time"),
                           verdict_s=100)
    assert f"the rest drifts, drift detected ({_true_minus(100 * -0.005, 2)}%/min" in use.why, use.why


# --- d. the bootstrap's resamples and seed are stated, and true ---------------------------------


def test_a_bootstrap_familys_note_states_resamples_and_seed_and_they_reproduce_its_interval():
    import scipy.stats

    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.wording import family_note

    rng = np.random.default_rng(11)
    # 8 runs a side, so a median is the mean of two runs and the resampled ratios take many values:
    # another number of resamples or another seed moves the percentiles
    a, b = list(10_000 * np.exp(rng.normal(0, 0.03, 8))), list(10_500 * np.exp(rng.normal(0, 0.03, 8)))
    pairs = pairwise_table(_table({"4k": a, "8k": b}, shared_rounds=False))  # unpaired: Mann-Whitney, bootstrap
    tpmc = pairs[pairs["metric"] == "tpmc"]
    note = family_note(tpmc)
    said = re.search(r"a percentile bootstrap of ([\d,]+) resamples from random seed (\d+) \(scipy\.stats\.bootstrap\)",
                     note)
    assert said, note
    resamples, seed = int(said.group(1).replace(",", "")), int(said.group(2))
    assert (resamples, seed) == (9_999, 2026)
    redone = scipy.stats.bootstrap((b, a), lambda x, y, axis=-1: np.median(x, axis=axis) / np.median(y, axis=axis),
                                   vectorized=True, n_resamples=resamples, method="percentile",
                                   random_state=np.random.default_rng(seed)).confidence_interval
    row = tpmc.iloc[0]
    ratio = np.median(b) / np.median(a)
    assert row["low_pct"] == pytest.approx(100 * (min(redone.low, ratio) - 1))
    assert row["high_pct"] == pytest.approx(100 * (max(redone.high, ratio) - 1))


def test_a_model_only_family_names_no_bootstrap():
    from pagelab.evidence.wording import family_note

    row = {"metric": "tpmc", "a": "16k", "b": "4k", "runs_a": 7, "runs_b": 7, "change_pct": -2.3, "low_pct": -9.0,
           "high_pct": 4.8, "confidence_pct": 95.0, "verdict": "not resolved", "family_size": 1,
           "equivalence_pct": 3.0, "paired": True, "method": "two-level model, 7 blocks, t on 6 df", "role": ""}
    assert "bootstrap" not in family_note(pd.DataFrame([row]))


def _bundle(directory):
    """A synthetic 7-round bundle with interval series, and read and write IOPS for the rank tests."""
    from bench.synthetic import SyntheticDesign, sweep, write_bundle
    from pagelab.report.lab_report import load

    design = SyntheticDesign(rounds=7, effects=(0.0, math.log(1.05), -0.05))
    write_bundle(sweep(design, np.random.default_rng(7)), directory, profile={"primary": "16k vs 4k"},
                 with_series=True)
    rng = np.random.default_rng(1)
    for run in sorted(path for path in directory.iterdir() if path.is_dir()):
        (run / "iostat.csv").write_text("t_s,r_s,w_s\n" + "".join(
            f"{t},{rng.normal(500, 20):.1f},{rng.normal(300, 10):.1f}\n" for t in range(0, 50, 10)))
    return load(directory)


def test_the_method_states_the_bootstrap_and_explains_the_components_units(tmp_path):
    from pagelab.report.model_report import method_markdown

    text = method_markdown(_bundle(tmp_path / "b"))
    assert ("Each bootstrap interval is a percentile bootstrap of 9,999 resamples from random seed 2026 "
            "(scipy.stats.bootstrap), the percentile interval of Efron & Tibshirani 1993, so the same bundle always gives the same "
            "interval.") in text, text
    assert "**Variance components.** " in text and "a comes from batch means. " in text and "%²·s" in text
    assert ("Here a is the within-run part: the variance of a T-second run's mean TpmC is a/T, in percent squared (%²), "
            "so a is in %²·s (percent squared × seconds)") in text, text
    assert "f is the between-run floor" in text and "√f, its square root, is in percent." in text


# --- e. the components' units, where pagelab stats prints them and in the glossary ---------------


def test_the_components_lines_explain_a_and_f_in_one_sentence(tmp_path):
    from pagelab.evidence.components_text import components_lines
    from pagelab.evidence.runs import model_data

    data = _bundle(tmp_path / "b")
    lines = components_lines(model_data(data.evidence).components)
    assert lines[0].startswith("Variance components of log TpmC")
    explained = lines[1].strip()
    assert explained.count(". ") == 0 and explained.endswith(".")  # one sentence
    assert "a/T" in explained and "%²·s (percent squared × seconds)" in explained
    assert "f is the between-run floor" in explained and "√f, its square root, is in percent" in explained
    assert any("%²·s" in line and "√f = " in line for line in lines[2:])


def test_the_glossary_has_one_line_each_for_a_and_f_and_states_the_bootstrap():
    from pagelab.evidence.intervals import BOOTSTRAP_SEED, RESAMPLES

    lines = (REPO_ROOT / "runbooks" / "glossary.md").read_text().splitlines()
    within = [line for line in lines if line.startswith("- **within-run a**")]
    floor = [line for line in lines if line.startswith("- **between-run floor f**")]
    assert len(within) == 1 and "%²·s" in within[0] and "a / T" in within[0]
    assert len(floor) == 1 and "√f" in floor[0] and "percent" in floor[0]
    interval = next(line for line in lines if line.startswith("- **interval** (of an effect)"))
    assert f"{RESAMPLES:,} resamples from random seed {BOOTSTRAP_SEED}" in interval
    median = next(line for line in lines if line.startswith("- **median interval**"))
    assert "98.4%" in median and "with 95% confidence" not in median


def test_every_other_bootstrap_the_evidence_prints_states_its_resamples_and_seed(tmp_path, capsys):
    """The A/A check's family, a grid's change of effect and `pagelab compare` of two sweeps without
    series are bootstrap intervals too (pagelab.evidence.intervals.percentile_bounds), and say so."""
    from bench.synthetic import SyntheticDesign, sweep, write_bundle
    from pagelab.cli import main
    from pagelab.evidence.grid import effect_change_sentence
    from pagelab.evidence.self_checks import check_lines

    stated = "a percentile bootstrap of 9,999 resamples from random seed 2026 (scipy.stats.bootstrap)"
    wobble = [0.97, 1.01, 1.03, 0.99, 1.00, 0.98, 0.99, 1.03, 1.01, 0.97]
    table = _table({"4k": [10_000 * w for w in wobble], "16k": [8_000 * w for w in wobble]})
    [a_a] = [line for line in check_lines(table) if line.startswith("A/A: each page size's odd rounds")]
    assert f"bootstrap interval (Bonferroni; {stated})" in a_a, a_a

    grid = _table({"4k": [10_000 * w for w in wobble[:6]] * 2, "16k": [7_000 * w for w in wobble[:6]]
                   + [10_000 * w for w in wobble[:6]]})
    grid.runs["level_buffer_pool"] = ["10%"] * 6 + ["100%"] * 6 + ["10%"] * 6 + ["100%"] * 6
    grid.runs["repeat"] = list(range(1, 7)) * 4
    grid.runs["block"] = [f"round {r}" for r in grid.runs["repeat"]]
    assert f"(95% interval, {stated})" in effect_change_sentence(grid, "buffer_pool")

    design = SyntheticDesign(rounds=6, effects=(0.0, 0.0, math.log(0.92)))
    write_bundle(sweep(design, np.random.default_rng(5)), tmp_path / "a", with_series=False)
    write_bundle(sweep(design, np.random.default_rng(6)), tmp_path / "b", with_series=False)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert f"bootstrap interval (each sweep's rounds resampled on their own, {stated}" in out, out


def test_a_pair_not_tested_says_the_primary_was_not_called_in_its_metrics_words():
    """Read IOPS (and the hit ratio, the p95) are called higher or lower, not faster or slower: the
    line of a pair not tested says the primary was not called in those words (a reader's gap)."""
    from pagelab.evidence.families import NOT_TESTED
    from pagelab.evidence.intervals import NOT_RESOLVED
    from pagelab.evidence.runs import METRICS_BY_NAME
    from pagelab.evidence.wording import verdict_line

    row = {"a": "8k", "b": "4k", "metric": "read_iops", "change_pct": -4.0, "low_pct": -9.0, "high_pct": 2.0,
           "confidence_pct": 97.5, "verdict": NOT_RESOLVED, "equivalence_pct": 3.0, "role": NOT_TESTED,
           "runs_a": 7, "runs_b": 7, "detectable_pct": 8.0, "runs_for_equivalence": 40, "paired": True,
           "method": "exact Wilcoxon signed-rank, 7 rounds", "p_adjusted": 0.3, "family_size": 2}
    line = verdict_line(row, METRICS_BY_NAME["read_iops"])
    assert "(97.5% CI), not tested (the primary comparison was not called higher or lower" in line, line
    # one word on the line, as the Summary says it: not "not resolved (not tested ...)"
    assert "not resolved" not in line, line
    line = verdict_line(dict(row, metric="tpmc"), METRICS_BY_NAME["tpmc"])
    assert "not tested (the primary comparison was not called faster or slower" in line, line
    # an interval that leaves out 0% claims nothing here, and the line says so
    assert "this line claims nothing even where its interval leaves out 0%" in line, line


def test_the_glossary_says_tpmc_counts_new_orders_as_pagelab_computes_it():
    """glossary.md's TpmC says first that it counts New-Order transactions a minute, as
    pagelab.tpcc.stats.tpmc computes it (the other four kinds do not count), and no doc calls TpmC's
    effect the mean of the rounds' log-ratios: it is the blocks' (rounds and the over-time block)."""
    from pagelab.common.transactions import TransactionKind
    from pagelab.tpcc.stats import KindTotals, tpmc

    totals = {int(kind): KindTotals(success=600) for kind in TransactionKind}
    totals[int(TransactionKind.NEW_ORDER)] = KindTotals(success=40, late=5)
    assert tpmc(totals, 90.0) == 30.0  # (40 + 5) × 60 / 90: the New-Orders alone
    lines = (REPO_ROOT / "runbooks" / "glossary.md").read_text().splitlines()
    [line] = [text for text in lines if text.startswith("- **TpmC**")]
    assert line.startswith("- **TpmC**: New-Order transactions completed per minute, as tpcc-mysql reports it")
    assert "which TpmC does not count" in line and "× 60 / its seconds" in line
    for path in (REPO_ROOT / "runbooks" / "glossary.md", REPO_ROOT / "README.md"):
        text = " ".join(path.read_text().split())
        assert "mean of the rounds' log-ratios" not in text and "rounds' (blocks')" not in text, path
        assert "mean of the blocks' log-ratios" in text or path.name == "README.md", path
