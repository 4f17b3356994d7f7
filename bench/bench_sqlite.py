"""SQLite's experiment 053 on this machine: page_size 4096 against 8192 (or other sizes), its benchmarks.

Runs `pagelab.workloads.sqlite.run.run_sqlite_bench` on the Python path (the notebook
notebooks/sqlite_page_size.ipynb calls the same function; bench_sqlite_native.py measures the
native path's goals) and prints:

1. timings per benchmark and page size: median with its interval and min-max over repeats x runs
   samples, for the wall-clock mean per iteration (the experiment's kind), CPU time, and each sample's
   fastest iteration;
2. the delta table in the experiment's style with its "N faster, M slower" line, for each measure,
   and the experiment's numbers beside ours;
3. the B-tree per page size (dbstat) and the WAL frames per write transaction;
4. how long the run took.

Usage: .venv/bin/python bench/bench_sqlite.py [--page-sizes 4096,8192] [--rows 10000]
                                              [--repeats 3] [--runs 2] [--sample-seconds 0.25]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from arguments import at_least_one

from pagelab.report.labels import plain
from pagelab.workloads.sqlite import benchmarks as sqlite_benchmarks
from pagelab.workloads.sqlite import report as sqlite_report
from pagelab.workloads.sqlite import run as sqlite_run

REFERENCE = "the experiment"  # what the tables call experiment 053's own numbers


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    """The SQLite workload's size and timing, shared with bench_sqlite_native.py."""
    parser.add_argument("--page-sizes", default="4096,8192", help="comma-separated bytes (default 4096,8192)")
    parser.add_argument("--rows", type=at_least_one, default=sqlite_run.ROWS)
    parser.add_argument("--repeats", type=at_least_one, default=sqlite_run.REPEATS)
    parser.add_argument("--runs", type=at_least_one, default=sqlite_run.RUNS)
    parser.add_argument("--sample-seconds", type=float, default=sqlite_run.MIN_SAMPLE_SECONDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_workload_arguments(parser)
    args = parser.parse_args()
    page_sizes = [int(size) for size in args.page_sizes.split(",") if size.strip()]

    started = time.perf_counter()
    result = sqlite_run.run_sqlite_bench(page_sizes, paths=["python"], rows=args.rows, repeats=args.repeats,
                                         runs=args.runs, min_sample_seconds=args.sample_seconds, progress=True)
    wall = time.perf_counter() - started
    settings = result.settings
    print(f"SQLite {settings['sqlite_version']}, WAL, synchronous={settings['synchronous']}, "
          f"mmap_size={settings['mmap_bytes'] // 2**20} MiB, {settings['rows']:,} rows; "
          f"{settings['repeats']} repeats x {settings['runs']} runs; iterations per sample: {settings['iterations']}")
    print("page sizes as SQLite reports them (PRAGMA / file header): "
          + ", ".join(f"{row.page_size_bytes}: {row.page_size_pragma}/{row.page_size_header}"
                      for row in result.databases.drop_duplicates("page_size_bytes").itertuples()))
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 3):
        for measure in sqlite_benchmarks.MEASURES:
            timings = sqlite_report.timing_summary(result.samples, measure)
            print(f"\n1. {measure}: per iteration, median with its interval, and min-max over the samples")
            print(plain(timings[["benchmark", "page_size_bytes", "iterations", "median_ms", "ci_low_ms", "ci_high_ms",
                                 "min_ms", "max_ms", "spread_pct", "us_per_row"]], REFERENCE).to_string(index=False))
            delta = sqlite_report.delta_table(result.samples, measure=measure)
            print(f"\n2. {measure}: {sqlite_report.summary_line(delta)}")
            print(plain(sqlite_report.seed_style_table(delta), REFERENCE).to_string())
        print("\n   the experiment's numbers beside ours (time per iteration):")
        print(plain(sqlite_report.seed_comparison(result.delta(path="python")), REFERENCE).to_string())
        print("\n3. B-tree per page size (dbstat)")
        print(plain(sqlite_report.btree_summary(result.btree), REFERENCE).to_string(index=False))
        print("\n   WAL frames per write transaction")
        print(plain(sqlite_report.wal_frames_summary(result.wal_frames, result.btree), REFERENCE).to_string(index=False))
    print(f"\n4. {wall:.1f} s wall for {len(result.samples)} samples")


if __name__ == "__main__":
    main()
