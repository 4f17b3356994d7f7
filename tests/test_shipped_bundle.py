"""The shipped `course` sweep (course-8x90, 2026-11-29) can be recomputed from the repository, as the
README and the TPC-C runbook say: tests/fixtures/captured/course-2026-11-29-shipped holds every file
of its runs that `pagelab stats` and `pagelab report` read, and the README's commands, run on a copy
of it, give the figures the README prints for its IOPS, hit ratio, New-Order p95 and request sizes,
and the whole report. Every expected figure is read from the README's own text; the code under test
only produces the figures it is compared with."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import README, RUNBOOK, SHIPPED, SHIPPED_MARK, find, plain

# What the runbook says the fixture keeps of each run (the TpmC inputs, then the samples the other
# families and the report read) and leaves out; pagelab stats and pagelab report were traced
# (strace -e trace=%file) over the whole bundle on 2026-11-29 to find the first list.
TPMC_INPUTS = {"summary.json", "tpcc_intervals.csv", "host.json", "phases.csv", "rampup_series.csv"}
SAMPLES = {"iostat.csv", "hit_ratio.csv", "innodb.csv"}
VERDICT_ONLY = {"global_status.csv"}
FIRST_RUN_ONLY = {"variables.csv", "my.cnf"}
LEFT_OUT = ["innodb/", "run.ipynb", "iostat.json", "iostat_times.csv", "tpcc.log", "mysqld.err",
            "monitor_status.json", "plan.json", "instances/", "locks/"]


def _section(text: str) -> str:
    """The README's account of the shipped design's sweep, up to the next bold heading."""
    start = text.index(SHIPPED_MARK)
    return text[start:text.index("**", start + len(SHIPPED_MARK))]


def test_the_fixture_holds_what_the_runbook_says_and_nothing_else():
    text = plain(RUNBOOK)
    assert ("`course-2026-11-29-shipped` (course-8x90) holds every file of its runs that `pagelab stats` and "
            "`pagelab report` read, byte for byte as captured") in text
    for name in sorted(SAMPLES | VERDICT_ONLY | FIRST_RUN_ONLY) + LEFT_OUT:
        assert f"`{name}`" in text or f"`{name.rstrip('/')}`" in text, f"the runbook no longer names {name}"
    record = json.loads((SHIPPED / "sweep.json").read_text())
    first = next(entry["name"] for entry in record["runs"] if entry["status"] == "done")
    assert first == "4k-r1", first
    runs = sorted(path for path in SHIPPED.iterdir() if path.is_dir())
    assert [run.name for run in runs] == sorted(entry["name"] for entry in record["runs"])
    for run in runs:
        expected = TPMC_INPUTS | SAMPLES
        if not run.name.endswith("over-time"):
            expected |= VERDICT_ONLY
        if run.name == first:
            expected |= FIRST_RUN_ONLY
        assert {path.name for path in run.iterdir()} == expected, run.name
    assert {path.name for path in SHIPPED.iterdir() if path.is_file()} == {"sweep.json", "components.json"}
    # the size both documents give, in MB of 10^6 bytes
    size = sum(path.stat().st_size for path in SHIPPED.rglob("*") if path.is_file())
    stated = find(text, r"(\d+\.\d) MB of the bundle's (\d+\.\d) MB", "runbooks/tpcc-page-size.md")
    assert stated.group(1) == f"{size / 1e6:.1f}", (stated.group(0), size)
    assert f"The fixture keeps {stated.group(1)} MB of the bundle's {stated.group(2)} MB" in plain(README)


def _documented_block() -> list[list[str]]:
    """The README's fenced commands that recompute the shipped sweep, one word list a line."""
    text = README.read_text()
    blocks = [block for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)
              if "course-2026-11-29-shipped" in block]
    assert len(blocks) == 1, "README.md: one sh block copies course-2026-11-29-shipped"
    return [shlex.split(line) for line in blocks[0].splitlines() if line.strip()]


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> tuple[Path, list[list[str]]]:
    """The README's block up to its pagelab lines, run with the copy in a temporary directory: the
    copy step as written (the source the fixture, the target a bundle under data/runs)."""
    lines = _documented_block()
    assert lines[0] == ["mkdir", "-p", "data/runs"], lines[0]
    cp, source, target = lines[1][:2], lines[1][2], lines[1][3]
    assert cp == ["cp", "-a"] and source == "tests/fixtures/captured/course-2026-11-29-shipped", lines[1]
    assert target.startswith("data/runs/"), target
    bundle = tmp_path_factory.mktemp("shipped") / Path(target).name
    shutil.copytree(REPO_ROOT / source, bundle, symlinks=True)
    pagelab = lines[2:]
    assert [line[:2] for line in pagelab] == [[".venv/bin/pagelab", "stats"], [".venv/bin/pagelab", "report"]]
    assert all(line[2:] == [target] for line in pagelab), pagelab
    return bundle, pagelab


