"""The TPC-C driver: N terminals, ramp-up then measurement, tpcc-mysql's log format.

    run(connection, RunOptions(warehouses=1, connections=4, rampup_s=10, measure_s=60, interval_s=10),
        out_dir=Path("run"))

`options.mode` chooses the driver mode (pagelab.tpcc.modes): `statements` (default) and
`procedures` run pagelab's terminals here; `tpcc-mysql` runs a real tpcc_start
(pagelab.tpcc.external) and reads its log. Every mode writes the same files into `out_dir`:

    tpcc.log             tpcc_start's format (header without password, interval lines, Raw Results,
                         Constraint Check, TpmC), written line by line as the run goes
    tpcc_intervals.csv   the tidy table: t_s, count/p95/p99/max per transaction kind
    summary.json         TpmC and the run's parameters, one schema for every mode (`summary_record`)

and calls `on_start(measure_start)` once, with the time.monotonic() instant at which the
measurement begins, so monitors share the run's clock.

The driver waits until every terminal has connected, then starts them together. It prints an
interval line once every terminal has reported that interval. If the server dies, the terminals
report it, the driver stops them all, keeps the partial log (marked as such) and raises
`TpccRunError`. Ctrl-C does the same and re-raises KeyboardInterrupt.
"""

from __future__ import annotations

import math
import queue
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import TextIO

from pagelab.common.atomic import atomic_write_csv, atomic_write_json, atomic_write_text
from pagelab.common.errors import PagelabError, UsageError
from pagelab.mysql.client import ConnectionSpec, database_bytes
from pagelab.tpcc import logformat
from pagelab.tpcc.inputs import (
    NURAND_MODELS,
    NURandConstants,
    TransactionKind,
    load_constants,
    run_constants,
    shared_deck,
)
from pagelab.tpcc.loader import DEFAULT_DATABASE, loaded_info
from pagelab.tpcc.modes import DEFAULT_MODE, DriverMode, mode_named
from pagelab.tpcc.schedule import (
    WARMUP_SAMPLE_S,
    PrecisionWatch,
    Schedule,
    WarmupSample,
    WarmupWatch,
    read_status,
)
from pagelab.tpcc.stats import (
    DEFAULT_RESPONSE_LIMITS_MS,
    IntervalSample,
    KindTotals,
    interval_rows,
    measurement_totals,
    tpmc,
)

# How long terminals may take to connect, and to finish after the measurement ends (a Delivery
# stuck behind a lock wait can take innodb_lock_wait_timeout, 50 s by default).
CONNECT_TIMEOUT_S = 60.0
FINISH_GRACE_S = 90.0
# How often run()'s `watch` is asked: it reads the disk's free space, which costs a system call.
WATCH_S = 1.0


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

    @property
    def longest_rampup_s(self) -> int:
        return self.max_rampup_s if self.rampup_auto else self.rampup_s

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


def procedure_statements() -> list[str]:
    text = resources.files("pagelab.tpcc").joinpath("procedures.sql").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("-- ") or line.strip() == "-- @@")
    return [part.strip() for part in body.split("-- @@") if part.strip()]


def server_facts(cursor, database: str) -> dict:
    """What summary.json records about the server the run measured."""
    cursor.execute("SELECT @@innodb_page_size, @@innodb_buffer_pool_size, VERSION()")
    page_size, pool, version = cursor.fetchone()
    return {"page_size_bytes": int(page_size), "buffer_pool_bytes": int(pool), "server": str(version),
            "db_bytes": database_bytes(cursor, database)}


