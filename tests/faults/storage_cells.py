"""The storage faults of the fault matrix (tests/faults/matrix.py runs them on a chain's bundle, in
its order): the filesystem under the bundle turned read-only, I/O errors in the server's writes
and in pagelab's own, and a slow disk, each followed by the checks of tests/faults/harness.py and
a repair; the next cell's `--resume` is the resume after it.

The matrix's bundle lives on an ext4 filesystem of its own, on a loop device over a sparse file,
mounted errors=remount-ro as Debian mounts its root (tests/faults/failing_disk.py). The faults:

  read-only   an ext4 error (/sys/fs/ext4/<loop>/trigger_fs_error): the kernel turns the filesystem
              read-only, as after a real I/O error; the repair is a user's: umount, e2fsck -fy, mount;
  eio-server  strace makes the server's writes and flushes fail with EIO (InnoDB gives up);
  eio-bundle  strace makes the kernel's next write into the run's phases.csv fail with EIO: pagelab's
              own write into the bundle, in the record phase;
  slow-disk   strace delays each of the server's writes and flushes by SLOW_DISK_MS. The server keeps
              answering, only slowly, so the run completes: the stall watchdog is for a server that
              completes nothing for stall_s, and a slow one is measured as it is and flagged by the
              evidence when its TpmC stands far below its page size's others
              (pagelab.evidence.outliers; the tiny profile's two runs a page size are too few for the
              flag to be sure, so tests/test_outliers.py holds it to a run slowed as this one was). The
              cell asserts that the run is done and whole, that no storage fault is claimed, and then
              stops the sweep (SIGINT) so that the next cells have runs left.

Each cell asserts the one message (the fault, a path in the bundle, the run and phase, what was
kept, the resume command, the file holding the traceback, and no traceback on the terminal), the
exit status, that nothing of the sweep is left running, and, after the repair, that every run
done before is still done with its files byte for byte. Each mechanism is checked before it is
used; one that does not work here fails the cell, naming it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

from pagelab.cli.exits import EXIT_STORAGE
from pagelab.common.storage import traceback_directory
from tests.conftest import servers_under
from tests.faults import after_fault, harness, injection
from tests.faults.failing_disk import check_strace_injection, tamper, untamper

SLOW_DISK_MS = 500
# The server's writes and flushes that the I/O-error and slow-disk cells tamper with.
SERVER_IO = "pwrite64,pwritev,fsync,fdatasync"
STORAGE_FAULTS = ("read-only", "eio-server", "eio-bundle", "slow-disk")
# Where each can land: read-only anywhere a sweep writes (the run's phases, the report, the tidy-up
# after it); the injected ones where their syscalls come (the server's in the measurement, the
# record phase's first write into phases.csv).
STORAGE_PHASES = {"read-only": ("init", "load", "snapshot", "restore", "measurement", "record", "report", "tidy-up"),
                  "eio-server": ("measurement",), "eio-bundle": ("record",), "slow-disk": ("measurement",)}
EXIT_TIMEOUT_S = 120.0
MESSAGE_WAIT_S = 60.0
STORAGE_WORDS = {"read-only": ("the filesystem turned read-only (EROFS)", "e2fsck"),
                 "eio-server": ("an I/O error", "(EIO)"), "eio-bundle": ("an I/O error", "(EIO)")}


def _record_result(cell: dict) -> None:
    path = os.environ.get("PAGELAB_FAULT_LOG")
    if path:
        with open(path, "a") as log:
            log.write(json.dumps(cell) + "\n")


def _wait_for_message(sweep: harness.Sweep, since: float) -> float:
    """Seconds from `since` until the sweep has said its error (or ended)."""
    deadline = time.monotonic() + MESSAGE_WAIT_S
    while "pagelab: error:" not in sweep.text() and sweep.alive() and time.monotonic() < deadline:
        time.sleep(harness.POLL_S)
    return time.time() - since


def _record_phase_began(run_dir: Path, attached: float) -> float:
    """When the run's .phase said record (its line in phases.csv is the write that failed), once it does."""
    deadline = time.monotonic() + MESSAGE_WAIT_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if (run_dir / ".phase").read_text().strip() == "record":
                return (run_dir / ".phase").stat().st_mtime
        time.sleep(harness.POLL_S)
    return attached


