"""A page size's completed load, kept when the copy into its snapshot did not finish.

A page size's first run loads TPC-C into its instance's datadir, shuts the server down cleanly and
copies the datadir into the page size's snapshot (pagelab.sweep.experiment). The load is most of
that time (tens of seconds for one warehouse on the 2-core VM, more at the course's seven), the
copy a second or two. So once a load has returned verified (pagelab's loader checks its row counts
and TPC-C's consistency conditions; tpcc-mysql's tpcc_load, which nothing verifies, gets no record
and is loaded again) and its server has shut down cleanly, the instance gets a record of it,
INSTANCE/datadir-load.json: what was loaded (the configuration, `load_config` in experiment), what
the load measured (loaded.json's contents to be), who loaded it and when, and the datadir as the
load left it, flushed to the disk: every file's size and one SHA-256 of their bytes. A fault in
the copy (a crash, kill -9, Ctrl-C, a full or failing disk) then costs only the copy: the resume
finds the record, checks it, and takes the snapshot from the datadir without loading again.

Why it can be trusted:
- it is written only after a load that returned verified and a clean shutdown: a load cut short
  leaves none, and the record of an earlier load is removed before the datadir is made again;
- it is removed once the snapshot is whole and loaded.json written (from then on the snapshot is
  the load), and before a restore replaces the datadir;
- it is kept only if its configuration is the run's, no server runs on the datadir, and the
  datadir is byte for byte what it describes (a server started on it since, or a disk that lost
  part of it, changes that); anything else is said, and the page size is loaded again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from pagelab.common.atomic import atomic_write_json, json_digest
from pagelab.common.storage import file_sizes, sync_tree

LOAD_RECORD = "datadir-load.json"
_CHUNK = 1 << 20


def datadir_digest(datadir: Path, files: dict[str, int]) -> str:
    """One SHA-256 of the listed files' names and bytes, in order (~0.4 s for one warehouse's
    ~250 MB on the 2-core VM: small beside the load it spares)."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0")
        with open(Path(datadir) / name, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def remember(instance_dir: Path, datadir: Path, config: dict, state: dict, run: str) -> None:
    """Record that `datadir` holds the completed, verified load of `config`, as it is now. Call it
    only once the load has returned and the server has shut down cleanly."""
    # On the disk before the record that vouches for it: a server's clean shutdown leaves some files
    # (the Aria system tables, db.opt) in the page cache, and an ext4 turned read-only drops them
    # (found empty after the repair), which the check below would rightly refuse.
    sync_tree(datadir)
    files = file_sizes(datadir)
    body = {"config": config, "state": state, "loaded_by": run, "loaded_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "files": files, "content_sha256": datadir_digest(datadir, files)}
    atomic_write_json(Path(instance_dir) / LOAD_RECORD, {**body, "sha256": json_digest(body)})


def forget(instance_dir: Path) -> None:
    """The datadir is about to stop being the load the record describes (made again, or replaced
    by a restore), or the snapshot now holds it: the record goes."""
    (Path(instance_dir) / LOAD_RECORD).unlink(missing_ok=True)


def read(instance_dir: Path) -> dict | None:
    """The record as written, or None if there is none; a record that is not whole raises ValueError."""
    try:
        text = (Path(instance_dir) / LOAD_RECORD).read_text()
    except FileNotFoundError:
        return None
    record = json.loads(text)
    body = {key: value for key, value in record.items() if key != "sha256"} if isinstance(record, dict) else None
    if body is None or record.get("sha256") != json_digest(body):
        raise ValueError(f"{LOAD_RECORD} does not match its checksum")
    return record


def check(instance_dir: Path, datadir: Path, config: dict, unusable: str | None = None) -> tuple[dict | None, str | None]:
    """(the record, None) if the datadir holds the completed load of `config` that the record
    describes; (None, why not) if there is a record that does not hold; (None, None) if there is none.
    `unusable`: why the instance cannot be used as it is (a server running on the datadir), if so."""
    try:
        record = read(instance_dir)
    except (OSError, ValueError) as damage:
        return None, f"its record cannot be read ({damage})"
    if record is None:
        return None, None
    if record["config"] != config:
        differ = sorted(key for key in set(config) | set(record["config"])
                        if config.get(key) != record["config"].get(key))
        return None, f"it was loaded with another configuration than this run's ({', '.join(differ)})"
    if unusable:
        return None, unusable
    try:
        files = file_sizes(datadir)
    except OSError as error:
        return None, f"its datadir cannot be read ({error})"
    if files != record["files"]:
        changed = sorted(set(files) ^ set(record["files"])
                         | {name for name in files if record["files"].get(name, files[name]) != files[name]})
        return None, f"its datadir changed since the load ({', '.join(changed[:3])})"
    try:
        same = datadir_digest(datadir, files) == record["content_sha256"]
    except OSError as error:
        return None, f"its datadir cannot be read ({error})"
    if not same:
        return None, "its datadir's bytes changed since the load"
    return record, None


def kept_text(name: str, record: dict) -> str:
    """What a resume says when it keeps the load."""
    warehouses = record["config"].get("warehouses")
    return (f"kept the completed load of {name} ({warehouses} warehouse{'s' if warehouses != 1 else ''}, loaded by "
            f"{record['loaded_by']} at {record['loaded_at']}); copying its snapshot again")


def not_kept_text(name: str, why: str) -> str:
    return f"the completed load in {name}'s datadir is not kept: {why}; loading {name} again"


def record_is_there(instance_dir: Path) -> bool:
    return os.path.exists(Path(instance_dir) / LOAD_RECORD)
