"""Sweeps with a second factor beside the page size (`buffer_pool` or `warehouses` given as a list):
the plan, the order of the runs, refusals before anything starts, and a grid smoke sweep on real
MariaDB that is interrupted, resumed and reported, with the effect-across-the-pool figure and
sentence. That sweep is also the suite's one interrupted and resumed sweep, and its check of the
memory budget a pool in % is resolved against."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter

import pytest

from pagelab.common.paths import CACHE_DIR
from pagelab.sweep.experiment import memory_budget
from pagelab.sweep.profiles import load_profile, profile_from_dict
from tests.conftest import REPO_ROOT, pagelab_here, servers_under
from tests.bundles import assert_complete_bundle
from tests.test_sweep import _wait_for_capture, _wait_for_first_run, pages_text

PAGELAB = [sys.executable, "-m", "pagelab.cli"]


def pagelab(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(PAGELAB + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO_ROOT)


def order(profile) -> list[tuple]:
    return [(unit["page_size"], tuple(sorted(unit["cell"].items())), unit["repeat"]) for unit in profile.units()]


def test_the_plan_holds_every_cell_once_per_round(tmp_path):
    bundle = tmp_path / "pool"
    done = pagelab_here("sweep", "--profile", "pool", "--plan-only", "--out", bundle)
    assert done.returncode == 0, done.stderr
    units = json.loads((bundle / "plan.json").read_text())["units"]
    cells = {(size, pool) for size in ("4k", "16k") for pool in ("10%", "30%", "50%", "100%")}
    assert len(units) == len(cells) * 10
    for round_ in range(1, 11):
        in_round = [u for u in units if u["round"] == round_]
        assert {(u["page_size"], u["cell"]["buffer_pool"]) for u in in_round} == cells
        assert sorted(u["position"] for u in in_round) == list(range(1, len(cells) + 1))
        assert all(u["repeat"] == round_ for u in in_round)
    names = [u["name"] for u in units]
    assert len(set(names)) == len(names) and "16k-pool10pct-r3" in names
    record = json.loads((bundle / "sweep.json").read_text())
    assert [(r["name"], r["round"], r["position"], r["cell"]) for r in record["runs"]] == [
        (u["name"], u["round"], u["position"], u["cell"]) for u in units]
    assert not (bundle / "instances").exists()


def test_the_same_seed_gives_the_same_order_and_another_seed_another():
    first, again = load_profile("pool"), load_profile("pool")
    other = load_profile("pool", ["seed=2"])
    assert order(first) == order(again)
    assert order(first) != order(other)
    assert Counter(order(first)) == Counter(order(other)), "another order of the same runs"
    # the rounds are shuffled independently: not one permutation repeated
    rounds = {unit["round"]: [] for unit in first.units()}
    for unit in first.units():
        rounds[unit["round"]].append((unit["page_size"], unit["cell"]["buffer_pool"]))
    assert len({tuple(cells) for cells in rounds.values()}) > 1


def test_without_a_second_factor_the_page_sizes_are_shuffled_within_each_round_too():
    quick = load_profile("quick")
    units = quick.units()
    assert all(u["cell"] == {} and u["round"] == u["repeat"] for u in units)
    rounds = {}
    for unit in units:
        rounds.setdefault(unit["round"], []).append(unit["page_size"])
    assert len(rounds) == quick.repeats and all(sorted(sizes) == sorted(quick.page_sizes) for sizes in rounds.values())
    assert len({tuple(sizes) for sizes in rounds.values()}) > 1, "every round in one order: not shuffled"
    assert order(load_profile("quick", ["random_seed=2"])) != order(quick) and order(load_profile("quick")) == order(quick)


def test_a_warehouses_grid_loads_once_per_page_size_and_level():
    from pagelab.bundle import instance_name

    profile = load_profile("smoke", ["warehouses=[1,2]", "repeats=2"])
    units = profile.units()
    assert len(units) == 2 * 2 * 2
    instances = {instance_name(u["page_size"], u["cell"]) for u in units}
    assert instances == {"4k-w1", "4k-w2", "16k-w1", "16k-w2"}


@pytest.mark.parametrize("args, message", [
    (["--set", "buffer_pool=[30%,abc]"], "buffer_pool: level 'abc' of the list: 'abc' is neither a size nor a percentage"),
    (["--set", "warehouses=[1,0]"], "warehouses: level '0' of the list: 0 is out of range"),
    (["--set", "buffer_pool=[30%,30%]"], "buffer_pool: a level is given twice in 30%, 30%"),
    (["--set", "buffer_pool=[64M,4096G]"], "buffer_pool: 4096G: 4096 GiB is more than this machine's memory"),
    (["--set", "page_sizes=4k,64k", "--set", "buffer_pool=[8M,64M]"],
     "buffer_pool: 8M: 8M is below the 21M InnoDB needs at 64k pages"),
    (["--set", "warehouses=[1,100000]", "--set", "buffer_pool=10%"],
     "buffer_pool: 10% (about, of the ~9313.2 GiB 100000 warehouse(s) load): 931.3 GiB is more than this machine's memory"),
    (["--set", "warehouses=[1,2]", "--set", "buffer_pool=[30%,60%]"],
     "warehouses and buffer_pool: both are given as lists; allowed: one second factor beside the page size"),
])
def test_bad_grid_input_is_refused_before_anything_starts(tmp_path, args, message):
    out = tmp_path / "never"
    done = pagelab_here("sweep", "--profile", "smoke", "--out", out, *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr, done.stderr
    assert not out.exists()


# --- a grid on real MariaDB -------------------------------------------------------------------------

OVER_TIME_S = 4

# The shortest runs these tests can tell apart: no ramp-up (nothing here reads a warm pool), 3 s of
# 1 s intervals and monitor samples a verdict run (room for the SIGTERM to land in the second run's
# measurement), and over-time runs longer than those.
GRID = ["--profile", "smoke", "--set", "buffer_pool=[30%,60%]", "--set", "rampup_s=0", "--set", "measure_s=3", "--set", "interval_s=1",
        "--set", "sample_interval_s=1", "--set", f"over_time_s={OVER_TIME_S}"]


@pytest.fixture(scope="module")
def grid_sweep(tmp_path_factory):
    """2 page sizes x 2 pools x 1 repeat, and an over-time run per cell after the round, interrupted
    in the second run's measurement and resumed. The one interrupted sweep of the suite: its
    interrupt and resume are checked in test_an_interrupted_grid_stops_cleanly_and_its_resume_redoes_only_the_interrupted_run."""
    base = tmp_path_factory.mktemp("grid")
    out, pdf = base / "grid", base / "grid.pdf"
    process = subprocess.Popen(PAGELAB + ["sweep", *GRID, "--out", str(out), "--pdf", str(pdf)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    try:
        _wait_for_first_run(out, process)
        second = json.loads((out / "sweep.json").read_text())["runs"][1]["name"]
        # into the second run's measurement, so that its directory holds a partial capture which
        # the resume must not take for its own (it once refused the directory, for good)
        _wait_for_capture(out / second, process)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
    interrupted = json.loads((out / "sweep.json").read_text())
    first = interrupted["runs"][0]["name"]
    first_summary = (out / first / "summary.json").read_text()
    # an unfinished sweep keeps its instances for the resume; their passwords must show nowhere else
    passwords = {(d / "client.cnf").read_text().split("password=")[1].split("\n")[0]
                 for d in (out / "instances").iterdir() if (d / "client.cnf").exists()}
    stopped = {"returncode": process.returncode, "stderr": stderr, "servers": servers_under(out), "passwords": passwords}
    resumed = pagelab("sweep", "--resume", out, "--pdf", pdf, timeout=900)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    return out, pdf, interrupted, first, first_summary, resumed, stopped


@pytest.mark.server
@pytest.mark.timeout(1500)
def test_an_interrupted_grid_stops_cleanly_and_its_resume_redoes_only_the_interrupted_run(grid_sweep):
    out, _, interrupted, first, first_summary, _, stopped = grid_sweep
    stderr = stopped["stderr"]
    assert stopped["returncode"] == 130, stderr[-3000:]
    assert f"--resume {out}" in stderr
    assert "Task exception was never retrieved" not in stderr, "the interrupted cell's traceback was printed"
    # the kernel, ended mid-reply, logs a ZMQError traceback: into its log, not the user's terminal
    assert "[IPKernelApp]" not in stderr and "Traceback" not in stderr, stderr[-3000:]
    assert [run["status"] for run in interrupted["runs"]] == ["done", "interrupted"] + ["pending"] * 6
    assert not stopped["servers"], "an interrupted sweep left a server running"
    assert len(stopped["passwords"]) == 2  # one instance per page size: the pool is no instance's
    record = assert_complete_bundle(out)
    assert [run["role"] for run in record["runs"]] == ["verdict"] * 4 + ["over_time"] * 4
    for path in out.rglob("*"):  # every file of the finished bundle, the instances' included
        if path.is_file():
            text = path.read_bytes().decode(errors="replace")
            assert not any(password in text for password in stopped["passwords"]), f"a password in {path}"
    assert (out / first / "summary.json").read_text() == first_summary, "a finished run was redone"
    assert not servers_under(out)

    def run_files(run):
        return sorted(p.name for p in (out / run).iterdir())

    # the interrupted run, redone, holds what a run never interrupted holds, and nothing of its first try
    names = [run["name"] for run in record["runs"]]
    assert run_files(names[1]) == run_files(names[0]) == run_files(names[2]) == run_files(names[3])


@pytest.mark.server
@pytest.mark.timeout(1500)
def test_each_pool_level_gives_both_page_sizes_the_same_bytes(grid_sweep):
    out = grid_sweep[0]
    record = json.loads((out / "sweep.json").read_text())
    budget = record["memory_budget"]["1"]
    pools, loaded = {}, set()
    for run in record["runs"]:
        summary = json.loads((out / run["name"] / "summary.json").read_text())
        pools.setdefault(run["cell"]["buffer_pool"], set()).add(summary["buffer_pool_requested_bytes"])
        assert summary["level_buffer_pool"] == summary["buffer_pool_spec"] == run["cell"]["buffer_pool"]
        assert f"innodb_buffer_pool_size={summary['buffer_pool_requested_bytes']}" in (out / run["name"] / "my.cnf").read_text()
        loaded.add(summary["db_bytes"])
    assert set(pools) == {"30%", "60%"}  # the over-time runs of a level get its pool too
    # One memory budget: a share of the larger loaded database, the same bytes for both page sizes.
    # The two page sizes load databases of different sizes: that is what a per-page-size pool confounds.
    by_size = budget["loaded_db_bytes"]
    assert set(by_size) == {"4k", "16k"} and by_size["4k"] != by_size["16k"] and set(by_size.values()) == loaded
    largest = max(by_size, key=by_size.get)
    assert budget["reference_page_size"] == largest and budget["reference_db_bytes"] == by_size[largest]
    # A later run reads the recorded budget: with the instances gone (the finished sweep removed
    # their datadirs and snapshots) it cannot have measured them again.
    profile = profile_from_dict(record["profile"])
    assert memory_budget(out, profile, CACHE_DIR, out / "later", {"buffer_pool": "60%"}) == budget
    assert not any((out / "instances").glob("*/data")) and not (out / "later").exists()
    for level, found in pools.items():
        assert len(found) == 1, f"{level}: the page sizes got different pools {found}"
        share = float(level.rstrip("%")) / 100
        assert abs(found.pop() - share * budget["reference_db_bytes"]) <= 1 << 20


@pytest.mark.server
@pytest.mark.timeout(1500)
def test_the_grid_report_has_the_effect_across_the_pool(grid_sweep):
    out, pdf, *_ = grid_sweep
    assert (out / "figures" / "effect_across_levels.svg").exists()
    text = pages_text(pdf, 1, 1000)
    # numbered like the Results' other subsections: the grid's first, throughput's after it
    assert "4.1 The page-size effect across the buffer pool" in text
    assert "4.2 Throughput" in text
    assert "The page-size effect at each level of the buffer pool" in text
    # one run per cell: the sentence says it cannot tell, rather than a difference without an interval
    assert "Whether the 16k vs 4k effect changes with the buffer pool needs at least 2 finished runs" in text
    assert "resolved once for the sweep against the largest loaded database" in text


@pytest.mark.server
@pytest.mark.timeout(1500)
def test_stats_on_a_grid_compares_within_each_level(grid_sweep):
    out = grid_sweep[0]
    done = pagelab_here("stats", out)
    assert done.returncode == 0, done.stderr
    assert "Per cell (buffer pool x page size)" in done.stdout
    assert "buffer pool 30%: 16k vs 4k: TpmC" in done.stdout and "buffer pool 60%: 16k vs 4k: TpmC" in done.stdout
    table = json.loads(pagelab_here("stats", out, "--format", "json").stdout)
    assert {row["level"] for row in table["grid"]["buffer_pool"]["effects"]} == {"30%", "60%"}


@pytest.mark.server
@pytest.mark.timeout(1500)
def test_verdicts_come_from_the_rounds_and_figures_over_time_from_the_long_runs(grid_sweep):
    from pagelab.bundle import read_runs
    from pagelab.report.lab_report import load

    out, pdf, *_ = grid_sweep
    assert sorted(read_runs(out).runs["run"]) == sorted(["4k-pool30pct-r1", "16k-pool30pct-r1", "4k-pool60pct-r1",
                                                         "16k-pool60pct-r1"])
    data = load(out)
    assert data.has_over_time_runs
    assert set(data.over_time["innodb"]["run"]) == {"4k-pool30pct-over-time", "16k-pool30pct-over-time",
                                                    "4k-pool60pct-over-time", "16k-pool60pct-over-time"}
    assert set(data.over_time["summary"]["measure_s"]) == {OVER_TIME_S}
    assert "Two kinds of runs." in pages_text(pdf, 1, 1000)
