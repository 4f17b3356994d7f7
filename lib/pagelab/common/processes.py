"""Questions about other processes that several parts of pagelab ask."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
# /proc/PID/stat's state letters, in words (proc(5)).
PROCESS_STATES = {"R": "running", "S": "sleeping", "D": "waiting on the disk", "Z": "zombie", "T": "stopped",
                  "t": "stopped by a tracer", "X": "dead", "I": "idle"}


def process_state(pid: int) -> str | None:
    """The state letter of /proc/PID/stat ("T": stopped), or None where it cannot be read."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]  # the name in () may hold spaces
    except (OSError, IndexError):
        return None


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


def die_with_parent(signum: int) -> None:
    """Have Linux send this process `signum` when the thread that started it ends (PR_SET_PDEATHSIG),
    so a child never outlives a parent that died without cleaning up (SIGKILL, the OOM killer).
    Called in the child: as a Popen preexec_fn (between fork and exec) or a worker's initializer.
    Not Linux: nothing happens, and the parent's own cleanup is all there is."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum)
    except Exception:  # noqa: BLE001 - no prctl here
        pass
