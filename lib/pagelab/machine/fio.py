"""How fast the data device answers one random read, per block size: the RethinkDB post's first table.

The RethinkDB post (RethinkDB, "Rethinking B-tree block sizes on SSDs") starts from a benchmark of random
read IOPS for each block size and divides it by the B-tree's depth. `measure_random_read_iops`
takes that benchmark on this machine with fio:

    fio --name=randread-4k --filename=<directory>/pagelab-fio.dat --size=1G --rw=randread
        --bs=4k --ioengine=psync --iodepth=1 --direct=1 --runtime=5 --time_based
        --output-format=json

once per block size, after one layout run (`--create_only=1`) that writes the whole test file,
so every measured run only reads. Reads go to the device that holds `directory` (pagelab's data
directory by default, where the databases live). The test file is removed at the end, also after
an error or Ctrl-C.

The result is a `DeviceProfile` (pagelab.machine.device_profile): the disk, fio's version and settings, and per block size the
IOPS, mean and 99th-percentile latency. `load_or_measure` keeps it as JSON in
`data/cache/fio-<disk>.json` and reuses it for 30 days, so `pagelab advise` measures a disk once.

Why these settings:

- QD1 (`iodepth=1`) and a synchronous engine: a B-tree lookup reads one page, waits for it, and
  only then knows which page to read next, so one read in flight is the honest model of a point
  query. `psync` (pread) is also exactly what pagelab's storage prototype does, so the
  prototype's measured lookup rate can be set against these numbers. `libaio` at QD1 can be
  chosen (`ioengine="libaio"`); it measures the same device with a different submission path.
- `direct=1`: without it the page cache answers most reads and the benchmark measures memory.
- 1 GiB file: large enough that the reads are spread over many device blocks, small enough to
  lay out in a few seconds. (On a virtual disk the host may still cache it; see the profile's
  `device` record, which notes a virtual disk.)
"""

from __future__ import annotations

import math
import os
import platform
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.common.processes import stop_process
from pagelab.parse import parse_fio
from pagelab.common.paths import CACHE_DIR, DATA_DIR
from pagelab.machine.device_profile import (
    DEFAULT_IODEPTH,
    DEFAULT_IOENGINE,
    BlockSizeResult,
    DeviceProfile,
    result_from_row,
    version_number,
)
from pagelab.machine.devices import DeviceInfo, block_device_for, nearest_existing, o_direct_works
from pagelab.common.units import KIB, MIB, format_size, parse_size


# The RethinkDB post's table runs from 1 KiB to 64 KiB blocks; the storage prototype takes the same range.
DEFAULT_BLOCK_SIZES = tuple(KIB << shift for shift in range(7))

DEFAULT_RUNTIME_S = 5  # the shared fixtures' setting: 5 s at ~10k IOPS is ~50k reads per size
DEFAULT_SIZE = "1G"
PROFILE_MAX_AGE_DAYS = 30  # a disk's speed changes with firmware, fill and neighbours, not daily

TEST_FILE_NAME = "pagelab-fio.dat"
INSTALL_HINT = "install it with: sudo apt-get install fio"

# fio needs a moment beyond --runtime to start, drop the file's cache and write its JSON; a
# minute is far more than that and still stops a hung fio from hanging pagelab.
RUN_TIMEOUT_MARGIN_S = 60
# The layout writes the whole file; 10 MB/s is slower than any disk worth measuring.
LAYOUT_SLOWEST_BYTES_PER_S = 10_000_000
# After Ctrl-C, time fio gets to stop on its own before it is killed.
FIO_EXIT_GRACE_S = 10


# --------------------------------------------------------------------------------------------
# Measuring


def fio_binary() -> Path:
    """fio on PATH, or MissingDependencyError saying how to install it."""
    found = shutil.which("fio")
    if found is None:
        raise MissingDependencyError(f"fio is not installed (needed to measure the device's IOPS); {INSTALL_HINT}")
    return Path(found)


