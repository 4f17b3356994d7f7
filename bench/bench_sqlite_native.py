"""SQLite experiment 053's goals for the native (C) timing path: its run-to-run spread, a verdict per benchmark
against the experiment's, and the notebook's wall time with its defaults.

Runs `pagelab.workloads.sqlite.run.run_sqlite_bench` on both paths (the notebook
notebooks/sqlite_page_size.ipynb calls the same function) and prints:

1. per benchmark and page size, the native path's spread: max/min of the repeats x runs samples
   (goal: <= 5% on an idle machine, so that the experiment's 16% is resolvable), for the wall-clock
   mean per iteration (time_ms), the CPU time (cpu_ms) and the fastest iteration (best_ms); the
   same for the Python path; and the machine's load average before and after, since other work
   on a shared machine is what widens it;
2. per path, the experiment's table beside ours: the 8192 delta with its 95% interval, our verdict
   (pagelab.evidence) and what the interval says of the experiment's delta;
3. the share of the Python path's time the native path accounts for;
4. the B-tree (dbstat) beside the native times;
5. the notebook's wall time with its defaults (goal: <= 3 minutes), unless --skip-notebook.

Usage: .venv/bin/python bench/bench_sqlite_native.py [--page-sizes 4096,8192] [--rows 10000]
            [--repeats 3] [--runs 2] [--sample-seconds 0.25] [--skip-notebook]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import pandas as pd
from bench_sqlite import add_workload_arguments

from pagelab.report.execute import execute_notebook
from pagelab.common.paths import NOTEBOOKS_DIR, PROJECT_ROOT
from pagelab.workloads.sqlite import benchmarks as sqlite_benchmarks
from pagelab.workloads.sqlite import report as sqlite_report
from pagelab.workloads.sqlite import run as sqlite_run

SPREAD_GOAL_PCT = 5.0  # the goal: max/min of the 6 runs within 5%, against a 16% effect
NOTEBOOK_GOAL_S = 180.0  # the notebook with its defaults in at most 3 minutes
NOTEBOOK = "sqlite_page_size.ipynb"


def spread_lines(result: sqlite_run.SqliteBenchResult, path: str) -> list[str]:
    lines = [f"{path}: max/min of the samples - 1 (goal for native: <= {SPREAD_GOAL_PCT:g}%)"]
    tables = {measure: sqlite_report.timing_summary(result.samples_of(path), measure).set_index(
        ["benchmark", "page_size_bytes"]) for measure in sqlite_benchmarks.MEASURES}
    for (name, size), row in tables["time_ms"].iterrows():
        cpu, best = tables["cpu_ms"].loc[(name, size)], tables["best_ms"].loc[(name, size)]
        mark = "ok" if row["spread_pct"] <= SPREAD_GOAL_PCT else "over"
        lines.append(f"  {name:<34} {size:>6}  median {row['median_ms']:8.3f} ms  spread {row['spread_pct']:5.1f}% "
                     f"({mark})   cpu_ms {cpu['spread_pct']:5.1f}%   best_ms {best['spread_pct']:5.1f}%  "
                     f"[{row['samples']} samples]")
    return lines


def verdict_lines(result: sqlite_run.SqliteBenchResult, path: str, measure: str) -> list[str]:
    """Per page size against 4096: each benchmark's delta [95% interval] and verdict; at 8192,
    the experiment's delta and what our interval says of it."""
    delta = result.delta(measure=measure, path=path)
    checks = sqlite_report.seed_comparison(delta)
    lines = [f"{path}, {measure}: {result.summary_line(measure=measure, path=path).replace(chr(10), '; ')}"]
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        lines.append(f"  {size} against {int(rows['baseline_page_size_bytes'].iloc[0])}:")
        for row in rows.itertuples():
            text = (f"    {row.benchmark:<34} {row.delta_pct:+6.1f}% [{row.delta_ci_low_pct:+6.1f}%, "
                    f"{row.delta_ci_high_pct:+6.1f}%] {row.verdict:<19}")
            if size == sqlite_benchmarks.SEED_OTHER_PAGE_SIZE and row.benchmark in checks.index:
                seed = checks.loc[row.benchmark]
                seed_from, seed_to = seed["seed_delta_pct_from"], seed["seed_delta_pct_to"]
                if not pd.isna(seed_from):
                    text += (f" experiment {seed_from:+.0f}%" if seed_from == seed_to else
                             f" experiment {seed_from:+.0f} to {seed_to:+.0f}%") + f": {seed['seed_check']}"
            text += f"  (samples a side for ±5%: {row.samples_needed})"
            lines.append(text)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_workload_arguments(parser)
    parser.add_argument("--skip-notebook", action="store_true", help="do not time the notebook")
    args = parser.parse_args()
    page_sizes = [int(size) for size in args.page_sizes.split(",") if size.strip()]

    load_before = os.getloadavg()
    started = time.perf_counter()
    result = sqlite_run.run_sqlite_bench(page_sizes, rows=args.rows, repeats=args.repeats, runs=args.runs,
                                         min_sample_seconds=args.sample_seconds, progress=True)
    wall = time.perf_counter() - started
    settings = result.settings
    print(f"SQLite {settings['sqlite_version']} (C module linked with {settings['native_sqlite_version']}), WAL, "
          f"synchronous={settings['synchronous']}, mmap_size={settings['mmap_bytes'] // 2**20} MiB, "
          f"{settings['rows']:,} rows; {settings['repeats']} repeats x {settings['runs']} runs; "
          f"dbstat: {settings['dbstat']} (C module's library: {settings['native_dbstat']})")
    print(f"iterations per sample: {settings['iterations']}")
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min) before the run {load_before[0]:.2f} {load_before[1]:.2f} "
          f"{load_before[2]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print("\n1. run-to-run spread")
    for path in settings["paths"]:
        print("\n".join(spread_lines(result, path)))
    if len(page_sizes) > 1:
        print("\n2. verdicts against 4096, and at 8192 beside the experiment's")
        for path in settings["paths"]:
            for measure in ("time_ms", "best_ms"):
                print("\n".join(verdict_lines(result, path, measure)))
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 3):
        if set(sqlite_benchmarks.PATHS) <= set(settings["paths"]):
            print("\n3. the native path's share of the Python path's time (medians, time_ms)")
            shares = sqlite_report.share_table(result.samples)
            print(shares[["benchmark", "page_size_bytes", "native_ms", "python_ms", "native_share_pct",
                          "share_ci_low_pct", "share_ci_high_pct", "python_adds_us_per_row"]].to_string(index=False))
        print("\n4. the B-tree beside the times")
        print(sqlite_report.btree_beside_times(result.btree, result.samples).to_string(index=False))
    print(f"\n   the run: {wall:.1f} s wall for {len(result.samples)} samples")
    if not args.skip_notebook:
        with tempfile.TemporaryDirectory(prefix="bench-sqlite-notebook-") as scratch:
            started = time.perf_counter()
            execute_notebook(NOTEBOOKS_DIR / NOTEBOOK, Path(scratch) / NOTEBOOK, parameters={"progress": False},
                             cwd=PROJECT_ROOT)
            notebook_wall = time.perf_counter() - started
        mark = "ok" if notebook_wall <= NOTEBOOK_GOAL_S else "over"
        print(f"\n5. the notebook with its defaults: {notebook_wall:.0f} s wall "
              f"(goal <= {NOTEBOOK_GOAL_S:.0f} s: {mark})")


if __name__ == "__main__":
    main()
