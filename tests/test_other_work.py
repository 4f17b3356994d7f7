"""The CPU other processes used during a run (pagelab.machine.other_work), read from this machine's
real /proc: a busy process outside the run's tree counts as other work, one inside it does not.

Each busy process's own CPU is taken from another source than the code under test: the kernel's
rusage of a reaped child (os.wait4), or the seconds a process was allowed to spin."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pagelab.machine.other_work import OtherWork

SPIN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\n"


def _measure(action, server_pid=None) -> dict:
    work = OtherWork(server_pid)
    work.start()
    action()
    work.stop()
    return work.record()


def test_a_busy_child_is_the_runs_own_cpu_not_other_work():
    def spin_in_a_child():
        child = subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=1.5)])
        _, _, usage = os.wait4(child.pid, 0)
        spin_in_a_child.cpu_s = usage.ru_utime + usage.ru_stime

    record = _measure(spin_in_a_child)
    # the child exited and was reaped inside the window: its CPU moved into this process's cutime
    assert record["run_cpu_s"] >= 0.9 * spin_in_a_child.cpu_s, (record, spin_in_a_child.cpu_s)
    assert record["busy_cpu_s"] >= record["run_cpu_s"] - 0.1, record


def _detached_spinner() -> int:
    """A spinning process that is not this one's descendant: a double fork, so its parent exits at
    once and it belongs to pid 1 (or a subreaper), as another user's job would."""
    launcher = subprocess.run(
        [sys.executable, "-c", "import subprocess, sys\n"
         f"p = subprocess.Popen([sys.executable, '-c', {SPIN.format(seconds=30)!r}], start_new_session=True,\n"
         "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
         "print(p.pid)"], capture_output=True, text=True, check=True)
    time.sleep(0.3)  # the spinner's interpreter is up
    return int(launcher.stdout)


def _spin_window(server_pid_of) -> tuple[dict, float]:
    """The record of a 2 s window beside a detached spinner, and the spinner's CPU-seconds in it
    (its own /proc line: a different count from the code's aggregate)."""
    spinner = _detached_spinner()
    try:
        before = _cpu_ticks(spinner)
        record = _measure(lambda: time.sleep(2.0), server_pid=server_pid_of(spinner))
        spinner_s = (_cpu_ticks(spinner) - before) / os.sysconf("SC_CLK_TCK")
    finally:
        os.kill(spinner, signal.SIGKILL)
    assert spinner_s > 0.5, "the spinner did not get a CPU; the machine is too busy for this check"
    return record, spinner_s


def test_a_busy_process_outside_the_tree_is_other_work():
    record, spinner_s = _spin_window(lambda spinner: None)
    # the spinner's CPU is in the other work (tick rounding: a tenth of a second either way) ...
    assert record["other_cores"] * record["window_s"] >= spinner_s - 0.1, (record, spinner_s)
    # ... and not in the run's own, which only slept
    assert record["run_cpu_s"] < 0.2, record


def test_the_named_server_counts_as_the_runs_own_wherever_it_hangs_in_the_process_tree():
    """The server need not be this process's child (a launcher, a Slurm step): its pid is named."""
    record, spinner_s = _spin_window(lambda spinner: spinner)
    assert record["run_cpu_s"] >= spinner_s - 0.1, (record, spinner_s)


def test_an_unstarted_window_says_why_instead_of_a_number():
    work = OtherWork(None)
    work.stop()
    record = work.record()
    assert record["other_cores"] is None and record["unrecorded"] == "the measurement did not start", record


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


@pytest.fixture(autouse=True)
def _linux_only():
    if not os.path.exists("/proc/stat"):
        pytest.fail("these checks read /proc; pagelab records other work on Linux only")


# ---------------------------------------------------------------- what the report says of it


def _report_data(directory, other_cores: dict[str, float] | None):
    """A synthetic 7-round sweep (bench/synthetic.py) whose runs' summary.json carry `other_cores`
    (run name -> cores; the rest 0.01), or no record at all, as bundles from before it."""
    import json

    import numpy as np

    from bench.synthetic import SyntheticDesign, sweep, write_bundle
    from pagelab.report.lab_report import load

    write_bundle(sweep(SyntheticDesign(rounds=7), np.random.default_rng(3)), directory, profile={"primary": "16k vs 4k"})
    if other_cores is not None:
        for path in directory.glob("*/summary.json"):
            summary = json.loads(path.read_text())
            summary["other_work"] = {"other_cores": other_cores.get(path.parent.name, 0.01), "steal_cores": 0.002,
                                     "kernel_cores": 0.3, "window_s": 100.0}
            path.write_text(json.dumps(summary))
    return load(directory)


def test_the_method_gives_the_median_and_the_largest_other_work_and_names_the_loaded_runs(tmp_path):
    from pagelab.report.method import load_record_sentence

    data = _report_data(tmp_path / "b", {"8k-r3": 0.62, "4k-r5": 0.15, "16k-r2": 0.08})
    runs = len(data.tables["summary"])
    assert runs == 21
    text = load_record_sentence(data)
    # median of 18 runs at 0.01 and 0.08, 0.15, 0.62: 0.01
    assert "kept a median of 0.01 cores busy over the 21 verdict runs that recorded it, 0.62 cores at most (8k-r3)" in text, text
    assert "2 runs measured beside more than 0.1 of a core of other work (" in text, text
    named = text.split("of other work (")[1].split(")")[0].split(", ")
    assert sorted(named) == ["4k-r5", "8k-r3"], text
    assert "steal) a median of 0.00 cores, at most 0.00 cores" in text and "Nor does the bundle" not in text
    assert "kept a median of 0.30 cores busy; they are not counted as other work" in text, text


