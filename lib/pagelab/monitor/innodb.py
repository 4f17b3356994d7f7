"""`SHOW ENGINE INNODB STATUS` every interval, each snapshot kept verbatim.

Captures, in `out_dir` (the run bundle):

    innodb/00001.txt, 00002.txt, ...   the Status text exactly as the server returned it
    innodb/index.csv                   t_s, seq, slot, epoch, clock_s, query_ms per snapshot

Stops when the run stops it, or by itself when the server dies (see query_sampler.py).

Each call also ends InnoDB's averaging window: the "Per second averages calculated from the last N
seconds" figures and the "Buffer pool hit rate" of a snapshot cover the time since the previous
printout, whoever asked for it. With this sampler alone that is exactly our interval.
"""

from __future__ import annotations

from pathlib import Path

from pagelab.monitor.clock import RunClock
from pagelab.monitor.query_sampler import TIME_COLUMNS, QuerySampler
from pagelab.monitor.sidecar import SidecarWriter

SNAPSHOT_DIR = "innodb"
INDEX_FILE = "index.csv"
STATEMENT = "SHOW ENGINE INNODB STATUS"


def snapshot_name(seq: int) -> str:
    return f"{seq:05d}.txt"


class InnodbStatusSampler(QuerySampler):
    name = "innodb_status"

    def __init__(self, connection_spec, interval_s: int, out_dir, clock: RunClock, **options):
        super().__init__(connection_spec, interval_s, clock, **options)
        self.snapshot_dir = Path(out_dir) / SNAPSHOT_DIR
        self.index_path = self.snapshot_dir / INDEX_FILE
        self._index: SidecarWriter | None = None

    def _open_outputs(self) -> None:
        self.snapshot_dir.mkdir(parents=True, exist_ok=True)
        self._index = SidecarWriter(self.index_path, TIME_COLUMNS)

    def _take_sample(self, cursor, seq: int, slot: int, at: float) -> None:
        cursor.execute(STATEMENT)
        rows = cursor.fetchall()
        timing = self._time_columns(seq, slot, at)
        # One row (Type, Name, Status); the text is the third column whatever the server version.
        status = rows[0][-1] if rows else ""
        if isinstance(status, (bytes, bytearray)):
            status = bytes(status).decode("utf-8", errors="replace")
        # newline="" keeps the server's line ends byte for byte.
        with open(self.snapshot_dir / snapshot_name(seq), "w", encoding="utf-8", newline="") as handle:
            handle.write(status)
        self._index.write(timing)

    def _close_outputs(self) -> None:
        if self._index is not None:
            self._index.close()
