"""A real MariaDB instance with one TPC-C warehouse loaded, for the monitor's tests.

The same pattern as tests/tpcc_server: one session-wide loaded instance, plus a spare instance
restored from its snapshot for tests that kill their server. Every instance is stopped on the way
out, pass or fail.
"""

from __future__ import annotations

import pytest

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.loader import load

POOL_BYTES = 64 << 20
PAGE_SIZE = "4k"
SETTINGS = dict(buffer_pool_bytes=POOL_BYTES, redo_log_bytes="64M", max_connections=50)


@pytest.fixture(scope="session")
def monitor_dataset(tmp_path_factory):
    return generate(1, 7, cache_dir=tmp_path_factory.mktemp("monitor-tpcc-cache"), progress=False)


@pytest.fixture(scope="session")
def monitor_loaded(tmp_path_factory, monitor_dataset):
    """(running instance with warehouse 1 loaded, snapshot of its datadir)."""
    instance = Instance(tmp_path_factory.mktemp("monitor") / PAGE_SIZE, PAGE_SIZE, settings=ServerSettings(**SETTINGS))
    instance.init()
    try:
        instance.start()
        load(ConnectionSpec.for_instance(instance), monitor_dataset, progress=False)
        instance.stop()
        snapshot = instance.snapshot()
        instance.start()
        yield instance, snapshot
    finally:
        instance.stop()


@pytest.fixture
def spare_instance(tmp_path, monitor_loaded):
    """A second instance restored from the loaded snapshot, for tests that break their server."""
    _, snapshot = monitor_loaded
    instance = Instance(tmp_path / "spare", PAGE_SIZE, settings=ServerSettings(**SETTINGS))
    instance.init()
    instance.restore(snapshot)
    try:
        yield instance.start()
    finally:
        instance.stop()
