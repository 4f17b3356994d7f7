"""Do precision weights keep the two-level model's promises? Synthetic sweeps (bench/synthetic.py)
with this machine's components, judged as `pagelab stats` judges a bundle
(bench_evidence_model.judge: the over-time runs' stationary part counted, the components, the model
per pair, the family with its declared primary 16k vs 4k first), once with the blocks weighed
equally and once with `block_weights: precision` (pagelab.evidence.block_weights).

Decided before running (the goals the option must meet to be offered):
- coverage: in every cell, over >= 1,000 sweeps, the 95% intervals of the 3 pairs cover the true
  effects 93-97% of the time;
- the family's false-call rate with no effect at all (any "faster"/"slower" in a sweep) is <= 5%
  (its exact 95% interval reaches 5% or below);
- group-sequential looks (`--add-rounds`, pagelab.evidence.sequential): adding rounds until some
  pair resolves, up to 3 looks, makes a false call in <= 5% of sweeps (same test).

The grid: the pair's floor f (0, 4 %^2, the measured 31 %^2, 100 %^2; the synthetic runs' own f is
half the pair's), the verdict rounds (5, 8, 12) of 100 s, and the over-time runs (1200 s, one per
page size) stationary or with 16k drifting --drift %/min after 600 s (a drift the check misses
often enough to matter: the share it cut is printed). Pair a = 2,721 %^2 s (course-bundle's
16k vs 4k), rounds sharing a 5% swing. True effects 16k -5%, 8k +3% against 4k for coverage and
power, all 0 for the false calls. Beside the two estimators, the primary pair's coverage by two
textbook alternatives computed here from the same blocks (statsmodels combine_effects with
Paule-Mandel tau^2: plain HKSJ, and HKSJ with q >= 1, Roever, Knapp & Friede 2015), to show why
neither was chosen.

    .venv/bin/python bench/bench_block_weights.py [--sweeps 1000] [--seed 7] [--drift 0.5]
                                                  [--sequential-sweeps 1000] [--only coverage|sequential|planner]

--only planner checks `pagelab plan`'s predicted power against the sweeps' for four designs (PLANNED),
with either weighting: the planned power must lie in the simulated share's exact 95% interval.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arguments import at_least_one  # noqa: E402
from bench_evidence_model import EFFECTS, PRIMARY, binomial_ci  # noqa: E402
from synthetic import SyntheticDesign, meets_goals, sweep, true_effect  # noqa: E402

from pagelab.evidence.block_weights import EQUAL, PRECISION  # noqa: E402
from pagelab.evidence.components import variance_components  # noqa: E402
from pagelab.evidence.families import compare_family  # noqa: E402
from pagelab.evidence.intervals import FASTER, SLOWER  # noqa: E402
from pagelab.evidence.model import counted_series, model_effects  # noqa: E402
from pagelab.evidence.sequential import Look, SequentialPlan  # noqa: E402

PAIR_A = 0.2721  # log^2 s, course-bundle's 16k vs 4k
FLOORS_PCT2 = (0.0, 4.0, 31.0, 100.0)  # the pair's f in %^2
ROUNDS = (5, 8, 12)
PAIRS = list(combinations(("4k", "8k", "16k"), 2))


def course_like(floor_pct2: float, rounds: int, drift: float, effects=EFFECTS, run_s: float = 100) -> SyntheticDesign:
    """The course design's shape at a pair's floor f (%^2) and a number of rounds; drift > 0: 16k's
    over-time run drifts that many %/min after 600 s."""
    return SyntheticDesign(rounds=rounds, run_s=run_s, interval_s=10, within_a=PAIR_A / 2,
                           between_f=floor_pct2 / 1e4 / 2, block_sd=0.05, over_time_s=1200, effects=effects,
                           drift_pct_per_min=drift, drift_after_s=600 if drift else 0.0, drifting_sizes=("16k",))


def judged(runs, weights: str, confidence: float = 0.95):
    """The model per pair (later vs earlier) and the family with the primary first."""
    effects = model_effects(runs, ("4k", "8k", "16k"), [(later, earlier) for earlier, later in PAIRS], weights)
    family = compare_family([([], [])] * len(PAIRS), models=effects, primary=PAIRS.index(PRIMARY),
                            confidence=confidence)
    return effects, family


def primary_blocks(runs) -> tuple[np.ndarray, np.ndarray]:
    """The primary pair's blocks as the model sees them: log-ratios d_b and within variances w_b."""
    counted, _ = counted_series(runs)
    components = variance_components(counted, ("4k", "8k", "16k"))
    a = {size.page_size: size.within_a.value for size in components.sizes}
    by = {size: {run.block: run for run in counted if run.page_size == size} for size in ("4k", "16k")}
    blocks = sorted(block for block in by["16k"] if block in by["4k"])
    d = np.array([by["16k"][k].log_mean - by["4k"][k].log_mean for k in blocks])
    w = np.array([a["16k"] / by["16k"][k].measured_s + a["4k"] / by["4k"][k].measured_s for k in blocks])
    return d, w


