"""Seed 001, SQLite's `page_size` 4096 against 8192: the seed's benchmarks, timed per page size.

The seed (experiment 053 of the resqlite library) set `PRAGMA page_size = 8192` before
`PRAGMA journal_mode = WAL` on new databases, with `mmap_size` = 256 MB, and timed six benchmarks
against the 4096 baseline, "3 repeats x 2 runs": 14 wins, 0 regressions, -16 to -26%
(`seed_table()`, data/reference/seed001_sqlite.csv). `run_sqlite_bench` repeats the benchmarks
with Python's `sqlite3`, a new database per page size, and returns tidy tables; `delta_table`
and `summary_line` put them in the seed's form, and `seed_comparison` sets the seed's numbers
beside ours.

The row. Every benchmark reads or writes rows of one table,

    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL,
                        value REAL NOT NULL, category TEXT NOT NULL, created_at TEXT NOT NULL)

with row i = ("Item i", "This is a description for item number i with some padding text to
simulate real data", i * 1.5, "category_<i % 10>", "2026-04-0<i % 9 + 1>T12:00:00Z"): the mixed
six-column row of the benchmark suite of the library the seed measured, about 145 bytes on disk
(27 rows per 4 KiB leaf, 55 per 8 KiB leaf). Why this one: the seed's effect is about how many
pages a given number of rows occupies, so the row has to be a realistic size, not a bare integer;
and a rowid table is what an application's table is (its interior pages hold only rowids, so the
tree is shallow and most of the pages are leaves). The database holds `rows` (10,000) of them.

The benchmarks (their names are the seed's, so our rows line up with its table):

    Select maps 10000 rows           SELECT * FROM items, every row turned into a dict
                                     (column name -> value), as the library returns maps
    Batched write tx 100 rows        BEGIN; 100 INSERTs, one execute() each; COMMIT
    Batched write tx 1000 rows       the same with 1,000 rows
    Batched write tx (executeBatch)  BEGIN; one executemany() of 100 rows; COMMIT (the seed does
                                     not print its size; 100 fits its 0.54 ms beside 0.82 ms for
                                     100 single executes, an inference)
    Transaction read 500 rows        BEGIN; the first 500 rows by id, as dicts; COMMIT
    Transaction read 1000 rows       the same with 1,000 rows

Writes append to `items` (rowids rows+1, rows+2, ...) and are deleted again after each
iteration, outside the timed part, so every iteration starts from the same table. The seed's
"selectBytes" (rows serialised to JSON by the library's C code) has no counterpart here; its row
in the seed's table stays without our numbers.

Settings of each database, in this order (`create_database`):

    PRAGMA page_size = N          first, before anything is written: it only takes effect on a
                                  new database. Checked afterwards with PRAGMA page_size *and*
                                  the file header's own field (bytes 16-17); UsageError if SQLite
                                  did not take it
    PRAGMA journal_mode = WAL
    PRAGMA synchronous = NORMAL   WAL's usual partner: no fsync per commit (the WAL is synced at
                                  checkpoints), so a commit's time is SQLite's, not the disk
                                  cache's. "FULL" is Python's default and adds an fsync per commit
    PRAGMA mmap_size = 268435456  256 MB, as the seed: reads of the database file go through the
                                  memory map (pages still in the WAL are read from the WAL)
    wal_autocheckpoint, cache_size  SQLite's defaults (1000 frames, 2000 KiB)

Timing. `repeats` x `runs` samples per benchmark and page size (the seed's 3 x 2): each repeat
builds new databases (one per page size), loads the rows and checkpoints them into the file;
each run times every benchmark once per page size. The page sizes take turns benchmark by
benchmark (in alternating order), so a slow spell on a shared machine falls on both. A sample is
one untimed warm-up iteration, then as many iterations as make at least `min_sample_seconds` of
work (counted once per benchmark, on the first page size, and used for all), each timed alone
with `time.perf_counter_ns` (wall) and `time.process_time_ns` (this process's CPU); the sample's
figures are the mean per iteration (`time_ms`, `cpu_ms`: what a loop timing gives, the seed's
kind) and the fastest iteration (`best_ms`: on a shared machine other processes' time slices
land inside some iterations, and the fastest is the least disturbed). The garbage collector is
off while timing, as in `timeit`.

Statistics and verdicts. Per benchmark and page size: the median of the samples and their spread
(min-max). Against the baseline (4096): the other page size's min-max as a range of ms and of
delta % relative to the baseline's median (the seed's "4.58-4.67ms", "-16 to -18%"), and a
verdict: "win" only if every sample of the other page size is faster than every sample of the
baseline (the two min-max ranges do not overlap), "regression" if every one is slower, else
"unchanged". So a difference smaller than the noise is never called; nor is any difference
with a single sample per page size (repeats = runs = 1), which has no spread.

WAL frames per write transaction (`wal_frames`). After the timings, on the last repeat's
databases, with `PRAGMA wal_autocheckpoint = 0`: before each of `frame_transactions`
transactions the WAL is checkpointed and truncated, so the transaction's frames are the WAL's
size after it, less the 32-byte header, over page_size + 24 (`sqlite_writes.frames_appended`),
and `PRAGMA wal_checkpoint(PASSIVE)` reports the same count as its "log" figure
(`wal_frames_checkpoint`, a cross-check). A commit writes one frame per page it changed, so the
larger batch writes more frames, and larger pages write fewer but bigger ones.

B-tree shape (`btree`). For every table and index B-tree, right after the load: pages, cells and
bytes used per level (root = level 0) from the `dbstat` virtual table
(`sqlite_writes.tree_levels_dbstat`), or from walking the file where SQLite lacks dbstat
(`sqlite_writes.walk_btree`).
"""

