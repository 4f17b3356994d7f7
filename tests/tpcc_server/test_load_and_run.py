"""The loader and the driver against real MariaDB: counts, consistency, the log, failures."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pagelab.common.errors import UsageError
from pagelab.mysql.client import ConnectionSpec
from pagelab.parse import parse_tpcc_log
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions, TpccRunError
from pagelab.tpcc.external import run_tpcc_mysql, scrub
from pagelab.tpcc.loader import consistency_violations, table_row_counts
from tests.conftest import pagelab_here
from tests.tpcc_server.conftest import stand_in_directory

pytestmark = pytest.mark.server


# summary.json's keys, the same for every driver mode; written out here, not taken from the code
# that writes them, so that a key lost or renamed in one mode fails the test.
SUMMARY_KEYS = {
    "tpmc", "page_size_bytes", "buffer_pool_bytes", "server", "db_bytes", "warehouses", "connections",
    "rampup_s", "measure_s", "rampup", "measurement", "interval_s", "seed", "nurand_model", "driver",
    "driver_mode", "spec_pacing", "response_limits_ms", "nurand_run_constants", "load_info",
    "rampup_transactions", "transactions", "new_order_rollbacks", "started_at", "measurement_started_at",
    "parse_warnings", "transport",
}


def test_load_gives_exact_counts_and_consistency(loaded, dataset):
    instance, report, _ = loaded
    assert report.row_counts == dataset.row_counts
    with instance.connect("tpcc") as connection:
        cursor = connection.cursor()
        counts = table_row_counts(cursor)
        assert counts["item"] == 100_000 and counts["stock"] == 100_000
        assert counts["customer"] == 30_000 and counts["orders"] == 30_000 and counts["new_orders"] == 9_000
        assert consistency_violations(cursor) == []
        cursor.execute("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='tpcc' "
                       "AND index_name IN ('idx_customer', 'idx_orders', 'fkey_stock_2', 'fkey_order_line_2')")
        assert cursor.fetchone()[0] > 0
        cursor.execute("SELECT COUNT(*) FROM information_schema.referential_constraints "
                       "WHERE constraint_schema='tpcc'")
        assert cursor.fetchone()[0] == 10
        cursor.execute("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        assert cursor.fetchone()[0] == 1, "the load-time flush setting was not restored"


def test_a_load_that_loses_a_deadlock_is_loaded_again(spare_loaded_instance, dataset, monkeypatch):
    """The deadlock is injected: the warehouse table's first LOAD DATA gets the error a deadlock
    victim gets (1213) instead of running, as the loading connections' race cannot be made to
    happen on purpose (it did, at 7 warehouses and 16k pages). Every other statement, and the
    second attempt, goes to the real server, and the load must come out whole."""
    from mysql.connector import errors as mysql_errors
    from mysql.connector.cursor import MySQLCursor

    from pagelab.tpcc.loader import load

    injected = []
    real_execute = MySQLCursor.execute

    def execute(cursor, operation, *args, **kwargs):
        if "INTO TABLE warehouse" in str(operation) and not injected:
            injected.append(operation)
            raise mysql_errors.DatabaseError(msg="Deadlock found when trying to get lock", errno=1213)
        return real_execute(cursor, operation, *args, **kwargs)

    monkeypatch.setattr(MySQLCursor, "execute", execute)
    report = load(ConnectionSpec.for_instance(spare_loaded_instance), dataset, database="tpcc_retry", progress=False)
    assert len(injected) == 1, "the warehouse table was never loaded"
    assert report.row_counts == dataset.row_counts


def test_a_server_frozen_in_mid_load_fails_the_load_and_says_so(spare_loaded_instance, dataset, monkeypatch):
    """A mysqld stopped (SIGSTOP) while a LOAD DATA of the stock table runs answers nothing; the load
    fails within its stall limit (shortened here from 300 s to 3) and says the server stopped
    answering, rather than waiting out the unit's hours-long limit."""
    from pagelab.tpcc import loader

    instance = spare_loaded_instance
    pid = instance.pid()
    monkeypatch.setattr(loader, "LOAD_STALL_S", 3)
    frozen = threading.Event()

    def freeze_in_a_stock_load():
        watcher = ConnectionSpec.for_instance(instance).with_database(None).connect(autocommit=True)
        try:
            cursor = watcher.cursor()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                cursor.execute("SELECT info FROM information_schema.processlist WHERE info LIKE 'LOAD DATA%'")
                if any("INTO TABLE stock" in (info or "") for (info,) in cursor.fetchall()):
                    os.kill(pid, signal.SIGSTOP)
                    frozen.set()
                    return
                time.sleep(0.01)
        finally:
            if not frozen.is_set():
                watcher.close()

    outcome: dict = {}

    def loading():
        try:
            loader.load(ConnectionSpec.for_instance(instance), dataset, database="tpcc_frozen", progress=False)
        except Exception as exc:  # noqa: BLE001 - what the load raised is the test's subject
            outcome["error"] = exc

    freezer = threading.Thread(target=freeze_in_a_stock_load, daemon=True)
    freezer.start()
    load_thread = threading.Thread(target=loading, daemon=True)
    load_thread.start()
    try:
        load_thread.join(timeout=60)
        still_waiting = load_thread.is_alive()
    finally:
        os.kill(pid, signal.SIGCONT)  # lets a load that still waits end, so the test cannot hang
        freezer.join(timeout=10)
        load_thread.join(timeout=60)
    assert frozen.is_set(), "the server was never frozen in a stock load"
    assert not still_waiting, "the load still waited on the frozen server after 60 s"
    # the stock file's LOAD DATA, or the next file's connection, is what waits on the frozen server
    assert isinstance(outcome.get("error"), loader.LoadError), outcome
    assert re.search(r"the server stopped answering: (LOAD DATA into stock|connecting to load \w+) from .* gave "
                     r"nothing back for 3 s", str(outcome["error"])), outcome["error"]


