"""The figures the docs quote from the 2026-11-28 `course` sweep, computed again from that sweep's
own files (tests/fixtures/captured/course-2026-11-28, trimmed from its bundle) by the code that
printed them: the measured figure (`pagelab stats`: 16k vs 4k's effect, interval and the effect its
rounds resolve, and every pair of the headline's table, in the digits stats prints), its variance components, the planned figure (`pagelab plan --from BUNDLE --profile
course --budget 2h --resolve 5%`), the pool's share of the loaded data and the ramp-ups' range.

Each figure is said once in full (the README's headline finding) and, for the measured and the
planned figure, once more in `course.yaml` and the TPC-C runbook; every place it appears is read
here, so a figure that disagrees with its source fails, naming the file. Any other sentence in the
docs that states 16k vs 4k's 95% interval or "N% power for a 5% effect" must give the same figure.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import sys
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

SWEEP = REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-28"
README = REPO_ROOT / "README.md"
RUNBOOK = REPO_ROOT / "runbooks" / "tpcc-page-size.md"
COURSE = REPO_ROOT / "runbooks" / "profiles" / "course.yaml"
PLAN = ["plan", "--profile", "course", "--budget", "2h", "--resolve", "5%"]


def plain(path: Path) -> str:
    """The file's text as one line: a YAML comment's marks and table bars gone, one minus sign, one ±."""
    text = path.read_text()
    if path.suffix == ".yaml":
        text = re.sub(r"\n\s*#\s?", " ", text)  # a comment's lines
    text = text.replace("−", "-").replace("+-", "±").replace("|", " ")
    return re.sub(r"\s+", " ", text)


def docs() -> list[Path]:
    return [README, *sorted((REPO_ROOT / "runbooks").glob("*.md")), *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml"))]


def headline(text: str) -> str:
    return text[text.index("### The headline finding"):text.index("## What you get")]


def find(text: str, pattern: str, where: str) -> re.Match:
    match = re.search(pattern, text)
    assert match, f"{where} no longer has a sentence matching {pattern!r}: update this test with the new wording"
    return match


def one(value: float) -> str:
    return f"{value:.1f}"


# A signed effect as pagelab prints it: one decimal, or two significant digits under 1% (+0.39%),
# and no sign when it rounds to zero.
SIGNED = r"([-+]?\d+\.\d+)"
UNSIGNED = r"(\d+\.\d+)"


def effect(value: float, sign: bool = True) -> str:
    """An effect in the digits pagelab's lines give it (pagelab.evidence.numbers), with plain()'s minus."""
    from pagelab.evidence.numbers import effect_decimals, signed_text

    return signed_text(value).replace("−", "-") if sign else f"{value:.{effect_decimals(value)}f}"


@pytest.fixture(scope="module")
def table():
    from pagelab.bundle import read_runs

    return read_runs(SWEEP)


def test_the_measured_figure_is_the_bundles(table):
    from pagelab.evidence.pairs import pairwise_table

    pairs = pairwise_table(table, 5.0)
    row = pairs[(pairs.metric == "tpmc") & (pairs.a == "16k") & (pairs.b == "4k")].iloc[0]
    assert row.confidence_pct == 95.0 and row.verdict == "not resolved" and row.role == "primary"
    source = (effect(row.change_pct), effect(row.low_pct), effect(row.high_pct), effect(row.detectable_pct, sign=False))
    stated = re.compile(rf"16k vs 4k(?: \(primary\))? {SIGNED}% \[{SIGNED}%, {SIGNED}%\] \(95%(?: CI)?\)"
                        rf"[^.]*?resolve (?:effects of )?about ±{UNSIGNED}%")
    for path in (README, RUNBOOK):  # each says it, with its date and command (course.yaml points to the README)
        find(plain(path), stated.pattern, path.name)
    for path in docs():
        for found in stated.finditer(plain(path)):
            assert found.groups() == source, f"{path.name}: {found.group(0)!r}, the bundle's pagelab stats {source}"


def test_the_measured_tables_pairs_are_the_bundles(table):
    """Every pair of the headline's table of the measured figure, as `pagelab stats` prints it: its
    effect, its interval's ends (+0.39%, not +0.4%, as two significant digits give an end under 1%)
    and the interval's level."""
    from pagelab.evidence.pairs import pairwise_table

    pairs = pairwise_table(table, 5.0)
    pairs = pairs[pairs.metric == "tpmc"]
    text = headline(plain(README))
    text = text[text.index("**The course design of 2026-11-28, measured**"):text.index("**The design `course` ships, planned**")]
    rows = re.findall(rf"(\d+k) vs (\d+k)(?: \(primary\))? {SIGNED}% \[{SIGNED}%, {SIGNED}%\] \(([\d.]+)%\)", text)
    assert len(rows) == len(pairs), f"README.md's measured figure gives {len(rows)} pairs, the bundle has {len(pairs)}"
    for a, b, *stated in rows:
        row = pairs[(pairs.a == a) & (pairs.b == b)].iloc[0]
        source = [effect(row.change_pct), effect(row.low_pct), effect(row.high_pct), f"{row.confidence_pct:.4g}"]
        assert stated == source, f"README.md: {a} vs {b} {stated}; the bundle's pagelab stats {source}"


