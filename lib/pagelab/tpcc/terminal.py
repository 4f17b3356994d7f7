"""One TPC-C terminal: a process with one connection that runs transactions from its deck.

Terminals are processes, not threads: on 2 cores the client must leave the CPUs to the server, and
separate processes keep the GIL out of every response time. Each terminal keeps its own
`IntervalSample`s and sends each finished interval to the driver through a queue, so nothing is
shared and nothing races.

Messages to the driver (tuples on `results`):
    ("ready", terminal)                          connected, procedures visible
    ("interval", terminal, index, wire_sample)   index -1 is the ramp-up
    ("done", terminal)
    ("error", terminal, kind, message)           kind: "server-gone" | "sql" | "internal"
"""

from __future__ import annotations

import math
import random
import time
import traceback
from dataclasses import dataclass

from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.inputs import (
    DeliveryInput,
    NewOrderInput,
    NURandConstants,
    OrderStatusInput,
    PaymentInput,
    StockLevelInput,
    TransactionDeck,
    TransactionKind,
)
from pagelab.tpcc.stats import IntervalSample

# MySQL/MariaDB error numbers the terminal treats specially.
ER_LOCK_WAIT_TIMEOUT = 1205
ER_LOCK_DEADLOCK = 1213
ER_SIGNAL_EXCEPTION = 1644  # our New-Order's deliberate rollback (SQLSTATE 45000)
RETRYABLE = {ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK}
# Client-side errors meaning the server is gone: lost connection, gone away, can't connect.
SERVER_GONE = {2002, 2003, 2006, 2013, 2055, 4031}
ROLLBACK_MESSAGE = "pagelab: new-order rolled back"
MAX_RETRIES = 10

# Clause 5.2.5.7: keying times and mean think times in seconds, used only with spec pacing.
KEYING_TIME_S = {TransactionKind.NEW_ORDER: 18.0, TransactionKind.PAYMENT: 3.0,
                 TransactionKind.ORDER_STATUS: 2.0, TransactionKind.DELIVERY: 2.0,
                 TransactionKind.STOCK_LEVEL: 2.0}
MEAN_THINK_TIME_S = {TransactionKind.NEW_ORDER: 12.0, TransactionKind.PAYMENT: 12.0,
                     TransactionKind.ORDER_STATUS: 10.0, TransactionKind.DELIVERY: 5.0,
                     TransactionKind.STOCK_LEVEL: 5.0}


@dataclass(frozen=True)
class TerminalPlan:
    terminal: int
    connection: ConnectionSpec
    warehouses: int
    seed: int
    constants: NURandConstants
    rampup_s: float
    measure_s: float
    interval_s: float
    spec_pacing: bool = False


def call_statement(tx) -> str:
    """The CALL for one transaction. Every argument is a number or a generated A-Z name."""
    if isinstance(tx, NewOrderInput):
        items = ",".join(str(line.item_id) for line in tx.lines)
        supply = ",".join(str(line.supply_warehouse_id) for line in tx.lines)
        quantities = ",".join(str(line.quantity) for line in tx.lines)
        return (f"CALL pagelab_new_order({tx.warehouse_id},{tx.district_id},{tx.customer_id},{len(tx.lines)},"
                f"{int(tx.all_local)},'{items}','{supply}','{quantities}')")
    if isinstance(tx, PaymentInput):
        return (f"CALL pagelab_payment({tx.warehouse_id},{tx.district_id},{tx.customer_warehouse_id},"
                f"{tx.customer_district_id},{tx.customer_id or 0},{int(tx.by_last_name)},"
                f"'{tx.customer_last or ''}',{tx.amount})")
    if isinstance(tx, OrderStatusInput):
        return (f"CALL pagelab_order_status({tx.warehouse_id},{tx.district_id},{tx.customer_id or 0},"
                f"{int(tx.by_last_name)},'{tx.customer_last or ''}')")
    if isinstance(tx, DeliveryInput):
        return f"CALL pagelab_delivery({tx.warehouse_id},{tx.carrier_id})"
    if isinstance(tx, StockLevelInput):
        return f"CALL pagelab_stock_level({tx.warehouse_id},{tx.district_id},{tx.threshold})"
    raise TypeError(f"not a transaction input: {tx!r}")