@pytest.fixture(scope="module", params=["statements", "procedures"])
def short_run(request, loaded, tmp_path_factory):
    """An 8 s run in each of pagelab's own modes; the tests below hold for both. Two intervals, and
    enough transactions (about 3,000 in statements mode at a load of 5) for the mix's bound to be read."""
    instance, _, _ = loaded
    out = tmp_path_factory.mktemp(f"run-{request.param}")
    options = RunOptions(warehouses=1, connections=4, rampup_s=1, measure_s=8, interval_s=4, seed=11,
                         mode=request.param)
    result = run(ConnectionSpec.for_instance(instance, tcp=True), options, out_dir=out, echo=None)
    return instance, result, out


def test_the_run_records_its_mode(short_run):
    _, result, out = short_run
    summary = json.loads((out / "summary.json").read_text())
    assert summary["driver"] == "pagelab" and summary["driver_mode"] in ("statements", "procedures")
    assert summary == result.summary
    assert set(summary) == SUMMARY_KEYS, set(summary) ^ SUMMARY_KEYS  # the same keys as tpcc-mysql's below
    assert f"[mode]: {summary['driver_mode']}" in (out / "tpcc.log").read_text()
    assert summary["measurement_started_at"] >= summary["started_at"]


def test_a_short_run_has_all_five_kinds_and_a_valid_mix(short_run):
    _, result, out = short_run
    transactions = result.summary["transactions"]
    completed = {kind: row["success"] + row["late"] for kind, row in transactions.items()}
    assert all(count > 0 for count in completed.values()), completed
    total = sum(completed.values())
    # Each terminal deals whole decks of 23 (10:10:1:1:1); its measured transactions are a run of
    # consecutive cards that starts and ends mid-deck, holding at least m/23 - 2 whole decks. Over
    # 4 terminals each one-card kind has at least total/23 - 8 and Payment 10 times that: the mix
    # of clause 5.2.3 (>= 43% / 4%) up to the partial decks at each end, even on a slow machine.
    full_decks = total / 23 - 8
    assert completed["payment"] >= 10 * full_decks
    for kind in ("order_status", "delivery", "stock_level"):
        assert completed[kind] >= full_decks, (kind, completed)
    if total >= 2000:  # enough decks that the unfinished ones cannot move a share past the bound
        log = (out / "tpcc.log").read_text()
        assert "[NG]" not in log.split("[transaction percentage]")[1].split("[response time")[0]


