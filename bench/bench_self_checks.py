"""How often a sweep's A/A check calls a difference when the design is sound, on real sweeps.

`pagelab stats --checks` splits each page size's rounds by parity, the odd rounds against the even
ones, and judges all of a sweep's A/A comparisons (every page size, every metric) as one family,
with a max-T permutation test over the splits of the rounds (pagelab.evidence.self_checks).

This script takes real bundles and asks what the check says under other splits of their rounds:
the rounds are exchangeable if the design is sound (each round ran every page size, in an order
drawn afresh), so relabelling them at random, the same relabelling for every page size, gives
splits as likely as the one that ran. The share of relabellings with at least one call is the
check's per-sweep false-call rate on this machine's data, per metric and for the sweep as a whole.
The relabellings are the very splits the max-T test ranks, so that share is at most 5% by
construction: more means the check is broken. (Measured on six quick sweeps of 2026-11-26 with
the check's earlier design, a Holm family per metric, it was about 15%.)

    .venv/bin/python bench/bench_self_checks.py [BUNDLE ...] [--splits 100] [--seed 1]

Without bundles it takes the sweeps under data/runs with MIN_ROUNDS rounds or more (`make demo`
writes one); with none there, it says so and exits 0, so that `make bench` runs on a fresh clone.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

from arguments import at_least_one
from pagelab.bundle import read_runs
from pagelab.evidence.self_checks import a_a_table, compared, false_calls
from pagelab.evidence.runs import METRICS

MIN_ROUNDS = 4  # two on each side of the split, the least that gives an interval
RUNS_DIR = Path(__file__).resolve().parent.parent / "data" / "runs"


def relabelled(table, rng: np.random.Generator):
    """The table with its round numbers permuted, one permutation for every page size."""
    rounds = sorted(int(r) for r in table.runs["repeat"].unique())
    mapping = dict(zip(rounds, rng.permutation(rounds).tolist()))
    runs = table.runs.copy()
    runs["repeat"] = runs["repeat"].astype(int).map(mapping)
    return dataclasses.replace(table, runs=runs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles", nargs="*", help=f"sweep bundles (directories with sweep.json); default: those "
                        f"under {RUNS_DIR} with {MIN_ROUNDS} or more rounds")
    parser.add_argument("--splits", type=at_least_one, default=100, help="relabellings per bundle (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    tables = {str(bundle): read_runs(bundle) for bundle in args.bundles}
    if not args.bundles:
        found = {str(path.parent): read_runs(path.parent) for path in sorted(RUNS_DIR.glob("*/sweep.json"))}
        tables = {name: table for name, table in found.items()
                  if not table.runs.empty and table.runs["repeat"].nunique() >= MIN_ROUNDS}
        if not tables:
            print(f"no sweep with {MIN_ROUNDS} or more rounds under {RUNS_DIR}: run `make demo` (it writes one), "
                  f"or name bundles")
            return 0
    calls_as_ran = calls_relabelled = 0
    for bundle, table in tables.items():
        as_ran = false_calls(compared(a_a_table(table)))
        by_metric = {metric.name: 0 for metric in METRICS}
        any_call = 0
        for _ in range(args.splits):
            wrong = false_calls(compared(a_a_table(relabelled(table, rng))))
            any_call += not wrong.empty
            for name in set(wrong["metric"]):
                by_metric[name] += 1
        calls_as_ran += not as_ran.empty
        calls_relabelled += any_call
        rounds = table.runs["repeat"].nunique()
        print(f"{bundle}: {rounds} rounds; as it ran, {len(as_ran)} false call(s)")
        print(f"  {args.splits} relabellings: at least one call in {100 * any_call / args.splits:.0f}% of them "
              f"(the sweep as a whole)")
        print("  per metric: " + ", ".join(f"{name} {100 * count / args.splits:.0f}%" for name, count in by_metric.items()))
    if len(tables) > 1:
        print(f"all {len(tables)} sweeps: {calls_as_ran} made a false call as they ran; the relabellings made one in "
              f"{100 * calls_relabelled / (args.splits * len(tables)):.0f}% of sweeps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
