"""A disk's random-read speed per block size, as one fio profile records it (`DeviceProfile`): the
record, its JSON file (PROFILE_FORMAT), and how it is read from fio's JSON output.

pagelab.machine.fio takes a profile with fio and keeps it in the cache; the model and the advisor
(pagelab.models) read it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import UsageError
from pagelab.common.units import kib
from pagelab.machine.devices import DeviceInfo
from pagelab.parse import parse_fio

# The settings a profile is taken with unless told otherwise (pagelab.machine.fio says why).
DEFAULT_IODEPTH = 1  # one read in flight, as a B-tree lookup has (module docstring)
DEFAULT_IOENGINE = "psync"  # pread, what the storage prototype's page file calls

PROFILE_FORMAT = 1  # bumped when the JSON layout changes; older cache files are then re-measured
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class BlockSizeResult:
    """One fio run: random reads of one block size."""

    block_size_bytes: int
    iops: float
    lat_mean_us: float | None = None
    lat_p99_us: float | None = None  # of completion latency unless fio measured total latency
    device_util_pct: float | None = None  # fio's disk_util: near 0 means the device was not read


@dataclass
class DeviceProfile:
    """Random-read speed of one disk per block size, with what is needed to trust or redo it."""

    disk: str  # kernel name of the whole disk (vda, nvme0n1), or the filesystem when there is none
    model: str  # what the disk calls itself, or its name and driver (DeviceInfo.disk_label)
    directory: str  # where the test file was
    results: tuple[BlockSizeResult, ...]
    fio_version: str | None = None
    ioengine: str | None = DEFAULT_IOENGINE
    iodepth: int | None = DEFAULT_IODEPTH
    direct: bool | None = True
    runtime_s: float | None = None
    size_bytes: int | None = None
    measured_at: str | None = None  # ISO 8601, UTC
    host: str | None = None
    device: dict[str, Any] = field(default_factory=dict)  # DeviceInfo.to_dict() of the directory
    notes: tuple[str, ...] = ()
    # Not saved: whether load_or_measure took this profile from its cache file.
    from_cache: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        self.results = tuple(sorted(self.results, key=lambda result: result.block_size_bytes))
        self.notes = tuple(self.notes)

    @property
    def block_sizes(self) -> tuple[int, ...]:
        return tuple(result.block_size_bytes for result in self.results)

    def iops_by_block_size(self) -> dict[int, float]:
        """{block size in bytes: IOPS}, the form `pagelab.models.blocksize.model_table` takes."""
        return {result.block_size_bytes: result.iops for result in self.results}

    def result_for(self, block_size_bytes: int) -> BlockSizeResult | None:
        return next((r for r in self.results if r.block_size_bytes == block_size_bytes), None)

    def age_days(self, now: datetime | None = None) -> float | None:
        measured = _parse_timestamp(self.measured_at)
        if measured is None:
            return None
        return ((now or datetime.now(timezone.utc)) - measured).total_seconds() / SECONDS_PER_DAY

    def describe(self) -> str:
        """One line: "vda (virtio_blk): fio 3.33, randread QD1, direct, psync, 5 s per size, measured ... UTC"."""
        settings = [f"fio {self.fio_version or '?'}", f"randread QD{self.iodepth or '?'}"]
        settings.append("direct" if self.direct else "buffered")
        if self.ioengine:
            settings.append(self.ioengine)
        if self.runtime_s:
            settings.append(f"{self.runtime_s:g} s per size")
        if self.measured_at:
            settings.append(f"measured {self.measured_at[:16].replace('T', ' ')} UTC")
        if self.from_cache:
            settings.append("from cache")
        return f"{self.model}: " + ", ".join(settings)

    def to_frame(self):
        """One row per block size: block_kb, block_size_bytes, iops, lat_mean_us, lat_p99_us, device_util_pct."""
        import pandas as pd  # late: measuring must not pay for pandas

        rows = [{"block_kb": kib(r.block_size_bytes), **asdict(r)} for r in self.results]
        columns = ["block_kb", "block_size_bytes", "iops", "lat_mean_us", "lat_p99_us", "device_util_pct"]
        return pd.DataFrame(rows, columns=columns)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["from_cache"]
        data["results"] = [asdict(result) for result in self.results]
        data["notes"] = list(self.notes)
        return {"format": PROFILE_FORMAT, **data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DeviceProfile:
        if data.get("format") != PROFILE_FORMAT:
            raise ValueError(f"device profile format {data.get('format')!r}, expected {PROFILE_FORMAT}")
        fields = dict(data)
        del fields["format"]
        fields["results"] = tuple(BlockSizeResult(**result) for result in fields["results"])
        fields["notes"] = tuple(fields.get("notes", ()))
        return cls(**fields)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the profile as JSON, atomically: a reader never sees half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: str | os.PathLike) -> DeviceProfile:
        profile = cls.from_dict(json.loads(Path(path).read_text()))
        profile.from_cache = True
        return profile

    @classmethod
    def from_fio_outputs(
        cls,
        texts: Iterable[str],
        device: DeviceInfo | None = None,
        directory: str | os.PathLike | None = None,
    ) -> DeviceProfile:
        """A profile from fio JSON outputs captured elsewhere (one random-read job per block size),
        e.g. the shared fixtures. Without `device`, the disk is the one fio's disk_util names."""
        runs = []
        for text in texts:
            parsed = parse_fio(text)
            runs.extend((row, parsed.meta) for row in parsed.rows)
        if not runs:
            raise UsageError("no fio jobs in the given outputs")
        first_meta = runs[0][1]
        timestamps = [meta["timestamp"] for _, meta in runs if isinstance(meta.get("timestamp"), (int, float))]
        measured_at = (
            datetime.fromtimestamp(min(timestamps), timezone.utc).isoformat(timespec="seconds")
            if timestamps else None
        )  # fmt: skip
        disk_util = first_meta.get("disk_util") or [{}]
        fallback_disk = disk_util[0].get("device") or "unknown"
        first_row = runs[0][0]
        return cls(
            disk=(device.disk if device and device.disk else fallback_disk),
            model=(device.disk_label() if device else fallback_disk),
            directory=os.fspath(directory) if directory is not None else "",
            results=tuple(result_from_row(row, meta) for row, meta in runs),
            fio_version=version_number(first_meta.get("fio_version")),
            ioengine=first_row.get("ioengine"),
            iodepth=first_row.get("iodepth"),
            direct=None if first_row.get("direct") is None else bool(first_row["direct"]),
            runtime_s=first_row.get("runtime_s"),
            measured_at=measured_at,
            device=device.to_dict() if device else {},
        )


def result_from_row(row: Mapping[str, Any], meta: Mapping[str, Any]) -> BlockSizeResult:
    if row.get("bs_bytes") is None or row.get("read_iops") is None:
        raise UsageError(f"fio job {row.get('jobname')!r} has no block size or read IOPS")
    utilisation = [disk.get("util_pct") for disk in meta.get("disk_util") or [] if disk.get("util_pct") is not None]
    return BlockSizeResult(
        block_size_bytes=int(row["bs_bytes"]),
        iops=float(row["read_iops"]),
        lat_mean_us=row.get("read_lat_mean_us"),
        lat_p99_us=row.get("read_lat_p99_us"),
        device_util_pct=max(utilisation) if utilisation else None,
    )



def version_number(text: Any) -> str | None:
    """"3.33" from fio's "fio-3.33"."""
    if not isinstance(text, str):
        return None
    match = re.search(r"\d+(?:\.\d+)*", text)
    return match.group(0) if match else None


def _parse_timestamp(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

