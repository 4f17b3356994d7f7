"""`pagelab sweep --executor slurm` on a real (private, one-node) Slurm cluster: the unit array and
the report job after it, a task cancelled mid-run and resumed alone, and a bundle that is the same
as a local sweep's. One Slurm sweep is shared by the tests; its phases are recorded as it goes."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from pagelab.report.pdf import pdf_page_images
from pagelab.sweep.run_unit import STOPPED_BY_SIGTERM
from pagelab.bundle import load_tables
from tests.conftest import PAGELAB, REPO_ROOT, servers_under
from tests.conftest import pagelab as run_pagelab
from tests.slurm.cluster import Cluster, leftover_daemons

pytestmark = [pytest.mark.slurm, pytest.mark.server]

# A smoke run takes about 1.5 min here; the whole sweep, report included, well under 10.
SWEEP_TIMEOUT_S = 900
# Files that only a Slurm sweep has: its job scripts and outputs, and the locks run-unit holds.
SLURM_ONLY = ("slurm/*", "locks/unit-*.lock")


def pagelab(cluster: Cluster, *args, timeout: float = 120) -> subprocess.CompletedProcess:
    return run_pagelab(*args, timeout=timeout, env=cluster.env)


def job_ids(stdout: str) -> tuple[str, str]:
    """The array job and report job ids from what the sweep printed ('squeue -j A,R')."""
    line = next(line for line in stdout.splitlines() if line.startswith("watch:"))
    array_job, report_job = line.split("-j", 1)[1].strip().split(",")
    return array_job, report_job


def wait_until_gone(cluster: Cluster, jobs: list[str], timeout: float = SWEEP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        queued = cluster.run("squeue", "-h", "-j", ",".join(jobs), "-o", "%i %T", check=False).stdout.strip()
        if not queued:
            return
        time.sleep(2)
    raise AssertionError(f"jobs {jobs} still queued after {timeout} s:\n{queued}\n{cluster.log('slurmctld')}")


def wait_for_measurement(run_dir: Path, timeout: float = 600) -> None:
    """Until the run's monitor has started: a cancel from then on lands in the middle of the run."""
    deadline = time.monotonic() + timeout
    while not (run_dir / "monitor_status.json").exists():
        assert time.monotonic() < deadline, f"{run_dir.name} did not reach its measurement in time"
        time.sleep(0.5)


def statuses(bundle: Path) -> dict[str, dict]:
    return {entry["name"]: entry for entry in json.loads((bundle / "sweep.json").read_text())["runs"]}


@pytest.fixture(scope="module")
def slurm_sweep(slurm_cluster, tmp_path_factory):
    """The smoke sweep through Slurm, with unit 0 (4k-r1) cancelled during its measurement, then
    resumed. Returns what each phase left, for the tests to check."""
    base = tmp_path_factory.mktemp("slurm-sweep")
    bundle, pdf = base / "smoke", base / "smoke.pdf"
    found: dict = {"bundle": bundle, "pdf": pdf}
    started = time.monotonic()
    submitted = pagelab(slurm_cluster, "sweep", "--profile", "smoke", "--executor", "slurm", "--out", bundle,
                        "--pdf", pdf, "--slurm-args=--time=30 --job-name=pagelab-test")
    found["submit_s"] = time.monotonic() - started
    assert submitted.returncode == 0, submitted.stderr
    found["submitted"] = submitted
    array_job, report_job = job_ids(submitted.stdout)
    found["jobs"] = (array_job, report_job)
    # While the array is in the queue, a second submission of the same bundle is refused.
    found["resume_while_queued"] = pagelab(slurm_cluster, "sweep", "--resume", bundle, "--executor", "slurm")
    found["local_resume_while_queued"] = pagelab(slurm_cluster, "sweep", "--resume", bundle, timeout=60)
    found["dependency"] = slurm_cluster.run("scontrol", "show", "job", report_job).stdout
    wait_for_measurement(bundle / "4k-r1")
    slurm_cluster.run("scancel", f"{array_job}_0")
    wait_until_gone(slurm_cluster, [array_job, report_job])
    found["first_s"] = time.monotonic() - started
    found["after_cancel"] = statuses(bundle)
    found["record_after_cancel"] = json.loads((bundle / "sweep.json").read_text())
    found["16k_summary"] = (bundle / "16k-r1" / "summary.json").read_text()
    found["servers_after_cancel"] = servers_under(bundle)
    instances = bundle / "instances"
    found["instances_after_cancel"] = sorted(p.name for p in instances.iterdir() if p.is_dir())
    found["snapshots_after_cancel"] = sorted(p.parent.name for p in instances.glob("*/snapshot"))

    resumed = pagelab(slurm_cluster, "sweep", "--resume", bundle, "--executor", "slurm", "--pdf", pdf)
    assert resumed.returncode == 0, resumed.stderr
    found["resumed"] = resumed
    wait_until_gone(slurm_cluster, list(job_ids(resumed.stdout)))
    found["after_resume"] = statuses(bundle)
    return found


