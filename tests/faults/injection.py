"""The faults the matrix injects into a running sweep (tests/faults/matrix.py), each at a phase
the sweep itself marks: signals to the sweep, its kernel, its server or its terminal; a port taken
from under the server; writes torn or held by strace on the server's files; a disk filled to the
byte. Where each phase comes from, and how the sweep's processes are found, is tests/faults/harness.py.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from pagelab.bundle import phase_marks
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER  # written into a whole snapshot
from tests.conftest import servers_under
from tests.faults.harness import (
    CellError, PHASES_CSV, PHASE_MARKERS, POLL_S, Sweep, bundle_story, instance_dir, kernel_pid, phase_now,
    read_phase, running_run, stop_if_no_load_is_left, wait_for, wait_for_phase,
)


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


