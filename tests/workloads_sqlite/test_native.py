"""The native path (pagelab.workloads.sqlite.native over the C module _sqlitetimer): it reads the
rows the Python path reads, writes the rows it is given, sees the page size in the file header,
and refuses bad page sizes before anything exists."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import pytest

from pagelab.common.errors import UsageError
from pagelab.workloads.sqlite import _sqlitetimer
from pagelab.workloads.sqlite.benchmarks import benchmark_plan, make_row, write_batches_of
from pagelab.workloads.sqlite.database import PythonDatabase
from pagelab.workloads.sqlite.native import NativeDatabase, rows_checksum
from pagelab.workloads.sqlite.run import run_sqlite_bench

ROWS = 1500
PLAN = benchmark_plan(ROWS, (100, 1000), 100, (500, 1000))
BATCHES = write_batches_of(PLAN, ROWS)


def header_page_size(path: Path) -> int:
    """Bytes 16-17 of the file, big-endian (1 means 65536)."""
    with open(path, "rb") as handle:
        header = handle.read(100)
    assert header[:16] == b"SQLite format 3\x00"
    (size,) = struct.unpack(">H", header[16:18])
    return 65536 if size == 1 else size


@pytest.fixture(params=[4096, 8192])
def both_paths(request, tmp_path):
    """A loaded database at one page size, open on both paths."""
    path = tmp_path / f"{request.param}.sqlite"
    python = PythonDatabase(path, request.param, ROWS, BATCHES, "NORMAL", 256 * 2**20)
    native = NativeDatabase(path, request.param, ROWS, BATCHES, "NORMAL", 256 * 2**20)
    yield python, native
    native.close()
    python.close()


def test_the_native_path_reads_the_rows_python_reads(both_paths):
    python, native = both_paths
    reads = [bench for bench in PLAN if bench.kind in ("select_maps", "tx_read")]
    assert [bench.rows for bench in reads] == [ROWS, 500, 1000]
    for bench in reads:
        rows = [tuple(row.values()) for row in python.read(bench)]
        assert len(rows) == bench.rows and rows[0] == (1, *make_row(0))
        assert native.checksum(bench) == rows_checksum(rows)
    # the checksum sees a change in any value, and in the order of the rows
    select_all = reads[0]
    rows = [tuple(row.values()) for row in python.read(select_all)]
    changed = list(rows)
    changed[700] = (*changed[700][:3], changed[700][3] + 0.5, *changed[700][4:])
    assert native.checksum(select_all) != rows_checksum(changed)
    assert native.checksum(select_all) != rows_checksum(rows[1:] + rows[:1])


def test_the_native_path_writes_the_rows_it_is_given_and_deletes_them_again(both_paths):
    python, native = both_paths
    connection = python.connection
    for bench in PLAN:
        if bench.kind in ("write_tx", "execute_batch"):
            native.write_kept(bench)
            written = connection.execute("SELECT * FROM items WHERE id > ? ORDER BY id", (ROWS,)).fetchall()
            assert written == [(ROWS + 1 + i, *make_row(ROWS + i)) for i in range(bench.rows)]
            python.reset(bench)
            native.run(bench)  # a timed iteration's clean-up: the table is back to ROWS rows
            assert connection.execute("SELECT count(*), max(id) FROM items").fetchone() == (ROWS, ROWS)
    wall, cpu, best = native.sample(PLAN[1], 5)
    assert 0 < best <= wall and cpu > 0


@pytest.mark.parametrize("page_size", [512, 4096, 8192, 16384, 65536])
def test_each_page_size_is_in_the_database_header(tmp_path, page_size):
    result = run_sqlite_bench([page_size], paths=["native"], rows=300, write_batches=[10], execute_batch_rows=10,
                              read_batches=[20], repeats=1, runs=1, min_sample_seconds=0.001, frame_transactions=1,
                              directory=tmp_path, keep_databases=True)
    (database,) = Path(result.settings["database_directory"]).glob("*.sqlite")
    assert header_page_size(database) == page_size
    row = result.databases.iloc[0]
    assert row["page_size_header"] == row["page_size_native"] == row["page_size_pragma"] == page_size
    assert set(result.samples["path"]) == {"native"} and len(result.samples) == 4


@pytest.mark.parametrize("page_sizes, message", [
    ([4096, 6000], "powers of two from 512 to 65536, got 6000"),
    ([256], "powers of two from 512 to 65536, got 256"),
    ([131072], "powers of two from 512 to 65536, got 131072"),
    ([8192, 4095], "got 4095"),
])
def test_bad_page_sizes_are_refused_before_anything_is_created(tmp_path, page_sizes, message):
    with pytest.raises(UsageError, match=message):
        run_sqlite_bench(page_sizes, paths=["native"], rows=300, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_c_module_never_creates_a_database_and_names_sqlites_errors(tmp_path):
    missing = tmp_path / "absent.sqlite"
    with pytest.raises(_sqlitetimer.Error, match="opening the database"):
        _sqlitetimer.Timer(str(missing), {}, [], 10)
    assert not missing.exists()
    sqlite3.connect(tmp_path / "other.sqlite").execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(_sqlitetimer.Error, match="no such table: items"):
        _sqlitetimer.Timer(str(tmp_path / "other.sqlite"), {"select_all": "SELECT * FROM items", "select_first": "",
                                                           "insert": "", "delete_after": ""}, [], 10)


def test_the_c_module_links_the_sqlite_python_uses():
    assert _sqlitetimer.library_version() == sqlite3.sqlite_version
    compiled = {row[0] for row in sqlite3.connect(":memory:").execute("PRAGMA compile_options")}
    assert _sqlitetimer.has_dbstat() == ("ENABLE_DBSTAT_VTAB" in compiled)
