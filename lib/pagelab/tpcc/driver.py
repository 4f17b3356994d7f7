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
from importlib import resources
from pathlib import Path
from typing import TextIO

from pagelab.common.atomic import atomic_write_csv
from pagelab.common.errors import UsageError
from pagelab.common.transactions import TransactionKind
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc import logformat
from pagelab.tpcc.deck import shared_deck
from pagelab.tpcc.loader import loaded_info
from pagelab.tpcc.outputs import (
    WATCH_S,
    RunOptions,
    RunResult,
    TpccRunError,
    server_facts,
    server_pid,
    stall_message,
    summary_record,
    write_outputs,
)
from pagelab.tpcc.random_primitives import NURandConstants, load_constants, run_constants
from pagelab.tpcc.schedule import (
    WARMUP_SAMPLE_S,
    PrecisionWatch,
    Schedule,
    WarmupSample,
    WarmupWatch,
    read_status,
)
from pagelab.tpcc.stats import IntervalSample, interval_rows, measurement_totals, tpmc

# How long terminals may take to connect, and to finish after the measurement ends (a Delivery
# stuck behind a lock wait can take innodb_lock_wait_timeout, 50 s by default).
CONNECT_TIMEOUT_S = 60.0
FINISH_GRACE_S = 90.0


def procedure_statements() -> list[str]:
    text = resources.files("pagelab.tpcc").joinpath("procedures.sql").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("-- ") or line.strip() == "-- @@")
    return [part.strip() for part in body.split("-- @@") if part.strip()]


def prepare_database(connection: ConnectionSpec, options: RunOptions) -> tuple[NURandConstants, dict, dict, int | None]:
    """Check the database holds enough warehouses, install the procedures (procedures mode), pick
    the NURand constants.

    Returns the run's constants, what the loader recorded, the server's facts and its process id
    (None when it is not on this machine)."""
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
        pid = server_pid(cursor)
    finally:
        link.close()
    return run_constants(load, options.seed), info, facts, pid


def check_transport(connection: ConnectionSpec, options: RunOptions) -> None:
    """The connection goes the way `options.transport` says, so summary.json tells the truth."""
    over = "socket" if connection.socket else "tcp"
    if over != options.transport:
        raise UsageError(f"transport {options.transport} asked, but the connection {connection.describe()} goes over "
                         f"{over}; give --transport {over}, or connect with "
                         + ("--host and --port" if options.transport == "tcp" else "--socket"))


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
    answers no query, and the terminals would wait on it until FINISH_GRACE_S); in every mode.
    A server that completes no transaction for `options.stall_s` fails the run, named as stalled."""
    options.validate()
    if not options.driver_mode.external:
        check_transport(connection, options)
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    if options.driver_mode.external:
        from pagelab.tpcc.external import run_tpcc_mysql

        return run_tpcc_mysql(connection, options, out_dir, echo=echo, on_interval=on_interval, on_start=on_start,
                              local_socket=local_socket, watch=watch)
    from pagelab.tpcc.executors import executor_for
    from pagelab.tpcc.terminal import Heartbeat, StartSignal, TerminalPlan, run_terminal

    constants, load_info, facts, pid = prepare_database(connection, options)
    output = _Output(out_dir / "tpcc.log" if out_dir else None, echo)
    server_label = server_label or (connection.host or "localhost")
    output.write(logformat.header(server_label, connection.port or connection.socket or "", options.database,
                                  connection.user, options.warehouses, options.connections, options.longest_rampup_s,
                                  options.longest_measure_s, options.interval_s, options.seed,
                                  options.driver_mode.driver, options.driver_mode.name))
    results: queue.Queue = queue.Queue()
    start = StartSignal()
    stop = threading.Event()
    heartbeat = Heartbeat()
    terminal_connection = connection.with_database(options.database)
    deck = shared_deck(options.seed)
    terminals = [
        threading.Thread(
            target=run_terminal,
            args=(TerminalPlan(t, options.warehouses, options.seed, constants, options.spec_pacing,
                               options.nurand_model, deck),
                  executor_for(options.driver_mode, terminal_connection), start, stop, results, heartbeat),
            name=f"tpcc-terminal-{t}", daemon=True)
        for t in range(1, options.connections + 1)
    ]
    schedule = Schedule(options.interval_s, max(1, -(-options.longest_measure_s // options.interval_s)))
    warmup = WarmupWatch(options.max_rampup_s) if options.rampup_auto else None
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
    # A stopped server would hold a status read forever, out of the stall watchdog's reach.
    status_link = (connection.connect(autocommit=True, read_timeout=options.stall_s, write_timeout=options.stall_s)
                   if warmup else None)
    try:
        for terminal in terminals:
            terminal.start()
        _wait_until_ready(terminals, results, options.connections)
        output.write(logformat.rampup_banner(options.longest_rampup_s))
        ramp_start = time.monotonic()
        if warmup is None:
            schedule.start_measuring(ramp_start + options.longest_rampup_s, provisional_measure_s)
        heartbeat.beat()
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
                    silent_s = time.monotonic() - heartbeat.last
                    failure = (stall_message(f"no transaction completed for {silent_s:.0f} s", pid)
                               if silent_s >= options.stall_s else
                               f"the server's status could not be read during the ramp-up: {exc}")
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
            if now - heartbeat.last >= options.stall_s:
                failure = stall_message(f"no transaction completed for {options.stall_s} s", pid)
                break
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
                     f"at most {options.max_rampup_s} s, or twice that while the pool is still filling")
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
