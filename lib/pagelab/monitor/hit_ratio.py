"""The buffer pool hit ratio per interval, two ways, side by side.

A pure function of rows already captured; it samples nothing and has nothing to stop.

(a) `status_hit_rate_per_1000`: InnoDB's own "Buffer pool hit rate N / 1000" from each
    SHOW ENGINE INNODB STATUS snapshot; empty when the server printed "No buffer pool page gets
    since the last printout" (nothing was read, so there is no rate; it is not 0 and not 1000).
(b) `counter_hit_rate_per_1000`: 1000 * (1 - ΔInnodb_buffer_pool_reads /
    ΔInnodb_buffer_pool_read_requests) between consecutive SHOW GLOBAL STATUS samples.

Both are taken at the same instants (slot k of the run's grid), so they usually agree to about one
per mille. Why they can differ:

- Different windows. InnoDB averages over its own window, from its previous printout to this one
  ("Per second averages calculated from the last N seconds", in `status_window_s`, whole seconds).
  Any other caller of SHOW ENGINE INNODB STATUS (a user in another session, a monitoring agent)
  ends that window early, as do `innodb_status_output` and `innodb_status_file`, which print every
  15 s; and InnoDB restarts the window by itself once 60 s pass without a printout, so with an
  interval of 60 s or more (a) covers at most the last 60 s. The counters are exact deltas over
  exactly our interval (`counter_window_s`), whoever else asks.
- Different misses. InnoDB's line counts every page read into the pool, read-ahead included
  (`pages_read_delta` is the same count from Innodb_pages_read); Innodb_buffer_pool_reads
  counts only the reads a page request had to wait for. Read-ahead therefore lowers (a) but
  not (b).
- Rounding: (a) is an integer, rounded down; (b) keeps its fraction.
- Slot 0 has no (b): a delta needs a previous sample. Its (a) covers whatever came before
  monitoring started.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

READ_REQUESTS = "Innodb_buffer_pool_read_requests"
POOL_READS = "Innodb_buffer_pool_reads"
PAGES_READ = "Innodb_pages_read"

COLUMNS = (
    "t_s", "slot",
    "status_hit_rate_per_1000", "counter_hit_rate_per_1000", "difference_per_1000",
    "status_window_s", "counter_window_s",
    "read_requests_delta", "reads_delta", "pages_read_delta",
)  # fmt: skip


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _slot(row: Mapping[str, Any]) -> int | None:
    value = _number(row.get("slot"))
    return None if value is None else int(value)


def counter_hit_rate_per_1000(read_requests_delta: float | None, reads_delta: float | None) -> float | None:
    """1000 * (1 - reads / requests); None without requests (or after a counter reset)."""
    if read_requests_delta is None or reads_delta is None or read_requests_delta <= 0 or reads_delta < 0:
        return None
    return round(1000 * (1 - reads_delta / read_requests_delta), 3)


def _delta(current: Mapping[str, Any], previous: Mapping[str, Any], name: str) -> float | None:
    now, before = _number(current.get(name)), _number(previous.get(name))
    return None if now is None or before is None else now - before


def hit_ratio_rows(
    innodb_rows: Iterable[Mapping[str, Any]],
    global_status_rows: Iterable[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """One row per slot present in either input, in slot order (COLUMNS).

    innodb_rows: the tidy InnoDB rows (slot, t_s, hit_rate, averages_window_s).
    global_status_rows: global_status.csv rows (slot, t_s, clock_s and the counters).
    """
    by_slot_status = {_slot(row): row for row in innodb_rows if _slot(row) is not None}
    counters = sorted((row for row in global_status_rows if _slot(row) is not None), key=_slot)
    by_slot_counters: dict[int, dict[str, Any]] = {}
    previous = None
    for row in counters:
        entry: dict[str, Any] = {"t_s": _number(row.get("t_s"))}
        if previous is not None:
            requests, reads = _delta(row, previous, READ_REQUESTS), _delta(row, previous, POOL_READS)
            window = _delta(row, previous, "clock_s")
            entry.update(
                read_requests_delta=None if requests is None else int(requests),
                reads_delta=None if reads is None else int(reads),
                pages_read_delta=None if (pages := _delta(row, previous, PAGES_READ)) is None else int(pages),
                counter_window_s=None if window is None else round(window, 3),
                counter_hit_rate_per_1000=counter_hit_rate_per_1000(requests, reads),
            )
        by_slot_counters[_slot(row)] = entry
        previous = row

    rows = []
    for slot in sorted(by_slot_status.keys() | by_slot_counters.keys()):
        status = by_slot_status.get(slot, {})
        counter = by_slot_counters.get(slot, {})
        status_rate = _number(status.get("hit_rate"))
        counter_rate = counter.get("counter_hit_rate_per_1000")
        t_s = counter.get("t_s") if counter.get("t_s") is not None else _number(status.get("t_s"))
        rows.append({
            "t_s": t_s,
            "slot": slot,
            "status_hit_rate_per_1000": None if status_rate is None else int(status_rate),
            "counter_hit_rate_per_1000": counter_rate,
            "difference_per_1000": None if status_rate is None or counter_rate is None
            else round(counter_rate - status_rate, 3),
            "status_window_s": _number(status.get("averages_window_s")),
            "counter_window_s": counter.get("counter_window_s"),
            "read_requests_delta": counter.get("read_requests_delta"),
            "reads_delta": counter.get("reads_delta"),
            "pages_read_delta": counter.get("pages_read_delta"),
        })  # fmt: skip
    return rows
