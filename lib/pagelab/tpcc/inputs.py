"""TPC-C random primitives and the run-time inputs of the five transactions.

Two halves:

- The primitives shared with the data generator: seeded random streams (`derived_random`),
  uniform integers, NURand (clause 2.1.6) and its constants, customer last names (clause 4.3.2.3).
- What a terminal submits: one frozen dataclass per transaction, an `InputGenerator` that draws
  them with tpcc-mysql's distributions, and a `TransactionDeck` that picks which transaction comes
  next from a shuffled deck of 23 cards (clause 5.2.4.2), as tpcc-mysql's ``seq_init``/``seq_get``
  do: 10 New-Order, 10 Payment, 1 Order-Status, 1 Delivery, 1 Stock-Level.

No database here: the driver executes what these objects describe.

Determinism. Every stream is a ``random.Random`` seeded from a SHA-256 of its labels (never the
salted ``hash()``), and draws only through ``random()`` and ``getrandbits()``: those two are plain
functions of the Mersenne Twister state, whereas ``randrange``/``shuffle``/``sample`` are Python
code whose algorithms are free to change between versions. Same seed, same inputs, any machine.

Where tpcc-mysql and the specification differ, the choice is noted at the spot:

- The home warehouse: tpcc-mysql draws ``w_id`` uniformly for every transaction; the spec fixes
  one per terminal (clause 2.4.1.1). `home_warehouse=None` gives the former, an int the latter.
- Payment's amount: tpcc-mysql draws whole units 1..5000; clause 2.5.1.3 asks for
  1.00..5000.00, which we follow (a Decimal with two places).
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from pagelab.common.transactions import TransactionKind

__all__ = [
    "WAREHOUSE_DISTRICTS",
    "DISTRICT_CUSTOMERS",
    "ITEMS",
    "UNUSED_ITEM_ID",
    "LAST_NAME_SYLLABLES",
    "NURandConstants",
    "derived_random",
    "uniform_int",
    "nurand",
    "last_name",
    "load_constants",
    "run_constants",
    "is_valid_c_last_delta",
    "TransactionKind",
    "OrderLineInput",
    "NewOrderInput",
    "PaymentInput",
    "OrderStatusInput",
    "DeliveryInput",
    "StockLevelInput",
    "TransactionInput",
    "InputGenerator",
    "NURAND_MODELS",
    "TransactionDeck",
    "Deck",
    "shared_deck",
    "DECK",
    "terminal_random",
]

# Cardinalities of clause 1.2 / 4.3.3.1 (tpcc-mysql's DIST_PER_WARE, CUST_PER_DIST, MAXITEMS).
WAREHOUSE_DISTRICTS = 10
DISTRICT_CUSTOMERS = 3000
ITEMS = 100_000
# Clause 2.4.1.5: a rolled-back New-Order asks for an item id that does not exist.
UNUSED_ITEM_ID = ITEMS + 1

# Clause 4.3.2.3: a last name is three syllables picked by the three digits of a number 0..999.
LAST_NAME_SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")

_STREAM_NAMESPACE = "pagelab.tpcc"


def derived_random(seed: int, *labels: object) -> random.Random:
    """An independent, reproducible stream for (seed, labels), e.g. (42, "stock", 3).

    The labels are hashed with SHA-256, so streams for different tables or warehouses do not
    overlap in any practical sense, and can be generated in separate processes in any order.
    """
    key = "\x1f".join([_STREAM_NAMESPACE, str(int(seed)), *map(str, labels)])
    return random.Random(int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest(), "big"))


def uniform_int(rng: random.Random, low: int, high: int) -> int:
    """A uniform integer in [low, high] (clause 2.1.5's "random within [x .. y]").

    Built on ``random()`` alone (see the module docstring); with 53-bit floats the bias for the
    spans used here (at most 10^6) is below 10^-10.
    """
    return low + int(rng.random() * (high - low + 1))


def nurand(rng: random.Random, a: int, low: int, high: int, c: int) -> int:
    """NURand(A, x, y) of clause 2.1.6: (((rand(0,A) | rand(x,y)) + C) % (y-x+1)) + x."""
    return (((uniform_int(rng, 0, a) | uniform_int(rng, low, high)) + c) % (high - low + 1)) + low


_LAST_NAMES = tuple(
    LAST_NAME_SYLLABLES[n // 100] + LAST_NAME_SYLLABLES[(n // 10) % 10] + LAST_NAME_SYLLABLES[n % 10]
    for n in range(1000)
)


def last_name(number: int) -> str:
    """The customer last name for 0 <= number <= 999 (clause 4.3.2.3), e.g. 371 -> PRICALLYOUGHT."""
    if not 0 <= number <= 999:
        raise ValueError(f"last-name number must be within 0..999, got {number}")
    return _LAST_NAMES[number]


@dataclass(frozen=True)
class NURandConstants:
    """The C of NURand for each of its three uses (clause 2.1.6): A=255, A=1023, A=8191."""

    c_last: int  # NURand(255, 0, 999): customer last names
    c_id: int  # NURand(1023, 1, 3000): customer ids
    ol_i_id: int  # NURand(8191, 1, 100000): item ids of order lines

    def __post_init__(self) -> None:
        for name, a in (("c_last", 255), ("c_id", 1023), ("ol_i_id", 8191)):
            value = getattr(self, name)
            if not 0 <= value <= a:
                raise ValueError(f"NURand constant {name} must be within 0..{a}, got {value}")

    def to_dict(self) -> dict[str, int]:
        return {"c_last": self.c_last, "c_id": self.c_id, "ol_i_id": self.ol_i_id}

    @classmethod
    def from_dict(cls, values: dict[str, int]) -> NURandConstants:
        return cls(c_last=int(values["c_last"]), c_id=int(values["c_id"]), ol_i_id=int(values["ol_i_id"]))


def load_constants(seed: int) -> NURandConstants:
    """The constants the initial population uses (C-Load of clause 2.1.6.1), drawn once per seed."""
    rng = derived_random(seed, "nurand", "load")
    return NURandConstants(
        c_last=uniform_int(rng, 0, 255),
        c_id=uniform_int(rng, 0, 1023),
        ol_i_id=uniform_int(rng, 0, 8191),
    )


def is_valid_c_last_delta(c_load: int, c_run: int) -> bool:
    """Clause 2.1.6.1: |C-Run - C-Load| for C_LAST is within 65..119 and neither 96 nor 112.

    The rule keeps the run's popular last names different from the load's, without drifting so
    far that by-name lookups stop finding customers.
    """
    delta = abs(c_run - c_load)
    return 65 <= delta <= 119 and delta not in (96, 112)


def run_constants(load: NURandConstants, seed: int) -> NURandConstants:
    """The constants for the measurement run, given the load's.

    C_LAST is drawn uniformly among the values that satisfy the delta rule of clause 2.1.6.1
    (there always are some: at least one side of any C-Load in 0..255 has room for 65..119).
    C_ID and OL_I_ID are not used by the population (o_c_id is a permutation and ol_i_id uniform,
    clause 4.3.3.1), so the run keeps the load's values, which the clause permits.
    """
    candidates = [c for c in range(256) if is_valid_c_last_delta(load.c_last, c)]
    rng = derived_random(seed, "nurand", "run")
    c_last = candidates[uniform_int(rng, 0, len(candidates) - 1)]
    return NURandConstants(c_last=c_last, c_id=load.c_id, ol_i_id=load.ol_i_id)


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
        return _LAST_NAMES[nurand(self.rng, 255, 0, 999, c)]

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


# Clause 5.2.4.2 allows a deck; this one gives 43.5% New-Order, 43.5% Payment and 4.3% of each
# of the rest, above the minimum mix of clause 5.2.3 (43% Payment, 4% each for the other three).
DECK: tuple[TransactionKind, ...] = (
    (TransactionKind.NEW_ORDER,) * 10
    + (TransactionKind.PAYMENT,) * 10
    + (TransactionKind.ORDER_STATUS, TransactionKind.DELIVERY, TransactionKind.STOCK_LEVEL)
)


def terminal_random(seed: int, terminal: int) -> random.Random:
    """The random stream of one terminal: independent of every other terminal and of the load."""
    return derived_random(seed, "terminal", terminal)


class Deck:
    """A shuffled deck of 23 cards (`DECK`), dealt in order and shuffled anew when it runs out, so
    every 23 consecutive cards from a deck boundary are exactly 10:10:1:1:1.

    `shared=True` makes it safe to deal from several threads at once. tpcc-mysql deals one deck to
    all its threads (its sequence.c, under a mutex): a Delivery or Stock-Level comes once per 23
    transactions of the whole run, wherever it lands, instead of once per 23 of each terminal, so
    the heavy transactions rarely run at the same time. The order of the cards is fixed by the
    seed; which terminal gets which card depends on timing, as in tpcc-mysql.
    """

    def __init__(self, rng: random.Random, shared: bool = False):
        self.rng = rng
        self._cards: list[TransactionKind] = []
        self._lock = threading.Lock() if shared else None

    def _shuffled(self) -> list[TransactionKind]:
        cards = list(DECK)
        for i in range(len(cards) - 1, 0, -1):  # Fisher-Yates, on random() only
            j = uniform_int(self.rng, 0, i)
            cards[i], cards[j] = cards[j], cards[i]
        cards.reverse()  # dealt from the end of the list, in shuffled order
        return cards

    def deal(self) -> TransactionKind:
        if self._lock is None:
            return self._deal()
        with self._lock:
            return self._deal()

    def _deal(self) -> TransactionKind:
        if not self._cards:
            self._cards = self._shuffled()
        return self._cards.pop()


def shared_deck(seed: int) -> Deck:
    """The one deck all terminals of a run deal from, as tpcc-mysql's threads do."""
    return Deck(derived_random(seed, "deck"), shared=True)


class TransactionDeck:
    """An endless iterator of transaction inputs for one terminal.

    The kinds come from `deck` (a run's `shared_deck`, as tpcc-mysql deals them) or, without one,
    from the terminal's own deck; the inputs always come from the terminal's own stream.
    """

    def __init__(
        self,
        warehouses: int,
        seed: int,
        terminal: int,
        constants: NURandConstants,
        home_warehouse: int | None = None,
        nurand_model: str = "spec",
        deck: Deck | None = None,
    ):
        self.terminal = terminal
        self.rng = terminal_random(seed, terminal)
        self.inputs = InputGenerator(warehouses, constants, self.rng, home_warehouse, nurand_model)
        self.deck = deck if deck is not None else Deck(self.rng)

    def next_kind(self) -> TransactionKind:
        return self.deck.deal()

    def __iter__(self) -> Iterator[TransactionInput]:
        return self

    def __next__(self) -> TransactionInput:
        return self.inputs.draw(self.next_kind())
