"""Does a page size's within-run a rest on all its runs? The rule before (one batch size for all
of a page size's runs, chosen by the lag-1 test on their pooled batch means) against the rule now
(pagelab.evidence.components: the batch size chosen per group of alike runs -- the verdict runs
together, each over-time run alone -- and the groups' a pooled by their degrees of freedom), on
synthetic sweeps with known a and f (bench/synthetic.py), each judged as `pagelab stats` judges a
bundle (the over-time runs as far as pagelab.evidence.model.counted_series lets them count).

Decided before running:
- (a) 4k's estimated a against the true a: the 10th, 50th, 90th and 99th percentiles of a_hat / a,
  the share of sweeps with a_hat > 3 a, and a's degrees of freedom, before and after; after, no
  sweep in 100 above 3 a in any cell (the failure: one run's a set on 2 df);
- (b) after: each pair's 95% interval covers the true effect 93-97% of the time (the true effects
  16k -5%, 8k +3% against 4k), and the family's false calls with no effect are <= 5% (the exact 95%
  interval reaches 5%), as bench/bench_evidence_model.py decides them (its `run`, reused).

Cells (each --sweeps sweeps): the course design (7 rounds of 100 s in 10 s intervals, a = 3,200
%²·s, a floor of 1.6%, then 1200 s over-time runs) with stationary over-time runs; with 4k's
over-time run drifting 1%/min from its start (MSER-5 cuts its start as warm-up and the 10-batch drift
test lets the rest count in about half the sweeps, as it let course-full's 4k run, +2.2%/min at p
0.061: the column 'counted whole'); and that drift with AR(1)
intervals (0.5), whose verdict runs' batch means stay correlated at 2 intervals as course-full's 4k
runs' did (lag-1 +0.34) -- the case where one batch size for all the runs grows until only the
over-time run fills it. The tail (the 99th percentile, the share of sweeps with a_hat > 3a) is
where the rule before failed; the median is where 100 s runs of correlated intervals leave any
batch-means rule low (runs too short to batch past the correlation: the note `pagelab stats` prints).

Then (--only groups, --only planner) each block's w from the a of its runs' group
(pagelab.evidence.components.SizeComponents.role_a) against the pooled a for every block (the rule
before), where the verdict runs' a is 4 times the over-time runs' (course-full measured 3.6-8 times:
8k 4,281 against 772 %²·s): the course design at bench/bench_block_weights.py's pair a (2,721 %²·s
a pair, now the verdict runs'), 7 rounds of 100 s and a stationary 1200 s over-time block, the
pair's f 0 and 31 %²; decided before running: the 3 pairs' 95% intervals cover 93-97% and the
family's false calls are <= 5% (the exact interval reaching 5%), with equal and precision weights,
after; before is printed beside. --only planner: `pagelab plan`'s predicted power (planner.design,
the rounds at the verdict runs' a, the over-time block at the over-time runs'; before, both at the
pooled a the bundle would give, its median over the sweeps) against the sweeps' for two designs;
after, each planned power inside the simulated share's exact 95% interval.

Measured (1,000 sweeps a cell, --seed 5; 95% exact intervals; equal / precision weights):

    f %²  rule    coverage of 3 pairs    family false calls     power 16k -5%
    0     before  95.1% / 96.0%          4.3% / 3.3%            72.2% / 73.3%
    0     after   95.6% / 96.4%          3.9% / 2.9%            72.2% / 75.1%
    31    before  95.2% / 95.4%          5.6% / 5.5%            39.9% / 39.9%
    31    after   95.3% / 95.3%          5.6% [4.3, 7.2] / 5.4% [4.1, 7.0]   39.9% / 40.3%

    planner: design, f    planned power before (pooled a 1,416 %²·s both)  after (2,721 / 680)  simulated after
    7 × 100 s, f 0        93.7% / 95.4%                                   72.2% / 76.4%         72.2% / 75.1%
    12 × 60 s, f 31 %²    64.7% / 65.2%                                   51.3% / 52.3%         50.5% / 51.9%

The intervals were already honest with the pooled a (S^2 estimates mean(w + f) whatever w is; w
enters through the floor and the precision weights only): with each group's a the precision
weights give the quiet over-time block more weight (power +1.8 points at f 0). The planner is where
the pooled a misled: priced a 100 s round at half its a and overstated the power by 14-22 points,
every figure outside the sweeps' interval; with each group's a every figure lies inside.

    .venv/bin/python bench/bench_within_pooling.py [--sweeps 1000] [--seed 5] [--only pooling|groups|planner]
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arguments import at_least_one  # noqa: E402
from bench_evidence_model import COURSE, run  # noqa: E402
from synthetic import sweep  # noqa: E402

import pagelab.evidence.components as components  # noqa: E402
from pagelab.evidence.model import counted_series  # noqa: E402
from pagelab.evidence.block_weights import EQUAL, PRECISION  # noqa: E402
from pagelab.evidence.intervals import FASTER, SLOWER  # noqa: E402
from bench_block_weights import PAIR_A, PAIRS, course_like, judged  # noqa: E402
from bench_evidence_model import PRIMARY, binomial_ci  # noqa: E402
from synthetic import meets_goals, true_effect  # noqa: E402

STEADY = replace(COURSE, drift_pct_per_min=0.0, drifting_sizes=())
DRIFTING = replace(COURSE, drift_pct_per_min=1.0, drift_after_s=0.0, drifting_sizes=("4k",))
CELLS = {"stationary over-time runs": STEADY,
         "4k's over-time run drifts 1%/min": DRIFTING,
         "AR(1) 0.5 intervals, 4k drifts 1%/min": replace(DRIFTING, ar1=0.5)}
SIZE = "4k"


@contextmanager
def rule(before: bool):
    """The rule before: one group of all a page size's runs (what within_parts did not yet split)."""
    if not before:
        yield
        return
    kept = components.within_parts
    components.within_parts = lambda runs, confidence=components.CONFIDENCE: [components._group_within(runs, confidence)]
    try:
        yield
    finally:
        components.within_parts = kept


