"""Where a run's server and its driver run on the machine's CPUs: the `cpu_placement` knob.

- shared: every process may run on every CPU this process may use; the kernel's scheduler moves
  the server's and the driver's threads between them as it likes (what every sweep did before).
- split: every thread of the server on one CPU (the last this process may use), and every thread
  of the driver's process (the run's notebook kernel, which runs the TPC-C terminals and the
  monitors) on the others. On a 2-core machine the server and the driver then no longer take each
  other's CPU in turns, and a run's throughput no longer depends on how the scheduler happened to
  place them that minute. Split needs at least 2 CPUs; on one it is refused (`split_problem`).

The affinity is set with `os.sched_setaffinity` on every thread (/proc/PID/task/*) the process
has when the run starts; a thread created later inherits its creator's. It is read back from
/proc/PID/status (Cpus_allowed_list) into the run's summary, and set back as it was when the
run ends, so that neither the server (a test's, which may serve other runs) nor the kernel keeps
the run's placement.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from pagelab.common.errors import UsageError

SHARED, SPLIT = "shared", "split"
PLACEMENTS = (SHARED, SPLIT)


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity, which a batch system or taskset may narrow)."""
    return sorted(os.sched_getaffinity(0))


def cpu_list_text(cpus: list[int] | set[int]) -> str:
    """A CPU set as /proc writes it: ranges joined by commas, '0-1', '0,2-3'."""
    ordered, parts = sorted(cpus), []
    start = previous = None
    for cpu in ordered + [None]:
        if start is not None and cpu == previous + 1:
            previous = cpu
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = cpu
    return ",".join(parts)


def split_problem(cpus: list[int] | None = None) -> str | None:
    """Why `split` cannot run here (one CPU to share), or None."""
    cpus = usable_cpus() if cpus is None else cpus
    if len(cpus) >= 2:
        return None
    return (f"split puts the server and the driver on CPUs of their own, and this process may use only "
            f"{len(cpus)} CPU ({cpu_list_text(cpus)}); allowed here: shared (or run on a machine, or under a "
            "taskset, with 2 CPUs or more)")


def cpus_allowed(pid: int) -> str:
    """Cpus_allowed_list of a process (its main thread) as the kernel reports it in /proc/PID/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    raise OSError(f"/proc/{pid}/status has no Cpus_allowed_list")


def _threads(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except FileNotFoundError:
        return []


def _set_threads(pid: int, cpus: set[int]) -> dict[int, set[int]]:
    """Every thread of `pid` on `cpus`; returns what each had before. A thread that ended
    meanwhile is passed over."""
    before = {}
    for thread in _threads(pid):
        with contextlib.suppress(ProcessLookupError):
            before[thread] = os.sched_getaffinity(thread)
            os.sched_setaffinity(thread, cpus)
    return before


def _restore_threads(before: dict[int, set[int]]) -> None:
    for thread, cpus in before.items():
        with contextlib.suppress(ProcessLookupError, OSError):
            os.sched_setaffinity(thread, cpus)


@contextlib.contextmanager
def placed(server_pid: int, placement: str) -> Iterator[dict]:
    """The server (`server_pid`) and this process placed as `placement` says for the block's
    duration; yields the record the run's summary keeps: the placement and each side's CPUs as
    /proc reports them."""
    if placement not in PLACEMENTS:
        raise UsageError(f"cpu_placement: {placement} is not allowed; allowed: {' '.join(PLACEMENTS)}")
    cpus = usable_cpus()
    server_before: dict[int, set[int]] = {}
    driver_before: dict[int, set[int]] = {}
    if placement == SPLIT:
        problem = split_problem(cpus)
        if problem:
            raise UsageError(f"cpu_placement: {problem}")
        server_before = _set_threads(server_pid, {cpus[-1]})
        driver_before = _set_threads(os.getpid(), set(cpus[:-1]))
    try:
        yield {"placement": placement, "server_cpus": cpus_allowed(server_pid),
               "driver_cpus": cpus_allowed(os.getpid())}
    finally:
        _restore_threads(driver_before)
        _restore_threads(server_before)
