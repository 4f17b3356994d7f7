"""Questions about other processes that several parts of pagelab ask, and the one way to stop a
child: `stop_process` (SIGTERM, a grace period, then SIGKILL)."""

from __future__ import annotations

import ctypes
import multiprocessing.process
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
# /proc/PID/stat's state letters, in words (proc(5)).
PROCESS_STATES = {"R": "running", "S": "sleeping", "D": "waiting on the disk", "Z": "zombie", "T": "stopped",
                  "t": "stopped by a tracer", "X": "dead", "I": "idle"}


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, ..., utime at index 11),
    or None where it cannot be read."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # the name in () may hold spaces
    except (OSError, IndexError):
        return None


def process_state(pid: int) -> str | None:
    """The state letter of /proc/PID/stat ("T": stopped), or None where it cannot be read."""
    fields = stat_fields(pid)
    return fields[0] if fields else None


def process_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, exited but not yet reaped by its parent, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    state = process_state(pid)
    return state != "Z"  # None: no /proc to ask, and the signal test said it exists


def process_ids() -> list[int]:
    """Every process id /proc lists (empty where there is no /proc)."""
    try:
        return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def kill_until_gone(find: Callable[[], Iterable[int]], timeout_s: float, poll_s: float = 0.02) -> None:
    """SIGKILL every live process `find()` names (never this one), and any it names later, until it
    names none alive or `timeout_s` has passed. A SIGKILL takes effect when the process next runs,
    so a caller that must not return before they are gone waits here."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [pid for pid in find() if pid != os.getpid() and process_alive(pid)]
        if not alive or time.monotonic() >= deadline:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(poll_s)


def stop_process(process: subprocess.Popen | multiprocessing.process.BaseProcess, grace_s: float,
                 drain: bool = False) -> int | None:
    """Ask a child to exit (SIGTERM), give it `grace_s`, then SIGKILL it; reap it either way and
    return its exit status. A child that has already exited is only reaped. `drain`: read its
    pipes to the end while waiting (Popen.communicate), for a child that may block on a full pipe."""
    if isinstance(process, multiprocessing.process.BaseProcess):
        if process.is_alive():
            process.terminate()
            process.join(grace_s)
            if process.is_alive():
                process.kill()
        process.join()
        return process.exitcode
    wait = (lambda timeout=None: process.communicate(timeout=timeout)) if drain else process.wait
    if process.poll() is None:
        process.terminate()
    try:
        wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        wait()
    return process.returncode


def die_with_parent(signum: int) -> None:
    """Have Linux send this process `signum` when the thread that started it ends (PR_SET_PDEATHSIG),
    so a child never outlives a parent that died without cleaning up (SIGKILL, the OOM killer).
    Called in the child: as a Popen preexec_fn (between fork and exec) or a worker's initializer.
    Not Linux: nothing happens, and the parent's own cleanup is all there is."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum)
    except Exception:  # noqa: BLE001 - no prctl here
        pass
