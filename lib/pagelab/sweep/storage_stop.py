"""What a sweep says and keeps when the storage under its bundle fails (pagelab.common.storage):
one message naming the fault, the path, the run and phase it struck, what was kept and what to do;
bookkeeping on the way out that a failing disk may refuse; and the refusal, before anything is
made, of a bundle on a disk that can take no write.

Nothing half-written is believed afterwards: a run whose end could not be recorded stays `running`
in sweep.json, which a resume takes for not done (SweepRecord.pending) and runs again from an empty
directory; a snapshot is checked against its own record before every restore
(pagelab.mysql.instance.snapshot_problem) and re-created when it is not whole.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pagelab.bundle import SweepRecord
from pagelab.common.errors import StorageFault, UsageError
from pagelab.common.storage import STORAGE_ERRNOS, StorageFaultKind, storage_fault_in, unwritable
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
                       stage: str | None = None) -> StorageFault:
    """The one message of a storage fault that stopped the sweep: the fault, the path, the run and
    phase (or the sweep's `stage`: the report, the tidy-up), what was kept, and what to do next."""
    sweep_dir = record.directory
    done = sum(entry["status"] == "done" for entry in record.runs)
    where = f"during {run}'s {phase_words(phase)}" if run else f"during the {stage or 'sweep'}"
    at = f" at {fault.path}" if fault.path else ""
    redo = (f"; {run} was not recorded as done and will be run again from its page size's snapshot (re-created "
            "first if it is not whole)") if run else ""
    return StorageFault(
        f"storage fault: {fault.what} ({fault.symbol}) under {sweep_dir}{at}, {where}. Kept: the {done} of "
        f"{len(record.runs)} runs done before it, as they were{redo}. Next: {fault.repair}, then continue with: "
        f"pagelab sweep --resume {sweep_dir}", bundle=sweep_dir)


def stop_if_storage_fault(record: SweepRecord, exc: Exception, stage: str) -> None:
    fault = storage_fault_in(exc)
    if fault is not None:
        raise storage_fault_stop(record, fault, None, None, stage) from exc


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
