"""When the storage under pagelab fails: which fault it was, whether a directory can be written at
all, and where a traceback goes when the terminal gets a message instead.

Three faults are storage faults, whatever layer meets them (Python, the papermill kernel, the
server, `cp`): the filesystem turned read-only (EROFS; ext4 mounted errors=remount-ro does it after
an I/O error), an I/O error (EIO: a dying disk, a network filesystem gone), and no space left
(ENOSPC). `storage_fault_in` finds one in an exception, along its chain of causes, or in the text a
kernel or a server printed (papermill carries the kernel's exception as text).

    fault = storage_fault_in(error)        # StorageFaultKind or None
    problem = unwritable(directory)        # why nothing can be written there, or None (by writing)
    problem = read_only_now(directory)     # whether its filesystem has turned read-only (no write)
    path = save_traceback(error, bundle)   # the bundle if it can be written, else the cache dir
    sync_tree(run_dir)                     # on the disk before it is recorded as finished
"""

from __future__ import annotations

import errno
import os
import re
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.disk import says_disk_full


@dataclass(frozen=True)
class StorageFaultKind:
    """One storage fault: its errno, how a user is told of it, what to do, and the path it struck
    (None where the error did not name one)."""

    code: int
    path: str | None = None

    @property
    def symbol(self) -> str:
        return errno.errorcode[self.code]

    @property
    def what(self) -> str:
        return FAULT_WORDS[self.code][0]

    @property
    def repair(self) -> str:
        return FAULT_WORDS[self.code][1]

    @property
    def label(self) -> str:
        """How a failed run's error in sweep.json begins ("disk full", which the sweep's checks read)."""
        return FAULT_WORDS[self.code][2]


# errno -> (what happened, in words; what the user does before resuming; a failed run's label)
FAULT_WORDS = {
    errno.EROFS: ("the filesystem turned read-only",
                  "repair the filesystem (check it, e.g. with e2fsck, and mount it read-write again)",
                  "read-only filesystem"),
    errno.EIO: ("an I/O error: the disk or the network filesystem failed a read or a write",
                "look at the disk (dmesg, smartctl) or the file server, repair it or move the bundle to "
                "a sound disk", "I/O error"),
    errno.ENOSPC: ("the disk is full", "free some space", "disk full"),
}
STORAGE_ERRNOS = tuple(FAULT_WORDS)

# What a program prints for each fault, lower-cased (the disk-full texts live in common.disk):
# Python's and the C library's strerror and errno, MariaDB's "Operating system error number N" and
# "Errcode: N", the shell tools' strerror.
# (InnoDB's "operating system error 5" and "Operating system error number 5").
_TEXTS = {
    errno.EROFS: re.compile(r"read-only file ?system|\berrno:? 30\b|\[errno 30\]|system error (number )?30\b|"
                            r"errcode: 30\b|\berofs\b"),
    errno.EIO: re.compile(r"input/output error|\[errno 5\]|\berrno:? 5\b|system error (number )?5\b|errcode: 5\b|"
                          r"\beio\b|\bf(?:data)?sync\(\) returned 5\b"),  # InnoDB's fatal flush: "fdatasync() returned 5"
}
_QUOTED_PATH = re.compile(r"""['"](/[^'"\n]+)['"]""")


