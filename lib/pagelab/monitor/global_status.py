"""`SHOW GLOBAL STATUS` every interval: every numeric counter, one row per sample.

Captures `global_status.csv` in the run bundle, wide: `t_s, seq, slot, epoch, clock_s, query_ms`,
then one column per numeric status variable, named as the server names it
(Innodb_buffer_pool_read_requests, Innodb_buffer_pool_reads, Innodb_pages_read, ...), values as
the server printed them. Text-valued variables (Ssl_cipher, wsrep_cluster_status, ON/OFF flags)
are left out. Stops when the run stops it, or by itself when the server dies (query_sampler.py).

Why wide and not long (one row per sample and variable): a sample is one instant at which all
counters were read together, and what users do with counters is subtract consecutive samples,
which on a wide table is `frame.diff()` with no pivot. It is also ~6x smaller (no repeated t_s
and names over ~500 variables), and a row per sample keeps the file appendable row by row, so a
crash loses nothing already read. The columns are fixed by the first sample; a variable that
appears later (a plugin loaded mid-run) is noted in the sampler's status, not added.
"""

from __future__ import annotations

import re
from pathlib import Path

from pagelab.monitor.clock import RunClock
from pagelab.monitor.query_sampler import TIME_COLUMNS, QuerySampler
from pagelab.monitor.sidecar import SidecarWriter

GLOBAL_STATUS_FILE = "global_status.csv"
STATEMENT = "SHOW GLOBAL STATUS"

# The counters the hit ratio and the I/O plots need: the first sample must have them.
REQUIRED_COUNTERS = (
    "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads",
    "Innodb_pages_read", "Innodb_pages_written", "Innodb_pages_created",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_data_read", "Innodb_data_written",
    "Innodb_os_log_written",
    "Innodb_buffer_pool_pages_total", "Innodb_buffer_pool_pages_data",
    "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free",
)  # fmt: skip

_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$")


def _text(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return "" if value is None else str(value)


def numeric_counters(rows) -> dict[str, str]:
    """(Variable_name, Value) rows -> {name: value text} for the values that are numbers."""
    counters = {}
    for name, value in rows:
        text = _text(value).strip()
        if _NUMERIC.match(text):
            counters[_text(name)] = text
    return counters


class GlobalStatusSampler(QuerySampler):
    name = "global_status"

    def __init__(self, connection_spec, interval_s: int, out_path, clock: RunClock, **options):
        super().__init__(connection_spec, interval_s, clock, **options)
        self.out_path = Path(out_path)
        self.counter_names: list[str] = []
        self._writer: SidecarWriter | None = None
        self._unexpected_names: set[str] = set()

    def _open_outputs(self) -> None:
        self.out_path.parent.mkdir(parents=True, exist_ok=True)

    def _take_sample(self, cursor, seq: int, slot: int, at: float) -> None:
        cursor.execute(STATEMENT)
        rows = cursor.fetchall()
        timing = self._time_columns(seq, slot, at)
        counters = numeric_counters(rows)
        if self._writer is None:
            missing = [name for name in REQUIRED_COUNTERS if name not in counters]
            if missing:
                self.status.notes.append(f"the server has no {', '.join(missing)}; those columns stay empty")
            self.counter_names = list(counters) + missing
            self._writer = SidecarWriter(self.out_path, [*TIME_COLUMNS, *self.counter_names])
        else:
            new = counters.keys() - set(self.counter_names) - self._unexpected_names
            if new:
                self._unexpected_names |= new
                self.status.notes.append(f"sample {seq}: variable(s) not in the first sample, not recorded: "
                                         f"{', '.join(sorted(new)[:10])}")
        self._writer.write({**timing, **counters})

    def _close_outputs(self) -> None:
        if self._writer is not None:
            self._writer.close()
