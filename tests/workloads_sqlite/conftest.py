"""One small run of SQLite's experiment 053's benchmark, shared by the tests of this directory.

The seed's shape (3 repeats x 2 runs, writes of 100 and 1,000 rows, reads of 500 and 1,000) on a
table of 2,000 rows instead of 10,000, with samples of 5 ms: a few seconds on a shared 2-core
machine. The databases are kept so that the tests can open them on their own.
"""

from __future__ import annotations

import pytest

from pagelab.workloads.sqlite.run import run_sqlite_bench

SMALL = dict(page_sizes=(4096, 8192), rows=2000, write_batches=(100, 1000), execute_batch_rows=100,
             read_batches=(500, 1000), repeats=3, runs=2, min_sample_seconds=0.005, frame_transactions=2)


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory):
    return run_sqlite_bench(**SMALL, directory=tmp_path_factory.mktemp("sqlite-bench"), keep_databases=True)