def _chain(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def _texts(error: BaseException) -> list[str]:
    """What an exception says: its message, and papermill's cell error name, value and traceback."""
    parts = [str(error), str(getattr(error, "ename", "") or ""), str(getattr(error, "evalue", "") or "")]
    parts += [str(line) for line in getattr(error, "traceback", None) or [] if isinstance(line, str)]
    return [part for part in parts if part]


def storage_fault_in(error: BaseException | str) -> StorageFaultKind | None:
    """The storage fault `error` is, or was caused by (its chain, then what it says), or None."""
    if isinstance(error, str):
        return _fault_in_text(error)
    for link in _chain(error):
        if isinstance(link, OSError) and link.errno in STORAGE_ERRNOS:
            return StorageFaultKind(link.errno, str(link.filename) if link.filename else None)
    return _fault_in_text("\n".join(text for link in _chain(error) for text in _texts(link)))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the colours of a kernel's traceback, as papermill carries it


def _fault_in_text(text: str) -> StorageFaultKind | None:
    """The first storage fault `text` names, with the path of the first line that names one with a
    path (a chained traceback says the bare error first, then the one that names its file)."""
    text = _ANSI.sub("", text)
    lowered = text.lower()
    for code, pattern in _TEXTS.items():
        matches = list(pattern.finditer(lowered))
        for match in matches:
            line_end = text.find("\n", match.start())
            path = _QUOTED_PATH.search(text[match.start():line_end if line_end >= 0 else len(text)])
            if path:
                return StorageFaultKind(code, path.group(1))
        if matches:
            return StorageFaultKind(code, None)
    if says_disk_full(text):
        return StorageFaultKind(errno.ENOSPC, None)
    return None


@contextmanager
def naming(path: str | os.PathLike) -> Iterator[None]:
    """An OSError from a write into an open file names no file ("[Errno 5] Input/output error");
    raised inside this block, it names `path`, so that the message of a storage fault can."""
    try:
        yield
    except OSError as error:
        if error.filename is None and error.errno is not None:
            raise type(error)(error.errno, error.strerror, str(path)) from error
        raise


def file_sizes(directory: str | os.PathLike, skip: frozenset[str] = frozenset()) -> dict[str, int]:
    """Every regular file under `directory` (its path relative to it, but those in `skip`), with its
    size: what a snapshot's marker and a kept load's record vouch for."""
    directory = Path(directory)
    return {path.relative_to(directory).as_posix(): path.stat().st_size for path in sorted(directory.rglob("*"))
            if path.is_file() and not path.is_symlink() and path.relative_to(directory).as_posix() not in skip}


def sync_tree(directory: str | os.PathLike) -> None:
    """Every file under `directory`, and the directories themselves, flushed to the disk (fsync):
    what is recorded as finished afterwards is on the disk, not only in the page cache."""
    for root, _, files in os.walk(directory):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


PROBE_PREFIX = ".pagelab-write-probe"


def unwritable(directory: str | os.PathLike) -> StorageFaultKind | None:
    """Why nothing can be written in `directory` (which must exist), found by writing: a small file
    created, written, flushed to the disk and removed. Permission bits and the mount's own flags
    do not tell: ext4 turned read-only after an error still lists itself `rw` (emergency_ro)."""
    probe = Path(directory) / f"{PROBE_PREFIX}-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"pagelab\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            probe.unlink(missing_ok=True)
    except OSError as error:
        if error.errno in STORAGE_ERRNOS:
            return StorageFaultKind(error.errno, str(probe))
        raise
    return None


# The superblock options that say a filesystem takes no more writes, as /proc/self/mountinfo lists
# them: "ro", and ext4's "emergency_ro": after an error under errors=remount-ro, recent kernels (6.18
# here) set ext4's own flag rather than the superblock's read-only one, so statvfs still says
# writable and the mount still lists "rw" among its options.
READ_ONLY_OPTIONS = frozenset({"ro", "emergency_ro"})
MOUNTINFO = Path("/proc/self/mountinfo")


def read_only_now(directory: str | os.PathLike) -> StorageFaultKind | None:
    """EROFS if the filesystem holding `directory` has turned read-only, found without writing (a
    probe file every few seconds would add a journal commit to the disk being measured): statvfs's
    ST_RDONLY, which a remount read-only sets, and the mount's superblock options in the kernel's
    mount table, where ext4 says its emergency read-only. None when it still takes writes, or
    when this cannot be told (no such directory, no mount table)."""
    try:
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            return StorageFaultKind(errno.EROFS, str(directory))
        device = os.stat(directory).st_dev
        table = MOUNTINFO.read_text()
    except OSError:
        return None
    wanted = f"{os.major(device)}:{os.minor(device)}"
    for line in table.splitlines():
        # ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
        fields = line.split()
        if len(fields) > 2 and fields[2] == wanted and " - " in line:
            super_options = line.rsplit(" - ", 1)[1].split()[-1].split(",")
            if READ_ONLY_OPTIONS.intersection(super_options):
                return StorageFaultKind(errno.EROFS, str(directory))
    return None


def traceback_directory() -> Path:
    """The user's cache directory for pagelab (XDG_CACHE_HOME, else ~/.cache), where a traceback
    goes when the bundle cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pagelab"


def save_traceback(error: BaseException, bundle: str | os.PathLike | None = None) -> Path | None:
    """Write `error`'s traceback (its whole chain) to a file: in `bundle` when it can be written,
    else in traceback_directory(). The file's path, or None if neither could take it."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    name = f"pagelab-error-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    places = ([Path(bundle)] if bundle is not None else []) + [traceback_directory()]
    for place in places:
        try:
            place.mkdir(parents=True, exist_ok=True)
            path = place / name
            with open(path, "w") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            return path
        except OSError:
            continue
    return None
