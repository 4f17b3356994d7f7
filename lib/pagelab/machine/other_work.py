"""What else used this machine's CPUs while a run measured: the one record of load a bundle keeps.

A sweep run beside other work reads slower and noisier, and without a record its report could
only say it does not know. So each run reads the kernel's CPU accounting twice, when its
measurement starts and when it ends, and keeps the difference:

    /proc/stat, line "cpu"     user nice system idle iowait irq softirq steal guest guest_nice
                               (clock ticks summed over all CPUs since boot; guest time is
                               already inside user and nice, so it is not added again)
    /proc/<pid>/stat           fields after the ")" that ends the command name: 2 state, 3 ppid,
                               ..., 12 utime, 13 stime, 14 cutime, 15 cstime (ticks)

    busy        user + nice + system, over all CPUs
    interrupts  irq + softirq: the kernel serving devices, most of it the run's own disk and
                network traffic, which no process is charged with
    the run's   for every process of the run's own tree (this process and its descendants, the
                server and its descendants, this process's ancestors up to but not including
                pid 1): utime + stime, and for the tree's processes also cutime + cstime, which
                hold children that already exited. A child that ends between the two reads moves
                from its own line into its parent's cutime, so it is counted once either way.
                The ancestors' cutime is left out: it would hold earlier runs' kernels.
    kernel      the kernel's own threads (kthreadd, pid 2, and its children: writeback, the
                filesystem's journal, block-layer workers), each thread against itself (one
                that exits within the window is not counted), which work for whoever wrote
    other work  busy - the run's - the kernel's, in CPU-seconds, divided by the window: the mean
                number of cores other user processes kept busy (0.5 = half of one core all the
                time); the kernel's threads and the interrupts are kept apart, as `kernel_cores`,
                because a run's own I/O makes most of them
    steal       the steal column over the window: cores the hypervisor gave to someone else
                while this machine wanted them, which no process here can show

Linux only; elsewhere, or when /proc cannot be read, the record says why instead of giving a
number. A process that vanishes between listing /proc and reading its stat is skipped. Where a
run counts as loaded is the evidence's call (pagelab.evidence.runs.LOADED_CORES).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.processes import stat_fields

PROC = Path("/proc")


@dataclass(frozen=True)
class CpuReading:
    monotonic: float
    busy_ticks: int
    interrupt_ticks: int
    steal_ticks: int
    own_ticks: int
    # each kernel thread's utime + stime, by (pid, start time): a thread is only compared with itself
    kernel_threads: dict[tuple[int, int], int]


def _processes() -> dict[int, list[str]]:
    table = {}
    for entry in os.scandir(PROC):
        if entry.name.isdigit():
            fields = stat_fields(int(entry.name))
            if fields is not None:
                table[int(entry.name)] = fields
    return table


KERNEL_THREADS = 2  # kthreadd, the parent of every kernel thread


def _tree(table: dict[int, list[str]], roots: list[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, fields in table.items():
        children.setdefault(int(fields[1]), []).append(pid)
    tree, stack = set(), [pid for pid in roots if pid in table]
    while stack:
        pid = stack.pop()
        if pid not in tree:
            tree.add(pid)
            stack.extend(children.get(pid, ()))
    return tree


def _ticks(table: dict[int, list[str]], tree: set[int]) -> int:
    return sum(int(table[pid][11]) + int(table[pid][12]) + int(table[pid][13]) + int(table[pid][14]) for pid in tree)


def _thread_ticks(table: dict[int, list[str]], tree: set[int]) -> dict[tuple[int, int], int]:
    """utime + stime of each of `tree`'s processes, keyed by (pid, start time), so that a pid the
    kernel gave again to a new thread is not compared with the one before."""
    return {(pid, int(table[pid][19])): int(table[pid][11]) + int(table[pid][12]) for pid in tree}


def kernel_ticks_between(first: dict[tuple[int, int], int], last: dict[tuple[int, int], int]) -> int:
    """The kernel's threads' CPU over a window: each thread alive at its end, less what it had at the
    start (all of it for a thread started within the window). A thread that exited within the window
    takes its ticks with it: summed over the tree instead, a long-lived kworker's exit once read as
    -16.7 cores of kernel work in a test suite's half-second window, and so as that much more other
    work. Its part of the window is not counted; other work is then read high by at most that part, which a thread that
    lived for the window alone can have."""
    return sum(ticks - first.get(key, 0) for key, ticks in last.items())


def _own_ticks(table: dict[int, list[str]], roots: list[int]) -> int:
    tree = _tree(table, roots)
    ticks = _ticks(table, tree)
    ancestor = int(table[os.getpid()][1]) if os.getpid() in table else 1
    while ancestor > 1 and ancestor in table and ancestor not in tree:
        ticks += int(table[ancestor][11]) + int(table[ancestor][12])
        ancestor = int(table[ancestor][1])
    return ticks


def read_cpu(server_pid: int | None) -> CpuReading:
    """One reading; raises OSError where /proc has no CPU accounting."""
    with open(PROC / "stat") as handle:
        first = handle.readline().split()
    if first[:1] != ["cpu"] or len(first) < 9:
        raise OSError("/proc/stat has no 'cpu' line with a steal column")
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in first[1:9])
    roots = [os.getpid()] + ([server_pid] if server_pid else [])
    table = _processes()
    return CpuReading(time.monotonic(), user + nice + system, irq + softirq, steal, _own_ticks(table, roots),
                      _thread_ticks(table, _tree(table, [KERNEL_THREADS])))


class OtherWork:
    """`start()` when the measurement starts, `stop()` when it ends; `record()` for summary.json."""

    def __init__(self, server_pid: int | None):
        self.server_pid = server_pid
        self.first: CpuReading | None = None
        self.last: CpuReading | None = None
        self.problem: str | None = None
        self._timer: threading.Timer | None = None

    def _read(self) -> CpuReading | None:
        try:
            return read_cpu(self.server_pid)
        except (OSError, ValueError, IndexError) as exc:
            self.problem = f"no CPU accounting to read ({exc})"
            return None

    def start(self) -> None:
        self.first = self._read()

    def start_at(self, monotonic_instant: float) -> None:
        """start() at that time.monotonic() instant: now if it has passed, else from a timer (a
        driver with a fixed ramp-up says when its measurement will start before it does)."""
        delay = monotonic_instant - time.monotonic()
        if delay <= 0:
            self.start()
        else:
            self._timer = threading.Timer(delay, self.start)
            self._timer.daemon = True
            self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.first is not None and self.last is None:
            self.last = self._read()

    def record(self) -> dict:
        if self.first is None or self.last is None:
            return {"other_cores": None, "steal_cores": None, "window_s": None,
                    "unrecorded": self.problem or "the measurement did not start"}
        window = self.last.monotonic - self.first.monotonic
        tick = os.sysconf("SC_CLK_TCK")
        def seconds(field: str) -> float:
            return (getattr(self.last, field) - getattr(self.first, field)) / tick

        busy, own = seconds("busy_ticks"), seconds("own_ticks")
        kernel = kernel_ticks_between(self.first.kernel_threads, self.last.kernel_threads) / tick
        interrupts, steal = seconds("interrupt_ticks"), seconds("steal_ticks")
        if window <= 0:
            return {"other_cores": None, "steal_cores": None, "window_s": window, "unrecorded": "an empty window"}
        # Where the kernel charges interrupts to the process they interrupted (tick-based
        # accounting), the run's own CPU holds part of the interrupt column too, so it may exceed
        # busy: other work is then read low by at most that part, never high.
        return {"window_s": round(window, 3), "busy_cpu_s": round(busy, 2), "interrupt_cpu_s": round(interrupts, 2),
                "run_cpu_s": round(own, 2),
                # ticks are counted per CPU and rounded at each read, so a quiet machine can show a
                # few hundredths below zero: that is "none", not a negative load
                "other_cores": round(max(0.0, busy - own - kernel) / window, 3),
                "kernel_cores": round((kernel + interrupts) / window, 3),
                "steal_cores": round(steal / window, 3), "cpus": os.cpu_count()}
