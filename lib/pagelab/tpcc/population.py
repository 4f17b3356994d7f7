"""The rows of the TPC-C initial population (clause 4.3.3.1): what each table's TSV lines hold.

The TSV files themselves are written by `pagelab.tpcc.rowfiles`; `pagelab.tpcc.datagen` caches
them as a dataset. This module is the format: the generators' draws, their order and their
batching, which `GENERATOR_VERSION` versions.

What is generated, per warehouse (item is global): 1 warehouse, 10 districts, 30,000 customers and
30,000 history rows, 30,000 orders of which the last 900 per district are undelivered and listed in
new_orders (9,000), 5..15 order lines per order (about 300,000), and 100,000 stock rows.

Rules follow clause 4.3.3.1; where the spec leaves room we take tpcc-mysql's convention
(its ``load.c``): the a-string alphabet 0-9A-Za-z, c_middle 'OE', decimals at the scale of
tpcc-mysql's columns (two places for taxes and discounts). Where tpcc-mysql contradicts the spec,
we follow the spec, because the loaded database must pass the consistency conditions (clause 3.3.2):

- w_ytd is 300,000.00 (clause 4.3.3.1; tpcc-mysql writes 3,000,000.00, which breaks condition 1,
  W_YTD = sum(D_YTD), from the first second).
- c_credit is 'BC' for 10% of customers (tpcc-mysql: 50%).
- ol_amount is 0.00 for delivered orders and random in 0.01..9,999.99 for undelivered ones
  (tpcc-mysql has it the other way round).
- The marker in i_data/s_data is upper-case ``ORIGINAL`` (tpcc-mysql writes ``original``), in
  exactly 10% of rows; the New-Order brand-generic check must look for `ORIGINAL_MARKER`.
- Zip codes are four random digits and '11111' (clause 4.3.2.7; tpcc-mysql: nine random digits),
  states are two upper-case letters.

Every table's rows come in primary-key order, so InnoDB appends to its clustered indexes while
loading, as it does under tpcc-mysql's own loader.

Format (MySQL's LOAD DATA defaults): fields separated by a tab, NULL as ``\\N``, dates as
'YYYY-MM-DD HH:MM:SS'. The default escaping (backslash) never has anything to do: every generated
string is drawn from letters and digits, so no field can contain a tab, a newline or a backslash.

All dates are one load timestamp derived from the seed, not the clock, so output does not depend on
when it was generated.

Reproducibility: each (table, warehouse) has its own random stream, ``derived_random(seed, table,
warehouse)``, so files can be generated in parallel processes, in any order, with the same result.
The batch size and the order in which a generator draws its columns are part of the format:
changing either changes the bytes, so bump `GENERATOR_VERSION` with it (caches of other versions
are regenerated).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pagelab.tpcc import schema
from pagelab.tpcc.random_primitives import (
    DISTRICT_CUSTOMERS,
    ITEMS,
    WAREHOUSE_DISTRICTS,
    derived_random,
    last_name,
    nurand,
    uniform_int,
)

# The version of what this module draws, and of the cache layout in pagelab.tpcc.datagen: a
# dataset's manifest records it, and a cache of another version is generated again.
GENERATOR_VERSION = 1

ORIGINAL_MARKER = "ORIGINAL"  # clause 4.3.3.1: in i_data and s_data of 10% of the rows
NULL = "\\N"  # LOAD DATA's NULL with the default ESCAPED BY '\\'

ORDERS_PER_DISTRICT = 3000
FIRST_UNDELIVERED_ORDER_ID = 2101  # clause 4.3.3.1: orders 2101..3000 are in new_orders
WAREHOUSE_YTD = "300000.00"  # clause 4.3.3.1, and 10 x D_YTD (consistency condition 1)
DISTRICT_YTD = "30000.00"

# Rows per batch handed to the writer: bounds memory and sets the progress granularity.
# Part of the output format (see the module docstring), not a tuning knob.
BATCH_ROWS = 10_000

PER_WAREHOUSE_TABLES = [table for table in schema.TABLES if table != "item"]


# ---------------------------------------------------------------------------------------------
# Random strings, in bulk
# ---------------------------------------------------------------------------------------------


class _Charset:
    """Draws unbiased random strings over an alphabet, thousands of characters per call.

    Random bytes come from ``getrandbits`` in one call, ``bytes.translate`` maps each byte to a
    character and deletes the bytes above the largest multiple of the alphabet size (rejection
    sampling, so every character is equally likely), all in C. A per-character Python loop would
    be the generator's entire run time.
    """

    def __init__(self, alphabet: str):
        if not alphabet.isascii() or not alphabet.isalnum():
            # The TSV format relies on it: no tab, newline or backslash can ever be generated.
            raise ValueError("alphabets are restricted to ASCII letters and digits")
        size = len(alphabet)
        self.accepted = 256 - 256 % size
        self.table = bytes(ord(alphabet[b % size]) if b < self.accepted else 0 for b in range(256))
        self.rejected = bytes(range(self.accepted, 256))

    def draw(self, rng, length: int) -> str:
        """One random string of exactly `length` characters."""
        chunks = []
        have = 0
        while have < length:
            missing = length - have
            # Enough bytes for the expected rejections plus a margin; capped to bound memory.
            nbytes = min(missing * 256 // self.accepted + 64, 1 << 22)
            raw = rng.getrandbits(nbytes * 8).to_bytes(nbytes, "little")
            chunk = raw.translate(self.table, self.rejected)
            chunks.append(chunk)
            have += len(chunk)
        return b"".join(chunks)[:length].decode("ascii")

    def strings(self, rng, lengths: list[int]) -> list[str]:
        """Random strings of the given lengths, cut from one draw."""
        text = self.draw(rng, sum(lengths))
        pieces = []
        position = 0
        for length in lengths:
            pieces.append(text[position : position + length])
            position += length
        return pieces


# Clause 4.3.2.2: an a-string over at least 26 upper, 26 lower case letters and 10 digits
# (tpcc-mysql's MakeAlphaString uses exactly these 62); an n-string over digits.
ALPHANUMERIC = _Charset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
DIGITS = _Charset("0123456789")
UPPER_LETTERS = _Charset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

# "D.CC" for every amount up to 100.00, the range of prices, taxes and discounts.
_CENTS = [f"{cents // 100}.{cents % 100:02d}" for cents in range(10_001)]
_LAST_NAMES = [last_name(number) for number in range(1000)]


def _lengths(rng, low: int, high: int, count: int) -> list[int]:
    """`count` random lengths within [low, high] (the length of a clause 4.3.2.2 a-string)."""
    draw = rng.random
    span = high - low + 1
    return [low + int(draw() * span) for _ in range(count)]


def _choose_ids(rng, population: int, count: int) -> bytearray:
    """Flags for exactly `count` distinct ids out of 1..population, chosen uniformly.

    Partial Fisher-Yates on ``random()`` (not ``random.sample``, whose algorithm may change).
    """
    draw = rng.random
    ids = list(range(1, population + 1))
    for i in range(count):
        j = i + int(draw() * (population - i))
        ids[i], ids[j] = ids[j], ids[i]
    flags = bytearray(population + 1)
    for chosen in ids[:count]:
        flags[chosen] = 1
    return flags


def _permutation(rng, size: int) -> list[int]:
    """A uniformly random permutation of 1..size (Fisher-Yates on ``random()``)."""
    draw = rng.random
    values = list(range(1, size + 1))
    for i in range(size - 1, 0, -1):
        j = int(draw() * (i + 1))
        values[i], values[j] = values[j], values[i]
    return values


def _mark_original(rng, data: list[str], first_id: int, original: bytearray) -> None:
    """Clause 4.3.3.1: put ORIGINAL at a random position of the data of the flagged rows."""
    for offset, text in enumerate(data):
        if original[first_id + offset]:
            position = uniform_int(rng, 0, len(text) - len(ORIGINAL_MARKER))
            data[offset] = text[:position] + ORIGINAL_MARKER + text[position + len(ORIGINAL_MARKER) :]


def _addresses(rng, count: int) -> list[str]:
    """street_1, street_2, city, state, zip of clause 4.3.3.1, already tab-joined per row."""
    streets_1 = ALPHANUMERIC.strings(rng, _lengths(rng, 10, 20, count))
    streets_2 = ALPHANUMERIC.strings(rng, _lengths(rng, 10, 20, count))
    cities = ALPHANUMERIC.strings(rng, _lengths(rng, 10, 20, count))
    states = UPPER_LETTERS.strings(rng, [2] * count)
    zips = DIGITS.strings(rng, [4] * count)  # clause 4.3.2.7: 4 random digits + "11111"
    return [
        f"{street_1}\t{street_2}\t{city}\t{state}\t{zip_prefix}11111"
        for street_1, street_2, city, state, zip_prefix in zip(
            streets_1, streets_2, cities, states, zips, strict=True
        )
    ]


def _taxes(rng, count: int) -> list[str]:
    # Clause 4.3.3.1: W_TAX/D_TAX within 0.0000..0.2000; tpcc-mysql's decimal(4,2) keeps 2 places.
    return [_CENTS[uniform_int(rng, 0, 20)] for _ in range(count)]



# ---------------------------------------------------------------------------------------------
# Row producers: each yields (table, lines) batches for one warehouse (item: the whole table)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What every producer shares: the seed, the load's one timestamp and C-Load's C for C_LAST."""

    seed: int
    timestamp: str
    c_last_load: int


