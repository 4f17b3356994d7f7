"""The five transactions as tpcc-mysql's tpcc_start sends them, statement by statement.

tpcc-mysql prepares 35 statements per connection at start-up (its main.c) and each transaction
(neword.c, payment.c, ordstat.c, delivery.c, slev.c) executes some of them in a fixed order, each
one a round trip: bind, execute, store the result, fetch. The connection runs with autocommit
off. `STATEMENTS` below holds the same texts; the functions after it make the same calls in the
same order, with the same commits and rollbacks. What tpcc-mysql does that the TPC-C
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

Numbers: decimals come back from the server as text and are computed with `Decimal`, so
c_balance and ol_amount are exact (tpcc-mysql's C floats round them slightly differently in the
last cent; the rows and pages touched are the same).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from pagelab.tpcc.inputs import (
    ITEMS,
    DeliveryInput,
    NewOrderInput,
    OrderLineInput,
    OrderStatusInput,
    PaymentInput,
    StockLevelInput,
    WAREHOUSE_DISTRICTS,
)

# (name, text) in tpcc-mysql's order; a statement's index in this tuple is its handle.
STATEMENTS: tuple[tuple[str, str], ...] = (
    ("new_order_customer_warehouse",
     "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse "
     "WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"),
    ("new_order_district", "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE"),
    ("new_order_district_next", "UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?"),
    ("new_order_insert_order",
     "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) "
     "VALUES(?, ?, ?, ?, ?, ?, ?)"),
    ("new_order_insert_new_order", "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?,?,?)"),
    ("new_order_item", "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?"),
    ("new_order_stock",
     "SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, "
     "s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE"),
    ("new_order_stock_update", "UPDATE stock SET s_quantity = ? WHERE s_i_id = ? AND s_w_id = ?"),
    ("new_order_insert_line",
     "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, "
     "ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    ("payment_warehouse_ytd", "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"),
    ("payment_warehouse", "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?"),
    ("payment_district_ytd", "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"),
    ("payment_district",
     "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?"),
    ("payment_name_count", "SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?"),
    ("payment_name_ids",
     "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"),
    ("payment_customer",
     "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, "
     "c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? "
     "FOR UPDATE"),
    ("payment_customer_data", "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("payment_customer_update_bad_credit",
     "UPDATE customer SET c_balance = ?, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("payment_customer_update", "UPDATE customer SET c_balance = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("payment_insert_history",
     "INSERT INTO history(h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
     "VALUES(?, ?, ?, ?, ?, ?, ?, ?)"),
    ("order_status_name_count", "SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?"),
    ("order_status_name_customers",
     "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
     "ORDER BY c_first"),
    ("order_status_customer",
     "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
    ("order_status_last_order",
     "SELECT o_id, o_entry_d, COALESCE(o_carrier_id,0) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? "
     "AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)"),
    ("order_status_lines",
     "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
     "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
    ("delivery_oldest_new_order", "SELECT COALESCE(MIN(no_o_id),0) FROM new_orders WHERE no_d_id = ? AND no_w_id = ?"),
    ("delivery_delete_new_order", "DELETE FROM new_orders WHERE no_o_id = ? AND no_d_id = ? AND no_w_id = ?"),
    ("delivery_order_customer", "SELECT o_c_id FROM orders WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?"),
    ("delivery_order_carrier", "UPDATE orders SET o_carrier_id = ? WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?"),
    ("delivery_lines_delivered",
     "UPDATE order_line SET ol_delivery_d = ? WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?"),
    ("delivery_lines_total", "SELECT SUM(ol_amount) FROM order_line WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?"),
    ("delivery_customer_balance",
     "UPDATE customer SET c_balance = c_balance + ? , c_delivery_cnt = c_delivery_cnt + 1 "
     "WHERE c_id = ? AND c_d_id = ? AND c_w_id = ?"),
    ("stock_level_district_next", "SELECT d_next_o_id FROM district WHERE d_id = ? AND d_w_id = ?"),
    ("stock_level_recent_items",
     "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? "
     "AND ol_o_id >= (? - 20)"),
    ("stock_level_low_stock", "SELECT count(*) FROM stock WHERE s_w_id = ? AND s_i_id = ? AND s_quantity < ?"),
)
STATEMENT_TEXTS: tuple[str, ...] = tuple(text for _, text in STATEMENTS)
_INDEX = {name: index for index, (name, _) in enumerate(STATEMENTS)}

CENT = Decimal("0.01")
# tpcc-mysql restocks by this much when an order would leave too little (its neword.c; the
# specification's clause 2.4.2.2 restocks below 10 left, tpcc-mysql whenever qty >= stock).
RESTOCK = 91
# The timestamp format tpcc-mysql binds for o_entry_d, h_date and ol_delivery_d.
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


class MissingRow(Exception):
    """A statement found no row where tpcc-mysql requires one; the transaction is retried."""


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


def history_data(warehouse_name: str, district_name: str) -> str:
    """h_data as tpcc-mysql builds it in C: both names cut to 10, four spaces only if they fill 20."""
    data = warehouse_name[:10] + district_name[:10]
    return data + "    " if len(data) == 20 else data


def middle_of(count: int) -> int:
    """How many rows tpcc-mysql fetches to reach the customer in the middle (clause 2.5.2.2)."""
    return math.ceil(count / 2)


def _one(rows: list[tuple], what: str) -> tuple:
    if not rows:
        raise MissingRow(what)
    return rows[0]


def new_order(session, tx: NewOrderInput, now: str) -> bool:
    """neword.c; returns True when the transaction rolled back at the unused item."""
    run = session.execute
    w, d, c = tx.warehouse_id, tx.district_id, tx.customer_id
    discount, _last, _credit, w_tax = _one(run(_INDEX["new_order_customer_warehouse"], (w, d, c)),
                                           f"customer {w}/{d}/{c}")
    next_o_id, d_tax = _one(run(_INDEX["new_order_district"], (d, w)), f"district {w}/{d}")
    run(_INDEX["new_order_district_next"], (next_o_id, d, w))
    lines = line_order(tx)
    run(_INDEX["new_order_insert_order"], (next_o_id, d, w, c, now, len(lines), int(tx.all_local)))
    run(_INDEX["new_order_insert_new_order"], (next_o_id, d, w))
    charge = (1 + Decimal(w_tax) + Decimal(d_tax)) * (1 - Decimal(discount))
    for number, line in enumerate(lines, start=1):
        item_rows = run(_INDEX["new_order_item"], (line.item_id,))
        if not item_rows:
            session.rollback()
            return True
        price = Decimal(item_rows[0][0])
        stock = _one(run(_INDEX["new_order_stock"], (line.item_id, line.supply_warehouse_id)),
                     f"stock {line.supply_warehouse_id}/{line.item_id}")
        quantity = stock[0]
        dist_info = stock[1 + d]  # s_dist_01 .. s_dist_10 follow s_quantity and s_data
        quantity = quantity - line.quantity if quantity > line.quantity else quantity - line.quantity + RESTOCK
        run(_INDEX["new_order_stock_update"], (quantity, line.item_id, line.supply_warehouse_id))
        amount = (line.quantity * price * charge).quantize(CENT, ROUND_HALF_UP)
        run(_INDEX["new_order_insert_line"], (next_o_id, d, w, number, line.item_id, line.supply_warehouse_id,
                                              line.quantity, amount, dist_info))
    session.commit()
    return False


def _customer_in_the_middle(session, count_statement: str, list_statement: str, w: int, d: int, last: str) -> tuple:
    count = _one(session.execute(_INDEX[count_statement], (w, d, last)), f"customers named {last}")[0]
    rows = session.execute(_INDEX[list_statement], (w, d, last))
    wanted = middle_of(count)
    if wanted == 0 or len(rows) < wanted:
        raise MissingRow(f"customer {wanted} of {count} named {last} in {w}/{d}")
    return rows[wanted - 1]


def payment(session, tx: PaymentInput, now: str) -> bool:
    """payment.c."""
    run = session.execute
    w, d, c_w, c_d, amount = tx.warehouse_id, tx.district_id, tx.customer_warehouse_id, tx.customer_district_id, tx.amount
    run(_INDEX["payment_warehouse_ytd"], (amount, w))
    warehouse_name = _one(run(_INDEX["payment_warehouse"], (w,)), f"warehouse {w}")[5]
    run(_INDEX["payment_district_ytd"], (amount, w, d))
    district_name = _one(run(_INDEX["payment_district"], (w, d)), f"district {w}/{d}")[5]
    if tx.by_last_name:
        c = _customer_in_the_middle(session, "payment_name_count", "payment_name_ids", c_w, c_d, tx.customer_last)[0]
    else:
        c = tx.customer_id
    customer = _one(run(_INDEX["payment_customer"], (c_w, c_d, c)), f"customer {c_w}/{c_d}/{c}")
    credit, balance = customer[9], Decimal(customer[12]) - amount
    if "BC" in (credit or ""):
        data = _one(run(_INDEX["payment_customer_data"], (c_w, c_d, c)), f"customer {c_w}/{c_d}/{c}")[0]
        run(_INDEX["payment_customer_update_bad_credit"], (balance, data, c_w, c_d, c))
    else:
        run(_INDEX["payment_customer_update"], (balance, c_w, c_d, c))
    run(_INDEX["payment_insert_history"], (c_d, c_w, c, d, w, now, amount,
                                           history_data(warehouse_name or "", district_name or "")))
    session.commit()
    return False


def order_status(session, tx: OrderStatusInput, now: str) -> bool:
    """ordstat.c."""
    run = session.execute
    w, d, c = tx.warehouse_id, tx.district_id, tx.customer_id
    if tx.by_last_name:
        _customer_in_the_middle(session, "order_status_name_count", "order_status_name_customers", w, d,
                                tx.customer_last)
    else:
        _one(run(_INDEX["order_status_customer"], (w, d, c)), f"customer {w}/{d}/{c}")
    order_id = _one(run(_INDEX["order_status_last_order"], (w, d, c, w, d, c)), f"last order of {w}/{d}/{c}")[0]
    run(_INDEX["order_status_lines"], (w, d, order_id))
    session.commit()
    return False


def delivery(session, tx: DeliveryInput, now: str) -> bool:
    """delivery.c: one commit per district."""
    run = session.execute
    w = tx.warehouse_id
    for d in range(1, WAREHOUSE_DISTRICTS + 1):
        order_id = _one(run(_INDEX["delivery_oldest_new_order"], (d, w)), f"new orders of {w}/{d}")[0]
        if order_id == 0:
            continue
        run(_INDEX["delivery_delete_new_order"], (order_id, d, w))
        customer = _one(run(_INDEX["delivery_order_customer"], (order_id, d, w)), f"order {w}/{d}/{order_id}")[0]
        run(_INDEX["delivery_order_carrier"], (tx.carrier_id, order_id, d, w))
        run(_INDEX["delivery_lines_delivered"], (now, order_id, d, w))
        total = _one(run(_INDEX["delivery_lines_total"], (order_id, d, w)), f"lines of {w}/{d}/{order_id}")[0]
        run(_INDEX["delivery_customer_balance"], (Decimal(total or 0), customer, d, w))
        session.commit()
    return False


def stock_level(session, tx: StockLevelInput, now: str) -> bool:
    """slev.c: one count per distinct recent item."""
    run = session.execute
    w, d = tx.warehouse_id, tx.district_id
    next_o_id = _one(run(_INDEX["stock_level_district_next"], (d, w)), f"district {w}/{d}")[0]
    for (item,) in run(_INDEX["stock_level_recent_items"], (w, d, next_o_id, next_o_id)):
        _one(run(_INDEX["stock_level_low_stock"], (w, item, tx.threshold)), f"stock {w}/{item}")
    session.commit()
    return False


TRANSACTIONS = {
    NewOrderInput: new_order,
    PaymentInput: payment,
    OrderStatusInput: order_status,
    DeliveryInput: delivery,
    StockLevelInput: stock_level,
}
