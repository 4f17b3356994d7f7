"""A real MariaDB instance with one TPC-C warehouse loaded, shared by the tests in this folder."""

from __future__ import annotations

import pytest

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.loader import load

SETTINGS = dict(buffer_pool_bytes="64M", redo_log_bytes="64M", max_connections=50)


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    return generate(1, 7, cache_dir=tmp_path_factory.mktemp("tpcc-cache"), progress=False)


@pytest.fixture(scope="session")
def loaded(tmp_path_factory, dataset):
    """(instance, load report, snapshot path): running, with warehouse 1 loaded from seed 7."""
    instance = Instance(tmp_path_factory.mktemp("tpcc") / "4k", "4k", settings=ServerSettings(**SETTINGS))
    instance.init()
    try:
        instance.start()
        report = load(ConnectionSpec.for_instance(instance), dataset, progress=False)
        instance.stop()
        snapshot = instance.snapshot()
        instance.start()
        yield instance, report, snapshot
    finally:
        instance.stop()


@pytest.fixture
def spare_loaded_instance(tmp_path, loaded):
    """A second instance restored from the loaded snapshot, for tests that break their server."""
    _, _, snapshot = loaded
    instance = Instance(tmp_path / "spare", "4k", settings=ServerSettings(**SETTINGS))
    instance.init()
    instance.restore(snapshot)
    try:
        yield instance.start()
    finally:
        instance.stop()
