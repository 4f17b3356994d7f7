"""Measuring the device with fio: a real short run, the cache, Ctrl-C, and a missing fio."""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone

import pytest

from pagelab.common.errors import MissingDependencyError, UsageError
from pagelab.parse import parse_fio
from pagelab.machine import device_profile, fio
from pagelab.machine.device_profile import BlockSizeResult, DeviceProfile
from pagelab.machine.fio import (
    TEST_FILE_NAME,
    fio_command,
    load_or_measure,
    measure_random_read_iops,
    profile_cache_path,
)

SHORT_RUN = dict(block_sizes=(4096, 16384), runtime_s=1, size="64M", progress=False)


def _require_fio(function):
    """A fio test fails loudly, never skips, when fio is missing: `make setup` installs it."""
    import functools

    @functools.wraps(function)
    def checked(*args, **kwargs):
        if shutil.which("fio") is None:
            pytest.fail("fio is not installed: run `make setup` (or sudo apt-get install fio)")
        return function(*args, **kwargs)

    return checked


needs_fio = _require_fio


# --------------------------------------------------------------------------------------------
# Real runs


@needs_fio
def test_a_real_short_measurement_is_cached_and_leaves_no_test_file(tmp_path, monkeypatch):
    data_dir, cache_dir = tmp_path / "data", tmp_path / "cache"
    data_dir.mkdir()
    profile = load_or_measure(data_dir, cache_dir=cache_dir, **SHORT_RUN)

    assert profile.block_sizes == (4096, 16384)
    assert all(result.iops > 0 and result.lat_mean_us > 0 and result.lat_p99_us > 0 for result in profile.results)
    assert profile.fio_version and profile.fio_version.startswith("3.")
    assert (profile.direct, profile.iodepth, profile.ioengine, profile.size_bytes) == (True, 1, "psync", 64 << 20)
    assert not (data_dir / TEST_FILE_NAME).exists()
    cache_file = profile_cache_path(data_dir, cache_dir)
    assert cache_file.name == f"fio-{profile.disk}.json" and cache_file.exists()
    assert DeviceProfile.load(cache_file) == profile

    def refuse(*args, **kwargs):
        raise AssertionError("the cached profile should have been reused")

    monkeypatch.setattr(fio, "measure_random_read_iops", refuse)
    again = load_or_measure(data_dir, cache_dir=cache_dir, **SHORT_RUN)
    assert again.from_cache and again == profile


@needs_fio
def test_ctrl_c_stops_fio_and_removes_the_test_file(tmp_path):
    # A child process measures for 30 s per size; Ctrl-C goes to its whole process group, as a
    # terminal sends it to pagelab and fio together.
    # A job started in the background (as CI may start this suite) inherits SIGINT ignored;
    # the child stands for a user at a terminal, where Ctrl-C raises KeyboardInterrupt.
    script = textwrap.dedent(f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from pagelab.machine.fio import measure_random_read_iops
        measure_random_read_iops({str(tmp_path)!r}, block_sizes=(4096,), runtime_s=30, size="64M", progress=False)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    test_file = tmp_path / TEST_FILE_NAME
    deadline = time.monotonic() + 20
    while not (test_file.exists() and test_file.stat().st_size == 64 << 20) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert test_file.exists(), "fio never laid out its test file"
    time.sleep(0.5)  # into the measured run
    os.killpg(child.pid, signal.SIGINT)
    try:
        _, stderr = child.communicate(timeout=fio.FIO_EXIT_GRACE_S + 10)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode != 0 and "KeyboardInterrupt" in stderr
    assert not test_file.exists()


def test_missing_fio_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingDependencyError, match="sudo apt-get install fio"):
        measure_random_read_iops(tmp_path, **SHORT_RUN)
    with pytest.raises(MissingDependencyError):
        load_or_measure(tmp_path, cache_dir=tmp_path / "cache", **SHORT_RUN)
    assert list(tmp_path.iterdir()) == []


@needs_fio
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(block_sizes=(0,)), "block sizes"),
        (dict(block_sizes=(4096,), size="1k"), "at least one 4096-byte block"),
        (dict(runtime_s=0), "runtime"),
        (dict(iodepth=0), "iodepth"),
        (dict(size="lots"), "size"),
    ],
)
def test_bad_requests_are_refused_before_anything_is_written(tmp_path, options, message):
    with pytest.raises(UsageError, match=message):
        measure_random_read_iops(tmp_path, **{**SHORT_RUN, **options})
    assert list(tmp_path.iterdir()) == []


@needs_fio
def test_a_directory_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(UsageError, match="not a directory"):
        measure_random_read_iops(tmp_path / "nowhere", **SHORT_RUN)


# --------------------------------------------------------------------------------------------
# The command line fio gets