def a_spread(design, sweeps: int, rng: np.random.Generator) -> dict:
    """4k's a_hat / a and its dof, before and after, from the same sweeps."""
    found = {True: ([], []), False: ([], [])}
    whole = []  # whether 4k's over-time run counted whole (the drift test found no drift)
    for _ in range(sweeps):
        counted, uses = counted_series(sweep(design, rng))
        runs = [r for r in counted if r.page_size == SIZE]
        whole.append(any(u.page_size == SIZE and u.counted_s > u.measured_s / 2 for u in uses))
        for before in (True, False):
            a, _, _ = components.within_component(runs, groups=not before)
            found[before][0].append(a.value / design.within_a)
            found[before][1].append(a.dof)
    whole = np.array(whole)
    return {before: (np.percentile(ratios, [10, 50, 90, 99]), float(np.mean(np.array(ratios) > 3)),
                     float(np.median(dofs)), float(whole.mean()),
                     float(np.median(np.array(ratios)[whole])) if whole.any() else float("nan"))
            for before, (ratios, dofs) in found.items()}


# --- each block's a from its group --------------------------------------------------------------

RATIO = 4.0  # the verdict runs' a over the over-time runs'
GROUP_FLOORS = (0.0, 31.0)  # the pair's f, %^2
# (rounds, run seconds, the pair's f in %^2): the course profile as shipped, and a 2-hour design
GROUP_PLANNED = ((7, 100, 0.0), (12, 60, 31.0))


def groups_design(floor: float, rounds: int = 7, run_s: float = 100, effects=None):
    design = course_like(floor, rounds, 0.0, run_s=run_s) if effects is None else \
        course_like(floor, rounds, 0.0, effects, run_s)
    return replace(design, over_time_within_a=design.within_a / RATIO)


@contextmanager
def pooled_for_every_block(before: bool):
    """The rule before: every run's a the page size's pooled a, whatever its group."""
    if not before:
        yield
        return
    kept = components.SizeComponents.role_a
    components.SizeComponents.role_a = lambda self, role: self.within_a
    try:
        yield
    finally:
        components.SizeComponents.role_a = kept


def groups_cell(design, sweeps: int, rng) -> dict:
    """Per rule and weights: the 3 pairs' coverage, the primary's calls (16k 5% slower), the family's
    false calls with no effect; and per rule the primary pair's pooled a (log^2 s, its median)."""
    none = replace(design, effects=(0.0, 0.0, 0.0))
    truth = {pair: true_effect(design, pair[1], pair[0]) for pair in PAIRS}
    out = {(before, w): {"covered": 0, "called": 0, "false": 0} for before in (True, False) for w in (EQUAL, PRECISION)}
    pooled = []
    for _ in range(sweeps):
        runs, null_runs = sweep(design, rng), sweep(none, rng)
        counted, _ = counted_series(runs)
        sizes = components.variance_components(counted, ("4k", "8k", "16k"))
        pooled.append(sizes.size("16k").within_a.value + sizes.size("4k").within_a.value)
        for (before, weights), found in out.items():
            with pooled_for_every_block(before):
                effects, family = judged(runs, weights)
                _, null_family = judged(null_runs, weights)
            for pair, effect in zip(PAIRS, effects):
                low, high = effect.interval(0.95)
                found["covered"] += low <= truth[pair] <= high
            found["called"] += family[PAIRS.index(PRIMARY)].verdict == SLOWER
            found["false"] += any(c.verdict in (FASTER, SLOWER) for c in null_family)
    return {"cells": out, "pooled_a": float(np.median(pooled))}


