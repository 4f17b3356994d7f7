"""Questions about other processes that several parts of pagelab ask."""

from __future__ import annotations

import os
from pathlib import Path


def process_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, exited but not yet reaped by its parent, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc to ask: the signal test said it exists
    return state != "Z"
