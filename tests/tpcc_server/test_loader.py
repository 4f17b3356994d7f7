"""The TPC-C loader against a real MariaDB (the folder's shared server, loaded once with warehouse 1
from seed 7, and a spare restored from its snapshot for the tests that break their server): exact
row counts and consistency, a load that loses a deadlock loaded again, a frozen server failing the
load within its stall limit, and the loaded server listening on the loopback address only. The
expected counts are TPC-C's initial population of one warehouse (100,000 items and stock rows,
30,000 customers and orders, 9,000 new orders) and the generated dataset's own."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time

import pytest

from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.loader import consistency_violations, table_row_counts

pytestmark = pytest.mark.server


# The counts are read from an instance restored from the snapshot taken right after the load, not
# from the folder's shared server, which other files' tests run transactions on (they add orders):
# so they hold whatever order pytest and xdist run the files in.
def test_load_gives_exact_counts_and_consistency(loaded, spare_loaded_instance, dataset):
    instance, report, _ = loaded
    assert report.row_counts == dataset.row_counts
    with spare_loaded_instance.connect("tpcc") as connection:
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
    # the loader's own server, as the load left it: its flush setting put back
    with instance.connect("tpcc") as connection:
        cursor = connection.cursor()
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


def test_instances_listen_on_the_loopback_address_only(loaded):
    """Lab machines are shared and networked: a private server answers on 127.0.0.1 and its socket, nowhere else."""
    instance, _, _ = loaded
    listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True, check=True).stdout
    ours = [line for line in listening.splitlines() if f"pid={instance.pid()}," in line]
    assert ours, listening
    addresses = {line.split()[3].rsplit(":", 1)[0] for line in ours}
    assert addresses == {"127.0.0.1"}, ours
