"""Sentences in the profiles, the runbooks, the README and `pagelab sweep --help` that state the
analysis's method or its thresholds: the planner's arithmetic in a profile's comment, the exact
signed-rank test's floor and Holm's correction, where the verdicts come from and what of an
over-time run TpmC's model counts, the report's tolerances, and plain words for what a round
shares. The expected values come from the code that computes them (pagelab.evidence.families,
.model, .planner; pagelab.report.claims and .precision; scipy's t quantile) and from the profiles;
the helpers are tests/test_profile_text.py's."""

from __future__ import annotations

import math
import re

import pytest

from tests.conftest import REPO_ROOT
from tests.test_profile_text import RUNBOOK, find, flat, profile


# "R rounds x T s take R x 3 x (T + o) + F = S s; V = (a/T + f)/B = V, half-width t(0.975, d) x sqrt(V) = H%",
# or, with the over-time block, V = (R x (a/T + f) + a/T_ot + f)/B^2 = V (... ), half-width ...
PLANNER_ARITHMETIC = re.compile(
    r"(?P<rounds>\d+) rounds x (?P<seconds>\d+) s take (?P<rounds_again>\d+) x 3 x \((?P<seconds_again>\d+) \+ "
    r"(?P<other_s>[\d.]+)\) \+ (?P<fixed_s>[\d,]+) = (?P<total_s>[\d,]+) s; "
    r"V = (?:\((?P<a>[\d.]+)/(?P<a_over>\d+) \+ (?P<f>[\d.]+)\)/(?P<blocks>\d+)"
    r"|\((?P<ot_rounds>\d+) x \((?P<ot_a>[\d.]+)/(?P<ot_a_over>\d+) \+ (?P<ot_f>[\d.]+)\) \+ "
    r"(?P<ot_a_again>[\d.]+)/(?P<ot_s>\d+) \+ (?P<ot_f_again>[\d.]+)\)/(?P<ot_blocks>\d+)\^2) = (?P<v>[\d.]+)"
    r"(?: \([^)]*\))?, half-width t\(0\.975, (?P<df>\d+)\) x sqrt\(V\) = "
    r"(?:(?P<log_half>[\d.]+) on the log scale, \+-)?(?P<ratio_half>[\d.]+)%")


@pytest.mark.parametrize("name", ["quick", "course"])
def test_the_profiles_planner_arithmetic_holds(name):
    """The planner's figures in a profile's comment add up (scipy's t quantile; the half-width as a
    ratio is exp(t x sqrt(V)) - 1, the report's scale), and the rounds and run length are the profile's.
    With the over-time block (course) V is TpmC's model's equal-weight Σ(w + f)/k² over the rounds
    and that block, its w its own a/T_ot (pagelab.evidence.planner), worked here from the comment's
    own numbers; the block is the profile's over_time_s."""
    from scipy import stats

    text = re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / f"{name}.yaml").read_text())
    found = list(PLANNER_ARITHMETIC.finditer(text))
    assert found, f"runbooks/profiles/{name}.yaml has no planner arithmetic matching {PLANNER_ARITHMETIC.pattern!r}"
    p = profile(name)
    for match in found:
        g = match.groupdict()
        rounds, seconds = int(g["rounds"]), int(g["seconds"])
        assert (rounds, seconds) == (p["repeats"], p["measure_s"]) == (int(g["rounds_again"]), int(g["seconds_again"]))
        total = rounds * 3 * (seconds + float(g["other_s"])) + float(g["fixed_s"].replace(",", ""))
        assert abs(total - float(g["total_s"].replace(",", ""))) <= 1, (total, g["total_s"])
        if g["ot_blocks"]:
            a, f, blocks = float(g["ot_a"]), float(g["ot_f"]), int(g["ot_blocks"])
            assert (int(g["ot_rounds"]), int(g["ot_a_over"]), blocks) == (rounds, seconds, rounds + 1), match.group(0)
            assert (float(g["ot_a_again"]), float(g["ot_f_again"])) == (a, f), match.group(0)
            assert p.get("over_time_s") and int(g["ot_s"]) == p["over_time_s"], match.group(0)
            variance = (rounds * (a / seconds + f) + a / int(g["ot_s"]) + f) / blocks ** 2
        else:
            assert int(g["a_over"]) == seconds and not p.get("over_time_s"), match.group(0)
            blocks = int(g["blocks"])
            variance = (float(g["a"]) / seconds + float(g["f"])) / blocks
        assert abs(variance - float(g["v"])) <= 0.005 * variance + 1e-6, (variance, g["v"])
        assert int(g["df"]) == blocks - 1, match.group(0)
        half = stats.t.ppf(0.975, int(g["df"])) * math.sqrt(variance)
        if g["log_half"]:
            assert abs(half - float(g["log_half"])) <= 0.0005, (half, g["log_half"])
        assert abs(100 * math.expm1(half) - float(g["ratio_half"])) <= 0.1, (100 * math.expm1(half), g["ratio_half"])