RowBatches = Iterator[tuple[str, list[str]]]


def _item_rows(context: Context, warehouse: None) -> RowBatches:
    rng = derived_random(context.seed, "item")
    draw = rng.random
    original = _choose_ids(rng, ITEMS, ITEMS // 10)
    for first in range(1, ITEMS + 1, BATCH_ROWS):
        ids = range(first, min(first + BATCH_ROWS, ITEMS + 1))
        image_ids = [1 + int(draw() * 10_000) for _ in ids]
        prices = [_CENTS[100 + int(draw() * 9_901)] for _ in ids]  # 1.00 .. 100.00
        names = ALPHANUMERIC.strings(rng, _lengths(rng, 14, 24, len(ids)))
        data = ALPHANUMERIC.strings(rng, _lengths(rng, 26, 50, len(ids)))
        _mark_original(rng, data, first, original)
        yield (
            "item",
            [
                f"{i_id}\t{image_id}\t{name}\t{price}\t{text}"
                for i_id, image_id, name, price, text in zip(ids, image_ids, names, prices, data, strict=True)
            ],
        )


def _warehouse_rows(context: Context, warehouse: int) -> RowBatches:
    rng = derived_random(context.seed, "warehouse", warehouse)
    name = ALPHANUMERIC.strings(rng, _lengths(rng, 6, 10, 1))[0]
    address = _addresses(rng, 1)[0]
    tax = _taxes(rng, 1)[0]
    yield "warehouse", [f"{warehouse}\t{name}\t{address}\t{tax}\t{WAREHOUSE_YTD}"]

    rng = derived_random(context.seed, "district", warehouse)
    names = ALPHANUMERIC.strings(rng, _lengths(rng, 6, 10, WAREHOUSE_DISTRICTS))
    addresses = _addresses(rng, WAREHOUSE_DISTRICTS)
    taxes = _taxes(rng, WAREHOUSE_DISTRICTS)
    next_order_id = ORDERS_PER_DISTRICT + 1
    yield (
        "district",
        [
            f"{d_id}\t{warehouse}\t{name}\t{address}\t{tax}\t{DISTRICT_YTD}\t{next_order_id}"
            for d_id, name, address, tax in zip(
                range(1, WAREHOUSE_DISTRICTS + 1), names, addresses, taxes, strict=True
            )
        ],
    )


def _stock_rows(context: Context, warehouse: int) -> RowBatches:
    rng = derived_random(context.seed, "stock", warehouse)
    draw = rng.random
    original = _choose_ids(rng, ITEMS, ITEMS // 10)
    w = warehouse
    for first in range(1, ITEMS + 1, BATCH_ROWS):
        ids = range(first, min(first + BATCH_ROWS, ITEMS + 1))
        quantities = [10 + int(draw() * 91) for _ in ids]  # 10 .. 100
        # The ten 24-character s_dist_xx of every row, back to back: one draw, sliced below.
        dists = ALPHANUMERIC.draw(rng, 240 * len(ids))
        data = ALPHANUMERIC.strings(rng, _lengths(rng, 26, 50, len(ids)))
        _mark_original(rng, data, first, original)
        lines = []
        p = 0
        # One f-string per row with the slices spelled out: the fastest way to lay out a stock
        # row in pure Python, and stock is the largest table.
        for s_i_id, quantity, text in zip(ids, quantities, data, strict=True):
            lines.append(
                f"{s_i_id}\t{w}\t{quantity}\t{dists[p : p + 24]}\t{dists[p + 24 : p + 48]}\t"
                f"{dists[p + 48 : p + 72]}\t{dists[p + 72 : p + 96]}\t{dists[p + 96 : p + 120]}\t"
                f"{dists[p + 120 : p + 144]}\t{dists[p + 144 : p + 168]}\t{dists[p + 168 : p + 192]}\t"
                f"{dists[p + 192 : p + 216]}\t{dists[p + 216 : p + 240]}\t0\t0\t0\t{text}"
            )
            p += 240
        yield "stock", lines


def _customer_rows(context: Context, warehouse: int) -> RowBatches:
    """Customers and their history row, one district per batch."""
    customer_rng = derived_random(context.seed, "customer", warehouse)
    history_rng = derived_random(context.seed, "history", warehouse)
    draw = customer_rng.random
    timestamp = context.timestamp
    w = warehouse
    c_ids = range(1, DISTRICT_CUSTOMERS + 1)
    count = len(c_ids)
    for d in range(1, WAREHOUSE_DISTRICTS + 1):
        firsts = ALPHANUMERIC.strings(customer_rng, _lengths(customer_rng, 8, 16, count))
        # Clause 4.3.3.1: the first 1,000 customers take the last names 0..999 in order, the
        # others NURand(255, 0, 999) with the load's C, so every name exists in every district.
        lasts = [
            _LAST_NAMES[c_id - 1]
            if c_id <= 1000
            else _LAST_NAMES[nurand(customer_rng, 255, 0, 999, context.c_last_load)]
            for c_id in c_ids
        ]
        addresses = _addresses(customer_rng, count)
        phones = DIGITS.strings(customer_rng, [16] * count)
        credits = ["BC" if draw() < 0.1 else "GC" for _ in c_ids]  # 10% bad credit
        discounts = [_CENTS[int(draw() * 51)] for _ in c_ids]  # 0.00 .. 0.50
        data = ALPHANUMERIC.strings(customer_rng, _lengths(customer_rng, 300, 500, count))
        yield (
            "customer",
            [
                f"{c_id}\t{d}\t{w}\t{first}\tOE\t{last}\t{address}\t{phone}\t{timestamp}\t{credit}\t"
                f"50000\t{discount}\t-10.00\t10.00\t1\t0\t{text}"
                for c_id, first, last, address, phone, credit, discount, text in zip(
                    c_ids, firsts, lasts, addresses, phones, credits, discounts, data, strict=True
                )
            ],
        )
        history_data = ALPHANUMERIC.strings(history_rng, _lengths(history_rng, 12, 24, count))
        yield (
            "history",
            [
                f"{c_id}\t{d}\t{w}\t{d}\t{w}\t{timestamp}\t10.00\t{text}"
                for c_id, text in zip(c_ids, history_data, strict=True)
            ],
        )


def _order_rows(context: Context, warehouse: int) -> RowBatches:
    """Orders, new_orders and order lines, one district per batch."""
    orders_rng = derived_random(context.seed, "orders", warehouse)
    lines_rng = derived_random(context.seed, "order_line", warehouse)
    order_draw = orders_rng.random
    line_draw = lines_rng.random
    timestamp = context.timestamp
    w = warehouse
    o_ids = range(1, ORDERS_PER_DISTRICT + 1)
    delivered = FIRST_UNDELIVERED_ORDER_ID - 1
    # ol_supply_w_id, ol_delivery_d, ol_quantity and ol_amount of a delivered line (clause 4.3.3.1:
    # delivered at the order's entry date, quantity 5, amount 0.00).
    delivered_middle = f"\t{w}\t{timestamp}\t5\t0.00\t"
    undelivered_middle = f"\t{w}\t{NULL}\t5\t"
    for d in range(1, WAREHOUSE_DISTRICTS + 1):
        customers = _permutation(orders_rng, DISTRICT_CUSTOMERS)  # o_c_id: a permutation
        carriers = [str(1 + int(order_draw() * 10)) if o_id <= delivered else NULL for o_id in o_ids]
        line_counts = [5 + int(order_draw() * 11) for _ in o_ids]  # 5 .. 15
        yield (
            "orders",
            [
                f"{o_id}\t{d}\t{w}\t{c_id}\t{timestamp}\t{carrier}\t{line_count}\t1"
                for o_id, c_id, carrier, line_count in zip(
                    o_ids, customers, carriers, line_counts, strict=True
                )
            ],
        )
        yield (
            "new_orders",
            [f"{o_id}\t{d}\t{w}" for o_id in range(FIRST_UNDELIVERED_ORDER_ID, ORDERS_PER_DISTRICT + 1)],
        )

        total_lines = sum(line_counts)
        item_ids = [1 + int(line_draw() * ITEMS) for _ in range(total_lines)]
        dist_info = ALPHANUMERIC.draw(lines_rng, 24 * total_lines)
        lines = []
        k = 0
        for o_id, line_count in zip(o_ids, line_counts, strict=True):
            head = f"{o_id}\t{d}\t{w}\t"
            if o_id <= delivered:
                for number in range(1, line_count + 1):
                    p = 24 * k
                    lines.append(f"{head}{number}\t{item_ids[k]}{delivered_middle}{dist_info[p : p + 24]}")
                    k += 1
            else:
                for number in range(1, line_count + 1):
                    p = 24 * k
                    cents = 1 + int(line_draw() * 999_999)  # 0.01 .. 9999.99
                    lines.append(
                        f"{head}{number}\t{item_ids[k]}{undelivered_middle}"
                        f"{cents // 100}.{cents % 100:02d}\t{dist_info[p : p + 24]}"
                    )
                    k += 1
        yield "order_line", lines



# The producer of each task (pagelab.tpcc.rowfiles), by name; warehouse's also yields district.
PRODUCERS: dict[str, Callable[[Context, Any], RowBatches]] = {
    "item": _item_rows,
    "warehouse": _warehouse_rows,
    "stock": _stock_rows,
    "customer": _customer_rows,
    "orders": _order_rows,
}


def load_timestamp(seed: int) -> str:
    """The one date/time of the population (c_since, h_date, o_entry_d, ol_delivery_d).

    Clause 4.3.3.1 asks for "the current date/time"; a date derived from the seed instead keeps the
    files identical whenever they are generated. It falls within 2020..2024.
    """
    rng = derived_random(seed, "load-timestamp")
    offset = uniform_int(rng, 0, 5 * 365 * 86_400 - 1)
    moment = dt.datetime(2020, 1, 1) + dt.timedelta(seconds=offset)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def expected_row_counts(warehouses: int) -> dict[str, int | None]:
    """Rows per table for W warehouses, in load order; order_line is random (None)."""
    per_warehouse = {
        "warehouse": 1,
        "stock": ITEMS,
        "district": WAREHOUSE_DISTRICTS,
        "customer": WAREHOUSE_DISTRICTS * DISTRICT_CUSTOMERS,
        "history": WAREHOUSE_DISTRICTS * DISTRICT_CUSTOMERS,
        "orders": WAREHOUSE_DISTRICTS * ORDERS_PER_DISTRICT,
        "new_orders": WAREHOUSE_DISTRICTS * (ORDERS_PER_DISTRICT - FIRST_UNDELIVERED_ORDER_ID + 1),
    }
    counts: dict[str, int | None] = {}
    for table in schema.TABLES:
        if table == "item":
            counts[table] = ITEMS
        elif table == "order_line":
            counts[table] = None
        else:
            counts[table] = per_warehouse[table] * warehouses
    return counts
