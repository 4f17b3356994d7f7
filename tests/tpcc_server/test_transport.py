"""Every driver mode over the transport asked, the per-run TCP account of tpcc-mysql's programs,
and the stall watchdog, against real MariaDB.

The tpcc-mysql mode runs a stand-in (tpcc-mysql is not built in the tests): a shell script that
logs in the way its arguments say (TCP with -h/-P/-u/-p, or the socket as its OS user), records
what the server saw of it, then replays a real tpcc_start log or hangs, as the test needs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pagelab.common.processes import process_alive
from pagelab.mysql.client import ConnectionSpec
from pagelab.mysql.program_account import TCP_ACCOUNT
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions, TpccRunError
from tests.tpcc_server.conftest import BackgroundWatch, stand_in_directory

pytestmark = pytest.mark.server


def spec_for(instance, transport: str) -> ConnectionSpec:
    return ConnectionSpec.for_instance(instance, tcp=transport == "tcp")


class HostWatch(BackgroundWatch):
    """information_schema.PROCESSLIST.HOST of every connection to `database` but its own, read
    over the socket every 50 ms while a block runs."""

    def __init__(self, instance, database: str = "tpcc"):
        self.instance, self.database = instance, database
        self.hosts: set[str] = set()
        super().__init__()

    def _watch(self) -> None:
        with self.instance.connect() as link:
            link.autocommit = True
            cursor = link.cursor()
            while not self._stop.is_set():
                cursor.execute("SELECT host FROM information_schema.processlist WHERE db = %s "
                               "AND id <> CONNECTION_ID()", (self.database,))
                self.hosts.update(row[0] for row in cursor.fetchall())
                self._stop.wait(0.05)


def assert_over(hosts: set[str], transport: str) -> None:
    assert hosts, "no connection of the run was seen"
    if transport == "tcp":
        assert all(re.fullmatch(r"127\.0\.0\.1:\d+", host) for host in hosts), hosts
    else:
        assert hosts == {"localhost"}, hosts


@pytest.mark.parametrize("mode", ["statements", "procedures"])
@pytest.mark.parametrize("transport", ["tcp", "socket"])
def test_built_in_modes_go_over_the_transport_asked(loaded, tmp_path, mode, transport):
    instance, _, _ = loaded
    with HostWatch(instance) as watch:
        result = run(spec_for(instance, transport),
                     RunOptions(warehouses=1, connections=2, rampup_s=1, measure_s=2, interval_s=1, mode=mode,
                                transport=transport), out_dir=tmp_path, echo=None)
    assert_over(watch.hosts, transport)
    assert result.summary["transport"] == transport
    assert json.loads((tmp_path / "summary.json").read_text())["transport"] == transport


def test_a_connection_that_goes_another_way_is_refused_before_the_run(loaded, tmp_path):
    instance, _, _ = loaded
    from pagelab.common.errors import UsageError

    with pytest.raises(UsageError, match="transport tcp asked, but the connection .* goes over socket"):
        run(spec_for(instance, "socket"), RunOptions(warehouses=1, measure_s=2, interval_s=1, transport="tcp"),
            out_dir=tmp_path / "out", echo=None)
    assert not (tmp_path / "out" / "tpcc.log").exists()


@pytest.fixture
def stand_in(fixtures_dir):
    """tpcc_start and tpcc_load stand-ins. Each records its arguments, environment and pid, logs in
    as its arguments say and records CURRENT_USER(), its PROCESSLIST host, its grants and whether
    it can read mysql.user; then it waits for the file `go` (or `hang`: it sleeps on), and replays
    a real tpcc_start log with its -p echoed as tpcc_start echoes it."""
    bin_dir, outbox, client = stand_in_directory(fixtures_dir)
    for name in ("tpcc_load", "tpcc_start"):
        script = bin_dir / name
        script.write_text(textwrap.dedent(f"""\
            #!/bin/sh
            echo "$@" > {outbox}/{name}.args
            env > {outbox}/{name}.env
            echo $$ > {outbox}/{name}.pid
            host=""; port=""; user=""; pass=""; socket="$MYSQL_UNIX_PORT"
            while [ $# -gt 0 ]; do
                case "$1" in
                    -h) host="$2"; shift ;; -P) port="$2"; shift ;; -u) user="$2"; shift ;;
                    -p) pass="$2"; shift ;; -S) socket="$2"; shift ;;
                esac
                shift
            done
            if [ -n "$port" ]; then
                printf '[client]\\npassword=%s\\n' "$pass" > {outbox}/{name}.cnf
                login="--defaults-file={outbox}/{name}.cnf -h $host -P $port -u $user"
            else
                login="--no-defaults -S $socket -u $user"
            fi
            {client} $login -N -e "SELECT CURRENT_USER(); SELECT host FROM information_schema.processlist
                WHERE id = CONNECTION_ID(); SHOW GRANTS" > {outbox}/{name}.login 2>&1
            {client} $login -N -e "SELECT COUNT(*) FROM mysql.user" > {outbox}/{name}.other 2>&1
            rm -f {outbox}/{name}.cnf
            touch {outbox}/{name}.ready
            while [ ! -e {outbox}/go ]; do sleep 0.05; done
            [ -e {outbox}/hang ] && exec sleep 120
            echo "option p with value '$pass'"
            cat {bin_dir}/tpcc_start.log
        """))
        script.chmod(0o755)
    yield bin_dir, outbox
    shutil.rmtree(bin_dir, ignore_errors=True)


def tcp_accounts(instance) -> int:
    return instance.query("SELECT COUNT(*) FROM mysql.user WHERE user = %s", (TCP_ACCOUNT,))[0][0]


def wait_for(path: Path, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def run_stand_in(instance, bin_dir: Path, out: Path, transport: str, **changes):
    options = dict(warehouses=1, connections=4, rampup_s=10, measure_s=60, interval_s=10, mode="tpcc-mysql",
                   tpcc_mysql_dir=str(bin_dir), transport=transport)
    return run(spec_for(instance, transport), RunOptions(**(options | changes)), out_dir=out, echo=None,
               local_socket=str(instance.paths.socket))


@pytest.mark.parametrize("transport", ["tcp", "socket"])
def test_tpcc_mysql_goes_over_the_transport_asked(loaded, tmp_path, stand_in, transport):
    """tpcc_start's own connections come from 127.0.0.1 or the socket as asked; over TCP as a
    per-run account that exists only while the program runs, reaches the benchmark's database
    alone, and whose one-time password is in the program's argv and nowhere else."""
    instance, _, _ = loaded
    bin_dir, outbox = stand_in
    assert tcp_accounts(instance) == 0
    seen_while_running = []

    def release():
        wait_for(outbox / "tpcc_start.ready")
        seen_while_running.append(tcp_accounts(instance))
        (outbox / "go").touch()

    releaser = threading.Thread(target=release, daemon=True)
    releaser.start()
    result = run_stand_in(instance, bin_dir, tmp_path / "out", transport)
    releaser.join(timeout=30)
    assert result.summary["transport"] == transport
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["transport"] == transport
    current_user, host, *grants = (outbox / "tpcc_start.login").read_text().splitlines()
    args = (outbox / "tpcc_start.args").read_text().split()
    assert instance.password not in " ".join(args)
    if transport == "socket":
        assert host == "localhost" and "-p" not in args
        return
    assert re.fullmatch(r"127\.0\.0\.1:\d+", host), host
    assert current_user == f"{TCP_ACCOUNT}@127.0.0.1"
    assert seen_while_running == [1] and tcp_accounts(instance) == 0, "the account lives exactly as long as the program"
    assert any("`tpcc`.*" in grant for grant in grants), grants
    assert all("ON *.*" not in grant or "USAGE" in grant for grant in grants), grants
    assert "command denied" in (outbox / "tpcc_start.other").read_text(), "the account reached mysql.user"
    one_time = args[args.index("-p") + 1]
    assert len(one_time) >= 24 and one_time != instance.password
    assert one_time not in (outbox / "tpcc_start.env").read_text()
    for path in (tmp_path / "out").iterdir():
        assert one_time not in path.read_text(), f"the one-time password is in {path.name}"