def test_the_log_parses_back_to_the_same_tpmc(short_run):
    _, result, out = short_run
    parsed = parse_tpcc_log((out / "tpcc.log").read_text())
    assert parsed.meta["tpmc"] == pytest.approx(result.tpmc, abs=0.001)
    assert [row["new_order"] for row in parsed.rows] == [row["new_order"] for row in result.intervals]
    assert len(parsed.rows) == 2


def test_outputs_follow_the_tidy_contract(short_run):
    _, result, out = short_run
    header = (out / "tpcc_intervals.csv").read_text().splitlines()[0].split(",")
    for column in ("t_s", "new_order", "new_order_p95_ms", "new_order_p99_ms", "new_order_max_ms", "payment",
                   "payment_max_ms", "order_status", "order_status_max_ms", "delivery", "delivery_max_ms",
                   "stock_level", "stock_level_max_ms", "stock_level_p99_ms"):
        assert column in header
    summary = json.loads((out / "summary.json").read_text())
    for key in ("tpmc", "page_size_bytes", "warehouses", "connections", "rampup_s", "measure_s",
                "buffer_pool_bytes", "db_bytes", "server", "seed", "driver"):
        assert key in summary
    assert summary["page_size_bytes"] == 4096
    assert summary["seed"] == 11
    assert summary["db_bytes"] > 50 << 20


def test_no_password_in_the_outputs(short_run):
    instance, _, out = short_run
    for path in out.iterdir():
        assert instance.password not in path.read_text()
    assert "[pass]" not in (out / "tpcc.log").read_text()


@pytest.mark.parametrize("changes, message", [
    (dict(warehouses=0), "warehouses \\(-w\\)"),
    (dict(connections=0), "connections \\(-c\\)"),
    (dict(measure_s=5, interval_s=10), "shorter than one interval"),
    (dict(interval_s=0), "interval seconds \\(-i\\)"),
    (dict(transport="pipe"), "transport must be one of tcp socket, got 'pipe'"),
    (dict(stall_s=0), "stall seconds \\(--stall\\) must be a whole number of at least 1"),
])
def test_bad_arguments_are_refused(changes, message):
    with pytest.raises(UsageError, match=message):
        RunOptions(**changes).validate()


def test_more_warehouses_than_loaded_is_refused(loaded):
    instance, _, _ = loaded
    with pytest.raises(UsageError, match="-w 3 is more than the 1 warehouse"):
        run(ConnectionSpec.for_instance(instance, tcp=True), RunOptions(warehouses=3, measure_s=10), echo=None)


def test_cli_bad_arguments_exit_2_with_a_message(loaded):
    instance, _, _ = loaded
    for args, text in ((["-w", "0"], "must be a whole number of at least 1"),
                       (["-w", "1", "-l", "5", "-i", "10"], "shorter than one interval"),
                       (["-w", "1", "-c", "0"], "connections (-c)")):
        done = pagelab_here("tpcc", "run", "--instance", instance.root, *args)
        assert done.returncode == 2, done.stderr
        assert text in done.stderr


def test_a_server_killed_mid_run_ends_the_run_and_keeps_the_partial_log(spare_loaded_instance, tmp_path):
    instance = spare_loaded_instance
    pid = instance.pid()
    killed_at: list[float] = []

    def kill_after_the_first_interval(t_s, row):
        # from the run's own clock, not a timer: on a slow machine setup alone can take seconds
        if not killed_at:
            os.kill(pid, signal.SIGKILL)
            killed_at.append(t_s)

    with pytest.raises(TpccRunError, match="server went away") as raised:
        run(ConnectionSpec.for_instance(instance, tcp=True),
            RunOptions(warehouses=1, connections=2, rampup_s=1, measure_s=60, interval_s=2), out_dir=tmp_path,
            echo=None, on_interval=kill_after_the_first_interval)
    assert killed_at == [2]
    assert "partial log kept" in str(raised.value)
    log = (tmp_path / "tpcc.log").read_text()
    assert "run aborted" in log
    partial = parse_tpcc_log(log)
    assert partial.rows, "intervals finished before the kill should be in the log"
    assert partial.meta.get("tpmc") is None