FINDING = REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-29"


def _assert_table_rows_are_the_bundles(text: str, found) -> None:
    """Each "| a vs b | effect [low, high] (level) | *verdict* |" row of a README table in `text` is
    the bundle's TpmC pair as `pagelab stats` gives it (a pair after an uncalled primary: *not tested*)."""
    from pagelab.evidence.pairs import pairwise_table

    pairs = pairwise_table(found, 5.0)
    pairs = pairs[pairs.metric == "tpmc"]
    rows = re.findall(rf"(\d+k) vs (\d+k)(?: \(primary\))? {SIGNED}% \[{SIGNED}%, {SIGNED}%\] \(([\d.]+)%\) \*([a-z ]+)\*",
                      text)
    assert len(rows) == len(pairs) == 3, rows
    for a, b, *stated in rows:
        row = pairs[(pairs.a == a) & (pairs.b == b)].iloc[0]
        source = [effect(row.change_pct), effect(row.low_pct), effect(row.high_pct), f"{row.confidence_pct:.4g}",
                  "not tested" if row.role == "not tested" else row.verdict]
        assert stated == source, f"README.md: {a} vs {b} {stated}; the bundle's pagelab stats {source}"


def test_the_findings_pairs_and_components_are_its_bundles():
    """The headline's finding, the 12-round sweep of 2026-11-29 (tests/fixtures/captured/course-2026-11-29,
    the files its analysis reads): each pair's effect, interval, level and verdict, and the primary
    pair's components, as `pagelab stats` gives them from the bundle."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    found = read_runs(FINDING)
    text = headline(plain(README))
    text = text[text.index("**The finding: "):text.index("**The course design of 2026-11-28, measured**")]
    _assert_table_rows_are_the_bundles(text, found)
    pair = components_of(found).pair("16k", "4k")
    source = (f"{1e4 * pair.within_a.value:,.0f}", one(100 * math.sqrt(pair.between_f.value)),
              one(100 * math.sqrt(pair.between_f.low)), one(100 * math.sqrt(pair.between_f.high)),
              str(pair.rounds - 1))
    match = find(text, r"a = ([\d,]+) %²·s within runs and √f = (\d+\.\d)% between them \(95% interval "
                       r"(\d+\.\d)–(\d+\.\d)%\), on (\d+) degrees of freedom", "README.md (The finding)")
    assert match.groups() == source, f"README.md: {match.group(0)!r}; the bundle's components {source}"


SHIPPED = REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-29-shipped"
SHIPPED_MARK = "**The design `course` ships, measured**"


def test_the_shipped_designs_sweep_is_its_bundles():
    """`course` as shipped (8 rounds of 90 s and the three 1200 s runs), run once on 2026-11-29
    (tests/fixtures/captured/course-2026-11-29-shipped, the files its analysis reads): each pair's
    effect, interval, level and verdict, and the primary pair's components and round spread, as
    `pagelab stats` gives them from the bundle."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    found = read_runs(SHIPPED)
    text = plain(README)
    start = text.index(SHIPPED_MARK)
    text = text[start:text.index("**", start + len(SHIPPED_MARK))]
    _assert_table_rows_are_the_bundles(text, found)
    pair = components_of(found).pair("16k", "4k")
    source = (f"{1e4 * pair.within_a.value:,.0f}", one(100 * math.sqrt(pair.between_f.value)),
              one(100 * math.sqrt(pair.round_variance())))
    match = find(text, r"for 16k vs 4k a = ([\d,]+) %²·s and √f = (\d+\.\d)%, so a round's log-ratio spreads "
                       r"(\d+\.\d)%", f"README.md ({SHIPPED_MARK})")
    assert match.groups() == source, f"README.md: {match.group(0)!r}; the bundle's components {source}"


