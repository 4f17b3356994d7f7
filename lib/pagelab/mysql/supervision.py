"""How pagelab watches a server program it runs (an install script, a server starting or stopping):
tied to pagelab's own life, polled every POLL_INTERVAL_S, given up on when its disk is full or turned
read-only (DiskWatch), with the tail of its log in every error said about it."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import time
from pathlib import Path

from pagelab.common.disk import FULL_DISK_BYTES, says_disk_full
from pagelab.common.errors import ServerError
from pagelab.common.processes import die_with_parent
from pagelab.common.storage import read_only_now

ERROR_LOG_TAIL_LINES = 25
# How often readiness and shutdown are polled: short against a 1-3 s start, cheap on 2 cores.
POLL_INTERVAL_S = 0.1
# DiskWatch: 5 s under pagelab.common.disk.FULL_DISK_BYTES, rather than one look, so that a disk
# someone is freeing is not called full.
LOW_DISK_GRACE_S = 5.0


class DiskWatch:
    """A server that meets a full disk while it writes its system tables (Aria) does not fail: it
    waits for space, retrying every minute, for ever, and on a full disk it cannot even log why
    (its error log is there too). A harness has nobody to free the space, so while pagelab waits
    for a server to initialise or start, a disk with less than FULL_DISK_BYTES free for
    LOW_DISK_GRACE_S is a failure, said as one ("disk full", which the sweep recognises). So is a
    filesystem turned read-only (EROFS, which the sweep recognises too), at once: while a server
    starts, measures (the TPC-C driver asks too) or shuts down."""

    def __init__(self, directory: Path, what: str):
        self.directory, self.what = directory, what
        self.low_since: float | None = None

    def failure(self) -> str | None:
        """Why the server is stuck: its filesystem turned read-only (said at once: a server can
        neither start nor shut down cleanly on it, and nothing comes back by waiting), or the disk
        has been full for LOW_DISK_GRACE_S; else None."""
        if read_only_now(self.directory) is not None:
            return (f"the {self.what} server's filesystem turned read-only: [Errno {errno.EROFS}] "
                    f"{os.strerror(errno.EROFS)}: '{self.directory}'")
        try:
            free = shutil.disk_usage(self.directory).free
        except OSError:
            return None
        if free >= FULL_DISK_BYTES:
            self.low_since = None
            return None
        now = time.monotonic()
        self.low_since = self.low_since or now
        if now - self.low_since < LOW_DISK_GRACE_S:
            return None
        return (f"the {self.what} server is waiting for disk space: disk full ({free} bytes free on the disk of "
                f"{self.directory} for {LOW_DISK_GRACE_S:.0f} s)")

    def full_now(self, *outputs: str) -> str | None:
        """Why a server or install script that exited at once did, if a full disk: the disk is full
        now (a server that can't create a file it needs may leave an empty error log), or a line of
        what it printed (`outputs`) says so -- InnoDB deletes the files it could not finish, so on a
        disk too small for its redo log the space is back by the time anyone looks."""
        try:
            free = shutil.disk_usage(self.directory).free
        except OSError:
            free = None
        if free is not None and free < FULL_DISK_BYTES:
            return f"disk full ({free} bytes free on the disk of {self.directory})"
        said = [line.strip() for output in outputs for line in output.splitlines() if says_disk_full(line)]
        return f"disk full ({said[0]})" if said else None

    def check(self) -> None:
        why = self.failure()
        if why:
            raise ServerError(why)



def tie_to_owner() -> None:  # runs in the child between fork and exec
    # If the Python process dies without cleanup (SIGKILL, OOM), Linux sends the server SIGKILL:
    # no orphaned server holds memory, a port and the datadir. Not SIGTERM, the clean shutdown: one
    # that arrives while mysqld is still starting up can go unheeded (seen in the fault suite, at
    # init and at a run's start), and one on a full disk waits for space. Nothing is lost: a sweep
    # never uses the datadir of a server whose owner died without restoring it from the snapshot
    # (or loading anew), and any other datadir comes back through InnoDB's crash recovery.
    die_with_parent(signal.SIGKILL)


def tail_of(path: Path, lines: int = ERROR_LOG_TAIL_LINES) -> str:
    """The last lines of a log, or a note that there is none (never raises)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(kept) if kept else f"({path} is empty)"
