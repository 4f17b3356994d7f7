"""YCSB's core-workload keys, values and request distributions, written from their documented semantics.

Keys. Record number n (0, 1, 2, ... in insertion order) is stored under the key "user" followed by
the decimal digits of FNV-1a-64 of n (YCSB's `insertorder=hashed`, its default), so consecutive
inserts land all over the key space. The hash folds the eight bytes of n, lowest first, into the
FNV-64 offset basis 0xCBF29CE484222325 (xor the byte, multiply by the FNV-64 prime
1099511628211, modulo 2**64), reads the result as a Java long and takes its absolute value.
`insertorder=ordered` keeps n itself ("user42").

Request distributions (which record number an operation touches; `choose()` of each chooser):

    uniform   every loaded record equally likely
    zipfian   YCSB's scrambled zipfian: a zipfian draw (constant 0.99, Gray et al.'s "Quickly
              generating billion-record synthetic databases" method) over 10**10 items, hashed
              with FNV-64 and folded into the record range, so the popular records are few but
              scattered over the key space instead of being records 0, 1, 2, ...
    latest    the newest records most popular: a zipfian draw r over the records inserted so far,
              record number (latest - r); workload D (read latest, insert 5%)

Values. Each of the `field_count` fields (10) holds `field_length` (100) random characters. They
are slices of one seeded pool of letters, digits, '-' and '_' (no quote or backslash, so they go
into SQL literals as they are), so making a record costs a few slices, not a thousand random calls.

Every generator draws from a `random.Random` it is given: a seed gives the same keys, values and
operations every time.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Callable

FNV_OFFSET_BASIS_64 = 0xCBF29CE484222325
FNV_PRIME_64 = 1099511628211
_MASK_64 = (1 << 64) - 1
_SIGN_64 = 1 << 63
KEY_PREFIX = "user"

ZIPFIAN_CONSTANT = 0.99  # YCSB's default zipfian constant (theta)
SCRAMBLED_ITEM_COUNT = 10_000_000_000  # the scrambled zipfian draws over 10^10 items, then folds
DISTRIBUTIONS = ("zipfian", "uniform", "latest")

VALUE_ALPHABET = string.ascii_letters + string.digits + "-_"
VALUE_POOL_CHARS = 1 << 16


# -- keys -----------------------------------------------------------------------------------------

def fnv_hash64(value: int) -> int:
    """FNV-1a-64 of the 8 little-endian bytes of `value`, as YCSB's Utils.fnvhash64 returns it:
    a Java long's absolute value (Long.MIN_VALUE, whose absolute value overflows, stays negative)."""
    hashed = FNV_OFFSET_BASIS_64
    for _ in range(8):
        hashed = ((hashed ^ (value & 0xFF)) * FNV_PRIME_64) & _MASK_64
        value >>= 8
    if hashed & _SIGN_64:
        hashed -= 1 << 64  # as a signed 64-bit long
        return hashed if hashed == -_SIGN_64 else -hashed
    return hashed


def key_name(number: int, hashed: bool = True, zero_padding: int = 1) -> str:
    """The key of record `number`: "user" + its FNV-64 hash (or the number itself when not hashed),
    the digits left-padded with zeros to `zero_padding` (YCSB's zeropadding, default 1: none)."""
    digits = str(fnv_hash64(number) if hashed else number)
    if len(digits) < zero_padding:
        digits = "0" * (zero_padding - len(digits)) + digits
    return KEY_PREFIX + digits


# -- zeta and the zipfian draw --------------------------------------------------------------------

_EXACT_TERMS = 10_000  # sum the first terms one by one, the rest by Euler-Maclaurin


def _power_sum(first: int, last: int, theta: float) -> float:
    """sum(i ** -theta for i in first..last): the first terms one by one, the rest (from term
    10,000 on) by the Euler-Maclaurin formula to the third derivative, whose error there is
    below 1e-20."""
    if last < first:
        return 0.0
    exact_last = min(last, max(first, _EXACT_TERMS))
    total = math.fsum(i ** -theta for i in range(first, exact_last + 1))
    if exact_last == last:
        return total
    a, b = float(exact_last + 1), float(last)
    if theta == 1.0:
        integral = math.log(b / a)
    else:
        integral = (b ** (1.0 - theta) - a ** (1.0 - theta)) / (1.0 - theta)
    d1 = -theta * (b ** (-theta - 1.0) - a ** (-theta - 1.0))
    d3 = -theta * (theta + 1.0) * (theta + 2.0) * (b ** (-theta - 3.0) - a ** (-theta - 3.0))
    return total + integral + (a ** -theta + b ** -theta) / 2.0 + d1 / 12.0 - d3 / 720.0


def zeta(items: int, theta: float = ZIPFIAN_CONSTANT) -> float:
    """The generalised harmonic number sum(1 / i**theta for i in 1..items)."""
    return _power_sum(1, items, theta)


