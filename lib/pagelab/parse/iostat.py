"""sysstat `iostat` output -> one row per (sample, device), in sysstat's JSON or its text.

Text, sysstat 12 with `-dxt` (the timestamp line only with `-t`; without `-d` an `avg-cpu:` block
sits between it and the header and is skipped)::

    Linux 6.18.44-fc-v669 (vm) 	11/21/26 	_x86_64_	(2 CPU)

    11/21/26 13:59:29
    Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s ... aqu-sz  %util
    vda           1604.70   6427.60     0.80   0.05    0.09     4.01 3202.60  15739.20 ...   0.74  23.96

sysstat 11 prints `r/s w/s rkB/s wkB/s ... r_await w_await aqu-sz rareq-sz wareq-sz svctm %util`;
sysstat 10 and older `Device: rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz await r_await
w_await svctm %util`, where avgrq-sz counts 512-byte sectors for reads and writes together: it is
converted to kB in `avgrq_kb`, and rareq_kb / wareq_kb stay empty because it cannot be split. With
`-m`, MB/s columns are converted to kB/s (x1024). Columns are found by name, so any order or subset
works, including a hand-copied tab-separated table; unknown columns are skipped with a warning.
Decimal commas ("0,00", other locales) are read.

JSON (`iostat -o JSON`, sysstat 11.5+)::

    {"sysstat": {"hosts": [{"nodename": "vm", ..., "statistics": [
        {"timestamp": "11/21/26 14:15:02",
         "disk": [{"disk_device": "vda", "r/s": 11049.00, ..., "aqu-sz": 0.86, "util": 62.60}]},

A JSON file cut off mid-run (iostat killed) is read up to its last complete device entry; a text
that stops without a line end loses the last value on its last line, which the cut may have split.

The parser does not know the run's clock: rows carry `sample` (0-based) and `timestamp` (ISO
8601 text, or empty without `-t`). Dates like 11/21/26 are month/day/year as in the C locale,
unless the first number cannot be a month.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pagelab.common.errors import ParseError
from pagelab.parse.common import (
    ParseResult,
    Warnings,
    excerpt,
    line_number_at,
    ordered_rows,
    text_of,
    to_float,
    to_int,
    without_last_token,
)

COLUMNS = (
    "timestamp", "sample", "device",
    "r_s", "w_s", "rkb_s", "wkb_s", "rareq_kb", "wareq_kb", "r_await_ms", "w_await_ms",
    "aqu_sz", "util_pct",
)  # fmt: skip

_SECTOR_KB = 0.5
_MB_KB = 1024

# sysstat's name for a column (text header or JSON key) -> (our column, factor to our unit)
_COLUMN_MAP: dict[str, tuple[str, float]] = {
    "r/s": ("r_s", 1), "w/s": ("w_s", 1),
    "rkB/s": ("rkb_s", 1), "wkB/s": ("wkb_s", 1),
    "rMB/s": ("rkb_s", _MB_KB), "wMB/s": ("wkb_s", _MB_KB),
    "rsec/s": ("rkb_s", _SECTOR_KB), "wsec/s": ("wkb_s", _SECTOR_KB),
    "rareq-sz": ("rareq_kb", 1), "wareq-sz": ("wareq_kb", 1),
    "r_await": ("r_await_ms", 1), "w_await": ("w_await_ms", 1),
    "aqu-sz": ("aqu_sz", 1), "avgqu-sz": ("aqu_sz", 1),
    "%util": ("util_pct", 1), "util": ("util_pct", 1),
    "avgrq-sz": ("avgrq_kb", _SECTOR_KB),
    "await": ("await_ms", 1), "svctm": ("svctm_ms", 1),
    "rrqm/s": ("rrqm_s", 1), "wrqm/s": ("wrqm_s", 1),
    "%rrqm": ("rrqm_pct", 1), "%wrqm": ("wrqm_pct", 1), "rrqm": ("rrqm_pct", 1), "wrqm": ("wrqm_pct", 1),
    "d/s": ("d_s", 1), "dkB/s": ("dkb_s", 1), "dMB/s": ("dkb_s", _MB_KB),
    "drqm/s": ("drqm_s", 1), "%drqm": ("drqm_pct", 1), "drqm": ("drqm_pct", 1),
    "d_await": ("d_await_ms", 1), "dareq-sz": ("dareq_kb", 1),
    "f/s": ("f_s", 1), "f_await": ("f_await_ms", 1),
    # the basic report (no -x)
    "tps": ("tps", 1),
    "kB_read/s": ("rkb_s", 1), "kB_wrtn/s": ("wkb_s", 1), "kB_dscd/s": ("dkb_s", 1),
    "MB_read/s": ("rkb_s", _MB_KB), "MB_wrtn/s": ("wkb_s", _MB_KB), "MB_dscd/s": ("dkb_s", _MB_KB),
    "Blk_read/s": ("rkb_s", _SECTOR_KB), "Blk_wrtn/s": ("wkb_s", _SECTOR_KB),
    "kB_read": ("read_kb", 1), "kB_wrtn": ("written_kb", 1), "kB_dscd": ("discarded_kb", 1),
    "MB_read": ("read_kb", _MB_KB), "MB_wrtn": ("written_kb", _MB_KB), "MB_dscd": ("discarded_kb", _MB_KB),
    "Blk_read": ("read_kb", _SECTOR_KB), "Blk_wrtn": ("written_kb", _SECTOR_KB),
}  # fmt: skip

_DEVICE_HEADER = re.compile(r"^Device:?$")
_HOST_LINE = re.compile(r"^(\S+)\s+(\S+)\s+\(([^)]*)\)\s+(\S+)\s+(\S+)\s+\((\d+)\s+CPU\)")
_ISO_STAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\s*([+-]\d{2}):?(\d{2})|\s*Z)?)?$"
)
_SLASHED_STAMP = re.compile(
    r"^(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?:\s+(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp][Mm]))?)?$"
)
_TIME_ONLY = re.compile(r"^(?:Time:\s*)?(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp][Mm]))?$")


def parse_iostat(text: str) -> ParseResult:
    """Rows per (sample, device) from iostat JSON or text output (see module docstring)."""
    text = text_of(text, "iostat output")
    if text.lstrip().startswith("{"):
        return _parse_json(text)
    return _parse_text(text)


# --- text -------------------------------------------------------------------------------------


def _parse_text(text: str) -> ParseResult:
    warnings = Warnings()
    meta: dict[str, Any] = {"format": "text"}
    rows: list[dict[str, Any]] = []
    header: list[str] | None = None  # column names of the current device block
    device_last = False
    tab_separated = False
    sample = -1
    pending_timestamp = None
    timestamps: dict[int, str] = {}  # sample -> the -t line printed before its header
    skip_cpu_values = False
    lines = text.splitlines()

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            header = None  # a blank line ends a device block
            continue
        if skip_cpu_values:
            skip_cpu_values = False
            if all(to_float(token) is not None for token in stripped.split()):
                continue
        if stripped.startswith("avg-cpu:"):
            header = None
            skip_cpu_values = True
            continue

        tokens = _split(line, "\t" in line)
        if tokens and (_DEVICE_HEADER.match(tokens[0]) or _DEVICE_HEADER.match(tokens[-1])):
            tab_separated = "\t" in line
            tokens = _split(line, tab_separated)
            device_last = not _DEVICE_HEADER.match(tokens[0])
            header = tokens[:-1] if device_last else tokens[1:]
            sample += 1
            _note_columns(meta, header, number, warnings)
            if pending_timestamp is not None:
                timestamps[sample] = pending_timestamp
                pending_timestamp = None
            continue

        if header is not None:
            if number == len(lines) and not text.endswith(("\n", "\r")):
                warnings.add(number, "the text ends without a line end; the last value on it is not read")
                line = line if device_last else without_last_token(line)
                if len(line.split()) < 2:
                    continue  # nothing left but (part of) a device name
            row = _read_device_line(line, header, device_last, tab_separated, number, warnings)
            if row is not None:
                row["sample"] = sample
                row["timestamp"] = timestamps.get(sample)
                rows.append(row)
            continue

        host = _HOST_LINE.match(stripped)
        if host and "sysname" not in meta:
            sysname, release, nodename, date, machine, cpus = host.groups()
            meta.update(sysname=sysname, release=release, nodename=nodename,
                        date=_iso_timestamp(date), machine=machine.strip("_"), cpus=to_int(cpus))  # fmt: skip
            continue

        stamp = _iso_timestamp(stripped, meta.get("date"))
        if stamp is not None:
            pending_timestamp = stamp

    if sample < 0:
        raise ParseError("no iostat device statistics found (no 'Device' header line)")
    meta["samples"] = sample + 1
    return ParseResult(
        rows=ordered_rows(rows, COLUMNS), warnings=warnings.messages, meta=meta, columns=COLUMNS
    )


def _split(line: str, tab_separated: bool) -> list[str]:
    # A hand-made table keeps its tabs, and an empty cell between two tabs is a missing value.
    if tab_separated:
        return [cell.strip() for cell in line.rstrip("\r\n").split("\t")]
    return line.split()


def _note_columns(meta: dict[str, Any], header: list[str], number: int, warnings: Warnings) -> None:
    unknown = [name for name in header if name not in _COLUMN_MAP]
    if unknown:
        shown = ", ".join(repr(name[:20]) for name in unknown[:5])
        warnings.add(number, f"skipped column(s) this parser does not know: {shown}")
    meta.setdefault("column_set", _column_set(header))


def _column_set(names: list[str]) -> str:
    if "avgrq-sz" in names:
        return "sysstat 10 (-x)" if "r_await" in names else "sysstat 9 or older (-x)"
    if "d/s" in names:
        return "sysstat 12 (-x)"
    if "rareq-sz" in names:
        return "sysstat 11 or later (-x)"
    return "basic report (no -x)" if "tps" in names else "unknown"


def _read_device_line(line, header, device_last, tab_separated, number, warnings):
    tokens = _split(line, tab_separated)
    if device_last:
        device, values = tokens[-1], tokens[:-1]
    else:
        device, values = tokens[0], tokens[1:]
    if not device or to_float(device) is not None:
        warnings.add(number, f"device line without a device name: {excerpt(line)}")
        return None
    if len(values) != len(header):
        warnings.add(number, f"{device}: {len(values)} values for {len(header)} columns")
    row: dict[str, Any] = {"device": device}
    unreadable = []
    for name, token in zip(header, values, strict=False):
        if name not in _COLUMN_MAP:
            continue
        column, factor = _COLUMN_MAP[name]
        value = to_float(token)
        if value is None and token:
            unreadable.append(name)
        row[column] = _scaled(value, factor)
    if unreadable:
        warnings.add(number, f"{device}: not a number in column(s) {', '.join(unreadable)}")
    return row


def _scaled(value: float | None, factor: float) -> float | None:
    if value is None or factor == 1:
        return value
    return round(value * factor, 6)


# --- JSON -------------------------------------------------------------------------------------


def _parse_json(text: str) -> ParseResult:
    warnings = Warnings()
    meta: dict[str, Any] = {"format": "json"}
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        where = getattr(error, "lineno", None)
        warnings.add(where, f"the JSON is not complete ({getattr(error, 'msg', error)}); "
                            "reading the device entries before the damage")  # fmt: skip
        rows, samples = _salvage_json(text, warnings)
    else:
        rows, samples = _read_json_document(document, meta, warnings)
    if not rows:
        raise ParseError("no iostat device statistics found in the JSON (no 'disk' entries)")
    meta["samples"] = samples
    return ParseResult(
        rows=ordered_rows(rows, COLUMNS), warnings=warnings.messages, meta=meta, columns=COLUMNS
    )


def _read_json_document(document: Any, meta: dict[str, Any], warnings: Warnings):
    rows: list[dict[str, Any]] = []
    sample = -1
    hosts = document.get("sysstat", {}).get("hosts", []) if isinstance(document, dict) else []
    if not isinstance(hosts, list):
        hosts = []
    for host in hosts:
        if not isinstance(host, dict):
            continue
        for key, ours in (("sysname", "sysname"), ("release", "release"), ("nodename", "nodename"),
                          ("machine", "machine"), ("number-of-cpus", "cpus")):  # fmt: skip
            if key in host:
                meta.setdefault(ours, host[key])
        if isinstance(host.get("date"), str):
            meta.setdefault("date", _iso_timestamp(host["date"]))
        statistics = host.get("statistics", [])
        for entry in statistics if isinstance(statistics, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("disk"), list):
                continue
            sample += 1
            stamp = entry.get("timestamp")
            timestamp = _iso_timestamp(stamp, meta.get("date")) if isinstance(stamp, str) else None
            for disk in entry["disk"]:
                row = _json_disk_row(disk, warnings)
                if row is not None:
                    row.update(sample=sample, timestamp=timestamp)
                    rows.append(row)
    return rows, sample + 1


def _json_disk_row(disk: Any, warnings: Warnings, line_number: int | None = None):
    if not isinstance(disk, dict) or not isinstance(disk.get("disk_device"), str):
        warnings.add(line_number, "a disk entry without a disk_device name; skipped")
        return None
    row: dict[str, Any] = {"device": disk["disk_device"]}
    for key, value in disk.items():
        if key in _COLUMN_MAP:
            column, factor = _COLUMN_MAP[key]
            row[column] = _scaled(_json_number(value), factor)
    return row


def _json_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float: damage, not a measurement
        return None


_JSON_DISK_ARRAY = re.compile(r'"disk"\s*:\s*\[')
_JSON_TIMESTAMP = re.compile(r'"timestamp"\s*:\s*"([^"]*)"')
_JSON_DISK_ENTRY = re.compile(r'\{\s*"disk_device"[^{}]*\}')


def _salvage_json(text: str, warnings: Warnings):
    """Device entries of a JSON document that ends early, each with its sample and timestamp."""
    events = [(m.start(), "sample", None) for m in _JSON_DISK_ARRAY.finditer(text)]
    events += [(m.start(), "timestamp", m.group(1)) for m in _JSON_TIMESTAMP.finditer(text)]
    events += [(m.start(), "disk", m.group(0)) for m in _JSON_DISK_ENTRY.finditer(text)]
    date_match = re.search(r'"date"\s*:\s*"([^"]*)"', text)
    date = _iso_timestamp(date_match.group(1)) if date_match else None
    rows: list[dict[str, Any]] = []
    sample, timestamp, last_timestamp = -1, None, None
    for offset, kind, payload in sorted(events, key=lambda event: event[0]):
        if kind == "timestamp":
            last_timestamp = _iso_timestamp(payload, date)
        elif kind == "sample":
            sample += 1
            timestamp, last_timestamp = last_timestamp, None
        elif sample >= 0:
            try:
                disk = json.loads(payload)
            except ValueError:
                warnings.add(line_number_at(text, offset), "an unreadable disk entry; skipped")
                continue
            row = _json_disk_row(disk, warnings, line_number_at(text, offset))
            if row is not None:
                row.update(sample=sample, timestamp=timestamp)
                rows.append(row)
    return rows, sample + 1


# --- timestamps -------------------------------------------------------------------------------


def _iso_timestamp(text: str | None, date: str | None = None) -> str | None:
    """ISO 8601 text for the date/time forms iostat prints, or None if `text` is not one."""
    if not text:
        return None
    text = text.strip()
    iso = _ISO_STAMP.match(text)
    if iso:
        year, month, day, hour, minute, second, zone_hours, zone_minutes = iso.groups()
        return _assemble(int(year), int(month), int(day), hour, minute, second, None,
                         f"{zone_hours}:{zone_minutes}" if zone_hours else None)  # fmt: skip
    slashed = _SLASHED_STAMP.match(text)
    if slashed:
        first, second_number, year, hour, minute, second, half = slashed.groups()
        month, day = int(first), int(second_number)
        if month > 12 and day <= 12:  # a day/month/year locale
            month, day = day, month
        full_year = int(year) + 2000 if len(year) == 2 else int(year)
        return _assemble(full_year, month, day, hour, minute, second, half, None)
    clock = _TIME_ONLY.match(text)
    if clock and date and re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        hour, minute, second, half = clock.groups()
        year, month, day = (int(part) for part in date.split("-"))
        return _assemble(year, month, day, hour, minute, second, half, None)
    return None


def _assemble(year, month, day, hour, minute, second, half, zone) -> str | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    date = f"{year:04d}-{month:02d}-{day:02d}"
    if hour is None:
        return date
    hour_number = int(hour)
    if half:
        if not 1 <= hour_number <= 12:
            return None
        hour_number = hour_number % 12 + (12 if half.lower() == "pm" else 0)
    if hour_number > 23 or int(minute) > 59 or int(second) > 60:
        return None
    return f"{date}T{hour_number:02d}:{minute}:{second}" + (zone or "")
