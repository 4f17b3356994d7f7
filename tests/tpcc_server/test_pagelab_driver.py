"""pagelab's own TPC-C driver (its statements and procedures modes) run against a real MariaDB, the
folder's shared loaded server: what a short run records and writes (summary.json's keys, the
transaction mix, the log that parses back to the same TpmC, the tidy outputs, no password), bad
arguments refused, and a run ended by its server's death or by a watch that says stop. The
expected values are the run's own options (seed, page size, intervals), the mix of TPC-C clause
5.2.3 (bounds worked out in the test), and SUMMARY_KEYS (tests/tpcc_server/conftest.py), written
out by hand so that a key lost in one mode fails."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from pagelab.common.errors import UsageError
from pagelab.mysql.client import ConnectionSpec
from pagelab.parse import parse_tpcc_log
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions, TpccRunError
from tests.conftest import pagelab_here
from tests.tpcc_server.conftest import SUMMARY_KEYS

pytestmark = pytest.mark.server


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
