"""The five transactions as tpcc-mysql's tpcc_start sends them, statement by statement.

tpcc-mysql prepares 35 statements per connection at start-up (its main.c) and each transaction
(neword.c, payment.c, ordstat.c, delivery.c, slev.c) executes some of them in a fixed order, each
one a round trip: bind, execute, store the result, fetch. The connection runs with autocommit
off. `STATEMENTS` below holds the same texts; the transactions make the same calls in the same
order, with the same commits and rollbacks. What tpcc-mysql does that the TPC-C
specification does not ask for is kept, because the point is to load the server as tpcc-mysql
does:

- New-Order sorts its lines by (supply warehouse, item) before touching stock, to avoid
  deadlocks; line numbers follow that order. The unused item of the 1% that roll back is found
  at its sorted place, and the transaction rolls back there and counts as completed.
- New-Order's stock update sets s_quantity only (s_quantity - qty when more than qty remain,
  else + 91), not s_ytd, s_order_cnt or s_remote_cnt; ol_amount is
  qty * price * (1 + w_tax + d_tax) * (1 - c_discount).
- Payment sets c_balance only (no c_ytd_payment, c_payment_cnt); for a bad-credit ("BC")
  customer it reads c_data and writes the same c_data back. h_data is w_name and d_name
  (10 characters each at most), followed by four spaces only when the two fill 20.
- Order-Status by last name reads the customers with that name and walks to the middle one, but
  its statement returns no c_id, so the last order read is that of the customer id drawn with
  the inputs (`OrderStatusInput.customer_id`), as in tpcc-mysql.
- Delivery commits after each district, reads the oldest new order without locking it, and
  deletes it without checking that the delete found it.
- Stock-Level reads the distinct items of the district's last 20 orders, then counts each item's
  low stock with one statement per item.
- Timestamps (o_entry_d, h_date, ol_delivery_d) are the client's local time, taken when the
  transaction starts, as text.

A missing row where tpcc-mysql expects one (its MYSQL_NO_DATA -> sqlerr) raises `MissingRow`;
like any SQL error it rolls the transaction back, and the terminal retries it (tpcc-mysql's
retry rule lives with the terminal's loop, pagelab.tpcc.terminal).

Where it runs: each transaction is C (pagelab/tpcc/tpcc_transactions.c, through the Session of
pagelab.tpcc._tpccclient), so that the client spends per transaction what tpcc_start spends; the
functions below hand it the drawn inputs. Money is exact there, in integer cents and 1/10000
(tpcc-mysql's C floats round c_balance and ol_amount slightly differently in the last cent; the
rows and pages touched are the same).
"""

from __future__ import annotations

from decimal import Decimal

from pagelab.tpcc import _tpccclient
from pagelab.tpcc.inputs import (
    DeliveryInput,
    NewOrderInput,
    OrderLineInput,
    OrderStatusInput,
    PaymentInput,
    StockLevelInput,
)
from pagelab.tpcc.random_primitives import ITEMS

# (name, text) of tpcc-mysql's 35 statements, in its order; declared once, beside the C that
# runs them (tpcc_transactions.c).
STATEMENTS: tuple[tuple[str, str], ...] = _tpccclient.STATEMENTS
STATEMENT_TEXTS: tuple[str, ...] = tuple(text for _, text in STATEMENTS)

# The timestamp format tpcc-mysql binds for o_entry_d, h_date and ol_delivery_d.
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


# A statement found no row where tpcc-mysql requires one; the transaction is retried.
MissingRow = _tpccclient.MissingRow


def line_order(tx: NewOrderInput) -> list[OrderLineInput]:
    """The lines in the order tpcc-mysql processes them: by supply warehouse, then item.

    tpcc-mysql sorts with a selection sort on (ITEMS + 1) * supply_w_id + item_id, swapping the
    smallest remaining line into place; done the same way here so that even equal keys (an item
    ordered twice from one warehouse) come out in its order.
    """
    lines = list(tx.lines)

    def key(line: OrderLineInput) -> int:
        return (ITEMS + 1) * line.supply_warehouse_id + line.item_id

    for i in range(len(lines) - 1):
        smallest = i
        for j in range(i + 1, len(lines)):
            if key(lines[j]) < key(lines[smallest]):
                smallest = j
        if smallest != i:
            lines[i], lines[smallest] = lines[smallest], lines[i]
    return lines


def _cents(amount: Decimal) -> int:
    cents = amount * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"a payment of {amount} is not a whole number of cents")
    return int(cents)


def new_order(session, tx: NewOrderInput, now: str) -> bool:
    """neword.c; returns True when the transaction rolled back at the unused item."""
    lines = tuple((line.item_id, line.supply_warehouse_id, line.quantity) for line in line_order(tx))
    return session.new_order(tx.warehouse_id, tx.district_id, tx.customer_id, tx.all_local, lines, now)


def payment(session, tx: PaymentInput, now: str) -> bool:
    """payment.c."""
    return session.payment(tx.warehouse_id, tx.district_id, tx.customer_warehouse_id, tx.customer_district_id,
                           tx.customer_id or 0, tx.by_last_name, tx.customer_last or "", _cents(tx.amount), now)


def order_status(session, tx: OrderStatusInput, now: str) -> bool:
    """ordstat.c."""
    return session.order_status(tx.warehouse_id, tx.district_id, tx.customer_id, tx.by_last_name,
                                tx.customer_last or "")


def delivery(session, tx: DeliveryInput, now: str) -> bool:
    """delivery.c: one commit per district."""
    return session.delivery(tx.warehouse_id, tx.carrier_id, now)


def stock_level(session, tx: StockLevelInput, now: str) -> bool:
    """slev.c: one count per distinct recent item."""
    return session.stock_level(tx.warehouse_id, tx.district_id, tx.threshold)


TRANSACTIONS = {
    NewOrderInput: new_order,
    PaymentInput: payment,
    OrderStatusInput: order_status,
    DeliveryInput: delivery,
    StockLevelInput: stock_level,
}
