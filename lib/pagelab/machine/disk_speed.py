"""The data disk's random-read speed at a sweep's page sizes, recorded in its bundle (knob disk_profile).

A virtual disk does not say what is behind it, so a report cannot name the kind of disk its numbers
depend on; it can say what the disk does. Before its first unit, each host that runs a sweep's units
takes its data disk's random reads at the sweep's page sizes, one read at a time, with
`pagelab.machine.fio.load_or_measure` (fio, psync, O_DIRECT, QD1; a 1 GiB test file and 5 s per
size; kept 30 days in data/cache, so a machine measures once a month) and records them in

    BUNDLE/hosts/<hostname>/disk_profile.json

beside the host's noise.json: the DeviceProfile's JSON (pagelab.machine.device_profile) with only the
sweep's page sizes, or {"not_measured": why, "host": ..., "directory": ...} when it could not be
taken (no fio, no O_DIRECT, too little room). A missing measurement never stops the sweep: the
report says why instead.

Why per host, at the first unit, in the units' data directory: the runs' disk is the one whose
speed matters, and on Slurm each node has its own (the --scratch directory); a local sweep's is
BUNDLE/instances/. The first unit of a host is the moment nothing else runs there: no server of the
sweep has started yet, and Slurm gives each task its node whole (--exclusive). A record, once made,
is the bundle's for that host; a resume reads it rather than measuring again.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import MissingDependencyError, PagelabError
from pagelab.common.locks import BUNDLE_LOCKS_DIR, held_lock
from pagelab.common.paths import CACHE_DIR
from pagelab.common.units import page_size_label
from pagelab.machine.device_profile import DeviceProfile
from pagelab.machine.fio import DEFAULT_RUNTIME_S, DEFAULT_SIZE

DISK_PROFILE_FILE = "disk_profile.json"
HOSTS_DIR = "hosts"  # as pagelab.machine.hosts keeps each host's noise.json
KNOB = "disk_profile"
# The settings `pagelab advise` measures with, so either reuses the other's cached profile. Timed on the
# 2-core VM (virtio disk): a 256 MiB layout took 0.57 s and each 1 s size 1.27-1.29 s, so these settings
# cost about 2.3 s to lay out 1 GiB and 5.3 s per size, ~18 s for three page sizes (the estimate printed).
RUNTIME_S = DEFAULT_RUNTIME_S
SIZE = DEFAULT_SIZE
FIO_MISSING = "fio is not installed (apt-get install fio)"


def wanted(profile_values: dict) -> bool:
    """Whether a sweep measures its disk: its recorded knob. A bundle made before the knob has none
    and is left as it was made (no record, and its report reads as it did)."""
    return bool(profile_values.get(KNOB, False))


def record_path(sweep_dir: Path, host: str) -> Path:
    return Path(sweep_dir) / HOSTS_DIR / host / DISK_PROFILE_FILE


def host_disk_profile(sweep_dir: Path, data_dir: Path, page_sizes: Sequence[int], host: str,
                      cache_dir: Path | None = None) -> dict:
    """This host's record, made now (once per host, under its lock) if the bundle has none yet."""
    path = record_path(sweep_dir, host)
    with held_lock(Path(sweep_dir) / BUNDLE_LOCKS_DIR / f"disk-profile-{host}.lock"):
        if path.exists():
            return json.loads(path.read_text())
        sizes = ", ".join(page_size_label(size) for size in sorted(page_sizes))
        seconds = len(page_sizes) * (RUNTIME_S + 0.3) + 3
        print(f"pagelab: the data disk's random reads at {sizes} (fio, QD1; from data/cache if measured here in the "
              f"last 30 days, else measured now: about {seconds:.0f} s)", file=sys.stderr)
        record = measure(data_dir, page_sizes, host, CACHE_DIR if cache_dir is None else cache_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(path, record)
        return record


def measure(data_dir: Path, page_sizes: Sequence[int], host: str, cache_dir: Path) -> dict:
    """The record: the profile at the page sizes, or why there is none. Ctrl-C goes on up (fio's
    test file is removed on the way: pagelab.machine.fio)."""
    from pagelab.machine.fio import load_or_measure

    try:
        profile = load_or_measure(data_dir, cache_dir=cache_dir, block_sizes=tuple(page_sizes), runtime_s=RUNTIME_S,
                                  size=SIZE, progress=False)
    except MissingDependencyError:
        return {"not_measured": FIO_MISSING, "host": host, "directory": str(data_dir)}
    except PagelabError as problem:  # no O_DIRECT here, too little room, fio failed: said, and the sweep goes on
        return {"not_measured": str(problem), "host": host, "directory": str(data_dir)}
    # a cached profile may hold more sizes (`pagelab advise` takes 1-64 KiB): the bundle keeps the sweep's
    profile.results = tuple(result for result in profile.results if result.block_size_bytes in set(page_sizes))
    return profile.to_dict()


def read_records(sweep_dir: Path) -> dict[str, dict]:
    """{host: its record} of every host that recorded one, by host name; {} for a bundle without."""
    found = {}
    for path in sorted((Path(sweep_dir) / HOSTS_DIR).glob(f"*/{DISK_PROFILE_FILE}")):
        try:
            found[path.parent.name] = json.loads(path.read_text())
        except (OSError, ValueError) as problem:  # a damaged record is said, not skipped
            found[path.parent.name] = {"not_measured": f"its record {path} cannot be read ({problem})"}
    return found


def profile_of(record: dict) -> DeviceProfile | None:
    """The record's profile, or None when it says why there is none."""
    if "not_measured" in record:
        return None
    return DeviceProfile.from_dict(record)