def prepare_database(connection: ConnectionSpec, options: RunOptions) -> tuple[NURandConstants, dict, dict]:
    """Check the database holds enough warehouses, install the procedures (procedures mode), pick
    the NURand constants.

    Returns the run's constants, what the loader recorded, and the server's facts."""
    import mysql.connector

    try:
        link = connection.with_database(options.database).connect(autocommit=True)
    except mysql.connector.Error as exc:
        if exc.errno == 1049:
            raise UsageError(f"database {options.database!r} does not exist; load it first with "
                             f"`pagelab tpcc load -w {options.warehouses}`") from exc
        raise
    try:
        cursor = link.cursor()
        try:
            cursor.execute("SELECT COUNT(*) FROM warehouse")
        except mysql.connector.Error as exc:
            raise UsageError(f"database {options.database!r} has no TPC-C tables ({exc.msg}); "
                             f"load it with `pagelab tpcc load`") from exc
        loaded = int(cursor.fetchone()[0])
        if loaded < options.warehouses:
            raise UsageError(f"-w {options.warehouses} is more than the {loaded} warehouse(s) loaded in "
                             f"{options.database!r}; use -w {loaded} or load more with `pagelab tpcc load -w {options.warehouses}`")
        info = loaded_info(cursor)
        if info:
            load = NURandConstants(int(info["nurand_c_last"]), int(info["nurand_c_id"]), int(info["nurand_ol_i_id"]))
        else:  # loaded by tpcc-mysql's tpcc_load: its C-Load is unknown, take one from the seed
            load = load_constants(options.seed)
        if options.driver_mode.procedures:
            for statement in procedure_statements():
                cursor.execute(statement)
        facts = server_facts(cursor, options.database)
    finally:
        link.close()
    return run_constants(load, options.seed), info, facts


class _Output:
    """The log goes to a file (flushed per line, so a crash keeps it) and optionally a stream."""

    def __init__(self, path: Path | None, echo: TextIO | None):
        self.path = path
        self.file = open(path, "w") if path else None
        self.echo = echo

    def write(self, text: str) -> None:
        for sink in (self.file, self.echo):
            if sink is not None:
                sink.write(text)
                sink.flush()

    def close(self) -> None:
        if self.file:
            self.file.close()


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


