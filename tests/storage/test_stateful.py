"""The database against a dict, driven by hypothesis: puts, deletes, gets, scans, transactions
that commit or roll back, and reopening from disk (with and without a checkpoint), at page sizes
from 1 KiB to 64 KiB.

Examples are kept small (a few dozen steps) so the whole file runs in well under a minute; keys
and values range up to the page size's limits so that few entries already force splits, and the
cache is small enough that pages are evicted and read back. The journal is not fsynced here
(synchronous=False): durability across a killed process is the crash test's job.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from pagelab.storage import Database, EntryTooLargeError, max_key_bytes, max_value_bytes

# A small pool, so pages are evicted and read back (stale bytes on a page would show), and few
# enough changes per transaction that its pages always fit in it: a put changes at most a leaf,
# its new sibling and two pages per level above (depth <= 4 here), so 3 puts stay under 32 frames.
CACHE_FRAMES = 32
MAX_OPS_PER_TRANSACTION = 3


class Rollback(Exception):
    """Raised into a transaction block to roll it back."""


def value_of(seed: int, length: int) -> bytes:
    return (seed.to_bytes(2, "little") * (length // 2 + 1))[:length]


def machine_for(page_size: int) -> type[RuleBasedStateMachine]:
    max_key = max_key_bytes(page_size)
    max_value = max_value_bytes(page_size)
    short_keys = st.binary(max_size=4)
    long_keys = st.builds(lambda byte, length: bytes([byte]) * length,
                          st.integers(0, 255), st.sampled_from([max_key // 3, max_key - 1, max_key, max_key + 1]))
    values = st.builds(value_of, st.integers(0, 65535),
                       st.sampled_from([0, 1, 7, 100, max_value // 3, max_value, max_value + 1]))

    class StorageMachine(RuleBasedStateMachine):
        keys = Bundle("keys")

        def __init__(self) -> None:
            super().__init__()
            self.directory = Path(tempfile.mkdtemp(prefix="pagelab-stateful-"))
            self.path = self.directory / "model.db"
            self.db = self._open()
            self.committed: dict[bytes, bytes] = {}
            self.pending: dict[bytes, bytes | None] | None = None  # the open transaction's changes
            self.block = None
            self.ops_in_transaction = 0

        def _open(self) -> Database:
            return Database.open(self.path, page_size=page_size, cache_bytes=CACHE_FRAMES * page_size,
                                 synchronous=False, checkpoint_pages=60)

        def view(self) -> dict[bytes, bytes]:
            current = dict(self.committed)
            for key, value in (self.pending or {}).items():
                if value is None:
                    current.pop(key, None)
                else:
                    current[key] = value
            return current

        def record(self, key: bytes, value: bytes | None) -> None:
            if self.pending is not None:
                self.pending[key] = value
                self.ops_in_transaction += 1
            elif value is None:
                self.committed.pop(key, None)
            else:
                self.committed[key] = value

        @initialize(target=keys, key=short_keys)
        def first_key(self, key):
            return key

        @rule(target=keys, key=st.one_of(short_keys, long_keys))
        def new_key(self, key):
            return key

        @precondition(lambda self: self.ops_in_transaction < MAX_OPS_PER_TRANSACTION)
        @rule(key=keys, value=values)
        def put(self, key, value):
            if len(key) > max_key or len(value) > max_value:
                with pytest.raises(EntryTooLargeError):
                    self.db.put(key, value)
                return
            self.db.put(key, value)
            self.record(key, value)

        @precondition(lambda self: self.pending is None)
        @rule(prefix=short_keys, count=st.integers(1, 60), seed=st.integers(0, 65535))
        def put_many(self, prefix, count, seed):
            """Autocommitted runs of small entries: grows the tree (and its interior pages) quickly."""
            for i in range(count):
                key = prefix + b"%03d" % ((i * 37 + seed) % 1000)
                value = value_of((seed + i) % 65536, (seed + i) % 50)
                self.db.put(key, value)
                self.committed[key] = value

        @precondition(lambda self: self.ops_in_transaction < MAX_OPS_PER_TRANSACTION)
        @rule(key=keys)
        def delete(self, key):
            assert self.db.delete(key) == (key in self.view())
            self.record(key, None)

        @rule(key=keys)
        def get(self, key):
            assert self.db.get(key) == self.view().get(key)

        @rule(start=st.none() | keys, end=st.none() | keys, inclusive=st.booleans())
        def scan(self, start, end, inclusive):
            expected = sorted(
                (k, v) for k, v in self.view().items()
                if (start is None or k >= start) and (end is None or k < end or (inclusive and k == end))
            )
            assert list(self.db.scan(start, end, end_inclusive=inclusive)) == expected

        @precondition(lambda self: self.pending is None)
        @rule()
        def begin(self):
            self.block = self.db.transaction()
            self.block.__enter__()
            self.pending = {}
            self.ops_in_transaction = 0

        @precondition(lambda self: self.pending is not None)
        @rule()
        def commit(self):
            self.block.__exit__(None, None, None)
            self.committed = self.view()
            self.pending, self.block = None, None

        @precondition(lambda self: self.pending is not None)
        @rule()
        def rollback(self):
            error = Rollback()
            try:
                self.block.__exit__(Rollback, error, None)
            except Rollback:
                pass
            self.pending, self.block = None, None

        @rule(checkpoint=st.booleans())
        def reopen(self, checkpoint):
            self.db.close(checkpoint=checkpoint)  # an open transaction is rolled back
            self.pending, self.block = None, None
            self.db = self._open()
            assert self.db.recovery.transactions == 0 or not checkpoint
            self.db.check()
            assert dict(self.db.scan()) == self.committed

        @invariant()
        def counts_agree(self):
            assert len(self.db) == len(self.view())

        def teardown(self):
            try:
                if self.pending is None:
                    self.db.check()
                self.db.close()
            finally:
                shutil.rmtree(self.directory, ignore_errors=True)

    StorageMachine.__name__ = f"StorageMachine{page_size // 1024}k"
    return StorageMachine


# 80 programs of up to 50 steps a page size, the same on every run (derandomize): a failure is
# reproducible and never comes and goes between runs. Fewer do not do: at 40, a rollback that left
# the transaction's new pages in the pool went unseen; at 80 it fails (as does one that keeps the
# rolled-back key count).
_SETTINGS = settings(max_examples=80, stateful_step_count=50, deadline=None, derandomize=True, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

TestStorage1k = machine_for(1024).TestCase
TestStorage4k = machine_for(4096).TestCase
TestStorage16k = machine_for(16384).TestCase
TestStorage64k = machine_for(65536).TestCase
for _case in (TestStorage1k, TestStorage4k, TestStorage16k, TestStorage64k):
    _case.settings = _SETTINGS
del _case  # or pytest would collect it a second time under this name