def test_submitting_prints_the_jobs_and_how_to_watch_them(slurm_sweep):
    stdout = slurm_sweep["submitted"].stdout
    array_job, report_job = slurm_sweep["jobs"]
    assert f"squeue -j {array_job},{report_job}" in stdout and f"sacct -j {array_job},{report_job}" in stdout
    assert "2 units: 0-1" in stdout
    # the report waits for the whole array, whatever became of its tasks
    assert f"Dependency=afterany:{array_job}" in slurm_sweep["dependency"]
    # and the sbatch arguments given went to both jobs
    record = slurm_sweep["record_after_cancel"]
    assert record["slurm"][0]["sbatch_args"] == ["--time=30", "--job-name=pagelab-test"]
    for refused in (slurm_sweep["resume_while_queued"], slurm_sweep["local_resume_while_queued"]):
        assert refused.returncode == 2 and "still in Slurm's queue" in refused.stderr, refused.stderr


def test_a_cancelled_task_is_failed_and_the_others_finish_and_are_reported(slurm_sweep):
    after = slurm_sweep["after_cancel"]
    assert after["4k-r1"]["status"] == "failed" and after["4k-r1"]["error"] == STOPPED_BY_SIGTERM
    assert after["16k-r1"]["status"] == "done"
    assert not slurm_sweep["servers_after_cancel"], "the cancelled unit left its server running"
    report = slurm_sweep["record_after_cancel"]["report"]
    assert report is not None, "the report job did not run after the array"
    assert report["written"] >= after["16k-r1"]["finished"]
    # the cancelled unit's copy of the datadir went with it; the snapshots stay for the resume
    assert slurm_sweep["instances_after_cancel"] == ["16k", "4k"]
    assert slurm_sweep["snapshots_after_cancel"] == ["16k", "4k"]


