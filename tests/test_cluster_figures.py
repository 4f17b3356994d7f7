"""The rounds a sweep on a cluster needs, as the docs give them: the verdict rounds of course's run
length that give 16k vs 4k 80% power for a 5% effect, the power at them and one fewer, every
`--set repeats=N --slurm-max-running K` the docs recommend, slurm.md's blocked half-widths, and
README's "More rounds, on a cluster" (the one figure, and how the three sweeps pooled, each report's
own figure and slurm.md's formula relate to it). The expected values are computed here from the
components `pagelab plan` prints for the captured sweeps (tests/fixtures/captured/course-2026-11-28,
-29 and -29-shipped) with the planner's noncentral t (pagelab.evidence.planner) and scipy's t
quantiles, and from each report's precision paragraph (pagelab.report.precision)."""

from __future__ import annotations

import math

from tests.test_measured_figures import (
    COURSE, FINDING, README, RUNBOOK, SHIPPED, SLURM, SWEEP, TROUBLESHOOTING, _plan, find, one, plain,
)


def test_the_rounds_a_5pct_effect_needs_are_the_planners(monkeypatch, capsys):
    """The verdict rounds of course's run length that give 16k vs 4k 80% power for a 5% effect at the
    pooled components (the planner's noncentral t, the over-time runs not counted), the power at
    those rounds and one fewer, and every `--set repeats=N` the docs recommend for it on Slurm; and
    slurm.md's blocked half-widths at that s_round."""
    import yaml

    run_s = yaml.safe_load(COURSE.read_text())["measure_s"]
    from scipy import stats

    from pagelab.evidence import planner

    # the cluster's figure is planned from both quiet sweeps pooled, the docs' one figure for it
    output = _plan(FINDING, monkeypatch, capsys, SWEEP)
    assert "pooled from course-2026-11-29 (12 rounds of 100 s), course-2026-11-28 (7 rounds of 100 s)" in output, output
    a, f = (float(x) for x in find(output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+)", "plan's components").groups())
    effect_log = -math.log(0.95)

    def power(rounds: int) -> int:
        se = math.sqrt(planner.variance_of_mean(a, f, rounds, run_s))
        return round(100 * planner.power(effect_log, se, rounds - 1, 0.05))

    needed = next(r for r in range(3, 100) if power(r) >= 80)
    source = (str(needed), str(power(needed)), str(needed - 1), str(power(needed - 1)))
    for path in (COURSE, RUNBOOK):
        stated = find(plain(path), rf"a 5% effect needs (\d+) verdict rounds of {run_s} s for 80% power \((\d+)%; (\d+) give "
                                   r"(\d+)%", path.name).groups()
        assert stated == source, f"{path.name}: {stated}; the planner's arithmetic gives {source}"
    slurm = plain(SLURM)
    stated = find(slurm, rf"\*\*(\d+) verdict rounds of {run_s} s\*\*: .*? gives (\d+) rounds (\d+)% power and (\d+) rounds "
                         r"(\d+)%", SLURM.name).groups()
    assert (stated[0], stated[2], stated[3], stated[4]) == source and stated[1] == stated[0], (stated, source)
    for path, pattern in ((COURSE, r"so `--set repeats=(\d+) --executor slurm"),
                          (RUNBOOK, r"--profile course --set repeats=(\d+) --executor slurm"),
                          (SLURM, r"`course --set repeats=(\d+) --slurm-max-running (\d+)`"),
                          (SLURM, r"So: `--set repeats=(\d+) --slurm-max-running (\d+)`"),
                          (TROUBLESHOOTING, r"at 80% power at the pooled spread, `--set repeats=(\d+) --executor slurm "
                                            r"--scratch DIR --slurm-max-running (\d+)`"),
                          (README, rf"(?:\d+) verdict rounds of {run_s} s \(`--set repeats=(\d+) --executor slurm --scratch DIR "
                                   r"--slurm-max-running (\d+)`"),
                          (RUNBOOK, r"--out /project/me/course(\d+)"),
                          (README, rf"(\d+) verdict rounds of {run_s} s \(`--set repeats=")):
        found = find(plain(path), pattern, path.name).groups()
        assert found[0] == str(needed), (path.name, pattern, found)
        if len(found) == 2:  # rounds >= 2K: a node takes 2 rounds, the fewest that give it an interval
            assert 2 * int(found[1]) <= needed < 2 * (int(found[1]) + 1), (path.name, found)
    nodes = find(plain(RUNBOOK), r"--slurm-max-running (\d+) --out /project/me/course", RUNBOOK.name).group(1)
    assert 2 * int(nodes) <= needed < 2 * (int(nodes) + 1), nodes
    s_round = math.sqrt(a / run_s + f)
    assert find(plain(README), rf"round's log-ratio of 16k to 4k spreads (\d+\.\d)% at {run_s} s", README.name).group(1) == one(100 * s_round)
    halves = find(slurm, r"widens the blocked column to about ±(\d+\.\d)% at 7 rounds, ±(\d+\.\d)% at (\d+) and "
                         r"±(\d+\.\d)% at 38", SLURM.name).groups()
    assert halves[2] == str(needed)
    computed = tuple(one(100 * stats.t.ppf(0.975, r - 1) * s_round / math.sqrt(r)) for r in (7, needed, 38))
    assert (halves[0], halves[1], halves[3]) == computed, (halves, computed)


def test_the_one_cluster_figure_and_how_the_others_relate_are_the_planners(monkeypatch, capsys):
    """README "More rounds, on a cluster": the one figure (the two quiet sweeps pooled, course's planned
    components) and how the others relate: the three quiet sweeps pooled (`pagelab plan --from` all
    three: components, spread, rounds and the power at them and one fewer, and the rounds at the ends
    of the pooled floor's 95% interval), each report's own figure (pagelab.report.precision, with its
    over-time block) and the same sweep counted without it, and slurm.md's formula on each spread."""
    import yaml
    from scipy import stats

    from pagelab.evidence import planner
    from pagelab.evidence.runs import components_of
    from pagelab.report.lab_report import load
    from pagelab.report.precision import precision_markdown

    run_s = yaml.safe_load(COURSE.read_text())["measure_s"]
    effect_log = -math.log(0.95)

    def needed(a: float, f: float, run_s: float = run_s) -> tuple[int, float, float]:
        def power(rounds: int) -> float:
            return planner.power(effect_log, math.sqrt(planner.variance_of_mean(a, f, rounds, run_s)), rounds - 1, 0.05)
        rounds = next(r for r in range(3, 300) if power(r) >= 0.8)
        return rounds, power(rounds), power(rounds - 1)

    def formula(a: float, f: float) -> int:
        spread = math.sqrt(a / run_s + f)
        return next(r for r in range(3, 300) if (stats.t.ppf(0.975, r - 1) + stats.t.ppf(0.8, r - 1)) * spread
                    / math.sqrt(r) <= effect_log)

    def components(output: str) -> tuple[float, float, float, float]:
        return tuple(float(x) for x in find(output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+) \(√f = [\d.]+%, "
                                                    r"95% interval ([\d.]+)% to ([\d.]+)%\)", "plan's components").groups())

    text = plain(README)
    text = text[text.index("**More rounds, on a cluster.**"):text.index("These are the docs' figures")]
    a2, f2, _, _ = components(_plan(FINDING, monkeypatch, capsys, SWEEP))
    two = needed(a2, f2)[0]
    assert f"**The one figure to plan a cluster sweep by on machines like this VM is {two} verdict rounds of {run_s} s.**" in text
    assert f"the formula and the planner agree on {formula(a2, f2)})" in text and formula(a2, f2) == two
    a3, f3, low, high = components(_plan(FINDING, monkeypatch, capsys, SWEEP, SHIPPED))
    three, at, short = needed(a3, f3)
    said = find(text, r"a = ([\d,]+) %²·s, √f = (\d+\.\d)%, a round's log-ratio spreading (\d+\.\d)% at \d+ s\) give (\d+) "
                      r"verdict rounds \((\d+\.\d)%; (\d+) give (\d+\.\d)%\)", "README.md (More rounds)").groups()
    assert said == (f"{1e4 * a3:,.0f}", one(100 * math.sqrt(f3)), one(100 * math.sqrt(a3 / run_s + f3)), str(three),
                    one(100 * at), str(three - 1), one(100 * short)), said
    ends = find(text, r"95% interval \((\d+\.\d)% and (\d+\.\d)%\) the same arithmetic gives (\d+) and (\d+) rounds",
                "README.md (More rounds)").groups()
    assert ends == (one(low), one(high), str(needed(a3, (low / 100) ** 2)[0]), str(needed(a3, (high / 100) ** 2)[0])), ends
    # each report's own figure, and the shipped sweep's counted without its over-time block
    reports = {}
    for bundle in (FINDING, SHIPPED):
        data = load(bundle)
        markdown = " ".join(precision_markdown(data).split())
        pair = components_of(data.evidence).pair("16k", "4k")
        length = int(find(markdown, r"would need \d+ rounds × (\d+) s", bundle.name).group(1))
        reports[bundle.name] = (int(find(markdown, r"would need (\d+) rounds × \d+ s", bundle.name).group(1)),
                                one(100 * math.sqrt(pair.within_a.value / length + pair.between_f.value)), length,
                                needed(pair.within_a.value, pair.between_f.value, length)[0],
                                pair.within_a.value, pair.between_f.value)
    twelve, shipped = reports[FINDING.name], reports[SHIPPED.name]
    assert (f"the 12-round sweep's report, at its own {twelve[1]}% at {twelve[2]} s (no over-time runs), says "
            f"{twelve[0]}") in text, twelve
    assert (f"at its own {shipped[1]}% at {shipped[2]} s, says {shipped[0]} ({math.ceil(shipped[0] / 2)} nodes), which "
            f"counted without the over-time block, as here, is {shipped[3]}") in text, shipped
    assert (f"{formula(a2, f2)} at the two sweeps' {one(100 * math.sqrt(a2 / run_s + f2))}%, {formula(a3, f3)} at the "
            f"three's {one(100 * math.sqrt(a3 / run_s + f3))}%, {formula(shipped[4], shipped[5])} at the shipped "
            f"sweep's own {shipped[1]}%") in text
    assert (formula(a3, f3), formula(shipped[4], shipped[5])) == (three, shipped[3])  # "gives the same as the planner"


def test_plan_prints_the_readmes_cluster_figure_as_its_rounds_alone(monkeypatch, capsys):
    """README: `pagelab plan … --as-made` on the two quiet sweeps prints the one figure to plan a cluster
    by as its "rounds alone" line, and with the shipped sweep added the three's figure: the numbers the
    README states there, read from the README, printed by the command a reader runs."""
    import re

    from tests.test_measured_figures import _plan

    text = plain(README)
    two = int(find(text, r"The one figure to plan a cluster sweep by on machines like this VM is (\d+) verdict rounds",
                   "README.md").group(1))
    said = find(text, r'"80% power for the 5% effect needs (\d+) verdict rounds of 90 s"; (\d+) with the third bundle',
                "README.md").groups()
    assert int(said[0]) == two
    assert f"80% power for the 5% effect needs {two} verdict rounds of 90 s (no over-time block)" in \
        _plan(FINDING, monkeypatch, capsys, SWEEP)
    out = _plan(FINDING, monkeypatch, capsys, SWEEP, SHIPPED)
    assert f"80% power for the 5% effect needs {said[1]} verdict rounds of 90 s" in out, out
    # the over-time share comes from the bundle that ran over-time runs, not the first, which ran none
    assert "course-2026-11-29-shipped's over-time runs (the first bundle that ran them) kept" in out, out
    assert re.search(r"over-time block: the bundle ran no over-time runs", out) is None
