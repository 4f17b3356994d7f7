"""TPC-C load and driver speed at the reference point.

The point: 1 warehouse, 4 connections, 64 MB buffer pool, 4k pages, O_DIRECT, on the 2-core
machine. tpcc-mysql's row-at-a-time loader takes 55-70 s per warehouse there and its C driver
reaches 11,700-12,900 TpmC (tests/fixtures/captured). Prints:

- generation seconds (cold, separately), then load seconds from the cache per phase, per repeat;
- TpmC of each of pagelab's driver modes (statements, procedures), alternating, and the client's CPU
  seconds per 1,000 transactions (the driver process and its terminal threads). For how close the
  statements mode comes to a real tpcc-mysql, see bench_tpcc_fidelity.py.

Usage: .venv/bin/python bench/bench_tpcc.py [--repeats 3] [--measure 60] [--page-size 4k]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions
from pagelab.tpcc.loader import load


def cpu_seconds() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--measure", type=int, default=60, help="measured seconds per driver run")
    parser.add_argument("--page-size", default="4k")
    parser.add_argument("--connections", type=int, default=4)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pagelab-bench-tpcc-") as scratch:
        scratch = Path(scratch)
        started = time.perf_counter()
        dataset = generate(1, 1, cache_dir=scratch / "cache", progress=False)
        print(f"generate 1 warehouse (cold): {time.perf_counter() - started:.2f} s, {dataset.bytes / 1e6:.0f} MB")

        instance = Instance(scratch / "instance", args.page_size,
                            settings=ServerSettings(buffer_pool_bytes="64M", flush_method="O_DIRECT"))
        instance.init()
        with instance:
            instance.start()
            spec = ConnectionSpec.for_instance(instance)
            totals = []
            for repeat in range(1, args.repeats + 1):
                report = load(spec, dataset, progress=False)
                totals.append(report.seconds)
                print(f"load #{repeat} ({args.page_size}): tables {report.seconds_tables:.2f} s, indexes+FKs "
                      f"{report.seconds_indexes:.2f} s, checks {report.seconds_verify:.2f} s, total {report.seconds:.2f} s")
            print(f"load median: {statistics.median(totals):.2f} s per warehouse "
                  f"(tpcc_load: 55-70 s; goal <= 7 s)")

            tpmcs: dict[str, list[float]] = {mode: [] for mode in ("statements", "procedures")}
            for repeat in range(1, args.repeats + 1):
                for mode in tpmcs:
                    before = cpu_seconds()
                    result = run(ConnectionSpec.for_instance(instance, tcp=True),
                                 RunOptions(warehouses=1, connections=args.connections, rampup_s=10,
                                            measure_s=args.measure, interval_s=10, seed=repeat, mode=mode), echo=None)
                    client_cpu = cpu_seconds() - before
                    transactions = sum(t["success"] + t["late"] for t in result.summary["transactions"].values())
                    transactions += result.summary["rampup_transactions"]
                    tpmcs[mode].append(result.tpmc)
                    print(f"driver #{repeat} {mode:<10}: {result.tpmc:,.0f} TpmC, client CPU {client_cpu:.1f} s = "
                          f"{1000 * client_cpu / transactions:.2f} s per 1,000 transactions")
            for mode, values in tpmcs.items():
                print(f"driver median, {mode}: {statistics.median(values):,.0f} TpmC")

if __name__ == "__main__":
    main()
