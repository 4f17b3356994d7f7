"""Latency histograms in microseconds, the way YCSB's HdrHistogram measurement keeps them.

Buckets are exact below 2048 µs and then ~0.1% wide (three significant digits, as HdrHistogram
with 3 digits of precision): a value v >= 2048 falls in the bucket of width 2**e holding
v >> e in [1024, 2048). So 1,353 µs is kept as 1,353 and 72,191 µs to within 64 µs.

From a histogram come YCSB's figures: Operations, AverageLatency (the exact mean: the sum is kept
beside the buckets), MinLatency and MaxLatency (exact), and the percentiles as HdrHistogram
reports them: the highest value of the bucket where the cumulative count first reaches
ceil(p/100 x count), and never above the maximum. Histograms from several workers merge by
adding their buckets.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

EXACT_LIMIT = 2048  # values below are their own bucket
_SUB_BUCKETS = 1024  # buckets per power of two above EXACT_LIMIT


def bucket_of(value: int) -> int:
    if value < EXACT_LIMIT:
        return value if value > 0 else 0
    shift = value.bit_length() - 11
    return EXACT_LIMIT + (shift - 1) * _SUB_BUCKETS + ((value >> shift) - _SUB_BUCKETS)


def bucket_range(index: int) -> tuple[int, int]:
    """(lowest, highest) value a bucket holds."""
    if index < EXACT_LIMIT:
        return index, index
    shift = (index - EXACT_LIMIT) // _SUB_BUCKETS + 1
    lowest = ((index - EXACT_LIMIT) % _SUB_BUCKETS + _SUB_BUCKETS) << shift
    return lowest, lowest + (1 << shift) - 1


class LatencyHistogram:
    """Counts of latencies (integer microseconds) per bucket, with the exact count, sum, min, max."""

    __slots__ = ("counts", "count", "total", "min", "max")

    def __init__(self) -> None:
        self.counts: list[int] = [0] * EXACT_LIMIT
        self.count = 0
        self.total = 0
        self.min: int | None = None
        self.max: int | None = None

    def record(self, value: int) -> None:
        if value < 0:
            value = 0
        if value < EXACT_LIMIT:
            self.counts[value] += 1
        else:
            index = bucket_of(value)
            counts = self.counts
            if index >= len(counts):
                counts.extend([0] * (index + 1 - len(counts)))
            counts[index] += 1
        self.count += 1
        self.total += value
        if self.min is None or value < self.min:
            self.min = value
        if self.max is None or value > self.max:
            self.max = value

    def record_all(self, values: Iterable[int]) -> None:
        for value in values:
            self.record(value)

    def merge(self, other: LatencyHistogram) -> LatencyHistogram:
        if other.count == 0:
            return self
        if len(other.counts) > len(self.counts):
            self.counts.extend([0] * (len(other.counts) - len(self.counts)))
        for index, n in enumerate(other.counts):
            if n:
                self.counts[index] += n
        self.count += other.count
        self.total += other.total
        self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = other.max if self.max is None else max(self.max, other.max)
        return self

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def percentile(self, percent: float) -> int | None:
        """The highest value of the bucket where the running count reaches ceil(percent% of all)."""
        if not self.count:
            return None
        wanted = max(1, math.ceil(percent / 100.0 * self.count))
        running = 0
        for index, n in enumerate(self.counts):
            running += n
            if running >= wanted:
                highest = bucket_range(index)[1]
                return min(highest, self.max) if self.max is not None else highest
        return self.max

    def summary(self) -> dict[str, float | int | None]:
        return {
            "operations": self.count,
            "average_latency_us": self.mean,
            "min_latency_us": self.min,
            "max_latency_us": self.max,
            "p95_latency_us": self.percentile(95),
            "p99_latency_us": self.percentile(99),
        }

    # -- between processes: only the buckets in use travel -----------------------------------------

    def to_wire(self) -> tuple:
        used = [(index, n) for index, n in enumerate(self.counts) if n]
        return (used, self.count, self.total, self.min, self.max)

    @classmethod
    def from_wire(cls, wire: tuple) -> LatencyHistogram:
        used, count, total, low, high = wire
        histogram = cls()
        if used:
            last = used[-1][0]
            if last >= len(histogram.counts):
                histogram.counts.extend([0] * (last + 1 - len(histogram.counts)))
            for index, n in used:
                histogram.counts[index] = n
        histogram.count, histogram.total, histogram.min, histogram.max = count, total, low, high
        return histogram

    def __repr__(self) -> str:
        return f"<LatencyHistogram n={self.count} mean={self.mean} min={self.min} max={self.max}>"
