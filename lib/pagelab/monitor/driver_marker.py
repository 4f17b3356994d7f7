"""Marks the measurement start on a run's clock from the TPC-C driver's own log stream.

Captures nothing; it is a write-only text stream to pass as `pagelab.tpcc.driver.run(echo=...)`.
The driver writes its "RAMP-UP TIME.(N sec.)" line and in the very next statement fixes the
instant its terminals start, and measures from that instant plus N seconds. Seeing that line is
therefore the ramp-up's start to within microseconds, and the measurement start is N seconds
later. Everything written is passed on to `echo` (None: nowhere). It stops with the run.

This exists because the driver offers no callback for the instant; a hook in the driver would
make it unnecessary.
"""

from __future__ import annotations

import re
import time
from typing import TextIO

from pagelab.errors import UsageError

_RAMP_UP_BANNER = re.compile(r"RAMP-UP TIME\.\((\d+) sec\.\)")


class MeasurementStartMarker:
    """`marker = MeasurementStartMarker(monitor)`; `run(spec, options, echo=marker)`.

    `target` is anything with `mark_measurement_start(at)`: a Monitor or a RunClock.
    """

    def __init__(self, target, echo: TextIO | None = None):
        self.target = target
        self.echo = echo
        self.measure_start_monotonic: float | None = None
        self.note: str | None = None  # why the mark was not set, if it was not
        self._pending = ""

    def write(self, text: str) -> int:
        seen_at = time.monotonic()
        if self.measure_start_monotonic is None:
            # The banner comes in one write; the tail of the previous write covers a split anyway.
            window = self._pending + text
            match = _RAMP_UP_BANNER.search(window)
            if match:
                self.measure_start_monotonic = seen_at + int(match.group(1))
                self._pending = ""
                try:
                    self.target.mark_measurement_start(self.measure_start_monotonic)
                except UsageError as exc:
                    # Already marked by hand: keep that mark and the run going; bookkeeping must
                    # not abort a benchmark halfway.
                    self.note = str(exc)
            else:
                self._pending = window[-64:]
        if self.echo is not None:
            self.echo.write(text)
        return len(text)

    def flush(self) -> None:
        if self.echo is not None:
            self.echo.flush()