def test_resume_reruns_only_the_unit_that_is_not_done(slurm_sweep):
    bundle = slurm_sweep["bundle"]
    record = json.loads((bundle / "sweep.json").read_text())
    assert [entry["units"] for entry in record["slurm"]] == [[0, 1], [0]]
    assert "1 unit: 0" in slurm_sweep["resumed"].stdout
    assert {name: entry["status"] for name, entry in slurm_sweep["after_resume"].items()} == \
        {"4k-r1": "done", "16k-r1": "done"}
    assert (bundle / "16k-r1" / "summary.json").read_text() == slurm_sweep["16k_summary"], "a finished unit was redone"
    assert not servers_under(bundle)
    # with every unit done, the report job ended the sweep as a local one ends: no datadir or snapshot left
    assert not list((bundle / "instances").glob("*/snapshot")) and not list((bundle / "instances").glob("*/data"))
    # every run says where it ran, and the statistics take the host as a factor
    for run in ("4k-r1", "16k-r1"):
        host = json.loads((bundle / run / "host.json").read_text())
        assert host["hostname"] == slurm_sweep["after_resume"][run]["host"] and host["cpu_model"] and host["kernel"]
    stats = subprocess.run(PAGELAB + ["stats", str(bundle)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert f"All runs ran on one host, {host['hostname']}." in stats.stdout, stats.stderr


@pytest.fixture(scope="module")
def local_sweep(slurm_sweep, smoke_sweep_done):
    """The same profile run locally, for the comparison: the session's one smoke sweep (tests/conftest.py)."""
    return smoke_sweep_done


def report_outline(pdf: Path) -> list[str]:
    """The report's figures and tables, each named once, in the order the text first names them."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return list(dict.fromkeys(f"{kind} {number}" for kind, number in re.findall(r"\b(Figure|Table) (\d+)\b", text)))


def relative_files(bundle: Path) -> set[str]:
    return {str(path.relative_to(bundle)) for path in bundle.rglob("*")
            if path.is_file() and not any(path.relative_to(bundle).match(pattern) for pattern in SLURM_ONLY)}


@pytest.mark.timeout(SWEEP_TIMEOUT_S)
def test_the_bundle_and_pdf_are_those_of_a_local_sweep(slurm_sweep, local_sweep, tmp_path):
    slurm_bundle, local_bundle = slurm_sweep["bundle"], local_sweep["bundle"]
    assert relative_files(slurm_bundle) == relative_files(local_bundle)
    slurm_tables, local_tables = load_tables(slurm_bundle), load_tables(local_bundle)
    assert slurm_tables.keys() == local_tables.keys()
    for name, local in local_tables.items():
        theirs = slurm_tables[name]
        assert list(theirs.columns) == list(local.columns), name
        assert set(theirs["page_size"]) == set(local["page_size"]) == {"4k", "16k"}, name
    for name in ("tpcc_intervals", "summary"):  # fixed by the profile; monitor samples may differ by one
        assert slurm_tables[name].shape == local_tables[name].shape, name
    assert slurm_sweep["pdf"].read_bytes()[:5] == b"%PDF-"
    assert (slurm_bundle / "report.pdf").read_bytes() == slurm_sweep["pdf"].read_bytes()
    assert pdf_page_images(slurm_sweep["pdf"], tmp_path / "slurm")  # it renders
    # The same report: its figures and tables in the same order. Not its page count, which follows
    # the data and the bundle's path (the appendix prints my.cnf, whose paths wrap).
    assert report_outline(slurm_sweep["pdf"]) == report_outline(local_sweep["pdf"])
    print(f"\nsmoke sweep: local {local_sweep['seconds']:.0f} s; through Slurm, submit {slurm_sweep['submit_s']:.2f} s, "
          f"first pass (one unit cancelled) {slurm_sweep['first_s']:.0f} s")


def test_the_cluster_stops_without_leaving_a_daemon(tmp_path_factory):
    """A cluster of its own, started, given a job, and stopped: none of its processes remains."""
    cluster = Cluster(tmp_path_factory.mktemp("own-slurm")).start()
    try:
        done = cluster.run("sbatch", "--parsable", "--wrap", "sleep 60", f"--output={cluster.directory}/job.out")
        assert done.stdout.strip().isdigit()
        assert leftover_daemons(cluster.directory), "the daemons are not seen while they run"
    finally:
        cluster.stop()
    assert all(process.poll() is not None for process in cluster.processes.values())
    assert leftover_daemons(cluster.directory) == []


def test_stats_give_per_host_medians_when_runs_spread_over_hosts(slurm_sweep, tmp_path):
    """The same bundle as if its 16k unit had run on another node: each host is named with its median."""
    import shutil

    copy = tmp_path / "two-hosts"
    shutil.copytree(slurm_sweep["bundle"], copy, ignore=shutil.ignore_patterns("instances"))
    record = json.loads((copy / "sweep.json").read_text())
    for run in record["runs"]:
        if run["name"] == "16k-r1":
            run["host"] = "node2"
    (copy / "sweep.json").write_text(json.dumps(record))
    stats = subprocess.run(PAGELAB + ["stats", str(copy)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert stats.returncode == 0, stats.stderr
    this_host = slurm_sweep["after_resume"]["4k-r1"]["host"]
    assert f"The runs ran on 2 hosts: {', '.join(sorted([this_host, 'node2']))}." in stats.stdout
    assert "16k on node2:" in stats.stdout and f"4k on {this_host}:" in stats.stdout
    assert "No page size ran on two hosts" in stats.stdout
    document = json.loads(subprocess.run(PAGELAB + ["stats", str(copy), "--format", "json"], capture_output=True,
                                         text=True, timeout=120, cwd=REPO_ROOT).stdout)
    assert {(row["page_size"], row["host"]) for row in document["hosts"] if row["metric"] == "tpmc"} == \
        {("4k", this_host), ("16k", "node2")}
    assert document["host_spread"]["hosts"] == sorted([this_host, "node2"])
