"""One unit of a sweep's plan, run into its own run directory: the one code path of both
executors. The local sweep's loop calls `begin` and `execute` for each unit in turn;
`pagelab run-unit BUNDLE --round K` (a Slurm array task) calls `run_block`, which runs round K's
units on this node one after another in the round's order, and `pagelab run-unit BUNDLE INDEX`
(one unit by hand) calls `run_one`; both add the bookkeeping a process of its own needs: the
unit's lock, SIGTERM, and its status on the way out.

A round is a block (pagelab.sweep.plan): its runs are compared with each other as runs that
shared a node, so no round is ever split over two nodes here. A unit whose round has runs done on
another host is refused (`check_round_on_this_node`); a round task skips its units already done
on this host (a requeued task keeps them) and, stopped part-way, marks the units it did not
reach as not run, naming the round, so that a resume reruns the round whole.

Where the unit's server lives:
- by default in the page size's instance, BUNDLE/instances/<page>/, as a local sweep always did;
  the page size's lock is then held for the whole unit, so two units never share a datadir;
- with `scratch`, in a directory of its own, SCRATCH/<sweep id>-<run>/, restored from the page
  size's snapshot and removed afterwards; the page size's lock is held only while the snapshot
  is made, so units of one page size on several nodes run at once (pagelab.sweep.experiment).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
from pathlib import Path
from typing import TYPE_CHECKING

from pagelab.common.disk import disk_nearly_full
from pagelab.common.errors import PagelabError, UsageError
from pagelab.common.storage import STORAGE_ERRNOS, StorageFaultKind, storage_fault_in, sync_tree, unwritable
from pagelab.mysql.config import InstancePaths
from pagelab.machine import disk_speed
from pagelab.machine.hosts import host_noise, host_record, hostname, write_host_record
from pagelab.common.locks import BUNDLE_LOCKS_DIR, LockBusy, held_lock, wait_for_writers
from pagelab.common.paths import CACHE_DIR, NOTEBOOKS_DIR, PROJECT_ROOT
from pagelab.sweep.plan import Unit, block_of, read_plan
from pagelab.bundle import SweepRecord, now_iso, read_phase, set_phase
from pagelab.sweep.storage_stop import ReadOnlySeen, ReadOnlyWatch, storage_fault_stop, suppress_storage_faults

if TYPE_CHECKING:
    from pagelab.sweep.plan import Plan

RUN_NOTEBOOK = NOTEBOOKS_DIR / "tpcc_page_size_run.ipynb"
# A cell may legitimately run for the whole measurement (course: 1200 s) plus load and restarts.
CELL_TIMEOUT_S = 4 * 3600
# What a unit stopped by SIGTERM records: under Slurm that is scancel or the job's time limit.
STOPPED_BY_SIGTERM = "stopped by SIGTERM (scancel, the job's time limit, or Ctrl-C)"
# The exit status of a process ended by SIGTERM, as a shell reports it.
EXIT_SIGTERM = 143


def run_parameters(profile: dict, sweep_dir: Path, page_size: int, repeat: int, cell: dict | None = None,
                   role: str = "verdict") -> dict:
    """The run notebook's parameters: the profile whole (as sweep.json keeps it), the page size, the
    repeat and the unit's cell of the grid; the notebook rebuilds the profile with `profile_from_dict`
    and takes the cell's levels for the listed knobs."""
    return {"sweep_dir": str(sweep_dir), "profile": dict(profile), "page_size": int(page_size),
            "repeat": int(repeat), "cache_dir": str(CACHE_DIR), "cell": dict(cell or {}), "role": role}


def short_error(exc: Exception) -> str:
    """A failed run's error for sweep.json: papermill's cell error name and value, or the exception's."""
    name = getattr(exc, "ename", type(exc).__name__)
    value = getattr(exc, "evalue", str(exc))
    return f"{name}: {value}".strip()[:2000]