from __future__ import annotations

import gc
import math
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from pagelab.errors import UsageError
from pagelab.paths import REFERENCE_DIR
from pagelab.units import page_size_label
from pagelab.workloads.sqlite_writes import (
    SQLITE_PAGE_SIZES,
    WAL_FRAME_HEADER_BYTES,
    dbstat_available,
    file_page_size,
    frames_appended,
    tree_levels_dbstat,
    walk_btree,
    wal_size,
)

PAGE_SIZES = (4096, 8192)
BASELINE_PAGE_SIZE = 4096  # the seed's baseline, SQLite's default
ROWS = 10_000  # "Select maps 10000 rows"
WRITE_BATCHES = (100, 1000)  # "Batched write tx 100 rows", "... 1000 rows"
EXECUTE_BATCH_ROWS = 100  # "Batched write tx (executeBatch)"
READ_BATCHES = (500, 1000)  # "Transaction read 500 rows", "... 1000 rows"
REPEATS = 3  # the seed's "3 repeats x 2 runs"
RUNS = 2
MIN_SAMPLE_SECONDS = 0.25
MAX_ITERATIONS = 100_000
FRAME_TRANSACTIONS = 3
MMAP_BYTES = 256 * 1024 * 1024  # the seed's mmap_size = 256MB
SYNCHRONOUS = "NORMAL"
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
SEED_TABLE = "seed001_sqlite.csv"
SEED_OTHER_PAGE_SIZE = 8192
MEASURES = ("time_ms", "cpu_ms", "best_ms")
MIN_SAMPLES_FOR_VERDICT = 2  # one sample has no spread: nothing can be shown to exceed it
WIN, REGRESSION, UNCHANGED = "win", "regression", "unchanged"

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


# -- the benchmarks -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Benchmark:
    """One of the seed's benchmarks: its name in the seed's table, its kind, rows per iteration."""

    name: str
    kind: str
    rows: int


def benchmark_plan(rows: int = ROWS, write_batches: Iterable[int] = WRITE_BATCHES,
                   execute_batch_rows: int = EXECUTE_BATCH_ROWS,
                   read_batches: Iterable[int] = READ_BATCHES) -> list[Benchmark]:
    """The benchmarks in the seed's order, named as the seed names them; checks the sizes."""
    rows = _positive_int("rows", rows)
    writes = _batches("write_batches", write_batches)
    reads = _batches("read_batches", read_batches)
    execute_batch_rows = _positive_int("execute_batch_rows", execute_batch_rows)
    too_many = [n for n in reads if n > rows]
    if too_many:
        raise UsageError(f"read_batches: a transaction read of {too_many[0]:,} rows needs a table of at least that "
                         f"many; rows is {rows:,} (raise rows or lower the batch)")
    plan = [Benchmark(f"Select maps {rows} rows", SELECT_MAPS, rows)]
    plan += [Benchmark(f"Batched write tx {n} rows", WRITE_TX, n) for n in writes]
    plan.append(Benchmark(EXECUTE_BATCH_NAME, EXECUTE_BATCH, execute_batch_rows))
    plan += [Benchmark(f"Transaction read {n} rows", TX_READ, n) for n in reads]
    return plan


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"{name} must be a whole number >= 1, got {value!r}")
    return value


def _batches(name: str, values: Iterable[int]) -> tuple[int, ...]:
    if isinstance(values, (int, str)):
        raise UsageError(f"{name} must be a list of row counts such as [100, 1000], got {values!r}")
    batches = tuple(_positive_int(name, value) for value in values)
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


def _check_synchronous(synchronous: str) -> str:
    if not isinstance(synchronous, str) or synchronous.upper() not in SYNCHRONOUS_MODES:
        raise UsageError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}")
    return synchronous.upper()


# -- one database ---------------------------------------------------------------------------------

def verify_page_size(connection: sqlite3.Connection, path: str | os.PathLike, page_size: int) -> int:
    """UsageError unless both PRAGMA page_size and the file header say `page_size` (checkpoint
    first: in WAL mode the header reaches the file at a checkpoint)."""
    pragma = connection.execute("PRAGMA page_size").fetchone()[0]
    header = file_page_size(path)
    if pragma != page_size or header != page_size:
        raise UsageError(
            f"asked SQLite for {page_size}-byte pages in {path}, got {pragma} (PRAGMA page_size) and {header} "
            f"(file header): page_size only takes effect on a new, empty database, before its first write "
            f"(an existing database keeps its size until VACUUM)")
    return pragma