def test_fio_command_is_qd1_direct_random_reads(tmp_path):
    argv = fio_command("fio", tmp_path / TEST_FILE_NAME, 16384, 1 << 30, 5)
    assert {"--rw=randread", "--bs=16384", "--iodepth=1", "--direct=1", "--ioengine=psync", "--time_based",
            "--runtime=5", "--output-format=json", f"--size={1 << 30}"} <= set(argv)  # fmt: skip
    assert f"--filename={tmp_path / TEST_FILE_NAME}" in argv
    assert "--name=randread-16k" in argv
    assert "--runtime=500ms" in fio_command("fio", tmp_path / TEST_FILE_NAME, 4096, 1 << 30, 0.5)
    layout = fio_command("fio", tmp_path / TEST_FILE_NAME, 65536, 1 << 30, 5, layout_only=True)
    assert "--create_only=1" in layout and "--time_based" not in layout


# --------------------------------------------------------------------------------------------
# The profile and its cache


def test_profile_from_the_fixtures(fixture_profile, fixtures_dir):
    assert fixture_profile.block_sizes == (4096, 16384, 65536)
    expected = parse_fio((fixtures_dir / "fio" / "randread_qd1_16k.json").read_text()).rows[0]
    assert fixture_profile.iops_by_block_size()[16384] == expected["read_iops"]
    assert fixture_profile.result_for(16384).lat_p99_us == expected["read_lat_p99_us"]
    assert (fixture_profile.fio_version, fixture_profile.disk, fixture_profile.ioengine) == ("3.33", "vda", "psync")
    assert fixture_profile.to_frame()["block_kb"].tolist() == [4, 16, 64]


def test_profile_survives_json(fixture_profile, tmp_path):
    path = fixture_profile.save(tmp_path / "profile.json")
    assert json.loads(path.read_text())["format"] == device_profile.PROFILE_FORMAT
    assert DeviceProfile.load(path) == fixture_profile


def _profile(directory, **changes) -> DeviceProfile:
    fields = dict(
        disk=fio.profile_disk_name(fio.block_device_for(directory)),
        model="test disk",
        directory=str(directory),
        results=(BlockSizeResult(4096, 1000.0), BlockSizeResult(16384, 800.0)),
        fio_version="3.33",
        runtime_s=1,
        size_bytes=64 << 20,
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        host=platform.node() or None,
    )
    return DeviceProfile(**{**fields, **changes})


@pytest.fixture
def counted_measurements(monkeypatch, tmp_path):
    """measure_random_read_iops replaced by a counter returning a new profile."""
    calls = []

    def measure(directory, *args, **kwargs):
        calls.append(directory)
        return _profile(directory, model="new measurement")

    monkeypatch.setattr(fio, "measure_random_read_iops", measure)
    return calls


@pytest.mark.parametrize(
    "stale",
    [
        dict(measured_at=(datetime.now(timezone.utc) - timedelta(days=40)).isoformat()),
        dict(host="another-machine"),
        dict(size_bytes=1 << 30),
        dict(direct=False),
        dict(results=(BlockSizeResult(4096, 1000.0),)),  # 16k was not measured
    ],
    ids=["too-old", "other-host", "other-size", "buffered", "missing-size"],
)
def test_a_cached_profile_that_does_not_answer_is_measured_again(tmp_path, counted_measurements, stale):
    cache_dir = tmp_path / "cache"
    _profile(tmp_path, **stale).save(profile_cache_path(tmp_path, cache_dir))
    profile = load_or_measure(tmp_path, cache_dir=cache_dir, **SHORT_RUN)
    assert profile.model == "new measurement" and len(counted_measurements) == 1
    assert DeviceProfile.load(profile_cache_path(tmp_path, cache_dir)).model == "new measurement"


def test_refresh_and_damaged_cache_measure_again(tmp_path, counted_measurements):
    cache_dir = tmp_path / "cache"
    path = profile_cache_path(tmp_path, cache_dir)
    _profile(tmp_path).save(path)
    assert load_or_measure(tmp_path, cache_dir=cache_dir, **SHORT_RUN).from_cache
    assert len(counted_measurements) == 0
    load_or_measure(tmp_path, refresh=True, cache_dir=cache_dir, **SHORT_RUN)
    assert len(counted_measurements) == 1
    path.write_text("{ not json")
    load_or_measure(tmp_path, cache_dir=cache_dir, **SHORT_RUN)
    assert len(counted_measurements) == 2


@needs_fio
def test_fio_reads_an_existing_file_and_leaves_it_as_it_was(tmp_path):
    target = tmp_path / "pages.db"
    content = os.urandom(8 << 20)
    target.write_bytes(content)
    result = fio.file_read_iops(target, 4096, runtime_s=1)
    assert result.block_size_bytes == 4096 and result.iops > 0
    assert target.read_bytes() == content  # --readonly: fio wrote nothing
    assert [path.name for path in tmp_path.iterdir()] == ["pages.db"]  # and laid out no test file


@needs_fio
def test_fio_on_a_missing_or_too_small_file_is_refused(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        fio.file_read_iops(tmp_path / "absent.db", 4096)
    tiny = tmp_path / "tiny.db"
    tiny.write_bytes(b"x" * 100)
    with pytest.raises(UsageError, match="smaller than one 4096-byte block"):
        fio.file_read_iops(tiny, 4096)
