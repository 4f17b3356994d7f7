"""Run a real tpcc-mysql build (`tpcc_load`, `tpcc_start`) instead of the built-in workload.

For users who want the Week 4 lab's exact tool. The tables are created with pagelab's schema (the same
as tpcc-mysql's create_table.sql), `tpcc_load` fills them, and the indexes and foreign keys of
add_fkey_idx.sql follow, exactly as with the built-in loader. `tpcc_start`'s log goes through the
same parser as everyone else's, so the outputs (tpcc.log, tpcc_intervals.csv, summary.json) are the
same files, with the same summary schema, that the built-in modes write.

Logging in, by the run's transport. tpcc-mysql takes a password only as `-p`, where every local
user can read it (`ps`), and prints it in its header; root's password never goes there
(pagelab.mysql.program_account):
- tcp (the default, as tpcc-mysql is documented): `-h 127.0.0.1 -P PORT` as a per-run account
  limited to the benchmark's database and to 127.0.0.1, whose random one-time password is the
  only one in the program's argv; dropped when the program ends.
- socket (a pagelab MariaDB instance): `-S SOCKET` as a per-run unix_socket account, no password;
  the program runs as that account's OS user.
Against a server on another host over TCP, `-p` with the given password is the only way; pagelab
warns. Either way the `option p` and `[pass]` lines are dropped from the log as it streams.

A stalled server: tpcc_start prints a line per interval once measuring, nothing while it waits on
a server that stopped answering. A line not arriving `stall_s` after it was due (the ramp-up's
length after the RAMP-UP line, an interval after each other line) stops the program and fails the
run, named as a stall.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, UsageError
from pagelab.common.processes import die_with_parent, stop_process
from pagelab.common.transactions import TransactionKind
from pagelab.mysql.client import ConnectionSpec, recreate_database
from pagelab.mysql.program_account import ProgramIdentity, program_account, tcp_program_account
from pagelab.tpcc import schema
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
from pagelab.tpcc.stats import KindTotals


# How long tpcc_load or tpcc_start gets to exit after SIGTERM before SIGKILL: both exit at once on
# it (no handler), so a longer wait only means the program is stuck in the kernel.
STOP_GRACE_S = 10.0
# Host names that reach this machine: a per-run account limited to 127.0.0.1 can serve them.
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
# How long the account's statements may wait on the server (a stalled one answers nothing).
ADMIN_TIMEOUT_S = 10


def find_tpcc_mysql(directory: Path) -> tuple[Path, Path]:
    """tpcc_load and tpcc_start in `directory` (a tpcc-mysql checkout's root or its build output)."""
    if directory is None or not Path(directory).is_dir():
        raise UsageError(f"--tpcc-mysql-dir must be the directory of a tpcc-mysql build, got {directory}")
    found = []
    for name in ("tpcc_load", "tpcc_start"):
        candidates = [Path(directory) / name, Path(directory) / "src" / name]
        binary = next((c for c in candidates if c.is_file() and c.stat().st_mode & 0o111), None)
        if binary is None:
            raise MissingDependencyError(f"{name} not found in {directory}; build tpcc-mysql there first "
                                         f"(cd src && make) or point --tpcc-mysql-dir at the build")
        found.append(binary)
    return found[0], found[1]


@dataclass(frozen=True)
class ProgramLogin:
    """How a tpcc-mysql program logs in for one run (see the module comment)."""

    # -h, -P or -S, -d, -u and perhaps -p: what follows the program's name; out of the repr, as -p's value is a password
    flags: list[str] = field(repr=False)
    secret: str = field(default="", repr=False)  # the password in `flags`, masked in its output
    identity: ProgramIdentity | None = None  # the OS user it runs as (socket login); None: as us
    socket: str | None = None  # the socket its client library defaults to (MYSQL_UNIX_PORT)

    def without_socket_flag(self) -> list[str]:
        """The flags for tpcc_load, which has no -S (the socket goes in MYSQL_UNIX_PORT)."""
        flags = list(self.flags)
        if "-S" in flags:
            at = flags.index("-S")
            del flags[at:at + 2]
        return flags


@contextmanager
def _program_login(spec: ConnectionSpec, database: str, transport: str,
                   local_socket: str | None) -> Iterator[ProgramLogin]:
    """The login of a tpcc-mysql program for the block's length, over `transport`, with a per-run
    account where pagelab can make one (the module comment)."""
    if transport == "socket":
        if not local_socket:
            raise UsageError("transport socket for tpcc-mysql needs a pagelab MariaDB instance (--instance), "
                             "whose per-run socket account needs no password; use transport tcp")
        with _admin_cursor(spec) as cursor, program_account(cursor, database) as identity:
            yield ProgramLogin(["-h", "localhost", "-S", str(local_socket), "-d", database, "-u", identity.account],
                               identity=identity, socket=str(local_socket))
        return
    if not spec.host:
        raise UsageError("tpcc-mysql over TCP needs --host and --port (or --instance)")
    # "localhost" would make the client library take its default socket: the address, always.
    address = ["-h", "127.0.0.1" if spec.host in LOOPBACK_HOSTS else spec.host, "-P", str(spec.port or 3306),
               "-d", database]
    if spec.host in LOOPBACK_HOSTS:
        with _admin_cursor(spec) as cursor, tcp_program_account(cursor, database) as login:
            yield ProgramLogin(address + ["-u", login.account, "-p", login.password], secret=login.password)
        return
    if spec.password:
        print("pagelab: warning: tpcc_start takes the password on its command line, where other local users "
              "can see it (ps); against a server on this machine pagelab gives it a one-time account instead",
              file=sys.stderr)
    yield ProgramLogin(address + ["-u", spec.user] + (["-p", spec.password] if spec.password else []),
                       secret=spec.password)


@contextmanager
def _admin_cursor(spec: ConnectionSpec):
    """A cursor of `spec`'s own account, whose statements give up on a server that stopped answering."""
    admin = spec.with_database(None).connect(autocommit=True, read_timeout=ADMIN_TIMEOUT_S,
                                             write_timeout=ADMIN_TIMEOUT_S)
    try:
        yield admin.cursor()
    finally:
        admin.close()


def scrub(line: str, password: str) -> str | None:
    """The line as kept in logs: None for tpcc-mysql's password lines, the password masked elsewhere."""
    stripped = line.strip()
    if stripped.startswith("option p with value") or stripped.startswith("[pass]:"):
        return None
    if password and password in line:
        return line.replace(password, "********")
    return line


def _stream(command: list[str], log_path: Path | None, login: ProgramLogin, echo=sys.stdout, on_line=None,
            watch=None) -> int:
    """Run `command`, keeping its output (scrubbed of `login.secret`) in `log_path` and on `echo`;
    `on_line(line)` sees each kept line as it arrives. With a socket `login`, the program runs as
    its identity, and the client library's default socket (MYSQL_UNIX_PORT) is the instance's, for
    tpcc_load, which has no -S. The program's environment never holds a password.

    `watch()` is asked every WATCH_S whether the program must be stopped (a string says why): a
    server stuck on a full disk answers nothing, and tpcc_start would wait on it with no output and
    no time limit. Then the program is terminated and TpccRunError carries the reason."""
    handle = open(log_path, "w") if log_path else None
    identity = login.identity
    env = {name: value for name, value in os.environ.items() if name != "MYSQL_PWD"}
    if login.socket is not None:
        env["MYSQL_UNIX_PORT"] = login.socket
    try:
        # SIGTERM from Linux if this process dies without cleanup (kill -9): tpcc_start would
        # otherwise go on loading the server until its next write into the closed pipe.
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   stdin=subprocess.DEVNULL, env=env,
                                   preexec_fn=functools.partial(die_with_parent, signal.SIGTERM),
                                   **(identity.popen_arguments() if identity else {}))
        stopped_because = _watch_in_background(process, watch) if watch is not None else None
        try:
            for line in process.stdout:
                kept = scrub(line, login.secret)
                if kept is None:
                    continue
                for sink in (handle, echo):
                    if sink is not None:
                        sink.write(kept)
                        sink.flush()
                if on_line is not None:
                    on_line(kept)
            code = process.wait()
            if stopped_because:
                raise TpccRunError(f"{Path(command[0]).name} was stopped: {stopped_because[0]}"
                                   + (f"; partial log kept in {log_path}" if log_path else ""))
            return code
        except BaseException:
            stop_process(process, STOP_GRACE_S)
            raise
    finally:
        if handle:
            handle.close()