def create_database(path: str | os.PathLike, page_size: int, *, synchronous: str = SYNCHRONOUS,
                    mmap_bytes: int = MMAP_BYTES) -> sqlite3.Connection:
    """A new database at `path`: page_size, then WAL, synchronous, mmap_size, the `items` table;
    the page size checked (UsageError if SQLite did not take it). The connection is in
    autocommit mode (isolation_level=None): the benchmarks issue BEGIN and COMMIT themselves."""
    check_page_sizes([page_size])
    synchronous = _check_synchronous(synchronous)
    if Path(path).exists():
        raise UsageError(f"{path} exists; the benchmark needs a new database (its page size is fixed at creation)")
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(f"PRAGMA page_size = {int(page_size)}")  # before anything is written
        mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise UsageError(f"SQLite refused WAL mode for {path} (journal_mode is {mode})")
        connection.execute(f"PRAGMA synchronous = {synchronous}")
        connection.execute(f"PRAGMA mmap_size = {int(mmap_bytes)}")
        connection.execute(SCHEMA)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        verify_page_size(connection, path, page_size)
    except BaseException:
        connection.close()
        raise
    return connection


def load_rows(connection: sqlite3.Connection, rows: int) -> None:
    """Rows 0..rows-1 in one transaction, then checkpointed into the database file."""
    connection.execute("BEGIN")
    connection.executemany(INSERT, (make_row(i) for i in range(rows)))
    connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def btree_levels(connection: sqlite3.Connection, path: str | os.PathLike, page_size: int) -> list[dict[str, Any]]:
    """Per level of every table and index B-tree: pages, cells, bytes used (dbstat, or a walk of
    the file without it; checkpoint first for the walk)."""
    trees = connection.execute("SELECT name, type, rootpage FROM sqlite_master WHERE type IN ('table', 'index') "
                               "AND rootpage > 0 ORDER BY rootpage").fetchall()
    use_dbstat = dbstat_available(connection)
    found = []
    for name, kind, root in trees:
        if use_dbstat:
            levels, source = tree_levels_dbstat(connection, name), "dbstat"
        else:
            levels, source = walk_btree(path, root, page_size), "file walk (no dbstat in this SQLite)"
        for level in levels:
            found.append({"btree": name, "btree_type": kind, "level": level["level"], "page_type": level["kind"],
                          "pages": level["pages"], "cells": level["cells"], "used_bytes": level["used_bytes"],
                          "bytes": level["bytes"], "tree_source": source})
    return found


class _Database:
    """One benchmark database: its connection, path, page size and prepared write batches."""

    def __init__(self, path: Path, page_size: int, rows: int, plan: Sequence[Benchmark], synchronous: str,
                 mmap_bytes: int):
        self.path, self.page_size, self.rows = path, page_size, rows
        self.connection = create_database(path, page_size, synchronous=synchronous, mmap_bytes=mmap_bytes)
        try:
            self.mmap_bytes = self.connection.execute("PRAGMA mmap_size").fetchone()[0]
            load_rows(self.connection, rows)
            self.page_size_pragma = verify_page_size(self.connection, path, page_size)
            self.page_size_header = file_page_size(path)
        except BaseException:
            self.connection.close()
            raise
        self.batches = {bench.rows: [make_row(rows + i) for i in range(bench.rows)]
                        for bench in plan if bench.kind in WRITES}

    def iteration(self, bench: Benchmark) -> int:
        """One iteration of a benchmark; returns the rows it read or wrote."""
        connection = self.connection
        if bench.kind == SELECT_MAPS:
            cursor = connection.execute(SELECT_ALL)
            names = [column[0] for column in cursor.description]
            return len([dict(zip(names, row)) for row in cursor])
        if bench.kind == TX_READ:
            connection.execute("BEGIN")
            cursor = connection.execute(SELECT_FIRST, (bench.rows,))
            names = [column[0] for column in cursor.description]
            maps = [dict(zip(names, row)) for row in cursor]
            connection.execute("COMMIT")
            return len(maps)
        batch = self.batches[bench.rows]
        connection.execute("BEGIN")
        if bench.kind == WRITE_TX:
            for row in batch:
                connection.execute(INSERT, row)
        else:
            connection.executemany(INSERT, batch)
        connection.execute("COMMIT")
        return len(batch)

    def reset(self, bench: Benchmark) -> None:
        """Untimed, after a write: the table back to its `rows` rows."""
        if bench.kind in WRITES:
            self.connection.execute(DELETE_AFTER, (self.rows,))

    def run(self, bench: Benchmark) -> int:
        done = self.iteration(bench)
        self.reset(bench)
        if done != bench.rows:
            raise RuntimeError(f"{bench.name} handled {done} rows at {self.page_size}-byte pages, "
                               f"expected {bench.rows}")
        return done

    def sample(self, bench: Benchmark, iterations: int) -> tuple[float, float, float]:
        """Over `iterations`, each timed alone: mean wall and CPU milliseconds per iteration, and
        the fastest iteration's wall milliseconds."""
        wall = cpu = 0
        best = None
        for _ in range(iterations):
            cpu_started, started = time.process_time_ns(), time.perf_counter_ns()
            done = self.iteration(bench)
            ended, cpu_ended = time.perf_counter_ns(), time.process_time_ns()
            self.reset(bench)
            if done != bench.rows:
                raise RuntimeError(f"{bench.name} handled {done} rows, expected {bench.rows}")
            wall += ended - started
            cpu += cpu_ended - cpu_started
            best = ended - started if best is None else min(best, ended - started)
        return wall / iterations / 1e6, cpu / iterations / 1e6, best / 1e6

    def wal_frames(self, bench: Benchmark, transactions: int) -> list[dict[str, Any]]:
        """Frames each of `transactions` write transactions appends to an emptied WAL, with
        autocheckpoints off; and the same count as PRAGMA wal_checkpoint reports it."""
        connection = self.connection
        previous = connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        found = []
        try:
            for number in range(transactions):
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                before = wal_size(self.path)
                done = self.iteration(bench)
                after = wal_size(self.path)
                frames = frames_appended(before, after, self.page_size)
                busy, log_frames, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.reset(bench)
                found.append({"tx": number, "rows_per_tx": done, "wal_frames": frames,
                              "wal_frames_checkpoint": log_frames if before == 0 and not busy else None,
                              "wal_bytes": frames * (self.page_size + WAL_FRAME_HEADER_BYTES)})
        finally:
            connection.execute(f"PRAGMA wal_autocheckpoint = {int(previous)}")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return found

    def close(self) -> None:
        self.connection.close()