def test_the_components_are_the_bundles(table):
    from pagelab.evidence.runs import components_of

    components = components_of(table)
    a = [1e4 * size.within_a.value for size in components.sizes]
    floor = [100 * math.sqrt(size.between_f.value) for size in components.sizes]
    pair = components.pair("16k", "4k")
    source = (f"{min(a):,.0f}", f"{max(a):,.0f}", one(min(floor)), one(max(floor)), f"{1e4 * pair.within_a.value:,.0f}",
              one(100 * math.sqrt(pair.between_f.value)), f"{100 * math.sqrt(pair.between_f.low):.0f}",
              f"{100 * math.sqrt(pair.between_f.high):.0f}", one(100 * math.sqrt(pair.round_variance())))
    match = find(headline(plain(README)),
                 r"per page size a = ([\d,]+)–([\d,]+) %²·s within runs and √f = (\d+\.\d)–(\d+\.\d)% between them; "
                 r"for the pair 16k vs 4k a = ([\d,]+) %²·s and √f = (\d+\.\d)% \(95% interval (\d+)–(\d+)%\), so a "
                 r"round's log-ratio of 16k to 4k spreads (\d+\.\d)%", "README.md (The headline finding)")
    assert match.groups() == source, f"README.md: {match.group(0)!r}; the bundle's components {source}"


def _plan(bundle: Path, monkeypatch, capsys, *more: Path) -> str:
    """`pagelab plan` as a user runs it, on `bundle` (and `more`, pooled with it). The sweeps were
    made on the project's VM, and plan refuses another machine's bundle; that guard
    (tests/test_planner.py tests it) is not what is checked here, so it is set aside and the rest
    runs as it does for the user."""
    from pagelab.cli import main
    from pagelab.cli import plan

    monkeypatch.setattr(plan, "_refuse_other_machine", lambda record: None)
    capsys.readouterr()
    sources = [argument for path in (bundle, *more) for argument in ("--from", str(path))]
    assert main([*PLAN[:1], *sources, *PLAN[1:]]) == 0
    return re.sub(r"\s+", " ", capsys.readouterr().out)


def _design(output: str, label: str) -> tuple[str, ...]:
    """(rounds, run length, half-width, power, detectable) of plan's "now" or "best within the budget" line."""
    opening = {"now": r"now \([^:]+: (\d+) rounds × (\d+) s[^)]*\)",
               "best within the budget": r"best within the budget: (\d+) rounds × (\d+) s \([^)]*\), [^:]*"}[label]
    return find(output, opening + r": half-width ±(\d+\.\d)% \([^)]*\), power (\d+)%, minimum detectable effect "
                                  r"(\d+\.\d)%", f"pagelab plan's {label!r} line").groups()


