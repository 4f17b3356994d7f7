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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from pagelab.bundle import phase_marks
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER  # written into a whole snapshot
from pagelab.sweep.kept_load import LOAD_RECORD  # an instance's record of the completed load its datadir holds
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


# --- faults ---------------------------------------------------------------------------------------


def instance_dir(bundle: Path, run: str) -> Path:
    return bundle / "instances" / run.split("-r")[0]


def send(sweep: Sweep, signum: int) -> str:
    os.kill(sweep.pid, signum)
    return f"{signal.Signals(signum).name} to pagelab sweep (pid {sweep.pid})"


def kill_server(sweep: Sweep, where: str) -> str:
    servers = wait_for(sweep, lambda: servers_under(sweep.bundle), "a server to kill", timeout=30)
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    return f"SIGKILL to mysqld (pid {', '.join(map(str, servers))})"


def kill_kernel(sweep: Sweep, where: str) -> str:
    pid = wait_for(sweep, lambda: kernel_pid(sweep), "the papermill kernel", timeout=30)
    os.kill(pid, signal.SIGKILL)
    return f"SIGKILL to the ipykernel (pid {pid})"


def kill_terminal(sweep: Sweep, where: str) -> str:
    """The driver's terminals are threads of the kernel (pagelab.tpcc.driver), each with its own
    connection: one terminal is killed by ending its connection from a monitoring session
    (KILL CONNECTION), what a crashed terminal looks like to the server and to the driver."""
    from pagelab.mysql import Instance

    instance = Instance(instance_dir(sweep.bundle, where))

    def terminals():
        try:
            rows = instance.query("SELECT id FROM information_schema.PROCESSLIST WHERE db = 'tpcc' "
                                  "AND id <> CONNECTION_ID() ORDER BY id")
        except Exception:  # noqa: BLE001 - the server may be between states; try again
            return None
        return [row[0] for row in rows] if len(rows) >= 2 else None

    victims = wait_for(sweep, terminals, "two TPC-C terminal connections", timeout=30)
    instance.query(f"KILL CONNECTION {int(victims[-1])}")
    return f"KILL CONNECTION {victims[-1]} (one TPC-C terminal) from a monitoring session"


@dataclass
class TakenPort:
    """A port the test holds, and where the server's error log stood when it took it."""
    port: int
    holder: socket.socket
    error_log: Path
    log_offset: int


# A port-taken cell holds every write of the run's kernel into its my.cnf this long (strace delays
# the write's return): the new port is in the file and the server not yet started for all that
# time, however loaded the machine is (the cell polls every POLL_S). Polling alone lost that race
# in full suite runs. Every write into my.cnf before the one that counts is held too, so short.
PORT_HOLD_MS = 1500


def take_port(sweep: Sweep, phase: str, taken: list) -> tuple[str, str]:
    """Bind the port the server of the run in `phase` was just given, before the server binds it
    (my.cnf is written before mysqld starts, and mysqld binds only after InnoDB has started). The
    hold is put on each run's kernel as the run begins, well before its my.cnf is written. Only a
    my.cnf written since the run entered `phase` counts (by its line in phases.csv): the writes of
    earlier phases have no port (init) or the port of a server already gone. Returns the run and
    what was done."""
    while True:
        stop_if_no_load_is_left(sweep, phase)
        run = wait_for(sweep, lambda: running_run(sweep.bundle), "a run under way")
        kernel = wait_for(sweep, lambda: kernel_pid(sweep), "the papermill kernel", timeout=30)
        my_cnf = instance_dir(sweep.bundle, run) / "my.cnf"
        holders: list = []
        try:
            _trace_writes(kernel, [my_cnf], f"inject={TORN_WRITE_SYSCALLS}:delay_exit={PORT_HOLD_MS}ms", holders)
            attached = time.time()  # a my.cnf written before this was not held: its server may have the port
            port = wait_for(sweep, lambda: _port_given_in(sweep, run, phase, my_cnf, attached),
                            f"a new port in {run}'s my.cnf")
            if port == "moved on":  # this run never came to the phase (a restore, not a load): the next
                continue
            error_log = my_cnf.parent / "mysqld.err"
            offset = error_log.stat().st_size if error_log.exists() else 0
            holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                holder.bind(("127.0.0.1", port))
            except OSError as exc:
                holder.close()
                raise CellError(f"port {port} of {run} could not be taken ({exc}): the server had it first, "
                                f"although its my.cnf was held;\n{bundle_story(sweep.bundle)}") from exc
            holder.listen()
            taken.append(TakenPort(port, holder, error_log, offset))
            return run, f"port {port} taken by the test before mysqld bound it"
        finally:
            stop_tracers(holders)


