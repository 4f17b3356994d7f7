"""When a run's measurement starts and ends: fixed seconds (tpcc-mysql's -r and -l), or `auto`.

The run's controller (pagelab.tpcc.driver) owns a `Schedule` and its terminals read it before and
after every transaction: a transaction that finishes before `measure_start` is ramp-up, one that
finishes at or after `measure_end` counts for nothing, and in between it falls in interval
(finished - measure_start) // interval_s. With fixed seconds both instants are set when the
terminals start. With `auto` they start at infinity and the controller sets them as it learns:

- `WarmupWatch` (rampup_s: auto) samples the server every WARMUP_SAMPLE_S and starts the
  measurement once the buffer pool has stopped filling and both the work rate (rows written per
  second) and the pool's reads per second are level by MSER-5 (pagelab.evidence.steady), or at
  the cap, max_rampup_s. A pool still filling at the cap would put a cold pool's disk reads in
  the measurement, so the ramp-up goes on while it fills, for at most another max_rampup_s.
- `PrecisionWatch` (measure_s: auto) ends the measurement at the first interval boundary where
  the 95% batch-means interval of New-Orders per interval is within target_ci_pct of their mean,
  or at the cap, max_measure_s.

Each watch says which of its two reasons ended its phase, and the run's summary.json keeps it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pagelab.evidence.steady import BATCHES, MSER_BATCH, MIN_MSER_BATCHES, batch_means, mser5

# One second between warm-up samples: MSER-5 then averages 5 s per batch, so its minimum of 4
# batches is 20 s, short enough for the quick profile, and a decision comes at most 1 s after the
# series turns level. A SHOW GLOBAL STATUS a second costs the server nothing measurable.
WARMUP_SAMPLE_S = 1.0
# "Stopped filling": the pool's data pages grew by less than this share of the pool over the last
# POOL_SETTLE_S. A pool smaller than the data fills to its free-list reserve (InnoDB's LRU flusher
# keeps innodb_lru_scan_depth pages free, so "free = 0" never comes); one larger than the data
# stops where the touched data ends. Both read as "settled".
POOL_SETTLE_SHARE = 0.01
POOL_SETTLE_S = 10.0
# "Still filling" at the cap: the pool's data pages grew by at least FILLING_SHARE of the pool in each
# of the last FILLING_SAMPLES samples. A cold pool larger than the data grows every second, by a
# page per read (at 1 warehouse with a pool of 100% of the data, 8 s in: 500 reads/s, 4-17% of the
# pool still free); a full pool's free list only wobbles around its reserve, up one second and
# down the next. The cap's extension ends at the first second the pool did not grow so.
FILLING_SHARE = 0.005
FILLING_SAMPLES = 3
# How far past max_rampup_s a filling pool may take the ramp-up: a pool that fills more slowly
# than this is a configuration to change (a smaller pool, or a longer cap), not to wait out.
FILLING_CEILING = 2.0
# The batch-means interval needs at least this many intervals per batch, so that neighbouring
# intervals' correlation stays inside a batch (Law & Kelton's advice: batches much longer than
# the correlation).
MIN_INTERVALS_PER_BATCH = 2
# Rows written per second is the work rate: with a fixed mix it moves with New-Orders per second,
# and it reads the same in every mode. (MariaDB 10.11 leaves Innodb_rows_* at 0; the handler
# counters are kept for every storage engine.)
# Pages read per second is the other series the rule reads: a pool still settling its working set
# shows as reads that keep climbing while the work rate is already level.
STATUS_NAMES = ("Handler_write", "Handler_update", "Handler_delete", "Innodb_buffer_pool_reads",
                "Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_pages_total")


@dataclass
class Schedule:
    interval_s: float
    max_intervals: int  # the most the measurement may have: measure_s, or the cap with auto
    measure_start: float = math.inf  # time.monotonic(); inf while warming up
    measure_end: float = math.inf
    intervals: int = 0  # intervals measured, once measure_end is known

    @classmethod
    def fixed(cls, ramp_start: float, rampup_s: float, measure_s: float, interval_s: float) -> "Schedule":
        intervals = max(1, math.ceil(measure_s / interval_s - 1e-9))
        start = ramp_start + rampup_s
        return cls(interval_s, intervals, start, start + measure_s, intervals)

    def start_measuring(self, at: float, measure_s: float) -> None:
        """Measurement starts at `at` and ends `measure_s` later, unless end_after brings the end forward."""
        self.measure_start = at
        self.intervals = self.max_intervals
        self.measure_end = at + measure_s

    def end_after(self, intervals: int) -> None:
        # The count first: a terminal that sees the new end must also see the new count.
        self.intervals = intervals
        self.measure_end = self.measure_start + intervals * self.interval_s

    def index_of(self, finished: float) -> int | None:
        """-1 for ramp-up, the interval of a measured transaction, None after the end."""
        if finished >= self.measure_end:
            return None
        if finished < self.measure_start:
            return -1
        return min(int((finished - self.measure_start) // self.interval_s), self.max_intervals - 1)


@dataclass
class WarmupSample:
    t_s: float  # since the ramp-up started
    rows_per_s: float
    reads_per_s: float  # pages read from disk into the pool
    pages_data: int
    pages_free: int
    pages_total: int


@dataclass
class WarmupWatch:
    """Decides when the ramp-up of a `rampup_s: auto` run has reached steady state."""

    max_rampup_s: float
    samples: list[WarmupSample] = field(default_factory=list)
    ended_by: str | None = None  # "steady", "cap", "filled" (after the cap) or "ceiling" (still filling)
    cut_s: float | None = None  # where MSER-5 put the end of the warm-up transient
    filling_after_cap: bool = False  # the pool was still filling at the cap, and the ramp-up went on
    _last: tuple[float, int, int] | None = None  # (monotonic, rows written, pages read) so far

    def add(self, now: float, ramp_start: float, status: dict[str, int]) -> bool:
        """Record one sample of SHOW GLOBAL STATUS; True when the measurement should start now."""
        rows = sum(status.get(name, 0) for name in STATUS_NAMES[:3])
        reads = status.get("Innodb_buffer_pool_reads", 0)
        if self._last is not None and now > self._last[0]:
            elapsed = now - self._last[0]
            self.samples.append(WarmupSample(round(now - ramp_start, 3), (rows - self._last[1]) / elapsed,
                                             (reads - self._last[2]) / elapsed,
                                             status.get("Innodb_buffer_pool_pages_data", 0),
                                             status.get("Innodb_buffer_pool_pages_free", 0),
                                             status.get("Innodb_buffer_pool_pages_total", 0)))
        self._last = (now, rows, reads)
        elapsed = now - ramp_start
        if elapsed >= self.max_rampup_s:
            if self.pool_filling():
                if elapsed < FILLING_CEILING * self.max_rampup_s:
                    self.filling_after_cap = True
                    return False
                self.ended_by = "ceiling"
            else:
                self.ended_by = "filled" if self.filling_after_cap else "cap"
            return True
        if len(self.samples) < MSER_BATCH * MIN_MSER_BATCHES or not self.pool_settled():
            return False
        work = mser5([sample.rows_per_s for sample in self.samples])
        reads = mser5([sample.reads_per_s for sample in self.samples])
        if work.level and reads.level:
            self.ended_by = "steady"
            self.cut_s = self.samples[max(work.cut, reads.cut)].t_s
            return True
        return False

    def pool_filling(self) -> bool:
        """The pool's data pages grew by FILLING_SHARE of the pool in each of the last FILLING_SAMPLES samples."""
        recent = self.samples[-(FILLING_SAMPLES + 1):]
        if len(recent) < FILLING_SAMPLES + 1:
            return False
        return all(later.pages_data - earlier.pages_data >= FILLING_SHARE * max(later.pages_total, 1)
                   for earlier, later in zip(recent, recent[1:]))

    def pool_settled(self) -> bool:
        window = [s for s in self.samples if s.t_s >= self.samples[-1].t_s - POOL_SETTLE_S]
        if len(window) < 2 or self.samples[-1].t_s < POOL_SETTLE_S:
            return False
        growth = window[-1].pages_data - window[0].pages_data
        return growth < POOL_SETTLE_SHARE * max(window[-1].pages_total, 1)

    def record(self, rampup_s: float) -> dict:
        last = self.samples[-1] if self.samples else None
        return {"rule": "auto", "seconds": round(rampup_s, 3), "ended_by": self.ended_by,
                "max_rampup_s": self.max_rampup_s, "ceiling_s": FILLING_CEILING * self.max_rampup_s,
                "mser5_cut_s": self.cut_s, "sample_s": WARMUP_SAMPLE_S,
                "pages_free_at_start": last.pages_free if last else None,
                "pages_total": last.pages_total if last else None,
                "method": "MSER-5 on rows written and pages read per second, and the buffer pool no longer filling; "
                          "a pool still filling at the cap, up to twice the cap"}

    def rows(self) -> list[dict]:
        return [vars(sample) for sample in self.samples]


