"""`fio --output-format=json` -> one row per job.

What it reads (fio 3.x; times in nanoseconds under `*_ns`, bandwidth in KiB/s)::

    note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1
    {
      "fio version" : "fio-3.33",
      "jobs" : [
        {
          "jobname" : "randread-4k",
          "job options" : {"rw" : "randread", "bs" : "4k", "direct" : "1", "iodepth" : "1", ...},
          "read" : {"bw" : 57576, "iops" : 14394.242303, "runtime" : 5002,
                    "clat_ns" : {"mean" : 68460.2, "percentile" : {"99.000000" : 132096, ...}},
                    "lat_ns" : {"mean" : 68921.9, ...}},
          "write" : {...},
          "job_runtime" : 5001,

Lines before the JSON (fio's notes and warnings) are skipped with a warning; several JSON
documents in one text (runs appended to one file) all count. fio 2.x wrote microseconds under
`clat` / `lat` and is read too.

Job options come from the JSON only: when a job file set them, fio 2.x did not echo them, and
rw / bs_bytes / iodepth / direct are then empty rather than fio's defaults.

`read_lat_p99_us` is the 99th percentile of total latency when fio measured it
(`lat_percentiles=1`), otherwise of completion latency, which is what fio reports by default;
`p99_basis` says which ("lat" or "clat"). With a synchronous engine the two differ by the
submission time, which fio does not even measure (slat N = 0).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pagelab.common.errors import ParseError
from pagelab.common.units import size_bytes
from pagelab.parse.common import (
    ParseResult,
    Warnings,
    excerpt,
    line_number_at,
    ordered_rows,
    text_of,
    to_int,
)

COLUMNS = (
    "jobname", "rw", "bs_bytes", "iodepth", "direct",
    "read_iops", "read_bw_kb_s", "read_lat_mean_us", "read_lat_p99_us",
    "write_iops", "write_bw_kb_s", "write_lat_mean_us", "runtime_s",
)  # fmt: skip

_OBJECT_START = re.compile(r"^[ \t]*\{", re.MULTILINE)
_P99 = "99.000000"


def parse_fio(text: str) -> ParseResult:
    """One row per fio job from JSON output, tolerating text around it (see module docstring)."""
    text = text_of(text, "fio JSON output")
    warnings = Warnings()
    documents, loose_jobs = _find_json(text, warnings)
    if not documents and not loose_jobs:
        raise ParseError("no fio JSON found (expected output of fio --output-format=json)")

    rows: list[dict[str, Any]] = []
    meta: dict[str, Any] = {"documents": len(documents)}
    for offset, document in documents:
        global_options = document.get("global options")
        global_options = global_options if isinstance(global_options, dict) else {}
        _note_document(meta, document, global_options)
        jobs = document.get("jobs")
        if not isinstance(jobs, list):
            warnings.add(line_number_at(text, offset), "a fio document without a jobs list")
            continue
        for job in jobs:
            if isinstance(job, dict):
                rows.append(_job_row(job, global_options))
    for offset, job in loose_jobs:
        warnings.add(line_number_at(text, offset), f"job {job.get('jobname')!r} read from a damaged document")
        rows.append(_job_row(job, {}))
    return ParseResult(
        rows=ordered_rows(rows, COLUMNS), warnings=warnings.messages, meta=meta, columns=COLUMNS
    )


def _find_json(text: str, warnings: Warnings):
    """Whole fio documents, and job objects saved from documents that do not parse to the end."""
    decoder = json.JSONDecoder()
    documents: list[tuple[int, dict]] = []
    loose_jobs: list[tuple[int, dict]] = []
    position = 0
    reported_damage = False
    while True:
        match = _OBJECT_START.search(text, position)
        if match is None:
            break
        start = match.end() - 1
        if not reported_damage:  # after damage, the skipped text is the damaged JSON itself
            _warn_about_skipped(text, position, match.start(), warnings)
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError) as error:
            if not reported_damage:
                reported_damage = True
                warnings.add(line_number_at(text, start), f"JSON cut off or damaged ({_reason(error)})")
            position = start + 1  # look for complete job objects inside it
            continue
        if isinstance(value, dict) and "jobs" in value:
            documents.append((start, value))
        elif isinstance(value, dict) and "jobname" in value and reported_damage:
            loose_jobs.append((start, value))
        position = end
    if not reported_damage:
        _warn_about_skipped(text, position, len(text), warnings, trailing=True)
    return documents, loose_jobs


def _reason(error: Exception) -> str:
    return getattr(error, "msg", None) or type(error).__name__


def _warn_about_skipped(text: str, begin: int, end: int, warnings: Warnings, trailing: bool = False) -> None:
    skipped = text[begin:end]
    if not skipped.strip() or begin >= end:
        return
    lines = [line for line in skipped.splitlines() if line.strip()]
    where = "after" if trailing else "before"
    first_line = line_number_at(text, begin + (len(skipped) - len(skipped.lstrip())))
    warnings.add(first_line, f"skipped {len(lines)} line(s) of text {where} the JSON: {excerpt(lines[0])}")


def _note_document(meta: dict[str, Any], document: dict, global_options: dict) -> None:
    for key, ours in (("fio version", "fio_version"), ("timestamp", "timestamp"), ("time", "time")):
        if key in document:
            meta.setdefault(ours, document[key])
    if global_options:
        meta.setdefault("global_options", global_options)
    disks = document.get("disk_util")
    if isinstance(disks, list):
        utilisation = [
            {"device": disk.get("name"), "util_pct": _number(disk.get("util"))}
            for disk in disks
            if isinstance(disk, dict)
        ]
        meta.setdefault("disk_util", utilisation)


def _job_row(job: dict, global_options: dict) -> dict[str, Any]:
    options = dict(global_options)
    if isinstance(job.get("job options"), dict):
        options.update(job["job options"])
    row: dict[str, Any] = {
        "jobname": job.get("jobname") if isinstance(job.get("jobname"), str) else None,
        "rw": _text(options.get("rw", options.get("readwrite"))),
        "bs_bytes": _size_bytes(options.get("bs", options.get("blocksize"))),
        "iodepth": _integer(options.get("iodepth")),
        "direct": _integer(options.get("direct")),
    }
    basis = None
    for direction in ("read", "write"):
        stats = job.get(direction) if isinstance(job.get(direction), dict) else {}
        row[f"{direction}_iops"] = _number(stats.get("iops"))
        row[f"{direction}_bw_kb_s"] = _number(stats.get("bw"))
        row[f"{direction}_lat_mean_us"] = _latency_mean_us(stats)
        if direction == "read":
            row["read_lat_p99_us"], basis = _latency_p99_us(stats)
    row["runtime_s"] = _runtime_s(job)
    row["p99_basis"] = basis
    row["ioengine"] = _text(options.get("ioengine"))
    row["error"] = _integer(job.get("error"))
    return row


def _latency_mean_us(stats: dict) -> float | None:
    if isinstance(stats.get("lat_ns"), dict):
        mean = _number(stats["lat_ns"].get("mean"))
        return None if mean is None else mean / 1000
    if isinstance(stats.get("lat"), dict):  # fio 2.x: microseconds
        return _number(stats["lat"].get("mean"))
    return None


def _latency_p99_us(stats: dict) -> tuple[float | None, str | None]:
    for key, basis, to_us in (
        ("lat_ns", "lat", 1000),
        ("clat_ns", "clat", 1000),
        ("lat", "lat", 1),
        ("clat", "clat", 1),
    ):
        block = stats.get(key)
        percentiles = block.get("percentile") if isinstance(block, dict) else None
        if isinstance(percentiles, dict) and _number(percentiles.get(_P99)) is not None:
            return _number(percentiles[_P99]) / to_us, basis
    return None, None


def _runtime_s(job: dict) -> float | None:
    runtime_ms = _number(job.get("job_runtime"))
    if runtime_ms is None:
        per_direction = [
            _number(job[direction].get("runtime"))
            for direction in ("read", "write", "trim")
            if isinstance(job.get(direction), dict)
        ]
        known = [value for value in per_direction if value is not None]
        runtime_ms = max(known) if known else None
    return None if runtime_ms is None else runtime_ms / 1000


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return value
    # a damaged file can hold an integer too large for any arithmetic with floats
    if isinstance(value, int) and abs(value) < 2**63:
        return value
    return None


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return to_int(value)
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _size_bytes(value: Any) -> int | None:
    """Bytes from a fio size: "4k" -> 4096 (fio's k is 1024 by default). "4k,64k" (read,write)
    and "4k-64k" (a range) give their first size."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    return size_bytes(re.split(r"[,:-]", value.strip(), maxsplit=1)[0])
