"""The planned figures the docs quote: the design `course` ships, as `pagelab plan --from BUNDLE
--profile course --budget 2h --resolve 5%` gives it on the two quiet sweeps pooled (its half-width,
power and detectable effect in the README, course.yaml and the TPC-C runbook, and every other
"N% power for a 5% effect" in the docs; course.yaml's arithmetic of its costs and components;
course's planned_* knobs and the report's precision paragraph planned with them), and the README's
history of the 2026-11-28 plan on that bundle alone. The expected values are what `pagelab plan`
prints, run here on the captured sweeps (tests/fixtures/captured/course-2026-11-28 and -29) by
tests/test_measured_figures.py's helpers."""

from __future__ import annotations

import datetime
import json
import re
import shutil

from tests import test_measured_figures as measured_figures
from tests.test_measured_figures import COURSE, PLAN, README, RUNBOOK, SWEEP, _design, _plan, _pooled_plan, docs, find, plain


def test_the_planned_figure_is_the_planners(tmp_path, monkeypatch, capsys):
    """The design course ships, as `pagelab plan` gives it on both quiet sweeps pooled: its half-width,
    power and detectable effect in the README, course.yaml and the runbook; its components in
    course.yaml's arithmetic; and every other "N% power for a 5% effect" in the docs is this one."""
    output = _pooled_plan(monkeypatch, capsys)
    rounds, run_s, half, power, detectable = _design(output, "now")
    t_star = find(output, r"T\* = √\(a·o/f\) = (\d+) s", "pagelab plan's Kalibera & Jones line").group(1)
    readme, runbook, course = plain(README), plain(RUNBOOK), plain(COURSE)
    assert find(readme, r"`course` as shipped, (\d+) rounds of (\d+) s and the three 1200 s runs",
                README.name).groups() == (rounds, run_s)
    said = [find(readme, r"gives 16k vs 4k a half-width of ±(\d+\.\d)%, (\d+)% power for a 5% effect, and detects "
                         r"(\d+\.\d)% with 80% power", README.name).groups(),
            find(course, r"16k vs 4k gets a half-width of ±(\d+\.\d)%, (\d+)% power for a 5% effect, (\d+\.\d)% "
                         r"detectable with 80% power", COURSE.name).groups(),
            (half,) + find(runbook, r"`course` as shipped has (\d+)% power for a 5% effect and detects (\d+\.\d)% with "
                                    r"80% power", RUNBOOK.name).groups()]
    for stated in said:
        assert stated == (half, power, detectable), f"a planned figure {stated}; pagelab plan says {(half, power, detectable)}"
    assert find(readme, r"T\* = √\(a·o/f\) is (\d+) s", README.name).group(1) == t_star
    # the components of course.yaml's arithmetic are plan's, on the log scale and as the report writes a
    a, f, root_f, low, high = find(
        output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+) \(√f = ([\d.]+)%, 95% interval ([\d.]+)% to ([\d.]+)%\)",
        "plan's components").groups()
    assert find(course, r"within-run a = ([\d.]+) log\^2 s \(([\d,]+) %\^2 s as the report writes it\), floor f = "
                        r"([\d.]+) \(sqrt f = ([\d.]+)%, 95% interval ([\d.]+)-([\d.]+)%\)", COURSE.name).groups() == (
        a, f"{round(1e4 * float(a)):,}", f, root_f, low, high)
    # "N% power for a 5% effect" anywhere else is this figure too
    for path in docs():
        for found in re.finditer(r"(\d+)% power for a 5% effect", plain(path)):
            assert found.group(1) == power, f"{path.name}: {found.group(0)!r}; pagelab plan says {power}%"


