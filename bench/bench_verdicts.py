"""How often the verdict rule is wrong, on simulated runs.

Part 1, one pair: A/A pairs (no difference: how often it says "faster"/"slower") and A/B pairs (a
real difference: how often it finds it), per number of runs per side, run by run and round by round.
Part 2, a family: a sweep of --sizes page sizes that are all alike (A/A, 10 pairs for 5 sizes),
judged as pagelab judges a sweep (`compare_family`: Holm-adjusted p, Bonferroni-adjusted intervals):
the family-wise false-call rate (sweeps with at least one "faster"/"slower"; goal <= 5%), how many
pairs reach "equivalent within ±delta", and, with one page size truly --difference percent faster,
the power: the share of its pairs found faster, alone and within the family.

The run-to-run spread is log-normal, as this machine's is; the default 6% is the pooled spread of
TpmC across the quick sweeps measured here (`pagelab stats` prints it as the repeats estimate). On
top of it, a round is slow with probability --slow-rounds, taking --slow-by percent off every run of
the round, as a slow minute of this VM does (one round of nine in a `make demo` sweep of 2026-11-25).

    .venv/bin/python bench/bench_verdicts.py [--spread 0.06] [--difference 10] [--trials 400]
                                             [--family-trials 200] [--sizes 5] [--equivalence 3]
                                             [--slow-rounds 0.1] [--slow-by 12]
"""

from __future__ import annotations

import argparse
from itertools import combinations

import numpy as np

from pagelab.evidence import EQUIVALENT, FASTER, SLOWER, compare, compare_family, compare_rounds


def simulated_rounds(sizes: int, runs: int, spread: float, slow_rounds: float, slow_by_pct: float,
                     rng: np.random.Generator) -> list[np.ndarray]:
    """`sizes` page sizes with no real difference, `runs` rounds each; a slow round slows all of them."""
    round_factor = np.where(rng.random(runs) < slow_rounds, 1 - slow_by_pct / 100, 1.0)
    return [round_factor * np.exp(rng.normal(0, spread, runs)) for _ in range(sizes)]


def pair_rates(runs: int, args, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    counts = {"run by run": [0, 0], "round by round": [0, 0]}
    for _ in range(args.trials):
        a, b = simulated_rounds(2, runs, args.spread, args.slow_rounds, args.slow_by, rng)
        faster = a * (1 + args.difference / 100)
        for name, judge in (("run by run", lambda x, y: compare(x, y, equivalence_pct=args.equivalence)),
                            ("round by round", lambda x, y: compare_rounds(dict(enumerate(x)), dict(enumerate(y)),
                                                                           equivalence_pct=args.equivalence))):
            counts[name][0] += judge(a, b).verdict in (FASTER, SLOWER)
            counts[name][1] += judge(faster, b).verdict == FASTER
    return {name: (false / args.trials, found / args.trials) for name, (false, found) in counts.items()}


def family_rates(runs: int, args, rng: np.random.Generator) -> dict[str, float]:
    """Per simulated sweep of args.sizes page sizes, judged as one family of all pairs."""
    false_families = equivalent_pairs = found_in_family = found_alone = 0
    pairs = list(combinations(range(args.sizes), 2))
    true_pairs = [pair for pair in pairs if 0 in pair]  # page size 0 is the one truly faster
    for _ in range(args.family_trials):
        sizes = simulated_rounds(args.sizes, runs, args.spread, args.slow_rounds, args.slow_by, rng)
        by_round = [dict(enumerate(values)) for values in sizes]
        aa = compare_family([(by_round[j], by_round[i]) for i, j in pairs], equivalence_pct=args.equivalence)
        false_families += any(c.verdict in (FASTER, SLOWER) for c in aa)
        equivalent_pairs += sum(c.verdict == EQUIVALENT for c in aa)
        shifted = [dict(enumerate(values * (1 + args.difference / 100))) if k == 0 else by_round[k]
                   for k, values in enumerate(sizes)]
        ab = compare_family([(shifted[i], shifted[j]) for i, j in pairs], equivalence_pct=args.equivalence)
        found_in_family += sum(c.verdict == FASTER for (i, j), c in zip(pairs, ab) if (i, j) in true_pairs)
        found_alone += sum(compare_rounds(shifted[i], shifted[j], equivalence_pct=args.equivalence).verdict == FASTER
                           for i, j in true_pairs)
    trials, true_count = args.family_trials, args.family_trials * len(true_pairs)
    return {"false_families": false_families / trials, "equivalent": equivalent_pairs / (trials * len(pairs)),
            "power_family": found_in_family / true_count, "power_alone": found_alone / true_count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spread", type=float, default=0.06, help="log-normal sigma of a run (default 0.06)")
    parser.add_argument("--difference", type=float, default=10.0, help="true difference for the A/B rate, percent")
    parser.add_argument("--trials", type=int, default=400, help="simulated pairs per row of part 1 (default 400)")
    parser.add_argument("--family-trials", type=int, default=200, help="simulated sweeps per row of part 2 (default 200)")
    parser.add_argument("--sizes", type=int, default=5, help="page sizes of a simulated sweep (default 5: 10 pairs)")
    parser.add_argument("--equivalence", type=float, default=3.0, help="the margin delta, percent (default 3)")
    parser.add_argument("--slow-rounds", type=float, default=0.1, help="share of rounds that are slow (default 0.1)")
    parser.add_argument("--slow-by", type=float, default=12.0, help="how much a slow round loses, percent (default 12)")
    parser.add_argument("--runs", type=int, nargs="*", default=None, help="runs per side to simulate (default 3-12)")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"spread {args.spread:.3f} (log sigma), true difference {args.difference:g}%, "
          f"{100 * args.slow_rounds:g}% of rounds {args.slow_by:g}% slow, margin ±{args.equivalence:g}%")
    print(f"\n1. One pair ({args.trials} simulated pairs per row)")
    print("runs/side   A/A false verdicts (goal <= 5%)       A/B difference found")
    print("            run by run   round by round          run by run   round by round")
    for runs in args.runs or range(3, 13):
        found = pair_rates(runs, args, rng)
        (false_u, power_u), (false_p, power_p) = found["run by run"], found["round by round"]
        print(f"{runs:>9}   {100 * false_u:>9.1f}%   {100 * false_p:>13.1f}%          "
              f"{100 * power_u:>9.1f}%   {100 * power_p:>13.1f}%")
    pairs = args.sizes * (args.sizes - 1) // 2
    print(f"\n2. A sweep of {args.sizes} page sizes, {pairs} pairs judged as one family "
          f"({args.family_trials} simulated sweeps per row)")
    print("runs/side   A/A sweeps with a false call   A/A pairs equivalent   "
          f"true {args.difference:g}% found: in the family / alone")
    for runs in args.runs or (4, 6, 9, 12):
        found = family_rates(runs, args, rng)
        print(f"{runs:>9}   {100 * found['false_families']:>27.1f}%   {100 * found['equivalent']:>19.1f}%   "
              f"{100 * found['power_family']:>22.1f}% / {100 * found['power_alone']:.1f}%")


if __name__ == "__main__":
    main()
