"""A sweep's disk footprint: what it will need, checked before each run, and what it left.

Where the bytes go, per page size (measured on a 1-warehouse smoke bundle: 941 MB for two page
sizes): the live datadir (~250 MB: ~175 MB of TPC-C tables and indexes per warehouse, the redo log,
~15 MB of system tablespace and schemas) and its loaded snapshot (~225 MB: the same without the
redo log's unused tail). A run's own files are small (~150 KB); the PDF and figures a few MB.

The check runs before every run, not once, because other programs share the disk and a long sweep
outlives their plans. A run that finds too little room stops the sweep with the numbers and what to
do, before it writes anything, rather than dying half-way through a load and leaving every later
run to fail the same way.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pagelab.common.units import MIB, size_text
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER
from pagelab.sweep.kept_load import LOAD_RECORD

# On-disk TPC-C per warehouse, all tables with secondary indexes: 173 MiB measured at 4k pages on
# MariaDB 10.11, rounded up for larger pages' emptier leaves.
TABLES_PER_WAREHOUSE_BYTES = 200 * MIB
# System tablespace, undo, mysql/ and sys/ schemas of a fresh datadir (~16 MiB measured), with room.
SYSTEM_FILES_BYTES = 40 * MIB
# What a measured run adds to the tables (New-Orders and Payments insert rows): a 20-minute course
# run at ~14,000 TpmC inserts about 300,000 order lines, ~30 MiB; doubled for a faster machine.
RUN_GROWTH_BYTES = 64 * MIB
# Free space left for everyone else on the disk, and for the logs, notebook and report.
HEADROOM_BYTES = 256 * MIB

class NotEnoughSpace(Exception):
    pass


def datadir_estimate(warehouses: int, redo_log_bytes: int) -> int:
    """The bytes of one loaded datadir."""
    return warehouses * TABLES_PER_WAREHOUSE_BYTES + redo_log_bytes + SYSTEM_FILES_BYTES


def sweep_estimate(page_sizes: int, warehouses: int, redo_log_bytes: int) -> int:
    """What a whole sweep keeps while it runs: a datadir and a snapshot per page size."""
    return page_sizes * (2 * datadir_estimate(warehouses, redo_log_bytes) + RUN_GROWTH_BYTES)


def run_needs(instance_dir: Path, warehouses: int, redo_log_bytes: int) -> int:
    """The free bytes one run needs next: a restore copies the snapshot beside the old datadir;
    a first run creates the datadir, then its snapshot, then restores that beside the datadir
    (pagelab.sweep.experiment: every run starts from a restored copy)."""
    snapshot = Path(instance_dir) / "snapshot"
    if (snapshot / SNAPSHOT_MARKER).exists():
        return tree_bytes(snapshot) + RUN_GROWTH_BYTES + HEADROOM_BYTES
    return 3 * datadir_estimate(warehouses, redo_log_bytes) + RUN_GROWTH_BYTES + HEADROOM_BYTES


def check_room(directory: Path, needed: int, what: str) -> None:
    """NotEnoughSpace, with the numbers and the way out, if `directory`'s file system has less free."""
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise NotEnoughSpace(
            f"{what} needs about {size_text(needed)} free on the disk of {directory}, and it has "
            f"{size_text(free)}. Free some space (old bundles in data/runs/ keep their datadirs only with "
            f"--keep-instances), or start the sweep on a larger disk with --out")


def tree_bytes(path: Path) -> int:
    """Bytes of the files under `path` as allocated on disk (sparse files count what they use)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


# What a finished sweep removes from each instance directory (pagelab.mysql.instance's layout): the
# bulk, and root's password file, of no use without a datadir (nor a record of the datadir's load,
# pagelab.sweep.kept_load, normally gone once the snapshot is whole). The small files (instance.json,
# my.cnf, loaded.json, the logs) stay as the record of how the instance was made.
REMOVED_WHEN_FINISHED = ("data", "snapshot", "data.restoring", "snapshot.partial", "tmp", "client.cnf", LOAD_RECORD)


def remove_instances(sweep_dir: Path) -> int:
    """Remove the page sizes' datadirs and snapshots of a finished sweep; the bytes freed.

    Only directories pagelab made are touched: each must hold the instance.json that
    Instance.init writes, or it is left alone."""
    freed = 0
    instances = Path(sweep_dir) / "instances"
    if not instances.is_dir():
        return 0
    for instance_dir in sorted(instances.iterdir()):
        if not (instance_dir / "instance.json").is_file():
            continue
        for part in REMOVED_WHEN_FINISHED:
            target = instance_dir / part
            if target.is_dir() and not target.is_symlink():
                freed += tree_bytes(target)
                shutil.rmtree(target)
            elif target.is_file():
                freed += target.stat().st_blocks * 512
                target.unlink()
    return freed
