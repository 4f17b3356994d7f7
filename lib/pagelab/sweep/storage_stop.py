"""What a sweep says and keeps when the storage under its bundle fails (pagelab.common.storage):
one message naming the fault, the path, the run and phase it struck, what was kept and what to do;
bookkeeping on the way out that a failing disk may refuse; the refusal, before anything is made,
of a bundle on a disk that can take no write; and the watch that, while a sweep runs, stops it
within seconds of its filesystem turning read-only (ReadOnlyWatch), rather than at its next write.

Nothing half-written is believed afterwards: a run whose end could not be recorded stays `running`
in sweep.json, which a resume takes for not done (SweepRecord.pending) and runs again from an empty
directory; a snapshot is checked against its own record before every restore
(pagelab.mysql.snapshot_record.snapshot_problem) and re-created when it is not whole.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pagelab.bundle import SweepRecord, read_phase
from pagelab.common.errors import StorageFault, UsageError
from pagelab.common.storage import STORAGE_ERRNOS, StorageFaultKind, read_only_now, storage_fault_in, unwritable
from pagelab.common.units import size_text


@contextmanager
def suppress_storage_faults() -> Iterator[None]:
    """Bookkeeping on the way out that a failing disk may refuse: what it could not write is what
    a resume takes for not done, and the fault that stopped the sweep is what is said."""
    try:
        yield
    except OSError as error:
        if error.errno not in STORAGE_ERRNOS:
            raise


# How a run's .phase reads, in the words of a message (pagelab.sweep.experiment's set_phase).
PHASE_WORDS = {"starting": "start", "ramp-up + measure": "ramp-up", "done": "recording", "record": "recording"}


def phase_words(phase: str | None) -> str:
    if not phase:
        return "start"
    if phase.startswith("measure "):
        return f"measurement ({phase})"
    return PHASE_WORDS.get(phase, phase)


def storage_fault_stop(record: SweepRecord, fault: StorageFaultKind, run: str | None, phase: str | None,
                       stage: str | None = None, under: Path | None = None,
                       scratch: Path | None = None) -> StorageFault:
    """The one message of a storage fault that stopped the sweep: the fault, the path, the run and
    phase (or the sweep's `stage`: the report, the tidy-up), what was kept, and what to do next.
    A path the error gave relative to a directory it did not name (shutil.rmtree's) is said under
    `under`, the directory the stage was working in.

    `scratch`: the --scratch directory of a unit run as a Slurm task runs it (`pagelab run-unit
    --scratch DIR`, which only the Slurm executor gives). The resume then goes back to Slurm, since a
    bare `--resume` would run the rest on the login node; and a fault on the scratch disk is said
    as the node's, with the node to leave out."""
    sweep_dir = record.directory
    done = sum(entry["status"] == "done" for entry in record.runs)
    where = f"during {run}'s {phase_words(phase)}" if run else f"during the {stage or 'sweep'}"
    if fault.path and not Path(fault.path).is_absolute():
        at = f" at {under or sweep_dir} ({fault.path})"
    else:
        at = f" at {fault.path}" if fault.path else ""
    redo = (f"; {run} was not recorded as done and will be run again from its page size's snapshot (re-created "
            "first if it is not whole)") if run else ""
    resume = f"pagelab sweep --resume {sweep_dir}"
    place, repair, then = f"under {sweep_dir}", fault.repair, ""
    if scratch is not None:
        resume += f" --executor slurm --scratch {scratch}"
        then = ", repeating your --slurm-args (a resume does not take them over)"
        if _on_scratch(fault, scratch, under):
            from pagelab.machine.hosts import hostname

            node = hostname()
            place = f"on {node}'s scratch disk, under {scratch}"
            repair = f"{fault.repair} on {node} (or have the node drained)"
            then = (f", repeating your --slurm-args with --exclude={node} added while that disk is not repaired "
                    "(runbooks/slurm.md, \"A node's scratch disk fails mid-run\")")
    return StorageFault(
        f"storage fault: {fault.what} ({fault.symbol}) {place}{at}, {where}. Kept: the {done} of "
        f"{len(record.runs)} runs done before it, as they were{redo}. Next: {repair}, then continue with: "
        f"{resume}{then}", bundle=sweep_dir)


def _on_scratch(fault: StorageFaultKind, scratch: Path, under: Path | None) -> bool:
    """Whether the path the fault struck is in the scratch directory (not in the bundle). Compared
    as written first: resolving asks the failing disk."""
    if not fault.path or not (Path(fault.path).is_absolute() or under):
        return False
    path = Path(under or "") / fault.path
    if Path(os.path.normpath(path)).is_relative_to(os.path.normpath(scratch)):
        return True
    try:
        return path.resolve().is_relative_to(Path(scratch).resolve())
    except OSError:
        return False


def stop_if_storage_fault(record: SweepRecord, exc: Exception, stage: str, under: Path | None = None) -> None:
    fault = storage_fault_in(exc)
    if fault is not None:
        raise storage_fault_stop(record, fault, None, None, stage, under) from exc


def refuse_unwritable(directory: Path, what: str) -> None:
    """UsageError before anything is made if `directory` can take no write (read-only, failing) or
    its disk is full: the sweep would otherwise fail at its first write, or half-way through a run."""
    from pagelab.common.disk import FULL_DISK_BYTES, disk_nearly_full

    fault = unwritable(directory)
    if fault is None and disk_nearly_full(directory):
        fault = StorageFaultKind(errno.ENOSPC, str(directory))
    if fault is not None:
        raise UsageError(f"{what} {directory}: {fault.what} ({fault.symbol}"
                         + (f", less than {size_text(FULL_DISK_BYTES)} free" if fault.code == errno.ENOSPC else "")
                         + f"); nothing was started. {fault.repair[0].upper()}{fault.repair[1:]}, "
                         "then run the same command again")


# How often a running sweep looks whether the filesystem under it has turned read-only. A phase can
# go a long time without writing into the bundle (a load generates its TPC-C data into the cache for
# a minute and more; a measurement's server may write into pages it already has), and a fault would
# otherwise be said only at the next write: a look every 2 s says it within seconds, in any phase.
WATCH_INTERVAL_S = 2.0
# The signal the watch stops the sweep's main thread with. Not SIGINT: the sweep's handler of it
# records a stop asked for by the user (pagelab.sweep.stop_signals), which this is not.
WATCH_SIGNAL = signal.SIGUSR1


class ReadOnlySeen(KeyboardInterrupt):
    """Raised in the sweep's main thread by ReadOnlyWatch. A KeyboardInterrupt, so that it stops
    whatever the sweep waits on (papermill's kernel, a copy, Chromium) by the way Ctrl-C does, which
    every layer already cleans up after; the sweep's handlers tell it apart and say the storage fault."""


class ReadOnlyWatch:
    """While a sweep runs, a thread that looks every WATCH_INTERVAL_S whether the filesystem of what
    the sweep works on (`follow`: the run's directory and its server's datadir, the report) has
    turned read-only, without writing (pagelab.common.storage.read_only_now: a probe file every 2 s
    would add a journal commit to the disk being measured). When it has, it records the fault and
    stops the main thread once (ReadOnlySeen); `stop(...)` then gives the storage fault's message.

        with ReadOnlyWatch(record) as watch:
            watch.follow(run_dir, datadir, run=name)
            ...               # except ReadOnlySeen: tidy up, then raise watch.stop(); unsaid, __exit__ says it
    """

    def __init__(self, record: SweepRecord, interval: float = WATCH_INTERVAL_S, scratch: Path | None = None):
        self.record, self.interval, self.scratch = record, interval, scratch
        self.fault: StorageFaultKind | None = None
        self._paths: tuple[Path, ...] = ()
        self._run: str | None = None
        self._stage: str | None = None
        self._armed = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="read-only watch", daemon=True)
        self._previous = None

    def follow(self, *paths: Path, run: str | None = None, stage: str | None = None) -> None:
        """Watch the filesystems of `paths` from now on, for `run` (its phase is read when the fault
        is said) or the sweep's `stage`; the first path is named as the place struck."""
        self._paths = tuple(Path(path) for path in paths)
        self._run, self._stage = run, stage

    def __enter__(self) -> "ReadOnlyWatch":
        if threading.current_thread() is threading.main_thread():  # a signal handler needs the main thread
            self._previous = signal.signal(WATCH_SIGNAL, self._stop_main_thread)
            self._armed = True
            self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._done.wait(self.interval):
            for path in self._paths:
                existing = next((p for p in (path, *path.parents) if p.exists()), None)
                if existing is None or read_only_now(existing) is None:
                    continue
                with self._lock:
                    if self._armed:
                        self.fault = StorageFaultKind(errno.EROFS, str(path))
                        self._armed = False
                        signal.pthread_kill(threading.main_thread().ident, WATCH_SIGNAL)
                        return

    def _stop_main_thread(self, signum, frame) -> None:
        if self.fault is not None:  # set before the signal is sent; another sender's SIGUSR1 is ignored
            raise ReadOnlySeen(f"the filesystem of {self.fault.path} turned read-only")

    def disarm(self) -> None:
        """No stop from now on: the main thread is already saying a fault, or has finished."""
        with self._lock:
            self._armed = False

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No stop while the block runs (the main thread is handling a run's failure, and says the
        fault if it was one); armed again after it, unless it raised."""
        with self._lock:
            armed, self._armed = self._armed, False
        yield
        with self._lock:
            self._armed = armed and self.fault is None

    def stop(self) -> StorageFault:
        """The storage fault's message for what the watch saw, naming the run and its phase (or the
        stage) it was following."""
        phase = read_phase(self.record.directory / self._run) if self._run else None
        return storage_fault_stop(self.record, self.fault, self._run, phase, self._stage, scratch=self.scratch)

    def __exit__(self, kind, error, traceback) -> bool:
        try:
            self.disarm()  # a stop sent a moment before lands here at the latest
            if isinstance(error, ReadOnlySeen):  # not said on its way out: it is said here
                raise self.stop() from None
        except ReadOnlySeen:
            if error is None or isinstance(error, ReadOnlySeen):
                raise self.stop() from None
            # else what is propagating is an earlier fault, said by its own message: it goes on
        finally:
            self._done.set()
            if self._previous is not None:
                signal.signal(WATCH_SIGNAL, self._previous)
        return False
