"""Seed 001 run: SQLite's six benchmarks at each page size, timed per sample (see pagelab.workloads.sqlite)."""


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
from pagelab.units import page_size_label
from pagelab.workloads.random_writes.sqlite import (
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

    # The tables of a result are the report's (pagelab.workloads.sqlite.report), which reads this
    # module's constants; imported when asked, so the two modules do not import each other at load.
    @property
    def timings(self) -> pd.DataFrame:
        from pagelab.workloads.sqlite.report import timing_summary

        return timing_summary(self.samples)

    def delta(self, baseline: int | None = None, measure: str = "time_ms") -> pd.DataFrame:
        from pagelab.workloads.sqlite.report import delta_table, timing_summary

        return delta_table(timing_summary(self.samples, measure), baseline)

    def summary_line(self, baseline: int | None = None, measure: str = "time_ms") -> str:
        from pagelab.workloads.sqlite.report import summary_line

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