def textbook(d: np.ndarray, w: np.ndarray) -> dict[str, tuple[float, float]]:
    """(estimate, se) by Paule-Mandel with plain HKSJ and with HKSJ's q >= 1."""
    from statsmodels.stats.meta_analysis import combine_effects

    found = combine_effects(d, w, method_re="pm")
    return {"PM + HKSJ": (found.mean_effect_re, math.sqrt(found.var_hksj_re)),
            "PM + HKSJ q>=1": (found.mean_effect_re, math.sqrt(max(found.var_hksj_re, found.var_eff_w_re)))}


def coverage_cell(floor: float, rounds: int, drift: float, sweeps: int, rng, run_s: float = 100) -> dict:
    design = course_like(floor, rounds, drift, run_s=run_s)
    none = course_like(floor, rounds, drift, (0.0, 0.0, 0.0), run_s)
    truth = {pair: true_effect(design, pair[1], pair[0]) for pair in PAIRS}
    out = {w: {"covered": 0, "called": 0, "false": 0, "half": [], "share": []} for w in (EQUAL, PRECISION)}
    alternatives: dict[str, int] = {}
    cut = 0
    kept = []  # the primary pair's over-time block as one length T_ot (pagelab.evidence.runs.OverTimeKept)
    for _ in range(sweeps):
        runs = sweep(design, rng)
        null_runs = sweep(none, rng)
        over_time = counted_series(runs)[1]
        cut += any(use.counted_s < use.measured_s / 2 for use in over_time if use.page_size == "16k")
        uses = {use.page_size: use.counted_s for use in over_time}
        if min(uses.get("16k", 0.0), uses.get("4k", 0.0)) > 0:
            kept.append(2 / (1 / uses["16k"] + 1 / uses["4k"]))
        for weights, found in out.items():
            effects, family = judged(runs, weights)
            for pair, effect in zip(PAIRS, effects):
                low, high = effect.interval(0.95)
                found["covered"] += low <= truth[pair] <= high
            primary = effects[PAIRS.index(PRIMARY)]
            low, high = primary.interval(0.95)
            found["half"].append(100 * (high - low) / 2)
            found["share"].append(primary.over_time_share or 0.0)
            found["called"] += family[PAIRS.index(PRIMARY)].verdict == SLOWER
            _, family = judged(null_runs, weights)
            found["false"] += any(c.verdict in (FASTER, SLOWER) for c in family)
        d, w = primary_blocks(runs)
        critical = stats.t.isf(0.025, len(d) - 1)
        for name, (estimate, se) in textbook(d, w).items():
            covered, called = alternatives.get(name, (0, 0))
            alternatives[name] = (covered + (abs(estimate - truth[PRIMARY]) <= critical * se),
                                  called + (estimate < -critical * se))
    return {"weights": out, "alternatives": alternatives, "cut": cut, "kept": kept}


def extend_until_resolved(floor: float, rounds: int, looks: int, sweeps: int, weights: str, rng) -> int:
    """Sweeps with no effect in which some look (after rounds, 2 rounds, ... looks x rounds; the
    over-time block counted from the first) called some pair, each look's family at its
    group-sequential level (SequentialPlan.family_confidence, as pagelab stats does)."""
    plans = [SequentialPlan(tuple(Look(k, k * rounds) for k in range(1, j + 1)), looks * rounds, 0.05)
             for j in range(1, looks + 1)]
    # after the primary, the other 2 pairs are a Holm family: the largest a look tests is 2
    levels = [plan.family_confidence(len(PAIRS) - 1) for plan in plans]
    design = course_like(floor, looks * rounds, 0.0, (0.0, 0.0, 0.0))
    calls = 0
    for _ in range(sweeps):
        runs = sweep(design, rng)
        for k in range(1, looks + 1):
            kept = [run for run in runs if run.role == "over_time" or int(run.block[1:]) <= k * rounds]
            _, family = judged(kept, weights, levels[k - 1])
            if any(c.verdict in (FASTER, SLOWER) for c in family):
                calls += 1
                break
    return calls


# The planner's designs checked against sweeps: (rounds, run seconds, the pair's f in %^2) -- the
# course profile as shipped on a quiet machine, the 2-hour design `pagelab plan` finds at the
# measured floor (12 rounds of 60 s), and the 2-hour designs it finds with precision weights at
# f = 0 (6 rounds of 150 s) and at a small f (10 rounds of 80 s), course-bundle's a and costs
PLANNED = ((7, 100, 0.0), (12, 60, 31.0), (6, 150, 0.0), (10, 80, 4.0))


