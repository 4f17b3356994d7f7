"""The run-time inputs of TPC-C's five transactions: what a terminal submits.

One frozen dataclass per transaction, and an `InputGenerator` that draws them with tpcc-mysql's
distributions from one of pagelab.tpcc.random_primitives' seeded streams (whose rule on drawing
keeps the inputs the same on any machine). Which transaction comes next is pagelab.tpcc.deck's.

No database here: the driver executes what these objects describe.

Where tpcc-mysql and the specification differ, the choice is noted at the spot:

- The home warehouse: tpcc-mysql draws ``w_id`` uniformly for every transaction; the spec fixes
  one per terminal (clause 2.4.1.1). `home_warehouse=None` gives the former, an int the latter.
- Payment's amount: tpcc-mysql draws whole units 1..5000; clause 2.5.1.3 asks for
  1.00..5000.00, which we follow (a Decimal with two places).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from pagelab.common.transactions import TransactionKind
from pagelab.tpcc.random_primitives import (
    DISTRICT_CUSTOMERS,
    ITEMS,
    WAREHOUSE_DISTRICTS,
    NURandConstants,
    last_name,
    nurand,
    uniform_int,
)

__all__ = [
    "UNUSED_ITEM_ID",
    "OrderLineInput",
    "NewOrderInput",
    "PaymentInput",
    "OrderStatusInput",
    "DeliveryInput",
    "StockLevelInput",
    "TransactionInput",
    "InputGenerator",
    "NURAND_MODELS",
]

# Clause 2.4.1.5: a rolled-back New-Order asks for an item id that does not exist.
UNUSED_ITEM_ID = ITEMS + 1


@dataclass(frozen=True)
class OrderLineInput:
    item_id: int
    supply_warehouse_id: int
    quantity: int


@dataclass(frozen=True)
class NewOrderInput:
    """Clause 2.4.1. `rollback` is True when the last line carries `UNUSED_ITEM_ID`."""

    kind: ClassVar[TransactionKind] = TransactionKind.NEW_ORDER
    warehouse_id: int
    district_id: int
    customer_id: int
    lines: tuple[OrderLineInput, ...]
    rollback: bool

    @property
    def all_local(self) -> bool:
        """O_ALL_LOCAL: every line is supplied by the home warehouse (clause 2.4.2.2)."""
        return all(line.supply_warehouse_id == self.warehouse_id for line in self.lines)


@dataclass(frozen=True)
class PaymentInput:
    """Clause 2.5.1. Exactly one of customer_id / customer_last is set (by_last_name says which)."""

    kind: ClassVar[TransactionKind] = TransactionKind.PAYMENT
    warehouse_id: int
    district_id: int
    customer_warehouse_id: int
    customer_district_id: int
    by_last_name: bool
    customer_id: int | None
    customer_last: str | None
    amount: Decimal


@dataclass(frozen=True)
class OrderStatusInput:
    """Clause 2.6.1. by_last_name selects the customer by customer_last, else by customer_id.

    customer_id is always set: tpcc-mysql reads the last order of this id even when it selected the
    customer by name (see pagelab.tpcc.statements)."""

    kind: ClassVar[TransactionKind] = TransactionKind.ORDER_STATUS
    warehouse_id: int
    district_id: int
    by_last_name: bool
    customer_id: int | None
    customer_last: str | None


@dataclass(frozen=True)
class DeliveryInput:
    """Clause 2.7.1."""

    kind: ClassVar[TransactionKind] = TransactionKind.DELIVERY
    warehouse_id: int
    carrier_id: int


@dataclass(frozen=True)
class StockLevelInput:
    """Clause 2.8.1. `threshold`: count stock below this quantity."""

    kind: ClassVar[TransactionKind] = TransactionKind.STOCK_LEVEL
    warehouse_id: int
    district_id: int
    threshold: int


TransactionInput = NewOrderInput | PaymentInput | OrderStatusInput | DeliveryInput | StockLevelInput


# How NURand's constant C is chosen for the run's inputs (see InputGenerator).
NURAND_TPCC_MYSQL, NURAND_SPEC = "tpcc-mysql", "spec"  # a NURand model, not a driver mode of that name
NURAND_MODELS = (NURAND_TPCC_MYSQL, NURAND_SPEC)


class InputGenerator:
    """Draws transaction inputs with tpcc-mysql's distributions from one random stream.

    `nurand` says where NURand's constant C comes from:

    - "spec": the run-time constants (`run_constants`), shared by every terminal (clause 2.1.6:
      "the same C value ... must be used by all emulated terminals").
    - "tpcc-mysql": what tpcc-mysql's tpcc_start really does. Its NURand (support.c) keeps the
      three C values in automatic variables that it sets only on its first call; every later call
      reads whatever the registers hold, which is undefined in C and, compiled as tpcc-mysql's
      Makefile says (-O3, Debian 12's GCC 12), turns out to be: for customer ids, a constant of
      the thread (the low bits of a stack address); for the item of an order's first line, also a
      constant of the thread; for every later line, the previous line's quantity (1..10); for last
      names, the warehouse id. Each terminal therefore has its own hot customers and hot items,
      and the run touches a wider set than the specification's single C would: measured over 30 s
      of tpcc_start (4 connections, 1 warehouse), 36,844 distinct items in 87,984 order lines,
      the most-ordered 1% taking 9.7% of the lines; 2,203 distinct customers in new orders. This
      model draws each terminal's constants from `rng` and gives 36,044 items, 9.7%, and 2,246
      customers on the same counts; the specification's gives 26,950 items, 15.6%, and 1,612.
      A page-size study feels the difference: the wider set needs more of the buffer pool.
    """

    def __init__(
        self,
        warehouses: int,
        constants: NURandConstants,
        rng: random.Random,
        home_warehouse: int | None = None,
        nurand_model: str = "spec",
    ):
        if warehouses < 1:
            raise ValueError(f"warehouses must be at least 1, got {warehouses}")
        if home_warehouse is not None and not 1 <= home_warehouse <= warehouses:
            raise ValueError(f"home_warehouse must be within 1..{warehouses}, got {home_warehouse}")
        if nurand_model not in NURAND_MODELS:
            raise ValueError(f"nurand_model must be one of {', '.join(NURAND_MODELS)}, got {nurand_model!r}")
        self.warehouses = warehouses
        self.constants = constants
        self.rng = rng
        self.home_warehouse = home_warehouse
        self.nurand_model = nurand_model
        self._as_tpcc_mysql = nurand_model == NURAND_TPCC_MYSQL
        if self._as_tpcc_mysql:
            # The thread's constants: stack addresses in tpcc_start, so any value; only C modulo
            # the range matters after NURand's final modulo.
            self._terminal_c_id = uniform_int(rng, 0, DISTRICT_CUSTOMERS - 1)
            self._terminal_c_first_item = uniform_int(rng, 0, ITEMS - 1)

    # -- the pieces every transaction shares -------------------------------------------------

    def _int(self, low: int, high: int) -> int:
        return uniform_int(self.rng, low, high)

    def _warehouse(self) -> int:
        return self.home_warehouse if self.home_warehouse is not None else self._int(1, self.warehouses)

    def _district(self) -> int:
        return self._int(1, WAREHOUSE_DISTRICTS)

    def _other_warehouse(self, home: int) -> int:
        """A warehouse other than `home`, uniformly; `home` itself when there is no other."""
        if self.warehouses == 1:
            return home
        other = self._int(1, self.warehouses - 1)
        return other if other < home else other + 1

    def _customer_id(self) -> int:
        c = self._terminal_c_id if self._as_tpcc_mysql else self.constants.c_id
        return nurand(self.rng, 1023, 1, DISTRICT_CUSTOMERS, c)

    def _customer_last(self, warehouse_id: int) -> str:
        c = warehouse_id if self._as_tpcc_mysql else self.constants.c_last
        return last_name(nurand(self.rng, 255, 0, 999, c))

    def _item_id(self, previous_quantity: int | None) -> int:
        if self._as_tpcc_mysql:
            c = self._terminal_c_first_item if previous_quantity is None else previous_quantity
        else:
            c = self.constants.ol_i_id
        return nurand(self.rng, 8191, 1, ITEMS, c)

    def _customer_selector(self, warehouse_id: int) -> tuple[bool, int | None, str | None]:
        # Clauses 2.5.1.2 / 2.6.1.2: 60% of customers are selected by last name, 40% by id.
        if self._int(1, 100) <= 60:
            return True, None, self._customer_last(warehouse_id)
        return False, self._customer_id(), None

    # -- the five transactions ---------------------------------------------------------------

    def new_order(self) -> NewOrderInput:
        warehouse_id = self._warehouse()
        district_id = self._district()
        customer_id = self._customer_id()
        line_count = self._int(5, 15)  # clause 2.4.1.3
        rollback = self._int(1, 100) == 1  # clause 2.4.1.4: 1% of New-Orders roll back
        lines = []
        for number in range(1, line_count + 1):
            item_id = self._item_id(lines[-1].quantity if lines else None)
            if rollback and number == line_count:
                item_id = UNUSED_ITEM_ID  # clause 2.4.1.5: the last line's item does not exist
            # Clause 2.4.1.5: 99% of lines come from the home warehouse, 1% from a remote one
            # (only possible with more than one warehouse).
            if self.warehouses > 1 and self._int(1, 100) == 1:
                supply_warehouse_id = self._other_warehouse(warehouse_id)
            else:
                supply_warehouse_id = warehouse_id
            lines.append(OrderLineInput(item_id, supply_warehouse_id, self._int(1, 10)))
        return NewOrderInput(warehouse_id, district_id, customer_id, tuple(lines), rollback)

    def payment(self) -> PaymentInput:
        warehouse_id = self._warehouse()
        district_id = self._district()
        # Clause 2.5.1.2: 85% pay at their home warehouse and district; 15% through another
        # warehouse, in a random district. With one warehouse, tpcc-mysql keeps the home warehouse
        # and still draws the district, and so do we.
        if self._int(1, 100) <= 85:
            customer_warehouse_id, customer_district_id = warehouse_id, district_id
        else:
            customer_warehouse_id = self._other_warehouse(warehouse_id)
            customer_district_id = self._district()
        by_last_name, customer_id, customer_last = self._customer_selector(warehouse_id)
        amount = Decimal(self._int(100, 500_000)) / 100  # clause 2.5.1.3: 1.00 .. 5000.00
        return PaymentInput(
            warehouse_id,
            district_id,
            customer_warehouse_id,
            customer_district_id,
            by_last_name,
            customer_id,
            customer_last,
            amount,
        )

    def order_status(self) -> OrderStatusInput:
        warehouse_id = self._warehouse()
        district_id = self._district()
        by_last_name, customer_id, customer_last = self._customer_selector(warehouse_id)
        if by_last_name:
            # tpcc-mysql draws a customer id for every Order-Status and, selecting by name, still
            # reads the last order of that id (its by-name cursor returns no c_id).
            customer_id = self._customer_id()
        return OrderStatusInput(warehouse_id, district_id, by_last_name, customer_id, customer_last)

    def delivery(self) -> DeliveryInput:
        return DeliveryInput(self._warehouse(), carrier_id=self._int(1, 10))  # clause 2.7.1.2

    def stock_level(self) -> StockLevelInput:
        # Clause 2.8.1.2: threshold within 10..20. tpcc-mysql draws the district per transaction.
        warehouse_id = self._warehouse()
        return StockLevelInput(warehouse_id, self._district(), threshold=self._int(10, 20))

    def draw(self, kind: TransactionKind) -> TransactionInput:
        return self._drawers[kind](self)

    _drawers: ClassVar[dict[TransactionKind, Callable[[InputGenerator], TransactionInput]]] = {
        TransactionKind.NEW_ORDER: new_order,
        TransactionKind.PAYMENT: payment,
        TransactionKind.ORDER_STATUS: order_status,
        TransactionKind.DELIVERY: delivery,
        TransactionKind.STOCK_LEVEL: stock_level,
    }
