"""`pagelab run-unit` without a scheduler: the plan a bundle holds, and two units of one page size
started at once, which must build the page size's loaded snapshot once between them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER
from tests.conftest import PAGELAB, REPO_ROOT, pagelab_here, servers_under

# Plans and refusals are made in the test's process (tests.conftest.pagelab_here): they concern what
# pagelab writes, says and returns, not a process of its own, which would spend a second importing.
# The two units that build one snapshot at once are real processes, started as a Slurm task starts them.
pagelab = pagelab_here



def test_plan_only_writes_the_units_and_runs_nothing(tmp_path):
    bundle = tmp_path / "planned"
    done = pagelab("sweep", "--profile", "smoke", "--set", "repeats=2", "--plan-only", "--out", bundle)
    assert done.returncode == 0, done.stderr
    plan = json.loads((bundle / "plan.json").read_text())
    assert [(u["index"], u["name"]) for u in plan["units"]] == [(0, "4k-r1"), (1, "16k-r1"), (2, "4k-r2"), (3, "16k-r2")]
    assert plan["profile"]["repeats"] == 2
    record = json.loads((bundle / "sweep.json").read_text())
    assert {entry["status"] for entry in record["runs"]} == {"pending"}
    assert not (bundle / "4k-r1").exists() and not (bundle / "instances").exists()
    refused = pagelab("run-unit", bundle, 4)
    assert refused.returncode == 2 and "unit 4 is out of range: this plan has units 0 to 3" in refused.stderr


def test_executor_options_are_checked_before_anything_is_made(tmp_path):
    out = tmp_path / "never"
    for args, message in ((["--slurm-args=--partition=x"], "--slurm-args is for --executor slurm"),
                          (["--executor", "slurm", "--slurm-args=--array=0-3"], "--array is set by pagelab itself"),
                          (["--executor", "slurm", "--slurm-args=--x 'a"], "cannot be split into words"),
                          (["--executor", "slurm", "--fail-fast"], "--fail-fast is for --executor local"),
                          (["--executor", "slurm"], "--executor slurm needs --scratch DIR"),
                          (["--executor", "slurm", "--scratch", "/tmp", "--slurm-args=--time=5 --nodes=2"],
                           "--slurm-args: --nodes=2 asks for 2 nodes per task")):
        done = pagelab("sweep", "--profile", "smoke", "--out", out, *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert not out.exists()


def test_slurm_args_that_split_a_task_over_nodes_are_refused():
    from pagelab.common.errors import UsageError
    from pagelab.sweep.slurm import parse_slurm_args

    for text, shown, count in (("-N 2", "-N 2", "2"), ("--time=5 -N3", "-N3", "3"), ("--nodes 1-3", "--nodes 1-3", "1-3"),
                               ("--nodes=1-3", "--nodes=1-3", "1-3"), ("-N=4", "-N=4", "4")):
        with pytest.raises(UsageError, match=f"{shown} asks for {count} nodes per task"):
            parse_slurm_args(text)
    for text in ("--nodes=1", "-N 1", "-N1", "--ntasks=2 --time=5", "--nodelist=node-a"):
        assert parse_slurm_args(text) == text.split()


def test_a_round_is_never_split_over_two_nodes(tmp_path):
    """A round with a run done on another node: neither the round's task nor one of its units runs
    here, and a resume submits the round whole."""
    from pagelab.bundle import SweepRecord
    from pagelab.sweep.plan import blocks_not_done

    bundle = tmp_path / "split"
    assert pagelab("sweep", "--profile", "tests/faults/tiny.yaml", "--plan-only", "--out", bundle).returncode == 0
    record = SweepRecord.load(bundle)
    round_one = [entry["name"] for entry in record.runs if entry["round"] == 1]
    record.update_run(round_one[0], status="done", host="node-elsewhere")
    assert {key: [unit.name for unit in units] for key, units in blocks_not_done(record).items()} == {
        1: round_one, 2: [entry["name"] for entry in record.runs if entry["round"] == 2]}
    for args in (["--round", "1"], [str(next(e["index"] for e in json.loads((bundle / "plan.json").read_text())["units"]
                                          if e["name"] == round_one[1]))]):
        refused = pagelab("run-unit", bundle, *args, "--scratch", tmp_path / "scratch")
        assert refused.returncode == 2, refused.stderr
        assert f"round 1 of {bundle} has runs done on another node ({round_one[0]} on node-elsewhere)" in refused.stderr
    assert not (tmp_path / "scratch").exists() and not (bundle / round_one[1]).exists()
    assert SweepRecord.load(bundle).run(round_one[1])["status"] == "pending"


def test_a_scratch_directory_in_memory_is_refused_before_anything(tmp_path):
    """A tmpfs scratch (a node's /dev/shm, or a /tmp mounted as tmpfs) would measure memory, not the node's disk."""
    from pagelab.machine.devices import block_device_for

    assert block_device_for("/dev/shm").in_memory, "/dev/shm is not an in-memory filesystem on this machine"
    bundle, scratch = tmp_path / "shm", Path("/dev/shm") / f"pagelab-test-{os.getpid()}"
    assert pagelab("sweep", "--profile", "tests/faults/tiny.yaml", "--plan-only", "--out", bundle).returncode == 0
    refused = pagelab("run-unit", bundle, "--round", "1", "--scratch", scratch)
    assert refused.returncode == 2, refused.stderr
    assert f"--scratch {scratch} is on tmpfs" in refused.stderr and "no disk I/O would be measured" in refused.stderr
    assert not scratch.exists()


@pytest.mark.server
@pytest.mark.timeout(900)
def test_two_units_needing_one_snapshot_at_once_build_it_once(tmp_path):
    bundle, scratch = tmp_path / "two", tmp_path / "scratch"
    # the shortest measurement the knobs allow: what is checked is who builds the snapshot
    short = ["--set", "rampup_s=0", "--set", "measure_s=3", "--set", "interval_s=3", "--set", "sample_interval_s=3"]
    assert pagelab("sweep", "--profile", "smoke", "--set", "page_sizes=4k", "--set", "repeats=2", *short, "--plan-only",
                   "--out", bundle).returncode == 0
    units = [subprocess.Popen(PAGELAB + ["run-unit", str(bundle), str(index), "--scratch", str(scratch)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
             for index in (0, 1)]
    try:
        outputs = [unit.communicate(timeout=800) for unit in units]
    finally:
        for unit in units:
            if unit.poll() is None:
                unit.kill()
    assert [unit.returncode for unit in units] == [0, 0], [err[-3000:] for _, err in outputs]
    phases = {run: [line.split(",", 1)[1] for line in (bundle / run / "phases.csv").read_text().splitlines()]
              for run in ("4k-r1", "4k-r2")}
    loaded = [run for run, names in phases.items() if "load" in names]
    assert len(loaded) == 1, phases
    other = "4k-r2" if loaded == ["4k-r1"] else "4k-r1"
    assert "init" not in phases[other] and "restore" in phases[other], phases
    assert {entry["status"] for entry in json.loads((bundle / "sweep.json").read_text())["runs"]} == {"done"}
    assert (bundle / "instances" / "4k" / "snapshot" / SNAPSHOT_MARKER).exists()
    assert not scratch.exists() or not any(scratch.iterdir()), "a unit's own datadir was left in the scratch directory"
    assert not servers_under(tmp_path)


HOLD_WRITER = """
import sys, time
from pathlib import Path
from pagelab.common.locks import held_lock, writer_lock
bundle, run, seconds = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
with held_lock(writer_lock(bundle, run)):
    print("held", flush=True)
    time.sleep(seconds)
    (bundle / run / "late.txt").write_text("written by a kernel that outlived its sweep")
"""


def _hold_writer(bundle, run: str, seconds: float) -> subprocess.Popen:
    """A stand-in for the kernel of an earlier attempt: holds the run's writer lock, writes into
    the run directory at the last moment, exits."""
    (bundle / run).mkdir(exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_WRITER, str(bundle), run, str(seconds)],
                              stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_new_attempt_waits_for_the_kernel_of_the_old_one(tmp_path):
    from pagelab.sweep.run_unit import begin
    from pagelab.bundle import SweepRecord

    bundle = tmp_path / "b"
    assert pagelab("sweep", "--profile", "smoke", "--set", "page_sizes=4k", "--plan-only", "--out", bundle).returncode == 0
    holder = _hold_writer(bundle, "4k-r1", 1.5)
    try:
        record = SweepRecord.load(bundle)
        run_dir = begin(record, record.run("4k-r1"))
        # The old kernel writes its last file just before it lets go of the lock (and exits a moment
        # later, which the lock does not wait for): had the new attempt not waited for the lock, that
        # write would land in the directory it has just made.
        holder.wait(timeout=60)
        assert not (run_dir / "late.txt").exists(), "the new attempt began while the old attempt's kernel still held the run"
    finally:
        holder.kill()
        holder.wait()


def test_a_kernel_that_never_lets_go_is_named(tmp_path, monkeypatch):
    from pagelab.common import locks
    from pagelab.common.errors import UsageError
    from pagelab.sweep.run_unit import begin
    from pagelab.bundle import SweepRecord

    bundle = tmp_path / "b"
    assert pagelab("sweep", "--profile", "smoke", "--set", "page_sizes=4k", "--plan-only", "--out", bundle).returncode == 0
    monkeypatch.setattr(locks, "WRITER_EXIT_WAIT_S", 0.5)
    holder = _hold_writer(bundle, "4k-r1", 60)
    try:
        record = SweepRecord.load(bundle)
        with pytest.raises(UsageError, match=f"pid {holder.pid} .*kill it"):
            begin(record, record.run("4k-r1"))
        assert record.run("4k-r1")["status"] == "pending", "the run was marked running though it never began"
    finally:
        holder.kill()
        holder.wait()


def test_a_block_is_a_round_the_over_time_runs_and_a_grids_cells_included(tmp_path):
    """What a Slurm task runs: each round whole, in its recorded order; the over-time runs, compared
    with each other, are one round of their own; a grid's round holds every cell."""
    from pagelab.bundle import SweepRecord
    from pagelab.sweep.plan import read_plan

    bundle = tmp_path / "blocks"
    made = pagelab("sweep", "--profile", "tests/faults/tiny.yaml", "--set", "buffer_pool=32M,48M", "--set",
                   "over_time_s=30", "--plan-only", "--out", bundle)
    assert made.returncode == 0, made.stderr
    record = SweepRecord.load(bundle)
    blocks = read_plan(bundle, record).blocks()
    assert list(blocks) == [1, 2, 3]
    for number in (1, 2):
        assert [unit.position for unit in blocks[number]] == [1, 2, 3, 4]
        assert {(unit.page_size, unit.cell["buffer_pool"]) for unit in blocks[number]} == {
            (size, pool) for size in ("4k", "8k") for pool in ("32M", "48M")}
        assert {unit.role for unit in blocks[number]} == {"verdict"}
    assert {unit.role for unit in blocks[3]} == {"over_time"} and len(blocks[3]) == 4
    by_name = {entry["name"]: entry for entry in record.runs}
    for number, units in blocks.items():  # the round's recorded order, as sweep.json keeps it
        assert [by_name[unit.name]["position"] for unit in units] == sorted(by_name[u.name]["position"] for u in units)


@pytest.mark.server
def test_a_unit_whose_bundle_turns_read_only_in_its_load_says_so_and_leaves_no_server(tmp_path):
    """A Slurm task's unit, as a local sweep: the bundle's filesystem turned read-only while the load
    runs (its server in the scratch directory, so nothing is written to the bundle until the
    snapshot) is said at once as a storage fault in the load, not later at the snapshot's first
    write; no traceback, no server left."""
    import time

    from pagelab.cli.exits import EXIT_STORAGE
    from tests.faults.failing_disk import LoopExt4

    disk = LoopExt4(tmp_path / "ext4.img", tmp_path / "ext4", "1G").create()
    unit = None
    try:
        bundle, scratch = disk.mount / "b", tmp_path / "scratch"
        # two warehouses: a load of several seconds, for the fault to land in
        assert pagelab("sweep", "--profile", "smoke", "--set", "page_sizes=4k", "--set", "repeats=1",
                       "--set", "warehouses=2", "--plan-only", "--out", bundle).returncode == 0
        unit = subprocess.Popen(PAGELAB + ["run-unit", str(bundle), "0", "--scratch", str(scratch)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
        phase_file = bundle / "4k-r1" / ".phase"
        deadline = time.monotonic() + 300  # a bound on a hang, not a speed
        while not (phase_file.exists() and phase_file.read_text().strip() == "load"):
            assert unit.poll() is None and time.monotonic() < deadline, "the unit never reached its load"
            time.sleep(0.05)
        disk.fail()
        _, stderr = unit.communicate(timeout=300)
        message = " ".join(stderr.split())
        assert unit.returncode == EXIT_STORAGE, stderr[-3000:]
        assert f"read-only (EROFS) under {bundle}" in message and "during 4k-r1's load" in message, message
        # the bundle failed, not the node: back to Slurm with the scratch, and no node to leave out
        assert (f"continue with: pagelab sweep --resume {bundle} --executor slurm --scratch {scratch}, repeating "
                "your --slurm-args" in message and "--exclude" not in message), message
        assert "Traceback" not in stderr, message
        assert not servers_under(tmp_path)
    finally:
        if unit is not None and unit.poll() is None:
            unit.kill()
            unit.wait()
        disk.destroy()


@pytest.mark.server
def test_a_round_whose_scratch_disk_turns_read_only_names_the_scratch_and_resumes_on_slurm(tmp_path):
    """A Slurm task's round (run-unit --round 1 --scratch DIR) whose node's scratch disk turns
    read-only during its first unit's load (the unit's server loads into the scratch): exit 4, the
    message names the scratch on this node as the place that failed, not the bundle, and the resume
    the way the sweep runs (on Slurm, with --scratch, the node left out), not a bare --resume that
    would run the rest on the login node; the unit is failed, the round's other unit still pending,
    no server left. Smoke-sized: one round of 4k and 16k, two warehouses for a load of some seconds."""
    import time

    from pagelab.cli.exits import EXIT_STORAGE
    from pagelab.machine.hosts import hostname
    from tests.faults.failing_disk import LoopExt4

    disk = LoopExt4(tmp_path / "ext4.img", tmp_path / "ext4", "2500M").create()  # the room run-unit asks of a scratch for a 2-warehouse unit
    unit = None
    try:
        bundle, scratch = (tmp_path / "b").resolve(), (disk.mount / "scratch").resolve()
        assert pagelab("sweep", "--profile", "smoke", "--set", "warehouses=2", "--plan-only",
                       "--out", bundle).returncode == 0
        names = [entry["name"] for entry in json.loads((bundle / "sweep.json").read_text())["runs"]]
        assert sorted(names) == ["16k-r1", "4k-r1"]
        unit = subprocess.Popen(PAGELAB + ["run-unit", str(bundle), "--round", "1", "--scratch", str(scratch)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
        deadline = time.monotonic() + 300  # a bound on a hang, not a speed
        struck = None
        while struck is None:
            assert unit.poll() is None and time.monotonic() < deadline, ("no unit of the round reached its load",
                                                                         unit.poll() is None or unit.communicate())
            struck = next((name for name in names if (bundle / name / ".phase").is_file()
                           and (bundle / name / ".phase").read_text().strip() == "load"), None)
            time.sleep(0.05)
        disk.fail()
        _, stderr = unit.communicate(timeout=300)
        message = " ".join(stderr.split())
        node = hostname()
        assert unit.returncode == EXIT_STORAGE, stderr[-3000:]
        assert (f"storage fault: the filesystem turned read-only (EROFS) on {node}'s scratch disk, under {scratch} "
                f"at {scratch}/b-{struck}, during {struck}'s load" in message), message
        assert f"under {bundle}" not in message, message
        assert (f"continue with: pagelab sweep --resume {bundle} --executor slurm --scratch {scratch}, repeating "
                f"your --slurm-args with --exclude={node} added" in message), message
        assert "Traceback" not in stderr, message
        runs = {entry["name"]: entry for entry in json.loads((bundle / "sweep.json").read_text())["runs"]}
        assert runs[struck]["status"] == "failed" and runs[struck]["error"].startswith("read-only filesystem: "), runs
        (other,) = set(names) - {struck}
        assert runs[other]["status"] == "pending", runs
        assert not servers_under(tmp_path)
    finally:
        if unit is not None and unit.poll() is None:
            unit.kill()
            unit.wait()
        disk.destroy()


def test_a_finished_run_its_round_reruns_is_kept_aside_and_a_failed_attempt_is_not(tmp_path):
    """A Slurm resume queues a part-done round's finished runs again (pagelab.sweep.slurm.submit),
    and a unit that begins one moves the finished run's directory under superseded/, whole; an
    earlier attempt that did not finish is removed, as its partial outputs would be taken for the
    new one's."""
    from pagelab.bundle import SweepRecord
    from pagelab.sweep.run_unit import REDONE_ERROR, SUPERSEDED, begin

    bundle = tmp_path / "planned"
    assert pagelab("sweep", "--profile", "smoke", "--set", "repeats=2", "--plan-only", "--out", bundle).returncode == 0
    record = SweepRecord.load(bundle)
    for name in ("4k-r1", "16k-r1"):
        (bundle / name).mkdir()
        (bundle / name / "summary.json").write_text(json.dumps({"measured": name}))
    record.update_run("4k-r1", status="pending", error=REDONE_ERROR.format(round=1))
    record.update_run("16k-r1", status="failed", error="RuntimeError: the driver stopped")
    for name in ("4k-r1", "16k-r1"):
        begin(record, dict(record.run(name)))
    kept = list((bundle / SUPERSEDED).iterdir())
    assert [path.name.split("-2")[0] for path in kept] == ["4k-r1"], kept
    assert json.loads((kept[0] / "summary.json").read_text()) == {"measured": "4k-r1"}
    for name in ("4k-r1", "16k-r1"):  # each begins anew (its host record and phase), and is running
        assert not (bundle / name / "summary.json").exists() and (bundle / name / "host.json").exists()
        assert record.run(name)["status"] == "running" and record.run(name)["error"] is None
