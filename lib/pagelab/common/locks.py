"""Locks that hold across machines: a sweep's units may run on many nodes at once, all writing one
bundle on a shared filesystem.

    with held_lock(path):             waits until no other process holds it
    with held_lock(path, wait=False): raises LockBusy at once if another process holds it

POSIX record locks (fcntl.lockf) rather than flock: NFS carries them to the server, so two nodes
see each other's lock; the kernel drops a lock with its process, so a crashed or killed holder
never leaves one behind. The lock file itself stays (removing it would race a waiter that has it
open); it holds the pid and host of the last holder, for the message a busy lock gives.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


# A bundle's lock files, in one folder out of the way of its runs and instances:
#   locks/instance-<page>.lock   the page size's instance and snapshot (pagelab.sweep.experiment)
#   locks/unit-<run>.lock        held by the process running that unit (pagelab.sweep.run_unit)
#   locks/noise-<host>.lock      while a host measures its noise (pagelab.machine.hosts)
#   locks/writer-<run>.lock      held by the kernel that writes the run's directory (writer_lock)
BUNDLE_LOCKS_DIR = "locks"
# How long a new attempt at a run waits for the kernel of an earlier one to exit. A kernel whose
# sweep was killed with -9 notices within a second (ipykernel's parent poller) and exits; one
# still alive after this is stuck, and the user is told its pid.
WRITER_EXIT_WAIT_S = 30.0


class LockBusy(Exception):
    """Another process holds the lock; `holder` is what it wrote ('pid 123 on node7')."""

    def __init__(self, path: Path, holder: str):
        super().__init__(f"{path} is held by {holder}")
        self.path, self.holder = path, holder


@contextmanager
def held_lock(path: str | os.PathLike, wait: bool = True, remove: bool = False) -> Iterator[None]:
    """`remove`: the file goes at the end, still locked (a lock that marks a directory in use, such
    as a sweep's bundle). A process that opened it just before and locks it just after finds it
    unlinked (another inode than the path's) and tries again on a new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):  # lockf reports a held lock as EAGAIN or EACCES
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise LockBusy(path, holder) from None
        if not remove or _same_file(fd, path):
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
        yield
    finally:
        if remove:
            try:
                path.unlink(missing_ok=True)
            except OSError:  # a filesystem turned read-only or failing: the file stays, harmless (see above)
                pass
        os.close(fd)  # releases the lock


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def holder_pid(holder: str) -> str:
    """'123' of a holder's 'pid 123 on node7'."""
    words = holder.split()
    return words[1] if len(words) > 1 and words[0] == "pid" else holder


def writer_lock(sweep_dir: str | os.PathLike, run: str) -> Path:
    """The lock of the process that writes BUNDLE/<run>/: the run's kernel holds it for its whole
    life, so that a new attempt at the run never shares the directory with an old one's kernel
    that has outlived its sweep (kill -9 of the sweep leaves the kernel working for up to a second)."""
    return Path(sweep_dir) / BUNDLE_LOCKS_DIR / f"writer-{run}.lock"


def wait_for_writers(sweep_dir: str | os.PathLike, run: str) -> None:
    """Return once no process holds the run's writer lock; LockBusy (naming the holder) if one
    still does after WRITER_EXIT_WAIT_S."""
    deadline = time.monotonic() + WRITER_EXIT_WAIT_S
    while True:
        try:
            with held_lock(writer_lock(sweep_dir, run), wait=False):
                return
        except LockBusy:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
