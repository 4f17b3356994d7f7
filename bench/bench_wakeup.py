"""Why the prototype's cold lookups fall short of fio: the CPU time a Python read path costs after
the process has slept, with and without a device in the way (issue 6).

A cold lookup reads pages one at a time and sleeps in the kernel while each read is in flight.
This bench times, per page read, the prototype's lookups minus a bare Python pread loop of the
same file, under three conditions:

  page cache        buffered reads of a file in the OS page cache: no device, no sleep; the
                    prototype's own work per page read with warm CPU caches
  page cache+sleep  the same, but the process sleeps --sleep-us before every read (in both
                    loops): still no device, but the CPU goes idle as it does while a disk read is
                    in flight, and whatever ran meanwhile may take the caches
  O_DIRECT          real device reads, as bench_lookups.py measures them

If "page cache+sleep" costs several times "page cache", the prototype's shortfall against fio is
the price of waking up cold: fio's loop between two reads is a few hundred bytes of C, ours is the
interpreter running a B-tree. Loops alternate in short rounds so drift hits both alike.

Usage: .venv/bin/python bench/bench_wakeup.py [--page-size 4096] [--keys 200000] [--reads 3000]
       [--sleep-us 100] [--dir data/runs/bench_wakeup]
"""

from __future__ import annotations

import argparse
import mmap
import os
import random
import statistics
import time
from pathlib import Path

from pagelab.paths import RUNS_DIR
from pagelab.storage import Database
from pagelab.storage import pagefile as pagefile_module
from pagelab.workloads.point_lookups import build_tree, key_for

ROUNDS = 3


def bare_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    """Microseconds per random whole-page pread of the file from Python, nothing else."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECT if direct else 0))
    buffer = mmap.mmap(-1, page_size)
    try:
        pages = os.fstat(fd).st_size // page_size
        picker = random.Random(seed)
        offsets = [picker.randrange(1, pages) * page_size for _ in range(reads)]
        buffers = [buffer]
        started = time.perf_counter()
        for offset in offsets:
            if sleep_s:
                time.sleep(sleep_s)
            os.preadv(fd, buffers, offset)
        return (time.perf_counter() - started) / reads * 1e6
    finally:
        buffer.close()
        os.close(fd)


def lookup_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    """Microseconds per page read of cold random lookups (8-page pool), the prototype's whole path."""
    read_page = pagefile_module.PageFile.read_page
    if sleep_s:
        def sleepy_read_page(self, page_no):
            time.sleep(sleep_s)
            return read_page(self, page_no)
        pagefile_module.PageFile.read_page = sleepy_read_page
    try:
        db = Database.open(path, page_size=page_size, cache_bytes=8 * page_size, direct_io=direct)
        try:
            picker = random.Random(seed)
            n_keys = len(db)
            done = db.counters()["file_reads"]
            started = time.perf_counter()
            while db.counters()["file_reads"] - done < reads:
                db.get(key_for(picker.randrange(n_keys)))
            seconds = time.perf_counter() - started
            return seconds / (db.counters()["file_reads"] - done) * 1e6
        finally:
            db.close(checkpoint=False)
    finally:
        pagefile_module.PageFile.read_page = read_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page-size", type=int, default=4096)
    parser.add_argument("--keys", type=int, default=200_000, help="keys in the tree (built once, then reused)")
    parser.add_argument("--reads", type=int, default=3000, help="page reads per loop and round")
    parser.add_argument("--sleep-us", type=float, default=100.0, help="idle time before each read in the sleep runs")
    parser.add_argument("--dir", default=str(RUNS_DIR / "bench_wakeup"))
    args = parser.parse_args()

    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"wakeup-{args.page_size}.db"
    build_tree(path, args.page_size, args.keys, reuse=True, progress=True)
    with open(path, "rb") as handle:  # into the page cache, for the buffered runs
        while handle.read(1 << 20):
            pass

    conditions = [("page cache", False, 0.0), ("page cache+sleep", False, args.sleep_us / 1e6), ("O_DIRECT", True, 0.0)]
    print(f"{args.page_size // 1024}k pages, {args.keys:,} keys, {args.reads:,} reads per loop, {ROUNDS} rounds; "
          "µs per page read (median of rounds)\n")  # fmt: skip
    print(f"{'condition':>18} {'bare pread':>10} {'lookups':>8} {'prototype':>9}")
    for name, direct, sleep_s in conditions:
        bare, ours = [], []
        for round_no in range(ROUNDS):
            bare.append(bare_reads(path, args.page_size, args.reads, direct, sleep_s, seed=round_no))
            ours.append(lookup_reads(path, args.page_size, args.reads, direct, sleep_s, seed=round_no))
        bare_us, ours_us = statistics.median(bare), statistics.median(ours)
        print(f"{name:>18} {bare_us:>10.1f} {ours_us:>8.1f} {ours_us - bare_us:>9.1f}")
    print("\nprototype = lookups - bare pread: the prototype's own time per page read under each condition")


if __name__ == "__main__":
    main()