def rate(hits: int, total: int) -> str:
    low, high = binomial_ci(hits, total)
    return f"{100 * hits / total:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def groups_check(sweeps: int, seed: int) -> bool:
    print(f"{sweeps} synthetic sweeps a cell; the verdict runs' a {RATIO:g}x the over-time runs' (pair a "
          f"{1e4 * PAIR_A:,.0f} %²·s in the rounds, {1e4 * PAIR_A / RATIO:,.0f} in the over-time block); 7 rounds of "
          "100 s, a 1200 s over-time block; goal after: coverage 93-97%, false calls <= 5%")
    print("f %² | weights | rule | coverage of 3 pairs [95%] | false calls [95%] | power 16k -5% | ok")
    ok = True
    for floor in GROUP_FLOORS:
        found = groups_cell(groups_design(floor), sweeps, np.random.default_rng(seed))
        for (before, weights), cell in found["cells"].items():
            covered = cell["covered"] / (3 * sweeps)
            low = binomial_ci(cell["false"], sweeps)[0]
            good = meets_goals(covered, low)
            ok &= good or before
            print(f"{floor:g} | {weights} | {'before' if before else 'after'} | {rate(cell['covered'], 3 * sweeps)} | "
                  f"{rate(cell['false'], sweeps)} | {100 * cell['called'] / sweeps:.1f}% | "
                  f"{'' if before else ('ok' if good else 'FAILS')}", flush=True)
    return ok


def groups_planner_check(sweeps: int, seed: int) -> bool:
    """The planner's power for 16k 5% slower, the rounds at the verdict runs' a and the over-time
    block at the over-time runs' (after) or both at the pooled a (before), beside the sweeps' share
    called with the same rule; the over-time block as long as the sweeps' median kept."""
    from pagelab.evidence import planner

    print("design | f %² | weights | rule | a rounds / over-time (%²·s) | planned power | simulated [95%] | "
          "planned within")
    ok = True
    for rounds, run_s, floor in GROUP_PLANNED:
        design = groups_design(floor, rounds, run_s)
        rng = np.random.default_rng(seed)
        found = groups_cell(design, sweeps, rng)
        kept = []
        for _ in range(200):  # what of the 1200 s the drift check keeps, as bench_block_weights measures it
            uses = {u.page_size: u.counted_s for u in counted_series(sweep(design, rng))[1]}
            kept.append(2 / (1 / uses["16k"] + 1 / uses["4k"]))
        kept_s = float(np.median(kept))
        for (before, weights), cell in found["cells"].items():
            a, a_ot = (found["pooled_a"],) * 2 if before else (PAIR_A, PAIR_A / RATIO)
            planned = planner.design(a, floor / 1e4, planner.Costs(0.0, 0.0, 3), rounds, run_s, 0.05,
                                     -math.log(0.95), extra_blocks=1, over_time_s=kept_s, weights=weights,
                                     over_time_a=a_ot).power
            low, high = binomial_ci(cell["called"], sweeps)
            within = low <= planned <= high
            ok &= within or before
            print(f"{rounds} × {run_s} s | {floor:g} | {weights} | {'before' if before else 'after'} | "
                  f"{1e4 * a:,.0f} / {1e4 * a_ot:,.0f} | {100 * planned:.1f}% | {rate(cell['called'], sweeps)} | "
                  f"{'yes' if within else 'NO'}", flush=True)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=1000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--only", choices=("pooling", "groups", "planner"))
    args = parser.parse_args()
    gc.freeze()  # statsmodels' Holm runs gc.collect() per call (bench_evidence_model.py)
    if args.only == "groups":
        return 0 if groups_check(args.sweeps, args.seed) else 1
    if args.only == "planner":
        return 0 if groups_planner_check(args.sweeps, args.seed) else 1
    failed = False
    print(f"{args.sweeps} synthetic sweeps per cell; {SIZE}'s a_hat / a: median [10th, 90th] 99th percentile, share "
          "above 3 (median dof), the share of sweeps whose 4k over-time run counted whole: the median a_hat / a in them; coverage goal 93-97%, family false calls <= 5%")
    print(f"{'cell':38} {'rule':6} {'a_hat/a':>30} {'>3a':>5} {'dof':>4} {'counted whole':>17} {'coverage':>8} "
          f"{'half-width':>10} {'false calls':>21}")
    for name, design in CELLS.items():
        spread = a_spread(design, args.sweeps, np.random.default_rng(args.seed))
        for before in (True, False):
            with rule(before):
                checks = run(design, args.sweeps, np.random.default_rng(args.seed + 1))
            (p10, p50, p90, p99), above, dof, whole, whole_median = spread[before]
            low, high = checks["false_ci"]
            ok = meets_goals(checks["coverage"], low)
            if not before:
                ok = ok and above < 0.01
                failed |= not ok
            print(f"{name:38} {'before' if before else 'after':6} {p50:6.2f} [{p10:5.2f}, {p90:5.2f}] {p99:6.2f} "
                  f"{100 * above:4.1f}% {dof:4.0f} {100 * whole:4.0f}%: {whole_median:5.2f}    "
                  f"{100 * checks['coverage']:8.1f}% {checks['half_width']:9.1f}  {100 * checks['false_rate']:5.1f}% "
                  f"[{100 * low:.1f}%, {100 * high:.1f}%] {'' if before else ('ok' if ok else 'FAILS')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