def _pooled_plan(monkeypatch, capsys) -> str:
    """`pagelab plan` on the two quiet sweeps pooled, as course.yaml's design was chosen."""
    return _plan(FINDING, monkeypatch, capsys, SWEEP)


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
    monkeypatch.setattr(sys.modules[__name__], "PLAN", ["plan", "--profile", str(profile), *PLAN[3:]])
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
    overhead, setup, report = find(output, r"costs on this machine \(from the bundle's timings\): ([\d.]+) s a run "
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


def test_the_pool_and_the_ramp_ups_are_said_once(table):
    """The pool's share of the loaded data and the ramp-ups' range, against the sweep's runs; the
    lab's own words for its pool are quoted once."""
    summaries = [json.loads(path.read_text()) for path in SWEEP.glob("*-r*/summary.json")]
    loaded_mb = sorted({round(s["db_bytes"] / 1e6) for s in summaries})
    pool = {s["buffer_pool_bytes"] for s in summaries}
    assert pool == {256 * 2**20}
    share = (f"{100 * max(pool) / (max(loaded_mb) * 1e6):.0f}", f"{100 * max(pool) / (min(loaded_mb) * 1e6):.0f}")
    source = (*share, str(loaded_mb[0]), str(loaded_mb[-1]))
    said = 0
    for path in docs():
        text = plain(path)
        for found in re.finditer(r"(\d+)-(\d+)% of the (\d+)-(\d+) MB", text):
            assert found.groups() == source, f"{path.name}: {found.group(0)!r}; the sweep's runs {source}"
            said += 1
        # the line's judge, the largest database (4k's), against the smallest (16k's)
        for found in re.finditer(r"4k's: (\d+) MB against 16k's (\d+) MB .*? (\d+)% of it and (\d+)% of 16k's", text):
            assert found.groups() == (str(loaded_mb[-1]), str(loaded_mb[0]), *share), f"{path.name}: {found.group(0)!r}"
            said += 1
        for found in re.finditer(r"\((\d+)-(\d+) MB at 7 warehouses\)|(\d+)-(\d+) MB for 7 depending", text):
            assert tuple(g for g in found.groups() if g) == source[2:], f"{path.name}: {found.group(0)!r}"
    assert said >= 4, "README, the TPC-C runbook (twice) and course.yaml each give the pool's share of the loaded data"
    quoted = sum(path.read_text().count("210MB") for path in docs())
    assert quoted == 1, f"the lab's text's own words for its pool are quoted {quoted} times in the docs, not once"
    ramp = [s["rampup_s"] for s in summaries]
    source = f"{round(min(ramp))}-{round(max(ramp))}"
    stated = set()
    for path in docs():
        text = plain(path)
        for pattern in (r"ramp-ups ended after (\d+-\d+) s", r"\((\d+-\d+) s measured\)",
                        r"auto ramp-up \(ended after (\d+-\d+) s in all"):
            stated |= {(found, path.name) for found in re.findall(pattern, text)}
    assert {found for found, _ in stated} == {source}, (
        f"course's ramp-ups are said to be {sorted(stated)}; its 2026-11-28 runs took {source} s")
    assert {name for _, name in stated} >= {COURSE.name, RUNBOOK.name}, stated


SLURM = REPO_ROOT / "runbooks" / "slurm.md"
TROUBLESHOOTING = REPO_ROOT / "runbooks" / "troubleshooting.md"


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


def test_the_first_round_figures_are_the_bundles(table):
    """Round 1 against the later rounds' median, and its rank, as the README and the runbook give them."""
    from pagelab.evidence.self_checks import first_round_table

    first = first_round_table(table).set_index("group")
    ratios = tuple(f"{first.loc[size, 'ratio']:.2f}" for size in ("4k", "8k", "16k"))
    assert set(first["rank"]) == {1} and set(first["runs"]) == {7}, first
    readme = find(plain(README), r"all three round-1 runs were the lowest of their page size, ([\d.]+), ([\d.]+) and "
                                 r"([\d.]+) of the later rounds' median", README.name).groups()
    runbook = find(plain(RUNBOOK), r"all three round-1 runs were the lowest of their page size: ([\d.]+), ([\d.]+) and "
                                   r"([\d.]+) of the later rounds' median at 4k, 8k and 16k, each rank (\d+) of (\d+)",
                   RUNBOOK.name).groups()
    assert readme == ratios and runbook == (*ratios, "1", "7"), (readme, runbook, ratios)


def _rounds_needed(output: str) -> int:
    """The verdict rounds of course's run length that give 16k vs 4k 80% power for a 5% effect, from
    plan's components."""
    import yaml

    from pagelab.evidence import planner

    run_s = yaml.safe_load(COURSE.read_text())["measure_s"]

    a, f = (float(x) for x in find(output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+)", "plan's components").groups())
    effect_log = -math.log(0.95)
    return next(r for r in range(3, 100) if round(100 * planner.power(
        effect_log, math.sqrt(planner.variance_of_mean(a, f, r, run_s)), r - 1, 0.05)) >= 80)


# How far before a quoted figure the docs must have said whose it is (a paragraph, plain()'s one line).
NEAR = 700


def test_the_quiet_sweeps_precision_is_said_to_be_a_quiet_machines(table, monkeypatch, capsys):
    """The measured figure's "resolve about ±R%" (the quiet 2026-11-28 sweep's) and the rounds a 5%
    effect needs (both quiet sweeps pooled): wherever the docs quote either, the same passage says
    the machine was quiet (a busier one resolves less, and its own report's figure is the one to quote)."""
    from pagelab.evidence.pairs import pairwise_table

    pairs = pairwise_table(table, 5.0)
    row = pairs[(pairs.metric == "tpmc") & (pairs.a == "16k") & (pairs.b == "4k")].iloc[0]
    needed = _rounds_needed(_plan(FINDING, monkeypatch, capsys, SWEEP))
    quoted = re.compile(rf"±{re.escape(effect(row.detectable_pct, sign=False))}%|\b{needed} verdict rounds")
    seen = 0
    for path in docs():
        text = plain(path)
        for found in quoted.finditer(text):
            seen += 1
            around = text[max(0, found.start() - NEAR):found.end() + NEAR]
            assert "quiet" in around, f"{path.name}: {found.group(0)!r} is quoted without saying it is a quiet machine's"
    assert seen >= 6, f"the quiet sweep's precision is quoted {seen} times; README, course.yaml, the runbooks quote it"
    readme = plain(README)
    assert "resolves less" in headline(readme) and "gives another answer of the same precision" not in readme
    assert "gives another answer of the same precision" not in plain(TROUBLESHOOTING)


def test_the_driver_modes_level_and_effect_are_the_runbooks():
    """README's Driver modes quotes the runbook's in-sweep measurement of `statements` against
    `tpcc-mysql`: the level (the paired ratio per page size) and the effect (16k/4k under each,
    and how many points apart)."""
    runbook, readme = plain(RUNBOOK), plain(README)
    level = find(runbook, r"`statements` / `tpcc-mysql`, paired, 95% (\d\.\d+) \[[^]]+\] (\d\.\d+) \[[^]]+\] "
                          r"(\d\.\d+) \[", RUNBOOK.name).groups()
    effect_16 = find(runbook, r"16k/4k (\d\.\d+) \[[^]]+\] under `statements` and (\d\.\d+) \[[^]]+\] under "
                              r"`tpcc-mysql` \((\d\.\d) points apart\)", RUNBOOK.name).groups()
    assert f"{100 * abs(float(effect_16[0]) - float(effect_16[1])):.1f}" == effect_16[2], effect_16
    stated = find(readme, r"at (\d\.\d+), (\d\.\d+) and (\d\.\d+) of it at 4k, 8k and 16k inside one sweep over one "
                          r"transport", README.name).groups()
    assert stated == level, f"README.md: statements at {stated} of tpcc-mysql; the runbook's table {level}"
    stated = find(readme, r"16k/4k (\d\.\d+) under `statements` and (\d\.\d+) under `tpcc-mysql` \((\d\.\d) points "
                          r"apart\)", README.name).groups()
    assert stated == effect_16, f"README.md: {stated}; the runbook {effect_16}"
    assert "~10% below tpcc_start)" not in readme, "the level and the effect are one account now"


def test_the_loaded_machines_figures_are_the_runbooks():
    """Troubleshooting's load averages, quiet and shared, are the noise bench's (the TPC-C runbook)."""
    runbook = find(plain(RUNBOOK), r"1-minute load at (\d+\.\d)-(\d+\.\d) .*? against about (\d+) when quiet",
                   RUNBOOK.name).groups()
    stated = find(plain(TROUBLESHOOTING), r"load average \(about (\d+) on the quiet 2-core VM these docs measured, "
                                          r"(\d+\.\d)-(\d+\.\d) when other sessions shared it", TROUBLESHOOTING.name).groups()
    assert (stated[1], stated[2], stated[0]) == runbook, (stated, runbook)


def test_the_commits_that_began_recording_the_knobs_are_the_ones_named():
    """README names the first commits whose sweeps record `changed_knobs` and the planned_* knobs;
    each holds what it is named for, and its parents do not."""
    import subprocess

    def source(commit: str, path: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO_ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else ""

    def parents(commit: str) -> list[str]:
        return subprocess.run(["git", "-C", str(REPO_ROOT), "rev-list", "--parents", "-n", "1", commit],
                              capture_output=True, text=True, check=True).stdout.split()[1:]

    first, planned = find(plain(README), r"in sweeps made by pagelab from commit ([0-9a-f]{7}) on .*? and from "
                                         r"([0-9a-f]{7}) on the profile's `planned_\*` knobs", README.name).groups()
    for commit, path, key in ((first, "lib/pagelab/sweep/orchestrator.py", '"changed_knobs"'),
                              (planned, "lib/pagelab/sweep/knobs.py", "planned_within_a")):
        assert key in source(commit, path), f"README.md names {commit} as the first with {key}; it has none"
        for parent in parents(commit):
            assert key not in source(parent, path), f"README.md names {commit}, but its parent {parent} has {key}"


def test_the_line_slurm_md_plans_from_is_one_pagelab_stats_prints(table):
    """slurm.md plans a cluster sweep from `pagelab stats`' line of the primary pair's components,
    which it quotes with "…" for the figures and S for the spread: that line is printed for the
    bundle (pagelab.evidence.components.components_lines, as `pagelab stats` prints it), with the
    spread the README gives."""
    from pagelab.evidence.components_text import components_lines
    from pagelab.evidence.runs import components_of

    quoted = find(plain(SLURM), r"\(`(16k vs 4k: within a = …, between √f = … over 7 rounds of 100 s; a round's "
                                r"log-ratio spreads S%)`\)", SLURM.name).group(1)
    pattern = re.escape(quoted).replace("…", ".+?").replace("S%", r"(\d+\.\d)%")
    printed = [re.fullmatch(pattern, line.strip()) for line in components_lines(components_of(table))]
    spread = [match.group(1) for match in printed if match]
    assert spread, f"pagelab stats prints no line like slurm.md's {quoted!r}"
    assert spread == [find(plain(README), r"spreads (\d+\.\d)%\.", README.name).group(1)], spread


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


def test_the_levels_the_readme_gives_for_repeated_looks_are_the_boundaries():
    """The README's example of the levels printed under repeated looks, from the group-sequential
    plan the analysis uses (pagelab.evidence.sequential, whose boundaries tests/test_sequential.py
    checks against published ones)."""
    from pagelab.evidence.sequential import Look, SequentialPlan

    text = plain(README)
    match = find(text, r"a sweep made for up to (\d+) rounds prints its primary at ([\d.]+)% when looked at after "
                       r"(\d+) rounds, and at ([\d.]+)% after all \d+ \(looked at after (\d+), (\d+) and (\d+): "
                       r"([\d.]+)%, ([\d.]+)%, ([\d.]+)%\)", "README.md (Reading the verdicts)")
    most, first_level, first, last_level, *three = match.groups()

    def levels(rounds: list[int]) -> list[str]:
        plan = SequentialPlan(tuple(Look(i + 1, n) for i, n in enumerate(rounds)), int(most), 0.05)
        return [f"{100 * (1 - alpha):.4g}" for alpha in plan.nominal_alphas()]

    assert [first_level, last_level] == levels([int(first), int(most)]), match.group(0)
    assert three[3:] == levels([int(n) for n in three[:3]]), match.group(0)



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
