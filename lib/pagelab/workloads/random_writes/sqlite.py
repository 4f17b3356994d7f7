"""The Voron post's workload on SQLite: WAL frames per commit, and the B-tree's height from dbstat.

The same items as `random_writes` (16-digit keys, 128-byte values, the same ids in the same order
for a seed) go into a fresh SQLite database per page size, one transaction of
`items_per_transaction` inserts per commit. SQLite in WAL mode appends, at each commit, one frame
per page the transaction changed: a 24-byte frame header and the whole page. That is the same
measure as Voron's journal pages (and pagelab's), so

    frames appended by a commit = (WAL size after - WAL size before - header) / (page_size + 24)

where the 32-byte WAL header counts only when the commit starts a new WAL. Settings:

    PRAGMA page_size = N            before anything is created (checked with PRAGMA page_size and
                                    against the file header's own page-size field)
    PRAGMA journal_mode = WAL
    PRAGMA wal_autocheckpoint = 0   SQLite never checkpoints by itself, so nothing but our commits
                                    changes the WAL's size
    PRAGMA synchronous = OFF        (default) no fsync per commit: the frames written are the same,
                                    5,000 fsyncs per run are not. "FULL" measures with them
    PRAGMA cache_size               `cache_bytes` (1 GiB): the whole tree stays in SQLite's cache, so
                                    no page spills into the WAL before its commit (a spill would add
                                    frames the commit itself did not write)

    CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID

WITHOUT ROWID makes the table one B-tree ordered by key, as Voron's tree is (a rowid table would
be ordered by an ever-increasing rowid, so every insert would append, plus a second B-tree for the
key's index). It is an *index* B-tree, though: SQLite keeps whole records (key and value) in its
interior cells too, not only keys as a B+tree does, so with 144-byte records an interior page has
a fanout of about page_size / 150 and the tree is a level or two deeper than the prototype's. And
an overflowing leaf is balanced with up to two siblings (all rewritten, and their parent), so a
random commit writes more leaf and interior frames than it has items, while the leaves stay
fuller (~85-92%) than the prototype's split-in-the-middle leaves (~69%).

Without autocheckpoints the WAL grows by every frame written: 2 GB at 4k pages and about 30 GB at
64k for the random run. So between commits, when the WAL has passed `wal_limit_bytes`, we run
`PRAGMA wal_checkpoint(TRUNCATE)` ourselves: the next commit starts a new WAL (counted with its
header). A checkpoint does not change which pages a later transaction changes, so the frame counts
are those of a never-checkpointed WAL; `wal_checkpoints` says how many were run.

The B-tree's shape comes from the `dbstat` virtual table (SQLITE_ENABLE_DBSTAT_VTAB, checked in
`PRAGMA compile_options`): pages per level from the depth of each page's `path`. Where SQLite was
built without it, the same figures come from walking the B-tree in the database file
(`walk_btree`, after a final checkpoint), and `tree_source` says which was used.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from pagelab.common.errors import UsageError
from pagelab.common.units import GIB, KIB, page_size_label
from pagelab.workloads.random_writes.run import (
    ITEMS_PER_TRANSACTION,
    KEY_BYTES,
    KEY_ORDERS,
    PAGE_SIZES,
    TRANSACTIONS,
    VALUE_BYTES,
    check_workload,
    key_orders_of,
    make_keys,
    make_value,
    results_frame,
    run_tasks,
    transaction_summary,
    workload_tasks,
)

WAL_HEADER_BYTES = 32
WAL_FRAME_HEADER_BYTES = 24
SQLITE_PAGE_SIZES = tuple(1 << shift for shift in range(9, 17))  # 512 .. 65536
DEFAULT_CACHE_BYTES = GIB
DEFAULT_WAL_LIMIT_BYTES = GIB
SCHEMA = "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID"
TABLE = "kv"

# B-tree page types (the first byte of a page's header) and their header sizes
INTERIOR_INDEX, INTERIOR_TABLE, LEAF_INDEX, LEAF_TABLE = 2, 5, 10, 13
_PAGE_TYPES = {INTERIOR_INDEX: "internal", INTERIOR_TABLE: "internal", LEAF_INDEX: "leaf", LEAF_TABLE: "leaf"}
DATABASE_HEADER_BYTES = 100  # page 1 starts with the file header


def dbstat_available(connection: sqlite3.Connection) -> bool:
    """Whether this SQLite was compiled with the dbstat virtual table (PRAGMA compile_options)."""
    options = {row[0] for row in connection.execute("PRAGMA compile_options")}
    return "ENABLE_DBSTAT_VTAB" in options


def file_page_size(path: str | os.PathLike) -> int:
    """The page size written in a database file's header (offset 16, big-endian; 1 means 65536)."""
    with open(path, "rb") as handle:
        header = handle.read(DATABASE_HEADER_BYTES)
    if not header.startswith(b"SQLite format 3\x00"):
        raise UsageError(f"{path} is not an SQLite database")
    (size,) = struct.unpack_from(">H", header, 16)
    return 65536 if size == 1 else size


