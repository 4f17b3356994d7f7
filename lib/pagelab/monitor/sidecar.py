"""Small CSV files written one row per sample, flushed at once, so a crash keeps every row so far.

Captures what the samplers hand it and stops when closed. Each row carries `clock_s` (always
known) and `t_s` (empty while the measurement start is not marked yet: monitoring starts before
the ramp-up). `fill_t_s` rewrites a finished file with every t_s filled in from clock_s.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from pagelab.common.atomic import atomic_write_csv
from pagelab.monitor.clock import RunClock

# Milliseconds are plenty: samples are at least a second apart, and the clocks are read in
# different threads a few microseconds from the event they time.
TIME_DECIMALS = 3


def format_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def rounded_time(value: float | None) -> float | None:
    return None if value is None else round(value, TIME_DECIMALS)


class SidecarWriter:
    """Append rows to a CSV file with a fixed header; each row is flushed as it is written."""

    def __init__(self, path: Path, columns: Sequence[str]):
        self.path = Path(path)
        self.columns = list(columns)
        self._file = open(self.path, "w", newline="")
        self._writer = csv.writer(self._file)
        self._writer.writerow(self.columns)
        self._file.flush()
        self.rows = 0

    def write(self, row: dict) -> None:
        self._writer.writerow([format_cell(row.get(name)) for name in self.columns])
        self._file.flush()
        self.rows += 1

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def fill_t_s(path: Path, clock: RunClock) -> int:
    """Rewrite `path` (a CSV with clock_s and t_s columns) with t_s computed from clock_s.

    Returns the number of rows. Does nothing while the measurement start is unknown, or when
    the file is missing or has no such columns. The new file replaces the old one atomically.
    """
    path = Path(path)
    if not clock.measurement_start_marked or not path.exists():
        return 0
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows or "clock_s" not in rows[0] or "t_s" not in rows[0]:
        return 0
    header = rows[0]
    clock_column, t_column = header.index("clock_s"), header.index("t_s")
    for row in rows[1:]:
        if len(row) > max(clock_column, t_column) and row[clock_column]:
            try:
                row[t_column] = format_cell(rounded_time(clock.t_s_of_clock_s(float(row[clock_column]))))
            except ValueError:
                continue  # a damaged cell stays as it was
    atomic_write_csv(path, rows)
    return len(rows) - 1
