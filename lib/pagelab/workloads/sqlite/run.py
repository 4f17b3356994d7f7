"""SQLite's experiment 053 run: SQLite's six benchmarks at each page size, timed per sample on each path
(native C and Python's sqlite3; see pagelab.workloads.sqlite)."""


from __future__ import annotations

import gc
import math
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from pagelab.common.errors import UsageError
from pagelab.common.units import page_size_label
from pagelab.workloads.random_writes.sqlite import dbstat_available, file_page_size
from pagelab.workloads.sqlite.benchmarks import (
    EXECUTE_BATCH_ROWS,
    NATIVE,
    PATHS,
    PYTHON,
    READ_BATCHES,
    ROWS,
    WRITE_BATCHES,
    WRITES,
    benchmark_plan,
    check_page_sizes,
    check_synchronous,
    positive_int,
    write_batches_of,
)
from pagelab.workloads.sqlite.database import (
    MMAP_BYTES,
    SYNCHRONOUS,
    PythonDatabase,
    btree_levels,
    seconds_per_iteration,
)
from pagelab.workloads.sqlite.native import NativeDatabase, timer_module
from pagelab.workloads.sqlite.report import delta_table, summary_line, timing_summary

PAGE_SIZES = (4096, 8192)
REPEATS = 3  # the experiment's "3 repeats x 2 runs"
RUNS = 2
# A sample's length: long enough that a wall-clock mean is not one scheduler time slice (a few
# ms), short enough that 2 paths x 2 sizes x 6 benchmarks x 6 samples stay near a minute.
MIN_SAMPLE_SECONDS = 0.25
MAX_ITERATIONS = 100_000  # a cap for tiny benchmarks: 0.25 s of 1-us iterations is already 250k
FRAME_TRANSACTIONS = 3  # WAL frames counted per write benchmark: enough to see they repeat exactly
_DATABASES = {NATIVE: NativeDatabase, PYTHON: PythonDatabase}


def check_paths(paths: Iterable[str]) -> tuple[str, ...]:
    if isinstance(paths, str):
        raise UsageError(f"paths must be a list such as ['native', 'python'], got {paths!r}")
    chosen = tuple(paths)
    if not chosen or any(path not in PATHS for path in chosen) or len(set(chosen)) != len(chosen):
        raise UsageError(f"paths must name each of {', '.join(PATHS)} at most once (at least one), got {list(chosen)}")
    return chosen


@dataclass
class SqliteBenchResult:
    """What `run_sqlite_bench` measured: tidy tables (snake_case, units in the names).

    samples     one row per timed sample: path (native or python), page_size, page_size_bytes,
                repeat, run, benchmark, kind, rows_per_iteration, iterations, rows (the table's),
                time_ms and cpu_ms (mean per iteration), best_ms (the fastest iteration)
    timings     per path, benchmark and page size: median with its interval, min-max
                (`report.timing_summary`)
    btree       per page size, B-tree and level: rows (the table's), pages, cells, used_bytes,
                bytes (after the load)
    wal_frames  per page size, write benchmark and measured transaction: wal_frames,
                wal_frames_checkpoint, wal_bytes, rows_per_tx
    databases   per page size and repeat: the page size asked, PRAGMA page_size (each path's
                connection), the file header's, mmap_size as SQLite took it, the file's size
    settings    the run's parameters, SQLite's version (Python's and the C module's), dbstat or not
    """

    samples: pd.DataFrame
    btree: pd.DataFrame
    wal_frames: pd.DataFrame
    databases: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    # The tables of a result are the report's (pagelab.workloads.sqlite.report); both modules take
    # their constants from pagelab.workloads.sqlite.benchmarks, so neither imports the other.
    @property
    def timings(self) -> pd.DataFrame:
        return timing_summary(self.samples)

    def samples_of(self, path: str) -> pd.DataFrame:
        if path not in set(self.samples["path"]):
            raise UsageError(f"the {path} path was not measured; this run has {', '.join(self.settings['paths'])}")
        return self.samples[self.samples["path"] == path]

    def delta(self, baseline: int | None = None, measure: str = "time_ms", path: str = NATIVE) -> pd.DataFrame:
        return delta_table(self.samples_of(path), baseline, measure)

    def summary_line(self, baseline: int | None = None, measure: str = "time_ms", path: str = NATIVE) -> str:
        return summary_line(self.delta(baseline, measure, path))