def open_database(path: str | os.PathLike, page_size: int, *, cache_bytes: int = DEFAULT_CACHE_BYTES,
                  synchronous: str = "OFF") -> sqlite3.Connection:
    """A new database at `path` with this page size, in WAL mode without autocheckpoints, and the
    kv table created; UsageError if SQLite did not take the page size."""
    if page_size not in SQLITE_PAGE_SIZES:
        raise UsageError(f"SQLite page sizes are powers of two from 512 to 65536, got {page_size}")
    if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise UsageError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
    if Path(path).exists():
        raise UsageError(f"{path} exists; the workload needs a new database (its page size is fixed at creation)")
    connection = sqlite3.connect(path, isolation_level=None)  # we issue BEGIN and COMMIT ourselves
    try:
        connection.execute(f"PRAGMA page_size = {int(page_size)}")  # before the first table: fixed after
        mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise UsageError(f"SQLite refused WAL mode for {path} (journal_mode is {mode})")
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        connection.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        connection.execute(f"PRAGMA cache_size = {-max(1, cache_bytes // KIB)}")  # negative: KiB
        connection.execute(SCHEMA)
        actual = connection.execute("PRAGMA page_size").fetchone()[0]
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the schema into the file, the WAL emptied
        in_file = file_page_size(path)
        if actual != page_size or in_file != page_size:
            raise UsageError(f"asked SQLite for {page_size}-byte pages, got {actual} (PRAGMA page_size) and "
                             f"{in_file} (file header); this SQLite's limit may be lower")
    except BaseException:
        connection.close()
        raise
    return connection


def wal_size(path: str | os.PathLike) -> int:
    try:
        return os.stat(f"{path}-wal").st_size
    except FileNotFoundError:
        return 0


def frames_appended(before: int, after: int, page_size: int) -> int:
    """WAL frames a commit appended, from the WAL's size before and after it."""
    grown = after - before - (WAL_HEADER_BYTES if before == 0 and after > 0 else 0)
    frames, rest = divmod(grown, page_size + WAL_FRAME_HEADER_BYTES)
    if rest or frames < 0:
        raise RuntimeError(f"the WAL grew by {after - before} bytes, not a whole number of "
                           f"{page_size + WAL_FRAME_HEADER_BYTES}-byte frames (was it checkpointed or reset?)")
    return frames


def tree_levels_dbstat(connection: sqlite3.Connection, table: str = TABLE) -> list[dict[str, Any]]:
    """Per level of the table's B-tree (root = level 0): pages, cells, bytes used, from dbstat.

    A page's level is the number of '/' in its dbstat path minus one ('/' is the root, '/000/'
    its first child); overflow pages (paths with '+') are left out."""
    rows = connection.execute(
        "SELECT length(path) - length(replace(path, '/', '')) - 1 AS level, pagetype, count(*), sum(ncell), "
        "sum(pgsize - unused), sum(pgsize) FROM dbstat WHERE name = ? AND pagetype != 'overflow' "
        "GROUP BY level, pagetype ORDER BY level", (table,)).fetchall()
    return [{"level": level, "kind": kind, "pages": pages, "cells": cells, "used_bytes": used, "bytes": size}
            for level, kind, pages, cells, used, size in rows]