def test_the_tcp_account_is_dropped_after_kill_9_of_the_program(loaded, tmp_path, stand_in):
    instance, _, _ = loaded
    bin_dir, outbox = stand_in
    (outbox / "hang").touch()
    seen_while_running = []

    def kill_it():
        wait_for(outbox / "tpcc_start.ready")
        seen_while_running.append(tcp_accounts(instance))
        os.kill(int((outbox / "tpcc_start.pid").read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_it, daemon=True)
    killer.start()
    with pytest.raises(TpccRunError, match=r"tpcc_start exited with -9 before reporting TpmC"):
        run_stand_in(instance, bin_dir, tmp_path / "out", "tcp")
    killer.join(timeout=30)
    assert seen_while_running == [1]
    assert tcp_accounts(instance) == 0, "the account outlived a program killed with -9"


def test_tpcc_load_over_tcp_gets_the_same_account(loaded, tmp_path, stand_in):
    """tpcc_load (into a database of its own, so the shared one stays loaded; the stand-in loads no
    rows) logs in as the per-run account too."""
    from pagelab.tpcc.external import load_with_tpcc_mysql

    instance, _, _ = loaded
    bin_dir, outbox = stand_in
    (outbox / "go").touch()
    try:
        load_with_tpcc_mysql(spec_for(instance, "tcp"), 1, "tpcc_load_test", bin_dir, echo=None,
                             local_socket=str(instance.paths.socket), transport="tcp")
    finally:
        instance.query("DROP DATABASE IF EXISTS tpcc_load_test")
    current_user, host, *grants = (outbox / "tpcc_load.login").read_text().splitlines()
    assert current_user == f"{TCP_ACCOUNT}@127.0.0.1" and host.startswith("127.0.0.1:")
    assert any("`tpcc_load_test`.*" in grant for grant in grants), grants
    assert "-S" not in (outbox / "tpcc_load.args").read_text().split()
    assert tcp_accounts(instance) == 0


def stop_server_soon(instance, after: threading.Event, delay_s: float = 1.0) -> threading.Thread:
    def stop_it():
        after.wait(60)
        time.sleep(delay_s)
        os.kill(instance.pid(), signal.SIGSTOP)

    thread = threading.Thread(target=stop_it, daemon=True)
    thread.start()
    return thread


def test_a_stopped_server_is_named_as_a_stall(spare_loaded_instance, tmp_path):
    instance = spare_loaded_instance
    pid = instance.pid()
    measuring = threading.Event()
    stopper = stop_server_soon(instance, measuring)
    with pytest.raises(TpccRunError, match=rf"the server stopped answering: no transaction completed for 3 s "
                                           rf"\(mysqld {pid}, state T: stopped\)"):
        run(spec_for(instance, "tcp"), RunOptions(warehouses=1, connections=2, rampup_s=1, measure_s=120, interval_s=1,
                                                  stall_s=3),
            out_dir=tmp_path, echo=None, on_start=lambda _: measuring.set())
    stopper.join(timeout=10)
    assert "run aborted: the server stopped answering" in (tmp_path / "tpcc.log").read_text()
    instance.stop()
    assert not process_alive(pid), "the stopped server was left running"


def test_tpcc_mysql_falling_silent_is_named_as_a_stall(spare_loaded_instance, tmp_path, stand_in):
    """The stand-in prints tpcc_start's start and then nothing, as tpcc_start does on a stopped server."""
    instance = spare_loaded_instance
    pid = instance.pid()
    bin_dir, outbox = stand_in
    (outbox / "go").touch()
    (outbox / "hang").touch()
    started = threading.Event()
    threading.Thread(target=lambda: (wait_for(outbox / "tpcc_start.ready"), started.set()), daemon=True).start()
    stopper = stop_server_soon(instance, started, delay_s=0.5)
    with pytest.raises(TpccRunError, match=rf"tpcc_start was stopped: the server stopped answering: tpcc_start "
                                           rf"printed nothing for \d+ s.*\(mysqld {pid}, state T: stopped\)"):
        run_stand_in(instance, bin_dir, tmp_path / "out", "tcp", rampup_s=1, interval_s=1, measure_s=60, stall_s=2)
    stopper.join(timeout=10)
    assert not process_alive(int((outbox / "tpcc_start.pid").read_text())), "tpcc_start outlived the run"
    instance.stop()
    assert not process_alive(pid), "the stopped server was left running"


def test_a_server_stopped_in_an_auto_ramp_up_is_named_as_a_stall(spare_loaded_instance, tmp_path):
    """The auto ramp-up reads the server's status once a second; a stopped server must not hold
    that read out of the watchdog's reach."""
    instance = spare_loaded_instance
    pid = instance.pid()
    connected = threading.Event()

    def when_connected():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            rows = instance.query("SELECT COUNT(*) FROM information_schema.processlist WHERE db = 'tpcc' "
                                  "AND id <> CONNECTION_ID()")
            if rows[0][0] >= 2:
                connected.set()
                return
            time.sleep(0.05)

    threading.Thread(target=when_connected, daemon=True).start()
    stopper = stop_server_soon(instance, connected, delay_s=1.5)
    with pytest.raises(TpccRunError, match=rf"the server stopped answering: no transaction completed for \d+ s "
                                           rf"\(mysqld {pid}, state T: stopped\)"):
        run(spec_for(instance, "tcp"), RunOptions(warehouses=1, connections=2, rampup_auto=True, max_rampup_s=60,
                                                  measure_s=10, interval_s=1, stall_s=3),
            out_dir=tmp_path, echo=None)
    stopper.join(timeout=10)
    assert "MEASURING START" not in (tmp_path / "tpcc.log").read_text(), "the server was stopped after the ramp-up"
    instance.stop()
    assert not process_alive(pid), "the stopped server was left running"
