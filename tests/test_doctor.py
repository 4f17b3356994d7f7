"""`pagelab doctor` on the real machine, and on the same machine with every program hidden."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pagelab.machine import devices
from pagelab.machine.doctor import Check, DoctorReport, run_doctor

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / "data" / "instances"
INSTALL_ALL = "Missing: install with `sudo apt-get install -y mariadb-server sysstat fio` (or run `make setup`)"


@pytest.fixture
def empty_path(tmp_path, monkeypatch) -> Path:
    """PATH holding one empty directory; programs the test puts there are the only ones found."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def _fake_program(bin_dir: Path, name: str, output: str) -> None:
    program = bin_dir / name
    program.write_text(f"#!/bin/sh\necho '{output}'\n")
    program.chmod(0o755)


def test_without_any_program_the_server_iostat_and_fio_are_missing(empty_path):
    report = run_doctor(DATA_DIR, sbin_fallback=False)
    for name in ("server", "iostat", "fio"):
        assert not report.check(name).ok, name
    assert report.ok is False
    assert report.missing_packages == ["mariadb-server", "sysstat", "fio"]
    rendered = report.render()
    assert rendered.splitlines()[-1] == INSTALL_ALL
    assert "✗ server" in rendered and "✗ iostat" in rendered
    # fio is optional, and what its absence costs a sweep is said: the report's disk speed
    assert "a sweep runs without it, but its report cannot give the data disk's read speed" in report.check("fio").detail
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False
    assert data["install_command"] == "sudo apt-get install -y mariadb-server sysstat fio"


def test_the_install_hint_names_only_what_is_missing(empty_path):
    _fake_program(empty_path, "iostat", "sysstat version 12.6.1")
    report = run_doctor(DATA_DIR, sbin_fallback=False)
    assert report.check("iostat").ok
    assert report.missing_packages == ["mariadb-server", "fio"]
    assert report.render().splitlines()[-1] == (
        "Missing: install with `sudo apt-get install -y mariadb-server fio` (or run `make setup`)"
    )


def test_iostat_without_json_output_fails_and_an_old_json_one_warns(empty_path):
    _fake_program(empty_path, "iostat", "sysstat version 10.2.0")
    too_old = run_doctor(DATA_DIR, sbin_fallback=False).check("iostat")
    assert not too_old.ok and too_old.required
    assert "-o JSON" in too_old.detail and "11.5.1" in too_old.detail
    assert too_old.package is None  # installed, only old: not "missing"

    _fake_program(empty_path, "iostat", "sysstat version 12.0.3")
    report = run_doctor(DATA_DIR, sbin_fallback=False)
    assert report.check("iostat").ok
    warning = report.check("iostat JSON")
    assert not warning.ok and not warning.required and warning.mark == "!"


def test_an_explicit_server_that_does_not_exist_is_reported(tmp_path):
    report = run_doctor(DATA_DIR, server_binary=tmp_path / "no-such-mariadbd")
    server = report.check("server")
    assert not server.ok and "no-such-mariadbd" in server.detail
    assert report.ok is False


def test_on_this_machine_everything_required_is_there():
    report = run_doctor(DATA_DIR)
    assert report.ok, report.render()
    for name in ("server", "iostat", "fio", "data device", "O_DIRECT", "free disk", "memory", "cores"):
        assert report.check(name)
    assert report.check("server").ok and report.check("iostat").ok and report.check("fio").ok
    assert report.missing_packages == []
    rendered = report.render()
    assert "Missing:" not in rendered
    disk = devices.block_device_for(DATA_DIR).disk
    assert disk in report.check("data device").detail
    assert not DATA_DIR.exists() or DATA_DIR.is_dir()  # the doctor creates nothing
    json.dumps(report.to_dict())


def test_render_aligns_the_details(empty_path):
    report = run_doctor(DATA_DIR, sbin_fallback=False)
    check_lines = [line for line in report.render().splitlines() if line[2:3] in ("✓", "✗", "!")]
    assert len(check_lines) == len(report.checks)
    detail_columns = {
        line.index(check.detail) for line, check in zip(check_lines, report.checks)
    }
    assert len(detail_columns) == 1


