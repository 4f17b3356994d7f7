"""One benchmark database: created with the experiment's settings and checked, loaded, its B-tree read,
and the Python path's iterations over it (Python's sqlite3 module, a dict per row)."""


from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from pagelab.common.units import MIB
from pagelab.common.errors import UsageError
from pagelab.workloads.random_writes.sqlite import (
    WAL_FRAME_HEADER_BYTES,
    dbstat_available,
    file_page_size,
    frames_appended,
    tree_levels_dbstat,
    walk_btree,
    wal_size,
)
from pagelab.workloads.sqlite.benchmarks import (
    DELETE_AFTER,
    INSERT,
    SCHEMA,
    SELECT_ALL,
    SELECT_FIRST,
    SELECT_MAPS,
    TX_READ,
    WRITE_TX,
    WRITES,
    Benchmark,
    check_page_sizes,
    check_synchronous,
    make_row,
)

MMAP_BYTES = 256 * MIB  # the experiment's mmap_size = 256MB
# WAL's usual partner: no fsync per commit (the WAL is synced at checkpoints), so a commit's time
# is SQLite's, not the disk cache's; Python's default, FULL, adds an fsync per commit.
SYNCHRONOUS = "NORMAL"


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


def connection_pragmas(synchronous: str, mmap_bytes: int) -> list[str]:
    """The settings each connection makes for itself (the file keeps page_size and WAL)."""
    return [f"PRAGMA synchronous = {check_synchronous(synchronous)}", f"PRAGMA mmap_size = {int(mmap_bytes)}"]


def create_database(path: str | os.PathLike, page_size: int, *, synchronous: str = SYNCHRONOUS,
                    mmap_bytes: int = MMAP_BYTES) -> sqlite3.Connection:
    """A new database at `path`: page_size, then WAL, synchronous, mmap_size, the `items` table;
    the page size checked (UsageError if SQLite did not take it). The connection is in
    autocommit mode (isolation_level=None): the benchmarks issue BEGIN and COMMIT themselves."""
    check_page_sizes([page_size])
    pragmas = connection_pragmas(synchronous, mmap_bytes)
    if Path(path).exists():
        raise UsageError(f"{path} exists; the benchmark needs a new database (its page size is fixed at creation)")
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(f"PRAGMA page_size = {int(page_size)}")  # before anything is written
        mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise UsageError(f"SQLite refused WAL mode for {path} (journal_mode is {mode})")
        for pragma in pragmas:
            connection.execute(pragma)
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


class PythonDatabase:
    """The Python path: one benchmark database through Python's sqlite3, created and loaded here,
    every row read turned into a dict (column name -> value)."""

    path_name = "python"

    def __init__(self, path: Path, page_size: int, rows: int, batches: dict[int, list[tuple]], synchronous: str,
                 mmap_bytes: int):
        self.path, self.page_size, self.rows, self.batches = path, page_size, rows, batches
        self.connection = create_database(path, page_size, synchronous=synchronous, mmap_bytes=mmap_bytes)
        try:
            self.mmap_bytes = self.connection.execute("PRAGMA mmap_size").fetchone()[0]
            load_rows(self.connection, rows)
            self.page_size_pragma = verify_page_size(self.connection, path, page_size)
            self.page_size_header = file_page_size(path)
        except BaseException:
            self.connection.close()
            raise

    def read(self, bench: Benchmark) -> list[dict[str, Any]]:
        """One read iteration's rows, as the benchmark builds them."""
        connection = self.connection
        if bench.kind == SELECT_MAPS:
            cursor = connection.execute(SELECT_ALL)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row)) for row in cursor]
        connection.execute("BEGIN")
        cursor = connection.execute(SELECT_FIRST, (bench.rows,))
        names = [column[0] for column in cursor.description]
        maps = [dict(zip(names, row)) for row in cursor]
        connection.execute("COMMIT")
        return maps

    def iteration(self, bench: Benchmark) -> int:
        """One iteration of a benchmark; returns the rows it read or wrote."""
        if bench.kind in (SELECT_MAPS, TX_READ):
            return len(self.read(bench))
        connection = self.connection
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
        """One untimed iteration (a warm-up), its row count checked."""
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


def seconds_per_iteration(db: Any, bench: Benchmark) -> float:
    """The median of 3 samples of one iteration each, after a warm-up (either path's database)."""
    db.run(bench)
    return sorted(db.sample(bench, 1)[0] for _ in range(3))[1] / 1e3

