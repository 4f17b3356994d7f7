"""Extend until resolved: how often adding rounds until a pair says faster or slower makes a false
call, with and without the group-sequential boundaries (pagelab.evidence.sequential).

Synthetic sweeps (bench/synthetic.py) with no page-size effect and this machine's components
(within-run a, between-run floor f, a shared shift per round) are analysed after --rounds rounds;
whatever is not resolved gets --rounds more, up to --looks looks (max_rounds = looks x rounds),
and a sweep counts as a false call if any look calls any pair faster or slower. Three rules:

- naive: every look at the full 5%, as if each were the only one;
- sequential: each look at its Lan-DeMets O'Brien-Fleming-type level (SequentialPlan), the three
  pairs a Holm family at the look's family confidence, as `pagelab stats` judges an extended sweep.

Each rule is applied to the two-stage estimate of each pair (the rounds' log-ratios of run means,
a t-test with rounds - 1 degrees of freedom: the estimator of TpmC's two-level model,
pagelab.evidence.model, without the floor from the within-run component, which only widens its
interval) over --sweeps sweeps, and to pagelab's rank-test rule (`compare_family`: bootstrap
interval and exact signed-rank test, which judges the metrics without interval series) over
--rule-sweeps sweeps (slower: about 0.2 s of CPU a look). With --effect-pct, the same for a true effect of the last page
size against the first, to show what the boundaries cost in power. The goal: the sequential false-
call rate at or under 5%, with its 95% (Clopper-Pearson) interval.

    .venv/bin/python bench/bench_sequential.py [--sweeps 2000] [--rule-sweeps 100] [--rounds 7]
                                               [--looks 3] [--effect-pct 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import time
from itertools import combinations

import numpy as np
from scipy import stats

from arguments import at_least_one
from synthetic import SyntheticDesign, sweep

from pagelab.evidence import FASTER, SLOWER, compare_family
from pagelab.evidence.sequential import Look, SequentialPlan

ALPHA = 0.05


def rounds_of(runs, sizes) -> dict[str, dict[int, float]]:
    """Each page size's run log means, by round number."""
    out: dict[str, dict[int, float]] = {size: {} for size in sizes}
    for run in runs:
        if run.role == "verdict":
            out[run.page_size][int(run.block.removeprefix("r"))] = run.log_mean
    return out


def t_test_calls(by_size, sizes, rounds: int, confidence: float) -> bool:
    """Whether a Holm family of the pairs' t-tests (on the first `rounds` rounds) calls any pair."""
    p_values = []
    for first, second in combinations(sizes, 2):
        d = np.array([by_size[second][r] - by_size[first][r] for r in range(1, rounds + 1)])
        p_values.append(float(stats.ttest_1samp(d, 0.0).pvalue))
    alpha = 1 - confidence
    for step, p in enumerate(sorted(p_values)):  # Holm: the first that fails stops the rest
        if p > alpha / (len(p_values) - step):
            return step > 0
    return True


def rule_calls(by_size, sizes, rounds: int, confidence: float) -> bool:
    """Whether pagelab's verdict rule (a family of round-by-round comparisons) calls any pair."""
    pairs = [({r: math.exp(by_size[second][r]) for r in range(1, rounds + 1)},
              {r: math.exp(by_size[first][r]) for r in range(1, rounds + 1)}) for first, second in combinations(sizes, 2)]
    return any(c.verdict in (FASTER, SLOWER) for c in compare_family(pairs, confidence=confidence))


def extend_until_resolved(design: SyntheticDesign, looks: int, sweeps: int, test, rng) -> dict[str, int]:
    """Sweeps (of looks x rounds each) in which some look called a pair, under each rule."""
    sizes = design.page_sizes
    m = len(sizes) * (len(sizes) - 1) // 2
    plans = [SequentialPlan(tuple(Look(k, k * design.rounds) for k in range(1, j + 1)), looks * design.rounds, ALPHA)
             for j in range(1, looks + 1)]
    sequential_levels = [plan.family_confidence(m) for plan in plans]
    full = SyntheticDesign(**{**design.__dict__, "rounds": looks * design.rounds})
    calls = {"naive": 0, "sequential": 0}
    for _ in range(sweeps):
        by_size = rounds_of(sweep(full, rng), sizes)
        for rule, levels in (("naive", [1 - ALPHA] * looks), ("sequential", sequential_levels)):
            if any(test(by_size, sizes, k * design.rounds, levels[k - 1]) for k in range(1, looks + 1)):
                calls[rule] += 1
    return calls


def rate_text(count: int, total: int) -> str:
    interval = stats.binomtest(count, total).proportion_ci(0.95)
    return f"{100 * count / total:5.1f}% [{100 * interval.low:.1f}%, {100 * interval.high:.1f}%] ({count} of {total})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=2000, help="synthetic sweeps for the t-test rule")
    parser.add_argument("--rule-sweeps", type=at_least_one, default=100, help="synthetic sweeps for pagelab's rule")
    parser.add_argument("--rounds", type=at_least_one, default=7, help="rounds per look (course: 7)")
    parser.add_argument("--looks", type=at_least_one, default=3, help="the most looks (max_rounds = looks x rounds)")
    parser.add_argument("--effect-pct", type=float, default=5.0, help="a true effect for the power part (%%)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    null = SyntheticDesign(rounds=args.rounds)
    print(f"synthetic sweeps: 3 page sizes, {args.rounds} rounds a look of {null.run_s:g} s runs, up to {args.looks} "
          f"looks; within-run a = {null.within_a:g} (log^2 x s), floor f = {null.between_f:g}, round shift sd "
          f"{null.block_sd:g}; no page-size effect")
    plan = SequentialPlan(tuple(Look(k, k * args.rounds) for k in range(1, args.looks + 1)), args.looks * args.rounds,
                          ALPHA)
    print("boundaries: " + ", ".join(f"look {k}: |z| >= {c:.3f}" for k, c in enumerate(plan.boundaries(), start=1)))
    for label, test, sweeps in (("two-stage t-test", t_test_calls, args.sweeps),
                                ("pagelab's verdict rule", rule_calls, args.rule_sweeps)):
        started = time.process_time()
        calls = extend_until_resolved(null, args.looks, sweeps, test, rng)
        print(f"{label}, false-call rate of the family when adding rounds until resolved "
              f"({time.process_time() - started:.0f} s CPU):")
        print(f"  naive, 5% at every look:       {rate_text(calls['naive'], sweeps)}")
        print(f"  sequential boundaries (goal <= 5%): {rate_text(calls['sequential'], sweeps)}")
    if args.effect_pct:
        effect = math.log(1 - args.effect_pct / 100)
        real = SyntheticDesign(rounds=args.rounds, effects=(0.0, 0.0, effect))
        calls = extend_until_resolved(real, args.looks, args.sweeps, t_test_calls, rng)
        print(f"power with 16k truly {args.effect_pct:g}% slower than 4k (two-stage t-test, any pair called, "
              f"{args.sweeps} sweeps):")
        print(f"  naive:      {rate_text(calls['naive'], args.sweeps)}")
        print(f"  sequential: {rate_text(calls['sequential'], args.sweeps)}")


if __name__ == "__main__":
    main()