# -- the run --------------------------------------------------------------------------------------

@dataclass
class SqliteBenchResult:
    """What `run_sqlite_bench` measured: tidy tables (snake_case, units in the names).

    samples     one row per timed sample: page_size, page_size_bytes, repeat, run, benchmark,
                kind, rows_per_iteration, iterations, time_ms and cpu_ms (mean per
                iteration), best_ms (the fastest iteration)
    timings     per benchmark and page size: median and min-max of the samples (`timing_summary`)
    btree       per page size, B-tree and level: pages, cells, used_bytes, bytes (after the load)
    wal_frames  per page size, write benchmark and measured transaction: wal_frames,
                wal_frames_checkpoint, wal_bytes, rows_per_tx
    databases   per page size and repeat: the page size asked, PRAGMA page_size, the file
                header's, mmap_size as SQLite took it, the file's size after the load
    settings    the run's parameters, SQLite's version, dbstat or not
    """

    samples: pd.DataFrame
    btree: pd.DataFrame
    wal_frames: pd.DataFrame
    databases: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def timings(self) -> pd.DataFrame:
        return timing_summary(self.samples)

    def delta(self, baseline: int | None = None, measure: str = "time_ms") -> pd.DataFrame:
        return delta_table(timing_summary(self.samples, measure), baseline)

    def summary_line(self, baseline: int | None = None, measure: str = "time_ms") -> str:
        return summary_line(self.delta(baseline, measure))


