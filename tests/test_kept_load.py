"""A completed load's record (pagelab.sweep.kept_load) holds only for the datadir the load left,
under the configuration it was loaded with, on a real MariaDB datadir. The sweep's use of it (a
snapshot's copy cut short keeps the load; a load cut short is loaded again) is the fault matrix's
(tests/faults/test_matrix_to_start.py, harness.check_loads)."""

from __future__ import annotations

import json
import os

import pytest

from pagelab.mysql import Instance, ServerSettings
from pagelab.sweep import kept_load
from tests.mysql.conftest import TEST_SETTINGS

pytestmark = pytest.mark.server

CONFIG = {"page_size": 4096, "warehouses": 1, "seed": 7, "database": "tpcc", "loader": "pagelab"}
STATE = {"db_bytes": 123, "warehouses": 1, "seed": 7}


@pytest.fixture
def loaded(tmp_path):
    """A real 4k datadir with a table in it, shut down cleanly, and its record."""
    instance = Instance(tmp_path / "4k", "4k", settings=ServerSettings(**TEST_SETTINGS))
    instance.init()
    try:
        with instance:
            instance.start()
            instance.query("CREATE DATABASE tpcc")
            instance.query("CREATE TABLE tpcc.warehouse (w_id INT PRIMARY KEY) ENGINE=InnoDB")
            instance.query("INSERT INTO tpcc.warehouse VALUES (1)")
            assert instance.stop()
        kept_load.remember(instance.root, instance.paths.datadir, CONFIG, STATE, "4k-r1")
        yield instance
    finally:
        instance.stop(timeout=30)


def check(instance: Instance, config: dict = CONFIG):
    return kept_load.check(instance.root, instance.paths.datadir, config)


def test_the_datadir_the_load_left_is_kept_under_its_configuration(loaded):
    record, why = check(loaded)
    assert why is None and record["state"] == STATE and record["loaded_by"] == "4k-r1"
    assert kept_load.kept_text("4k", record).startswith("kept the completed load of 4k (1 warehouse, loaded by 4k-r1 at ")
    record, why = check(loaded, {**CONFIG, "seed": 8})
    assert record is None and why == "it was loaded with another configuration than this run's (seed)"


def test_a_server_started_on_the_datadir_since_makes_it_another(loaded):
    with loaded:
        loaded.start()
        assert kept_load.check(loaded.root, loaded.paths.datadir, CONFIG, "a server is running on it") == \
            (None, "a server is running on it")
    record, why = check(loaded)
    assert record is None and why.startswith("its datadir"), why


def test_bytes_changed_in_place_are_found(loaded):
    """Same files, same sizes, same times: only the bytes differ (a disk that lost a write)."""
    table = next(loaded.paths.datadir.rglob("warehouse.ibd"))
    times = table.stat()
    with open(table, "r+b") as handle:
        handle.seek(times.st_size // 2)
        byte = handle.read(1)
        handle.seek(times.st_size // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(table, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert check(loaded) == (None, "its datadir's bytes changed since the load")


def test_no_record_a_forgotten_one_and_a_torn_one(loaded):
    path = loaded.root / kept_load.LOAD_RECORD
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    record, why = check(loaded)
    assert record is None and why.startswith("its record cannot be read"), why
    path.write_text(json.dumps({**json.loads(text), "loaded_by": "8k-r1"}))  # whole JSON, edited: its checksum fails
    assert check(loaded) == (None, f"its record cannot be read ({kept_load.LOAD_RECORD} does not match its checksum)")
    kept_load.forget(loaded.root)
    assert check(loaded) == (None, None)
