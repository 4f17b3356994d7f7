"""Experiment 053's workload: the `items` table and its row, the SQL texts, the six benchmarks, and the
checks of their sizes and page sizes (see pagelab.workloads.sqlite for why each is what it is)."""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.workloads.random_writes.sqlite import SQLITE_PAGE_SIZES

ROWS = 10_000  # "Select maps 10000 rows"
WRITE_BATCHES = (100, 1000)  # "Batched write tx 100 rows", "... 1000 rows"
EXECUTE_BATCH_ROWS = 100  # "Batched write tx (executeBatch)"
READ_BATCHES = (500, 1000)  # "Transaction read 500 rows", "... 1000 rows"
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
BASELINE_PAGE_SIZE = 4096  # the experiment's baseline, SQLite's default
SEED_TABLE = "sqlite_page_size.csv"
SEED_OTHER_PAGE_SIZE = 8192
MEASURES = ("time_ms", "cpu_ms", "best_ms")
NATIVE, PYTHON = "native", "python"
PATHS = (NATIVE, PYTHON)  # "what SQLite's pages do", "what a Python user sees"
PATH_TITLES = {NATIVE: "what SQLite's pages do (native C)", PYTHON: "what a Python user sees (Python's sqlite3)"}

TABLE = "items"
SCHEMA = (f"CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, "
          "value REAL NOT NULL, category TEXT NOT NULL, created_at TEXT NOT NULL)")
INSERT = f"INSERT INTO {TABLE} (name, description, value, category, created_at) VALUES (?, ?, ?, ?, ?)"
SELECT_ALL = f"SELECT * FROM {TABLE}"
SELECT_FIRST = f"SELECT * FROM {TABLE} ORDER BY id LIMIT ?"
DELETE_AFTER = f"DELETE FROM {TABLE} WHERE id > ?"

# The kinds of benchmark
SELECT_MAPS, WRITE_TX, EXECUTE_BATCH, TX_READ = "select_maps", "write_tx", "execute_batch", "tx_read"
WRITES = (WRITE_TX, EXECUTE_BATCH)
EXECUTE_BATCH_NAME = "Batched write tx (executeBatch)"


def make_row(i: int) -> tuple[str, str, float, str, str]:
    """Row i of `items`, without its id (SQLite gives the next rowid)."""
    return (f"Item {i}",
            f"This is a description for item number {i} with some padding text to simulate real data",
            i * 1.5, f"category_{i % 10}", f"2026-04-0{i % 9 + 1}T12:00:00Z")


@dataclass(frozen=True)
class Benchmark:
    """One of the experiment's benchmarks: its name in the experiment's table, its kind, rows per iteration."""

    name: str
    kind: str
    rows: int


def benchmark_plan(rows: int = ROWS, write_batches: Iterable[int] = WRITE_BATCHES,
                   execute_batch_rows: int = EXECUTE_BATCH_ROWS,
                   read_batches: Iterable[int] = READ_BATCHES) -> list[Benchmark]:
    """The benchmarks in the experiment's order, named as the experiment names them; checks the sizes."""
    rows = positive_int("rows", rows)
    writes = _batches("write_batches", write_batches)
    reads = _batches("read_batches", read_batches)
    execute_batch_rows = positive_int("execute_batch_rows", execute_batch_rows)
    too_many = [n for n in reads if n > rows]
    if too_many:
        raise UsageError(f"read_batches: a transaction read of {too_many[0]:,} rows needs a table of at least that "
                         f"many; rows is {rows:,} (raise rows or lower the batch)")
    plan = [Benchmark(f"Select maps {rows} rows", SELECT_MAPS, rows)]
    plan += [Benchmark(f"Batched write tx {n} rows", WRITE_TX, n) for n in writes]
    plan.append(Benchmark(EXECUTE_BATCH_NAME, EXECUTE_BATCH, execute_batch_rows))
    plan += [Benchmark(f"Transaction read {n} rows", TX_READ, n) for n in reads]
    return plan


def write_batches_of(plan: Sequence[Benchmark], rows: int) -> dict[int, list[tuple]]:
    """The rows each write benchmark inserts (ids rows+1 ...), by batch size: made once, outside
    the timed part, and handed to both paths."""
    return {bench.rows: [make_row(rows + i) for i in range(bench.rows)] for bench in plan if bench.kind in WRITES}


def positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"{name} must be a whole number >= 1, got {value!r}")
    return value


def _batches(name: str, values: Iterable[int]) -> tuple[int, ...]:
    if isinstance(values, (int, str)):
        raise UsageError(f"{name} must be a list of row counts such as [100, 1000], got {values!r}")
    batches = tuple(positive_int(name, value) for value in values)
    if len(set(batches)) != len(batches):
        raise UsageError(f"{name} has a row count twice: {list(batches)}")
    return batches


def check_page_sizes(page_sizes: Iterable[int]) -> tuple[int, ...]:
    """The page sizes as a tuple, each a power of two from 512 to 65536, no repeats."""
    if isinstance(page_sizes, (int, str)):
        raise UsageError(f"page_sizes must be a list such as [4096, 8192], got {page_sizes!r}")
    sizes = tuple(page_sizes)
    if not sizes:
        raise UsageError("page_sizes is empty; give at least one, e.g. [4096, 8192]")
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int) or size not in SQLITE_PAGE_SIZES:
            raise UsageError(f"page_sizes: SQLite page sizes are powers of two from 512 to 65536, got {size!r}")
    if len(set(sizes)) != len(sizes):
        raise UsageError(f"page_sizes has a size twice: {list(sizes)}")
    return sizes


def check_synchronous(synchronous: str) -> str:
    if not isinstance(synchronous, str) or synchronous.upper() not in SYNCHRONOUS_MODES:
        raise UsageError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}")
    return synchronous.upper()