def _server_paths(sweep_dir: Path, entry: dict, scratch: Path | None) -> InstancePaths:
    root = unit_instance_dir(sweep_dir, entry, scratch)
    return InstancePaths(root, root / "mysqld.sock")  # (the socket is not used here)


# How much of the log's end a mark keeps, to know the log again: a replaced log can have the old
# one's inode (ext4 hands a freed inode to the next file made, as init's new log is) and be longer.
_LOG_MARK_BYTES = 256


def server_log_mark(sweep_dir: Path, entry: dict, scratch: Path | None = None) -> tuple[int, int, bytes]:
    """Where the unit's part of its server's error log begins: the log's inode, how far it reaches
    now, and its last bytes. A run that begins its page size initialises the instance, which
    replaces the log by a new file: its offset then no longer applies (`_read_since`)."""
    try:
        with open(_server_paths(sweep_dir, entry, scratch).error_log, "rb") as log:
            status = os.fstat(log.fileno())
            log.seek(max(0, status.st_size - _LOG_MARK_BYTES))
            return (status.st_ino, status.st_size, log.read(_LOG_MARK_BYTES))
    except OSError:
        return (0, 0, b"")


def _read_since(path: Path, mark: tuple[int, int, bytes]) -> str:
    """The log's text from `mark` on (server_log_mark), or all of it when it is another file than
    the one marked: another inode, shorter, or other bytes where the marked one ended."""
    with open(path, "rb") as log:
        status = os.fstat(log.fileno())
        inode, offset, ending = mark
        if status.st_ino == inode and status.st_size >= offset:
            log.seek(offset - len(ending))
            if log.read(len(ending)) != ending:
                log.seek(0)
        return log.read().decode(errors="replace")


def server_storage_fault(sweep_dir: Path, entry: dict, mark: tuple[int, int],
                         scratch: Path | None = None) -> StorageFaultKind | None:
    """A storage fault the unit's server wrote into its error log since `mark` (server_log_mark):
    a server whose write failed stops (InnoDB aborts on EIO), and the run only sees that it went
    away. Its path is the server's datadir."""
    paths = _server_paths(sweep_dir, entry, scratch)
    try:
        text = _read_since(paths.error_log, mark)
    except OSError:
        return None
    fault = storage_fault_in(text)
    return StorageFaultKind(fault.code, fault.path or str(paths.datadir)) if fault else None


def record_failure(record: SweepRecord, entry: dict, exc: BaseException | str,
                   server_fault: StorageFaultKind | None = None) -> StorageFaultKind | None:
    """Mark the unit failed with its error, labelled when it was a storage fault ("disk full: ...",
    "read-only filesystem: ...", "I/O error: ...", in the error or else in what the unit's server
    logged: `server_fault`); returns the storage fault, if it was one.

    Under a failing disk the record's own write can fail. On a full disk the unit's partial outputs
    go first (a resume redoes it from an empty directory anyway) and the record is written again;
    on a read-only or failing one the entry stays `running`, which a resume takes for not done."""
    sweep_dir = record.path.parent
    fault = storage_fault_in(exc)
    if server_fault is not None and (fault is None or fault.path is None):  # the server's log names its datadir
        fault = server_fault
    if fault is None and disk_nearly_full(sweep_dir):  # a server cannot say so on the disk that is full
        fault = StorageFaultKind(errno.ENOSPC, str(sweep_dir))
    if fault is None:  # a failure that named no fault (a program's generic exit) on a disk that takes no write now
        fault = unwritable(sweep_dir)
    text = exc if isinstance(exc, str) else short_error(exc)
    error = f"{fault.label}: {text}" if fault and not text.startswith(f"{fault.label}:") else text
    try:
        record.update_run(entry["name"], status="failed", finished=now_iso(), error=error)
    except OSError as write_error:
        if write_error.errno not in STORAGE_ERRNOS:
            raise
        fault = fault or StorageFaultKind(write_error.errno, write_error.filename)
        if write_error.errno == errno.ENOSPC:
            shutil.rmtree(sweep_dir / entry["name"], ignore_errors=True)
            with contextlib.suppress(OSError):
                record.update_run(entry["name"], status="failed", finished=now_iso(), error=error)
    return fault