def fio_command(
    fio: str | os.PathLike,
    test_file: Path,
    block_size_bytes: int,
    size_bytes: int,
    runtime_s: float,
    iodepth: int = DEFAULT_IODEPTH,
    direct: bool = True,
    ioengine: str = DEFAULT_IOENGINE,
    layout_only: bool = False,
) -> list[str]:
    """The argv of one random-read run (or, with `layout_only`, of the run that writes the file)."""
    argv = [
        os.fspath(fio),
        f"--name={'layout' if layout_only else 'randread-' + fio_size(block_size_bytes)}",
        f"--filename={test_file}",
        f"--size={size_bytes}",
        "--rw=randread",
        f"--bs={block_size_bytes}",
        f"--ioengine={ioengine}",
        f"--iodepth={iodepth}",
        f"--direct={int(direct)}",
        "--output-format=json",
    ]
    if layout_only:
        argv.append("--create_only=1")  # fio lays out (writes) the file, fsyncs it, and stops
    else:
        argv += [f"--runtime={_fio_duration(runtime_s)}", "--time_based"]
    return argv


def measure_random_read_iops(
    directory: str | os.PathLike = DATA_DIR,
    block_sizes: Sequence[int] = DEFAULT_BLOCK_SIZES,
    runtime_s: float = DEFAULT_RUNTIME_S,
    size: str | int = DEFAULT_SIZE,
    iodepth: int = DEFAULT_IODEPTH,
    direct: bool = True,
    progress: bool = True,
    ioengine: str = DEFAULT_IOENGINE,
) -> DeviceProfile:
    """Random-read IOPS per block size on the device under `directory` (module docstring).

    Takes about `runtime_s` per block size plus the time to write a `size` test file once. Checks
    everything it can (fio present, directory writable with O_DIRECT, free space) before writing.
    """
    fio = fio_binary()
    directory = Path(directory)
    sizes, size_bytes = _check_request(directory, block_sizes, runtime_s, size, iodepth)
    if direct:
        works, reason = o_direct_works(directory)
        if not works:
            raise UsageError(f"cannot measure the device with direct I/O: {reason}; pass a directory on a real disk")
    device = block_device_for(directory)
    notes = []
    logical_block = device.logical_block_size or 0
    if direct and any(size < logical_block for size in sizes):
        skipped = [size for size in sizes if size < logical_block]
        sizes = [size for size in sizes if size >= logical_block]
        notes.append(
            f"skipped {', '.join(fio_size(s) for s in skipped)}: direct reads smaller than the "
            f"disk's {logical_block}-byte logical block are refused"
        )
        if not sizes:
            raise UsageError(f"every block size is smaller than the disk's {logical_block}-byte logical block")
    test_file = directory / TEST_FILE_NAME
    _check_free_space(directory, test_file, size_bytes)

    from pagelab.common.progress import progress_bar

    results: list[BlockSizeResult] = []
    fio_version = None
    started = datetime.now(timezone.utc)
    bar = progress_bar(len(sizes), "fio randread", "size", disable=not progress)
    try:
        bar.set_postfix_str(f"writing the {fio_size(size_bytes)} test file")
        layout_timeout = size_bytes / LAYOUT_SLOWEST_BYTES_PER_S + RUN_TIMEOUT_MARGIN_S
        _run_fio(
            fio_command(fio, test_file, max(sizes), size_bytes, runtime_s, iodepth, direct, ioengine, layout_only=True),
            timeout_s=layout_timeout,
        )
        for block_size in sizes:
            bar.set_postfix_str(f"{fio_size(block_size)} for {runtime_s:g} s")
            argv = fio_command(fio, test_file, block_size, size_bytes, runtime_s, iodepth, direct, ioengine)
            output = _run_fio(argv, timeout_s=runtime_s + RUN_TIMEOUT_MARGIN_S)
            result, meta = _read_run(output, block_size)
            fio_version = fio_version or version_number(meta.get("fio_version"))
            results.append(result)
            bar.update(1)
            bar.set_postfix_str(f"{fio_size(block_size)}: {result.iops:,.0f} IOPS")
    finally:
        bar.close()
        test_file.unlink(missing_ok=True)

    return DeviceProfile(
        disk=profile_disk_name(device),
        model=device.disk_label(),
        directory=str(nearest_existing(directory)),
        results=tuple(results),
        fio_version=fio_version,
        ioengine=ioengine,
        iodepth=iodepth,
        direct=direct,
        runtime_s=runtime_s,
        size_bytes=size_bytes,
        measured_at=started.isoformat(timespec="seconds"),
        host=platform.node() or None,
        device=device.to_dict(),
        notes=tuple(notes) + device.notes,
    )