def _hold_rename_of_record(sweep: harness.Sweep, tracers: list) -> None:
    """Hold the sweep at the end of its next rename into sweep.json: after the report, the save that
    records it, just before the tidy-up begins."""
    tracers.append(tamper(sweep.pid, "rename,renameat,renameat2", f"delay_exit={injection.HOLD_S}s:when=1",
                          paths=[sweep.bundle / "sweep.json"]))


def _report_recorded(bundle: Path) -> bool:
    return bool((harness.read_record(bundle) or {}).get("report"))


def run_cell(chain, fault: str, phase: str) -> None:
    """One storage cell on the matrix's `chain` (matrix.Chain: its bundle on chain.disk)."""
    started = time.time()
    before = after_fault.done_runs(chain.bundle)
    if fault != "read-only":
        check_strace_injection()
    sweep = chain.start_sweep()
    tracers: list = []
    holds: list = []
    try:
        if fault == "eio-bundle":
            # attached in the measurement (one tracer per process: no hold beside it), its first
            # write into phases.csv is the record phase's line
            where = harness.wait_for_phase(sweep, "measurement")
        elif phase == "record":
            where = injection.wait_for_held(sweep, "record", holds)  # held at its line in phases.csv
        elif phase == "snapshot":
            where = injection.wait_for_held(sweep, "snapshot", holds)  # held with the copy done, no marker yet
        elif phase == "tidy-up":
            harness.wait_for_phase(sweep, "report")
            _hold_rename_of_record(sweep, holds)  # let go as soon as the disk has failed
            harness.wait_for(sweep, lambda: _report_recorded(chain.bundle), "the report recorded in sweep.json")
            where = "tidy-up"
        else:
            where = harness.wait_for_phase(sweep, phase)
        if fault == "read-only":
            injected = chain.disk.fail()
            what = "ext4 error: the filesystem remounted read-only"
        elif fault == "eio-server":
            server = harness.wait_for(sweep, lambda: servers_under(chain.bundle), "the run's server", timeout=30)
            injected = time.time()
            tracers.append(tamper(next(iter(server)), SERVER_IO, "error=EIO"))
            what = f"EIO into mysqld's {SERVER_IO}"
        elif fault == "eio-bundle":
            kernel = harness.wait_for(sweep, lambda: harness.kernel_pid(sweep), "the papermill kernel", timeout=30)
            injected = time.time()
            tracers.append(tamper(kernel, "write", "error=EIO", paths=[chain.bundle / where / harness.PHASES_CSV]))
            what = "EIO into the kernel's writes into phases.csv"
        elif fault == "slow-disk":
            server = harness.wait_for(sweep, lambda: servers_under(chain.bundle), "the run's server", timeout=30)
            injected = time.time()
            tracers.append(tamper(next(iter(server)), SERVER_IO, f"delay_enter={SLOW_DISK_MS}ms"))
            what = f"{SLOW_DISK_MS} ms into each of mysqld's {SERVER_IO}"
        else:
            raise ValueError(fault)
        injection.stop_tracers(holds)  # the fault is in: the held phase goes on
        if fault == "slow-disk":
            tpmc = _slow_disk_outcome(chain, sweep, where, before, tracers)
            cost = time.time() - started
            _record_result({"fault": fault, "phase": phase, "run": where, "cell_s": round(cost, 1), "tpmc": tpmc})
            return
        if fault == "eio-bundle":  # attached in the measurement; the write it fails comes with the record phase
            injected = _record_phase_began(chain.bundle / where, injected)
        to_message = _wait_for_message(sweep, injected)
        code = sweep.wait(EXIT_TIMEOUT_S)
        for tracer in tracers:
            untamper(tracer)
        left = harness.wait_until_gone(sweep)
        assert not left, f"still running after the sweep ended (now killed): {left}"
        _assert_message(fault, phase, where, code, sweep)
        if fault == "read-only":
            assert chain.disk.read_only(), "the filesystem was writable again before the repair"
            chain.disk.repair()
        record = after_fault.check_after(chain.bundle, sweep, before, chain.cache)
        statuses = {e["name"]: e["status"] for e in record["runs"]}
        if phase not in ("report", "tidy-up"):
            assert statuses[where] != "done", f"{where} is recorded done after a {fault} in its {phase}"
        cost = time.time() - started
        _record_result({"fault": fault, "phase": phase, "run": where, "what": what, "exit": code,
                        "fault_to_message_s": round(to_message, 2), "cell_s": round(cost, 1)})
        print(f"{fault} in {phase} ({where}): message {to_message:.1f} s after the fault; cell {cost:.0f} s")
    finally:
        injection.stop_tracers(holds)
        for tracer in tracers:
            untamper(tracer)
        if sweep.alive():
            sweep.process.kill()
            sweep.process.wait()
        harness.wait_until_gone(sweep, timeout=10)


