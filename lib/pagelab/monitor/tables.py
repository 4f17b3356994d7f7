"""The monitor's tidy tables, built from the raw files of a run bundle after the samplers stop.

Captures nothing and runs no thread: it reads what the samplers left (iostat.json with
iostat_times.csv, innodb/NNNNN.txt with innodb/index.csv, global_status.csv) and writes

    iostat.csv      t_s, device, r_s, w_s, rkb_s, wkb_s, rareq_kb, wareq_kb, r_await_ms,
                    w_await_ms, aqu_sz, util_pct, then epoch, sample, timestamp and the rest
    innodb.csv      t_s, pool_pages, ... writes_s (DESIGN.md), then seq, slot, epoch and the rest,
                    one row per snapshot
    hit_ratio.csv   the hit ratio two ways per interval (hit_ratio.py)

Because it needs only the files, tables can be rebuilt from any bundle later, including one whose
run crashed before the monitor stopped (`write_tidy_tables(run_dir)`). Damaged or missing raw
files give fewer rows and a warning, never an exception.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_csv
from pagelab.common.errors import ParseError
from pagelab.monitor.global_status import GLOBAL_STATUS_FILE
from pagelab.monitor.hit_ratio import COLUMNS as HIT_RATIO_COLUMNS
from pagelab.monitor.hit_ratio import hit_ratio_rows
from pagelab.monitor.innodb import INDEX_FILE, SNAPSHOT_DIR, snapshot_name
from pagelab.monitor.iostat import IOSTAT_FILE, TIMES_FILE
from pagelab.monitor.sidecar import format_cell

IOSTAT_TABLE = "iostat.csv"
INNODB_TABLE = "innodb.csv"
HIT_RATIO_TABLE = "hit_ratio.csv"

IOSTAT_COLUMNS = (
    "t_s", "device", "r_s", "w_s", "rkb_s", "wkb_s", "rareq_kb", "wareq_kb",
    "r_await_ms", "w_await_ms", "aqu_sz", "util_pct",
)  # fmt: skip
INNODB_COLUMNS = (
    "t_s", "pool_pages", "free_pages", "database_pages", "old_pages", "dirty_pages",
    "pages_made_young", "pages_not_young", "pages_read", "pages_created", "pages_written",
    "hit_rate", "young_rate", "not_young_rate", "reads_s", "creates_s", "writes_s",
)  # fmt: skip
# Warnings kept per table in monitor_status.json; a damaged capture could otherwise produce thousands.
MAX_WARNINGS = 20


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    try:
        with open(path, newline="") as handle:
            return list(csv.DictReader(handle))
    except FileNotFoundError:
        return []


def _float(value: Any) -> float | None:
    try:
        return None if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return None


def write_table(path: Path, rows: Sequence[dict[str, Any]], leading: Sequence[str]) -> int:
    """Write rows as CSV: `leading` columns first (always, even with no rows), then any others in
    the order they first appear. Replaces the file atomically; returns the row count."""
    names = list(leading)
    seen = set(names)
    for row in rows:
        for key in row:
            if key not in seen:
                seen.add(key)
                names.append(key)
    atomic_write_csv(path, [names] + [[format_cell(row.get(name)) for name in names] for row in rows])
    return len(rows)


def iostat_rows(run_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Tidy iostat rows with t_s from the arrival times, and warnings."""
    from pagelab.parse import parse_iostat

    run_dir = Path(run_dir)
    try:
        text = (run_dir / IOSTAT_FILE).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return [], [f"{IOSTAT_FILE} is missing"]
    if not text.strip():
        return [], [f"{IOSTAT_FILE} is empty (iostat never started)"]
    try:
        result = parse_iostat(text)
    except ParseError as exc:
        # A run stopped within its first interval has a header and no report yet.
        return [], [f"{IOSTAT_FILE}: {exc}"]
    times = {int(row["sample"]): row for row in read_csv_rows(run_dir / TIMES_FILE) if row.get("sample", "").isdigit()}
    warnings = [f"{IOSTAT_FILE}: {message}" for message in result.warnings]
    rows = []
    for parsed in result.rows:
        arrival = times.get(parsed.get("sample"), {})
        if not arrival:
            warnings.append(f"{IOSTAT_FILE}: sample {parsed.get('sample')} has no arrival time in {TIMES_FILE}")
        rows.append({
            "t_s": _float(arrival.get("t_s")),
            **{name: parsed.get(name) for name in IOSTAT_COLUMNS[1:]},
            "epoch": _float(arrival.get("epoch")),
            **{key: value for key, value in parsed.items() if key not in IOSTAT_COLUMNS},
        })  # fmt: skip
    return rows, warnings


