"""A snapshot's own record: what makes a copy of a datadir a whole snapshot, and how a later look
tells a whole one from one a failing disk damaged.

The record is the marker file, written last into the copy (Instance.snapshot, in pagelab.mysql.datadir):
the page size, when it was taken, every file's size, and a checksum of all that. Only a whole
snapshot has a marker; `snapshot_problem` checks one against its marker before it is restored,
and a sweep re-creates a snapshot that fails (pagelab.sweep.experiment.loaded_state).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pagelab.common.atomic import json_digest
from pagelab.common.storage import file_sizes, sync_tree

SNAPSHOT_PASSWORD_FILE = ".pagelab-root-password"
# Written last into a snapshot's copy (its page size, when taken, its files' sizes): only a whole snapshot has it.
SNAPSHOT_MARKER = ".pagelab-snapshot.json"


def write_snapshot_marker(directory: Path, page_size: int) -> None:
    """The snapshot's own record, written last into its copy: the page size, when, every file's
    size, and a checksum of all that, so that a later look can tell a whole snapshot from one a
    failing disk damaged (snapshot_problem). Flushed to the disk with the files it describes."""
    body = {"page_size": page_size, "taken": time.time(), "files": file_sizes(directory, frozenset({SNAPSHOT_MARKER, SNAPSHOT_PASSWORD_FILE}))}
    sync_tree(directory)  # the files are on the disk before the record that vouches for them
    # Written in place, not renamed into it: the snapshot directory itself is renamed into place once
    # whole, and a torn marker fails its checksum. (The fault suite holds this very write.)
    with open(directory / SNAPSHOT_MARKER, "w") as marker:
        marker.write(json.dumps({**body, "sha256": json_digest(body)}))
        marker.flush()
        os.fsync(marker.fileno())


def snapshot_problem(directory: str | os.PathLike) -> str | None:
    """Why a snapshot is not whole, checked against its own record (write_snapshot_marker): the
    marker is missing, unreadable or fails its checksum, a file it lists is missing or of another
    size, or root's password file is missing. None for a whole one (and for one taken before
    markers recorded sizes, which has only its page size to go by)."""
    directory = Path(directory)
    try:
        marker = json.loads((directory / SNAPSHOT_MARKER).read_text())
    except FileNotFoundError:
        return f"it has no {SNAPSHOT_MARKER}"
    except (OSError, ValueError) as error:
        return f"its {SNAPSHOT_MARKER} cannot be read ({error})"
    if not isinstance(marker, dict) or "page_size" not in marker:
        return f"its {SNAPSHOT_MARKER} is not a snapshot's record"
    if "files" not in marker:
        return None
    body = {key: value for key, value in marker.items() if key != "sha256"}
    if marker.get("sha256") != json_digest(body):
        return f"its {SNAPSHOT_MARKER} does not match its checksum"
    for name, size in marker["files"].items():
        try:
            found = (directory / name).stat().st_size
        except OSError:
            return f"{name} is missing"
        if found != size:
            return f"{name} is {found} bytes, and the snapshot recorded {size}"
    if not (directory / SNAPSHOT_PASSWORD_FILE).is_file():
        return f"its {SNAPSHOT_PASSWORD_FILE} is missing"
    return None
