"""The page-size sweep end to end on real MariaDB, as `pagelab sweep --profile smoke` runs it, once
for the whole test run (tests/conftest.py, smoke_sweep_done): the bundle it writes and keeps, its
runs' records, its report (the PDF read back with pdftotext), and what `pagelab stats`, `compare`
and a resume say of it. The expected values are the smoke profile's own knobs (two page sizes, one
round, SMOKE_SHORTER's 6 s measured), the bundle's own files, and the report's fixed wording.

The guards before and between runs (interrupts, locks, refusals) are in test_sweep_guards.py; the
helpers _wait_for_first_run, _wait_for_capture and pages_text here are shared with test_grid.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from pagelab.report.pdf_pages import is_blank, pdf_page_images
from pagelab.bundle import load_tables
from tests.bundles import FIGURES, assert_complete_bundle
from tests.conftest import READS_FILE, REPO_ROOT, pagelab_here, servers_under

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def smoke_sweep(smoke_sweep_done):
    """(bundle, pdf, finished process) of the session's one smoke sweep (tests/conftest.py)."""
    return smoke_sweep_done["bundle"], smoke_sweep_done["pdf"], smoke_sweep_done["done"]


def test_smoke_sweep_writes_a_complete_bundle(smoke_sweep):
    out, _, done = smoke_sweep
    assert_complete_bundle(out)
    medians = [line.split() for line in done.stdout.splitlines() if line.strip().startswith(("4k ", "16k ")) and "vs" not in line]
    assert [words[0] for words in medians] == ["4k", "16k"] and "TpmC" in done.stdout


def test_a_sweep_reads_its_record_whole_once_and_twice_more_to_change_it(smoke_sweep):
    """sweep.json is loaded once the sweep holds the bundle's lock and passed on; beyond the runs'
    own changes (each re-read under the record's lock), only the report's and the tidy-up's changes
    read it again."""
    out, _, _ = smoke_sweep
    reads = json.loads((out.parent / READS_FILE).read_text())
    assert reads.get("load") == 1, reads
    assert sum(count for purpose, count in reads.items() if purpose != "update_run") <= 3, reads


def test_every_run_starts_from_a_restored_snapshot_with_the_pending_writes_flushed(smoke_sweep):
    """The first run of a page size too: it loads and snapshots, then restores as the later ones do,
    and the kernel's writes are flushed before any server starts (the first run after a load)."""
    out, _, _ = smoke_sweep
    for run in ("4k-r1", "16k-r1"):
        phases = [line.split(",", 1)[1] for line in (out / run / "phases.csv").read_text().splitlines()]
        assert phases.index("snapshot") < phases.index("restore") < phases.index("flush") < phases.index("start"), phases
        writeback = json.loads((out / run / "summary.json").read_text())["writeback_before_start"]
        assert writeback["dirty_bytes_before"] >= 0 and writeback["sync_s"] >= 0, writeback
    assert json.loads((out / "sweep.json").read_text())["round_order"] == "drawn from the seed per round"


def test_every_run_records_where_its_server_and_driver_ran(smoke_sweep):
    """cpu_placement is part of a run's configuration: the summary says where each side ran, as /proc
    reported it (the smoke profile shares every CPU this process may use)."""
    out, _, _ = smoke_sweep
    cpus = sorted(os.sched_getaffinity(0))
    assert cpus == list(range(cpus[0], cpus[-1] + 1)), "the expected text below assumes CPUs numbered without gaps"
    every_cpu = f"{cpus[0]}-{cpus[-1]}" if len(cpus) > 1 else str(cpus[0])
    for run in ("4k-r1", "16k-r1"):
        placement = json.loads((out / run / "summary.json").read_text())["cpu_placement"]
        assert placement == {"placement": "shared", "server_cpus": every_cpu, "driver_cpus": every_cpu}, placement