def _watch_in_background(process: subprocess.Popen, watch) -> list[str]:
    """Ask `watch()` every WATCH_S while `process` runs, from a daemon thread (the caller is blocked
    reading the program's output); on a reason, terminate the program, which ends that read. The
    list returned gets the reason."""
    reasons: list[str] = []

    def keep_watching() -> None:
        while process.poll() is None:
            reason = watch()
            if reason:
                reasons.append(reason)
                stop_process(process, STOP_GRACE_S)
                return
            time.sleep(WATCH_S)

    threading.Thread(target=keep_watching, name="tpcc-mysql watch", daemon=True).start()
    return reasons


class LineWatch:
    """When tpcc_start's next line is due: `rampup_s` after the RAMP-UP line (it prints nothing
    during the ramp-up), `interval_s` after any other, and soon after the header. A line not there
    `stall_s` after that means the server stopped answering."""

    def __init__(self, rampup_s: int, interval_s: int, stall_s: int):
        self.rampup_s, self.interval_s, self.stall_s = rampup_s, interval_s, stall_s
        self.last = time.monotonic()
        self.gap = 0

    def arrived(self, line: str) -> None:
        self.last = time.monotonic()
        self.gap = self.rampup_s if line.strip().startswith("RAMP-UP") else self.interval_s

    def stall(self, pid: int | None) -> str | None:
        silent = time.monotonic() - self.last
        if silent < self.gap + self.stall_s:
            return None
        return stall_message(f"tpcc_start printed nothing for {silent:.0f} s, its next line due {self.gap} s "
                             f"after its last", pid)


