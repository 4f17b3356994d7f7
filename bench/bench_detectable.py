"""The smallest effect a bundle's design finds with 80% power, per pair, by the analysis before the
two-level model and by the model: what the model bought for the design the bundle ran.

From the bundle's own variance components (pagelab.evidence.components: each pair's within-run a
and between-run floor f, its rounds and run length), synthetic sweeps of that pair are drawn
(bench/synthetic.py: each page size's within-run a half the pair's, its floor half the pair's;
the over-time runs, where the bundle's counted, as one more block of the length that counted,
without drift). On the same sweeps, shifted by a true effect (a shift of every run's log rate,
so the same draws serve every effect), two analyses:

- before: one number per run (its TpmC), the exact rank test the pair had (Wilcoxon signed-rank
  round by round from MIN_ROUNDS_FOR_PAIRED rounds, else Mann-Whitney), at Holm's first step over
  the bundle's pairs (alpha / m: the level a pair must reach when the others show nothing). The
  call also needed its bootstrap interval to agree, so this is the lower bound of what it needed;
- after: the two-level model (pagelab.evidence.model.pair_effect, its floor included), its t-test
  at the level the family gives the pair: the declared primary at the full alpha, the others at
  alpha / (m - 1) after the gate (Holm's first step among them, given the primary was called);
  without a primary, alpha / m.

The effect with 80% power is found by bisection on the simulated power (a rank test has no
closed form). Beside it, the model's design by formula (pagelab.evidence.planner: noncentral t,
V = sum (w_b + f) / blocks^2, the over-time block's w its own a / counted s) as a check. Seconds for 2,000 sweeps a pair at quick's design.

    .venv/bin/python bench/bench_detectable.py --from BUNDLE [--sweeps 2000] [--seed 7]

Without --from it runs on a synthetic bundle of quick's design (bench_evidence_model.py's), to
show the table's shape.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arguments import at_least_one  # noqa: E402
from synthetic import SyntheticDesign, sweep, write_bundle  # noqa: E402

from pagelab.evidence import planner  # noqa: E402
from pagelab.evidence.intervals import MIN_ROUNDS_FOR_PAIRED  # noqa: E402
from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL, model_effects  # noqa: E402

ALPHA, POWER = 0.05, 0.8


@dataclass(frozen=True)
class PairDesign:
    """What a bundle measured of one pair: its components and the design it ran."""

    a: str
    b: str
    within_a: float
    between_f: float
    rounds: int
    run_s: float
    interval_s: float
    over_time_s: float  # the over-time runs' counted seconds (0: none counted)
    old_alpha: float
    new_alpha: float
    role: str


def _bundle_designs(bundle: Path) -> list[PairDesign]:
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import model_data
    from pagelab.evidence.pairs import primary_index

    table = read_runs(bundle.resolve())
    data = model_data(table)
    if data is None:
        raise SystemExit(f"{bundle}: its runs kept no interval series (tpcc_intervals.csv), so it has no variance "
                         "components to simulate from; give a bundle made by a newer sweep")
    pairs = list(combinations(table.page_order, 2))
    primary = primary_index(table, pairs)
    m = len(pairs)
    interval_s = float(np.median([s for run in table.series for s in run.seconds]))
    counted = [use.counted_s for use in data.over_time if use.counted_s > 0]
    over_time_s = float(np.median(counted)) if len(counted) == len(data.over_time) and counted else 0.0
    found = []
    for index, (earlier, later) in enumerate(pairs):
        pair = data.components.pair(later, earlier)
        if pair is None or pair.rounds < MIN_BLOCKS_FOR_MODEL:
            print(f"{later} vs {earlier}: {0 if pair is None else pair.rounds} rounds of both, fewer than "
                  f"{MIN_BLOCKS_FOR_MODEL}: left out")
            continue
        role = "primary" if index == primary else "after the primary" if primary is not None else "one of the family"
        new_alpha = ALPHA if index == primary else ALPHA / max(m - 1, 1) if primary is not None else ALPHA / m
        found.append(PairDesign(later, earlier, pair.within_a.value, pair.between_f.value, pair.rounds,
                                max(1, round(pair.run_s / interval_s)) * interval_s, interval_s, over_time_s, ALPHA / m,
                                new_alpha, role))
    return found


def _draws(design: PairDesign, sweeps: int, rng: np.random.Generator):
    """Per simulated sweep with no effect: the rounds' log-ratios of run means (later - earlier), each
    side's run log means, and the model's estimate."""
    synthetic = SyntheticDesign(page_sizes=(design.b, design.a), effects=(0.0, 0.0), rounds=design.rounds,
                                run_s=design.run_s, interval_s=design.interval_s, within_a=design.within_a / 2,
                                between_f=design.between_f / 2, block_sd=0.0, over_time_s=design.over_time_s)
    ratios, sides, deltas, ses, dofs = [], [], [], [], []
    for _ in range(sweeps):
        runs = sweep(synthetic, rng)
        verdict = {(run.page_size, run.block): run.log_mean for run in runs if run.role == "verdict"}
        blocks = [f"r{r}" for r in range(1, design.rounds + 1)]
        a = np.array([verdict[design.a, block] for block in blocks])
        b = np.array([verdict[design.b, block] for block in blocks])
        ratios.append(a - b)
        sides.append((a, b))
        [effect] = model_effects(runs, (design.b, design.a), [(design.a, design.b)])
        deltas.append(effect.delta)
        ses.append(effect.se)
        dofs.append(effect.dof)
    return np.array(ratios), sides, np.array(deltas), np.array(ses), np.array(dofs)


def _smallest(power_at, high: float = 1.5) -> float:
    """The smallest shift (log scale) whose simulated power reaches POWER, by bisection (inf past `high`)."""
    if power_at(high) < POWER:
        return math.inf
    low = 0.0
    while high - low > 1e-4:
        middle = (low + high) / 2
        low, high = (low, middle) if power_at(middle) >= POWER else (middle, high)
    return high


def old_detectable(design: PairDesign, ratios: np.ndarray, sides) -> tuple[float, str]:
    """The before-the-model analysis' smallest effect at 80% power, and the test it used."""
    if design.rounds >= MIN_ROUNDS_FOR_PAIRED:
        def power_at(shift: float) -> float:
            p = stats.wilcoxon(ratios + shift, axis=1, method="exact").pvalue
            return float(np.mean(p <= design.old_alpha))

        return _smallest(power_at), f"exact Wilcoxon signed-rank, {design.rounds} rounds"
    a = np.array([side[0] for side in sides])
    b = np.array([side[1] for side in sides])

    def power_at(shift: float) -> float:
        p = stats.mannwhitneyu(a + shift, b, axis=1, method="exact").pvalue
        return float(np.mean(p <= design.old_alpha))

    return _smallest(power_at), f"exact Mann-Whitney, {design.rounds}+{design.rounds} runs"


