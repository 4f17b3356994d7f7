"""Short YCSB runs shared by the tests in this folder: one on the storage prototype (two page
sizes) and one on a real MariaDB instance (16k), each with every workload, run once per session."""

from __future__ import annotations

import pytest

from pagelab.workloads.ycsb import run_ycsb

# Small enough for CI (a few seconds each), large enough that every operation of every workload
# happens many times: D inserts ~5% of 400 operations, F read-modify-writes ~50%.
SMALL = dict(records=400, operations=400, workloads="abcdf", seed=5)


@pytest.fixture(scope="session")
def prototype_run(tmp_path_factory):
    return run_ycsb("prototype", page_sizes=("4k", "16k"), threads=1, out_dir=tmp_path_factory.mktemp("ycsb") / "proto",
                    **SMALL)


@pytest.fixture(scope="session")
def innodb_run(tmp_path_factory):
    return run_ycsb("innodb", page_sizes=("16k",), threads=2, out_dir=tmp_path_factory.mktemp("ycsb") / "innodb",
                    redo_log_bytes="16M", **SMALL)
