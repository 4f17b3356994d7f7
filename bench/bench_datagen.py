"""How long the TPC-C data generator takes, cold, for 1 and 2 warehouses.

Every run generates into a fresh temporary directory (no cache), once with one worker process per
CPU and once in-process, and prints seconds, MB written and MB/s. Usage:

    .venv/bin/python bench/bench_datagen.py [--warehouses 1 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pagelab.tpcc import datagen


def measure(warehouses: int, seed: int, workers: int) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory(prefix="pagelab-bench-") as scratch:
        started = time.perf_counter()
        dataset = datagen.generate(warehouses, seed, cache_dir=Path(scratch), progress=False, workers=workers)
        seconds = time.perf_counter() - started
        return seconds, dataset.bytes, sum(dataset.row_counts.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouses", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    cpus = os.cpu_count() or 1
    print(f"{'warehouses':>10} {'workers':>7} {'seconds':>8} {'MB':>8} {'MB/s':>7} {'rows':>10}")
    for warehouses in args.warehouses:
        for workers in sorted({cpus, 1}, reverse=True):
            seconds, size, rows = measure(warehouses, args.seed, workers)
            megabytes = size / 1e6
            print(
                f"{warehouses:>10} {workers:>7} {seconds:>8.2f} {megabytes:>8.1f} "
                f"{megabytes / seconds:>7.1f} {rows:>10,}"
            )


if __name__ == "__main__":
    main()