def _rows() -> list[tuple[str, str, str]]:
    """The README's table of the other families: (family, effect and interval, verdict with its p)."""
    rows = re.findall(r"\| (Read IOPS|Write IOPS|Hit ratio|New-Order p95) \| ([^|]+?) \| ([^|]+?) \|",
                      _section(README.read_text()))
    assert [row[0] for row in rows] == ["Read IOPS", "Write IOPS", "Hit ratio", "New-Order p95"], rows
    return rows


def _line(family: str, interval: str, verdict: str) -> str:
    """The start of the `pagelab stats` line a README row stands for, up to its p: "*higher* (p
    0.016)" is "higher (p 0.016" followed by ")" or ";" in the line."""
    return f"16k vs 4k: {family} {interval} (95% CI), {verdict.replace('*', '')}".removesuffix(")")


def test_stats_on_a_copy_gives_every_family_as_the_readme_says(copied):
    from pagelab.cli import main

    bundle, _ = copied
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["stats", str(bundle)]) == 0
    printed = out.getvalue()
    for family in ("TpmC", "Read IOPS", "Write IOPS", "Hit ratio", "New-Order p95"):
        assert f"{family}, page sizes compared" in printed, family
    assert "no finished runs on one side" not in printed
    lines = [line.strip() for line in printed.splitlines()]
    for family, interval, verdict in _rows():
        expected = _line(family, interval, verdict)
        assert any(line.startswith(expected) for line in lines), \
            f"README.md says {expected!r}; pagelab stats: {[line for line in lines if line.startswith('16k vs 4k: ' + family)]}"


def _stated_sizes() -> dict[str, list[str]]:
    match = find(plain(README), r"at 4k / 8k / 16k: reads ([\d.]+) / ([\d.]+) / ([\d.]+) KiB, writes ([\d.]+) / "
                                r"([\d.]+) / ([\d.]+) KiB", f"README.md ({SHIPPED_MARK})")
    return {"read_kb": list(match.groups()[:3]), "write_kb": list(match.groups()[3:])}


def test_the_request_sizes_are_the_ones_the_readme_gives():
    from pagelab.report.lab_report import load
    from pagelab.report.read_requests import measured_verdict_runs

    _, sizes, done = measured_verdict_runs(load(SHIPPED))
    assert len(done) == 24  # "every request of the 24 verdict runs"
    assert "every request of the 24 verdict runs" in plain(README)
    for column, stated in _stated_sizes().items():
        assert [f"{sizes.loc[size, column]:.2f}" for size in ("4k", "8k", "16k")] == stated, column


def test_the_report_renders_from_a_copy_with_the_readmes_figures(copied):
    """The report's notebook, as `pagelab report` executes it (not printed to PDF: tests/test_report.py
    prints), over the copy: it runs without an error and shows the README's read IOPS line, its
    request sizes in Table 4 and its hit ratio over 1200 s."""
    from tests.notebook_checks import check_ran_without_errors, execute, output_text

    bundle, _ = copied
    executed = execute("tpcc_page_size_report.ipynb", bundle, {"sweep_dir": str(bundle), "title": "",
                                                                "author": "", "affiliation": "", "notes": ""})
    check_ran_without_errors(executed)
    shown = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", output_text(executed))))
    family, interval, verdict = _rows()[0]
    assert _line(family, interval, verdict) in shown
    sizes = _stated_sizes()
    for size, read_kb, write_kb in zip(("4k", "8k", "16k"), sizes["read_kb"], sizes["write_kb"]):
        assert re.search(rf"{size} {re.escape(read_kb)} {re.escape(write_kb)}", shown), (size, read_kb, write_kb)
    over_time = find(plain(README), r"\(4k (\d+) → (\d+) against the lab's \d+ → \d+, 8k (\d+) → (\d+) against \d+ → \d+, "
                                    r"16k (\d+) → (\d+) against \d+ → \d+;", "README.md")
    said = over_time.groups()
    for index, size in enumerate(("4k", "8k", "16k")):
        assert f"{size}: {said[2 * index]} → {said[2 * index + 1]}" in shown, size
