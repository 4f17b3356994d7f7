"""What every sampler shares: its ticks on the run's grid, and the record of how it ended.

Captures nothing and stops nothing. `Schedule` puts samples at `anchor + k * interval` (slot k),
so they do not drift by the time each sample takes, and every sampler started on the same anchor
ticks at the same instants: slot k of the InnoDB status and of the global counters are the same
moment, each taken less than half an interval after it or skipped (and counted). iostat keeps its
own timer (iostat.py), started at the anchor: its reports end near the grid's instants and may
fall behind them on a busy machine. `SamplerStatus` is one sampler's entry in monitor_status.json.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import asdict, dataclass, field

# A slot missed by less than this fraction of an interval (a slow query, a busy CPU) is still taken,
# late; a slot missed by more is skipped, so samples stay on the grid and never bunch up.
LATE_SLOT_FRACTION = 0.5

STOPPED_BY_RUN = "stopped by the run"


@dataclass(frozen=True)
class Schedule:
    anchor_monotonic: float
    interval_s: int

    def due(self, slot: int) -> float:
        return self.anchor_monotonic + slot * self.interval_s

    def next_slot(self, after_slot: int, now: float | None = None) -> int:
        """The slot to take after `after_slot`: the next one, unless it was missed by too much."""
        now = time.monotonic() if now is None else now
        following = after_slot + 1
        if not self.missed(following, now):
            return following
        # The first slot still ahead of now (or only a little behind it).
        return max(following, math.ceil((now - self.anchor_monotonic) / self.interval_s - LATE_SLOT_FRACTION))

    def missed(self, slot: int, now: float) -> bool:
        """True when `now` is more than LATE_SLOT_FRACTION of an interval past the slot: too late to take it."""
        return now - self.due(slot) > LATE_SLOT_FRACTION * self.interval_s

    def wait_for(self, slot: int, stop: threading.Event) -> bool:
        """Sleep until slot is due; True if `stop` was set meanwhile (then take no sample)."""
        return stop.wait(max(0.0, self.due(slot) - time.monotonic()))


@dataclass
class SamplerStatus:
    """How one sampler ran: for monitor_status.json and for tests."""

    name: str
    samples: int = 0
    skipped_slots: int = 0
    errors: int = 0
    started_epoch: float | None = None
    stopped_epoch: float | None = None
    stopped_reason: str | None = None  # STOPPED_BY_RUN, or why it stopped by itself
    failed: bool = False
    detail: str | None = None  # e.g. the server's error log tail when it died
    # CPU seconds the sampler used on this machine (its thread; for iostat also the iostat
    # process), so every run records what monitoring cost it.
    cpu_s: float | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)
