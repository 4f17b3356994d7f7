"""How often the verdict rule is wrong, on simulated runs: A/A pairs (no difference: how often it
says "faster"/"slower") and A/B pairs (a real difference: how often it finds it), per number of
runs per side. The run-to-run spread is log-normal, as this machine's is; the default 6% is the
pooled spread of TpmC across the quick sweeps measured here (`pagelab stats` prints it as the
repeats estimate).

    .venv/bin/python bench/bench_verdicts.py [--spread 0.06] [--difference 10] [--trials 400]

Prints, for 3 to 8 runs per side: the false-verdict rate on A/A pairs (goal: at most 5%), and
the rate of correct verdicts for a true difference of --difference percent.
"""

from __future__ import annotations

import argparse

import numpy as np

from pagelab.evidence.intervals import FASTER, NOT_DISTINGUISHABLE, compare


def rates(runs: int, spread: float, difference_pct: float, trials: int, rng: np.random.Generator) -> tuple[float, float]:
    false_verdicts = found = 0
    for _ in range(trials):
        a, b = np.exp(rng.normal(0, spread, runs)), np.exp(rng.normal(0, spread, runs))
        false_verdicts += compare(a, b).verdict != NOT_DISTINGUISHABLE
        faster = a * (1 + difference_pct / 100)
        found += compare(faster, b).verdict == FASTER
    return false_verdicts / trials, found / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spread", type=float, default=0.06, help="log-normal sigma of a run (default 0.06)")
    parser.add_argument("--difference", type=float, default=10.0, help="true difference for the A/B rate, percent")
    parser.add_argument("--trials", type=int, default=400, help="simulated pairs per row (default 400)")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"spread {args.spread:.3f} (log sigma), true difference {args.difference:g}%, {args.trials} pairs per row")
    print("runs/side   A/A false verdicts (goal <= 5%)   A/B difference found")
    for runs in range(3, 9):
        false_rate, power = rates(runs, args.spread, args.difference, args.trials, rng)
        print(f"{runs:>9}   {100 * false_rate:>30.1f}%   {100 * power:>19.1f}%")


if __name__ == "__main__":
    main()