def _port_given_in(sweep: Sweep, run: str, phase: str, my_cnf: Path, attached: float) -> int | str | None:
    """The port in `run`'s my.cnf if written since the run entered `phase` and since the hold was
    `attached`; "moved on" once another run is under way; else None."""
    if running_run(sweep.bundle) not in (run, None):
        return "moved on"
    entered = [t for t, name in phase_marks(sweep.bundle / run) if name == PHASE_MARKERS[phase] and t >= sweep.started]
    if not entered:
        return None
    try:
        if my_cnf.stat().st_mtime < max(entered[-1] - 0.01, attached):  # phases.csv keeps milliseconds
            return None
        ports = [line for line in my_cnf.read_text().splitlines() if line.startswith("port=")]
    except OSError:
        return None
    return int(ports[0].split("=", 1)[1]) if ports else None  # init writes one without a port


def serving_elsewhere(taken: TakenPort) -> int | None:
    """The port the server came up on after it found `taken.port` in use, from its error log: a
    bind error, then "ready for connections" with another port (MariaDB prints the port on the line
    after it). None until both are there."""
    try:
        with open(taken.error_log, "rb") as log:
            log.seek(taken.log_offset)
            text = log.read().decode(errors="replace")
    except OSError:
        return None
    refused = text.find("Address already in use")
    if refused < 0:
        return None
    for match in re.finditer(r"ready for connections\.\s*\nVersion: .*?\bport: (\d+)", text[refused:]):
        if int(match.group(1)) not in (0, taken.port):  # 0: the bootstrap server, which has no TCP
            return int(match.group(1))
    return None


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


TORN_WRITE_SYSCALLS = "write,pwrite64,writev,pwritev,pwritev2"


def tear_writes(pid: int, paths: list[Path], tracers: list) -> str:
    """From now on, the process `pid` dies (SIGKILL) at its first write into any of `paths` under
    their final names: what a power cut or a kill -9 in the middle of rewriting a file in place
    does. A file written under a temporary name and renamed into place is never written under its
    final name, so a process that writes that way goes on undisturbed."""
    _trace_writes(pid, paths, f"inject={TORN_WRITE_SYSCALLS}:signal=KILL", tracers)
    return f"SIGKILL to pid {pid} at any write into {', '.join(p.name for p in paths)} under the final name"


# How long a held write may wait for the cell that holds it: far longer than any fault takes to
# inject; the cell lets go of it (stop_tracers) as soon as its fault is in.
HOLD_S = 60


def hold_next_write(pid: int, path: Path, tracers: list) -> None:
    """Hold the process `pid` at its next write into `path` until the tracer is stopped. What makes
    a phase that lasts a fraction of a second (record) a phase a cell can land in: the run's
    phases.csv gets its line just after .phase has been rewritten, so holding that write keeps the
    run in the phase, with everything of it still to do, for as long as the cell needs."""
    _trace_writes(pid, [path], f"inject={TORN_WRITE_SYSCALLS}:delay_enter={HOLD_S}s:when=1", tracers)


def _trace_writes(pid: int, paths: list[Path], inject: str, tracers: list) -> None:
    """strace's syscall tampering on the writes of `pid` into `paths` (-P), attached to every thread
    the process has now; returns once every thread is traced."""
    threads = sorted(int(t.name) for t in Path(f"/proc/{pid}/task").iterdir())
    command = ["strace", "-o", "/dev/null", "-e", f"trace={TORN_WRITE_SYSCALLS}", "-e", inject]
    for path in paths:
        command += ["-P", str(path)]
    for thread in threads:
        command += ["-p", str(thread)]
    tracer = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tracers.append(tracer)
    deadline = time.monotonic() + 10

    def traced(thread: int) -> bool:
        try:
            status = Path(f"/proc/{pid}/task/{thread}/status").read_text()
        except OSError:
            return True  # gone: nothing left to trace
        return f"TracerPid:\t{tracer.pid}\n" in status

    while not all(traced(t) for t in threads):
        if tracer.poll() is not None or time.monotonic() > deadline:
            raise CellError(f"strace could not attach to pid {pid} (exit {tracer.poll()})")
        time.sleep(POLL_S)