def test_a_watch_that_says_stop_ends_the_run_with_its_reason(loaded, tmp_path):
    """What a server stuck on a full disk gets (pagelab.sweep.experiment passes DiskWatch.failure): the
    run ends on the watch's word, within about a second, not after FINISH_GRACE_S."""
    instance, _, _ = loaded
    asked: list[int] = []

    def watch():
        asked.append(1)
        return "disk full (the stand-in says so)" if len(asked) >= 2 else None

    with pytest.raises(TpccRunError, match=r"disk full \(the stand-in says so\)"):
        run(ConnectionSpec.for_instance(instance, tcp=True),
            RunOptions(warehouses=1, connections=2, rampup_s=1, measure_s=60, interval_s=2), out_dir=tmp_path,
            echo=None, watch=watch)
    assert len(asked) == 2
    assert "run aborted: disk full" in (tmp_path / "tpcc.log").read_text()



def test_a_watch_stops_tpcc_mysql_too(loaded, tmp_path, fixtures_dir):
    """tpcc_start waiting on a stuck server prints nothing and has no time limit of its own: the
    watch ends it. A stand-in prints the start of a real tpcc_start log and then hangs (as one
    process, as tpcc_start is); without the watch it would end after 120 s with no TpmC."""
    instance, _, _ = loaded
    bin_dir = _hanging_stand_in(fixtures_dir)
    asked: list[int] = []

    def watch():
        asked.append(1)
        return "disk full (the watch says so)" if len(asked) >= 3 else None

    try:
        with pytest.raises(TpccRunError, match=r"tpcc_start was stopped: disk full \(the watch says so\); partial log"):
            run(ConnectionSpec.for_instance(instance, tcp=True),
                RunOptions(warehouses=1, connections=4, rampup_s=10, measure_s=60, interval_s=10,
                           mode="tpcc-mysql", tpcc_mysql_dir=str(bin_dir)),
                out_dir=tmp_path, echo=None, local_socket=str(instance.paths.socket), watch=watch)
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)
    assert len(asked) == 3
    kept = (tmp_path / "tpcc.log").read_text()
    assert "MEASURING START" in kept, "what tpcc_start printed before it was stopped is kept"
    assert not _stand_ins_running(), "the stand-in outlived the run"


# The stand-in's sleep, a duration no other process on the machine sleeps for: its mark in /proc.
STAND_IN_SLEEP = "119.731"