def test_the_older_plan_is_the_planners_on_its_bundle_for_the_design_course_had(tmp_path, monkeypatch, capsys):
    """The README's history of the 2026-11-28 plan: `pagelab plan` on that bundle alone, for course as it
    was then (7 rounds of 100 s). Its best design depends on the report's time, which plan takes from
    the sweep's own report step (for this bundle, from before that record: the last run's end to the
    tidy-up after the report), never from the report's last writing: the README's design and report
    time are plan's, and stay so once the report is written again, an hour later."""
    import yaml

    then = yaml.safe_load(COURSE.read_text())
    then.update(repeats=7, measure_s=100)
    profile = tmp_path / "course.yaml"
    profile.write_text(yaml.safe_dump(then))
    # _plan reads PLAN from its own module
    monkeypatch.setattr(measured_figures, "PLAN", ["plan", "--profile", str(profile), *PLAN[3:]])
    output = _plan(SWEEP, monkeypatch, capsys)
    _, _, half, power, detectable = _design(output, "now")
    readme = plain(README)
    history = find(readme, r"\*\*History: the 2026-11-28 plan\*\*.*?replaces it\.", README.name).group(0)
    assert find(history, r"that design had a half-width of ±(\d+\.\d)%, power (\d+)% at 5%, and (\d+\.\d)% detectable",
                README.name).groups() == (half, power, detectable)
    assert find(history, r"T\* was (\d+) s", README.name).group(1) == find(
        output, r"T\* = √\(a·o/f\) = (\d+) s", "pagelab plan's Kalibera & Jones line").group(1)
    match = find(history, r"best 2-hour design it found was (\d+) rounds of (\d+) s \(`--set repeats=\d+ --set "
                          r"measure_s=\d+`\): power (\d+)% at 5%, (\d+\.\d)% detectable; .*? counts the report's (\d+) s, "
                          r"from the last run's end to the sweep's tidy-up after its report", README.name)
    rounds, run_s, best_power, best_detectable, report_s = match.groups()
    best = _design(output, "best within the budget")
    assert (rounds, run_s, best_power, best_detectable) == (best[0], best[1], best[3], best[4]), (match.group(0), best)
    assert find(output, r"report (\d+) s", "pagelab plan's costs").group(1) == report_s, match.group(0)
    copy = tmp_path / "course-2026-11-28"
    shutil.copytree(SWEEP, copy)
    document = json.loads((copy / "sweep.json").read_text())
    last_done = max(float(line.split(",")[0]) for run in copy.glob("*-r*") for line in
                    (run / "phases.csv").read_text().splitlines() if line.endswith(",done"))
    written = datetime.datetime.fromtimestamp(last_done + 3600, datetime.timezone.utc)
    document["report"]["written"] = written.strftime("%Y-%m-%dT%H:%M:%S%z")
    (copy / "sweep.json").write_text(json.dumps(document))
    assert _plan(copy, monkeypatch, capsys) == output.replace(SWEEP.name, copy.name)


def test_the_profiles_arithmetic_is_the_planners_costs(monkeypatch, capsys):
    """course.yaml's arithmetic for the planned figure states the bundle's per-run cost and its init
    and load, as pagelab plan measures them."""
    output = _pooled_plan(monkeypatch, capsys)
    overhead, setup, report = find(output, r"costs on the machine the bundle was made on \(from the bundle's timings\): ([\d.]+) s a run "
                                           r"beyond .*?; (\d+) s of init and load .*?; report (\d+) s",
                                   "pagelab plan's costs").groups()
    match = find(plain(COURSE), r"([\d.]+) s a run besides the measurement and ([\d,]+) s fixed \(init and load (\d+) s, "
                                r"the report (\d+) s, over-time runs 3 x \(1200 \+ ([\d.]+)\) s\)", COURSE.name)
    assert match.group(1, 3, 4, 5) == (overhead, setup, report, overhead), match.group(0)
    fixed = int(setup) + int(report) + 3 * (1200 + float(overhead))
    assert match.group(2) == f"{fixed:,.0f}", (match.group(0), fixed)
    rounds, run_s, *_ = _design(output, "now")
    total = find(plain(COURSE), r"(\d+) rounds x (\d+) s, ([\d.]+) h planned: \d+ rounds x \d+ s take (\d+) x 3 x "
                                r"\((\d+) \+ ([\d.]+)\) \+ ([\d,]+) = ([\d,]+) s;", COURSE.name).groups()
    seconds = int(rounds) * 3 * (int(run_s) + float(overhead)) + fixed
    assert total == (rounds, run_s, f"{seconds / 3600:.2f}", rounds, run_s, overhead, f"{fixed:,.0f}",
                     f"{seconds:,.0f}"), total


def test_courses_planned_components_are_the_planned_figures_and_the_report_plans_with_them(tmp_path, monkeypatch,
                                                                                          capsys):
    """course.yaml's planned_within_a and planned_floor_pct are the components `pagelab plan` prints for
    the two quiet sweeps pooled (the planned figure's), not an older plan's; and the report's precision paragraph,
    planning with them as shipped, gives the planned figure's half-width, the README's."""
    import yaml

    from pagelab.evidence import planner

    output = _pooled_plan(monkeypatch, capsys)
    a = float(find(output, r"within-run a = (\d+\.\d+) \(log² × s", "pagelab plan's components").group(1))
    floor = float(find(output, r"√f = (\d+\.\d+)%", "pagelab plan's components").group(1))
    shipped = yaml.safe_load(COURSE.read_text())
    assert shipped["planned_within_a"] == round(1e4 * a), (shipped["planned_within_a"], a)
    assert shipped["planned_floor_pct"] == round(floor, 2), (shipped["planned_floor_pct"], floor)
    _, _, half, _, _ = _design(output, "now")
    # as pagelab.report.precision plans the design as run: its rounds of its run length and the over-time block
    # counting all its over_time_s (planned before any over-time run, as plan assumes from this bundle,
    # which ran none), the blocks weighed equally, at 5%
    assert "the bundle ran no over-time runs of 16k and 4k, so a design assumes all 1200 s" in output
    expected = planner.design(shipped["planned_within_a"] / 1e4, (shipped["planned_floor_pct"] / 100) ** 2,
                              planner.Costs(0.0, 0.0, 1), shipped["repeats"], shipped["measure_s"], 0.05, None,
                              planner.DEFAULT_POWER, 1, float(shipped["over_time_s"]))
    assert f"{expected.half_width_pct:.1f}" == half, (expected.half_width_pct, half)
    # and the paragraph itself, for a sweep of course as shipped (its over-time runs, the planned knobs)
    from tests.test_report_words import bundle, load
    from pagelab.report.precision import precision_markdown

    planned = {name: shipped[name] for name in ("planned_within_a", "planned_floor_pct", "over_time_s", "repeats",
                                                "measure_s")}
    text = precision_markdown(load(bundle(tmp_path, profile=planned)))
    assert f"{shipped['repeats']} rounds × {shipped['measure_s']} s and the over-time runs' block" in text, text
    assert f"for an expected half-width of about ±{half}% (the planner's, from these planned components" in text, text
    readme = plain(README)
    assert f"`course` sets the two quiet sweeps' pooled components for 16k vs 4k ({shipped['planned_within_a']:,} %²·s " \
           f"and {shipped['planned_floor_pct']}%" in readme


