"""Which transaction a terminal runs next, and a terminal's endless stream of inputs.

A `Deck` picks the next transaction from a shuffled deck of 23 cards (clause 5.2.4.2), as
tpcc-mysql's ``seq_init``/``seq_get`` do: 10 New-Order, 10 Payment, 1 Order-Status, 1 Delivery,
1 Stock-Level. A `TransactionDeck` is one terminal's iterator of inputs: the kind from a deck, the
inputs from pagelab.tpcc.inputs' `InputGenerator` on the terminal's own seeded stream. The deck
shuffles with ``random()`` only, as pagelab.tpcc.random_primitives explains.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

from pagelab.common.transactions import TransactionKind
from pagelab.tpcc.inputs import InputGenerator, TransactionInput
from pagelab.tpcc.random_primitives import NURandConstants, derived_random, uniform_int

__all__ = [
    "DECK",
    "Deck",
    "TransactionDeck",
    "shared_deck",
    "terminal_random",
]

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
