"""The host a run ran on, recorded with the run: identical-looking servers differ (Maricq et al.,
OSDI 2018), so a sweep spread over nodes must say which node made which number.

BUNDLE/<run>/host.json:

    {"hostname": "node7", "machine_id": "machine-id(5)'s 32 hex digits", "cpu_model": "...", "cores": 2,
     "memory_bytes": ..., "kernel": "6.1.0-...",
     "disk": "the data directory's disk, as `pagelab doctor` describes it", "disk_model": "...",
     "filesystem": "ext4", "noise": {...noise.json's figures for this host...} or null}

The hostname is also in the run's sweep.json entry ("host"), where `pagelab stats` and the report
read it. The noise figures are the host's own (`pagelab.machine.noise`): the bundle's noise.json when it was
measured on this host (a local `sweep --noise`), else BUNDLE/hosts/<hostname>/noise.json, which
the first unit on each host measures when the plan asks for it (`--noise` with Slurm).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from pagelab.common.atomic import atomic_write_json
from pagelab.common.locks import BUNDLE_LOCKS_DIR, held_lock

HOST_FILE = "host.json"
HOSTS_DIR = "hosts"


def hostname() -> str:
    return socket.gethostname()


def host_noise(sweep_dir: Path, measure: bool, data_dir: Path) -> dict | None:
    """This host's noise figures, measured now (once per host, under its lock) if `measure` and
    none are recorded yet."""
    from pagelab.machine.noise import NOISE_FILE, measure_noise

    name = hostname()
    bundle_noise = Path(sweep_dir) / NOISE_FILE
    if bundle_noise.exists():
        noise = json.loads(bundle_noise.read_text())
        if noise.get("host", name) == name:
            return noise
    own = Path(sweep_dir) / HOSTS_DIR / name / NOISE_FILE
    if not measure:
        return json.loads(own.read_text()) if own.exists() else None
    with held_lock(Path(sweep_dir) / BUNDLE_LOCKS_DIR / f"noise-{name}.lock"):  # measured once per host
        if own.exists():
            return json.loads(own.read_text())
        noise = measure_noise(data_dir, progress=False)
        own.parent.mkdir(parents=True, exist_ok=True)  # the host's first unit in the bundle makes its folder
        atomic_write_json(own, noise)
        return noise


def host_record(data_dir: Path, noise: dict | None) -> dict:
    from pagelab.machine.system import machine_info

    machine = machine_info(data_dir)
    device = machine.get("data_device") or {}
    return {"hostname": hostname(), "machine_id": machine.get("machine_id"), "cpu_model": machine["cpu_model"],
            "cores": machine["cores"],
            "memory_bytes": machine["memory_bytes"], "kernel": machine["kernel"], "os": machine["os"],
            "disk": machine["data_device_description"], "disk_model": device.get("model"),
            "filesystem": machine["filesystem"], "noise": noise}


def write_host_record(run_dir: Path, record: dict) -> None:
    atomic_write_json(Path(run_dir) / HOST_FILE, record)


# What names a machine when two bundles, or a bundle and this machine, are compared: the facts of a
# host record that change only with the machine (a kernel or a free-space figure changes on one).
IDENTITY_KEYS = ("hostname", "cpu_model", "cores", "memory_bytes", "disk")


def this_host_identity(data_dir: Path) -> dict:
    """This machine's identity, with `data_dir`'s disk."""
    record = host_record(data_dir, None)
    return {key: record[key] for key in IDENTITY_KEYS}


def recorded_host_identities(sweep_dir: Path, run_names) -> list[dict]:
    """The distinct identities in the host records (host.json) of these runs of a bundle."""
    seen: list[dict] = []
    for name in run_names:
        path = Path(sweep_dir) / name / HOST_FILE
        if not path.is_file():
            continue
        record = json.loads(path.read_text())
        identity = {key: record.get(key) for key in IDENTITY_KEYS}
        if identity not in seen:
            seen.append(identity)
    return seen


def identity_differences(recorded: dict, current: dict) -> list[str]:
    """'cores: 2 there, 4 here' for each identity fact in which a recorded host differs from this one."""
    return [f"{key}: {recorded.get(key)} there, {current.get(key)} here"
            for key in IDENTITY_KEYS if recorded.get(key) != current.get(key)]


def other_machines(sweep_dir: Path, run_names) -> list[str]:
    """For each machine other than this one among these runs' host records: how it differs
    ('hostname: node7 there, vm here; cores: ...'). [] when every recorded run ran here."""
    here = this_host_identity(sweep_dir)
    found = (identity_differences(there, here) for there in recorded_host_identities(sweep_dir, run_names))
    return ["; ".join(differences) for differences in found if differences]