QUICK_SWEEPS = [measured_figures.REPO_ROOT / "tests" / "fixtures" / "captured" / f"quick-2026-11-29-c{n}" for n in (1, 2, 3)]


def test_quicks_design_is_the_planners_on_its_three_sweeps(monkeypatch, capsys):
    """quick.yaml's arithmetic and figures, from its three sweeps of 2026-11-29 (their runs kept in
    tests/fixtures/captured/quick-2026-11-29-c1..c3): the components and costs `pagelab plan --from`
    all three pools, each pair's detectable effect and the primary's power at the profile's design,
    what 14 rounds would give (pagelab.evidence.planner), each sweep's 16k vs 4k as `pagelab stats`
    prints it, and each sweep's time from its creation to its report in sweep.json."""
    import io
    import math
    from contextlib import redirect_stdout

    import yaml

    from pagelab.cli import main
    from pagelab.evidence import planner
    from tests.test_measured_figures import _plan

    quick_path = measured_figures.REPO_ROOT / "runbooks" / "profiles" / "quick.yaml"
    text = plain(quick_path)
    profile = yaml.safe_load(quick_path.read_text())
    monkeypatch.setattr("tests.test_measured_figures.PLAN", ["plan", "--budget", "10min", "--resolve", "5%"])
    output = _plan(QUICK_SWEEPS[0], monkeypatch, capsys, *QUICK_SWEEPS[1:])
    a, f, root_f, low, high = find(
        output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+) \(√f = ([\d.]+)%, 95% interval ([\d.]+)% to ([\d.]+)%\)",
        "plan's pooled components").groups()
    per_run = find(output, r"([\d.]+) s a run beyond what it measures", "plan's cost a run").group(1)
    assert (f"a = {a} log^2 s, f = {f} (sqrt f = {root_f}%, 95% interval {low}% to {high}%), {per_run} s a run "
            f"beyond its {profile['measure_s']} s measured") in text, text
    rounds, run_s, half, power, detectable = find(
        output, r"now \(quick: (\d+) rounds × (\d+) s[^)]*\): half-width ±([\d.]+)% \([^)]*\), power (\d+)%, minimum "
                r"detectable effect ([\d.]+)%", "plan's now line").groups()
    assert (int(rounds), int(run_s)) == (profile["repeats"], profile["measure_s"])
    others = {pair: find(output, rf"{pair}: now minimum detectable effect ([\d.]+)%", pair).group(1)
              for pair in ("8k vs 4k", "16k vs 8k")}
    assert (f"±{half}%: 16k vs 4k {detectable}% detectable with 80% power (power {power}% at 5%), 8k vs 4k "
            f"{others['8k vs 4k']}%, 16k vs 8k {others['16k vs 8k']}%") in text, text
    fewer = planner.design(float(a), float(f), planner.Costs(float(per_run), 23, 3), int(rounds) - 1, int(run_s), 0.05,
                           -math.log(0.95))
    assert f"{int(rounds) - 1} rounds would give {fewer.detectable_pct:.1f}%" in text
    effects, times = [], []
    for sweep in QUICK_SWEEPS:
        printed = io.StringIO()
        with redirect_stdout(printed):
            assert main(["stats", str(sweep)]) == 0
        effect = find(printed.getvalue(), r"16k vs 4k: TpmC ([−+]?[\d.]+%) \[([−+]?[\d.]+%), ([−+]?[\d.]+%)\] \(95% CI\), "
                                          r"slower", f"{sweep.name}'s primary line").groups()
        effects.append("{} [{}, {}]".format(*(e.replace("−", "-") for e in effect)))
        record = json.loads((sweep / "sweep.json").read_text())
        made = datetime.datetime.strptime(record["created"], "%Y-%m-%dT%H:%M:%S%z")
        written = datetime.datetime.strptime(record["report"]["written"], "%Y-%m-%dT%H:%M:%S%z")
        seconds = int((written - made).total_seconds())
        times.append(f"{seconds // 60} min {seconds % 60} s")
    assert f"{effects[0]}, {effects[1]} and {effects[2]} (95% CI" in text, (effects, text)
    assert f"{times[0]}, {times[1]} and {times[2]} from the bundle's creation to its report" in text, times