def run_sqlite_bench(
    page_sizes: Iterable[int] = PAGE_SIZES,
    *,
    paths: Iterable[str] = PATHS,
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
    """Experiment 053's benchmarks at each page size and on each path, `repeats` x `runs` samples each.

    page_sizes          bytes per page: powers of two from 512 to 65536 (default 4096, 8192)
    paths               "native" (timed in C) and/or "python" (Python's sqlite3), default both
    rows                rows in the table: "Select maps <rows> rows" reads them all
    write_batches       rows per "Batched write tx N rows" (one execute per row)
    execute_batch_rows  rows of the "Batched write tx (executeBatch)" batch
    read_batches        rows per "Transaction read N rows" (at most `rows`)
    repeats, runs       the experiment's 3 x 2: new databases per repeat, one sample per run
    min_sample_seconds  a sample runs enough iterations for at least this much work
    frame_transactions  write transactions whose WAL frames are counted, per benchmark and size
    synchronous         PRAGMA synchronous (NORMAL: no fsync per commit in WAL mode)
    mmap_bytes          PRAGMA mmap_size (the experiment's 256 MB)
    directory           where the databases go (a new temporary directory inside it, removed at
                        the end; None: the system's temporary directory)
    keep_databases      leave the databases (r<repeat>-<page size>.sqlite) in that temporary
                        directory, named in settings["database_directory"], to inspect them
    progress            a tqdm bar over the samples
    """
    sizes = check_page_sizes(page_sizes)
    chosen = check_paths(paths)
    plan = benchmark_plan(rows, write_batches, execute_batch_rows, read_batches)
    repeats = positive_int("repeats", repeats)
    runs = positive_int("runs", runs)
    frame_transactions = positive_int("frame_transactions", frame_transactions)
    if isinstance(min_sample_seconds, bool) or not isinstance(min_sample_seconds, (int, float)) or not (
            0 < min_sample_seconds <= 60):
        raise UsageError(f"min_sample_seconds must be > 0 and <= 60, got {min_sample_seconds!r}")
    synchronous = check_synchronous(synchronous)
    if isinstance(mmap_bytes, bool) or not isinstance(mmap_bytes, int) or mmap_bytes < 0:
        raise UsageError(f"mmap_bytes must be a whole number >= 0 (0 turns memory mapping off), got {mmap_bytes!r}")
    if directory is not None and not Path(directory).is_dir():
        raise UsageError(f"directory {directory} does not exist")
    native_module = timer_module() if NATIVE in chosen else None  # a missing build fails here, before any file

    batches = write_batches_of(plan, rows)
    samples: list[dict[str, Any]] = []
    tree_rows: list[dict[str, Any]] = []
    frame_rows: list[dict[str, Any]] = []
    database_rows: list[dict[str, Any]] = []
    iterations: dict[str, dict[str, int]] = {path: {} for path in chosen}
    bar = None
    if progress:
        from pagelab.common.progress import progress_bar

        bar = progress_bar(repeats * runs * len(plan) * len(sizes) * len(chosen), "sqlite samples", "sample")
    gc_was_enabled = gc.isenabled()
    scratch = Path(tempfile.mkdtemp(prefix="sqlite-bench-", dir=directory))
    try:
        for repeat in range(repeats):
            # the Python path's database creates and loads the file; the native one opens it
            databases: dict[tuple[str, int], Any] = {}
            try:
                for size in sizes:
                    path = scratch / f"r{repeat}-{size}.sqlite"
                    creator = databases[(PYTHON, size)] = PythonDatabase(path, size, rows, batches, synchronous,
                                                                         mmap_bytes)
                    if NATIVE in chosen:
                        databases[(NATIVE, size)] = NativeDatabase(path, size, rows, batches, synchronous, mmap_bytes)
                    database_rows.append({
                        "page_size": page_size_label(size), "page_size_bytes": size, "repeat": repeat,
                        "page_size_pragma": creator.page_size_pragma, "page_size_header": file_page_size(path),
                        "page_size_native": databases[(NATIVE, size)].page_size_pragma if NATIVE in chosen else None,
                        "mmap_bytes": creator.mmap_bytes, "rows": rows, "file_bytes": path.stat().st_size,
                    })
                    if repeat == 0:
                        for level in btree_levels(creator.connection, path, size):
                            tree_rows.append({"page_size": page_size_label(size), "page_size_bytes": size,
                                              "rows": rows, **level})
                gc.disable()
                if repeat == 0:
                    for path_name in chosen:
                        for bench in plan:
                            per_iteration = seconds_per_iteration(databases[(path_name, sizes[0])], bench)
                            iterations[path_name][bench.name] = int(min(MAX_ITERATIONS, max(
                                1, math.ceil(min_sample_seconds / max(per_iteration, 1e-9)))))
                for run in range(runs):
                    alternate = (repeat * runs + run) % 2 == 1
                    for bench in plan:
                        for path_name in (tuple(reversed(chosen)) if alternate else chosen):
                            for size in (tuple(reversed(sizes)) if alternate else sizes):
                                db = databases[(path_name, size)]
                                count = iterations[path_name][bench.name]
                                db.run(bench)  # warm-up, untimed
                                wall, cpu, best = db.sample(bench, count)
                                samples.append({
                                    "path": path_name, "page_size": page_size_label(size), "page_size_bytes": size,
                                    "repeat": repeat, "run": run, "benchmark": bench.name, "kind": bench.kind,
                                    "rows_per_iteration": bench.rows, "iterations": count,
                                    "rows": rows, "time_ms": wall, "cpu_ms": cpu, "best_ms": best,
                                })
                                if bar is not None:
                                    bar.update()
                if gc_was_enabled:
                    gc.enable()
                if repeat == repeats - 1:
                    for size in sizes:
                        for bench in plan:
                            if bench.kind in WRITES:
                                for found in databases[(PYTHON, size)].wal_frames(bench, frame_transactions):
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
        "page_sizes": list(sizes), "paths": list(chosen), "rows": rows, "benchmarks": [bench.name for bench in plan],
        "iterations": iterations, "repeats": repeats, "runs": runs, "min_sample_seconds": min_sample_seconds,
        "frame_transactions": frame_transactions, "synchronous": synchronous, "mmap_bytes": mmap_bytes,
        "journal_mode": "wal", "sqlite_version": sqlite3.sqlite_version,
        "native_sqlite_version": native_module.library_version() if native_module else None,
        "dbstat": has_dbstat, "native_dbstat": native_module.has_dbstat() if native_module else None,
        "database_directory": str(scratch) if keep_databases else None,
    }
    return SqliteBenchResult(samples=pd.DataFrame(samples), btree=pd.DataFrame(tree_rows),
                             wal_frames=pd.DataFrame(frame_rows), databases=pd.DataFrame(database_rows),
                             settings=settings)


def run_row_counts(row_counts: Iterable[int], **options: Any) -> dict[int, SqliteBenchResult]:
    """`run_sqlite_bench` once per table size (e.g. the experiment's 10,000 rows and 1,000,000, where
    the B-tree is a level deeper), with the same `options`; every size and option is checked
    before the first run starts."""
    if isinstance(row_counts, (int, str)):
        raise UsageError(f"row_counts must be a list such as [10000, 1000000], got {row_counts!r}")
    counts = tuple(positive_int("row_counts", count) for count in row_counts)
    if not counts or len(set(counts)) != len(counts):
        raise UsageError(f"row_counts must name at least one table size, each once, got {list(counts)}")
    plan_options = {key: options[key] for key in ("write_batches", "execute_batch_rows", "read_batches")
                    if key in options}
    for count in counts:
        benchmark_plan(count, **plan_options)
    check_page_sizes(options.get("page_sizes", PAGE_SIZES))
    check_paths(options.get("paths", PATHS))
    return {count: run_sqlite_bench(rows=count, **options) for count in counts}
