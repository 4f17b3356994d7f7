"""When a disk counts as full: one threshold for the servers' watch and for the sweep's verdict on a failed run."""

from __future__ import annotations

import shutil
from pathlib import Path

from pagelab.common.units import MIB

# Below this much free, no server page (64 KiB at most) or log block can be written for long. A run
# that failed on a disk this full failed of it, whatever its error says: a server cannot log "disk
# full" on the disk that is full, and its install script then fails with a generic error.
FULL_DISK_BYTES = MIB


def disk_nearly_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path).free < FULL_DISK_BYTES
    except OSError:
        return False