class Zipfian:
    """Zipfian record numbers in [0, items): 0 the most popular, P(i) proportional to 1/(i+1)**theta.

    Gray et al.'s method: one uniform draw u per value, with zeta(items) computed once (and grown
    incrementally when `items` grows, as workload D's record count does)."""

    def __init__(self, items: int, rng: random.Random, theta: float = ZIPFIAN_CONSTANT, zetan: float | None = None):
        if items < 1:
            raise ValueError(f"a zipfian distribution needs at least one item, got {items}")
        if not 0.0 < theta < 1.0:
            raise ValueError(f"the zipfian constant must be between 0 and 1 (exclusive), got {theta}")
        self.rng = rng
        self.theta = theta
        self.alpha = 1.0 / (1.0 - theta)
        self.zeta2 = 1.0 + 0.5 ** theta
        self.items = items
        self.zetan = zeta(items, theta) if zetan is None else zetan
        self.eta = self._eta()

    def _eta(self) -> float:
        if self.items <= 2:  # never used: u * zetan < zeta2 always picks 0 or 1
            return 0.0
        return (1.0 - (2.0 / self.items) ** (1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)

    def resize(self, items: int) -> None:
        if items == self.items:
            return
        if items < 1:
            raise ValueError(f"a zipfian distribution needs at least one item, got {items}")
        if items > self.items:
            self.zetan += _power_sum(self.items + 1, items, self.theta)
        else:
            self.zetan = zeta(items, self.theta)
        self.items = items
        self.eta = self._eta()

    def next(self) -> int:
        u = self.rng.random()
        uz = u * self.zetan
        if uz < 1.0:
            return 0
        if uz < self.zeta2:
            return 1
        return int(self.items * (self.eta * u - self.eta + 1.0) ** self.alpha)


_SCRAMBLED_ZETA: dict[float, float] = {}


def scrambled_zeta(theta: float = ZIPFIAN_CONSTANT) -> float:
    """zeta(10**10, theta), computed once per process (YCSB ships it as a constant, 26.469...)."""
    if theta not in _SCRAMBLED_ZETA:
        _SCRAMBLED_ZETA[theta] = zeta(SCRAMBLED_ITEM_COUNT, theta)
    return _SCRAMBLED_ZETA[theta]


# -- the key choosers -----------------------------------------------------------------------------

class UniformChooser:
    """Record numbers uniformly from [0, records) (YCSB: the loaded records only)."""

    def __init__(self, records: int, rng: random.Random):
        self.records = records
        self.random = rng.random

    def choose(self, latest: int) -> int:
        return int(self.random() * self.records)


class ScrambledZipfianChooser:
    """YCSB's scrambled zipfian over [0, items): items = records plus twice the inserts a run
    expects, and a draw beyond the newest record inserted so far is drawn again."""

    def __init__(self, items: int, rng: random.Random, theta: float = ZIPFIAN_CONSTANT):
        self.items = items
        self.zipfian = Zipfian(SCRAMBLED_ITEM_COUNT, rng, theta, zetan=scrambled_zeta(theta))

    def next_raw(self) -> int:
        return fnv_hash64(self.zipfian.next()) % self.items

    def choose(self, latest: int) -> int:
        draw = self.zipfian.next
        items = self.items
        while True:
            number = fnv_hash64(draw()) % items
            if number <= latest:
                return number


class LatestChooser:
    """The newest records most popular: latest - zipfian(latest + 1)."""

    def __init__(self, records: int, rng: random.Random, theta: float = ZIPFIAN_CONSTANT):
        self.zipfian = Zipfian(max(records, 1), rng, theta)

    def choose(self, latest: int) -> int:
        zipfian = self.zipfian
        if latest + 1 != zipfian.items:
            zipfian.resize(latest + 1)
        return latest - zipfian.next()


def key_chooser(distribution: str, records: int, expected_inserts: int, rng: random.Random):
    """The chooser YCSB's core workload builds for `requestdistribution`."""
    if distribution == "uniform":
        return UniformChooser(records, rng)
    if distribution == "zipfian":
        return ScrambledZipfianChooser(records + 2 * expected_inserts, rng)
    if distribution == "latest":
        return LatestChooser(records, rng)
    raise ValueError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {distribution!r}")


# -- operations and values ------------------------------------------------------------------------

def operation_picker(weights: dict[str, float], rng: random.Random) -> Callable[[], str]:
    """A function returning an operation name with the given proportions (they need not sum to 1)."""
    names = [name for name, weight in weights.items() if weight > 0]
    if not names:
        raise ValueError("no operation has a positive proportion")
    total = sum(weights[name] for name in names)
    bounds, running = [], 0.0
    for name in names:
        running += weights[name] / total
        bounds.append(running)
    bounds[-1] = 1.0
    pairs = list(zip(bounds, names))
    random_ = rng.random
    if len(pairs) == 1:
        only = names[0]
        return lambda: only

    def pick() -> str:
        u = random_()
        for bound, name in pairs:
            if u < bound:
                return name
        return names[-1]

    return pick


class ValueSource:
    """Field values: `field_length`-character slices of one seeded pool of safe ASCII characters."""

    def __init__(self, rng: random.Random, field_length: int, pool_chars: int = VALUE_POOL_CHARS):
        self.field_length = field_length
        size = max(pool_chars, 4 * field_length)
        self.pool = "".join(rng.choices(VALUE_ALPHABET, k=size))
        self.span = size - field_length
        self.random = rng.random

    def field(self) -> str:
        start = int(self.random() * self.span)
        return self.pool[start : start + self.field_length]

    def record(self, field_count: int) -> list[str]:
        return [self.field() for _ in range(field_count)]
