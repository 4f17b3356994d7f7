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

    .venv/bin/python bench/bench_within_pooling.py [--sweeps 1000] [--seed 5]
"""

from __future__ import annotations

import argparse
import gc
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=1000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    gc.freeze()  # statsmodels' Holm runs gc.collect() per call (bench_evidence_model.py)
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
            ok = 0.93 <= checks["coverage"] <= 0.97 and low <= 0.05
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
