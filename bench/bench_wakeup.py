"""What the prototype's read path costs per page read: warm, after an idle wait, with O_DIRECT.

Why the prototype's cold lookups fall short of fio: the CPU time a Python read path
costs after the process has slept, with and without a device in the way.

A cold lookup reads pages one at a time and sleeps in the kernel while each read is in flight.
This bench times, per page read, the prototype's lookups minus a bare Python pread loop of the
same file, under three conditions:

  page cache        buffered reads of a file in the OS page cache: no device, no sleep; the
                    prototype's own work per page read with warm CPU caches
  page cache+sleep  the same, but the process sleeps --sleep-us before every read (in every
                    loop; the time asleep is left out of the figures): still no device, but the
                    CPU goes idle as it does while a disk read is in flight, and whatever runs
                    meanwhile may take the caches
  O_DIRECT          real device reads, as bench_lookups.py measures them

If "page cache+sleep" costs several times "page cache", the prototype's shortfall against fio is
the price of waking up cold: fio's loop between two reads is a few hundred bytes of C, ours is the
interpreter running a B-tree. Loops alternate in short rounds so drift hits them alike.

"prototype" is the lookups as they run: the whole descent in C (_cellsearch.descend), reading
and searching each page without returning to Python, then the pool's bookkeeping for all of the
lookup's pages at once (BufferPool.replay). It sleeps before each lookup in the sleep condition,
since it runs Python once per lookup, not once per read. The other loops are Python descents,
which sleep before each read:

  Python descent  the same lookups through the tree's Python descent (the path before the C
                  one, still taken when the C descent gives up): the pool runs after every read
  no pool         the prototype's page file and page objects with no buffer pool (the last 8
                  pages kept in a dict, oldest out first): "Python descent" minus it is what the
                  pool's bookkeeping costs when it runs between reads
  leanest         no pool and no page objects, each page searched in place by the prototype's C
                  search through a memoryview of its slot array: about the best any Python
                  descent can do against fio on this machine; "no pool" minus it is what the page
                  objects cost

Usage: .venv/bin/python bench/bench_wakeup.py [--page-size 4096] [--keys 200000] [--reads 3000]
       [--sleep-us 100] [--dir data/runs/bench_wakeup]
"""

from __future__ import annotations

import argparse
import mmap
import os
import random
import statistics
import struct
import time
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.common.paths import RUNS_DIR
from pagelab.storage import Database, btree, nodes, slotted
from pagelab.storage._cellsearch import interior_child, leaf_find
from pagelab.storage import pagefile as pagefile_module
from pagelab.storage.pagefile import check_page_size
from pagelab.storage.header import HEADER_PAGE_NO, HeaderPage
from pagelab.workloads.lookups.build import build_tree, key_for

ROUNDS = 3
COUNT_EVERY = 50  # lookups between two looks at the read count (about 100 page reads at 4k)


class Idle:
    """Sleeps before a read and keeps the time slept, which the loops leave out of their figures
    (time.sleep overshoots by tens of microseconds, differently each call)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.slept = 0.0

    def __call__(self) -> None:
        if self.seconds:
            started = time.perf_counter()
            time.sleep(self.seconds)
            self.slept += time.perf_counter() - started


def bare_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    """Microseconds per random whole-page pread of the file from Python, nothing else."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECT if direct else 0))
    buffer = mmap.mmap(-1, page_size)
    try:
        pages = os.fstat(fd).st_size // page_size
        picker = random.Random(seed)
        offsets = [picker.randrange(1, pages) * page_size for _ in range(reads)]
        buffers = [buffer]
        idle = Idle(sleep_s)
        started = time.perf_counter()
        for offset in offsets:
            idle()
            os.preadv(fd, buffers, offset)
        return (time.perf_counter() - started - idle.slept) / reads * 1e6
    finally:
        buffer.close()
        os.close(fd)


def lookup_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int,
                 c_descent: bool = True) -> float:
    """Microseconds per page read of cold random lookups (8-page pool), the prototype's whole path.

    With c_descent=False the lookups take the tree's Python descent, the path of every release
    before the C one (btree.get falls back to it when the C descent returns None). In the sleep
    condition the Python descent sleeps before each page read; the C descent reads inside C, so it
    sleeps before each lookup instead, which is where it next runs Python after a wake-up."""
    read_page = pagefile_module.PageFile.read_page
    c_descend = btree.descend
    idle = Idle(sleep_s)
    per_read_idle, per_lookup_idle = (Idle(0.0), idle) if c_descent else (idle, Idle(0.0))
    if sleep_s:
        def sleepy_read_page(self, page_no):
            per_read_idle()
            return read_page(self, page_no)
        pagefile_module.PageFile.read_page = sleepy_read_page
    if not c_descent:
        btree.descend = lambda *operands: None
    try:
        db = Database.open(path, page_size=page_size, cache_bytes=8 * page_size, direct_io=direct)
        try:
            picker = random.Random(seed)
            n_keys = len(db)
            get = db.get
            done = db.counters()["file_reads"]
            made = 0
            started = time.perf_counter()
            while made < reads:
                # the read count is looked at once per batch: db.counters() builds a dict of ~30
                # figures, which per lookup would cost more than a page read's bookkeeping
                for _ in range(COUNT_EVERY):
                    per_lookup_idle()
                    get(key_for(picker.randrange(n_keys)))
                made = db.counters()["file_reads"] - done
            seconds = time.perf_counter() - started - idle.slept
            return seconds / made * 1e6
        finally:
            db.close(checkpoint=False)
    finally:
        pagefile_module.PageFile.read_page = read_page
        btree.descend = c_descend


