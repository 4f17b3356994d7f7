"""The data disk's random-read speed in a sweep's bundle and its report (knob disk_profile,
pagelab.machine.disk_speed): a real short fio run at the sweep's first unit, and the words when
there is none (fio missing, the knob off).

The unit is started as a sweep starts it (`begin`, the one code path of the local sweep and of a
Slurm task) on a bundle made from a real profile; its server is not started, as nothing of the
disk record needs one. fio is kept short as tests/models/test_fio_measure.py keeps it: a 64 MiB
file and 1 s per size instead of 1 GiB and 5 s, and a cache of the test's own.
"""

from __future__ import annotations

import json
import shutil

import pytest

from pagelab.bundle import SweepRecord
from pagelab.machine import disk_speed
from pagelab.machine.device_profile import DeviceProfile
from pagelab.machine.fio import TEST_FILE_NAME
from pagelab.machine.hosts import hostname
from pagelab.report.lab_report import load
from pagelab.report.setup_tables import system_setup_notes
from pagelab.sweep.orchestrator import create_sweep
from pagelab.sweep.profiles import load_profile
from pagelab.sweep.run_unit import begin


@pytest.fixture
def short_fio(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_speed, "RUNTIME_S", 1)
    monkeypatch.setattr(disk_speed, "SIZE", "64M")
    monkeypatch.setattr(disk_speed, "CACHE_DIR", tmp_path / "cache")  # measured here, never data/cache's


def _started(tmp_path, name: str, *knobs: str):
    """A smoke bundle with `knobs` set, its first unit begun; (bundle, record)."""
    sweep_dir = create_sweep(load_profile("smoke", list(knobs)), tmp_path / name, "smoke")
    record = SweepRecord.load(sweep_dir)
    begin(record, record.runs[0])
    return sweep_dir, record


def test_a_sweep_records_its_disks_reads_at_its_page_sizes_and_the_report_gives_them(tmp_path, short_fio):
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run `make setup` (or sudo apt-get install fio)")
    sweep_dir, record = _started(tmp_path, "on", "disk_profile=true", "page_sizes=8k,16k")

    path = sweep_dir / "hosts" / hostname() / disk_speed.DISK_PROFILE_FILE
    profile = DeviceProfile.from_dict(json.loads(path.read_text()))
    assert profile.block_sizes == (8192, 16384)  # the sweep's page sizes, not fio's default 1-64 KiB
    assert (profile.iodepth, profile.direct, profile.ioengine, profile.size_bytes) == (1, True, "psync", 64 << 20)
    assert all(result.iops > 0 and result.lat_mean_us > 0 for result in profile.results)
    assert not (sweep_dir / "instances" / TEST_FILE_NAME).exists(), "fio's test file is removed"

    text = system_setup_notes(load(sweep_dir))
    figures = ", ".join(f"{r.block_size_bytes // 1024} KiB {r.iops:,.0f} IOPS (mean {r.lat_mean_us:,.0f} µs)"
                        for r in profile.results)
    assert (f"random reads, one at a time ({profile.disk}; fio {profile.fio_version}: psync, O_DIRECT, QD1, 1 s per "
            f"size, measured {profile.measured_at[:16].replace('T', ' ')} UTC): {figures}.") in text

    # the host's next unit reads the record: measured once per host and bundle
    before = path.stat().st_mtime_ns
    begin(record, record.runs[1])
    assert path.stat().st_mtime_ns == before


def test_without_fio_or_with_the_knob_off_the_report_says_not_measured(tmp_path, short_fio, monkeypatch):
    # PATH holding one empty directory, as the doctor's tests take fio away (tests/test_doctor.py)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    missing, _ = _started(tmp_path, "no-fio", "disk_profile=true")
    assert ("The data disk's random reads were not measured: fio is not installed (apt-get install fio)."
            in system_setup_notes(load(missing)))
    assert not (missing / "instances" / TEST_FILE_NAME).exists()

    off, _ = _started(tmp_path, "off")  # the smoke profile turns it off
    assert not (off / "hosts").exists()
    assert "The data disk's random reads were not measured (disk_profile off)." in system_setup_notes(load(off))


def test_a_sweep_over_several_hosts_gives_each_hosts_disk(tmp_path, fixtures_dir):
    """On Slurm each node records its own disk: the report gives each, by host name, measured or not.
    The records are written as the nodes write them, one from real fio outputs (the shared fixtures:
    QD1 direct random reads on a virtio disk), one saying fio was missing."""
    sweep_dir = create_sweep(load_profile("smoke", ["disk_profile=true"]), tmp_path / "nodes", "smoke")
    texts = [(fixtures_dir / "fio" / f"randread_qd1_{size}.json").read_text() for size in ("4k", "16k")]
    measured = DeviceProfile.from_fio_outputs(texts)
    for host, record in (("node1", measured.to_dict()),
                         ("node2", {"not_measured": disk_speed.FIO_MISSING, "host": "node2"})):
        path = disk_speed.record_path(sweep_dir, host)
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record))
    text = system_setup_notes(load(sweep_dir))
    figures = ", ".join(f"{r.block_size_bytes // 1024} KiB {r.iops:,.0f} IOPS (mean {r.lat_mean_us:,.0f} µs)"
                        for r in measured.results)
    assert (f"Each host's data disk, as that host measured it before its first run: node1: random reads, one at a "
            f"time ({measured.disk}; fio {measured.fio_version}: ") in text
    assert f"): {figures}; node2: not measured: fio is not installed (apt-get install fio)." in text
