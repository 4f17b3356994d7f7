"""Do the A/A checks of the two-level model keep their 5%? Synthetic sweeps (bench/synthetic.py)
judged as `pagelab stats --checks` and `pagelab compare` judge TpmC's pairs where the runs kept
interval series: each pair's effect by the model in each half (odd rounds, even rounds) or in each
of two sweeps, and their difference by a Welch-Satterthwaite t-test, the 3 pairs one family
(Bonferroni intervals, Holm p; pagelab.evidence.self_checks.pair_halves and
pagelab.evidence.families.effect_differences).

Decided before running: over >= 1,000 sweeps per design, the share of A/A sweeps with any
"differ" (a false call) is <= 5%: it passes unless its exact 95% interval lies wholly above 5%.
The designs are bench_evidence_model.py's quick and course (7 rounds of 100 s, a drifting over-time
run, which the self-check leaves out and compare counts as the model does), with the true effects
16k -5% and 8k +3% against 4k in every sweep (an A/A keeps the effects, it compares like with
like). For scale it also prints how often each check catches a real change: 16k's effect 10
points lower in the odd rounds, or in the second sweep.

    .venv/bin/python bench/bench_model_checks.py [--sweeps 1000] [--seed 3]
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arguments import at_least_one  # noqa: E402
from bench_evidence_model import COURSE, EFFECTS, SCENARIOS, binomial_ci  # noqa: E402
from synthetic import SyntheticDesign, sweep  # noqa: E402

from pagelab.evidence.families import DIFFER, effect_differences  # noqa: E402
from pagelab.evidence.model import model_effects  # noqa: E402
from pagelab.evidence.self_checks import pair_halves  # noqa: E402

DESIGNS = {"quick (9 rounds of 9 s)": SCENARIOS["quick (9 rounds of 9 s)"],
           "course (7 rounds of 100 s, over-time runs)": COURSE}
SHIFT = math.log(0.90)  # the planted change in 16k's effect


def _with(design: SyntheticDesign, effects: tuple[float, ...]) -> SyntheticDesign:
    return replace(design, effects=effects)


def _shifted(effects: tuple[float, ...]) -> tuple[float, ...]:
    return effects[:-1] + (effects[-1] + SHIFT,)


def _rounds(runs) -> dict[str, int]:
    return {run.run: int(run.block[1:]) for run in runs if run.role == "verdict"}


def self_check_calls(design: SyntheticDesign, rng: np.random.Generator, planted: bool) -> bool:
    """One sweep's odd/even check: True when any pair's effect differs between the halves. Planted:
    the odd rounds ran with 16k's effect SHIFT lower."""
    runs = sweep(_with(design, EFFECTS), rng)
    if planted:
        odd = [run for run in sweep(_with(design, _shifted(EFFECTS)), rng)
               if run.role == "verdict" and int(run.block[1:]) % 2 == 1]
        runs = odd + [run for run in runs if run.role == "verdict" and int(run.block[1:]) % 2 == 0]
    found = pair_halves(runs, _rounds(runs), design.page_sizes, 3.0)
    return bool((found["word"] == DIFFER).any())


def compare_calls(design: SyntheticDesign, rng: np.random.Generator, planted: bool) -> bool:
    """Two sweeps of one design compared: True when any pair's effect differs between them."""
    pairs = list(combinations(design.page_sizes, 2))
    wanted = [(later, earlier) for earlier, later in pairs]
    first = model_effects(sweep(_with(design, EFFECTS), rng), design.page_sizes, wanted)
    second = model_effects(sweep(_with(design, _shifted(EFFECTS) if planted else EFFECTS), rng), design.page_sizes,
                           wanted)
    found = effect_differences([(([], []), ([], []))] * len(pairs), models=list(zip(first, second)))
    return any(d.word == DIFFER for d in found)


def rate(check, design: SyntheticDesign, sweeps: int, rng: np.random.Generator, planted: bool = False):
    hits = sum(check(design, rng, planted) for _ in range(sweeps))
    low, high = binomial_ci(hits, sweeps)
    return hits / sweeps, low, high


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=1000)
    parser.add_argument("--planted-sweeps", type=at_least_one, default=200,
                        help="sweeps for how often a real change is caught")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    gc.freeze()  # statsmodels' Holm runs gc.collect() per call (see bench_evidence_model.py)
    failed = False
    print(f"{args.sweeps} synthetic A/A sweeps (pairs of sweeps for compare) per design; goal: a false call in <= 5%")
    for name, design in DESIGNS.items():
        for what, check in (("odd/even self-check", self_check_calls), ("compare of two sweeps", compare_calls)):
            share, low, high = rate(check, design, args.sweeps, rng)
            caught, *_ = rate(check, design, args.planted_sweeps, rng, planted=True)
            ok = low <= 0.05
            failed |= not ok
            print(f"{name}, {what}: a false call in {100 * share:.1f}% of sweeps [{100 * low:.1f}%, "
                  f"{100 * high:.1f}%] (Clopper-Pearson 95%); 16k's effect 10% lower caught in {100 * caught:.0f}% "
                  f"of {args.planted_sweeps}: {'ok' if ok else 'FAILS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