@dataclass
class PrecisionWatch:
    """Decides when a `measure_s: auto` run has measured TpmC precisely enough."""

    target_ci_pct: float
    ended_by: str | None = None  # "target" or "cap"
    ci_pct: float | None = None

    def enough(self, new_orders_per_interval: list[int], max_intervals: int) -> bool:
        """True when the measurement may end after the intervals given."""
        count = len(new_orders_per_interval)
        if count >= BATCHES * MIN_INTERVALS_PER_BATCH:
            interval = batch_means(new_orders_per_interval)
            if interval is not None:
                self.ci_pct = round(interval.half_width_pct, 3)
                if interval.half_width_pct <= self.target_ci_pct:
                    self.ended_by = "target"
                    return True
        if count >= max_intervals:
            self.ended_by = "cap"
            return True
        return False

    def record(self, measured_s: float, max_measure_s: float) -> dict:
        return {"rule": "auto", "seconds": measured_s, "ended_by": self.ended_by, "ci_pct": self.ci_pct,
                "target_ci_pct": self.target_ci_pct, "max_measure_s": max_measure_s,
                "method": f"95% non-overlapping batch means over {BATCHES} batches of New-Orders per interval"}


def read_status(cursor) -> dict[str, int]:
    cursor.execute("SHOW GLOBAL STATUS WHERE Variable_name IN (%s)" % ",".join(f"'{n}'" for n in STATUS_NAMES))
    return {name: int(value) for name, value in cursor.fetchall()}
