"""Fault injection for `pagelab sweep` on real parts: a real sweep subprocess, real MariaDB, real
signals, a real full disk.

    sweep = start_sweep(["--resume", bundle], bundle, workdir)   # `python -m pagelab.cli sweep ...`
    wait_for_phase(sweep, "load")                                # the sweep's own phase marker
    what = inject("kill-mysqld", sweep)                          # see FAULTS
    sweep.wait(); check_after_fault(bundle, done_before, sweep.tag)

Where the injection points come from (never from sleeps):
  run phases   BUNDLE/<run>/.phase of the run sweep.json marks `running` (pagelab.bundle.set_phase):
               init, load, snapshot, restore, start, "ramp-up + measure" (ramp-up), "measure N/M s"
               (measurement: the driver has reported its first interval), record;
  report       BUNDLE/report.ipynb written anew: papermill writes it when the report notebook starts;
  pdf          a new BUNDLE/.report.pdf.*.tmp directory: pagelab.report.pdf's work directory, made just
               before Chromium prints.

Which processes the test started: every process the sweep starts (its kernel, mysqld, iostat, cp,
Chromium) inherits the sweep's environment, which carries TAG_VARIABLE=<a token per sweep>; they
are found by scanning /proc/*/environ, so an orphan re-parented to init is found too.

The faults themselves are tests/faults/injection.py's, and what must hold after one is
tests/faults/after_fault.py's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from pagelab.bundle import phase_marks
from tests.conftest import REPO_ROOT, servers_under

TAG_VARIABLE = "PAGELAB_FAULT_TAG"
TINY_PROFILE = Path(__file__).with_name("tiny.yaml")
# How often markers are polled: the shortest phase (record) lasts a few tenths of a second.
POLL_S = 0.02
# Longest a sweep may take to reach a phase: init + load + snapshot + a run, with a loaded machine.
PHASE_TIMEOUT_S = 180.0
# After a fault, how long the processes of the sweep get to go away. The kernel notices its parent
# is gone within its poller's 1 s; its servers get SIGKILL when it goes (the parent-death signal).
GRACE_S = 30.0

RUN_PHASES = ("init", "load", "snapshot", "restore", "start", "ramp-up", "measurement", "record")
SWEEP_PHASES = ("report", "pdf")
PHASES = RUN_PHASES + SWEEP_PHASES
# The text set_phase writes for each run phase (pagelab.sweep.experiment); measurement is any
# "measure N/M s", written when the driver reports an interval.
PHASE_MARKERS = {"init": "init", "load": "load", "snapshot": "snapshot", "restore": "restore", "start": "start",
                 "ramp-up": "ramp-up + measure", "record": "record"}
PHASES_CSV = "phases.csv"  # pagelab.bundle.set_phase: a line per phase, after .phase
CACHE_MANIFEST = "manifest.json"  # pagelab.tpcc.datagen: written last into a whole dataset


class CellError(AssertionError):
    """The cell could not do what it set out to (the phase never came, the fault found no target)."""


@dataclass
class Sweep:
    """A running `pagelab sweep` and what the cell knows of it."""

    process: subprocess.Popen
    bundle: Path
    tag: str
    output: Path
    started: float  # time.time() when it was started: older phase markers are not its own
    # report.ipynb's and the PDF work directories as they were before this sweep started
    report_mtime: int | None = None
    pdf_work_dirs: frozenset = frozenset()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CellError(f"the sweep (pid {self.pid}) did not exit within {timeout:.0f} s;\n{self.tail()}") from None

    def text(self) -> str:
        return self.output.read_text(errors="replace") if self.output.exists() else ""

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.text().splitlines()[-lines:])


def sweep_command(*args) -> list[str]:
    return [sys.executable, "-m", "pagelab.cli", "sweep", *[str(a) for a in args]]


def start_sweep(args: list, bundle: Path, workdir: Path) -> Sweep:
    """`pagelab sweep ARGS` in its own session (a signal reaches it only when the cell sends one),
    its output in a file of `workdir`, tagged so that everything it starts can be found."""
    tag = uuid.uuid4().hex
    started = time.time()
    output = workdir / f"sweep-{tag[:8]}.log"
    report = bundle / "report.ipynb"
    with open(output, "wb") as handle:
        process = subprocess.Popen(sweep_command(*args), cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=handle,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   env={**os.environ, TAG_VARIABLE: tag, "PYTHONUNBUFFERED": "1"})
    return Sweep(process, bundle, tag, output, started, report_mtime=report.stat().st_mtime_ns if report.exists() else None,
                 pdf_work_dirs=frozenset(pdf_work_dirs(bundle)))


# --- processes ------------------------------------------------------------------------------------


def _proc_state(pid: int | str) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def tagged_processes(tag: str) -> dict[int, str]:
    """pid -> command line of every live process whose environment carries this sweep's tag."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if _proc_state(entry.name) not in (None, "Z"):
            found[int(entry.name)] = " ".join(a.decode(errors="replace") for a in argv if a)
    return found


def parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/status").read_text().split("PPid:")[1].split()[0])
    except (OSError, IndexError, ValueError):
        return None


def kernel_pid(sweep: Sweep) -> int | None:
    """The papermill kernel the sweep is running a notebook in: the sweep's own child (processes
    the kernel forks, such as the TPC-C generator's workers, carry the same command line)."""
    for pid, command in tagged_processes(sweep.tag).items():
        if "ipykernel_launcher" in command and parent_of(pid) == sweep.pid:
            return pid
    return None