def load_with_tpcc_mysql(spec: ConnectionSpec, warehouses: int, database: str, directory: Path,
                         log_path: Path | None = None, echo=sys.stdout, local_socket: str | None = None,
                         transport: str = "tcp") -> None:
    """tpcc_load over `transport` into pagelab's schema, then the indexes and foreign keys."""
    tpcc_load, _ = find_tpcc_mysql(directory)
    admin = spec.with_database(None).connect(autocommit=True)
    try:
        cursor = admin.cursor()
        recreate_database(cursor, database)
        for statement in schema.create_table_statements():
            cursor.execute(statement)
        with _program_login(spec, database, transport, local_socket) as login:
            code = _stream([str(tpcc_load)] + login.without_socket_flag() + ["-w", str(warehouses)], log_path,
                           login, echo=echo)
        if code != 0:
            raise TpccRunError(f"tpcc_load exited with {code}" + (f"; see {log_path}" if log_path else ""))
        for setting in schema.LOAD_SESSION_SETTINGS:
            cursor.execute(setting)
        for statement in schema.secondary_index_statements() + schema.foreign_key_statements():
            cursor.execute(statement)
    finally:
        admin.close()


def _totals_from_log(parsed) -> dict[int, KindTotals]:
    """tpcc_start's <Raw Results> as pagelab's per-kind totals (max from the interval lines)."""
    totals = {int(kind): KindTotals() for kind in TransactionKind}
    for raw in parsed.meta.get("raw_results", []):
        index = raw.get("index")
        if index not in totals:
            continue
        row = totals[index]
        row.success, row.late, row.retries, row.failures = (raw.get(k) or 0 for k in ("sc", "lt", "rt", "fl"))
        row.latency_sum_ms = (raw.get("avg_rt_ms") or 0.0) * row.completed
        column = f"{TransactionKind(index).column}_max_ms"
        row.max_ms = max((r.get(column) or 0.0 for r in parsed.rows), default=0.0)
    return totals


def run_tpcc_mysql(spec: ConnectionSpec, options: RunOptions, out_dir: Path | None, echo=sys.stdout,
                   on_interval=None, on_start=None, local_socket: str | None = None, watch=None) -> RunResult:
    """tpcc_start with the run's -w -c -r -l -i; its log parsed into pagelab's tidy outputs.

    `on_start(measure_start)` is called when tpcc_start prints MEASURING START; `on_interval(t_s,
    row)` for each interval line it prints; `watch` as in `_stream`, and a stall (the module
    comment) stops it too."""
    from pagelab.parse import parse_tpcc_log

    options.validate()
    _, tpcc_start = find_tpcc_mysql(Path(options.tpcc_mysql_dir) if options.tpcc_mysql_dir else None)
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    log_path = Path(out_dir) / "tpcc.log" if out_dir else None
    link = spec.with_database(options.database).connect()
    try:
        facts = server_facts(link.cursor(), options.database)
        pid = server_pid(link.cursor())
    finally:
        link.close()
    started_wall = time.time()
    measurement = {"started_at": None, "lines": []}
    expected = LineWatch(options.rampup_s, options.interval_s, options.stall_s)

    def stalled() -> str | None:
        reason = watch() if watch is not None else None
        return reason or expected.stall(pid)

    def on_line(line: str) -> None:
        expected.arrived(line)
        measurement["lines"].append(line)
        if line.strip().startswith("MEASURING START") and measurement["started_at"] is None:
            measurement["started_at"] = time.time()
            if on_start is not None:
                on_start(time.monotonic())
        elif measurement["started_at"] is not None and on_interval is not None:
            rows = parse_tpcc_log("MEASURING START.\n" + line).rows
            if rows:
                on_interval(rows[0]["t_s"], rows[0])

    with _program_login(spec, options.database, options.transport, local_socket) as login:
        command = [str(tpcc_start)] + login.flags + [
            "-w", str(options.warehouses), "-c", str(options.connections), "-r", str(options.rampup_s),
            "-l", str(options.measure_s), "-i", str(options.interval_s)]
        expected.arrived("")  # the program starts now
        code = _stream(command, log_path, login, echo=echo, on_line=on_line, watch=stalled)
    text = "".join(measurement["lines"])
    parsed = parse_tpcc_log(text) if text else None
    if code != 0 or parsed is None or parsed.meta.get("tpmc") is None:
        raise TpccRunError(f"tpcc_start exited with {code} before reporting TpmC"
                           + (f"; partial log kept in {log_path}" if log_path else ""))
    summary = summary_record(options, facts, parsed.meta["tpmc"], _totals_from_log(parsed), started_at=started_wall,
                             measurement_started_at=measurement["started_at"], constants=None, load_info=None,
                             rampup_transactions=None, new_order_rollbacks=None, parse_warnings=parsed.warnings)
    write_outputs(Path(out_dir) if out_dir is not None else None, parsed.rows, summary)
    return RunResult(parsed.meta["tpmc"], summary, parsed.rows, log_path)
