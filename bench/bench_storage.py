"""Speed and write cost of the storage prototype: insert rate, and the Voron post's workload.

1. In-memory inserts per second (goal >= 100k/s): 16-byte keys and 128-byte values into an
   in-memory database with 8 KiB pages, in transactions of 1000, keys in ascending order and
   shuffled; then point lookups, and single-put transactions (autocommit) for comparison.

2. The Voron post's "The cost of random writes" (goal: all five page sizes in <= 60 s): 5,000
   transactions of 100 items, sequential and random keys, at 4k, 8k, 16k, 32k and 64k pages.
   The items are those of the post's benchmark program (Ayende's Performance.Comparison): keys
   are ids written as 16 zero-padded digits, values 128 bytes, and the random run inserts the
   same ids shuffled. The figure is pages written to the journal per transaction (the post
   counts journal writes only, "because those are the limiting factor"), with the database in
   memory and the cache large enough to hold the whole tree, as Voron's memory-mapped file
   does. Voron's pages are 4 KiB, so the post's table stands beside our 4k row. Each of our
   transactions also writes the header page, as each of Voron's writes a transaction header.

Usage: .venv/bin/python bench/bench_storage.py [--jobs 2] [--inserts 200000] [--repeats 3] [--transactions 5000]
       [--skip-inserts | --skip-random-writes]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arguments import at_least_one
from pagelab.mysql.pagesize import PAGE_SIZES as INNODB_PAGE_SIZES
from pagelab.storage import Database

KEY_FORMAT = b"%016d"  # the Voron post's benchmark's keys: ids as 16 zero-padded digits
VALUE = bytes(range(128))  # the Voron post's benchmark's 128-byte values
PAGE_SIZES = tuple(INNODB_PAGE_SIZES)


def ids(count: int, order: str, seed: int = 4) -> list[int]:
    numbers = list(range(count))
    if order == "random":
        random.Random(seed).shuffle(numbers)
    return numbers


def insert_rate(count: int, order: str, page_size: int = 8192, batch: int = 1000) -> tuple[float, Database]:
    keys = [KEY_FORMAT % number for number in ids(count, order)]
    db = Database.open(page_size=page_size, cache_bytes=1 << 30)
    started = time.perf_counter()
    for start in range(0, count, batch):
        with db.transaction():
            for key in keys[start : start + batch]:
                db.put(key, VALUE)
    return count / (time.perf_counter() - started), db


def part_one(count: int, repeats: int) -> None:
    print(f"1. In-memory inserts, 8k pages, {count:,} entries (16-byte keys, 128-byte values), transactions of 1000;")
    print(f"   each order run {repeats} times in this process (the shared VM's speed drifts by up to 2x within a")
    print("   minute, so the median and the best run are both shown; the garbage collector stays on)")
    for order in ("sequential", "random"):
        rates = []
        for _ in range(repeats):
            rate, db = insert_rate(count, order)
            rates.append(rate)
        stats = db.stats()
        keys = [KEY_FORMAT % number for number in ids(count, "random", seed=9)]
        started = time.perf_counter()
        for key in keys:
            db.get(key)
        get_rate = count / (time.perf_counter() - started)
        print(f"   {order:10s}  median {statistics.median(rates):9,.0f} inserts/s, best {max(rates):9,.0f}, "
              f"worst {min(rates):9,.0f}   {get_rate:9,.0f} gets/s   depth {stats['depth']}, "
              f"{stats['leaf_pages']:,} leaves, leaf fill {stats['leaf_fill']:.0%}")
        del db
    db = Database.open(page_size=8192)
    single = min(count, 20_000)
    started = time.perf_counter()
    for number in ids(single, "random"):
        db.put(KEY_FORMAT % number, VALUE)
    print(f"   autocommit  {single / (time.perf_counter() - started):9,.0f} inserts/s (one transaction per put)")
    baseline = time.perf_counter()
    total = 0
    for number in range(1_000_000):
        total += number
    print(f"   (this machine: {(time.perf_counter() - baseline) * 1000:.0f} ns per iteration of a bare Python loop)")


def part_two(transactions: int, items: int, jobs: int) -> None:
    """The Voron post's benchmark, through the workload the notebook runs (pagelab.workloads.random_writes)."""
    import pandas as pd  # here, not at the top: part 1 times pure Python and needs nothing of numpy's

    from pagelab.workloads.random_writes.report import seed_comparison
    from pagelab.workloads.random_writes.run import run_random_write_cost

    print()
    print(f"2. The Voron post's benchmark: {transactions:,} transactions x {items} items, pages written to the journal per transaction")
    started = time.perf_counter()
    results = run_random_write_cost(PAGE_SIZES, transactions, items, workers=jobs)
    wall = time.perf_counter() - started
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(results.drop(columns=[c for c in results.columns if "per_level" in c], errors="ignore").to_string(index=False))
        print()
        print(seed_comparison(results).to_string())
    cpu = results["cpu_seconds"].sum() if "cpu_seconds" in results else float("nan")
    print(f"   five page sizes: {wall:.1f} s wall with {jobs} process(es), {cpu:.1f} s of CPU in the runs (goal <= 60 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inserts", type=at_least_one, default=200_000, help="entries per insert run in part 1")
    parser.add_argument("--repeats", type=at_least_one, default=3, help="runs of each insert order in part 1")
    parser.add_argument("--transactions", type=at_least_one, default=5000, help="transactions per run in part 2")
    parser.add_argument("--items", type=at_least_one, default=100, help="items per transaction in part 2")
    parser.add_argument("--jobs", type=at_least_one, default=2, help="processes for part 2 (the machine's cores are shared)")
    parts = parser.add_mutually_exclusive_group()
    parts.add_argument("--skip-inserts", action="store_true", help="only part 2 (the Voron post's workload)")
    parts.add_argument("--skip-random-writes", action="store_true", help="only part 1 (the insert rate)")
    args = parser.parse_args()
    if not args.skip_inserts:
        part_one(args.inserts, args.repeats)
    if not args.skip_random_writes:
        part_two(args.transactions, args.items, args.jobs)


if __name__ == "__main__":
    main()