def mark_done(record: SweepRecord, entry: dict) -> None:
    """The run's files are flushed to the disk before sweep.json says done: a disk that fails a
    moment later (ext4 remounted read-only drops what it had not written) must not leave a run
    recorded done whose files were never written."""
    sync_tree(record.directory / entry["name"])
    record.update_run(entry["name"], status="done", finished=now_iso())


def unit_instance_dir(sweep_dir: Path, unit: Unit | dict, scratch: Path | None) -> Path:
    """The directory of the unit's server (see the module comment)."""
    from pagelab.bundle import instance_name

    name = unit.name if isinstance(unit, Unit) else unit["name"]
    page = unit.page_size if isinstance(unit, Unit) else unit["page_size"]
    cell = unit.cell if isinstance(unit, Unit) else unit.get("cell")
    if scratch is None:
        return Path(sweep_dir) / "instances" / instance_name(page, cell)
    return Path(scratch) / f"{Path(sweep_dir).name}-{name}"


# sweep.json's error of a finished run that a Slurm resume queues again with its round, which
# reruns whole on one node (pagelab.sweep.slurm.submit); begin() then keeps the finished run's
# directory under SUPERSEDED, with the time it was set aside, instead of deleting it.
REDONE_ERROR = "redone: round {round} reruns whole on one node"
REDONE_PREFIX = REDONE_ERROR.split("{", 1)[0]
SUPERSEDED = "superseded"


def keep_superseded(run_dir: Path) -> Path:
    """Move a finished run's directory to BUNDLE/superseded/<run>-<UTC time>/ (a rename within the
    bundle: nothing is copied, nothing lost) and return where it went."""
    import time

    target = run_dir.parent / SUPERSEDED / f"{run_dir.name}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    target.parent.mkdir(exist_ok=True)
    run_dir.rename(target)
    return target


def begin(record: SweepRecord, entry: dict, scratch: Path | None = None, measure_noise: bool = False) -> Path:
    """An empty run directory for the unit, its host recorded, its entry marked running."""
    sweep_dir = record.path.parent
    run_dir = sweep_dir / entry["name"]
    try:
        wait_for_writers(sweep_dir, entry["name"])
    except LockBusy as busy:
        raise UsageError(f"{run_dir} is still being written by {busy.holder}, the kernel of an earlier attempt "
                         f"at {entry['name']} that has outlived its sweep; stop it (kill it) and run the same command again") from None
    if run_dir.exists() and str(entry.get("error") or "").startswith(REDONE_PREFIX):
        keep_superseded(run_dir)  # a finished run its round's rerun measures anew: kept, not lost
    elif run_dir.exists():  # an earlier attempt (interrupted or failed): its partial outputs would
        shutil.rmtree(run_dir)  # be taken for this one's (the monitor refuses a used directory)
    run_dir.mkdir()
    data_dir = unit_instance_dir(sweep_dir, entry, scratch).parent
    data_dir.mkdir(parents=True, exist_ok=True)
    host = host_record(data_dir, host_noise(sweep_dir, measure_noise, data_dir))
    profile = record.document["profile"]
    if disk_speed.wanted(profile):  # the first unit on this host measures, before its server starts
        disk_speed.host_disk_profile(sweep_dir, data_dir, profile["page_sizes"], host["hostname"])
    write_host_record(run_dir, host)
    record.update_run(entry["name"], status="running", started=now_iso(), finished=None, error=None,
                      notebook=f"{entry['name']}/run.ipynb", host=host["hostname"], slurm_job=slurm_task())
    set_phase(run_dir, "starting")
    return run_dir