def walk_btree(path: str | os.PathLike, root_page: int, page_size: int) -> list[dict[str, Any]]:
    """The same per-level figures as `tree_levels_dbstat`, read from the database file itself
    (checkpoint first, so the file holds every committed page). For SQLite builds without dbstat."""
    levels: list[dict[str, Any]] = []
    with open(path, "rb") as handle:
        def page(number: int) -> tuple[bytes, int]:
            handle.seek((number - 1) * page_size)
            data = handle.read(page_size)
            return data, DATABASE_HEADER_BYTES if number == 1 else 0

        current = [root_page]
        while current:
            children: list[int] = []
            kind = None
            cells = used = 0
            for number in current:
                data, start = page(number)
                page_type = data[start]
                if page_type not in _PAGE_TYPES:
                    raise RuntimeError(f"page {number} of {path} is not a B-tree page (type {page_type})")
                kind = _PAGE_TYPES[page_type]
                count, content = struct.unpack_from(">HH", data, start + 3)
                fragmented = data[start + 7]
                header = 8 if kind == "leaf" else 12
                free = (content or 65536) - (start + header + 2 * count)
                block = struct.unpack_from(">H", data, start + 1)[0]
                while block:  # the freeblock chain
                    next_block, size = struct.unpack_from(">HH", data, block)
                    free += size
                    block = next_block
                cells += count
                used += page_size - free - fragmented
                if kind == "internal":
                    for index in range(count):
                        (offset,) = struct.unpack_from(">H", data, start + header + 2 * index)
                        children.append(struct.unpack_from(">I", data, offset)[0])
                    children.append(struct.unpack_from(">I", data, start + 8)[0])  # the right-most child
            levels.append({"level": len(levels), "kind": kind, "pages": len(current), "cells": cells,
                           "used_bytes": used, "bytes": page_size * len(current)})
            current = children
    return levels


def run_sqlite_once(page_size: int, key_order: str, transactions: int = TRANSACTIONS,
                    items_per_transaction: int = ITEMS_PER_TRANSACTION, *, key_bytes: int = KEY_BYTES,
                    value_bytes: int = VALUE_BYTES, seed: int = 1, directory: str | os.PathLike | None = None,
                    cache_bytes: int = DEFAULT_CACHE_BYTES, synchronous: str = "OFF",
                    wal_limit_bytes: int = DEFAULT_WAL_LIMIT_BYTES) -> dict[str, Any]:
    """One (page size, key order) on SQLite, in a new temporary directory (inside `directory`, or
    the system's), removed at the end. Returns one row (a dict) shaped like the prototype's."""
    keys = make_keys(transactions * items_per_transaction, key_order, seed, key_bytes)
    value = make_value(value_bytes, seed)
    scratch = Path(tempfile.mkdtemp(prefix="sqlite-writes-", dir=directory))
    path = scratch / "kv.sqlite"
    try:
        connection = open_database(path, page_size, cache_bytes=cache_bytes, synchronous=synchronous)
        try:
            verified = connection.execute("PRAGMA page_size").fetchone()[0]
            insert = f"INSERT INTO {TABLE} (key, value) VALUES (?, ?)"
            frames: list[int] = []
            checkpoints = 0
            size = wal_size(path)
            started, cpu_started = time.perf_counter(), time.process_time()
            for start in range(0, len(keys), items_per_transaction):
                connection.execute("BEGIN")
                connection.executemany(insert, [(key, value) for key in keys[start : start + items_per_transaction]])
                connection.execute("COMMIT")
                after = wal_size(path)
                frames.append(frames_appended(size, after, page_size))
                size = after
                if size > wal_limit_bytes:
                    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    checkpoints += 1
                    size = wal_size(path)
            seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            count = connection.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
            if dbstat_available(connection):
                levels, source = tree_levels_dbstat(connection), "dbstat"
            else:
                root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone()[0]
                levels, source = walk_btree(path, root, page_size), "file walk (no dbstat in this SQLite)"
            version = sqlite3.sqlite_version
        finally:
            connection.close()
        file_bytes = path.stat().st_size
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if count != len(keys):
        raise RuntimeError(f"the table holds {count} rows after {len(keys)} inserts")
    leaf = levels[-1]
    row = {
        "engine": "sqlite",
        "page_size": page_size,
        "page_size_label": page_size_label(page_size),
        "key_order": key_order,
        "transactions": transactions,
        "items_per_transaction": items_per_transaction,
        "key_bytes": key_bytes,
        "value_bytes": value_bytes,
        **transaction_summary(frames, [n * (page_size + WAL_FRAME_HEADER_BYTES) for n in frames]),
        "tree_depth": len(levels),
        "pages_per_level": tuple(level["pages"] for level in levels),
        "tree_pages": sum(level["pages"] for level in levels),
        "leaf_pages": leaf["pages"],
        "leaf_fill": leaf["used_bytes"] / leaf["bytes"],
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "backend": "sqlite WAL",
        "cache_bytes": cache_bytes,
        "seed": seed,
        "page_size_verified": verified,
        "file_bytes": file_bytes,
        "wal_checkpoints": checkpoints,
        "synchronous": synchronous.upper(),
        "tree_source": source,
        "sqlite_version": version,
    }
    row["write_amplification"] = row["bytes_total"] / (transactions * items_per_transaction * (key_bytes + value_bytes))
    return row


