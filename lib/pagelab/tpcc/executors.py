"""How each built-in driver mode runs one transaction, and how the terminal reads its errors.

An executor belongs to one terminal: `open()` connects and installs what the mode needs,
`run(tx, now)` runs one transaction and returns True when it rolled back by design (New-Order's
unused item), `after_error()` leaves the connection ready for a retry, `close()` ends it. The
terminal's loop (pagelab.tpcc.terminal) is the same for every mode. The modes themselves are
declared in pagelab.tpcc.modes.

Both modes talk to the server through pagelab.tpcc._tpccclient (MariaDB Connector/C), so they differ
only in what they send: tpcc-mysql's statements, or one CALL per transaction.
"""

from __future__ import annotations

import enum
from decimal import Decimal

from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc import statements
from pagelab.tpcc._tpccclient import Error as ClientError
from pagelab.tpcc._tpccclient import Session
from pagelab.tpcc.inputs import DeliveryInput, NewOrderInput, OrderStatusInput, PaymentInput, StockLevelInput
from pagelab.tpcc.modes import DriverMode

# The procedures' deliberate New-Order rollback: SIGNAL SQLSTATE '45000' with this text (ER_SIGNAL_EXCEPTION).
ER_SIGNAL_EXCEPTION = 1644
ROLLBACK_MESSAGE = "pagelab: new-order rolled back"
# Server errors that mean the connection is over: shutdown in progress, connection killed,
# disconnected for inactivity. Every client-library error (2000 and up) means the same.
SERVER_GONE_ERRORS = {1053, 1927, 4031}
FIRST_CLIENT_ERROR = 2000
# Errors no retry can mend: no such database/table/column/procedure, bad SQL, wrong argument
# count, no privilege, bad login.
FATAL_ERRORS = {1044, 1045, 1046, 1049, 1054, 1064, 1142, 1146, 1305, 1318}


class ErrorKind(enum.Enum):
    RETRY = "retry"  # roll back and try the transaction again (tpcc-mysql's rule)
    SERVER_GONE = "server-gone"
    FATAL = "fatal"
    UNKNOWN = "unknown"  # not a database error at all: a bug, re-raised


def classify(exc: BaseException) -> ErrorKind:
    if isinstance(exc, statements.MissingRow):
        return ErrorKind.RETRY
    if not isinstance(exc, ClientError):
        return ErrorKind.UNKNOWN
    number = exc.args[0] if exc.args else 0
    if number >= FIRST_CLIENT_ERROR or number in SERVER_GONE_ERRORS:
        return ErrorKind.SERVER_GONE
    if number in FATAL_ERRORS:
        return ErrorKind.FATAL
    return ErrorKind.RETRY


def connect_errors() -> tuple[type[BaseException], ...]:
    """What `open()` raises when it cannot connect or install."""
    return (ClientError,)


def _session(connection: ConnectionSpec, autocommit: bool) -> Session:
    return Session(connection.host if not connection.socket else None, int(connection.port or 0),
                   connection.socket, connection.user, connection.password, connection.database, autocommit)


class _SessionExecutor:
    """What both modes share: one Session per terminal, opened with the mode's autocommit."""

    autocommit = False

    def __init__(self, connection: ConnectionSpec):
        self.connection = connection
        self.session: Session | None = None

    def open(self) -> None:
        self.session = _session(self.connection, autocommit=self.autocommit)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()


class StatementsExecutor(_SessionExecutor):
    """tpcc-mysql's statements over server-side prepared statements, autocommit off."""

    def open(self) -> None:
        super().open()
        self.session.prepare(statements.STATEMENT_TEXTS)

    def run(self, tx, now: str) -> bool:
        return statements.TRANSACTIONS[type(tx)](self.session, tx, now)

    def after_error(self) -> None:
        try:
            self.session.rollback()
        except ClientError:
            pass  # the connection is gone; the terminal stops on the error that got us here


def _quoted(text: str) -> str:
    # Every string argument is generated here (A-Z names, digits, the client's timestamp); refuse
    # anything that would need escaping rather than escape it.
    if "'" in text or "\\" in text:
        raise ValueError(f"unexpected quote in a generated argument: {text!r}")
    return f"'{text}'"


def call_statement(tx, now: str) -> str:
    """The CALL for one transaction, New-Order's lines in tpcc-mysql's order."""
    if isinstance(tx, NewOrderInput):
        lines = statements.line_order(tx)
        items = ",".join(str(line.item_id) for line in lines)
        supply = ",".join(str(line.supply_warehouse_id) for line in lines)
        quantities = ",".join(str(line.quantity) for line in lines)
        return (f"CALL pagelab_new_order({tx.warehouse_id},{tx.district_id},{tx.customer_id},{len(lines)},"
                f"{int(tx.all_local)},'{items}','{supply}','{quantities}',{_quoted(now)})")
    if isinstance(tx, PaymentInput):
        return (f"CALL pagelab_payment({tx.warehouse_id},{tx.district_id},{tx.customer_warehouse_id},"
                f"{tx.customer_district_id},{tx.customer_id or 0},{int(tx.by_last_name)},"
                f"{_quoted(tx.customer_last or '')},{Decimal(tx.amount)},{_quoted(now)})")
    if isinstance(tx, OrderStatusInput):
        return (f"CALL pagelab_order_status({tx.warehouse_id},{tx.district_id},{tx.customer_id or 0},"
                f"{int(tx.by_last_name)},{_quoted(tx.customer_last or '')})")
    if isinstance(tx, DeliveryInput):
        return f"CALL pagelab_delivery({tx.warehouse_id},{tx.carrier_id},{_quoted(now)})"
    if isinstance(tx, StockLevelInput):
        return f"CALL pagelab_stock_level({tx.warehouse_id},{tx.district_id},{tx.threshold})"
    raise TypeError(f"not a transaction input: {tx!r}")


class ProceduresExecutor(_SessionExecutor):
    """One CALL per transaction; the procedures (procedures.sql) commit and roll back themselves."""

    autocommit = True

    def run(self, tx, now: str) -> bool:
        try:
            self.session.query(call_statement(tx, now))
        except ClientError as exc:
            if exc.args[0] == ER_SIGNAL_EXCEPTION and ROLLBACK_MESSAGE in str(exc.args[2]):
                return True
            raise
        return False

    def after_error(self) -> None:
        """Nothing: a procedure that fails has rolled back already (its EXIT HANDLER)."""


def executor_for(mode: DriverMode, connection: ConnectionSpec):
    """A new, unopened executor of `mode` for one terminal."""
    if mode.external:
        raise ValueError(f"mode {mode.name} runs an external program, not pagelab's terminals")
    return (ProceduresExecutor if mode.procedures else StatementsExecutor)(connection)
