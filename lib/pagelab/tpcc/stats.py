"""Response-time statistics of a TPC-C run: per interval, and over the whole measurement.

Each terminal thread keeps its own `IntervalSample`s and hands each finished one to the driver
through a queue, never touching it again; the driver merges them, so counters cannot race
(tpcc-mysql's threads update shared arrays without locks). Samples completed during ramp-up are kept apart and never
reach the first measured interval (tpcc-mysql adds them to it).

Times are in milliseconds throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pagelab.common.transactions import TransactionKind

KINDS = tuple(TransactionKind)
# Clause 5.2.5.3: 90% of each type must complete within these limits. tpcc-mysql meant the same
# limits but compared them with milliseconds as if they were seconds (so ~all New-Orders were
# "late"); here they are milliseconds and can be changed per run.
DEFAULT_RESPONSE_LIMITS_MS = {
    TransactionKind.NEW_ORDER: 5000.0,
    TransactionKind.PAYMENT: 5000.0,
    TransactionKind.ORDER_STATUS: 5000.0,
    TransactionKind.DELIVERY: 80000.0,
    TransactionKind.STOCK_LEVEL: 20000.0,
}


def percentile(sorted_values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile of an ascending list; None when empty."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass
class IntervalSample:
    """What happened in one interval: response times per kind, and retries/failures/rollbacks."""

    latencies: dict[int, list[float]] = field(default_factory=lambda: {int(k): [] for k in KINDS})
    retries: dict[int, int] = field(default_factory=lambda: {int(k): 0 for k in KINDS})
    failures: dict[int, int] = field(default_factory=lambda: {int(k): 0 for k in KINDS})
    rollbacks: int = 0

    def record(self, kind: int, latency_ms: float, retries: int, rolled_back: bool) -> None:
        self.latencies[kind].append(latency_ms)
        self.retries[kind] += retries
        if rolled_back:
            self.rollbacks += 1

    def record_failure(self, kind: int, retries: int) -> None:
        self.failures[kind] += 1
        self.retries[kind] += retries

    def merge(self, other: "IntervalSample") -> None:
        for kind in self.latencies:
            self.latencies[kind].extend(other.latencies[kind])
            self.retries[kind] += other.retries[kind]
            self.failures[kind] += other.failures[kind]
        self.rollbacks += other.rollbacks

    def count(self, kind: int) -> int:
        return len(self.latencies[kind])

    def summary(self) -> dict[int, dict]:
        """count, p95, p99, max per kind (None where there were none)."""
        result = {}
        for kind, values in self.latencies.items():
            ordered = sorted(values)
            result[kind] = {
                "count": len(ordered),
                "p95": percentile(ordered, 0.95),
                "p99": percentile(ordered, 0.99),
                "max": ordered[-1] if ordered else None,
            }
        return result


@dataclass
class KindTotals:
    """tpcc-mysql's <Raw Results> row for one kind: sc (in time), lt (late), rt (retries), fl."""

    success: int = 0
    late: int = 0
    retries: int = 0
    failures: int = 0
    latency_sum_ms: float = 0.0
    max_ms: float = 0.0

    @property
    def completed(self) -> int:
        return self.success + self.late

    @property
    def average_ms(self) -> float:
        return self.latency_sum_ms / self.completed if self.completed else 0.0


def measurement_totals(intervals: list[IntervalSample], limits_ms: dict) -> dict[int, KindTotals]:
    totals = {int(k): KindTotals() for k in KINDS}
    for sample in intervals:
        for kind, values in sample.latencies.items():
            limit = limits_ms[TransactionKind(kind)]
            row = totals[kind]
            for value in values:
                if value <= limit:
                    row.success += 1
                else:
                    row.late += 1
                row.latency_sum_ms += value
                if value > row.max_ms:
                    row.max_ms = value
            row.retries += sample.retries[kind]
            row.failures += sample.failures[kind]
    return totals


def tpmc(totals: dict[int, KindTotals], measured_s: float) -> float:
    """New-Orders completed in the measurement (rollbacks included) per minute."""
    if measured_s <= 0:
        return 0.0
    return totals[int(TransactionKind.NEW_ORDER)].completed * 60.0 / measured_s


def interval_rows(intervals: list[IntervalSample], interval_s: float, measure_s: float) -> list[dict]:
    """The tidy `tpcc_intervals.csv` rows: t_s (end of interval) and count/p95/p99/max per kind."""
    rows = []
    for index, sample in enumerate(intervals):
        row: dict = {"t_s": min((index + 1) * interval_s, measure_s)}
        for kind, stats in sample.summary().items():
            prefix = TransactionKind(kind).column
            row[prefix] = stats["count"]
            row[f"{prefix}_p95_ms"] = _rounded(stats["p95"])
            row[f"{prefix}_p99_ms"] = _rounded(stats["p99"])
            row[f"{prefix}_max_ms"] = _rounded(stats["max"])
        row["retries"] = sum(sample.retries.values())
        row["failures"] = sum(sample.failures.values())
        row["new_order_rollbacks"] = sample.rollbacks
        rows.append(row)
    return rows


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
