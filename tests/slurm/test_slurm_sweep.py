"""`pagelab sweep --executor slurm` on a real (private, two-node) Slurm cluster: one array task per
round, each round's runs on one node; one round's task cancelled mid-round and another node set
DOWN mid-round, then a resume that reruns both rounds whole, each on one node; the statistics
and the report of that bundle, and a bundle laid out as a local sweep's. One sweep (3 rounds of
3 page sizes, the fault matrix's tiny runs) is shared by the tests; its phases are recorded as it
goes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pagelab.evidence.node_model import NODE_METHODS
from pagelab.report.pdf_pages import pdf_page_images
from pagelab.sweep.run_unit import STOPPED_BY_SIGTERM, SUPERSEDED
from tests.conftest import pagelab_here, servers_under
from tests.conftest import pagelab as run_pagelab
from tests.slurm.cluster import Cluster

# Each round's three tiny runs take well under a minute a node; the whole, resume included, a few.
SWEEP_TIMEOUT_S = 900
# The shared sweep's fixture is timed with the first test that asks for it: two passes and two reports.
pytestmark = [pytest.mark.slurm, pytest.mark.server, pytest.mark.timeout(2 * SWEEP_TIMEOUT_S)]
# Files that only a Slurm sweep has: its job scripts and outputs, the locks run-unit holds.
SLURM_ONLY = ("slurm/*", "locks/unit-*.lock")
ROUNDS, PAGE_SIZES = 3, ("4k", "8k", "16k")
SWEEP_ARGS = ("--profile", "tests/faults/tiny.yaml", "--set", f"page_sizes={','.join(PAGE_SIZES)}",
              "--set", f"repeats={ROUNDS}")


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
        time.sleep(0.5)
    raise AssertionError(f"jobs {jobs} still queued after {timeout} s:\n{queued}\n{cluster.log('slurmctld')}")


def runs(bundle: Path) -> list[dict]:
    return json.loads((bundle / "sweep.json").read_text())["runs"]


def by_round(entries: list[dict]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    for entry in sorted(entries, key=lambda entry: (entry["round"], entry["position"])):
        found.setdefault(entry["round"], []).append(entry)
    return found


def measuring(bundle: Path, entry: dict) -> bool:
    return (bundle / entry["name"] / "monitor_status.json").exists()


@pytest.fixture(scope="module")
def node_sweep(slurm_cluster, tmp_path_factory):
    """The sweep through Slurm; round 1's task cancelled, and round 2's node set DOWN, each while
    the round's second unit measures; then the node back and a resume. Returns what each phase left."""
    base = tmp_path_factory.mktemp("slurm-sweep")
    bundle, pdf, scratch = base / "nodes", base / "nodes.pdf", base / "scratch"
    found: dict = {"bundle": bundle, "pdf": pdf}
    submitted = pagelab(slurm_cluster, "sweep", *SWEEP_ARGS, "--executor", "slurm", "--out", bundle, "--pdf", pdf,
                        "--scratch", scratch, "--slurm-args=--time=30 --job-name=pagelab-test")
    assert submitted.returncode == 0, submitted.stderr
    found["submitted"] = submitted
    array_job, report_job = found["jobs"] = job_ids(submitted.stdout)
    found["resume_while_queued"] = pagelab(slurm_cluster, "sweep", "--resume", bundle, "--executor", "slurm",
                                           "--scratch", scratch)
    found["dependency"] = slurm_cluster.run("scontrol", "show", "job", report_job).stdout
    # the resume's report job covers the report after an array; this one is held, never to start
    slurm_cluster.run("scontrol", "hold", report_job)
    # Round 1's task is cancelled and round 2's node set DOWN, each while its second unit measures.
    acted: dict[int, str] = {}
    try:
        deadline = time.monotonic() + SWEEP_TIMEOUT_S
        while len(acted) < 2:
            assert time.monotonic() < deadline, f"rounds 1 and 2 did not reach their second units: {runs(bundle)}"
            rounds = by_round(runs(bundle))
            for number in (1, 2):
                second, third = rounds[number][1], rounds[number][2]
                if number in acted or not measuring(bundle, second):
                    continue
                assert third["status"] != "done", f"round {number} ended before it could be stopped mid-round"
                acted[number] = second["host"]
                if number == 1:
                    slurm_cluster.run("scancel", f"{array_job}_1")
                else:
                    slurm_cluster.run("scontrol", "update", f"nodename={second['host']}", "state=down", "reason=test")
            time.sleep(0.3)
        found["acted"] = acted
        wait_until_gone(slurm_cluster, [array_job])
        slurm_cluster.run("scancel", report_job)
        wait_until_gone(slurm_cluster, [report_job])
        found["after_first"] = runs(bundle)
        found["record_after_first"] = json.loads((bundle / "sweep.json").read_text())
        found["servers_after_first"] = servers_under(bundle) | servers_under(scratch)
    finally:
        if 2 in acted:  # the session's other tests need both nodes
            slurm_cluster.resume_node(acted[2])

    resumed = pagelab(slurm_cluster, "sweep", "--resume", bundle, "--executor", "slurm", "--scratch", scratch,
                      "--pdf", pdf)
    assert resumed.returncode == 0, resumed.stderr
    found["resumed"] = resumed
    # The runs are done once the array is; the report job after it is waited for by the report's
    # test, the last here, so that the tests of the runs and their statistics go on beside it.
    array_job, found["report_job"] = job_ids(resumed.stdout)
    wait_until_gone(slurm_cluster, [array_job])
    found["after_resume"] = runs(bundle)
    return found