def slurm_task() -> str | None:
    """'4711_7' (array job and task, as squeue and sacct name it) under Slurm, else None."""
    array_job, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    return f"{array_job}_{task}" if array_job and task else os.environ.get("SLURM_JOB_ID")


def execute(sweep_dir: Path, entry: dict, profile: dict, scratch: Path | None = None, between_cells=None) -> None:
    """The run notebook, executed by papermill into the run directory; raises what the run raised.
    `between_cells`: called before each cell (execute_notebook's)."""
    from pagelab.report.execute import execute_notebook

    parameters = run_parameters(profile, sweep_dir, entry["page_size_bytes"], entry["repeat"], entry.get("cell"),
                                entry.get("role", "verdict"))
    parameters["instance_dir"] = str(unit_instance_dir(sweep_dir, entry, scratch)) if scratch is not None else ""
    execute_notebook(RUN_NOTEBOOK, Path(sweep_dir) / entry["name"] / "run.ipynb", parameters=parameters,
                     cwd=PROJECT_ROOT, execution_timeout=CELL_TIMEOUT_S, between_cells=between_cells)


def stop_unit_server(sweep_dir: Path, entry: dict, scratch: Path | None = None) -> None:
    """Belt and braces: whatever happened in the kernel, the unit's server is not left running,
    and a unit's own copy of the datadir is not left behind."""
    from pagelab.mysql import Instance

    instance_dir = unit_instance_dir(sweep_dir, entry, scratch)
    if (instance_dir / "instance.json").exists():
        try:
            Instance(instance_dir).stop(timeout=60)
        except (PagelabError, OSError):  # an unreadable instance.json on a failing disk: nothing to stop by it
            pass
    if scratch is not None:
        shutil.rmtree(instance_dir, ignore_errors=True)


def check_room_for_unit(sweep_dir: Path, entry: dict, profile: dict, scratch: Path | None) -> None:
    """NotEnoughSpace before the unit starts if the disk its server will live on is too full."""
    from pagelab.sweep.footprint import check_room, run_needs
    from pagelab.sweep.profiles import profile_from_dict

    from pagelab.bundle import instance_name

    values = profile_from_dict(profile).for_cell(entry.get("cell") or {})
    needed = run_needs(Path(sweep_dir) / "instances" / instance_name(entry["page_size"], entry.get("cell")),
                       values.warehouses, values.redo_log)
    where = unit_instance_dir(sweep_dir, entry, scratch).parent
    existing = next(path for path in (where, *where.parents) if path.exists())  # made by the run, not here
    check_room(existing, needed, f"unit {entry['name']}")


def _load_for_task(sweep_dir: Path) -> tuple[Path, SweepRecord, "Plan", dict]:
    from pagelab.sweep.profiles import profile_from_dict

    sweep_dir = Path(sweep_dir).resolve()
    record = SweepRecord.load(sweep_dir)
    plan = read_plan(sweep_dir, record)
    profile = profile_from_dict(record.document["profile"]).to_dict()  # a damaged sweep.json fails here
    return sweep_dir, record, plan, profile


def check_round_on_this_node(record: SweepRecord, units: list[Unit], host: str) -> None:
    """UsageError if a unit of this round is done on another host: running the rest here would
    split the round (a block) over two nodes."""
    elsewhere = sorted({(entry["name"], entry.get("host")) for unit in units
                        for entry in [record.run(unit.name)]
                        if entry["status"] == "done" and entry.get("host") not in (None, host)})
    if elsewhere:
        done = ", ".join(f"{name} on {other}" for name, other in elsewhere)
        raise UsageError(f"round {block_of(units[0])} of {record.directory} has runs done on another node ({done}); "
                         f"running the rest on {host} would split the round, whose runs are compared as runs "
                         f"of one node. Rerun the round whole: pagelab sweep --resume {record.directory} "
                         "--executor slurm --scratch DIR")


