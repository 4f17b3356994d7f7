"""How often the verdict rule is wrong, on simulated runs: A/A pairs (no difference: how often it
says "faster"/"slower") and A/B pairs (a real difference: how often it finds it), per number of
runs per side, run by run (`compare`) and round by round (`compare_rounds`). The run-to-run
spread is log-normal, as this machine's is; the default 6% is the pooled spread of TpmC across the
quick sweeps measured here (`pagelab stats` prints it as the repeats estimate). On top of it, a
round is slow with probability --slow-rounds, taking --slow-by percent off every run of the round,
as a slow minute of this VM does (one round of nine in a `make demo` sweep of 2026-11-25).

    .venv/bin/python bench/bench_verdicts.py [--spread 0.06] [--difference 10] [--trials 400]
                                             [--slow-rounds 0.1] [--slow-by 12]

Prints, for 3 to 12 runs per side: the false-verdict rate on A/A pairs (goal: at most 5%), and
the rate of correct verdicts for a true difference of --difference percent, both ways.
"""

from __future__ import annotations

import argparse

import numpy as np

from pagelab.evidence.intervals import FASTER, NOT_DISTINGUISHABLE, compare, compare_rounds


def simulated_sweep(runs: int, spread: float, slow_rounds: float, slow_by_pct: float,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two page sizes with no real difference, `runs` rounds each."""
    round_factor = np.where(rng.random(runs) < slow_rounds, 1 - slow_by_pct / 100, 1.0)
    return (round_factor * np.exp(rng.normal(0, spread, runs)),
            round_factor * np.exp(rng.normal(0, spread, runs)))


def rates(runs: int, args, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    counts = {"run by run": [0, 0], "round by round": [0, 0]}
    for _ in range(args.trials):
        a, b = simulated_sweep(runs, args.spread, args.slow_rounds, args.slow_by, rng)
        faster = a * (1 + args.difference / 100)
        for name, judge in (("run by run", lambda x, y: compare(x, y)),
                            ("round by round", lambda x, y: compare_rounds(dict(enumerate(x)), dict(enumerate(y))))):
            counts[name][0] += judge(a, b).verdict != NOT_DISTINGUISHABLE
            counts[name][1] += judge(faster, b).verdict == FASTER
    return {name: (false / args.trials, found / args.trials) for name, (false, found) in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spread", type=float, default=0.06, help="log-normal sigma of a run (default 0.06)")
    parser.add_argument("--difference", type=float, default=10.0, help="true difference for the A/B rate, percent")
    parser.add_argument("--trials", type=int, default=400, help="simulated pairs per row (default 400)")
    parser.add_argument("--slow-rounds", type=float, default=0.1, help="share of rounds that are slow (default 0.1)")
    parser.add_argument("--slow-by", type=float, default=12.0, help="how much a slow round loses, percent (default 12)")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"spread {args.spread:.3f} (log sigma), true difference {args.difference:g}%, {args.trials} pairs per row, "
          f"{100 * args.slow_rounds:g}% of rounds {args.slow_by:g}% slow")
    print("runs/side   A/A false verdicts (goal <= 5%)       A/B difference found")
    print("            run by run   round by round          run by run   round by round")
    for runs in range(3, 13):
        found = rates(runs, args, rng)
        (false_u, power_u), (false_p, power_p) = found["run by run"], found["round by round"]
        print(f"{runs:>9}   {100 * false_u:>9.1f}%   {100 * false_p:>13.1f}%          "
              f"{100 * power_u:>9.1f}%   {100 * power_p:>13.1f}%")


if __name__ == "__main__":
    main()
