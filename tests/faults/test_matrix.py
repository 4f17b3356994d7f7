"""The fault matrix: faults injected into a real `pagelab sweep` at the phases of its runs, its report
and its PDF, each followed by the checks of tests/faults/harness.py, then `--resume`.

One bundle (the tiny profile, on a tmpfs of its own so that the disk can really be filled) goes
through the cells in order, like a sweep that meets one fault after another: each cell starts the
sweep (the first) or resumes it, waits for its phase marker, injects its fault, and checks what
must hold; the next cell's resume is the one that follows it. The last test resumes without a
fault and checks the bundle is what an uninterrupted sweep leaves. Each cell also runs on its own
(`-k`): it resumes whatever the bundle holds until its phase comes round.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pagelab.paths import CACHE_DIR
from tests.faults import harness
from tests.faults.harness import CellError

pytestmark = pytest.mark.server

# The run's faults that make the run fail rather than stop the sweep: their resumes are given
# --fail-fast, so the sweep stops at the failed run instead of going on to the next runs and the
# report (which later cells need, and which would double the suite's time).
RUN_FAILURES = {"kill-mysqld", "kill-terminal", "kill-kernel"}
SWEEP_SIGNALS = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "sighup": signal.SIGHUP,
                 "kill-sweep": signal.SIGKILL}
# The cells in the order the bundle meets them. Phases of a run that has no snapshot yet (init,
# load, snapshot) come first; then those of runs that restore; then the report and the PDF.
CELLS = [
    ("sigint", "init"),
    ("kill-sweep", "load"),
    ("sigterm", "snapshot"),
    ("port-taken", "init"),
    ("sighup", "restore"),
    ("kill-mysqld", "start"),
    ("kill-terminal", "measurement"),
    ("kill-kernel", "record"),
    ("sigint", "report"),
    ("kill-sweep", "pdf"),
]
EXIT_TIMEOUT_S = 180.0  # a run that fails still stops its server and writes its notebook


class Chain:
    """The bundle the cells share, on its own tmpfs, and the TPC-C seed of its cache."""

    def __init__(self, mount: Path, workdir: Path, seed: int):
        self.mount, self.workdir, self.seed = mount, workdir, seed
        self.bundle = mount / "bundle"

    @property
    def cache(self) -> Path:
        return CACHE_DIR / f"tpcc-w1-s{self.seed}"

    def args(self, fail_fast: bool = False) -> list:
        if not (self.bundle / "sweep.json").exists():
            return ["--profile", harness.TINY_PROFILE, "--set", f"seed={self.seed}", "--out", self.bundle]
        return ["--resume", self.bundle] + (["--fail-fast"] if fail_fast else [])


def _mount_tmpfs(directory: Path, size: str) -> None:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(directory)],
                          capture_output=True, text=True)
    assert done.returncode == 0, (f"the fault suite mounts a tmpfs for its bundle, to fill the disk for real; "
                                  f"run it as root (mount said: {done.stderr.strip()})")


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    base = tmp_path_factory.mktemp("faults")
    mount = base / "disk"
    mount.mkdir()
    # A bundle of the tiny profile holds ~? MB at most (a 4k datadir and its snapshot, and a
    # restore's copy while it is made); the rest is room for the runs and the report.
    _mount_tmpfs(mount, "1500m")
    # A seed of its own, so the first load generates the TPC-C cache while the cells watch.
    chain = Chain(mount, base, seed=100_000 + os.getpid() % 100_000)
    try:
        yield chain
    finally:
        for pid in harness.servers_under(mount):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        subprocess.run(["umount", "-l", str(mount)], check=False)
        shutil.rmtree(chain.cache, ignore_errors=True)
        for staging in CACHE_DIR.glob(f".{chain.cache.name}.*"):
            shutil.rmtree(staging, ignore_errors=True)


def _record_result(fault: str, phase: str, outcome: str) -> None:
    """One line per cell in $PAGELAB_FAULT_LOG, if set: the matrix table of a report."""
    path = os.environ.get("PAGELAB_FAULT_LOG")
    if path:
        with open(path, "a") as log:
            log.write(json.dumps({"fault": fault, "phase": phase, "outcome": outcome}) + "\n")


def run_cell(chain: Chain, fault: str, phase: str) -> dict:
    before = harness.done_runs(chain.bundle)
    sweep = harness.start_sweep(chain.args(fail_fast=fault in RUN_FAILURES), chain.bundle, chain.workdir)
    holders: list = []
    tracers: list = []
    filler: Path | None = None
    try:
        where = harness.wait_for_phase(sweep, phase)
        if fault in SWEEP_SIGNALS:
            if phase == "snapshot":  # into the copy itself, not the moment before it
                harness.wait_for(sweep, lambda: _copy_under_way(chain.bundle / "instances" / "4k"), "the snapshot's copy")
            what = harness.send(sweep, SWEEP_SIGNALS[fault])
        elif fault == "kill-mysqld":
            what = harness.kill_server(sweep, where)
        elif fault == "kill-kernel":
            what = harness.kill_kernel(sweep, where)
        elif fault == "kill-terminal":
            what = harness.kill_terminal(sweep, where)
        elif fault == "port-taken":
            what = harness.take_port(sweep, where, holders)
        elif fault == "torn-write":
            what = _tear(chain, sweep, phase, tracers)
        elif fault == "disk-full":
            filler = harness.fill_disk(chain.bundle)
            what = "the bundle's filesystem filled"
        else:
            raise ValueError(fault)
        # still in the phase just after the injection? (a phase that ended under the fault is named)
        landed = "in phase" if harness.phase_now(sweep, phase) else "phase had just ended"
        if fault == "port-taken":
            # the server gets another port; the run goes on and finishes, then the sweep is stopped
            harness.wait_for(sweep, lambda: (harness.read_record(chain.bundle) or {"runs": []})["runs"]
                             and _status(chain.bundle, where) in ("done", "failed"), f"{where} to end", timeout=180)
            harness.send(sweep, signal.SIGINT)
        code = sweep.wait(EXIT_TIMEOUT_S)
        if filler is not None:
            filler.unlink()
            filler = None
        record = harness.check_after(chain.bundle, sweep, before, chain.cache)
        status = {e["name"]: e["status"] for e in record["runs"]}.get(where, "-")
        outcome = f"{what} ({landed}); exit {code}; {where}: {status}"
        _expect(fault, phase, where, code, record, sweep)
        _record_result(fault, phase, outcome)
        return record
    finally:
        harness.stop_tracers(tracers)
        for holder in holders:
            holder.close()
        if filler is not None:
            filler.unlink(missing_ok=True)
        if sweep.alive():
            sweep.process.kill()
            sweep.process.wait()
        harness.wait_until_gone(sweep, timeout=10)


# Which process rewrites which state file in the phase a torn-write cell targets.
TORN_FILES = {"record": ("sweep", "sweep.json"), "start": ("kernel", "instances/4k/instance.json"),
              "snapshot": ("kernel", "instances/4k/loaded.json")}


def _tear(chain: Chain, sweep: harness.Sweep, phase: str, tracers: list) -> str:
    who, name = TORN_FILES[phase]
    pid = sweep.pid if who == "sweep" else harness.kernel_pid(sweep)
    return harness.tear_writes(pid, [chain.bundle / name], tracers)


def _status(bundle: Path, run: str) -> str | None:
    for entry in (harness.read_record(bundle) or {"runs": []})["runs"]:
        if entry["name"] == run:
            return entry["status"]
    return None


def _copy_under_way(instance: Path) -> bool:
    for candidate in (instance / "snapshot.partial", instance / "snapshot"):
        if candidate.is_dir() and not (candidate / harness.SNAPSHOT_MARKER).exists() and any(candidate.iterdir()):
            return True
    return False


def _expect(fault: str, phase: str, where: str, code: int, record: dict, sweep: harness.Sweep) -> None:
    """What the sweep must have said and recorded, beyond the invariants every cell checks."""
    statuses = {e["name"]: e["status"] for e in record["runs"]}
    if phase in harness.RUN_PHASES and fault != "port-taken":
        assert statuses[where] != "done", f"{where} is marked done after a {fault} during its {phase}"
    if fault in ("sigint", "sigterm"):
        assert code == 130, sweep.tail()
        assert f"--resume {sweep.bundle}" in sweep.text(), "the message does not say how to continue"
        if phase in harness.RUN_PHASES:
            assert statuses[where] == "interrupted"
    if fault in RUN_FAILURES:
        assert statuses[where] == "failed", statuses
    if fault == "port-taken":
        assert statuses[where] == "done", f"{where} did not finish after its port was taken: {statuses}"
        log = (sweep.bundle / "instances" / where.split("-r")[0] / "mysqld.err").read_text(errors="replace")
        assert "Address already in use" in log or "Bind on TCP/IP port" in log, "the port was not in fact taken"


@pytest.mark.parametrize("fault, phase", CELLS, ids=[f"{f}-in-{p}" for f, p in CELLS])
def test_fault(chain, fault, phase):
    run_cell(chain, fault, phase)


def test_resume_finishes_the_sweep(chain):
    before = harness.done_runs(chain.bundle)
    sweep = harness.start_sweep(chain.args(), chain.bundle, chain.workdir)
    code = sweep.wait(600)
    assert code == 0, sweep.tail()
    harness.check_after(chain.bundle, sweep, before, chain.cache)
    harness.assert_complete_bundle(chain.bundle)