def check_scratch_is_local(scratch: Path | None) -> None:
    """UsageError if the units' servers would live on a network filesystem, which would measure
    the network instead of the node's disk, or in memory (tmpfs), which would measure no disk."""
    from pagelab.machine.devices import block_device_for, network_filesystem

    if scratch is None:
        return
    device = block_device_for(scratch)
    if device.in_memory:
        raise UsageError(f"--scratch {scratch} is on {device.fstype} ({device.mount_point}) on {hostname()}: the "
                         "servers' data would live in memory and no disk I/O would be measured. Give a directory on "
                         "each node's local disk (for example --scratch /local/$USER)")
    fstype = network_filesystem(scratch)
    if fstype:
        raise UsageError(f"--scratch {scratch} is on {fstype}, a network filesystem, on {hostname()}: the servers "
                         "would measure the network, not the node's disk. Give a directory on each node's local "
                         "disk (for example --scratch /local/$USER or the node's /tmp if it is a disk)")


def run_one(sweep_dir: Path, index: int, scratch: Path | None = None) -> tuple[int, SweepRecord, str]:
    """`pagelab run-unit BUNDLE INDEX`: unit `index` of the bundle's plan, start to end. The exit code (0 if it
    is done, 1 if it failed, 143 if SIGTERM stopped it), the record as the unit left it (its entry
    says which, and why) and the unit's name."""
    sweep_dir, record, plan, profile = _load_for_task(sweep_dir)
    unit = plan.unit(index)
    entry = record.run(unit.name)
    if entry["status"] == "done":  # a result is never redone by accident (a requeued task, a typo)
        raise UsageError(f"unit {index} ({unit.name}) of {sweep_dir} is done; its results are in {sweep_dir / unit.name}")
    check_round_on_this_node(record, plan.block(block_of(unit)), hostname())
    scratch = Path(scratch).resolve() if scratch is not None else None
    check_scratch_is_local(scratch)
    return _run_unit_locked(sweep_dir, record, unit, profile, scratch, plan.measure_noise), record, unit.name


def run_block(sweep_dir: Path, round_number: int, scratch: Path | None = None) -> tuple[int, SweepRecord, list[str]]:
    """`pagelab run-unit BUNDLE --round K`, what each Slurm array task runs: round K's units on this
    node, one after another in the round's order. Units already done on this node are kept; a
    unit that fails does not stop the others, but a storage fault (StorageFault, said in words)
    ends the task, as every next unit would meet it. The exit code (0 if every unit is done, 1 if
    one failed, 143 if SIGTERM stopped the task), the record, and the round's unit names."""
    sweep_dir, record, plan, profile = _load_for_task(sweep_dir)
    units = plan.block(round_number)
    host = hostname()
    check_round_on_this_node(record, units, host)
    scratch = Path(scratch).resolve() if scratch is not None else None
    check_scratch_is_local(scratch)
    code, reached = 0, 0

    def stopped(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, stopped)  # between two units; each unit sets its own
    try:
        for reached, unit in enumerate(units):
            if record.run(unit.name)["status"] == "done":  # on this node: a requeued task keeps it
                continue
            result = _run_unit_locked(sweep_dir, record, unit, profile, scratch, plan.measure_noise)
            if result == EXIT_SIGTERM:
                raise KeyboardInterrupt("SIGTERM")
            code = max(code, result)
        reached = len(units)
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the bookkeeping below must not be cut short
        stopped_at = units[min(reached, len(units) - 1)].name
        for unit in units[reached:]:
            entry = record.run(unit.name)
            if entry["status"] == "done" or entry["status"] == "failed" and entry.get("error") == STOPPED_BY_SIGTERM:
                continue  # the unit SIGTERM stopped said so itself
            record.update_run(unit.name, status="failed", finished=now_iso(), host=host, slurm_job=slurm_task(),
                              error=f"not run: round {round_number}'s task on {host} was stopped by SIGTERM at "
                                    f"{stopped_at}; a resume reruns the round whole")
        return EXIT_SIGTERM, record, [unit.name for unit in units]
    finally:
        signal.signal(signal.SIGTERM, previous)
    return code, record, [unit.name for unit in units]