def run_sqlite_bench(
    page_sizes: Iterable[int] = PAGE_SIZES,
    *,
    rows: int = ROWS,
    write_batches: Iterable[int] = WRITE_BATCHES,
    execute_batch_rows: int = EXECUTE_BATCH_ROWS,
    read_batches: Iterable[int] = READ_BATCHES,
    repeats: int = REPEATS,
    runs: int = RUNS,
    min_sample_seconds: float = MIN_SAMPLE_SECONDS,
    frame_transactions: int = FRAME_TRANSACTIONS,
    synchronous: str = SYNCHRONOUS,
    mmap_bytes: int = MMAP_BYTES,
    directory: str | os.PathLike | None = None,
    keep_databases: bool = False,
    progress: bool = False,
) -> SqliteBenchResult:
    """Seed 001's benchmarks at each page size, `repeats` x `runs` samples each.

    page_sizes          bytes per page: powers of two from 512 to 65536 (default 4096, 8192)
    rows                rows in the table: "Select maps <rows> rows" reads them all
    write_batches       rows per "Batched write tx N rows" (one execute() per row)
    execute_batch_rows  rows of the "Batched write tx (executeBatch)" executemany()
    read_batches        rows per "Transaction read N rows" (at most `rows`)
    repeats, runs       the seed's 3 x 2: new databases per repeat, one sample per run
    min_sample_seconds  a sample runs enough iterations for at least this much work
    frame_transactions  write transactions whose WAL frames are counted, per benchmark and size
    synchronous         PRAGMA synchronous (NORMAL: no fsync per commit in WAL mode)
    mmap_bytes          PRAGMA mmap_size (the seed's 256 MB)
    directory           where the databases go (a new temporary directory inside it, removed at
                        the end; None: the system's temporary directory)
    keep_databases      leave the databases (r<repeat>-<page size>.sqlite) in that temporary
                        directory, named in settings["database_directory"], to inspect them
    progress            a tqdm bar over the samples
    """
    sizes = check_page_sizes(page_sizes)
    plan = benchmark_plan(rows, write_batches, execute_batch_rows, read_batches)
    repeats = _positive_int("repeats", repeats)
    runs = _positive_int("runs", runs)
    frame_transactions = _positive_int("frame_transactions", frame_transactions)
    if isinstance(min_sample_seconds, bool) or not isinstance(min_sample_seconds, (int, float)) or not (
            0 < min_sample_seconds <= 60):
        raise UsageError(f"min_sample_seconds must be > 0 and <= 60, got {min_sample_seconds!r}")
    synchronous = _check_synchronous(synchronous)
    if isinstance(mmap_bytes, bool) or not isinstance(mmap_bytes, int) or mmap_bytes < 0:
        raise UsageError(f"mmap_bytes must be a whole number >= 0 (0 turns memory mapping off), got {mmap_bytes!r}")
    if directory is not None and not Path(directory).is_dir():
        raise UsageError(f"directory {directory} does not exist")

    samples: list[dict[str, Any]] = []
    tree_rows: list[dict[str, Any]] = []
    frame_rows: list[dict[str, Any]] = []
    database_rows: list[dict[str, Any]] = []
    iterations: dict[str, int] = {}
    bar = None
    if progress:
        from pagelab.progress import progress_bar

        bar = progress_bar(repeats * runs * len(plan) * len(sizes), "sqlite samples", "sample")
    gc_was_enabled = gc.isenabled()
    scratch = Path(tempfile.mkdtemp(prefix="sqlite-bench-", dir=directory))
    try:
        for repeat in range(repeats):
            databases: dict[int, _Database] = {}
            try:
                for size in sizes:
                    path = scratch / f"r{repeat}-{size}.sqlite"
                    databases[size] = db = _Database(path, size, rows, plan, synchronous, mmap_bytes)
                    database_rows.append({
                        "page_size": page_size_label(size), "page_size_bytes": size, "repeat": repeat,
                        "page_size_pragma": db.page_size_pragma, "page_size_header": db.page_size_header,
                        "mmap_bytes": db.mmap_bytes, "rows": rows, "file_bytes": path.stat().st_size,
                    })
                    if repeat == 0:
                        for level in btree_levels(db.connection, path, size):
                            tree_rows.append({"page_size": page_size_label(size), "page_size_bytes": size, **level})
                gc.disable()
                if repeat == 0:
                    for bench in plan:
                        iterations[bench.name] = _calibrate(databases[sizes[0]], bench, min_sample_seconds)
                for run in range(runs):
                    for bench in plan:
                        turn = sizes if (repeat * runs + run) % 2 == 0 else tuple(reversed(sizes))
                        for size in turn:
                            db = databases[size]
                            db.run(bench)  # warm-up, untimed
                            wall, cpu, best = db.sample(bench, iterations[bench.name])
                            samples.append({
                                "page_size": page_size_label(size), "page_size_bytes": size, "repeat": repeat,
                                "run": run, "benchmark": bench.name, "kind": bench.kind,
                                "rows_per_iteration": bench.rows, "iterations": iterations[bench.name],
                                "time_ms": wall, "cpu_ms": cpu, "best_ms": best,
                            })
                            if bar is not None:
                                bar.update()
                if gc_was_enabled:
                    gc.enable()
                if repeat == repeats - 1:
                    for size in sizes:
                        for bench in plan:
                            if bench.kind in WRITES:
                                for found in databases[size].wal_frames(bench, frame_transactions):
                                    frame_rows.append({"page_size": page_size_label(size), "page_size_bytes": size,
                                                       "benchmark": bench.name, **found})
            finally:
                for db in databases.values():
                    db.close()
                if not keep_databases:
                    for path in scratch.iterdir():
                        path.unlink()
    finally:
        if gc_was_enabled:
            gc.enable()
        if bar is not None:
            bar.close()
        if not keep_databases:
            shutil.rmtree(scratch, ignore_errors=True)
    probe = sqlite3.connect(":memory:")
    try:
        has_dbstat = dbstat_available(probe)
    finally:
        probe.close()
    settings = {
        "page_sizes": list(sizes), "rows": rows, "benchmarks": [bench.name for bench in plan],
        "iterations": iterations, "repeats": repeats, "runs": runs, "min_sample_seconds": min_sample_seconds,
        "frame_transactions": frame_transactions, "synchronous": synchronous, "mmap_bytes": mmap_bytes,
        "journal_mode": "wal", "sqlite_version": sqlite3.sqlite_version, "dbstat": has_dbstat,
        "database_directory": str(scratch) if keep_databases else None,
    }
    return SqliteBenchResult(samples=pd.DataFrame(samples), btree=pd.DataFrame(tree_rows),
                             wal_frames=pd.DataFrame(frame_rows), databases=pd.DataFrame(database_rows),
                             settings=settings)


def _calibrate(db: _Database, bench: Benchmark, min_sample_seconds: float) -> int:
    """Iterations per sample: enough for `min_sample_seconds` at the median of 3 timed ones."""
    db.run(bench)
    times = []
    for _ in range(3):
        started = time.perf_counter_ns()
        db.iteration(bench)
        times.append(time.perf_counter_ns() - started)
        db.reset(bench)
    per_iteration = sorted(times)[1] / 1e9
    return int(min(MAX_ITERATIONS, max(1, math.ceil(min_sample_seconds / max(per_iteration, 1e-9)))))


# -- statistics, verdicts, the seed's table ---------------------------------------------------------

