"""What every driver mode shares: the run's options, its result, and the files it writes.

The built-in driver (pagelab.tpcc.driver) and the tpcc-mysql one (pagelab.tpcc.external) both take
`RunOptions`, return `RunResult`, and write through `write_outputs` the same two tidy files:

    tpcc_intervals.csv   t_s, count/p95/p99/max per transaction kind (`write_interval_csv`)
    summary.json         TpmC and the run's parameters, one schema for every mode (`summary_record`)

Also here, since both drivers watch the server the same way: how often a run asks its `watch`
(WATCH_S), and the words for a server that stopped answering (`stall_message`, reading the
server's process state from /proc where it can).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagelab.common.atomic import atomic_write_csv, atomic_write_json, atomic_write_text
from pagelab.common.errors import PagelabError, UsageError
from pagelab.common.processes import PROCESS_STATES, process_state
from pagelab.common.transactions import TransactionKind
from pagelab.mysql.client import database_bytes
from pagelab.tpcc.inputs import NURAND_MODELS
from pagelab.tpcc.loader import DEFAULT_DATABASE
from pagelab.tpcc.modes import DEFAULT_MODE, DriverMode, mode_named
from pagelab.tpcc.random_primitives import NURandConstants
from pagelab.tpcc.schedule import FILLING_CEILING
from pagelab.tpcc.stats import DEFAULT_RESPONSE_LIMITS_MS, KindTotals

# How often a run's `watch` is asked: it reads the disk's free space, which costs a system call.
WATCH_S = 1.0
# How the driver reaches the server: TCP to 127.0.0.1 (as tpcc-mysql is documented and the Week 4 lab
# ran it) or the unix socket. Both modes of a comparison must use the same: on 2 cores the socket
# is worth 6-23% of TpmC.
TRANSPORTS = ("tcp", "socket")
DEFAULT_TRANSPORT = "tcp"
# Seconds without one completed transaction (built-in modes) or one log line past when it was
# due (tpcc-mysql) after which the server is taken to have stopped answering.
DEFAULT_STALL_S = 30


class TpccRunError(PagelabError):
    """The run could not finish; the partial log is kept and named in the message."""


@dataclass
class RunOptions:
    """tpcc_start's parameters (-w -c -r -l -i) plus what tpcc-mysql cannot vary."""

    warehouses: int = 1
    connections: int = 4
    rampup_s: int = 10
    measure_s: int = 60
    interval_s: int = 10
    seed: int = 1
    database: str = DEFAULT_DATABASE
    spec_pacing: bool = False
    response_limits_ms: dict = field(default_factory=lambda: dict(DEFAULT_RESPONSE_LIMITS_MS))
    mode: str = DEFAULT_MODE
    tpcc_mysql_dir: str = ""  # the tpcc-mysql build, for mode tpcc-mysql
    nurand_model: str = "tpcc-mysql"  # where NURand's C comes from (pagelab.tpcc.inputs.InputGenerator)
    # `auto` (pagelab.tpcc.schedule): a rule decides, up to the cap; rampup_s and measure_s are unused.
    rampup_auto: bool = False
    max_rampup_s: int = 600
    measure_auto: bool = False
    max_measure_s: int = 1200
    target_ci_pct: float = 5.0
    transport: str = DEFAULT_TRANSPORT  # tcp | socket (TRANSPORTS)
    stall_s: int = DEFAULT_STALL_S  # no progress for this long: the server stopped answering

    @property
    def longest_rampup_s(self) -> int:
        """With auto, a pool still filling at the cap may take the ramp-up past it (schedule.FILLING_CEILING)."""
        return math.ceil(FILLING_CEILING * self.max_rampup_s) if self.rampup_auto else self.rampup_s

    @property
    def longest_measure_s(self) -> int:
        return self.max_measure_s if self.measure_auto else self.measure_s

    @property
    def driver_mode(self) -> DriverMode:
        return mode_named(self.mode)

    def validate(self) -> None:
        def whole(name: str, value, minimum: int, flag: str) -> None:
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise UsageError(f"{name} ({flag}) must be a whole number of at least {minimum}, got {value!r}")

        whole("warehouses", self.warehouses, 1, "-w")
        whole("connections", self.connections, 1, "-c")
        whole("ramp-up seconds", self.rampup_s, 0, "-r")
        whole("ramp-up cap", self.max_rampup_s, 1, "--max-rampup")
        whole("measurement cap", self.max_measure_s, 1, "--max-measure")
        whole("interval seconds", self.interval_s, 1, "-i")
        whole("measurement seconds", self.measure_s, 1, "-l")
        whole("seed", self.seed, 0, "--seed")
        whole("stall seconds", self.stall_s, 1, "--stall")
        if self.transport not in TRANSPORTS:
            raise UsageError(f"transport must be one of {' '.join(TRANSPORTS)}, got {self.transport!r}")
        if self.longest_measure_s < self.interval_s:
            flag = "--max-measure" if self.measure_auto else "-l"
            raise UsageError(f"the measurement ({flag} {self.longest_measure_s}) is shorter than one interval "
                             f"(-i {self.interval_s}); make {flag} at least -i")
        self.mode = self.driver_mode.name  # an alias ("pagelab") reads as the mode it names
        if (self.rampup_auto or self.measure_auto) and self.driver_mode.external:
            raise UsageError(f"rampup_s/measure_s auto need one of pagelab's driver modes: {self.mode} runs "
                             "tpcc_start, which takes fixed -r and -l; give seconds, or another driver_mode")
        if not 0 < self.target_ci_pct <= 100:
            raise UsageError(f"target_ci_pct must be above 0 and at most 100, got {self.target_ci_pct!r}")
        if self.nurand_model not in NURAND_MODELS:
            raise UsageError(f"nurand_model must be one of {' '.join(NURAND_MODELS)}, got {self.nurand_model!r}")
        for kind, limit in self.response_limits_ms.items():
            if not limit > 0:
                raise UsageError(f"response-time limit for {TransactionKind(kind).name} must be positive, got {limit}")