def test_a_data_dir_in_memory_is_refused():
    # /dev/shm is a tmpfs on every Linux; where it is not, this fails with the reason instead of skipping
    assert devices.block_device_for("/dev/shm").in_memory, "/dev/shm is not an in-memory filesystem on this machine"
    report = run_doctor("/dev/shm/pagelab-not-created")
    data_device = report.check("data device")
    assert not data_device.ok and data_device.required
    assert "tmpfs" in data_device.detail
    assert report.ok is False
    assert not os.path.exists("/dev/shm/pagelab-not-created")


def test_report_status_marks_and_ok():
    report = DoctorReport(
        Path("/x"),
        [
            Check("a", True, "fine"),
            Check("b", False, "optional thing missing", "install b", required=False, package="b"),
        ],
    )
    assert [c.mark for c in report.checks] == ["✓", "!"]
    assert report.ok is True
    assert report.missing_packages == ["b"]
    assert "1 warning" in report.render()
    report.checks.append(Check("c", False, "required thing missing"))
    assert report.ok is False and report.checks[-1].mark == "✗"
    assert "Not ready: c failed." in report.render()


def test_the_machines_noise_is_measured_by_real_fio_and_a_cpu_loop(tmp_path, monkeypatch):
    import shutil

    from pagelab.machine import noise
    from pagelab.evidence.stats_text import noise_lines

    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run `make setup` (or sudo apt-get install fio)")
    monkeypatch.setattr(noise, "FIO_RUNTIME_S", 1)
    measured = noise.measure_noise(tmp_path, repeats=3, progress=False)
    disk, cpu = measured["disk_read_iops_4k_qd1"], measured["cpu_loop_s"]
    assert len(disk["values"]) == len(cpu["values"]) == 3
    assert all(v > 0 for v in disk["values"] + cpu["values"])
    assert disk["median"] == sorted(disk["values"])[1] and disk["cv_pct"] >= 0 and disk["range_pct"] >= 0
    assert not list(tmp_path.iterdir()), "fio's test file is removed"
    lines = noise_lines(measured)
    assert lines[0].startswith("disk, fio 4 KiB random reads QD1: median") and "3 runs" in lines[1]


def test_each_host_measures_its_noise_once_into_the_bundle(tmp_path, monkeypatch):
    """What `pagelab sweep --noise --executor slurm` does on a node before its first unit: measured
    into BUNDLE/hosts/<host>/noise.json (whose folder the first unit of a fresh bundle makes), and
    read from there by the node's later units."""
    from pagelab.machine import hosts, noise

    monkeypatch.setattr(noise, "FIO_RUNTIME_S", 1)
    bundle, data = tmp_path / "bundle", tmp_path / "data"
    bundle.mkdir()
    data.mkdir()
    first = hosts.host_noise(bundle, True, data)
    kept = bundle / "hosts" / hosts.hostname() / "noise.json"
    assert kept.exists() and json.loads(kept.read_text()) == json.loads(json.dumps(first))
    assert hosts.host_noise(bundle, True, data)["measured_at"] == first["measured_at"]
    assert hosts.host_noise(bundle, False, data)["measured_at"] == first["measured_at"]


def test_the_pdf_browser_is_a_warning_that_names_the_snap_stub(tmp_path, monkeypatch):
    """Ubuntu's chromium-browser without its snap prints a request to install the snap and exits 1:
    doctor warns (a sweep still runs and gives its verdicts) and says what to do; the real Chromium passes."""
    from pagelab.cli.doctor import browser_check

    stub = tmp_path / "chromium-browser"
    stub.write_text("#!/bin/sh\necho \"Command '/usr/bin/chromium-browser' requires the chromium snap to be "
                    "installed.\" >&2\nexit 1\n")
    stub.chmod(0o755)
    monkeypatch.setenv("PAGELAB_CHROMIUM", str(stub))
    stubbed = browser_check()
    assert stubbed.mark == "!" and "does not run" in stubbed.detail and "snap install chromium" in stubbed.fix
    monkeypatch.setenv("PAGELAB_CHROMIUM", str(tmp_path / "no-such-browser"))
    missing = browser_check()
    assert missing.mark == "!" and "no Chromium" in missing.detail and "writes no PDF" in missing.detail
    monkeypatch.delenv("PAGELAB_CHROMIUM")
    assert browser_check().ok, "the machine's Chromium (make setup installs it) does not answer --version"