def timing_summary(samples: pd.DataFrame, measure: str = "time_ms") -> pd.DataFrame:
    """Per benchmark (in the run's order) and page size: samples, median_ms, min_ms, max_ms,
    spread_pct ((max - min) / median), us_per_row, from `measure`:

        time_ms  wall clock, mean per iteration (a loop's time over its iterations, the seed's)
        cpu_ms   this process's CPU time, mean per iteration
        best_ms  the sample's fastest iteration: the figure other load on a shared machine
                 disturbs least (timeit's advice), so the most repeatable one there
    """
    if measure not in MEASURES:
        raise UsageError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    if samples.empty:
        raise UsageError("no samples to summarise")
    order = list(dict.fromkeys(samples["benchmark"]))
    grouped = samples.groupby(["benchmark", "page_size_bytes"], sort=False)
    table = grouped.agg(page_size=("page_size", "first"), kind=("kind", "first"),
                        rows_per_iteration=("rows_per_iteration", "first"), iterations=("iterations", "first"),
                        repeats=("repeat", "nunique"), runs=("run", "nunique"), samples=(measure, "size"),
                        median_ms=(measure, "median"), min_ms=(measure, "min"), max_ms=(measure, "max")).reset_index()
    table["spread_pct"] = (table["max_ms"] - table["min_ms"]) / table["median_ms"] * 100
    table["us_per_row"] = table["median_ms"] * 1000 / table["rows_per_iteration"]
    table["measure"] = measure
    table["order"] = table["benchmark"].map(order.index)
    table = table.sort_values(["order", "page_size_bytes"], kind="stable").drop(columns="order")
    columns = ["benchmark", "page_size", "page_size_bytes", "kind", "rows_per_iteration", "iterations", "repeats",
               "runs", "samples", "median_ms", "min_ms", "max_ms", "spread_pct", "us_per_row", "measure"]
    return table[columns].reset_index(drop=True)


def classify(baseline_min: float, baseline_max: float, other_min: float, other_max: float) -> str:
    """"win" if the other page size's whole range is below the baseline's (faster beyond the
    spread), "regression" if wholly above, "unchanged" if the ranges overlap (or touch)."""
    values = (baseline_min, baseline_max, other_min, other_max)
    if any(value is None or math.isnan(value) for value in values):
        raise UsageError(f"classify needs four numbers, got {values}")
    if baseline_min > baseline_max or other_min > other_max:
        raise UsageError(f"a range's min is above its max: baseline {baseline_min}-{baseline_max}, "
                         f"other {other_min}-{other_max}")
    if other_max < baseline_min:
        return WIN
    if other_min > baseline_max:
        return REGRESSION
    return UNCHANGED


def delta_table(timings: pd.DataFrame, baseline: int | None = None) -> pd.DataFrame:
    """The seed's delta table: per benchmark and page size other than the baseline, the
    baseline's median (and its min-max), the other's median and min-max, the delta % of each
    against the baseline's median, and the verdict (`classify`; "unchanged" when either side has
    a single sample, which has no spread to exceed)."""
    sizes = sorted(timings["page_size_bytes"].unique())
    if baseline is None:
        baseline = BASELINE_PAGE_SIZE if BASELINE_PAGE_SIZE in sizes else sizes[0]
    if baseline not in sizes:
        raise UsageError(f"baseline {baseline} was not measured; the page sizes are {', '.join(map(str, sizes))}")
    if len(sizes) < 2:
        raise UsageError("a delta table needs at least two page sizes")
    base = timings[timings["page_size_bytes"] == baseline].set_index("benchmark")
    rows = []
    for _, other in timings[timings["page_size_bytes"] != baseline].iterrows():
        ref = base.loc[other["benchmark"]]
        median = ref["median_ms"]
        rows.append({
            "benchmark": other["benchmark"],
            "baseline_page_size_bytes": baseline,
            "page_size": other["page_size"],
            "page_size_bytes": other["page_size_bytes"],
            "baseline_ms": median,
            "baseline_min_ms": ref["min_ms"],
            "baseline_max_ms": ref["max_ms"],
            "median_ms": other["median_ms"],
            "min_ms": other["min_ms"],
            "max_ms": other["max_ms"],
            "delta_median_pct": (other["median_ms"] / median - 1) * 100,
            "delta_min_pct": (other["min_ms"] / median - 1) * 100,
            "delta_max_pct": (other["max_ms"] / median - 1) * 100,
            "verdict": classify(ref["min_ms"], ref["max_ms"], other["min_ms"], other["max_ms"])
            if min(ref["samples"], other["samples"]) >= MIN_SAMPLES_FOR_VERDICT else UNCHANGED,
            "repeats": other["repeats"],
            "runs": other["runs"],
            "measure": other["measure"],
        })
    return pd.DataFrame(rows)


def summary_line(delta: pd.DataFrame) -> str:
    """"N wins, M regressions (K unchanged; 3 repeats × 2 runs vs baseline 4096)", one line per
    page size compared (the seed's "14 wins, 0 regressions (3 repeats × 2 runs vs baseline)")."""
    if delta.empty:
        raise UsageError("the delta table is empty")
    lines = []
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        counts = rows["verdict"].value_counts()
        wins, regressions, unchanged = (int(counts.get(v, 0)) for v in (WIN, REGRESSION, UNCHANGED))
        baseline = int(rows["baseline_page_size_bytes"].iloc[0])
        repeats, runs = int(rows["repeats"].max()), int(rows["runs"].max())
        lines.append(f"{size}: {wins} win{'s' * (wins != 1)}, {regressions} regression{'s' * (regressions != 1)} "
                     f"({unchanged} unchanged; {repeats} repeat{'s' * (repeats != 1)} × {runs} run{'s' * (runs != 1)} "
                     f"vs baseline {baseline})")
    return "\n".join(lines)