def _hanging_stand_in(fixtures_dir: Path) -> Path:
    """tpcc_load and tpcc_start stand-ins that print the start of a real tpcc_start log and then
    hang as one process (exec sleep), as tpcc_start waiting on a stuck server does. Any user may
    run them (under root the programs run as `nobody`); the caller removes the directory."""
    real_log = (fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log").read_text().splitlines()
    start = next(i for i, line in enumerate(real_log) if line.startswith("MEASURING START"))
    bin_dir = Path(tempfile.mkdtemp(prefix="pagelab-stand-in-"))
    bin_dir.chmod(0o755)
    (bin_dir / "begun.log").write_text("\n".join(real_log[: start + 3]) + "\n")
    (bin_dir / "begun.log").chmod(0o644)
    for name in ("tpcc_load", "tpcc_start"):
        (bin_dir / name).write_text(f"#!/bin/sh\ncat {bin_dir}/begun.log\nexec sleep {STAND_IN_SLEEP}\n")
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _stand_ins_running() -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if STAND_IN_SLEEP.encode() in argv:
            found.append(int(proc.name))
    return found


# Runs tpcc-mysql's mode against the connection pickled on stdin (never on a command line: it
# holds root's password), with the stand-ins in argv[1], writing into argv[2].
RUN_THEN_HANG = textwrap.dedent("""\
    import pickle, sys
    from pathlib import Path
    from pagelab.tpcc.driver import run
    from pagelab.tpcc.outputs import RunOptions
    spec, socket = pickle.load(sys.stdin.buffer)
    run(spec, RunOptions(warehouses=1, connections=4, rampup_s=10, measure_s=60, interval_s=10,
                         mode="tpcc-mysql", tpcc_mysql_dir=sys.argv[1]),
        out_dir=Path(sys.argv[2]), echo=None, local_socket=socket)
    """)


def test_tpcc_mysql_does_not_outlive_a_killed_pagelab(spare_loaded_instance, tmp_path, fixtures_dir):
    """kill -9 of the process that started tpcc_start runs none of its cleanup. Linux's
    parent-death signal ends the program, which would otherwise go on loading the server (the real
    one until its next write into the closed pipe; the stand-in for its whole sleep). The killed
    process leaves its per-run account behind (the next run replaces it), so this uses a spare
    server, not the shared one."""
    import pickle

    instance = spare_loaded_instance
    bin_dir = _hanging_stand_in(fixtures_dir)
    try:
        owner = subprocess.Popen([sys.executable, "-c", RUN_THEN_HANG, str(bin_dir), str(tmp_path / "out")],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        owner.stdin.write(pickle.dumps((ConnectionSpec.for_instance(instance, tcp=True), str(instance.paths.socket))))
        owner.stdin.close()
        deadline = time.monotonic() + 60
        while not _stand_ins_running() and owner.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _stand_ins_running(), f"the stand-in never started: {owner.stderr.read().decode()[-2000:]}"
        owner.kill()
        owner.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _stand_ins_running() and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _stand_ins_running()
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, "tpcc_start outlived the process that started it"
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)


def test_a_program_login_never_shows_its_password():
    from pagelab.tpcc.external import ProgramLogin

    login = ProgramLogin(["-h", "127.0.0.1", "-P", "3306", "-d", "tpcc", "-u", "me", "-p", "Zq9-one-time"],
                         secret="Zq9-one-time")
    assert "Zq9-one-time" not in repr(login) and "Zq9-one-time" not in str(login)

@pytest.fixture
def stand_in_tpcc_mysql(fixtures_dir):
    """tpcc-mysql is not built in the tests; a stand-in for each program records its arguments and
    its OS user, logs in over the socket it was given as that user (as the real programs do), holds
    on for a second so the test can look at every process, then replays a real tpcc_start log with
    a password line added. It lives in a directory any user can enter, since under root the
    programs run as `nobody`."""
    bin_dir, outbox, client = stand_in_directory(fixtures_dir)
    for name in ("tpcc_load", "tpcc_start"):
        script = bin_dir / name
        script.write_text(textwrap.dedent(f"""\
            #!/bin/sh
            echo "$@" > {outbox}/{name}.args
            id -un > {outbox}/{name}.user
            {client} --no-defaults -S "$MYSQL_UNIX_PORT" -u "$(id -un)" -N \\
                -e "SELECT CURRENT_USER(); SHOW GRANTS" > {outbox}/{name}.login 2>&1
            sleep 1
            echo "option p with value '$(echo "$@" | sed -e 's/.*-p //' -e 's/ .*//')'"
            cat {bin_dir}/tpcc_start.log
        """))
        script.chmod(0o755)
    yield bin_dir, outbox
    shutil.rmtree(bin_dir, ignore_errors=True)


class ProcessScanner:
    """Reads every process's command line and environment, over and over, while a block runs, and
    keeps the pids whose text holds `secret` (and whether `marker` was ever seen, so the scan is
    known to have caught the program it is meant to watch)."""

    def __init__(self, secret: str, marker: str):
        self.secret, self.marker = secret.encode(), marker.encode()
        self.hits: list[str] = []
        self.saw_marker = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._scan, daemon=True)

    def _scan(self) -> None:
        while not self._stop.is_set():
            for proc in Path("/proc").glob("[0-9]*"):
                for part in ("cmdline", "environ"):
                    try:
                        text = (proc / part).read_bytes()
                    except OSError:
                        continue
                    self.saw_marker |= part == "cmdline" and self.marker in text
                    if self.secret in text:
                        self.hits.append(f"{proc.name}/{part}")
            self._stop.wait(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)