def report_written(cluster: Cluster, node_sweep: dict) -> dict:
    """The resume's report job waited for; sweep.json's record of the report."""
    wait_until_gone(cluster, [node_sweep["report_job"]])
    return json.loads((node_sweep["bundle"] / "sweep.json").read_text())["report"]


def test_submitting_prints_one_task_per_round(node_sweep):
    stdout = node_sweep["submitted"].stdout
    array_job, report_job = node_sweep["jobs"]
    assert f"squeue -j {array_job},{report_job}" in stdout
    assert f"{ROUNDS} rounds: 1-{ROUNDS}; {ROUNDS * len(PAGE_SIZES)} units, each round's on one node" in stdout
    assert f"Dependency=afterany:{array_job}" in node_sweep["dependency"]
    submission = node_sweep["record_after_first"]["slurm"][0]
    assert submission["rounds"] == list(range(1, ROUNDS + 1))
    assert submission["sbatch_args"] == ["--time=30", "--job-name=pagelab-test"]
    refused = node_sweep["resume_while_queued"]
    assert refused.returncode == 2 and "still in Slurm's queue" in refused.stderr, refused.stderr


def test_a_stopped_round_keeps_its_finished_runs_and_says_which_round(node_sweep):
    rounds = by_round(node_sweep["after_first"])
    acted = node_sweep["acted"]
    for number in (1, 2):
        first, second, third = rounds[number]
        assert first["status"] == "done" and first["host"] == acted[number]
        assert second["status"] == "failed" and second["error"] == STOPPED_BY_SIGTERM, second
        assert third["status"] == "failed" and third["round"] == number
        assert third["error"].startswith(f"not run: round {number}'s task on {acted[number]} was stopped by SIGTERM "
                                         f"at {second['name']}"), third["error"]
    # the rounds the stops did not touch ran whole, each on one node, and the node left up took them
    for number in range(3, ROUNDS + 1):
        assert {entry["status"] for entry in rounds[number]} == {"done"}
        assert len({entry["host"] for entry in rounds[number]}) == 1
    assert acted[1] != acted[2], "rounds 1 and 2 ran at once, so on the two nodes"
    assert not node_sweep["servers_after_first"], "a stopped round left a server running"


