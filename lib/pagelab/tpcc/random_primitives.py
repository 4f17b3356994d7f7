"""TPC-C's random primitives, shared by the data generator and the driver's inputs.

Seeded random streams (`derived_random`), uniform integers (clause 2.1.5), NURand (clause 2.1.6)
and its constants for the load and for the run, customer last names (clause 4.3.2.3), and the
cardinalities of clause 1.2 / 4.3.3.1 they are drawn within.

Determinism. Every stream is a ``random.Random`` seeded from a SHA-256 of its labels (never the
salted ``hash()``), and draws only through ``random()`` and ``getrandbits()``: those two are plain
functions of the Mersenne Twister state, whereas ``randrange``/``shuffle``/``sample`` are Python
code whose algorithms are free to change between versions. Same seed, same inputs, any machine.
Whatever draws from these streams (pagelab.tpcc.population, .inputs, .deck) keeps to that rule.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

__all__ = [
    "WAREHOUSE_DISTRICTS",
    "DISTRICT_CUSTOMERS",
    "ITEMS",
    "LAST_NAME_SYLLABLES",
    "NURandConstants",
    "derived_random",
    "uniform_int",
    "nurand",
    "last_name",
    "load_constants",
    "run_constants",
    "is_valid_c_last_delta",
]

# Cardinalities of clause 1.2 / 4.3.3.1 (tpcc-mysql's DIST_PER_WARE, CUST_PER_DIST, MAXITEMS).
WAREHOUSE_DISTRICTS = 10
DISTRICT_CUSTOMERS = 3000
ITEMS = 100_000

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