def test_external_driver_plumbing(loaded, tmp_path, stand_in_tpcc_mysql):
    """A stand-in replays a real tpcc_start log (with a password line added) to check argument
    passing, the per-run socket account, password scrubbing and parsing. No process's arguments or
    environment hold the password while it runs. (Over TCP: tests/tpcc_server/test_transport.py.)"""
    instance, _, _ = loaded
    bin_dir, outbox = stand_in_tpcc_mysql
    out = tmp_path / "out"
    started = []
    with ProcessScanner(instance.password, "tpcc_start") as scanner:
        result = run_tpcc_mysql(ConnectionSpec.for_instance(instance),
                                RunOptions(warehouses=1, connections=4, rampup_s=10, measure_s=60, interval_s=10,
                                           mode="tpcc-mysql", tpcc_mysql_dir=str(bin_dir), transport="socket"),
                                out, echo=None, on_start=started.append, local_socket=str(instance.paths.socket))
    assert scanner.saw_marker, "the scan never saw tpcc_start running"
    assert scanner.hits == [], f"the password was readable in {scanner.hits}"
    assert result.tpmc == 11688.0
    args = (outbox / "tpcc_start.args").read_text().split()
    assert args[args.index("-c") + 1] == "4" and args[args.index("-l") + 1] == "60"
    # no password on the command line (any local user could read it with ps): the instance's socket
    assert "-p" not in args and instance.password not in " ".join(args)
    assert args[args.index("-S") + 1] == str(instance.paths.socket) and args[args.index("-h") + 1] == "localhost"
    # a per-run account named after the program's OS user, never root, granted the database alone
    program_user = (outbox / "tpcc_start.user").read_text().strip()
    assert program_user != "root" and args[args.index("-u") + 1] == program_user
    login = (outbox / "tpcc_start.login").read_text()
    assert login.splitlines()[0] == f"{program_user}@localhost", login
    grants = login.splitlines()[1:]
    assert grants and all("ON *.*" not in grant or "USAGE" in grant for grant in grants), grants
    assert any("`tpcc`.*" in grant for grant in grants), grants
    assert instance.query("SELECT COUNT(*) FROM mysql.user WHERE user = %s", (program_user,))[0][0] == 0, \
        "the run's account outlived the run"
    assert instance.password not in (out / "tpcc.log").read_text()
    assert "option p" not in (out / "tpcc.log").read_text()
    assert len((out / "tpcc_intervals.csv").read_text().splitlines()) == 7
    summary = json.loads((out / "summary.json").read_text())
    assert summary["driver"] == "tpcc-mysql" and summary["driver_mode"] == "tpcc-mysql"
    assert len(started) == 1, "the measurement start is signalled once, at tpcc_start's MEASURING START"
    # one summary schema for every mode: the built-in driver's keys (test_the_run_records_its_mode)
    assert set(summary) == SUMMARY_KEYS, set(summary) ^ SUMMARY_KEYS
    assert summary["transactions"]["new_order"]["success"] == 1183 and summary["transactions"]["new_order"]["late"] == 10505


def test_instances_listen_on_the_loopback_address_only(loaded):
    """Lab machines are shared and networked: a private server answers on 127.0.0.1 and its socket, nowhere else."""
    instance, _, _ = loaded
    listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True, check=True).stdout
    ours = [line for line in listening.splitlines() if f"pid={instance.pid()}," in line]
    assert ours, listening
    addresses = {line.split()[3].rsplit(":", 1)[0] for line in ours}
    assert addresses == {"127.0.0.1"}, ours


def test_scrub_masks_a_password_anywhere():
    assert scrub("       [pass]: hunter2\n", "hunter2") is None
    assert scrub("connect failed for root:hunter2\n", "hunter2") == "connect failed for root:********\n"
    assert scrub("  10, trx: 5\n", "hunter2") == "  10, trx: 5\n"


def test_cli_runs_against_a_server_given_by_host_port_and_password_file(loaded, tmp_path):
    instance, _, _ = loaded
    secret = tmp_path / "password"
    secret.write_text(instance.password + "\n")
    secret.chmod(0o600)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pagelab.cli", "tpcc", "run", "--host", "127.0.0.1",
                           "--port", str(instance.port), "--user", "root", "--password-file", str(secret),
                           "-w", "1", "-c", "2", "-r", "1", "-l", "4", "-i", "2", "--seed", "5", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "<TpmC>" in done.stdout and instance.password not in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 5 and summary["tpmc"] > 0
    assert "[seed]: 5" in (out / "tpcc.log").read_text()