def test_the_fixed_sequences_floor_is_said_as_families_computes_it():
    """course.yaml and `pagelab sweep --help`'s repeats text give the exact signed-rank test's
    smallest p at 6, 7 and 8 rounds and what Holm over the 2 pairs after the primary makes of it, as
    pagelab.evidence.families computes them (scipy's exact Wilcoxon, statsmodels' Holm)."""
    from fractions import Fraction

    from pagelab.evidence.families import holm, smallest_p
    from pagelab.sweep.knobs import KNOBS

    eight, seven, six = smallest_p(8, 8, True), smallest_p(7, 7, True), smallest_p(6, 6, True)
    five = smallest_p(5, 5, False)
    assert Fraction(seven).limit_denominator(1000) == Fraction(2, 128) and Fraction(six).limit_denominator(1000) == Fraction(2, 64)
    assert Fraction(eight).limit_denominator(1000) == Fraction(2, 256)
    after_eight, after_seven, after_six, after_five = (max(holm([p, p])) for p in (eight, seven, six, five))
    course = re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / "course.yaml").read_text())
    match = find(course, r"With 8 rounds the signed-rank test's smallest p is 2/256 = ([\d.]+), .*? 2 x 2/256 = ([\d.]+), "
                         r"under 5% \(with 6 rounds, 2 x 2/64 = ([\d.]+) could not\)", "course.yaml")
    assert [float(x) for x in match.groups()] == pytest.approx([eight, after_eight, after_six], abs=5e-4), match.group(0)
    assert "then by Holm's correction over those 2" in course and "first, alone, at the full 5%" in course
    text = re.sub(r"\s+", " ", next(k for k in KNOBS if k.name == "repeats").help)
    match = find(text, r"smallest p 2/252, 2 x 2/252 = ([\d.]+)\) or 7 .*? smallest p is 2/64 with 6 rounds, 2 x 2/64 = "
                       r"([\d.]+), and 2/128 with 7, 2 x 2/128 = ([\d.]+)\)", "the repeats knob's text")
    assert [float(x) for x in match.groups()] == pytest.approx([after_five, after_six, after_seven], abs=5e-4), match.group(0)
    assert "first, alone, at the full 5%, then, only if it was called, the other pairs by Holm's correction" in text


def test_the_read_requests_tolerance_is_the_reports():
    """The runbook's "within the 10% the report allows" is the report's own tolerance (claims)."""
    from pagelab.report.claims import REQUEST_SIZE_TOLERANCE

    text, where = flat(RUNBOOK), "runbooks/tpcc-page-size.md (Request size against page size)"
    for found in re.findall(r"within (?:the )?(\d+)% (?:the report allows|of the page size)", text):
        assert int(found) == round(100 * REQUEST_SIZE_TOLERANCE), f"{where}: {found}%"
    assert find(text, r"within the (\d+)% the report allows", where)


def test_troubleshootings_far_above_is_the_reports():
    """Troubleshooting says when the report names a page size whose within-run a stands out: the
    report's own threshold (pagelab.report.precision.FAR_ABOVE)."""
    from pagelab.report.precision import FAR_ABOVE

    where = "runbooks/troubleshooting.md"
    times = find(flat(REPO_ROOT / "runbooks" / "troubleshooting.md"), r"where it is more than (\d+) times every other's, "
                                                                       r"the paragraph names it", where).group(1)
    assert int(times) == FAR_ABOVE, f"{where}: {times} times; the report's FAR_ABOVE is {FAR_ABOVE:g}"