def wait_for_held(sweep: Sweep, phase: str, holders: list) -> str:
    """Wait for `phase` (record, or snapshot) with the run held in it at the write HELD_WRITES names:
    from the phase before, hold the run's kernel at its next write into that file, then wait for
    the phase and for the hold. Returns the run."""
    before, path_of, held = HELD_WRITES[phase]
    while True:
        run = _wait_for_one_of(sweep, phase, before)
        kernel = wait_for(sweep, lambda: kernel_pid(sweep), "the papermill kernel", timeout=30)
        hold_next_write(kernel, path_of(sweep.bundle, run), holders)
        if _one_of_now(sweep, before) == run:  # the write is still to come: it will be held
            break
        stop_tracers(holders)  # the run got past the phase before while the tracer attached: the next run
        holders.clear()
    run = wait_for_phase(sweep, phase)
    wait_for(sweep, lambda: held(sweep.bundle, run), f"the run held in {phase}")
    return run


# The phases a cell holds open, and where (see hold_next_write): (the phases before, in any of which
# the hold is attached; the file whose next write is held; when the run is held).
#   record    its line in phases.csv, written just after .phase says record, before anything of
#             the phase is done;
#   snapshot  the snapshot's marker, written into snapshot.partial once the copy is complete: the
#             copy (a fraction of a second) is done, the snapshot not yet whole. Held
#             once the marker file exists, empty. Attached from the run's start on: a run that
#             keeps a completed load (pagelab.sweep.kept_load) goes from `starting` straight to
#             the snapshot, with no init or load before it.
HELD_WRITES = {
    "record": (("measurement",), lambda bundle, run: bundle / run / PHASES_CSV, lambda bundle, run: True),
    "snapshot": (("starting", "init", "load"), lambda bundle, run: _snapshot_marker(bundle, run),
                 lambda bundle, run: _snapshot_marker(bundle, run).exists()),
}


def _one_of_now(sweep: Sweep, phases: tuple[str, ...]) -> str | None:
    """The run under way, if it is in one of `phases` (harness phases, or `starting`: the run's
    directory made, its kernel not yet at work)."""
    if phases == ("measurement",):
        return phase_now(sweep, "measurement")
    name = running_run(sweep.bundle)
    text = read_phase(sweep.bundle / name, since=sweep.started) if name else ""
    return name if text and text in {PHASE_MARKERS.get(phase, phase) for phase in phases} else None


def _wait_for_one_of(sweep: Sweep, phase: str, before: tuple[str, ...]) -> str:
    """Wait for a run in one of the phases `before` `phase` (stopping the sweep, as wait_for_phase
    does, once a phase of a first load can no longer come)."""
    def reached():
        hit = _one_of_now(sweep, before)
        if not hit:
            stop_if_no_load_is_left(sweep, phase)
        return hit

    return wait_for(sweep, reached, f"phase {' or '.join(before)} before {phase}")


def _snapshot_marker(bundle: Path, run: str) -> Path:
    return instance_dir(bundle, run) / "snapshot.partial" / SNAPSHOT_MARKER


def stop_tracers(tracers: list) -> None:
    for tracer in tracers:
        if tracer.poll() is None:
            tracer.terminate()  # strace detaches from its tracees on SIGTERM
            tracer.wait(timeout=30)


def fill_disk(bundle: Path, leave_bytes: int = 0) -> Path:
    """Fill the bundle's filesystem to the last block (or to `leave_bytes` free) with one file next
    to the bundle: the free space in as few allocations as the writers racing for it allow, then
    page by page. Filling gigabytes takes a second or two, longer than the PDF phase lasts, so
    that cell fills all but a little before its sweep starts and the rest at the phase."""
    filler = bundle.parent / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        chunk = 1 << 40
        while chunk >= 1 << 16:
            free = os.statvfs(filler).f_bavail * os.statvfs(filler).f_frsize - leave_bytes
            if free <= 0:
                return filler
            chunk = min(chunk, free)
            try:
                os.posix_fallocate(fd, os.fstat(fd).st_size, chunk)
            except OSError:
                chunk //= 2  # someone else took some of it meanwhile
        page = bytes(4096)
        while not leave_bytes:
            try:
                os.write(fd, page)
            except OSError:
                break
    finally:
        os.close(fd)
    return filler