def test_resume_reruns_each_stopped_round_whole_on_one_node(node_sweep):
    assert "2 rounds: 1-2; 6 units" in node_sweep["resumed"].stdout
    first = {entry["name"]: entry for entry in node_sweep["after_first"]}
    final = by_round(node_sweep["after_resume"])
    assert {entry["status"] for entry in node_sweep["after_resume"]} == {"done"}
    for number, entries in final.items():
        assert len({entry["host"] for entry in entries}) == 1, f"round {number} spans nodes: {entries}"
        assert len({entry["slurm_job"] for entry in entries}) == 1, f"round {number} ran as several tasks"
    for number in (1, 2):  # redone, all three runs, not only the two that had not finished
        assert all(entry["started"] > first[entry["name"]]["finished"] for entry in final[number])
    for number in (1, 2):  # and the one that had finished is kept aside whole, not lost
        done = next(entry for entry in node_sweep["after_first"] if entry["round"] == number and entry["status"] == "done")
        kept = list((node_sweep["bundle"] / SUPERSEDED).glob(f"{done['name']}-*"))
        assert len(kept) == 1, f"round {number}'s finished {done['name']} was not kept: {kept}"
        assert json.loads((kept[0] / "host.json").read_text())["hostname"] == done["host"]
        assert (kept[0] / "summary.json").exists() and (kept[0] / "run.ipynb").exists()
    for number in range(3, ROUNDS + 1):  # untouched
        assert [entry["started"] for entry in final[number]] == [first[e["name"]]["started"] for e in final[number]]
    assert {entry["host"] for entry in node_sweep["after_resume"]} == {"node-a", "node-b"}
    bundle = node_sweep["bundle"]
    assert not servers_under(bundle)
    for entry in node_sweep["after_resume"]:
        host = json.loads((bundle / entry["name"] / "host.json").read_text())
        assert host["hostname"] == entry["host"] and host["machine_id"] and host["cpu_model"] and host["kernel"]
        assert host["disk"]


def copy_runs(bundle: Path, copy: Path) -> Path:
    """What `pagelab stats` reads of a bundle (sweep.json, plan.json, the hosts' records and each
    run's directory), copied while the report job may still be writing the bundle's own files."""
    copy.mkdir()
    for name in ("sweep.json", "plan.json", "noise.json"):
        if (bundle / name).exists():
            shutil.copy2(bundle / name, copy / name)
    for name in ["hosts"] + [entry["name"] for entry in runs(bundle)]:
        if (bundle / name).is_dir():
            shutil.copytree(bundle / name, copy / name)
    return copy


def stats(bundle: Path, *args) -> subprocess.CompletedProcess:
    return pagelab_here("stats", bundle, *args)


def verdict_lines(text: str) -> list[str]:
    """Each pair's line ('  16k vs 4k: TpmC −4.1% [...] (95% CI), not resolved ...'), before the node section."""
    return [line for line in text.split("What the nodes did:")[0].splitlines()
            if " vs " in line and any(word in line for word in ("faster", "slower", "equivalent", "not resolved"))]


def test_stats_give_the_verdicts_of_a_local_layout_and_the_nodes_section(node_sweep, tmp_path):
    """The same bundle with every run's host set to one, as a local sweep records it: the same
    verdict lines. The two-node bundle adds what the nodes did."""
    bundle = node_sweep["bundle"]
    local = copy_runs(bundle, tmp_path / "one-host")
    record = json.loads((local / "sweep.json").read_text())
    for entry in record["runs"]:
        entry["host"] = "this-machine"
    (local / "sweep.json").write_text(json.dumps(record))
    on_nodes, on_one = stats(bundle), stats(local)
    assert on_nodes.returncode == 0 and on_one.returncode == 0, on_nodes.stderr + on_one.stderr
    assert verdict_lines(on_nodes.stdout) and verdict_lines(on_nodes.stdout) == verdict_lines(on_one.stdout)
    assert "What the nodes did:" in on_nodes.stdout and "What the nodes did:" not in on_one.stdout
    assert "The nodes differ in speed by " in on_nodes.stdout, on_nodes.stdout
    # which of the two the data say depends on what the nodes did at once on this machine's 2 cores
    assert ("and the page-size effect does not detectably: node × page size on log TpmC, F(" in on_nodes.stdout
            or "and the page-size effect differs between them too: node × page size on log TpmC, F(" in on_nodes.stdout)
    assert "OLS F test, statsmodels" in on_nodes.stdout
    for node in ("node-a", "node-b"):
        assert f"  {node}: level " in on_nodes.stdout and "16k vs 4k" in on_nodes.stdout
    assert "ran on more than one node" not in on_nodes.stdout
    document = json.loads(stats(bundle, "--format", "json").stdout)
    assert [row["node"] for row in document["nodes"]["nodes"]] == ["node-a", "node-b"]
    assert document["nodes"]["split_rounds"] == []


