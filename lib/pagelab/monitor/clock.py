"""The run's clock: one monotonic origin for every sampler, and the instant measurement starts.

Captures nothing itself and never stops; it only converts instants. Samplers note the
`time.monotonic()` instant of each sample; the clock turns it into

- `clock_s`: seconds since the clock was made (monitoring starts at about 0), always known;
- `t_s`: seconds since the start of measurement, the tidy tables' time axis (DESIGN.md),
  negative during ramp-up. It is only known once the measurement start is: either given when
  the clock is made, `RunClock(measure_start_monotonic)`, or marked later with
  `mark_measurement_start(at=None)`, because monitoring starts before the driver's ramp-up;
- `epoch`: Unix time, for the record only (the wall clock may jump; the monotonic one does not).

The interval rule shared by all samplers lives here too: whole seconds, at least 1, because
`iostat` takes its interval in whole seconds and every stream must tick at the same interval.
"""

from __future__ import annotations

import math
import threading
import time

from pagelab.common.errors import UsageError

DEFAULT_INTERVAL_S = 10
MIN_INTERVAL_S = 1


def validate_interval(interval_s, knob: str = "interval_s") -> int:
    """The sampling interval as an int, or UsageError naming `knob` and what is allowed."""
    whole = None
    if not isinstance(interval_s, bool) and isinstance(interval_s, (int, float)):
        if isinstance(interval_s, int):
            whole = interval_s
        elif math.isfinite(interval_s) and float(interval_s).is_integer():
            whole = int(interval_s)
    if whole is None or whole < MIN_INTERVAL_S:
        raise UsageError(
            f"the monitor interval ({knob}) must be a whole number of seconds, at least {MIN_INTERVAL_S} "
            f"(iostat counts whole seconds), got {interval_s!r}; the default is {DEFAULT_INTERVAL_S}"
        )
    return whole


class RunClock:
    """Seconds since measurement start for every sampler of one run (see the module docstring)."""

    def __init__(self, measure_start_monotonic: float | None = None):
        # Read together, so epoch_at() can place any monotonic instant on the wall clock.
        self.origin_monotonic = time.monotonic()
        self.origin_epoch = time.time()
        self._lock = threading.Lock()
        self._measure_start: float | None = None
        if measure_start_monotonic is not None:
            self.mark_measurement_start(measure_start_monotonic)

    @property
    def measurement_start_marked(self) -> bool:
        return self._measure_start is not None

    @property
    def measure_start_monotonic(self) -> float | None:
        return self._measure_start

    @property
    def measure_start_epoch(self) -> float | None:
        return None if self._measure_start is None else self.epoch_at(self._measure_start)

    def mark_measurement_start(self, at: float | None = None) -> float:
        """Set the measurement start to `at` (a time.monotonic() instant; now by default).

        May lie in the future (a driver knows its ramp-up length in advance). Only once: a second
        mark would silently move every t_s already reported.
        """
        instant = time.monotonic() if at is None else float(at)
        if not math.isfinite(instant):
            raise UsageError(f"the measurement start must be a time.monotonic() instant, got {at!r}")
        with self._lock:
            if self._measure_start is not None:
                raise UsageError(
                    f"the measurement start is already marked (at clock_s {self.clock_s(self._measure_start):.3f}); "
                    "mark it once per run"
                )
            self._measure_start = instant
        return instant

    def clock_s(self, at: float | None = None) -> float:
        """Seconds from the clock's origin to `at` (now by default)."""
        return (time.monotonic() if at is None else at) - self.origin_monotonic

    def t_s(self, at: float | None = None) -> float | None:
        """Seconds from measurement start to `at` (now by default), negative before it; None while
        the start is not marked yet."""
        start = self._measure_start
        if start is None:
            return None
        return (time.monotonic() if at is None else at) - start

    def t_s_of_clock_s(self, clock_s: float) -> float | None:
        """t_s of an instant recorded as clock_s (how sidecar files are filled in afterwards)."""
        return self.t_s(self.origin_monotonic + clock_s)

    def epoch_at(self, at: float | None = None) -> float:
        """Unix time of a monotonic instant, as the wall clock read when the clock was made."""
        return self.origin_epoch + self.clock_s(at)

    def to_dict(self) -> dict:
        """What monitor_status.json records, so t_s can be recomputed from any sidecar's clock_s."""
        start = self._measure_start
        return {
            "origin_epoch": round(self.origin_epoch, 6),
            "measurement_start_marked": start is not None,
            "measure_start_clock_s": None if start is None else round(self.clock_s(start), 6),
            "measure_start_epoch": None if start is None else round(self.epoch_at(start), 6),
        }

    def __repr__(self) -> str:
        start = "unmarked" if self._measure_start is None else f"measure start at clock_s {self.clock_s(self._measure_start):.3f}"
        return f"RunClock({start})"
