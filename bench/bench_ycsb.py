"""Is the YCSB driver the bottleneck? Throughput against InnoDB when the data fits in the buffer pool.

The goal: "The YCSB driver must not be the bottleneck." With every page in the buffer pool nothing
waits for the disk, so a read costs only CPU: the server's (parse, look up, send) and the
client's (build the statement, send, receive, time it). This starts a private 16k instance with a
256 MiB buffer pool, loads --records records (~30 MB at the default 20,000), then runs workload C
(read only, zipfian) and B (95% read) with 1, 2 and 4 client workers, as processes and as
threads, and prints per run:

  ops/s            YCSB's Throughput(ops/sec)
  client cores     the workers' CPU seconds (their operation loops) / wall seconds
  server cores     mariadbd's CPU seconds (/proc/<pid>/stat utime+stime) / wall seconds
  client share     client CPU / (client + server) CPU: the part of the work that is the driver's
  client µs/op     the driver's CPU per operation

On a 2-core machine the two together cannot exceed 2 cores; the driver is not the bottleneck when
the server has the cores it can use and the client's share stays well under half.

Usage: .venv/bin/python bench/bench_ycsb.py [--records 20000] [--operations 20000] [--dir DIR] [--threads 1,2,4]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec, fast_connector_available
from pagelab.workloads.ycsb import LOAD, WORKLOADS, PhasePlan, execute_phase
from pagelab.workloads.ycsb import backends


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--operations", type=int, default=20_000, help="operations per measured run")
    parser.add_argument("--threads", default="1,2,4", help="worker counts to try")
    parser.add_argument("--workloads", default="cb", help="workload letters to measure (default cb)")
    parser.add_argument("--dir", help="where the instance lives (default: a temporary directory, removed)")
    args = parser.parse_args()
    thread_counts = [int(n) for n in args.threads.split(",")]

    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-ycsb-"))
    instance = Instance(root / "server-16k", "16k", settings=ServerSettings(buffer_pool_bytes="256M",
                                                                          redo_log_bytes="256M"))
    print(f"C extension available in this process: {fast_connector_available()}")
    started = time.perf_counter()
    instance.init(force=True)
    try:
        with instance:
            instance.start()
            spec = ConnectionSpec.for_instance(instance, database=backends.DATABASE)
            backends.create_usertable(spec, 10)
            target = backends.InnoDBTarget(spec)
            load = execute_phase(target, PhasePlan(LOAD, records=args.records, operations=args.records, seed=1),
                                 threads=4, parallelism="processes")
            db_bytes = backends.innodb_table_bytes(spec)
            print(f"loaded {args.records:,} records ({db_bytes / 2**20:.0f} MiB in InnoDB, pool 256 MiB) in "
                  f"{load.runtime_ms / 1000:.1f} s: {load.throughput:,.0f} inserts/s with 4 processes "
                  f"(durable commits)")
            # Warm the pool: one full read-only pass so every measured read is a hit.
            execute_phase(target, PhasePlan(WORKLOADS["c"], records=args.records, operations=args.records,
                                            distribution="uniform", seed=99), threads=2)
            pid = instance.pid()
            print(f"\n{'workload':<9} {'mode':<10} {'workers':>7} {'ops/s':>8} {'client cores':>12} "
                  f"{'server cores':>12} {'client share':>12} {'client µs/op':>12} {'client':>12}")
            for letter in args.workloads:
                for mode in ("processes", "threads"):
                    for threads in thread_counts:
                        plan = PhasePlan(WORKLOADS[letter], records=args.records, operations=args.operations, seed=7)
                        server_before = backends.process_cpu_seconds(pid)
                        result = execute_phase(target, plan, threads=threads, parallelism=mode)
                        server_cpu = backends.process_cpu_seconds(pid) - server_before
                        wall = result.runtime_ms / 1000
                        client_cpu = result.client_cpu_s
                        share = client_cpu / (client_cpu + server_cpu) if client_cpu + server_cpu else 0.0
                        print(f"{letter.upper():<9} {mode:<10} {threads:>7} {result.throughput:>8,.0f} "
                              f"{client_cpu / wall:>12.2f} {server_cpu / wall:>12.2f} {share:>12.0%} "
                              f"{client_cpu / result.operations * 1e6:>12.0f} {result.client:>12}")
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