def planner_check(sweeps: int, rng) -> bool:
    """Each PLANNED design's power for 16k 5% slower as `pagelab plan` predicts it (planner.design,
    with each weighting, the over-time block as long as the sweeps' median kept: what `pagelab plan`
    takes from a bundle whose over-time runs kept that; and at all 1200 s, what it assumes from a
    bundle that ran none) beside the share of sweeps that called it, and whether the planned power
    lies in that share's exact 95% interval. True when every one does."""
    from pagelab.evidence import planner

    print("design | f %² | weights | over-time block kept (median) | planned power, kept / 1200 s | simulated "
          "[95%] | planned within")
    agree = True
    for rounds, run_s, floor in PLANNED:
        found = coverage_cell(floor, rounds, 0.0, sweeps, rng, run_s)
        kept = float(np.median(found["kept"]))
        for weights, cell in found["weights"].items():
            planned = [planner.design(PAIR_A, floor / 1e4, planner.Costs(0.0, 0.0, 3), rounds, run_s, 0.05,
                                      -math.log(0.95), extra_blocks=1, over_time_s=length, weights=weights).power
                       for length in (kept, 1200.0)]
            low, high = binomial_ci(cell["called"], sweeps)
            within = low <= planned[0] <= high
            agree &= within
            print(f"{rounds} × {run_s} s | {floor:g} | {weights} | {kept:.0f} s | {100 * planned[0]:.1f}% / "
                  f"{100 * planned[1]:.1f}% | {rate(cell['called'], sweeps)} | {'yes' if within else 'NO'}", flush=True)
    return agree


def rate(hits: int, total: int) -> str:
    low, high = binomial_ci(hits, total)
    return f"{100 * hits / total:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=1000)
    parser.add_argument("--sequential-sweeps", type=at_least_one, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--drift", type=float, default=0.5, help="16k's over-time drift in the drifting cells, %%/min")
    parser.add_argument("--only", choices=("coverage", "sequential", "planner"))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    gc.freeze()  # statsmodels' Holm runs gc.collect() per call (see bench_evidence_model.py)
    failed = False
    started = time.process_time()
    if args.only in (None, "coverage"):
        print(f"{args.sweeps} synthetic sweeps a cell; pair a = {1e4 * PAIR_A:,.0f} %²·s, rounds of 100 s, over-time runs "
              "1200 s; goals: coverage 93-97%, family false calls <= 5%")
        print("f %² | rounds | over-time | weights | coverage (3 pairs) | primary ±half-width | over-time share | "
              "16k vs 4k -5% called | false calls, no effect | goal | primary coverage (and -5% called) by "
              "PM+HKSJ, PM+HKSJ q>=1")
        for drift in (0.0, args.drift):
            for floor in FLOORS_PCT2:
                for rounds in ROUNDS:
                    found = coverage_cell(floor, rounds, drift, args.sweeps, rng)
                    kind = "stationary" if not drift else f"drift {drift:g}%/min (cut {100 * found['cut'] / args.sweeps:.0f}%)"
                    for weights, cell in found["weights"].items():
                        coverage = cell["covered"] / (3 * args.sweeps)
                        low, _ = binomial_ci(cell["false"], args.sweeps)
                        ok = meets_goals(coverage, low)
                        failed |= weights == PRECISION and not ok
                        extra = ("" if weights == EQUAL else " | " + ", ".join(
                            f"{100 * covered / args.sweeps:.1f}% (called {100 * called / args.sweeps:.0f}%)"
                            for covered, called in found["alternatives"].values()))
                        print(f"{floor:5g} | {rounds:2d} | {kind} | {weights:9s} | {100 * coverage:.1f}% | "
                              f"±{np.median(cell['half']):.1f}% | {100 * np.median(cell['share']):.0f}% | "
                              f"{100 * cell['called'] / args.sweeps:.0f}% | {rate(cell['false'], args.sweeps)} | "
                              f"{'ok' if ok else 'FAILS'}{extra}", flush=True)
    if args.only in (None, "planner"):
        print(f"the planner's power against simulated sweeps ({args.sweeps} a design):")
        failed |= not planner_check(args.sweeps, rng)
    if args.only in (None, "sequential"):
        print(f"group-sequential looks, no effect, {args.sequential_sweeps} sweeps a cell: looks after 5, 10, 15 rounds "
              "(max_rounds 15), the over-time block counted from the first, each look's family at its Lan-DeMets "
              "O'Brien-Fleming-type level; goal: a false call in <= 5%")
        for floor in FLOORS_PCT2:
            for weights in (EQUAL, PRECISION):
                calls = extend_until_resolved(floor, 5, 3, args.sequential_sweeps, weights, rng)
                low, _ = binomial_ci(calls, args.sequential_sweeps)
                failed |= weights == PRECISION and low > 0.05
                print(f"f {floor:g} %², {weights}: a false call at some look in {rate(calls, args.sequential_sweeps)}: "
                      f"{'ok' if low <= 0.05 else 'FAILS'}", flush=True)
    print(f"({time.process_time() - started:.0f} s CPU)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