def file_read_iops(
    path: str | os.PathLike,
    block_size_bytes: int,
    runtime_s: float = DEFAULT_RUNTIME_S,
    *,
    iodepth: int = DEFAULT_IODEPTH,
    direct: bool = True,
    ioengine: str = DEFAULT_IOENGINE,
) -> BlockSizeResult:
    """fio's random reads of an existing file, one block size, with the profile's settings: the
    device reading the very file a measurement reads, at the moment it reads it. `--readonly`
    makes fio refuse to write it; no test file is laid out."""
    fio = fio_binary()
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"cannot measure reads of {path}: no such file")
    size_bytes = path.stat().st_size // block_size_bytes * block_size_bytes
    if size_bytes < block_size_bytes:
        raise UsageError(f"{path} is smaller than one {block_size_bytes}-byte block")
    argv = fio_command(fio, path, block_size_bytes, size_bytes, runtime_s, iodepth, direct, ioengine) + ["--readonly"]
    result, _ = _read_run(_run_fio(argv, timeout_s=runtime_s + RUN_TIMEOUT_MARGIN_S), block_size_bytes)
    return result


def _check_request(
    directory: Path, block_sizes: Sequence[int], runtime_s: float, size: str | int, iodepth: int
) -> tuple[list[int], int]:
    if not directory.is_dir():
        raise UsageError(f"cannot measure the device under {directory}: not a directory")
    if not os.access(directory, os.W_OK):
        raise UsageError(f"cannot write the fio test file in {directory}: the directory is not writable")
    sizes = sorted(set(block_sizes))
    if not sizes or any(not isinstance(s, int) or isinstance(s, bool) or s <= 0 for s in sizes):
        raise UsageError(f"block sizes must be positive whole numbers of bytes, got {list(block_sizes)!r}")
    if not (isinstance(runtime_s, (int, float)) and math.isfinite(runtime_s) and runtime_s > 0):
        raise UsageError(f"the fio runtime must be a positive number of seconds, got {runtime_s!r}")
    if not isinstance(iodepth, int) or iodepth < 1:
        raise UsageError(f"iodepth must be a whole number >= 1, got {iodepth!r}")
    size_bytes = parse_size(size, "the fio test file size")
    if size_bytes < max(sizes):
        raise UsageError(f"the fio test file ({size_bytes} bytes) must hold at least one {max(sizes)}-byte block")
    return sizes, size_bytes


def _check_free_space(directory: Path, test_file: Path, size_bytes: int) -> None:
    existing = test_file.stat().st_size if test_file.exists() else 0  # left by an interrupted run
    needed = max(0, size_bytes - existing)
    free = shutil.disk_usage(directory).free
    if needed > free:
        raise UsageError(
            f"the fio test file needs {needed / MIB:,.0f} MiB in {directory}, only {free / MIB:,.0f} MiB "
            "are free; free some space or pass a smaller size"
        )