def python_descent_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    return lookup_reads(path, page_size, reads, direct, sleep_s, seed, c_descent=False)


def page_object_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    """Microseconds per page read of lookups over the prototype's page file and page objects, with
    no buffer pool: the last 8 pages kept in a dict, oldest out first. What the pool adds is the
    prototype's cost minus this one; what the page objects add is this one minus the leanest."""
    pagefile = pagefile_module.PageFile(path, page_size, direct_io=direct, create=False)
    try:
        meta = HeaderPage.from_image(pagefile.read_page(HEADER_PAGE_NO)).meta
        recent: dict[int, slotted.TreePage] = {}
        picker = random.Random(seed)
        idle = Idle(sleep_s)
        read_page, decode = pagefile.read_page, nodes.decode_tree_page
        made = 0
        started = time.perf_counter()
        while made < reads:
            key = key_for(picker.randrange(meta.key_count))
            page_no = meta.root
            while True:
                page = recent.get(page_no)
                if page is None:
                    idle()
                    page = recent[page_no] = decode(page_no, read_page(page_no))
                    made += 1
                    if len(recent) > 8:
                        del recent[next(iter(recent))]
                if page.is_leaf:
                    break
                page_no = page.child_for(key)
            if page.find(key) < 0:
                raise SystemExit(f"the page-object lookup did not find a key in {path}: the bench is wrong")
        return (time.perf_counter() - started - idle.slept) / made * 1e6
    finally:
        pagefile.close()


def leanest_reads(path: Path, page_size: int, reads: int, direct: bool, sleep_s: float, seed: int) -> float:
    """Microseconds per page read of the leanest Python lookup over the prototype's format."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECT if direct else 0))
    buffer = mmap.mmap(-1, page_size)
    view, buffers = memoryview(buffer), [buffer]
    try:
        os.preadv(fd, buffers, 0)
        meta = HeaderPage.from_image(bytes(view)).meta
        recent: dict[int, bytes] = {}
        unpack_u16 = struct.Struct("<H").unpack_from
        picker = random.Random(seed)
        idle = Idle(sleep_s)
        done = 0
        started = time.perf_counter()
        while done < reads:
            key = key_for(picker.randrange(meta.key_count))
            page_no, data = meta.root, None
            while data is None or data[0] == slotted.INTERIOR:
                if data is not None:
                    slots = memoryview(data)[slotted.HEADER_SIZE : slotted.HEADER_SIZE + 2 * unpack_u16(data, 2)[0]].cast("H")
                    page_no = interior_child(data, slots, key)
                data = recent.get(page_no)
                if data is None:
                    idle()
                    os.preadv(fd, buffers, page_no * page_size)
                    done += 1
                    data = recent[page_no] = bytes(view)
                    if len(recent) > 8:
                        del recent[next(iter(recent))]
            slots = memoryview(data)[slotted.HEADER_SIZE : slotted.HEADER_SIZE + 2 * unpack_u16(data, 2)[0]].cast("H")
            if leaf_find(data, slots, key) < 0:
                raise SystemExit(f"the leanest lookup did not find a key in {path}: the bench is wrong")
        return (time.perf_counter() - started - idle.slept) / done * 1e6
    finally:
        view.release()
        buffer.close()
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page-size", type=int, default=4096, help="page size in bytes, 1024..65536 (default 4096)")
    parser.add_argument("--keys", type=int, default=200_000, help="keys in the tree (built once, then reused)")
    parser.add_argument("--reads", type=int, default=3000, help="page reads per loop and round")
    parser.add_argument("--sleep-us", type=float, default=100.0, help="idle time before each read in the sleep runs")
    parser.add_argument("--dir", default=str(RUNS_DIR / "bench_wakeup"),
                        help="where the tree is built (a disk filesystem: O_DIRECT is refused on tmpfs)")
    args = parser.parse_args()
    try:
        check_page_size(args.page_size)
    except UsageError as error:
        parser.error(str(error))
    for name in ("keys", "reads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.sleep_us < 0:
        parser.error("--sleep-us must be 0 or more")

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
    loops = [("prototype", lookup_reads), ("Python descent", python_descent_reads), ("no pool", page_object_reads),
             ("leanest", leanest_reads)]
    print(f"{'':>18} {'bare pread':>10}" + "".join(f" {name:>20}" for name, _ in loops))
    print(f"{'':>18} {'µs':>10}" + "".join(f" {'µs   cost  ratio':>20}" for _ in loops))
    for name, direct, sleep_s in conditions:
        bare: list[float] = []
        timings: dict[str, list[float]] = {loop: [] for loop, _ in loops}
        for round_no in range(ROUNDS):
            bare.append(bare_reads(path, args.page_size, args.reads, direct, sleep_s, seed=round_no))
            for loop, measure in loops:
                timings[loop].append(measure(path, args.page_size, args.reads, direct, sleep_s, seed=round_no))
        bare_us = statistics.median(bare)
        row = f"{name:>18} {bare_us:>10.1f}"
        for loop, _ in loops:
            us = statistics.median(timings[loop])
            row += f" {us:>7.1f} {us - bare_us:>6.1f} {bare_us / us:>5.2f}"
        print(row)
    print("\nµs: per page read, the median of the rounds; cost = µs - bare pread, the read path's own time per page "
          "read; ratio = bare / µs, the rate it keeps of a bare pread loop (which itself keeps ~0.95 of fio's here).\n"
          "prototype: the C descent (the lookups' path); Python descent: the same lookups through the tree's "
          "Python descent, the path before it.\nPython descent - no pool = what the buffer pool's bookkeeping costs "
          "when it runs between reads; no pool - leanest = what the page objects cost.")

if __name__ == "__main__":
    main()
