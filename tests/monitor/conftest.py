"""A real MariaDB instance with one TPC-C warehouse loaded, for the monitor's tests.

The same pattern as tests/tpcc_server: one session-wide loaded instance, plus a spare instance
restored from its snapshot for tests that kill their server. Every instance is stopped on the way
out, pass or fail.
"""

from __future__ import annotations

import pytest

from tests.conftest import loaded_instance, restored_instance

POOL_BYTES = 64 << 20
PAGE_SIZE = "4k"
SETTINGS = dict(buffer_pool_bytes=POOL_BYTES, redo_log_bytes="64M", max_connections=50)


@pytest.fixture(scope="session")
def monitor_loaded(tmp_path_factory, tpcc_dataset):
    """(running instance with warehouse 1 loaded, snapshot of its datadir)."""
    with loaded_instance(tmp_path_factory.mktemp("monitor") / PAGE_SIZE, PAGE_SIZE, SETTINGS, tpcc_dataset) as state:
        instance, _, snapshot = state
        yield instance, snapshot


@pytest.fixture
def spare_instance(tmp_path, monitor_loaded):
    """A second instance restored from the loaded snapshot, for tests that break their server."""
    with restored_instance(tmp_path / "spare", PAGE_SIZE, SETTINGS, monitor_loaded[1]) as instance:
        yield instance
