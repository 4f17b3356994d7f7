"""The Voron post run: pages written per transaction on the storage prototype, sequential against random keys."""


from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from pagelab.common.errors import UsageError
from pagelab.common.units import page_size_label
from pagelab.mysql.pagesize import PAGE_SIZES as INNODB_PAGE_SIZES


PAGE_SIZES = tuple(INNODB_PAGE_SIZES)  # the post's sizes: InnoDB's
KEY_ORDERS = ("sequential", "random")
TRANSACTIONS = 5000  # the post's "5,000 transactions of 100 items"
ITEMS_PER_TRANSACTION = 100
KEY_BYTES = 16  # Id.ToString("0000000000000000")
VALUE_BYTES = 128  # minValueSize: 128, maxValueSize: 128
ID_LIMIT = 2**31 - 1  # the program's random ids are distinct non-negative Int32s
SEED_PAGE_SIZE = 4096  # Voron's page size
SEED_TABLE = "voron_random_writes.csv"
# Large enough for the whole tree of the post's workload at every page size (~110 MB after random
# inserts); the pool only counts frames, it allocates nothing up front.
DEFAULT_CACHE_BYTES = 1 << 32

COLUMNS = [
    "engine", "page_size", "page_size_label", "key_order", "transactions", "items_per_transaction",
    "key_bytes", "value_bytes", "pages_avg", "pages_max", "pages_min", "pages_total", "pages_std",
    "bytes_total", "bytes_per_txn_avg", "write_amplification", "tree_depth", "pages_per_level",
    "tree_pages", "leaf_pages", "leaf_fill", "seconds", "cpu_seconds",
]


# -- the items ------------------------------------------------------------------------------------

def make_ids(count: int, key_order: str, seed: int = 1) -> list[int]:
    """The ids in insertion order: 0..count-1, or `count` distinct random ids below 2**31 - 1."""
    check_key_order(key_order)
    if count > ID_LIMIT:
        raise UsageError(f"{count:,} items is more than the {ID_LIMIT:,} distinct ids a 31-bit id allows")
    if key_order == "sequential":
        return list(range(count))
    return random.Random(seed).sample(range(ID_LIMIT), count)


def make_keys(count: int, key_order: str, seed: int = 1, key_bytes: int = KEY_BYTES) -> list[bytes]:
    """The keys in insertion order: each id as `key_bytes` zero-padded digits (the post's 16)."""
    if key_bytes < 10:  # 2**31 - 1 has 10 digits
        raise UsageError(f"key_bytes must be at least 10 (the digits of the largest id), got {key_bytes}")
    template = b"%0" + str(key_bytes).encode() + b"d"
    return [template % number for number in make_ids(count, key_order, seed)]


def make_value(value_bytes: int = VALUE_BYTES, seed: int = 1) -> bytes:
    """One value, written with every key (the post's program wrote a slice of one random buffer)."""
    if value_bytes < 0:
        raise UsageError(f"value_bytes must be >= 0, got {value_bytes}")
    return random.Random(seed).randbytes(value_bytes)


def check_key_order(key_order: str) -> str:
    if key_order not in KEY_ORDERS:
        raise UsageError(f"key_order must be one of {', '.join(KEY_ORDERS)}, got {key_order!r}")
    return key_order


def key_orders_of(key_order: str | Sequence[str]) -> tuple[str, ...]:
    """'random', or ('sequential', 'random'): always a tuple of checked names."""
    orders = (key_order,) if isinstance(key_order, str) else tuple(key_order)
    if not orders:
        raise UsageError("key_order: give at least one of sequential, random")
    return tuple(check_key_order(order) for order in orders)


def check_workload(page_sizes: Iterable[int], transactions: int, items_per_transaction: int) -> tuple[int, ...]:
    sizes = tuple(int(size) for size in page_sizes)
    if not sizes:
        raise UsageError("page_sizes is empty")
    if transactions < 1 or items_per_transaction < 1:
        raise UsageError(f"transactions and items_per_transaction must be >= 1, got {transactions} and "
                         f"{items_per_transaction}")
    return sizes