def test_a_round_on_two_nodes_is_compared_unpaired_and_said_so(node_sweep, tmp_path):
    """As if a resume had merged a local part into round 3: its runs are no block any more."""
    copy = copy_runs(node_sweep["bundle"], tmp_path / "merged")
    record = json.loads((copy / "sweep.json").read_text())
    round_three = [entry for entry in record["runs"] if entry["round"] == 3]
    other = "node-b" if round_three[0]["host"] == "node-a" else "node-a"
    round_three[0]["host"] = other
    (copy / "sweep.json").write_text(json.dumps(record))
    found = stats(copy)
    assert found.returncode == 0, found.stderr
    assert ("Round 3 ran on more than one node: its runs are no block, so every run is compared unpaired, and "
            "TpmC's pairs are judged by a mixed model with the node as a random effect (MixedLM)") in found.stdout
    # the verdict lines themselves come from that model: 3 + 3 runs of a pair on 2 nodes, 6 - 2 - 1 df
    lines = [line for line in verdict_lines(found.stdout) if ": TpmC " in line]
    # (a pair whose mixed-model fit is singular, about 1 in 50 at 3 + 3 runs, is fitted with the nodes as blocks)
    assert len(lines) == 3 and all(line.endswith(tuple(f"{method}, 3+3 runs on 2 nodes, t on 3 df" for method in NODE_METHODS))
                                   for line in lines), "\n".join(lines)
    assert "in a mixed model with the node as a random effect" in found.stdout


def test_the_report_has_the_nodes_section_and_the_bundle_is_a_local_ones(slurm_cluster, node_sweep, smoke_sweep_done,
                                                                         tmp_path):
    bundle, local = node_sweep["bundle"], smoke_sweep_done["bundle"]
    pdf = node_sweep["pdf"]
    report = report_written(slurm_cluster, node_sweep)
    assert report is not None, "the report job did not run after the array"
    assert report["written"] >= max(entry["finished"] for entry in node_sweep["after_resume"])
    assert json.loads((bundle / "sweep.json").read_text()).get("report_step"), "the report job's step is not recorded"
    # the report job finished the sweep: the page sizes' snapshots and datadirs are gone
    assert not list((bundle / "instances").glob("*/snapshot")) and not list((bundle / "instances").glob("*/data"))
    assert pdf.read_bytes()[:5] == b"%PDF-" and (bundle / "report.pdf").read_bytes() == pdf.read_bytes()
    assert pdf_page_images(pdf, tmp_path / "pages")  # it renders
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    # a paragraph may run over a page break, whose page number ("7 / 21") pdftotext puts in its text
    assert "What the nodes did" in text and "The nodes differ in speed by" in re.sub(r" \d+ / \d+ ", " ",
                                                                                      " ".join(text.split()))
    # a run's files, and the bundle's own, are those of a local sweep
    assert run_files(bundle / "4k-r1") == run_files(local / "4k-r1")
    assert top_files(bundle) == top_files(local)


def run_files(run_dir: Path) -> set[str]:
    return {path.name for path in run_dir.iterdir()}


def top_files(bundle: Path) -> set[str]:
    """The bundle's own files, not its runs' nor its locks (named after the runs and page sizes)."""
    return {str(path.relative_to(bundle)) for path in bundle.rglob("*")
            if path.is_file() and len(path.relative_to(bundle).parts) <= 2
            and path.relative_to(bundle).parts[0] != "locks"
            and not (bundle / path.relative_to(bundle).parts[0] / "run.ipynb").exists()
            and not any(path.relative_to(bundle).match(pattern) for pattern in SLURM_ONLY)}