def _assert_message(fault: str, phase: str, where: str, code: int, sweep: harness.Sweep) -> None:
    """The one paragraph a storage fault gets: the fault, the path, the run and phase, what was
    kept, what to do next, and where the traceback went; no traceback on the terminal."""
    text = sweep.text()
    message = " ".join(text[text.index("pagelab: error:"):].split()) if "pagelab: error:" in text else ""
    assert code == EXIT_STORAGE, f"exit {code}, not {EXIT_STORAGE}:\n{sweep.tail()}"
    assert "Traceback" not in text, f"a traceback reached the terminal:\n{text[-3000:]}"
    assert message.startswith("pagelab: error: storage fault:"), sweep.tail()
    for words in STORAGE_WORDS[fault]:
        assert words in message, f"{words!r} not in: {message}"
    assert f" at {sweep.bundle}/" in message, f"no path in the bundle in: {message}"
    if phase in ("report", "tidy-up"):
        assert f"during the {phase}" in message, message
    else:
        words = {"record": "recording"}.get(phase, phase)
        assert f"during {where}'s {words}" in message, message
        assert f"{where} was not recorded as done and will be run again" in message, message
    assert "Kept: the " in message and f"pagelab sweep --resume {sweep.bundle}" in message, message
    saved = Path(message.split("The traceback is in ")[1].rsplit(".txt", 1)[0] + ".txt")
    expected_home = traceback_directory() if fault == "read-only" else sweep.bundle
    assert saved.parent == expected_home, f"the traceback went to {saved}, not into {expected_home}"
    assert saved.read_text().startswith("Traceback"), saved
    if saved.parent == traceback_directory():
        saved.unlink()  # the test's own, in the user's cache


def _slow_disk_outcome(chain, sweep: harness.Sweep, where: str, before: dict, tracers: list) -> dict:
    """A slow disk is not a failure: the run completes, slowly, and is flagged as an outlier. The
    sweep is then stopped (SIGINT) so that the next cells have runs left."""
    # slowed through its measurement; its shutdown's page writes, 500 ms each, would only cost time
    harness.wait_for(sweep, lambda: harness.phase_now(sweep, "measurement") != where, f"the end of {where}'s measurement",
                     timeout=harness.PHASE_TIMEOUT_S)
    for tracer in tracers:
        untamper(tracer)
    harness.wait_for(sweep, lambda: _status(chain.bundle, where) not in ("running", None), f"{where} to end",
                     timeout=harness.PHASE_TIMEOUT_S)
    if sweep.alive():
        injection.send(sweep, signal.SIGINT)
    code = sweep.wait(EXIT_TIMEOUT_S)
    assert code in (130, -signal.SIGINT, 0), sweep.tail()
    record = after_fault.check_after(chain.bundle, sweep, before, chain.cache)
    entry = next(e for e in record["runs"] if e["name"] == where)
    assert entry["status"] == "done", f"{where} on a slow disk: {entry}"
    assert "storage fault" not in sweep.text(), sweep.tail()
    # what the slow disk did to the run's TpmC, beside the runs done so far (tests/test_outliers.py)
    tpmc = {e["name"]: json.loads((chain.bundle / e["name"] / "summary.json").read_text())["tpmc"]
            for e in record["runs"] if e["status"] == "done"}
    print(f"slow-disk: {where} TpmC {tpmc[where]:.0f}; the other runs done: "
          + ", ".join(f"{name} {value:.0f}" for name, value in tpmc.items() if name != where))
    return tpmc


def _status(bundle: Path, run: str) -> str | None:
    for entry in (harness.read_record(bundle) or {"runs": []})["runs"]:
        if entry["name"] == run:
            return entry["status"]
    return None