def test_a_quiet_sweeps_largest_other_work_names_no_run(tmp_path):
    """Every run at 0.00 cores: the largest is every run's, so no run is singled out by name."""
    from pagelab.report.method import load_record_sentence

    data = _report_data(tmp_path / "quiet", {f"{size}-r{r}": 0.0 for size in ("4k", "8k", "16k") for r in range(1, 8)})
    text = load_record_sentence(data)
    assert "busy over the 21 verdict runs that recorded it, 0.00 cores at most;" in text, text


def test_page_one_warns_when_verdict_runs_measured_beside_other_work_and_not_otherwise(tmp_path):
    from pagelab.report.machine_load import load_warning

    loaded = load_warning(_report_data(tmp_path / "loaded", {"8k-r3": 0.62, "4k-r5": 0.15}))
    assert loaded.startswith("**Other work ran beside 2 of the 21 verdict runs**"), loaded
    assert "most 0.62 cores, in 8k-r3" in loaded, loaded
    assert load_warning(_report_data(tmp_path / "quiet", {"8k-r3": 0.09})) == ""


def test_a_bundle_from_before_the_record_says_it_has_none(tmp_path):
    from pagelab.report.machine_load import load_warning
    from pagelab.report.method import load_record_sentence

    data = _report_data(tmp_path / "old", None)
    assert "Nor does the bundle record a load average" in load_record_sentence(data)
    assert load_warning(data) == ""


def test_the_kernels_threads_are_kept_apart_from_other_work():
    """Writeback, the journal and block-layer workers serve the run's own I/O: they are the tree
    under kthreadd (pid 2), found in this machine's real /proc, and never hold a user process."""
    from pagelab.machine.other_work import KERNEL_THREADS, _processes, _tree

    table = _processes()
    kernel = _tree(table, [KERNEL_THREADS])
    names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in kernel if Path(f"/proc/{pid}/comm").exists()}
    assert any(name.startswith("kworker") for name in names), sorted(names)[:20]
    assert os.getpid() not in kernel and 1 not in kernel
    record = _measure(lambda: time.sleep(0.5))
    assert record["kernel_cores"] >= 0 and "kernel_cores" in record, record


def test_pagelab_stats_says_what_the_runs_recorded_of_other_work(tmp_path):
    from pagelab.evidence.stats_text import other_work_lines

    data = _report_data(tmp_path / "b", {"8k-r3": 0.62, "4k-r5": 0.15, "16k-r1": 0.0})
    [line] = other_work_lines(data.evidence.runs)
    # a quiet run's 0.0 is a recorded figure, not a missing one: all 21 runs count
    assert line.startswith("Other work on the machine while the runs measured (user processes besides the runs' own): "
                           "median 0.01 cores over 21 runs, most 0.62 (8k-r3); 2 beside more than 0.1 of a core: "), line
    assert sorted(line.split("of a core: ")[1].split(", ")) == ["4k-r5", "8k-r3"], line
    quiet = _report_data(tmp_path / "quiet", {name: 0.0 for name in (f"{s}-r{r}" for s in ("4k", "8k", "16k")
                                                                      for r in range(1, 8))})
    [line] = other_work_lines(quiet.evidence.runs)
    assert "median 0.00 cores over 21 runs" in line and "none beside more than 0.1 of a core" in line, line
    [old] = other_work_lines(_report_data(tmp_path / "old", None).evidence.runs)
    assert "not recorded" in old, old


def test_a_start_announced_ahead_is_read_when_it_comes():
    """A fixed ramp-up makes the driver announce its measurement's start before it: the first
    reading waits for that instant, so the window is the measurement's, not the ramp-up's."""
    work = OtherWork(None)
    asked = time.monotonic()
    work.start_at(asked + 0.5)
    assert work.first is None
    time.sleep(1.0)
    work.stop()
    whole = time.monotonic() - asked
    record = work.record()
    # not from the call: from the announced instant, however late the sleep woke
    assert 0 < record["window_s"] <= whole - 0.5 + 0.02, (record, whole)


def test_a_kernel_thread_that_exits_in_the_window_does_not_make_other_work():
    """A kworker with hours of CPU behind it that exits between the two reads: summed over the tree, its
    ticks left the end's sum and the kernel's CPU came out negative (-16.7 cores in a suite on
    2026-11-29), other work as much too high. Each thread is compared with itself, by pid and start
    time: one started within the window counts whole, a pid given again to a new thread counts as new."""
    from pagelab.machine.other_work import CpuReading, OtherWork, kernel_ticks_between

    tick = os.sysconf("SC_CLK_TCK")
    old_worker, steady, reused_pid = (10, 5), (11, 7), (12, 9)
    first = {old_worker: 900 * tick, steady: 10 * tick, reused_pid: 50 * tick}
    # the old worker exits; the steady one works 0.2 s; pid 12 now a new thread (started at 400) with 0.1 s;
    # a thread born in the window (pid 13) works 0.1 s
    last = {steady: 10 * tick + tick // 5, (12, 400): tick // 10, (13, 401): tick // 10}
    assert kernel_ticks_between(first, last) == tick // 5 + tick // 10 + tick // 10
    work = OtherWork(None)
    work.first = CpuReading(100.0, 0, 0, 0, 0, first)
    work.last = CpuReading(101.0, tick, 0, 0, 0, last)  # one core busy for the second
    record = work.record()
    kernel = (tick // 5 + 2 * (tick // 10)) / tick
    assert record["kernel_cores"] == round(kernel, 3), record
    assert record["other_cores"] == round(1.0 - kernel, 3), record