# --- what must hold after a fault -------------------------------------------------------------------


def file_hashes(directory: Path) -> dict[str, str]:
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def done_runs(bundle: Path) -> dict[str, dict[str, str]]:
    """Every run sweep.json marks done, with the hash of each of its files."""
    record = read_record(bundle) or {"runs": []}
    return {entry["name"]: file_hashes(bundle / entry["name"]) for entry in record["runs"]
            if entry["status"] == "done"}


def assert_run_whole(run_dir: Path) -> None:
    """A finished run's files, each read back with the reader the project uses for it."""
    import configparser

    import nbformat
    import pandas as pd

    from pagelab.parse import parse_innodb_status_dir, parse_iostat, parse_tpcc_log

    name = run_dir.name
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["run"] == name and summary["tpmc"] > 0, f"{name}/summary.json: {summary}"
    log = (run_dir / "tpcc.log").read_text()
    assert "run aborted" not in log, f"{name}/tpcc.log is the log of an aborted run"
    assert parse_tpcc_log(log).rows, f"{name}/tpcc.log has no interval lines"
    for table in ("tpcc_intervals", "iostat", "innodb", "global_status", "variables"):
        frame = pd.read_csv(run_dir / f"{table}.csv")
        assert not frame.empty, f"{name}/{table}.csv has no rows"
    pd.read_csv(run_dir / "hit_ratio.csv")
    assert parse_iostat((run_dir / "iostat.json").read_text()).rows, f"{name}/iostat.json has no samples"
    assert parse_innodb_status_dir(run_dir / "innodb").rows, f"{name}/innodb/ has no readable snapshot"
    notebook = nbformat.read(run_dir / "run.ipynb", as_version=4)
    nbformat.validate(notebook)
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{name}/run.ipynb holds an error: {errors[0].get('ename')}"
    config = configparser.ConfigParser(allow_no_value=True, strict=False)
    config.read_string((run_dir / "my.cnf").read_text())
    assert int(config.get("mysqld", "innodb_page_size")) == summary["page_size_bytes"], f"{name}/my.cnf"
    assert (run_dir / "mysqld.err").stat().st_size > 0, f"{name}/mysqld.err is empty"
    phases = (run_dir / PHASES_CSV).read_text().splitlines()
    assert phases and phases[-1].split(",", 1)[1] == "done", f"{name}/phases.csv does not end in done"


def assert_state_files_whole(bundle: Path) -> None:
    """The small files that a later process reads back are whole: each instance's instance.json,
    loaded.json and record of a completed load parse, and every run's .phase names a phase."""
    for name in ("instance.json", "loaded.json", LOAD_RECORD):
        for path in (bundle / "instances").glob(f"*/{name}"):
            try:
                json.loads(path.read_text())
            except ValueError:
                raise AssertionError(f"{path} is not whole JSON: {path.read_bytes()[:80]!r}") from None
    for path in bundle.glob("*/.phase"):
        assert path.read_text().strip(), f"{path} is empty"


def assert_no_half_copies(bundle: Path, dataset: Path | None) -> None:
    """Only a whole copy carries a final name: every snapshot/ has its marker, and the TPC-C
    cache's dataset directory (if there is one yet) its manifest."""
    for snapshot in (bundle / "instances").glob("*/snapshot"):
        assert (snapshot / SNAPSHOT_MARKER).exists(), f"{snapshot} has no {SNAPSHOT_MARKER}: a half copy under the final name"
    if dataset is not None and dataset.exists():
        assert (dataset / CACHE_MANIFEST).exists(), f"{dataset} has no {CACHE_MANIFEST}: a half dataset under the final name"


# Runs read back whole by an earlier cell, by the hashes of their files then: a run whose files are
# byte for byte what was read back then is whole still, and is not read back again by every later
# cell (each read-back of a run parses its tables and notebook: seconds on a loaded machine).
_READ_BACK: dict[Path, dict[str, str]] = {}