def test_every_run_records_the_cpu_other_processes_used_while_it_measured(smoke_sweep):
    """pagelab.machine.other_work: read at the measurement's start and end, over a window as long as
    the measurement; the run's own CPU (server, driver, samplers) is part of the machine's busy time."""
    out, _, _ = smoke_sweep
    measure_s = json.loads((out / "sweep.json").read_text())["profile"]["measure_s"]
    for run in ("4k-r1", "16k-r1"):
        other = json.loads((out / run / "summary.json").read_text())["other_work"]
        assert abs(other["window_s"] - measure_s) < 2.5, (other, measure_s)
        # the run's own CPU may hold interrupts the kernel charged to it (machine/other_work.py)
        assert 0 < other["run_cpu_s"] <= other["busy_cpu_s"] + other["interrupt_cpu_s"] + 0.1 * other["window_s"], other
        assert other["other_cores"] >= 0 and other["steal_cores"] >= 0, other


def test_tidy_tables_have_rows_for_every_page_size(smoke_sweep):
    out, _, _ = smoke_sweep
    tables = load_tables(out)
    for name in ("tpcc_intervals", "iostat", "innodb", "summary"):
        assert set(tables[name]["page_size"]) == {"4k", "16k"}, name
    summary = tables["summary"].set_index("page_size")
    assert (summary["tpmc"] > 0).all()
    assert set(summary["page_size_bytes"]) == {4096, 16384}
    assert set(summary["transport"]) == {"tcp"}
    measured = tables["iostat"][tables["iostat"]["t_s"] >= 0]
    assert not measured.empty


def test_buffer_pool_pages_match_pool_bytes_over_page_size(smoke_sweep):
    out, _, _ = smoke_sweep
    tables = load_tables(out)
    for page_size, group in tables["innodb"].groupby("page_size_bytes"):
        pool_bytes = int(tables["summary"].set_index("page_size_bytes").loc[page_size, "buffer_pool_bytes"])
        expected = pool_bytes / page_size
        pages = group["pool_pages"].dropna()
        assert not pages.empty
        # The pool's bytes also hold a descriptor per frame (~150 bytes in MariaDB 10.11), so it
        # has a few percent fewer frames than bytes / page size: 7884 of 8192 at 4k, 1016 of 1024 at 64k.
        assert (pages <= expected).all() and (pages >= 0.95 * expected).all(), (page_size, expected, list(pages))


def test_the_pdf_renders_to_non_blank_pages(smoke_sweep, tmp_path):
    out, pdf, _ = smoke_sweep
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert (out / "report.pdf").read_bytes() == pdf.read_bytes(), "the bundle holds its own report"
    pages = pdf_page_images(pdf, tmp_path)
    assert len(pages) >= 4
    assert not any(is_blank(page) for page in pages)