def wait_until_gone(sweep: Sweep, timeout: float = GRACE_S) -> dict[int, str]:
    """Wait until no process of the sweep and no server of its bundle is alive; what is left after
    `timeout` is killed (so the next cell starts clean) and returned."""
    deadline = time.monotonic() + timeout
    while True:
        left = {pid: f"{command} (parent {parent_of(pid)})"
                for pid, command in {**tagged_processes(sweep.tag), **servers_under(sweep.bundle)}.items()}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


# --- phases ---------------------------------------------------------------------------------------


def read_record(bundle: Path) -> dict | None:
    try:
        return json.loads((bundle / "sweep.json").read_text())
    except (OSError, ValueError):
        return None


def running_run(bundle: Path) -> str | None:
    record = read_record(bundle)
    for entry in (record or {}).get("runs", []):
        if entry.get("status") == "running":
            return entry["name"]
    return None


def read_phase(run_dir: Path, since: float = 0.0) -> str:
    """The run's phase marker, if written at or after `since` (a sweep killed with -9 leaves its
    run marked running in sweep.json, with the phase it was in, until the resume starts it again)."""
    try:
        marker = run_dir / ".phase"
        return marker.read_text().strip() if marker.stat().st_mtime >= since else ""
    except OSError:
        return ""


def pdf_work_dirs(bundle: Path) -> set[Path]:
    return set(bundle.glob(".report.pdf.*.tmp")) if bundle.exists() else set()


def phase_now(sweep: Sweep, phase: str) -> str | None:
    """Where the sweep is, if it is in `phase`: the run's name, or "report"/"pdf"; else None."""
    bundle = sweep.bundle
    if phase in RUN_PHASES:
        name = running_run(bundle)
        if name is None:
            return None
        text = read_phase(bundle / name, since=sweep.started)
        hit = text.startswith("measure ") if phase == "measurement" else text == PHASE_MARKERS[phase]
        return name if hit else None
    if phase == "report":
        report = bundle / "report.ipynb"
        try:
            fresh = report.stat().st_mtime_ns != sweep.report_mtime
        except OSError:
            return None
        return "report" if fresh and not (pdf_work_dirs(bundle) - sweep.pdf_work_dirs) else None
    if phase == "pdf":
        return "pdf" if pdf_work_dirs(bundle) - sweep.pdf_work_dirs else None
    raise ValueError(phase)


def phase_at(run_dir: Path, moment: float) -> str:
    """The phase a run was in at `moment` (epoch seconds), from its phases.csv."""
    current = [name for t, name in phase_marks(run_dir) if t <= moment]
    return current[-1] if current else "?"


def wait_for(sweep: Sweep, condition, what: str, timeout: float = PHASE_TIMEOUT_S):
    """Poll `condition()` until it returns something true; CellError if the sweep ends first."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if not sweep.alive():
            raise CellError(f"the sweep ended (exit {sweep.process.returncode}) before {what};\n{sweep.tail()}")
        if time.monotonic() > deadline:
            raise CellError(f"no {what} within {timeout:.0f} s;\n{sweep.tail()}")
        time.sleep(POLL_S)


FIRST_LOAD_PHASES = ("init", "load", "snapshot")


def wait_for_phase(sweep: Sweep, phase: str, timeout: float | None = None) -> str:
    """Wait for `phase` in whichever run (or the report) comes to it. A phase of a first load can
    only come in a first repeat: once a second one runs, it never will, and the sweep is stopped
    at once rather than left to spend the runs that later cells need. The report and the PDF come
    after every run left, each of which may take PHASE_TIMEOUT_S (a cell run alone with `-k`, or
    the full matrix's twelve runs, has them all to do)."""
    def reached():
        hit = phase_now(sweep, phase)
        if not hit:
            stop_if_no_load_is_left(sweep, phase)
        return hit

    if timeout is None:
        left = sum(entry["status"] != "done" for entry in (read_record(sweep.bundle) or {"runs": []})["runs"])
        timeout = PHASE_TIMEOUT_S * (1 + left) if phase in SWEEP_PHASES else PHASE_TIMEOUT_S
    return wait_for(sweep, reached, f"phase {phase}", timeout)


def stop_if_no_load_is_left(sweep: Sweep, phase: str) -> None:
    """Once a second repeat runs, a phase of a first load will not come: the sweep is stopped at
    once (CellError) rather than left to spend the runs that later cells need."""
    if phase in FIRST_LOAD_PHASES and not (running_run(sweep.bundle) or "-r1").endswith("-r1"):
        os.kill(sweep.pid, signal.SIGINT)
        sweep.wait(120)
        raise CellError(f"no run is left to load: phase {phase} will not come;\n{sweep.tail()}")


def instance_dir(bundle: Path, run: str) -> Path:
    """The page size's instance a run of the bundle uses."""
    return bundle / "instances" / run.split("-r")[0]


def bundle_story(bundle: Path) -> str:
    """Each run's status and phases.csv: what a cell's failure message needs to say where it went."""
    lines = []
    for entry in (read_record(bundle) or {"runs": []})["runs"]:
        try:
            phases = (bundle / entry["name"] / PHASES_CSV).read_text().split()
        except OSError:
            phases = []
        lines.append(f"  {entry['name']}: {entry['status']}; {' '.join(phases)}")
    return "\n".join(lines)