def _ms_range(low: float, high: float) -> str:
    a, b = f"{low:.2f}", f"{high:.2f}"
    return f"{a}ms" if a == b else f"{a}-{b}ms"


def _pct_range(low: float, high: float) -> str:
    near, far = sorted((low, high), key=abs)
    a, b = f"{near:+.0f}", f"{far:+.0f}"
    return f"{a}%" if a == b else f"{a} to {b}%"


def seed_style_table(delta: pd.DataFrame) -> pd.DataFrame:
    """The delta table printed as the seed prints its own: Benchmark, Baseline ("5.57ms"), then
    per page size "<size> pages" ("4.58-4.67ms", its min-max), "<size> delta" ("-16 to -18%")
    and "<size> verdict"."""
    table = pd.DataFrame({"Benchmark": list(dict.fromkeys(delta["benchmark"]))}).set_index("Benchmark")
    baseline = int(delta["baseline_page_size_bytes"].iloc[0])
    first = delta.drop_duplicates("benchmark").set_index("benchmark")
    table[f"Baseline ({baseline})"] = [f"{first.loc[name, 'baseline_ms']:.2f}ms" for name in table.index]
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        rows = rows.set_index("benchmark")
        table[f"{size} pages"] = [_ms_range(rows.loc[n, "min_ms"], rows.loc[n, "max_ms"]) for n in table.index]
        table[f"{size} delta"] = [_pct_range(rows.loc[n, "delta_min_pct"], rows.loc[n, "delta_max_pct"])
                                  for n in table.index]
        table[f"{size} verdict"] = [rows.loc[n, "verdict"] for n in table.index]
    return table


def seed_table() -> pd.DataFrame:
    """Seed 001's Results table (data/reference/seed001_sqlite.csv): benchmark,
    baseline_4096_ms, page_8192_ms_from/_to, delta_pct_from/_to, note."""
    path = REFERENCE_DIR / SEED_TABLE
    if not path.exists():
        raise UsageError(f"the seed's table is missing: expected {path}")
    return pd.read_csv(path)


def seed_comparison(delta: pd.DataFrame) -> pd.DataFrame:
    """The seed's 4096 -> 8192 numbers beside ours, one row per benchmark (the seed's first, in
    its order; ours that the seed lacks after them, and the seed's without ours keep empty cells).

    seed_*  the seed's baseline ms, 8192 ms from/to and delta % from/to as printed, its verdict
            ("win" where it printed a negative delta, else its note)
    our_*   our baseline median, 8192 min/max ms, delta % at the min and max, and our verdict
    """
    seed = seed_table()
    seed_verdict = [WIN if pd.notna(high) and high < 0 and low < 0 else (note if isinstance(note, str) else None)
                    for low, high, note in zip(seed["delta_pct_from"], seed["delta_pct_to"], seed["note"])]
    seed = pd.DataFrame({
        "benchmark": seed["benchmark"],
        "seed_baseline_ms": seed["baseline_4096_ms"],
        "seed_8192_ms_from": seed["page_8192_ms_from"],
        "seed_8192_ms_to": seed["page_8192_ms_to"],
        "seed_delta_pct_from": seed["delta_pct_from"],
        "seed_delta_pct_to": seed["delta_pct_to"],
        "seed_verdict": seed_verdict,
    })
    ours = delta[(delta["baseline_page_size_bytes"] == BASELINE_PAGE_SIZE)
                 & (delta["page_size_bytes"] == SEED_OTHER_PAGE_SIZE)]
    ours = pd.DataFrame({
        "benchmark": ours["benchmark"],
        "our_baseline_ms": ours["baseline_ms"],
        "our_8192_ms_min": ours["min_ms"],
        "our_8192_ms_max": ours["max_ms"],
        "our_delta_pct_min": ours["delta_min_pct"],
        "our_delta_pct_max": ours["delta_max_pct"],
        "our_verdict": ours["verdict"],
    })
    order = list(seed["benchmark"]) + [name for name in ours["benchmark"] if name not in set(seed["benchmark"])]
    table = seed.merge(ours, on="benchmark", how="outer").set_index("benchmark")
    return table.reindex(order)


# -- the B-tree and the WAL, summarised ----------------------------------------------------------