def test_the_readmes_example_of_a_tpmc_line_is_courses():
    """"Reading the verdicts" quotes the method TpmC's lines end with for `course` as shipped and with
    `--set over_time_s=0`, as the model writes it (pagelab.evidence.model): course's rounds and the
    over-time runs' block, on the blocks less one degrees of freedom."""
    from pagelab.evidence.model import MODEL_METHOD, blocks_text

    text = flat(REPO_ROOT / "README.md")
    rounds = profile("course")["repeats"]
    assert profile("course")["over_time_s"] > 0
    shipped = f'for TpmC in `course`, "{MODEL_METHOD}, {blocks_text(rounds + 1, True)}, t on {rounds} df": {rounds} rounds,'
    assert shipped in text, f"README.md (Reading the verdicts) no longer says {shipped!r}"
    without = f'`--set over_time_s=0` reads "{blocks_text(rounds, False)}, t on {rounds - 1} df"'
    assert without in text, f"README.md (Reading the verdicts) no longer says {without!r}"


OVER_TIME_COUNTS = ("after MSER-5 cuts each one's warm-up, all of the rest where the drift test detects no drift, "
                    "else only its first")


def test_where_the_verdicts_come_from_is_said_alike_and_as_the_model_counts():
    """`pagelab sweep --help` (over_time_s), course.yaml, the TPC-C runbook and the README say that the
    medians and the other metrics' verdicts come from the rounds while TpmC's counts the over-time
    runs as one more block, and what of each counts; no doc says course's verdicts come from the
    rounds alone. What of an over-time run counts is checked against the model itself
    (pagelab.evidence.model.counted_series): a level run counts whole after its warm-up, a drifting
    one only its first window of a verdict run's length."""
    import numpy as np

    from pagelab.evidence.components import RunSeries
    from pagelab.evidence.model import counted_series
    from pagelab.sweep.knobs import KNOBS

    help_text = re.sub(r"\s+", " ", next(k for k in KNOBS if k.name == "over_time_s").help)
    texts = {"sweep --help (over_time_s)": help_text,
             "course.yaml": re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / "course.yaml").read_text()),
             "runbooks/tpcc-page-size.md": flat(RUNBOOK), "README.md": flat(REPO_ROOT / "README.md")}
    for where, text in texts.items():
        assert OVER_TIME_COUNTS in text, f"{where} no longer says what of an over-time run TpmC's model counts"
        assert re.search(r"verdicts of every metric but TpmC|other metrics' verdicts and the medians|the verdicts and "
                         r"intervals of every metric but TpmC", text), where
    for where, text in texts.items():
        for wrong in ("the verdicts come from the other runs", "the verdicts, medians and intervals come from these",
                      "the verdicts come from the rounds,"):
            assert wrong not in text, f"{where} says {wrong!r}"
    rng = np.random.default_rng(1)
    seconds = (10.0,) * 120
    verdict = [RunSeries(f"4k-r{i}", "4k", f"round {i}", tuple(1000 + rng.normal(0, 10, 9)), (10.0,) * 9) for i in (1, 2)]
    level = RunSeries("4k-over-time", "4k", "over-time", tuple(1000 + rng.normal(0, 10, 120)), seconds, "over_time")
    drifting = RunSeries("8k-over-time", "8k", "over-time", tuple(1000 - 3 * np.arange(120) + rng.normal(0, 10, 120)),
                         seconds, "over_time")
    _, uses = counted_series([*verdict, level, drifting])
    by_size = {use.page_size: use for use in uses}
    assert by_size["4k"].counted_s == by_size["4k"].measured_s - by_size["4k"].cut_s, by_size["4k"]
    assert by_size["8k"].drift_p < 0.05 and by_size["8k"].counted_s == 90, by_size["8k"]


def test_the_docs_say_what_a_round_shares_and_an_interval_excludes_in_plain_words():
    """A round's runs do not share a minute (a `course` round takes about 6.5 minutes), and "excludes no
    change" is a double negative: the README and runbooks say "run back to back on one machine,
    within minutes of each other" and "lies wholly on one side of no change" instead."""
    paths = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md")),
             *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml")),
             REPO_ROOT / "lib" / "pagelab" / "cli" / "stats.py"]  # `pagelab stats --help`
    for path in paths:
        text = re.sub(r"\s*#\s*", " ", path.read_text()) if path.suffix == ".yaml" else path.read_text()
        text = " ".join(text.replace('"\n', "").replace('" "', "").split())
        for phrase in ("machine's minute", "shared minute", "minute's shared", "excludes no change",
                       "machine's state of that minute"):
            assert phrase not in text, f"{path.relative_to(REPO_ROOT)} says {phrase!r}"
