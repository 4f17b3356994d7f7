"""The figures the docs quote from the captured `course` sweeps, computed again from each sweep's
own files (tests/fixtures/captured/course-2026-11-28, course-2026-11-29 and -29-shipped, trimmed
from their bundles) by the code that printed them: the measured figure (`pagelab stats`: 16k vs
4k's effect, interval and the effect its rounds resolve, and every pair of the headline's tables,
in the digits stats prints), the variance components, the pool's share of the loaded data, the
ramp-ups' range, round 1 against the later rounds, and that the quiet sweep's precision is quoted
as a quiet machine's.

Each figure is said once in full (the README's headline finding) and, for the measured figure,
once more in the TPC-C runbook; every place it appears is read here, so a figure that disagrees
with its source fails, naming the file. Any other sentence in the docs that states 16k vs 4k's 95%
interval must give the same figure.

The helpers here (the docs' paths, plain, find, effect, _plan, _design ...) are shared with the
other checks of the docs' figures: test_planned_figures.py (what `pagelab plan` gives),
test_cluster_figures.py (the rounds a cluster sweep needs), test_quoted_figures.py, and
test_measured_records.py and test_weighting_figures.py.
"""

from __future__ import annotations

import json
import math
import re
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
    """`pagelab plan` as a reader runs it to check the docs' figures, on `bundle` (and `more`, pooled with
    it): the sweeps were made on the project's VM, so with --as-made (the README's command), which plans
    for the machine they were made on wherever it runs (tests/test_planner.py tests the refusal without it)."""
    from pagelab.cli import main

    capsys.readouterr()
    sources = [argument for path in (bundle, *more) for argument in ("--from", str(path))]
    assert main([*PLAN[:1], *sources, *PLAN[1:], "--as-made"]) == 0
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


def test_the_line_slurm_md_plans_from_is_one_pagelab_stats_prints(table):
    """slurm.md plans a cluster sweep from `pagelab stats`' line of the primary pair's components,
    which it quotes with "…" for the figures and S for the spread: that line is printed for the
    bundle (pagelab.evidence.components.components_lines, as `pagelab stats` prints it), with the
    spread the README gives."""
    from pagelab.evidence.components_text import components_lines
    from pagelab.evidence.runs import components_of

    quoted = find(plain(SLURM), r"\(`(16k vs 4k: within a = …, between √f = … over 7 rounds of 100 s; a round's "
                                r"log-ratio spreads S%; a 5% effect at 80% power and the 5% level needs R verdict rounds "
                                r"of T s …)`\)", SLURM.name).group(1)
    pattern = (re.escape(quoted).replace("…", ".+?").replace("S%", r"(\d+\.\d)%")
               .replace(re.escape("R verdict rounds of T s"), r"\d+\ verdict\ rounds\ of\ \d+\ s"))
    printed = [re.fullmatch(pattern, line.strip()) for line in components_lines(components_of(table))]
    spread = [match.group(1) for match in printed if match]
    assert spread, f"pagelab stats prints no line like slurm.md's {quoted!r}"
    assert spread == [find(plain(README), r"spreads (\d+\.\d)%\.", README.name).group(1)], spread
