"""A phase's results as YCSB prints them, and as tidy rows.

YCSB's text (its TextMeasurementsExporter with the HdrHistogram measurement, YCSB 0.6 and later):

    [OVERALL], RunTime(ms), 10110
    [OVERALL], Throughput(ops/sec), 98.91196834817013
    [READ], Operations, 511
    [READ], AverageLatency(us), 4182.493150684932
    [READ], MinLatency(us), 1250
    [READ], MaxLatency(us), 21535
    [READ], 95thPercentileLatency(us), 8095
    [READ], 99thPercentileLatency(us), 14911
    [READ], Return=OK, 511

RunTime is whole milliseconds; Throughput is 1000 x operations / RunTime; the average and the
throughput are Java doubles as Java's Double.toString writes them (4182.493150684932, 100.0,
1.2345678E7); the other figures are whole microseconds. One block per measurement: INSERT, READ,
UPDATE, READ-MODIFY-WRITE, and `<OP>-FAILED` for operations that did not return OK (their
latencies are kept apart, as YCSB keeps them; their count is in the operation's Return= lines).
YCSB prints a READ-MODIFY-WRITE block without Return= lines (it records no status for the
combined operation), and so does pagelab. Not printed: YCSB's JVM garbage-collector lines and
its CLEANUP block (pagelab has no JVM, and closing connections is not an operation here).

Tidy rows (`tidy_rows`): one per operation of the phase, plus an OVERALL row, with the columns of
data/reference/orientdb_ycsb.csv (workload, page_size, page_size_bytes, operation, latencies,
throughput_ops_s, total_time_s) and more. An operation's `throughput_ops_s` is its operations /
RunTime (the proposal's per-operation "Thoroughput = N op/secs"); OVERALL's is YCSB's Throughput.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_csv
from pagelab.workloads.ycsb.workloads import OPERATIONS, READ_MODIFY_WRITE

STATUS_ORDER = ("OK", "NOT_FOUND", "ERROR")

TIDY_COLUMNS = [
    "workload", "backend", "page_size", "page_size_bytes", "operation", "operations", "average_latency_us",
    "min_latency_us", "max_latency_us", "p95_latency_us", "p99_latency_us", "throughput_ops_s", "runtime_ms",
    "total_time_s", "return_ok", "return_not_found", "return_error", "ycsb_workload", "distribution", "records",
    "operation_count", "threads", "parallelism", "client", "seed", "pages_read", "pages_written", "client_cpu_s",
    "cache_bytes", "db_bytes",
]  # fmt: skip


def java_double(value: float) -> str:
    """A double as Java's Double.toString prints it: plain between 1e-3 and 1e7, else d.dddE±n."""
    value = float(value)
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        text = repr(value)  # shortest round-trip digits; Python writes this range without an exponent
        return text if "." in text else text + ".0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    digits_text = "".join(str(d) for d in digits).rstrip("0") or "0"
    power = len(digits) + exponent - 1
    mantissa = digits_text[0] + "." + (digits_text[1:] or "0")
    return ("-" if sign else "") + f"{mantissa}E{power}"


def measurement_names(histograms: dict, statuses: dict) -> list[str]:
    """The blocks to print, in a fixed order: each operation, then its -FAILED block."""
    names = []
    for operation in OPERATIONS:
        if operation in histograms or operation in statuses:
            names.append(operation)
        if f"{operation}-FAILED" in histograms:
            names.append(f"{operation}-FAILED")
    return names


def ycsb_text(result) -> str:
    """A PhaseResult in YCSB's text format (see the module docstring)."""
    lines = [f"[OVERALL], RunTime(ms), {result.runtime_ms}",
             f"[OVERALL], Throughput(ops/sec), {java_double(result.throughput)}"]
    for name in measurement_names(result.histograms, result.statuses):
        histogram = result.histograms.get(name)
        count = histogram.count if histogram is not None else 0
        lines.append(f"[{name}], Operations, {count}")
        if count:
            lines += [
                f"[{name}], AverageLatency(us), {java_double(histogram.mean)}",
                f"[{name}], MinLatency(us), {histogram.min}",
                f"[{name}], MaxLatency(us), {histogram.max}",
                f"[{name}], 95thPercentileLatency(us), {histogram.percentile(95)}",
                f"[{name}], 99thPercentileLatency(us), {histogram.percentile(99)}",
            ]
        if name != READ_MODIFY_WRITE:
            for status, n in sorted(result.statuses.get(name, {}).items(), key=_status_order):
                lines.append(f"[{name}], Return={status}, {n}")
    return "\n".join(lines) + "\n"


def _status_order(item: tuple[str, int]) -> tuple[int, str]:
    status = item[0]
    return (STATUS_ORDER.index(status) if status in STATUS_ORDER else len(STATUS_ORDER), status)


def per_operation_throughput(operations: int, runtime_ms: int) -> float | None:
    return 1000.0 * operations / runtime_ms if runtime_ms else None


def tidy_rows(result, labels: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per measurement of a PhaseResult and an OVERALL row; `labels` fill the run columns
    (backend, page_size, page_size_bytes, distribution, records, seed, ...)."""
    workload = result.workload
    common = {"workload": workload.name, "ycsb_workload": workload.letter, "runtime_ms": result.runtime_ms,
              "total_time_s": result.runtime_ms / 1000.0, "threads": result.threads,
              "parallelism": result.parallelism, "client": result.client, **labels}
    rows = []
    overall = {**common, "operation": "OVERALL", "operations": result.operations,
               "throughput_ops_s": result.throughput, "client_cpu_s": round(result.client_cpu_s, 3),
               **result.extra}
    rows.append(overall)
    for name in measurement_names(result.histograms, result.statuses):
        histogram = result.histograms.get(name)
        summary = histogram.summary() if histogram is not None else {"operations": 0}
        statuses = result.statuses.get(name, {}) if name != READ_MODIFY_WRITE else {}
        row = {**common, "operation": name, **summary,
               "throughput_ops_s": per_operation_throughput(summary["operations"], result.runtime_ms)}
        for status, n in statuses.items():
            row[f"return_{status.lower()}"] = n
        rows.append(row)
    return [_ordered(row) for row in rows]


def _ordered(row: dict[str, Any]) -> dict[str, Any]:
    ordered = {name: row.get(name) for name in TIDY_COLUMNS}
    ordered.update((key, value) for key, value in row.items() if key not in ordered)
    return ordered


def write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Rows to a CSV (missing values empty), written to a temporary file and renamed into place."""
    rows = list(rows)
    columns = list(TIDY_COLUMNS)
    for row in rows:
        columns += [key for key in row if key not in columns]
    atomic_write_csv(path, rows, columns, line_end="\n")