def innodb_rows(run_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """One tidy row per InnoDB status snapshot listed in innodb/index.csv, and warnings."""
    from pagelab.parse import parse_innodb_status

    snapshot_dir = Path(run_dir) / SNAPSHOT_DIR
    index = read_csv_rows(snapshot_dir / INDEX_FILE)
    if not index:
        return [], [f"{SNAPSHOT_DIR}/{INDEX_FILE} is missing or empty"]
    rows, warnings = [], []
    for entry in index:
        try:
            file_name = snapshot_name(int(entry["seq"]))
            text = (snapshot_dir / file_name).read_text(encoding="utf-8", errors="replace")
            result = parse_innodb_status(text)
        except (KeyError, ValueError, OSError, ParseError) as exc:  # ParseError is a ValueError too
            warnings.append(f"{SNAPSHOT_DIR}/seq {entry.get('seq')}: {exc}; no row")
            continue
        warnings.extend(f"{SNAPSHOT_DIR}/{file_name}: {message}" for message in result.warnings)
        if not result.rows:
            warnings.append(f"{SNAPSHOT_DIR}/{file_name}: no buffer pool section; no row")
            continue
        if len(result.rows) > 1:
            warnings.append(f"{SNAPSHOT_DIR}/{file_name}: {len(result.rows)} snapshots in one file; the first is used")
        parsed = result.rows[0]
        rows.append({
            "t_s": _float(entry.get("t_s")),
            **{name: parsed.get(name) for name in INNODB_COLUMNS[1:]},
            "seq": int(entry["seq"]),
            "slot": int(entry["slot"]) if entry.get("slot", "").isdigit() else None,
            "epoch": _float(entry.get("epoch")),
            "query_ms": _float(entry.get("query_ms")),
            **{key: value for key, value in parsed.items() if key not in INNODB_COLUMNS},
        })  # fmt: skip
    return rows, warnings


def write_tidy_tables(run_dir: str | os.PathLike) -> dict[str, Any]:
    """Write iostat.csv, innodb.csv and hit_ratio.csv into `run_dir`; rows and warnings per table."""
    run_dir = Path(run_dir)
    io_rows, io_warnings = iostat_rows(run_dir)
    status_rows, status_warnings = innodb_rows(run_dir)
    counters = read_csv_rows(run_dir / GLOBAL_STATUS_FILE)
    ratio_rows = hit_ratio_rows(status_rows, counters)
    report = {}
    for table, rows, leading, warnings in (
        (IOSTAT_TABLE, io_rows, IOSTAT_COLUMNS, io_warnings),
        (INNODB_TABLE, status_rows, INNODB_COLUMNS, status_warnings),
        (HIT_RATIO_TABLE, ratio_rows, HIT_RATIO_COLUMNS,
         [] if counters else [f"{GLOBAL_STATUS_FILE} is missing or empty: no counter hit ratio"]),
    ):  # fmt: skip
        report[table] = {
            "rows": write_table(run_dir / table, rows, leading),
            "warnings": _first(warnings, MAX_WARNINGS),
        }
    return report


def _first(messages: Iterable[str], limit: int) -> list[str]:
    messages = list(messages)
    if len(messages) <= limit:
        return messages
    return messages[:limit] + [f"... and {len(messages) - limit} more"]
