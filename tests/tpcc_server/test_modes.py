"""The driver modes against real MariaDB: same rows written, what goes over the wire, bad modes."""

from __future__ import annotations

import random
import re

import pytest

from pagelab.common.errors import UsageError
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.driver import prepare_database, run
from pagelab.tpcc.outputs import RunOptions
from pagelab.tpcc.executors import ProceduresExecutor, StatementsExecutor
from pagelab.tpcc.inputs import InputGenerator
from pagelab.tpcc.loader import load
from pagelab.tpcc.random_primitives import NURandConstants
from pagelab.tpcc.statements import STATEMENT_TEXTS
from tests.conftest import pagelab_here

pytestmark = pytest.mark.server

TABLES = ("warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock")
FIXED_NOW = "2026-01-02 03:04:05"


def seeded_transactions(constants: NURandConstants) -> list:
    """A fixed mix that reaches every branch that writes: by-name and by-id payments (bad-credit
    customers among them), a New-Order that rolls back, remote lines impossible with 1 warehouse."""
    draw = InputGenerator(1, constants, random.Random(2026))
    transactions = []
    while not any(getattr(t, "rollback", False) for t in transactions):
        transactions += [draw.new_order(), draw.payment(), draw.payment(), draw.new_order(), draw.order_status()]
    transactions += [draw.delivery(), draw.stock_level(), draw.delivery()]
    transactions += [draw.payment() for _ in range(200)]
    return transactions


def checksums(spec: ConnectionSpec, database: str) -> dict[str, int]:
    link = spec.with_database(database).connect(autocommit=True)
    try:
        cursor = link.cursor()
        cursor.execute(f"CHECKSUM TABLE {', '.join(TABLES)} EXTENDED")
        return {name.split(".")[1]: int(value) for name, value in cursor.fetchall()}
    finally:
        link.close()


