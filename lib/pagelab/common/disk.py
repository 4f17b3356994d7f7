"""The disk under a sweep: when it counts as full (one threshold for the servers' watch and for the
sweep's verdict on a failed run), and its pending writes flushed before a run starts."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from pagelab.common.units import MIB

# Below this much free, no server page (64 KiB at most) or log block can be written for long. A run
# that failed on a disk this full failed of it, whatever its error says: a server cannot log "disk
# full" on the disk that is full, and its install script then fails with a generic error.
FULL_DISK_BYTES = MIB


# What a program prints when the disk filled under it, lower-cased: the OS's words, MariaDB's error
# codes (InnoDB: "preallocating ... failed with error 28"; Aria: "The table '...' is full").
DISK_FULL_TEXTS = ("no space left on device", "errno 28", "errcode: 28", "error number 28", "with error 28",
                   "disk full", "enospc")
DISK_FULL_PATTERN = re.compile(r"the table '[^']*' is full|the table is full")


def says_disk_full(text: str) -> bool:
    """Whether `text` (an error, a log line) says the disk is full."""
    text = text.lower()
    return any(phrase in text for phrase in DISK_FULL_TEXTS) or DISK_FULL_PATTERN.search(text) is not None


def disk_nearly_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path).free < FULL_DISK_BYTES
    except OSError:
        return False


def flush_pending_writes() -> dict:
    """Write the kernel's dirty pages out now (sync), and say how much there was.

    A run starts right after a copy of its snapshot, and the first run of a page size right after
    the load as well: hundreds of MB the kernel would otherwise write back during the measurement,
    on the disk the server reads from. Flushed before the server starts, every run begins with the
    disk idle, whatever came before it."""
    dirty_before = _meminfo_bytes("Dirty") + _meminfo_bytes("Writeback")
    started = time.monotonic()
    os.sync()
    return {"dirty_bytes_before": dirty_before, "sync_s": round(time.monotonic() - started, 3)}


def _meminfo_bytes(field: str) -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == field:
                return int(value.split()[0]) * 1024  # /proc/meminfo counts in kB (KiB)
    except (OSError, ValueError, IndexError):
        pass
    return 0
