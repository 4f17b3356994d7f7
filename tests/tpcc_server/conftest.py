"""A real MariaDB instance with one TPC-C warehouse loaded, shared by the tests in this folder."""

from __future__ import annotations

import pytest

from tests.conftest import loaded_instance, restored_instance

SETTINGS = dict(buffer_pool_bytes="64M", redo_log_bytes="64M", max_connections=50)


@pytest.fixture(scope="session")
def dataset(tpcc_dataset):
    return tpcc_dataset


@pytest.fixture(scope="session")
def loaded(tmp_path_factory, dataset):
    """(instance, load report, snapshot path): running, with warehouse 1 loaded from seed 7."""
    with loaded_instance(tmp_path_factory.mktemp("tpcc") / "4k", "4k", SETTINGS, dataset) as state:
        yield state


@pytest.fixture
def spare_loaded_instance(tmp_path, loaded):
    """A second instance restored from the loaded snapshot, for tests that break their server."""
    with restored_instance(tmp_path / "spare", "4k", SETTINGS, loaded[2]) as instance:
        yield instance
