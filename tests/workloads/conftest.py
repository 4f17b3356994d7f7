"""Small versions of the Voron post's workload ("The cost of random writes"), shared by the prototype, SQLite and notebook tests."""

from __future__ import annotations

import pytest

from pagelab.workloads.random_writes.run import run_random_write_cost
from pagelab.workloads.random_writes.sqlite import run_sqlite_write_cost

SMALL = dict(page_sizes=(4096, 16384), transactions=200, items_per_transaction=20, seed=7)


@pytest.fixture(scope="session")
def small_pagelab():
    return run_random_write_cost(**SMALL, workers=1)


@pytest.fixture(scope="session")
def small_sqlite(tmp_path_factory):
    return run_sqlite_write_cost(**SMALL, directory=tmp_path_factory.mktemp("sqlite"), workers=1)