def run_sqlite_write_cost(
    page_sizes: Iterable[int] = PAGE_SIZES,
    transactions: int = TRANSACTIONS,
    items_per_transaction: int = ITEMS_PER_TRANSACTION,
    key_order: str | Sequence[str] = KEY_ORDERS,
    *,
    key_bytes: int = KEY_BYTES,
    value_bytes: int = VALUE_BYTES,
    seed: int = 1,
    directory: str | os.PathLike | None = None,
    cache_bytes: int = DEFAULT_CACHE_BYTES,
    synchronous: str = "OFF",
    wal_limit_bytes: int = DEFAULT_WAL_LIMIT_BYTES,
    workers: int | None = None,
) -> pd.DataFrame:
    """The Voron post's workload on SQLite (WAL): one row per (page size, key order), the columns of
    `run_random_write_cost` (pages_* are WAL frames per commit, bytes_* the frames' bytes with
    their 24-byte headers), plus page_size_verified (PRAGMA page_size of the new database),
    file_bytes, wal_checkpoints, synchronous, tree_source ("dbstat" or a file walk) and
    sqlite_version.

    directory        where the temporary databases go (None: the system's temporary directory);
                     each run's is removed when it ends. The random run at 64k pages writes ~30 GB
                     of WAL in all, `wal_limit_bytes` at a time
    wal_limit_bytes  checkpoint (TRUNCATE) between commits once the WAL is this large
    synchronous      PRAGMA synchronous ("OFF": no fsync per commit; the frame counts are the same)
    workers          processes (None: one per core; 1: run here)
    """
    sizes = check_workload(page_sizes, transactions, items_per_transaction)
    orders = key_orders_of(key_order)
    tasks = workload_tasks(sizes, orders, directory, transactions=transactions,
                           items_per_transaction=items_per_transaction, key_bytes=key_bytes,
                           value_bytes=value_bytes, seed=seed, cache_bytes=cache_bytes, synchronous=synchronous,
                           wal_limit_bytes=wal_limit_bytes)
    return results_frame(run_tasks(run_sqlite_once, tasks, workers))


def tree_shape_table(*results: pd.DataFrame) -> pd.DataFrame:
    """Depth, pages per level (root first) and leaf fill at the end, per engine, page size and key
    order: the prototype's B+tree beside SQLite's."""
    frame = pd.concat(results, ignore_index=True)
    columns = ["engine", "page_size_label", "key_order", "tree_depth", "pages_per_level", "leaf_pages", "leaf_fill"]
    table = frame[columns].copy()
    table["pages_per_level"] = table["pages_per_level"].map(lambda levels: " / ".join(f"{n:,}" for n in levels))
    table["size_order"] = frame["page_size"]
    table["key_order_index"] = frame["key_order"].map(KEY_ORDERS.index)
    table = table.sort_values(["size_order", "key_order_index", "engine"], kind="stable")
    table = table.drop(columns=["size_order", "key_order_index"])
    return table.set_index(["page_size_label", "key_order", "engine"])