def _run_fio(argv: list[str], timeout_s: float) -> str:
    """fio's stdout. On Ctrl-C, fio is stopped (it may already have the signal: the terminal sends
    it to the whole process group) before KeyboardInterrupt goes on."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise PagelabError(f"fio did not finish within {timeout_s:.0f} s: {' '.join(argv)}") from None
    except BaseException:  # KeyboardInterrupt above all
        _stop(process)
        raise
    if process.returncode != 0:
        if process.returncode in (-signal.SIGINT, 128 + signal.SIGINT):
            raise KeyboardInterrupt
        # A Ctrl-C reaches fio and pagelab together; fio may exit before Python has run its
        # handler. A moment's pause lets a pending SIGINT surface as the KeyboardInterrupt it is,
        # rather than as a fio failure.
        time.sleep(0.2)
        detail = (stderr or stdout or "").strip().splitlines()[-3:]
        raise PagelabError(f"fio failed (exit status {process.returncode}): {' / '.join(detail) or 'no output'}")
    return stdout


def _stop(process: subprocess.Popen) -> None:
    stop_process(process, FIO_EXIT_GRACE_S, drain=True)


def _read_run(output: str, block_size: int) -> tuple[BlockSizeResult, dict]:
    parsed = parse_fio(output)
    if not parsed.rows:
        raise PagelabError(f"fio printed no job for the {fio_size(block_size)} run")
    row = parsed.rows[0]
    if row.get("error"):
        raise PagelabError(f"fio's {fio_size(block_size)} run reported error {row['error']}")
    result = result_from_row(row, parsed.meta)
    if not result.iops or result.iops <= 0:
        raise PagelabError(f"fio's {fio_size(block_size)} run completed no reads")
    return result, parsed.meta



# --------------------------------------------------------------------------------------------
# The cache


def profile_disk_name(device: DeviceInfo) -> str:
    """The disk's kernel name, or for a directory without one its filesystem type (tmpfs, overlay)."""
    name = device.disk or device.fstype or "unknown"
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def profile_cache_path(directory: str | os.PathLike = DATA_DIR, cache_dir: str | os.PathLike = CACHE_DIR) -> Path:
    """data/cache/fio-<disk>.json for the disk under `directory`."""
    return Path(cache_dir) / f"fio-{profile_disk_name(block_device_for(directory))}.json"


def load_or_measure(
    directory: str | os.PathLike = DATA_DIR,
    max_age_days: float = PROFILE_MAX_AGE_DAYS,
    refresh: bool = False,
    *,
    cache_dir: str | os.PathLike = CACHE_DIR,
    block_sizes: Sequence[int] = DEFAULT_BLOCK_SIZES,
    runtime_s: float = DEFAULT_RUNTIME_S,
    size: str | int = DEFAULT_SIZE,
    iodepth: int = DEFAULT_IODEPTH,
    direct: bool = True,
    ioengine: str = DEFAULT_IOENGINE,
    progress: bool = True,
) -> DeviceProfile:
    """The cached profile of the disk under `directory` if it still answers the question, else a
    new measurement, saved for next time.

    A cached profile is reused when it is younger than `max_age_days`, was taken on this host and
    disk with the same fio settings (direct, iodepth, engine, file size) and has every block size
    asked for. `refresh` measures again regardless. An unreadable cache file is measured over.
    """
    path = profile_cache_path(directory, cache_dir)
    size_bytes = parse_size(size, "the fio test file size")
    if not refresh and path.exists():
        cached = _load_quietly(path)
        if cached is not None and _still_answers(
            cached, max_age_days, block_sizes, size_bytes=size_bytes, iodepth=iodepth, direct=direct, ioengine=ioengine
        ):
            return cached
    profile = measure_random_read_iops(
        directory, block_sizes, runtime_s, size_bytes, iodepth, direct, progress, ioengine
    )
    profile.save(path)
    return profile


def _load_quietly(path: Path) -> DeviceProfile | None:
    try:
        return DeviceProfile.load(path)
    except (OSError, ValueError, TypeError, KeyError):
        return None  # damaged or from another format: measuring again is the repair


def _still_answers(
    profile: DeviceProfile, max_age_days: float, block_sizes: Sequence[int], **settings: Any
) -> bool:
    age = profile.age_days()
    if age is None or age > max_age_days or age < 0:
        return False
    if profile.host != (platform.node() or None):
        return False  # a checkout copied to another machine carries the old machine's numbers
    if any(getattr(profile, name) != value for name, value in settings.items()):
        return False
    skipped_for_alignment = (profile.device or {}).get("logical_block_size") or 0
    wanted = {size for size in block_sizes if not (profile.direct and size < skipped_for_alignment)}
    return wanted <= set(profile.block_sizes)


# --------------------------------------------------------------------------------------------
# Small helpers


def _fio_duration(seconds: float) -> str:
    """fio reads a bare --runtime as whole seconds; a fraction is given in milliseconds."""
    return f"{seconds:g}" if float(seconds).is_integer() else f"{round(seconds * 1000)}ms"



def fio_size(size_bytes: int) -> str:
    """fio's spelling of a size: 4096 -> "4k", 1536 -> "1536" (binary units, lower case)."""
    return format_size(size_bytes).lower()