def pages_text(pdf: Path, first: int, last: int) -> str:
    text = subprocess.run(["pdftotext", "-f", str(first), "-l", str(last), str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return " ".join(text.split())


def test_the_pdf_reads_as_a_lab_report(smoke_sweep):
    from pagelab.report.claims import claims
    from pagelab.report.lab_report import load

    _, pdf, _ = smoke_sweep
    text = pages_text(pdf, 1, 1000)
    for title in ("Summary", "1 Introduction", "2 Method", "3 Setup", "4 Results", "5 Discussion", "6 Conclusion",
                  "References", "Appendix", "Figure 1.", "Table 1."):
        assert title in text, title
    assert "shared/" not in text and not re.search(r"\bissue \d", text, re.IGNORECASE)
    assert not re.search(r"\bseeds? 00\d", text, re.IGNORECASE), "the references are named by what they are"
    # "seed" is only the random seed (and the glossary's old name of its knob, "seed in older ones")
    assert not re.findall(r".{40}(?<!random )\bseeds?\b(?! in older).{20}", text, re.IGNORECASE)
    assert "Week#4 Effect of page size on performance" in text
    setup = text[text.index("3 Setup"):text.index("4 Results")]
    assert "The Week 4 lab" in setup and "Ubuntu 20.04.3 LTS" in setup and "tpcc-mysql" in setup, \
        "the lab's set-up beside ours"
    versions = text[text.index("Versions"):text.index("What made this report")]
    assert len(re.findall(r"\bpagelab \d", versions)) == 1, "pagelab's version once, naming its commit"
    # the report's own code, beside the sweep's: its pagelab named as the report's, statsmodels listed
    made = text[text.index("What made this report"):text.index("Every knob of this sweep")]
    assert "pagelab (this report)" in made and "statsmodels" in made, made
    ending = text[text.index("6 Conclusion"):]  # References, Glossary, Appendix, in this order
    references = ending[ending.index("References"):ending.index("Glossary")]
    assert re.search(r"pagelab \d+\.\d+\.\d+\+g[0-9a-f]{7}", references), "pagelab and its version are cited"
    glossary = ending[ending.index("Glossary"):ending.index("Appendix")]
    assert all(word in glossary for word in ("median interval", "margin δ", "Holm", "A/A")), "the glossary is printed"
    # a paragraph may run over a page break, whose page number ("2 / 21") pdftotext puts in its text
    method = re.sub(r" \d+ / \d+ ", " ", " ".join(text[text.index("2 Method"):text.index("3 Setup")].split()))
    assert "over TCP to 127.0.0.1" in method, "the Method names the transport"
    opening = pages_text(pdf, 1, 2)
    assert "had the highest median TpmC" in opening, "the answer belongs on page 1 or 2"
    assert "This is a check that the chain works, not a measurement." in opening
    discussion = text[text.index("5 Discussion"):text.index("6 Conclusion")]
    for claim in claims(load(smoke_sweep[0])):
        statement = " ".join(claim.statement.split())
        assert statement in discussion, statement
        assert claim.verdict in ("holds", "does not hold", "not resolved here", "not checked here")


def test_the_report_and_a_runs_notebook_show_no_internal_names(smoke_sweep):
    from tests.notebook_checks import internal_labels, table_headers

    out, _, _ = smoke_sweep
    for notebook in (out / "report.ipynb", sorted(out.glob("*/run.ipynb"))[0]):
        found = internal_labels(table_headers(json.loads(notebook.read_text())))
        assert not found, f"{notebook.relative_to(out)} shows {found}"


def test_no_number_in_the_pdf_shows_more_than_four_decimals(smoke_sweep):
    _, pdf, _ = smoke_sweep
    numbers = re.findall(r"\b\d+\.(\d{5,})\b", pages_text(pdf, 1, 1000))
    significant = [digits for digits in numbers if len(digits.rstrip("0")) > 4]
    assert not significant, significant[:5]


def test_figures_are_kept_as_png_and_svg_and_printed_as_vectors(smoke_sweep):
    out, _, _ = smoke_sweep
    for figure in FIGURES:
        assert (out / "figures" / f"{figure}.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    notebook = json.loads((out / "report.ipynb").read_text())
    outputs = [o for cell in notebook["cells"] for o in cell.get("outputs", [])]
    assert sum("image/svg+xml" in o.get("data", {}) for o in outputs) >= len(FIGURES)


def test_a_finished_sweep_keeps_its_record_not_its_datadirs(smoke_sweep):
    """Datadirs, snapshots and root's password file go when a sweep has finished; the lock file
    too; the user is told what was kept."""
    out, _, done = smoke_sweep
    instances = sorted((out / "instances").iterdir())
    assert instances
    for instance_dir in instances:
        assert (instance_dir / "instance.json").is_file() and (instance_dir / "loaded.json").is_file()
        for removed in ("data", "snapshot", "client.cnf", "tmp", "datadir-load.json"):
            assert not (instance_dir / removed).exists(), f"{instance_dir.name}/{removed} was kept"
    assert not (out / ".sweep.lock").exists()
    assert "the bundle holds" in done.stderr and "keeps about" in done.stderr


def test_the_sweep_records_its_own_report_steps_time(smoke_sweep):
    """sweep.json's report_step: when the sweep's report step began and ended (after its last run,
    before its tidy-up), what `pagelab plan` counts for the report."""
    import datetime

    out, _, _ = smoke_sweep
    document = json.loads((out / "sweep.json").read_text())
    step = document.get("report_step")
    assert step, "sweep.json does not record the sweep's report step"

    def epoch(text):
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").timestamp()

    last_done = max(float(line.split(",")[0]) for run in out.glob("*-r*") for line in
                    (run / "phases.csv").read_text().splitlines() if line.endswith(",done"))
    started, ended = epoch(step["started"]), epoch(step["ended"])  # whole seconds: a second's slack
    assert last_done - 1 <= started <= ended <= epoch(document["instances_removed"]) + 1, (step, last_done)
    assert abs(step["seconds"] - (ended - started)) <= 1 and step["seconds"] >= 0, step


def test_no_server_left_running(smoke_sweep):
    out, _, _ = smoke_sweep
    assert not servers_under(out)


def _wait_for_first_run(sweep_dir: Path, process: subprocess.Popen, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the sweep ended before its first run finished"
        try:
            runs = json.loads((sweep_dir / "sweep.json").read_text())["runs"]
        except (OSError, ValueError, KeyError):
            runs = []
        if runs and runs[0]["status"] == "done":
            return
        time.sleep(0.5)
    raise AssertionError("the first run did not finish in time")


def _wait_for_capture(run_dir: Path, process: subprocess.Popen, timeout: float = 300) -> None:
    """Until the run's monitor has started: an interrupt from then on leaves partial outputs behind."""
    deadline = time.monotonic() + timeout
    while not (run_dir / "monitor_status.json").exists():
        assert process.poll() is None, "the sweep ended before the second run's monitor started"
        assert time.monotonic() < deadline, "the second run's monitor did not start in time"
        time.sleep(0.2)


def test_notebooks_are_committed_without_outputs():
    notebooks = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        cells = json.loads(path.read_text())["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        assert code, path
        assert all(not c.get("outputs") and not c.get("execution_count") for c in code), f"{path.name} has outputs"
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in code), f"{path.name}: no parameters cell"
        assert cells[0]["cell_type"] == "markdown" and "Time to run" in "".join(cells[0]["source"]), path.name


def test_summary_table_reads_as_pandas(smoke_sweep):
    out, _, _ = smoke_sweep
    frame = pd.read_csv(out / "4k-r1" / "tpcc_intervals.csv")
    assert list(frame["t_s"]) == [3, 6]  # measure_s 6 (tests/conftest.py, SMOKE_SHORTER), interval_s 3


# --- what the runs support: `pagelab stats` and `pagelab compare` on the smoke bundle ------------


def test_the_sweep_ends_with_a_verdict_not_a_bare_number(smoke_sweep):
    _, _, done = smoke_sweep
    assert "16k vs 4k: TpmC" in done.stdout
    assert "not resolved" in done.stdout  # one run each can never say more


def test_stats_reads_every_run_and_gives_no_verdict_from_one_run_each(smoke_sweep):
    out, _, _ = smoke_sweep
    document = json.loads(pagelab_here("stats", out, "--format", "json").stdout)
    for row in (r for r in document["page_sizes"] if r["metric"] == "tpmc"):
        recorded = json.loads((out / f"{row['page_size']}-r1" / "summary.json").read_text())["tpmc"]
        assert row["runs"] == 1 and row["median"] == pytest.approx(recorded)
    [pair] = [p for p in document["pairs"] if p["metric"] == "tpmc"]
    assert (pair["a"], pair["b"], pair["verdict"]) == ("16k", "4k", "not resolved")
    assert pair["equivalence_pct"] == 3.0 and pair["p_adjusted"] is None  # one run a side: no test
    assert document["excluded"] == []
    table = pagelab_here("stats", out).stdout
    assert "16k vs 4k: TpmC" in table and "no interval from one run" in table


def test_stats_leaves_out_and_names_a_failed_run(smoke_sweep, tmp_path):
    import shutil

    out, _, _ = smoke_sweep
    copy = tmp_path / "with-a-failure"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("instances"))
    record = json.loads((copy / "sweep.json").read_text())
    for run in record["runs"]:
        if run["name"] == "16k-r1":
            run.update(status="failed", error="the server went away during the run")
    (copy / "sweep.json").write_text(json.dumps(record))
    done = pagelab_here("stats", copy)
    assert done.returncode == 0, done.stderr
    assert "Runs left out:\n  16k-r1: failed: the server went away during the run" in done.stdout
    document = json.loads(pagelab_here("stats", copy, "--format", "json").stdout)
    assert {(r["page_size"], r["runs"]) for r in document["page_sizes"] if r["metric"] == "tpmc"} == {("4k", 1), ("16k", 0)}
    assert document["excluded"] == [{"run": "16k-r1", "why": "failed: the server went away during the run"}]


def test_a_resume_after_the_report_keeps_the_recorded_report(smoke_sweep, tmp_path):
    """A finished bundle resumed (as after a stop in its tidy-up) finishes without executing the
    report notebook or printing the PDF again: the report sweep.json records is of the same runs."""
    import shutil

    out, _, _ = smoke_sweep
    copy = tmp_path / "reported"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("instances"))
    notebook, pdf = copy / "report.ipynb", copy / "report.pdf"
    recorded = ("report", "report_step")
    before = (notebook.stat().st_mtime_ns, pdf.stat().st_mtime_ns,
              [json.loads((copy / "sweep.json").read_text()).get(key) for key in recorded])
    done = pagelab_here("sweep", "--resume", copy)
    assert done.returncode == 0, done.stderr
    after = (notebook.stat().st_mtime_ns, pdf.stat().st_mtime_ns,
             [json.loads((copy / "sweep.json").read_text()).get(key) for key in recorded])
    assert after == before, "the report was made again"
    assert "kept, not made again" in done.stderr and f"pagelab report {copy}" in done.stderr, done.stderr
    # What that message offers: a report made again by hand is a new report, not the sweep's own
    # report step, whose time `pagelab plan` counts as the sweep's
    again = pagelab_here("report", copy)
    assert again.returncode == 0, again.stderr
    report, step = [json.loads((copy / "sweep.json").read_text()).get(key) for key in recorded]
    assert report != before[2][0], "the report made again is not recorded"
    assert step == before[2][1], f"a report made by hand moved the sweep's report step: {before[2][1]} -> {step}"


def test_compare_finds_a_bundle_equal_to_itself_and_warns_of_other_knobs(smoke_sweep, tmp_path):
    import shutil

    out, _, _ = smoke_sweep
    same = pagelab_here("compare", out, out, "--label-a", "A", "--label-b", "B")
    assert same.returncode == 0, same.stderr
    assert "A 4k vs B 4k: TpmC 0.0%" in same.stdout and "warning" not in same.stderr
    assert "16k vs 4k: " in same.stdout and "difference 0.0 points" in same.stdout
    assert "uniform shift" not in same.stdout and "3. Which knobs differ: none" in same.stdout
    other = tmp_path / "other-day"
    shutil.copytree(out, other, ignore=shutil.ignore_patterns("instances"))
    record = json.loads((other / "sweep.json").read_text())
    record["profile"]["buffer_pool"] = "64M"
    record["profile"]["transport"] = "socket"
    (other / "sweep.json").write_text(json.dumps(record))
    differs = pagelab_here("compare", out, other)
    assert "the profiles differ in buffer_pool: '32M' vs '64M'" in differs.stderr
    assert "the profiles differ in transport: 'tcp' vs 'socket'" in differs.stderr


def test_stats_refuses_what_is_not_a_bundle(tmp_path):
    done = pagelab_here("stats", tmp_path)
    assert done.returncode == 2 and "no sweep.json" in done.stderr
    done = pagelab_here("stats", tmp_path, "--resolve", "0")
    assert done.returncode == 2 and "out of range" in done.stderr