# -- one run --------------------------------------------------------------------------------------

def transaction_summary(pages: Sequence[int], byte_counts: Sequence[int]) -> dict[str, float]:
    """The post's statistics over per-transaction page counts (std dev: population, ddof=0),
    and the bytes written."""
    if not len(pages):
        raise UsageError("no transactions to summarize")
    return {
        "pages_avg": statistics.fmean(pages),
        "pages_max": int(max(pages)),
        "pages_min": int(min(pages)),
        "pages_total": int(sum(pages)),
        "pages_std": statistics.pstdev(pages),
        "bytes_total": int(sum(byte_counts)),
        "bytes_per_txn_avg": statistics.fmean(byte_counts),
    }


def run_pagelab_once(page_size: int, key_order: str, transactions: int = TRANSACTIONS,
                     items_per_transaction: int = ITEMS_PER_TRANSACTION, *, key_bytes: int = KEY_BYTES,
                     value_bytes: int = VALUE_BYTES, seed: int = 1, directory: str | os.PathLike | None = None,
                     cache_bytes: int = DEFAULT_CACHE_BYTES, synchronous: bool = True) -> dict[str, Any]:
    """One (page size, key order) on the prototype: a fresh database, the workload, one row (a dict).

    With `directory`, the database lives in a new temporary directory inside it, removed at the end."""
    from pagelab.storage import Database

    keys = make_keys(transactions * items_per_transaction, key_order, seed, key_bytes)
    value = make_value(value_bytes, seed)
    scratch = None if directory is None else Path(tempfile.mkdtemp(prefix="random-writes-", dir=directory))
    try:
        if scratch is None:
            db = Database.open(None, page_size=page_size, cache_bytes=cache_bytes)
        else:
            db = Database.open(scratch / "random-writes.db", page_size=page_size, cache_bytes=cache_bytes,
                               synchronous=synchronous)
        try:
            started, cpu_started = time.perf_counter(), time.process_time()
            put = db.put
            for start in range(0, len(keys), items_per_transaction):
                with db.transaction():
                    for key in keys[start : start + items_per_transaction]:
                        put(key, value)
            seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
            log = db.transaction_log_frame()
            stats = db.stats()
        finally:
            db.close(checkpoint=scratch is not None)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if len(log) != transactions:
        raise RuntimeError(f"{len(log)} transactions in the journal's log, {transactions} were committed")
    row = {
        "engine": "pagelab",
        "page_size": page_size,
        "page_size_label": page_size_label(page_size),
        "key_order": key_order,
        "transactions": transactions,
        "items_per_transaction": items_per_transaction,
        "key_bytes": key_bytes,
        "value_bytes": value_bytes,
        **transaction_summary(log["pages"].tolist(), log["bytes"].tolist()),
        "tree_depth": stats["depth"],
        "pages_per_level": tuple(stats["pages_per_level"]),
        "tree_pages": stats["pages"],
        "leaf_pages": stats["leaf_pages"],
        "leaf_fill": stats["leaf_fill"],
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "backend": "memory" if scratch is None else "file",
        "cache_bytes": cache_bytes,
        "seed": seed,
    }
    row["write_amplification"] = row["bytes_total"] / (transactions * items_per_transaction * (key_bytes + value_bytes))
    return row


def _run_task(task: tuple[Callable[..., dict], dict]) -> dict:
    function, arguments = task
    return function(**arguments)


def workload_tasks(page_sizes: Iterable[int], key_orders: Iterable[str], directory: str | os.PathLike | None,
                   **settings: Any) -> list[dict]:
    """One task per (page size, key order) for run_tasks, each carrying the run's settings (plain
    values, so they cross to worker processes); the directory, when given, must exist."""
    if directory is not None and not Path(directory).is_dir():
        raise UsageError(f"directory {directory} does not exist")
    where = None if directory is None else str(directory)
    return [{"page_size": size, "key_order": order, "directory": where, **settings}
            for size in page_sizes for order in key_orders]