def _run_unit_locked(sweep_dir: Path, record: SweepRecord, unit: Unit, profile: dict, scratch: Path | None,
                     measure_noise: bool) -> int:
    entry = record.run(unit.name)
    try:
        with held_lock(sweep_dir / BUNDLE_LOCKS_DIR / f"unit-{unit.name}.lock", wait=False):
            return _run_locked(sweep_dir, record, entry, profile, scratch, measure_noise)
    except LockBusy as busy:
        raise UsageError(f"unit {unit.index} ({unit.name}) of {sweep_dir} is being run by {busy.holder}; "
                         "wait for it to end") from None


def _run_locked(sweep_dir: Path, record: SweepRecord, entry: dict, profile: dict, scratch: Path | None,
                measure_noise: bool) -> int:
    from pagelab.sweep.footprint import NotEnoughSpace

    finished = False

    def stopped(signum, frame):
        # Recorded at once: Slurm follows SIGTERM with SIGKILL after its KillWait (often 30 s),
        # which may come before the notebook's kernel has been shut down below.
        if not finished:
            record.update_run(entry["name"], status="failed", finished=now_iso(), error=STOPPED_BY_SIGTERM)
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, stopped)
    log_mark = server_log_mark(sweep_dir, entry, scratch)
    run_dir = sweep_dir / entry["name"]
    # As in a local sweep: a filesystem under the run or its server turned read-only is said within
    # seconds, with the run and its phase, rather than at the unit's next write (storage_stop).
    # With a scratch directory (a Slurm task's), the message names it when it is what failed, and
    # resumes on Slurm with it, not on the login node (storage_stop.storage_fault_stop).
    with ReadOnlyWatch(record, scratch=scratch) as watch:
        watch.follow(run_dir, unit_instance_dir(sweep_dir, entry, scratch), run=entry["name"])
        try:
            check_room_for_unit(sweep_dir, entry, profile, scratch)
            begin(record, entry, scratch, measure_noise)
            execute(sweep_dir, entry, profile, scratch)
        except NotEnoughSpace as short:  # nothing started: the unit says why, and a resume reruns it
            record_failure(record, entry, f"disk full: {short}")
            return 1
        except ReadOnlySeen:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            watch.disarm()
            phase = read_phase(run_dir)
            with suppress_storage_faults():  # a failing disk keeps it `running`, which is not done either
                record_failure(record, entry, f"the filesystem turned read-only during its {phase}", watch.fault)
            stop_unit_server(sweep_dir, entry, scratch)
            raise storage_fault_stop(record, watch.fault, entry["name"], phase, scratch=scratch) from None
        except KeyboardInterrupt:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the bookkeeping below must not be cut short
            if record.run(entry["name"])["status"] != "failed":  # Ctrl-C, which has no handler of ours
                record.update_run(entry["name"], status="failed", finished=now_iso(), error=STOPPED_BY_SIGTERM)
            stop_unit_server(sweep_dir, entry, scratch)
            return EXIT_SIGTERM
        except Exception as exc:  # papermill's execution error carries the cell's traceback
            with watch.paused():  # this failure says the fault, if it was one
                stop_unit_server(sweep_dir, entry, scratch)
                phase = read_phase(run_dir)  # where it struck: nothing after the fault rewrote it
                fault = record_failure(record, entry, exc, server_storage_fault(sweep_dir, entry, log_mark, scratch))
            if fault is not None:  # said in words; the round's next units would fail the same way
                raise storage_fault_stop(record, fault, entry["name"], phase, scratch=scratch) from exc
            return 1
        finally:
            finished = True
            signal.signal(signal.SIGTERM, previous)
        mark_done(record, entry)
        stop_unit_server(sweep_dir, entry, scratch)
    return 0
