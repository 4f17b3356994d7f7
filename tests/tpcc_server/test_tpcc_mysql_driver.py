"""tpcc-mysql driven by pagelab against a real MariaDB, with stand-ins for its programs (tpcc-mysql
is not built for the tests): stand-ins that replay a real captured tpcc_start log
(tests/fixtures/captured/mariadb-10.11/4k-w1-c4) check the arguments, the per-run socket account
and the password kept out of every process's arguments, environment and output; one that hangs
checks that a watch stops it and that it does not outlive a killed pagelab. The expected TpmC and
counts are that captured log's; the summary's keys are SUMMARY_KEYS (tests/tpcc_server/conftest.py),
the same as the built-in driver's."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions, TpccRunError
from pagelab.tpcc.external import run_tpcc_mysql, scrub
from tests.tpcc_server.conftest import SUMMARY_KEYS, BackgroundWatch, stand_in_directory

pytestmark = pytest.mark.server


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


class ProcessScanner(BackgroundWatch):
    """Reads every process's command line and environment, over and over, while a block runs, and
    keeps the pids whose text holds `secret` (and whether `marker` was ever seen, so the scan is
    known to have caught the program it is meant to watch)."""

    def __init__(self, secret: str, marker: str):
        self.secret, self.marker = secret.encode(), marker.encode()
        self.hits: list[str] = []
        self.saw_marker = False
        super().__init__()

    def _watch(self) -> None:
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


def test_scrub_masks_a_password_anywhere():
    assert scrub("       [pass]: hunter2\n", "hunter2") is None
    assert scrub("connect failed for root:hunter2\n", "hunter2") == "connect failed for root:********\n"
    assert scrub("  10, trx: 5\n", "hunter2") == "  10, trx: 5\n"