def new_detectable(design: PairDesign, deltas: np.ndarray, ses: np.ndarray, dofs: np.ndarray) -> float:
    """The model's smallest effect at 80% power, simulated (its t-test at the pair's level)."""
    critical = stats.t.isf(design.new_alpha / 2, dofs)

    def power_at(shift: float) -> float:
        return float(np.mean(np.abs(deltas + shift) / ses >= critical))

    return _smallest(power_at)


def formula_detectable(design: PairDesign) -> float:
    """The planner's (planner.design, equal weights: the over-time block with its own w = a / counted s)."""
    extra = 1 if design.over_time_s else 0
    found = planner.design(design.within_a, design.between_f, planner.Costs(0.0, 0.0, 1), design.rounds,
                           design.run_s, design.new_alpha, extra_blocks=extra, over_time_s=design.over_time_s or None)
    return math.log1p(found.detectable_pct / 100) if math.isfinite(found.detectable_pct) else math.inf


def _synthetic_bundle(directory: Path) -> Path:
    from bench_evidence_model import SCENARIOS

    quick = SCENARIOS["quick (9 rounds of 9 s)"]
    bundle = directory / "synthetic-quick"
    write_bundle(sweep(quick, np.random.default_rng(1)), bundle, profile={"primary": "16k vs 4k"})
    return bundle


def _pct(log_value: float) -> str:
    return f"{planner.percent(log_value):.1f}%" if math.isfinite(log_value) else "none (no effect reaches 80%)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", metavar="BUNDLE", help="a sweep's bundle whose runs kept interval "
                                                                        "series (default: a synthetic quick sweep)")
    parser.add_argument("--sweeps", type=at_least_one, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        bundle = Path(args.source) if args.source else _synthetic_bundle(Path(scratch))
        designs = _bundle_designs(bundle)
    rng = np.random.default_rng(args.seed)
    name = bundle if args.source else "a synthetic sweep of quick's design (give --from BUNDLE for a real one)"
    print(f"{name}: the smallest effect found with {100 * POWER:g}% power, from its components, {args.sweeps} "
          "synthetic sweeps a pair")
    for design in designs:
        ratios, sides, deltas, ses, dofs = _draws(design, args.sweeps, rng)
        old, test = old_detectable(design, ratios, sides)
        blocks = design.rounds + (1 if design.over_time_s else 0)
        print(f"  {design.a} vs {design.b} ({design.role}; {design.rounds} rounds of {design.run_s:g} s"
              + (f" + the over-time block ({design.over_time_s:g} s counted)" if design.over_time_s else "")
              + f"; a = {design.within_a:.3g} log²·s, √f = {100 * math.sqrt(design.between_f):.1f}%):")
        print(f"    before, one number a run, {test}, Holm's first step over the pairs (p <= "
              f"{design.old_alpha:.4g}): {_pct(old)}")
        print(f"    after, the two-level model's t-test on {blocks - 1} df at {design.new_alpha:.4g}: "
              f"{_pct(new_detectable(design, deltas, ses, dofs))} (by formula, planner: "
              f"{_pct(formula_detectable(design))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