def _think(kind: TransactionKind, rng: random.Random) -> float:
    # Negative exponential, truncated at 10x the mean (clause 5.2.5.4).
    mean = MEAN_THINK_TIME_S[kind]
    return min(-math.log(1.0 - rng.random()) * mean, 10 * mean)


def run_terminal(plan: TerminalPlan, start_at: "object", stop: "object", results: "object") -> None:
    """Process entry point. `start_at` is a shared double (monotonic start of ramp-up, set by the
    driver once every terminal is ready); `stop` an Event that ends the run early."""
    import mysql.connector

    terminal = plan.terminal
    try:
        connection = plan.connection.connect(autocommit=True)
    except mysql.connector.Error as exc:
        results.put(("error", terminal, "server-gone" if exc.errno in SERVER_GONE or exc.errno is None else "sql", str(exc)))
        return
    try:
        results.put(("ready", terminal))
        while start_at.value == 0.0:
            if stop.is_set():
                return
            time.sleep(0.005)
        _loop(plan, connection, start_at.value, stop, results)
        results.put(("done", terminal))
    except mysql.connector.Error as exc:
        kind = "server-gone" if exc.errno in SERVER_GONE or exc.errno is None or exc.errno >= 2000 else "sql"
        results.put(("error", terminal, kind, f"{exc}"))
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group; the driver reports it, once
    except Exception:
        results.put(("error", terminal, "internal", traceback.format_exc()))
    finally:
        try:
            connection.close()
        except Exception:
            pass


def _loop(plan: TerminalPlan, connection, ramp_start: float, stop, results) -> None:
    import mysql.connector

    measure_start = ramp_start + plan.rampup_s
    measure_end = measure_start + plan.measure_s
    intervals = max(1, math.ceil(plan.measure_s / plan.interval_s - 1e-9))
    deck = TransactionDeck(plan.warehouses, plan.seed, plan.terminal, plan.constants)
    pacing_rng = random.Random(plan.seed * 1_000_003 + plan.terminal)
    ramp = IntervalSample()
    current_index = -1  # -1: ramp-up
    current = ramp
    clock = time.monotonic
    cursor_query = connection.cmd_query
    consume = getattr(connection, "consume_results", None)

    def flush_until(index: int) -> None:
        nonlocal current_index, current
        while current_index < index:
            results.put(("interval", plan.terminal, current_index, current.to_wire()))
            current_index += 1
            current = IntervalSample()

    for tx in deck:
        if stop.is_set() or clock() >= measure_end:
            break
        kind = tx.kind
        if plan.spec_pacing:
            time.sleep(KEYING_TIME_S[kind])
        statement = call_statement(tx)
        retries = 0
        rolled_back = False
        failed = False
        began = clock()
        while True:
            try:
                cursor_query(statement)
                if consume:
                    consume()
                break
            except mysql.connector.Error as exc:
                if exc.errno == ER_SIGNAL_EXCEPTION and ROLLBACK_MESSAGE in str(exc):
                    rolled_back = True
                    break
                if exc.errno in RETRYABLE and retries < MAX_RETRIES:
                    retries += 1
                    continue
                if exc.errno in RETRYABLE:
                    failed = True
                    break
                raise
        finished = clock()
        if finished >= measure_end:
            break  # completed after the end: part of no interval
        index = -1 if finished < measure_start else min(int((finished - measure_start) // plan.interval_s), intervals - 1)
        if index != current_index:
            flush_until(index)
        if failed:
            current.record_failure(int(kind), retries)
        else:
            current.record(int(kind), (finished - began) * 1000.0, retries, rolled_back)
        if plan.spec_pacing:
            time.sleep(_think(kind, pacing_rng))
    flush_until(intervals)