def btree_summary(btree: pd.DataFrame) -> pd.DataFrame:
    """Per page size and B-tree: height (levels), pages per level (root first), pages, leaf
    pages, rows (cells) per leaf and leaf fill."""
    rows = []
    for (size, name), levels in btree.groupby(["page_size_bytes", "btree"], sort=True):
        levels = levels.sort_values("level")
        leaf = levels.iloc[-1]
        rows.append({
            "page_size": page_size_label(size), "page_size_bytes": size, "btree": name,
            "btree_type": leaf["btree_type"], "height": len(levels),
            "pages_per_level": " / ".join(f"{n:,}" for n in levels["pages"]),
            "pages": int(levels["pages"].sum()), "leaf_pages": int(leaf["pages"]),
            "cells_per_leaf": leaf["cells"] / leaf["pages"], "leaf_fill": leaf["used_bytes"] / leaf["bytes"],
            "tree_source": leaf["tree_source"],
        })
    return pd.DataFrame(rows)


def wal_frames_summary(wal_frames: pd.DataFrame, btree: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per page size and write benchmark: WAL frames per transaction (mean, min, max), KiB of WAL
    per transaction and bytes per row written; with `btree`, the leaves the rows fill
    (rows_per_tx / cells per leaf of `items`) for comparison with the frames."""
    grouped = wal_frames.groupby(["benchmark", "page_size_bytes"], sort=False)
    table = grouped.agg(page_size=("page_size", "first"), rows_per_tx=("rows_per_tx", "first"),
                        transactions=("tx", "size"), wal_frames_avg=("wal_frames", "mean"),
                        wal_frames_min=("wal_frames", "min"), wal_frames_max=("wal_frames", "max"),
                        wal_bytes_avg=("wal_bytes", "mean")).reset_index()
    table["wal_kib_per_tx"] = table["wal_bytes_avg"] / 1024
    table["wal_bytes_per_row"] = table["wal_bytes_avg"] / table["rows_per_tx"]
    if btree is not None and not btree.empty:
        leaves = btree_summary(btree)
        per_leaf = leaves[leaves["btree"] == TABLE].set_index("page_size_bytes")["cells_per_leaf"]
        table["leaves_filled"] = table["rows_per_tx"] / table["page_size_bytes"].map(per_leaf)
    return table.drop(columns="wal_bytes_avg")


# -- plots ----------------------------------------------------------------------------------------

def plot_timings(timings: pd.DataFrame, baseline: int | None = None):
    """Each benchmark's time relative to the baseline's median (100%), one bar per page size,
    the whisker its min-max over the samples; the seed's 8192 delta as a star."""
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    sizes = sorted(timings["page_size_bytes"].unique())
    if baseline is None:
        baseline = BASELINE_PAGE_SIZE if BASELINE_PAGE_SIZE in sizes else sizes[0]
    base = timings[timings["page_size_bytes"] == baseline].set_index("benchmark")["median_ms"]
    names = list(dict.fromkeys(timings["benchmark"]))
    width = 0.8 / len(sizes)
    figure, axis = plt.subplots(figsize=(12, 4.5))
    colors = sns.color_palette(n_colors=len(sizes))
    for index, (size, color) in enumerate(zip(sizes, colors)):
        rows = timings[timings["page_size_bytes"] == size].set_index("benchmark").reindex(names)
        relative = rows["median_ms"] / base.reindex(names) * 100
        low = relative - rows["min_ms"] / base.reindex(names) * 100
        high = rows["max_ms"] / base.reindex(names) * 100 - relative
        x = np.arange(len(names)) + (index - (len(sizes) - 1) / 2) * width
        axis.bar(x, relative, width, yerr=[low, high], capsize=3, color=color, label=f"{size} (median, min-max)")
    seed = seed_table().set_index("benchmark")
    for i, name in enumerate(names):
        if name in seed.index and pd.notna(seed.loc[name, "delta_pct_from"]) and SEED_OTHER_PAGE_SIZE in sizes:
            mid = (seed.loc[name, "delta_pct_from"] + seed.loc[name, "delta_pct_to"]) / 2
            offset = (sizes.index(SEED_OTHER_PAGE_SIZE) - (len(sizes) - 1) / 2) * width
            axis.scatter([i + offset], [100 + mid], marker="*", s=160, color="gold", edgecolor="black", zorder=5,
                         label="seed 8192" if i == 0 else None)
    axis.axhline(100, color="black", linewidth=0.8)
    axis.set_xticks(range(len(names)), [textwrap.fill(name, 16) for name in names], fontsize="small")
    axis.set_ylabel(f"time, % of {baseline}'s median")
    axis.set_title(f"SQLite benchmarks per page size (seed 001), {timings['measure'].iloc[0]}")
    axis.legend(fontsize="small")
    figure.tight_layout()
    return figure


def plot_wal_frames(summary: pd.DataFrame):
    """WAL frames and KiB written per write transaction, per benchmark and page size."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    frame = summary.assign(**{"page size": summary["page_size_bytes"].astype(str)})
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, column, title in ((axes[0], "wal_frames_avg", "WAL frames per write transaction"),
                                (axes[1], "wal_kib_per_tx", "KiB of WAL per write transaction")):
        sns.barplot(data=frame, x="benchmark", y=column, hue="page size", ax=axis)
        axis.set_title(title)
        axis.set_xlabel("")
        axis.set_ylabel(title.split(" per")[0])
        axis.tick_params(axis="x", labelsize="small", rotation=15)
        for container in axis.containers:
            axis.bar_label(container, fmt="%.0f", fontsize="small")
    figure.tight_layout()
    return figure