def run(
    connection: ConnectionSpec,
    options: RunOptions,
    out_dir: Path | None = None,
    echo: TextIO | None = sys.stdout,
    on_interval=None,
    server_label: str | None = None,
    on_start=None,
    local_socket: str | None = None,
    watch=None,
) -> RunResult:
    """Run TPC-C in `options.mode`; see the module docstring. `on_interval(t_s, row)` is called per
    interval; `on_start(measure_start)` once, with the time.monotonic() instant at which the
    measurement begins. `local_socket`: the private socket of a pagelab MariaDB instance, over
    which tpcc_start logs in without a password (pagelab.tpcc.external). `watch()` is asked about
    once a second whether the run must end (a string says why: a server stuck on a full disk
    answers no query, and the terminals would wait on it until FINISH_GRACE_S); in every mode."""
    options.validate()
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    if options.driver_mode.external:
        from pagelab.tpcc.external import run_tpcc_mysql

        return run_tpcc_mysql(connection, options, out_dir, echo=echo, on_interval=on_interval, on_start=on_start,
                              local_socket=local_socket, watch=watch)
    from pagelab.tpcc.executors import executor_for
    from pagelab.tpcc.terminal import StartSignal, TerminalPlan, run_terminal

    constants, load_info, facts = prepare_database(connection, options)
    output = _Output(out_dir / "tpcc.log" if out_dir else None, echo)
    server_label = server_label or (connection.host or "localhost")
    output.write(logformat.header(server_label, connection.port or connection.socket or "", options.database,
                                  connection.user, options.warehouses, options.connections, options.longest_rampup_s,
                                  options.longest_measure_s, options.interval_s, options.seed,
                                  options.driver_mode.driver, options.driver_mode.name))
    results: queue.Queue = queue.Queue()
    start = StartSignal()
    stop = threading.Event()
    terminal_connection = connection.with_database(options.database)
    deck = shared_deck(options.seed)
    terminals = [
        threading.Thread(
            target=run_terminal,
            args=(TerminalPlan(t, options.warehouses, options.seed, constants, options.spec_pacing,
                               options.nurand_model, deck),
                  executor_for(options.driver_mode, terminal_connection), start, stop, results),
            name=f"tpcc-terminal-{t}", daemon=True)
        for t in range(1, options.connections + 1)
    ]
    schedule = Schedule(options.interval_s, max(1, -(-options.longest_measure_s // options.interval_s)))
    warmup = WarmupWatch(options.longest_rampup_s) if options.rampup_auto else None
    precision = PrecisionWatch(options.target_ci_pct) if options.measure_auto else None
    # An auto measurement starts with its end at the cap; PrecisionWatch may bring it forward.
    provisional_measure_s = options.longest_measure_s
    if warmup or precision:
        output.write(f"# pagelab: {auto_rules_text(options)}\n")
    merged: dict[int, IntervalSample] = {}
    reported: dict[int, int] = {}
    printed = -1
    ramp = IntervalSample()
    finished_terminals: set[int] = set()
    failure: str | None = None
    completed = False
    started_wall = time.time()
    measure_started_wall = None
    status_link = connection.connect(autocommit=True) if warmup else None
    try:
        for terminal in terminals:
            terminal.start()
        _wait_until_ready(terminals, results, options.connections)
        output.write(logformat.rampup_banner(options.longest_rampup_s))
        ramp_start = time.monotonic()
        if warmup is None:
            schedule.start_measuring(ramp_start + options.longest_rampup_s, provisional_measure_s)
        start.fire(schedule)
        next_sample = ramp_start
        next_watch = ramp_start + WATCH_S
        announced = False
        while len(finished_terminals) < len(terminals):
            now = time.monotonic()
            if watch is not None and now >= next_watch:
                next_watch = now + WATCH_S
                failure = watch()
                if failure:
                    break
            if warmup is not None and schedule.measure_start == math.inf and now >= next_sample:
                next_sample = now + WARMUP_SAMPLE_S
                try:
                    status = read_status(status_link.cursor())
                except Exception as exc:  # noqa: BLE001 - any failure to read the server ends the run
                    failure = f"the server's status could not be read during the ramp-up: {exc}"
                    break
                if warmup.add(now, ramp_start, status):
                    # now, not the sample's instant: what finished in between was still ramp-up
                    schedule.start_measuring(time.monotonic(), provisional_measure_s)
            if measure_started_wall is None and schedule.measure_start < math.inf:
                measure_started_wall = time.time() + (schedule.measure_start - now)
                if on_start is not None:
                    on_start(schedule.measure_start)
            if not announced and now >= schedule.measure_start:
                output.write(logformat.measuring_banner())
                announced = True
            if now > schedule.measure_end + FINISH_GRACE_S:
                failure = "terminals did not finish within {:.0f} s after the measurement ended".format(FINISH_GRACE_S)
                break
            try:
                message = results.get(timeout=0.2)
            except queue.Empty:
                dead = [t for t in terminals if not t.is_alive() and int(t.name.rsplit("-", 1)[1]) not in finished_terminals]
                if dead and results.empty():
                    failure = f"terminal {dead[0].name} ended without reporting"
                    break
                continue
            tag, terminal_number = message[0], message[1]
            if tag == "interval":
                index, sample = message[2], message[3]
                if index < 0:
                    ramp.merge(sample)
                    continue
                merged.setdefault(index, IntervalSample()).merge(sample)
                reported[index] = reported.get(index, 0) + 1
                while reported.get(printed + 1, 0) == len(terminals) and printed + 1 < schedule.intervals:
                    printed += 1
                    if not announced:
                        output.write(logformat.measuring_banner())
                        announced = True
                    t_s = min((printed + 1) * options.interval_s, options.longest_measure_s)
                    output.write(logformat.interval_line(t_s, merged[printed]))
                    if on_interval is not None:
                        on_interval(t_s, interval_rows([merged[printed]], options.interval_s, options.longest_measure_s)[0])
                    if precision is not None and precision.ended_by is None:
                        counts = [merged[i].count(int(TransactionKind.NEW_ORDER)) for i in range(printed + 1)]
                        if precision.enough(counts, schedule.max_intervals):
                            schedule.end_after(printed + 1)
            elif tag == "done":
                finished_terminals.add(terminal_number)
            elif tag == "error":
                kind, text = message[2], message[3]
                if kind == "server-gone":
                    failure = f"the server went away during the run (terminal {terminal_number}: {text})"
                else:
                    failure = f"terminal {terminal_number} failed: {text}"
                break
        completed = failure is None
    except KeyboardInterrupt:
        failure = "interrupted (Ctrl-C)"
        raise
    finally:
        stop.set()
        if status_link is not None:
            status_link.close()
        # A terminal finishes the transaction it is in (a lock wait can take a while); one still
        # busy after the grace is a daemon thread, ended with the process, its connection with it.
        deadline = time.monotonic() + (10 if completed else 2)
        for terminal in terminals:
            terminal.join(timeout=max(0.0, deadline - time.monotonic()))
        output.write(logformat.stopping_banner())
        if not completed:
            output.write(f"\n# pagelab: run aborted: {failure}\n")
            output.close()

    intervals = [merged.get(i, IntervalSample()) for i in range(schedule.intervals)]
    measured_s = min(schedule.intervals * options.interval_s, options.longest_measure_s)
    totals = measurement_totals(intervals, options.response_limits_ms)
    result_tpmc = tpmc(totals, measured_s)
    if not completed:
        where = f"; partial log kept in {output.path}" if output.path else ""
        raise TpccRunError(f"the TPC-C run did not finish: {failure}{where}")
    output.write(logformat.footer(totals, options.response_limits_ms, measured_s, result_tpmc))
    output.close()

    rows = interval_rows(intervals, options.interval_s, measured_s)
    rampup_s = round(schedule.measure_start - ramp_start, 3)
    summary = summary_record(options, facts, result_tpmc, totals, started_at=started_wall,
                             measurement_started_at=measure_started_wall, constants=constants, load_info=load_info,
                             rampup_transactions=sum(ramp.count(int(k)) for k in TransactionKind),
                             new_order_rollbacks=sum(s.rollbacks for s in intervals),
                             rampup=warmup.record(rampup_s) if warmup else None,
                             measurement=precision.record(measured_s, options.longest_measure_s) if precision else None)
    write_outputs(out_dir, rows, summary)
    if warmup is not None and out_dir is not None:
        atomic_write_csv(out_dir / "rampup_series.csv", warmup.rows(), list(vars(WarmupSample(0, 0, 0, 0, 0, 0))))
    return RunResult(result_tpmc, summary, rows, output.path)


def auto_rules_text(options: RunOptions) -> str:
    """The `auto` rules of a run, in words, for the log and the report."""
    parts = []
    if options.rampup_auto:
        parts.append(f"ramp-up until steady (buffer pool no longer filling and MSER-5 finds rows written and "
                     f"pages read per second level), "
                     f"at most {options.max_rampup_s} s")
    if options.measure_auto:
        parts.append(f"measurement until the 95% batch-means interval of TpmC is within {options.target_ci_pct:g}%, "
                     f"at most {options.max_measure_s} s")
    return "; ".join(parts)


def _wait_until_ready(terminals, results, expected: int) -> None:
    ready = 0
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while ready < expected:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TpccRunError(f"only {ready} of {expected} terminals connected within {CONNECT_TIMEOUT_S:.0f} s")
        try:
            message = results.get(timeout=min(remaining, 0.5))
        except queue.Empty:
            continue
        if message[0] == "ready":
            ready += 1
        elif message[0] == "error":
            raise TpccRunError(f"terminal {message[1]} could not connect: {message[3]}")


def write_interval_csv(path: Path, rows: list[dict]) -> None:
    """The tidy interval table, whole or absent."""
    if rows:
        atomic_write_csv(path, rows, list(rows[0]))
    else:
        atomic_write_text(path, "")