def run_tasks(function: Callable[..., dict], tasks: list[dict], workers: int | None) -> list[dict]:
    """function(**task) for each task, in `workers` processes (None: one per core, at most one per
    task; 1: in this process). Results come back in the order of `tasks`.

    The processes are forked (Linux's default before Python 3.14): a spawned process would import
    the caller's main module again, which breaks a script without an `if __name__ == "__main__"`
    guard. The children only run `function`; they touch none of the parent's threads or sockets
    (a Jupyter kernel's included)."""
    if workers is None:
        workers = min(len(tasks), os.cpu_count() or 1)
    if workers < 1:
        raise UsageError(f"workers must be >= 1 (or None for one per core), got {workers}")
    if workers == 1 or len(tasks) == 1:
        return [function(**task) for task in tasks]
    # Longest first (random keys and big pages cost most), so the last task to start is a short one.
    order = sorted(range(len(tasks)), key=lambda i: (tasks[i].get("key_order") != "random",
                                                     -tasks[i].get("page_size", 0)))
    results: list[dict | None] = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_process_context()) as pool:
        futures = {i: pool.submit(_run_task, (function, tasks[i])) for i in order}
        for i, future in futures.items():
            results[i] = future.result()
    return results  # type: ignore[return-value]


def _process_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def results_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows in (page size, key order) order, the shared columns first."""
    frame = pd.DataFrame(rows)
    frame["key_order"] = pd.Categorical(frame["key_order"], categories=list(KEY_ORDERS), ordered=True)
    frame = frame.sort_values(["page_size", "key_order"], kind="stable").reset_index(drop=True)
    frame["key_order"] = frame["key_order"].astype(str)
    return frame[COLUMNS + [c for c in frame.columns if c not in COLUMNS]]


def run_random_write_cost(
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
    synchronous: bool = True,
    workers: int | None = None,
) -> pd.DataFrame:
    """The Voron post's workload on the storage prototype: one row per (page size, key order).

    page_sizes             bytes per page (1k..64k, powers of two)
    transactions           transactions per run (the post's 5,000)
    items_per_transaction  inserts per transaction (the post's 100)
    key_order              "sequential", "random", or both (the default)
    key_bytes, value_bytes the post's 16-byte keys (zero-padded ids) and 128-byte values
    seed                   the random ids' and the value's seed: the same seed, the same figures
    directory              None: in memory (the journal only counts). A directory: a real page
                           file and journal in a temporary directory inside it, fsynced at each
                           commit if `synchronous` (slower; the same page counts)
    cache_bytes            the buffer pool's budget (the default holds the whole tree)
    workers                processes (None: one per core; 1: run here)

    Columns: engine ("pagelab"), page_size (bytes), page_size_label, key_order, the workload;
    pages_avg / _max / _min / _total / _std (journal page images per transaction, std dev over
    the transactions with ddof=0), bytes_total and bytes_per_txn_avg (journal bytes),
    write_amplification (journal bytes / bytes of keys and values inserted), tree_depth,
    pages_per_level (root first), tree_pages, leaf_pages, leaf_fill at the end, seconds and
    cpu_seconds (the inserts and commits only: wall clock, and this process's CPU time, which
    other load on the machine does not inflate), backend, cache_bytes, seed.
    """
    sizes = check_workload(page_sizes, transactions, items_per_transaction)
    orders = key_orders_of(key_order)
    from pagelab.storage import check_page_size

    tasks = workload_tasks([check_page_size(size) for size in sizes], orders, directory, transactions=transactions,
                           items_per_transaction=items_per_transaction, key_bytes=key_bytes,
                           value_bytes=value_bytes, seed=seed, cache_bytes=cache_bytes, synchronous=synchronous)
    return results_frame(run_tasks(run_pagelab_once, tasks, workers))