@dataclass
class RunResult:
    tpmc: float
    summary: dict
    intervals: list[dict]
    log_path: Path | None



def server_facts(cursor, database: str) -> dict:
    """What summary.json records about the server the run measured."""
    cursor.execute("SELECT @@innodb_page_size, @@innodb_buffer_pool_size, VERSION()")
    page_size, pool, version = cursor.fetchone()
    return {"page_size_bytes": int(page_size), "buffer_pool_bytes": int(pool), "server": str(version),
            "db_bytes": database_bytes(cursor, database)}



def summary_record(options: RunOptions, facts: dict, result_tpmc: float, totals: dict[int, KindTotals],
                   *, started_at: float, measurement_started_at: float | None, constants: NURandConstants | None,
                   load_info: dict | None, rampup_transactions: int | None, new_order_rollbacks: int | None,
                   parse_warnings: list | None = None, rampup: dict | None = None,
                   measurement: dict | None = None) -> dict:
    """summary.json, the same keys for every mode; what a mode cannot know is null. `rampup` and
    `measurement` say how long each phase really was and what ended it (fixed seconds, or an
    `auto` rule and whether it was met or capped)."""
    mode = options.driver_mode
    rampup = rampup or {"rule": "fixed", "seconds": options.rampup_s}
    measurement = measurement or {"rule": "fixed", "seconds": options.measure_s}
    return {
        "tpmc": round(result_tpmc, 3),
        **facts,
        "warehouses": options.warehouses,
        "connections": options.connections,
        "rampup_s": rampup["seconds"],
        "measure_s": measurement["seconds"],
        "rampup": rampup,
        "measurement": measurement,
        "interval_s": options.interval_s,
        "seed": None if mode.external else options.seed,  # tpcc_start has no seed
        "nurand_model": "tpcc-mysql" if mode.external else options.nurand_model,
        "driver": mode.driver,
        "driver_mode": mode.name,
        "transport": options.transport,
        "spec_pacing": options.spec_pacing,
        "response_limits_ms": {TransactionKind(k).column: v for k, v in options.response_limits_ms.items()},
        "nurand_run_constants": constants.to_dict() if constants else None,
        "load_info": load_info,
        "rampup_transactions": rampup_transactions,
        "transactions": {TransactionKind(k).column: asdict(v) | {"average_ms": round(v.average_ms, 3)}
                         for k, v in totals.items()},
        "new_order_rollbacks": new_order_rollbacks,
        "started_at": started_at,
        "measurement_started_at": measurement_started_at,
        "parse_warnings": parse_warnings or [],
    }


def write_outputs(out_dir: Path | None, rows: list[dict], summary: dict) -> None:
    """tpcc_intervals.csv and summary.json, each written whole or not at all."""
    if out_dir is None:
        return
    write_interval_csv(Path(out_dir) / "tpcc_intervals.csv", rows)
    atomic_write_json(Path(out_dir) / "summary.json", summary)



def write_interval_csv(path: Path, rows: list[dict]) -> None:
    """The tidy interval table, whole or absent."""
    if rows:
        atomic_write_csv(path, rows, list(rows[0]))
    else:
        atomic_write_text(path, "")


def server_pid(cursor) -> int | None:
    """The server's process id, when it runs on this machine and its pid file can be read."""
    cursor.execute("SELECT @@pid_file")
    try:
        return int(Path(str(cursor.fetchone()[0])).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def server_state(pid: int | None) -> str:
    """'mysqld 12345, state T: stopped' from /proc/PID/stat, or what can be said without it."""
    if pid is None:
        return "server process not on this machine"
    letter = process_state(pid)
    if letter is None:
        return f"mysqld {pid}, gone"
    return f"mysqld {pid}, state {letter}: {PROCESS_STATES.get(letter, 'unknown')}"


def stall_message(what: str, pid: int | None) -> str:
    """The failure of a run whose server stopped answering: `what` says what stopped arriving."""
    return f"the server stopped answering: {what} ({server_state(pid)})"
