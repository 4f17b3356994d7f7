"""Samplers on the run's clock: iostat, InnoDB status and global status counters.

`Monitor` starts all three together and, when stopped, writes the tidy tables (iostat.csv,
innodb.csv, hit_ratio.csv) beside the raw captures. The samplers can also be used one by one.
Each module's docstring says what it captures and how it stops.
"""

from pagelab.monitor.clock import DEFAULT_INTERVAL_S, MIN_INTERVAL_S, RunClock, validate_interval
from pagelab.monitor.global_status import GlobalStatusSampler
from pagelab.monitor.hit_ratio import counter_hit_rate_per_1000, hit_ratio_rows
from pagelab.monitor.innodb import InnodbStatusSampler
from pagelab.monitor.iostat import IostatSampler, disks_for_datadir
from pagelab.monitor.monitor import STATUS_FILE, Monitor
from pagelab.monitor.schedule import SamplerStatus, Schedule
from pagelab.monitor.tables import write_tidy_tables

__all__ = [
    "DEFAULT_INTERVAL_S", "MIN_INTERVAL_S", "RunClock", "validate_interval",
    "Monitor", "STATUS_FILE",
    "IostatSampler", "InnodbStatusSampler", "GlobalStatusSampler", "disks_for_datadir",
    "SamplerStatus", "Schedule",
    "hit_ratio_rows", "counter_hit_rate_per_1000", "write_tidy_tables",
]  # fmt: skip
