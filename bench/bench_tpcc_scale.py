"""The TPC-C driver and loader past the 1-warehouse case: memory of many terminals, cache and load per warehouse.

    .venv/bin/python bench/bench_tpcc_scale.py [--warehouses 20] [--run-warehouses 10] [--connections 64]

Prints:
- generation of a `--warehouses` dataset into a fresh cache: seconds, and the cache's bytes per
  warehouse (the files are per table and warehouse, so nothing is stored twice);
- the load of it into a 4k instance: seconds per warehouse;
- a `--connections`-terminal run of `pagelab tpcc run --mode statements` against `--run-warehouses`
  warehouses (10 s + 30 s): TpmC, and the peak RSS of the whole driver process (its terminals are
  threads; the kernel's ru_maxrss of the waited-for child). Goal: at most 1.5 GB.

Needs about 2.5 GB of disk for 20 warehouses; takes about 10 minutes.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arguments import at_least_one

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.loader import load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouses", type=at_least_one, default=20, help="warehouses to generate and load (default 20)")
    parser.add_argument("--run-warehouses", type=at_least_one, default=10, help="warehouses the run uses (default 10)")
    parser.add_argument("--connections", type=at_least_one, default=64, help="terminals of the run (default 64)")
    parser.add_argument("--measure", type=at_least_one, default=30, help="measured seconds (default 30)")
    args = parser.parse_args()
    if args.run_warehouses > args.warehouses:
        parser.error("--run-warehouses must not exceed --warehouses")
    with tempfile.TemporaryDirectory(prefix="pagelab-scale-", dir=os.environ.get("PAGELAB_BENCH_DIR")) as scratch:
        scratch = Path(scratch)
        started = time.monotonic()
        dataset = generate(args.warehouses, 1, cache_dir=scratch / "cache", progress=False)
        generated_s = time.monotonic() - started
        cache_bytes = sum(f.stat().st_size for f in (scratch / "cache").rglob("*") if f.is_file())
        print(f"generate {args.warehouses} warehouses: {generated_s:.0f} s; cache {cache_bytes / 1e6:.0f} MB, "
              f"{cache_bytes / args.warehouses / 1e6:.1f} MB per warehouse (dataset says {dataset.bytes / 1e6:.0f} MB)")
        instance = Instance(scratch / "instance", "4k",
                            settings=ServerSettings(buffer_pool_bytes="1G", max_connections=args.connections + 10))
        instance.init()
        with instance:
            instance.start()
            started = time.monotonic()
            report = load(ConnectionSpec.for_instance(instance), dataset, progress=False)
            load_s = time.monotonic() - started
            print(f"load {args.warehouses} warehouses: {load_s:.0f} s, {load_s / args.warehouses:.1f} s per warehouse "
                  f"(tables {report.seconds_tables:.0f} s, indexes {report.seconds_indexes:.0f} s, "
                  f"checks {report.seconds_verify:.0f} s)")
            command = [sys.executable, "-m", "pagelab.cli", "tpcc", "run", "--instance", str(instance.root),
                       "-w", str(args.run_warehouses), "-c", str(args.connections), "-r", "10",
                       "-l", str(args.measure), "-i", "10", "--out", str(scratch / "run")]
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            done = subprocess.run(command, capture_output=True, text=True)
            peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            if done.returncode != 0:
                print(done.stderr[-2000:])
                return 1
            tpmc = next(line for line in done.stdout.splitlines() if line.strip().endswith("TpmC")).split()[0]
            print(f"run -w {args.run_warehouses} -c {args.connections}, 10 s + {args.measure} s: TpmC {tpmc}; "
                  f"peak RSS of the driver process {peak_kib / 1024:.0f} MiB"
                  + ("" if peak_kib > before else " (at most: an earlier child peaked higher)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
