"""What the samplers cost the run they measure: TpmC with and without the monitor.

The reference point: 1 warehouse, 4 connections, 64 MB buffer pool, 4k pages, O_DIRECT.
Each round runs the same short TPC-C three times, without the monitor, with it at a 10 s interval
and with it at 1 s, in alternating order (ABC, CBA, ...), each from the same restored snapshot of
the loaded datadir, so neither the order nor the growing tables favour one configuration. Prints
TpmC per run, the with/without ratio per round, and the median ratio (goal: overhead <= 1%).

On a shared virtual disk TpmC varies by tens of percent between identical runs, far more than the
effect sought, so each monitored run also reports what the monitor itself consumed: the CPU of
its threads and of iostat, and the server time spent answering its statements, as a share of
the machine's CPU. That figure does not depend on the disk's mood.

Usage: .venv/bin/python bench/bench_monitor.py [--rounds 3] [--measure 30] [--rampup 5]
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
from pathlib import Path

from pagelab.monitor import Monitor
from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions
from pagelab.tpcc.loader import load

WITHOUT = None  # the configuration without a monitor


def label(interval_s: int | None) -> str:
    return "without monitor" if interval_s is WITHOUT else f"monitor every {interval_s:>2} s"


def query_ms(path: Path) -> list[float]:
    with open(path, newline="") as handle:
        return [float(row["query_ms"]) for row in csv.DictReader(handle) if row["query_ms"]]


def monitor_cost(status: dict, run_dir: Path) -> tuple[float, str]:
    """(share of the machine's CPU the monitor took, a note) for one monitored run.

    Client side: the CPU each sampler recorded (its thread, and the iostat process). Server side:
    the time the server took to answer the samplers' statements, an upper bound on the CPU it spent
    on them (it includes the round trip). Both over the monitor's lifetime and all cores."""
    samplers = status["samplers"]
    lifetime_s = samplers["innodb_status"]["stopped_epoch"] - samplers["innodb_status"]["started_epoch"]
    client_s = sum(s["cpu_s"] or 0.0 for s in samplers.values())
    innodb_ms, counters_ms = query_ms(run_dir / "innodb" / "index.csv"), query_ms(run_dir / "global_status.csv")
    server_s = (sum(innodb_ms) + sum(counters_ms)) / 1000
    share = (client_s + server_s) / (lifetime_s * (os.cpu_count() or 1))
    note = (f"{samplers['innodb_status']['samples']} samples; median statement ms: innodb status "
            f"{statistics.median(innodb_ms):.1f}, global status {statistics.median(counters_ms):.1f}; "
            f"client CPU {client_s:.2f} s + server {server_s:.2f} s in {lifetime_s:.0f} s "
            f"= {100 * share:.2f}% of {os.cpu_count()} cores")
    return share, note


def one_run(instance: Instance, options: RunOptions, interval_s: int | None,
            run_dir: Path) -> tuple[float, float | None, str]:
    """Restore the loaded snapshot, run TPC-C (with a monitor if interval_s); TpmC, the monitor's
    share of the CPU, and notes."""
    instance.stop()
    instance.restore()
    # The copy leaves the datadir's pages dirty in the page cache; written back during the run, they
    # would compete with InnoDB's own I/O for whichever configuration happens to come next.
    os.sync()
    instance.start()
    spec = ConnectionSpec.for_instance(instance, tcp=True)
    if interval_s is WITHOUT:
        return run(spec, options, out_dir=run_dir, echo=None).tpmc, None, ""
    with Monitor(instance, run_dir, interval_s=interval_s) as monitor:
        result = run(spec, options, out_dir=run_dir, echo=None, on_start=monitor.mark_measurement_start)
    status = monitor.stop()
    share, notes = monitor_cost(status, run_dir)
    if status["failed"]:
        notes += f"; FAILED: {status['stopped_reason']}"
    return result.tpmc, share, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measure", type=int, default=30, help="measured seconds per run")
    parser.add_argument("--rampup", type=int, default=5, help="ramp-up seconds per run")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--page-size", default="4k")
    parser.add_argument("--intervals", default="10,1", help="monitor intervals to compare, seconds")
    args = parser.parse_args()
    intervals = [int(part) for part in args.intervals.split(",")]
    configurations = [WITHOUT, *intervals]

    with tempfile.TemporaryDirectory(prefix="pagelab-bench-monitor-") as scratch:
        scratch = Path(scratch)
        dataset = generate(1, 1, cache_dir=scratch / "cache", progress=False)
        instance = Instance(scratch / "instance", args.page_size,
                            settings=ServerSettings(buffer_pool_bytes="64M", flush_method="O_DIRECT"))
        instance.init()
        with instance:
            instance.start()
            load(ConnectionSpec.for_instance(instance), dataset, progress=False)
            instance.stop()
            instance.snapshot()

            tpmc: dict[int | None, list[float]] = {config: [] for config in configurations}
            cpu_share: dict[int, list[float]] = {interval_s: [] for interval_s in intervals}
            for round_number in range(1, args.rounds + 1):
                order = configurations if round_number % 2 else list(reversed(configurations))
                for config in order:
                    options = RunOptions(warehouses=1, connections=args.connections, rampup_s=args.rampup,
                                         measure_s=args.measure, interval_s=10, seed=round_number)
                    run_dir = scratch / f"round{round_number}-{'none' if config is WITHOUT else f'{config}s'}"
                    value, share, notes = one_run(instance, options, config, run_dir)
                    tpmc[config].append(value)
                    if share is not None:
                        cpu_share[config].append(share)
                    print(f"round {round_number}: {label(config)}: {value:9,.0f} TpmC" + (f"   ({notes})" if notes else ""),
                          flush=True)
                ratios = "  ".join(f"{label(i).strip()}: {tpmc[i][-1] / tpmc[WITHOUT][-1]:.4f}" for i in intervals)
                print(f"round {round_number}: with/without  {ratios}", flush=True)

            print(f"\nTpmC median without the monitor: {statistics.median(tpmc[WITHOUT]):,.0f}")
            for interval_s in intervals:
                ratios = [w / wo for w, wo in zip(tpmc[interval_s], tpmc[WITHOUT], strict=True)]
                median = statistics.median(ratios)
                print(f"{label(interval_s)}: median TpmC {statistics.median(tpmc[interval_s]):,.0f}, "
                      f"ratio per round {', '.join(f'{r:.4f}' for r in ratios)}, median {median:.4f} "
                      f"(overhead {100 * (1 - median):+.2f}%; goal <= 1%); the monitor's CPU, client and "
                      f"server: {100 * statistics.median(cpu_share[interval_s]):.2f}% of the machine")


if __name__ == "__main__":
    main()