def _assert_run_whole_once(run_dir: Path, hashes: dict[str, str] | None) -> None:
    """assert_run_whole, unless this run's files (`hashes`, as check_after found them unchanged) are
    the ones read back whole before."""
    if hashes is not None and _READ_BACK.get(run_dir) == hashes:
        return
    assert_run_whole(run_dir)
    _READ_BACK[run_dir] = file_hashes(run_dir)


def check_after(bundle: Path, sweep: Sweep, done_before: dict[str, dict[str, str]],
                dataset: Path | None = None) -> dict:
    """The promises after a fault or a resume: nothing of the sweep left running, sweep.json whole,
    no run done unless its files are whole, every run done before still done and byte-identical,
    no half copy under a final name. Returns sweep.json."""
    left = wait_until_gone(sweep)
    assert not left, f"still running {GRACE_S:.0f} s after the sweep (pid {sweep.pid}) ended (now killed): {left}"
    record = read_record(bundle)
    assert record is not None, f"{bundle}/sweep.json is missing or not whole JSON"
    statuses = {entry["name"]: entry["status"] for entry in record["runs"]}
    for name, hashes in done_before.items():
        assert statuses.get(name) == "done", f"{name} was done before the fault and is now {statuses.get(name)}"
        now = file_hashes(bundle / name)
        changed = sorted(set(hashes) ^ set(now) | {p for p in hashes if p in now and hashes[p] != now[p]})
        assert not changed, f"{name} was done before the fault and changed: {changed[:5]}"
    for name, status in statuses.items():
        if status == "done":
            _assert_run_whole_once(bundle / name, done_before.get(name))
    assert_state_files_whole(bundle)
    assert_no_half_copies(bundle, dataset)
    return record


# --- a completed load, kept or loaded again (pagelab.sweep.kept_load) -------------------------------


def loads_to_keep(bundle: Path) -> dict[str, dict]:
    """Instance name -> its record, for each instance whose datadir holds a recorded completed load
    and which has no whole snapshot: what the next run of that instance must keep, not load again.
    Read here from the files, not through pagelab's own check, so that a resume that loads again
    anyway fails the cell."""
    found = {}
    for record in sorted((bundle / "instances").glob(f"*/{LOAD_RECORD}")):
        if not (record.parent / "snapshot" / SNAPSHOT_MARKER).exists():
            found[record.parent.name] = json.loads(record.read_text())
    return found


def check_loads(bundle: Path, to_keep: dict[str, dict], since: float, output: str) -> None:
    """What became of the loads in a cell whose sweeps started at `since`, given the completed loads
    `to_keep` (loads_to_keep before the cell):

    - a run of an instance whose completed load was to be kept neither initialised nor loaded it
      again, the sweep said so ("kept the completed load of 4k"), and if the snapshot was made
      whole, its loaded.json names the run that kept the load;
    - a run that made a snapshot of any other instance loaded it first (a load cut short, or none
      yet, is loaded again);
    - a run stopped in its init or load left no record of a completed load."""
    for phases_csv in sorted(bundle.glob(f"*/{PHASES_CSV}")):
        run = phases_csv.parent.name
        marks = [name for t, name in phase_marks(phases_csv.parent) if t >= since]
        if not marks:
            continue
        instance = instance_dir(bundle, run)
        story = f"{run}'s phases in this cell: {', '.join(marks)}"
        if instance.name in to_keep:
            kept = to_keep[instance.name]
            assert not {"init", "load"} & set(marks), (f"{run} loaded {instance.name} again, although its datadir "
                                                       f"held the completed load of {kept['loaded_by']}; {story}")
            if "snapshot" in marks:
                assert f"kept the completed load of {instance.name}" in output, \
                    f"the sweep did not say it kept {instance.name}'s completed load; {story}"
                loaded = instance / "loaded.json"
                if (instance / "snapshot" / SNAPSHOT_MARKER).exists() and loaded.exists():
                    assert json.loads(loaded.read_text()).get("load_kept_by") == run, loaded.read_text()
        elif "snapshot" in marks:
            assert "load" in marks[:marks.index("snapshot")], \
                f"{run} took a snapshot of {instance.name} without loading it, and no completed load was recorded; {story}"
        if marks[-1] in ("init", "load"):
            assert not (instance / LOAD_RECORD).exists(), \
                f"{run} was stopped in its {marks[-1]}, and {instance / LOAD_RECORD} says the load completed; {story}"