def test_statements_and_procedures_leave_the_same_rows(spare_loaded_instance, dataset):
    instance = spare_loaded_instance
    spec = ConnectionSpec.for_instance(instance, tcp=True)
    # The spare's own copy of the loaded data is the statements' database; the procedures' is loaded
    # again from the same dataset, and both must start out equal.
    by_statements = "tpcc"
    load(spec, dataset, database="by_procedures", progress=False)
    before = checksums(spec, by_statements)
    assert before == checksums(spec, "by_procedures")
    constants, _, _, _ = prepare_database(spec, RunOptions(database="by_procedures", mode="procedures"))
    transactions = seeded_transactions(constants)
    bad_credit_payments = 0
    rolled_back = {}
    for executor_type, database in ((StatementsExecutor, by_statements), (ProceduresExecutor, "by_procedures")):
        executor = executor_type(spec.with_database(database))
        executor.open()
        try:
            rolled_back[database] = [executor.run(tx, FIXED_NOW) for tx in transactions]
        finally:
            executor.close()
    assert rolled_back[by_statements] == rolled_back["by_procedures"]
    assert sum(rolled_back[by_statements]) == sum(getattr(t, "rollback", False) for t in transactions) >= 1
    link = spec.with_database(by_statements).connect()
    try:
        cursor = link.cursor()
        cursor.execute("SELECT COUNT(*) FROM history h JOIN customer c ON c.c_id = h.h_c_id AND c.c_d_id = h.h_c_d_id "
                       "AND c.c_w_id = h.h_c_w_id WHERE c.c_credit = 'BC' AND h.h_date = %s", (FIXED_NOW,))
        bad_credit_payments = cursor.fetchone()[0]
    finally:
        link.close()
    assert bad_credit_payments > 0, "no bad-credit payment was drawn: the c_data branch went unchecked"
    after_statements, after_procedures = checksums(spec, by_statements), checksums(spec, "by_procedures")
    changed = {table for table in TABLES if after_statements[table] != before[table]}
    assert changed == {"warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "stock"}
    assert after_statements == after_procedures


def test_a_missing_row_is_reported_for_a_retry_and_an_unprepared_session_refuses(spare_loaded_instance):
    from pagelab.tpcc._tpccclient import MissingRow, Session
    from pagelab.tpcc.executors import ErrorKind, classify

    spec = ConnectionSpec.for_instance(spare_loaded_instance, tcp=True)
    connection = spec.with_database("tpcc")  # the spare's own copy of the loaded data, changed below
    session = Session(connection.host, int(connection.port), None, connection.user, connection.password,
                      connection.database, False)
    try:
        with pytest.raises(RuntimeError, match="prepare"):
            session.stock_level(1, 1, 15)
        session.prepare(STATEMENT_TEXTS)
        session.query("SET foreign_key_checks = 0")  # history rows still name the customer
        session.query("DELETE FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 7")
        session.commit()
        with pytest.raises(MissingRow, match="customer 1/2/7") as missing:
            session.order_status(1, 2, 7, False, "")
        assert classify(missing.value) is ErrorKind.RETRY
        session.rollback()
        assert session.order_status(1, 2, 8, False, "") is False  # the session carries on after the retry
        with pytest.raises(ValueError, match="district 11"):
            session.new_order(1, 11, 1, True, ((1, 1, 1),), FIXED_NOW)
    finally:
        session.close()


def general_log_of_a_short_run(instance, tmp_path, mode: str) -> list[tuple[int, str, str]]:
    """(connection id, command, text) of every general-log line during a 3 s run of `mode` with 2 terminals."""
    log = tmp_path / f"general-{mode}.log"
    instance.query(f"SET GLOBAL general_log_file = '{log}'")
    instance.query("SET GLOBAL general_log = 1")
    try:
        run(ConnectionSpec.for_instance(instance, tcp=True),
            RunOptions(warehouses=1, connections=2, rampup_s=0, measure_s=3, interval_s=3, mode=mode), echo=None)
    finally:
        instance.query("SET GLOBAL general_log = 0")
    # "<yymmdd hh:mm:ss>\t<id> <Command>\t<argument>", the time left blank after its first line
    line_format = re.compile(r"^(?:\d{6} [\d:]{8})?\t+\s*(\d+) (\w+)\t(.*)$")
    entries = []
    for line in log.read_text(errors="replace").splitlines():
        match = line_format.match(line)
        if match:
            entries.append((int(match.group(1)), match.group(2), match.group(3).strip()))
    return entries


def test_statements_mode_sends_prepared_statements_and_no_call(spare_loaded_instance, tmp_path):
    entries = general_log_of_a_short_run(spare_loaded_instance, tmp_path, "statements")
    terminals = {connection for connection, command, _ in entries if command == "Prepare"}
    assert len(terminals) == 2
    mine = [(command, text) for connection, command, text in entries if connection in terminals]
    prepared = [text for command, text in mine if command == "Prepare"]
    executed = [text for command, text in mine if command == "Execute"]
    queries = [text for command, text in mine if command == "Query"]
    assert sorted(prepared) == sorted(list(STATEMENT_TEXTS) * 2), "each terminal prepares tpcc-mysql's 35 statements"
    assert len(executed) > 200
    assert not any(re.match(r"\s*CALL\b", text, re.IGNORECASE) for text in queries + executed)
    # Outside the prepared statements only the transaction boundaries go over the wire as text.
    assert {text.upper() for text in queries} <= {"COMMIT", "ROLLBACK", "SET AUTOCOMMIT=0"}, set(queries)
    assert "COMMIT" in {text.upper() for text in queries}
    # Every execution is one of the prepared statements, the server showing values in place of the ?s.
    shapes = [re.compile(".+?".join(re.escape(piece) for piece in text.split("?")), re.DOTALL)
              for text in STATEMENT_TEXTS]
    strays = [text for text in executed if not any(shape.fullmatch(text) for shape in shapes)]
    assert not strays, strays[:3]


def test_procedures_mode_sends_one_call_per_transaction(spare_loaded_instance, tmp_path):
    entries = general_log_of_a_short_run(spare_loaded_instance, tmp_path, "procedures")
    calls = [text for _, command, text in entries if command == "Query" and text.upper().startswith("CALL")]
    assert len(calls) > 50
    assert not [text for _, command, text in entries if command in ("Prepare", "Execute")]


def test_a_bad_mode_is_refused_with_the_allowed_values(loaded):
    with pytest.raises(UsageError, match="statements procedures tpcc-mysql"):
        RunOptions(mode="hammerdb").validate()
    instance, _, _ = loaded
    done = pagelab_here("tpcc", "run", "--instance", instance.root, "-w", "1", "--mode", "hammerdb")
    assert done.returncode == 2
    assert "invalid choice: 'hammerdb'" in done.stderr
    for name in ("statements", "procedures", "tpcc-mysql"):
        assert name in done.stderr


def test_the_old_driver_name_reads_as_procedures():
    options = RunOptions(mode="pagelab")
    options.validate()
    assert options.mode == "procedures"
