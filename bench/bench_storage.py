"""Speed and write cost of the storage prototype (issue 6): insert rate, and seed 004's workload.

1. In-memory inserts per second (goal >= 100k/s): 16-byte keys and 128-byte values into an
   in-memory database with 8 KiB pages, in transactions of 1000, keys in ascending order and
   shuffled; then point lookups, and single-put transactions (autocommit) for comparison.

2. Seed 004, "the cost of random writes" (goal: all five page sizes in <= 60 s): 5,000
   transactions of 100 items, sequential and random keys, at 4k, 8k, 16k, 32k and 64k pages.
   The items are those of the seed's benchmark program (Ayende's Performance.Comparison): keys
   are ids written as 16 zero-padded digits, values 128 bytes, and the random run inserts the
   same ids shuffled. The figure is pages written to the journal per transaction (the seed
   counts journal writes only, "because those are the limiting factor"), with the database in
   memory and the cache large enough to hold the whole tree, as Voron's memory-mapped file
   does. Voron's pages are 4 KiB, so the seed's table stands beside our 4k row. Each of our
   transactions also writes the header page, as each of Voron's writes a transaction header.

Usage: .venv/bin/python bench/bench_storage.py [--jobs 2] [--inserts 200000] [--transactions 5000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time

from pagelab.storage import Database

KEY_FORMAT = b"%016d"  # the seed benchmark's keys: ids as 16 zero-padded digits
VALUE = bytes(range(128))  # the seed benchmark's 128-byte values
SEED_004 = {  # pages per transaction in Voron, 4 KiB pages (seed 004's table)
    "sequential": {"avg": 7.06, "max": 11.00, "total": 35_320, "std": 0.35},
    "random": {"avg": 111.37, "max": 134.00, "total": 556_973, "std": 7.09},
}
PAGE_SIZES = (4096, 8192, 16384, 32768, 65536)


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


def part_one(count: int) -> None:
    print(f"1. In-memory inserts, 8k pages, {count:,} entries (16-byte keys, 128-byte values), transactions of 1000")
    for order in ("sequential", "random"):
        rate, db = insert_rate(count, order)
        stats = db.stats()
        keys = [KEY_FORMAT % number for number in ids(count, "random", seed=9)]
        started = time.perf_counter()
        for key in keys:
            db.get(key)
        get_rate = count / (time.perf_counter() - started)
        print(f"   {order:10s}  {rate:9,.0f} inserts/s   {get_rate:9,.0f} gets/s   "
              f"depth {stats['depth']}, {stats['leaf_pages']:,} leaves, leaf fill {stats['leaf_fill']:.0%}")
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


def seed_004_run(task: tuple[int, str, int, int]) -> dict:
    page_size, order, transactions, items = task
    keys = [KEY_FORMAT % number for number in ids(transactions * items, order)]
    db = Database.open(page_size=page_size, cache_bytes=1 << 32)
    started, cpu_started = time.perf_counter(), time.process_time()
    for start in range(0, len(keys), items):
        with db.transaction():
            for key in keys[start : start + items]:
                db.put(key, VALUE)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    pages = list(db.transaction_log_frame()["pages"])
    stats = db.stats()
    return {
        "page_size": page_size, "order": order, "seconds": elapsed, "cpu_seconds": cpu,
        "avg": statistics.fmean(pages), "max": max(pages), "total": sum(pages), "std": statistics.pstdev(pages),
        "bytes": db.counters()["journal_bytes_written"], "depth": stats["depth"], "leaf_fill": stats["leaf_fill"],
    }


def part_two(transactions: int, items: int, jobs: int) -> None:
    print()
    print(f"2. Seed 004: {transactions:,} transactions x {items} items, pages written to the journal per transaction")
    # the long runs (random keys, big pages) first, so the processes finish together
    tasks = [(size, order, transactions, items) for order in ("random", "sequential") for size in reversed(PAGE_SIZES)]
    started = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(seed_004_run, tasks, chunksize=1)
    else:
        results = [seed_004_run(task) for task in tasks]
    wall = time.perf_counter() - started
    print(f"   {'page':>5} {'keys':10} {'avg':>8} {'max':>6} {'total':>9} {'std':>6} {'GB':>6} {'depth':>5} "
          f"{'leaf fill':>9} {'s':>5} {'cpu s':>5}")
    for row in sorted(results, key=lambda row: (row["page_size"], row["order"] != "sequential")):
        print(f"   {row['page_size'] // 1024:>4}k {row['order']:10} {row['avg']:8.2f} {row['max']:6d} {row['total']:9,d} "
              f"{row['std']:6.2f} {row['bytes'] / 1e9:6.2f} {row['depth']:5d} {row['leaf_fill']:9.0%} {row['seconds']:5.1f} "
              f"{row['cpu_seconds']:5.1f}")
    print("   seed 004 (Voron, 4k pages):")
    for order, figures in SEED_004.items():
        print(f"   {'4k':>5} {order:10} {figures['avg']:8.2f} {figures['max']:6.0f} {figures['total']:9,d} {figures['std']:6.2f}")
    cpu = sum(row["cpu_seconds"] for row in results)
    print(f"   five page sizes: {wall:.1f} s wall with {jobs} process(es), {cpu:.1f} s of CPU in the runs (goal <= 60 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inserts", type=int, default=200_000)
    parser.add_argument("--transactions", type=int, default=5000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2, help="processes for part 2 (the machine's cores are shared)")
    parser.add_argument("--skip-inserts", action="store_true", help="only part 2")
    args = parser.parse_args()
    if not args.skip_inserts:
        part_one(args.inserts)
    part_two(args.transactions, args.items, args.jobs)


if __name__ == "__main__":
    main()
