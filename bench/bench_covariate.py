"""Can CUPED on a pre-run probe narrow TpmC's verdicts honestly? Synthetic sweeps
(bench/synthetic.py) with known within-run a, floor f and true effects, each run with a probe
correlated with its random effect at rho, judged by three estimators of each pair's effect over the
same sweeps, each family tested as `pagelab stats` tests one (the primary first, then Holm;
pagelab.evidence.families.compare_family):

- model: the two-level model (pagelab.evidence.model.pair_effect), today's verdicts;
- centred: CUPED with the probes' log-ratio centred at its mean (the fit bench_noise_levers.py
  and the runbook's first table used): the intercept is the rounds' mean log-ratio, its standard
  error the fit's sqrt(s^2 / n), t on n - 2;
- Deng: CUPED as Deng, Xu, Kohavi & Walker (WSDM 2013) define it, the intercept at a probe
  log-ratio of 0 (pagelab.evidence.covariate.cuped_effect), t on n - 2;
and two kinds of probe:
- unmoved: the probe does not depend on the run's page size (its log-ratio has mean 0): an A/A,
  or a probe of the machine taken alike before every run;
- moved: the page size moves the probe as a run's ramp-up rate is moved, 8k +3% and 16k -5%
  against 4k (the coverage sweeps' true effects), also in the sweeps with no effect on TpmC (a
  cold pool's ramp-up may differ where the steady state does not).

Decided before running (the two-level model's goals, bench_evidence_model.py): over >= 1,000
sweeps per row, a method's 95% intervals cover the true effect 93-97%, and the family's false-call
rate with no effect (any "faster"/"slower" in a sweep) is <= 5% (passes unless its exact 95%
interval lies wholly above 5%), at rho 0 (a useless probe), 0.5 and 0.85.

Designs: course (7 rounds of 100 s, a = 3,200 %^2 s, a pair's floor sqrt(f) 6% as the course sweeps
measured 5.6-8%, then 1200 s over-time runs, which CUPED leaves out: pagelab.evidence.covariate.
pair_rounds) and the quiet bench's (7 rounds of 45 s in 3 s intervals, a pair's a = 985 %^2 s and
sqrt(f) 8%, as bench_noise_levers.py measured on the quiet machine).

    .venv/bin/python bench/bench_covariate.py [--sweeps 1000] [--seed 11]

Real data (`--real`): the noise-levers bench's A/A runs (`--aa DIR`: side B against side A of each
arm, the same page size, so the probe cannot depend on it), with the three estimators; and, for
course bundles (`--bundles`), each pair's probes' mean log-ratio and r^2 (what the ramp-up would
have to offer), read only.

    .venv/bin/python bench/bench_covariate.py --real --aa /work/noise-quiet --bundles /work/course-full ...
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
from bench_evidence_model import EFFECTS, PRIMARY, binomial_ci  # noqa: E402
from synthetic import SyntheticDesign, meets_goals, sweep, true_effect  # noqa: E402

from pagelab.evidence.components import variance_components  # noqa: E402
from pagelab.evidence.covariate import bundle_probes, cuped_effect, pair_rounds, run_probe  # noqa: E402
from pagelab.evidence.families import compare_family  # noqa: E402
from pagelab.evidence.intervals import FASTER, SLOWER  # noqa: E402
from pagelab.evidence.model import PairEffect, counted_series, pair_effect  # noqa: E402

DESIGNS = {
    "course (7 x 100 s, over-time runs)": SyntheticDesign(
        rounds=7, run_s=100, interval_s=10, within_a=0.32, between_f=0.06 ** 2 / 2, block_sd=0.05,
        over_time_s=1200, drift_pct_per_min=1.0, drift_after_s=600, drifting_sizes=("8k",)),
    "quiet bench (7 x 45 s)": SyntheticDesign(
        rounds=7, run_s=45, interval_s=3, within_a=0.0985 / 2, between_f=0.08 ** 2 / 2, block_sd=0.05),
}
STRENGTHS = (0.0, 0.5, 0.85)
PROBES = {"unmoved": (0.0, 0.0, 0.0), "moved": EFFECTS}
METHODS = ("model", "centred", "Deng")


def centred_effect(d, x, w) -> PairEffect | None:
    """CUPED with x centred at its mean (the fit the runbook's first table used): the intercept is
    mean(d), its standard error the fit's sqrt(s^2 / n) on n - 2 df (statsmodels OLS)."""
    import statsmodels.api as sm

    x = np.asarray(x, float)
    if len(d) < 4 or np.ptp(x) == 0:
        return None
    fit = sm.OLS(np.asarray(d, float), sm.add_constant(x - x.mean(), has_constant="add")).fit()
    return PairEffect(float(fit.params[0]), float(fit.bse[0]), float(fit.df_resid), len(d),
                      max(float(fit.scale) - float(np.mean(w)), 0.0), float(fit.scale))


def estimates(runs, probes: dict, sizes, pairs) -> dict[str, list]:
    """Per method, each (a, b) of `pairs` estimated from one sweep's runs and probes."""
    counted, _ = counted_series(runs)
    components = variance_components(counted, sizes)
    within = {size.page_size: size.within_a for size in components.sizes}
    by_size = {size: {run.block: (run.log_mean, run.measured_s) for run in counted if run.page_size == size}
               for size in sizes}
    of = {size: {block: x for (s, block), x in probes.items() if s == size} for size in sizes}
    found = {method: [] for method in METHODS}
    for a, b in pairs:
        found["model"].append(pair_effect(by_size[a], by_size[b], within[a], within[b]))
        d, x, w = pair_rounds(by_size[a], by_size[b], of[a], of[b], within[a], within[b])
        found["centred"].append(centred_effect(d, x, w))
        deng = cuped_effect(d, x, w)
        found["Deng"].append(deng.effect if deng else None)
        found.setdefault("r2", []).append(deng.r_squared if deng else math.nan)
    return found


def one_row(design: SyntheticDesign, sweeps: int, rng: np.random.Generator) -> dict:
    pairs = list(combinations(design.page_sizes, 2))
    wanted = [(later, earlier) for earlier, later in pairs]
    primary = pairs.index(PRIMARY)
    covered = {m: 0 for m in METHODS}
    widths = {m: [] for m in METHODS}
    called = {m: 0 for m in METHODS}
    false = {m: 0 for m in METHODS}
    r2 = []
    total = 0
    with_effect = replace(design, effects=EFFECTS)
    none = replace(design, effects=(0.0, 0.0, 0.0))
    for _ in range(sweeps):
        probes: dict = {}
        found = estimates(sweep(with_effect, rng, probes), probes, design.page_sizes, wanted)
        r2.append(found["r2"][primary])
        total += len(pairs)
        for method in METHODS:
            for (earlier, later), effect in zip(pairs, found[method]):
                low, high = effect.interval(0.95)
                covered[method] += low <= true_effect(with_effect, later, earlier) <= high
            low, high = found[method][primary].interval(0.95)
            widths[method].append(100 * (high - low) / 2)
            family = compare_family([([], [])] * len(pairs), models=found[method], primary=primary)
            called[method] += family[primary].verdict == SLOWER
        probes = {}
        found = estimates(sweep(none, rng, probes), probes, design.page_sizes, wanted)
        for method in METHODS:
            family = compare_family([([], [])] * len(pairs), models=found[method], primary=primary)
            false[method] += any(c.verdict in (FASTER, SLOWER) for c in family)
    return {"coverage": {m: covered[m] / total for m in METHODS},
            "half_width": {m: float(np.median(widths[m])) for m in METHODS},
            "called": {m: called[m] / sweeps for m in METHODS},
            "false": {m: (false[m] / sweeps, *binomial_ci(false[m], sweeps)) for m in METHODS},
            "r2": float(np.nanmedian(r2))}


def passes(found: dict, method: str) -> bool:
    return meets_goals(found["coverage"][method], found["false"][method][1])


def simulation_table(sweeps: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    print(f"{sweeps} synthetic sweeps a row with the effects 8k +3%, 16k -5% against 4k (coverage of the 3 pairs' "
          f"95% intervals, the primary 16k vs 4k's median half-width and how often it is called slower), and {sweeps} "
          "with no effect (the family's false calls, Clopper-Pearson 95%); goals: coverage 93-97%, false calls <= 5%")
    print("| design | probe | rho | median r² | coverage model / centred / Deng | primary half-width model / centred / "
          "Deng | primary -5% called model / centred / Deng | false calls model / centred / Deng | goals met |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, design in DESIGNS.items():
        for kind, shifts in PROBES.items():
            for rho in STRENGTHS:
                found = one_row(replace(design, probe_rho=rho, probe_effects=shifts), sweeps, rng)
                print(f"| {name} | {kind} | {rho:g} | {found['r2']:.2f} | "
                      + " / ".join(f"{100 * found['coverage'][m]:.1f}%" for m in METHODS) + " | "
                      + " / ".join(f"±{found['half_width'][m]:.1f}" for m in METHODS) + " | "
                      + " / ".join(f"{100 * found['called'][m]:.0f}%" for m in METHODS) + " | "
                      + " / ".join(f"{100 * v[0]:.1f}% [{100 * v[1]:.1f}, {100 * v[2]:.1f}]"
                                   for v in (found['false'][m] for m in METHODS)) + " | "
                      + ", ".join(m for m in METHODS if passes(found, m)) + " |", flush=True)


# --- real data ------------------------------------------------------------------------------------


def noise_levers_aa(directory: Path) -> list[str]:
    """bench_noise_levers.py's A/A (side B against side A of each arm) by the three estimators."""
    import json

    from pagelab.evidence.runs import run_series

    runs = json.loads((directory / "runs.json").read_text())
    lines = []
    for arm in sorted({run["arm"] for run in runs}):
        series, probes = [], {}
        for run in (r for r in runs if r["arm"] == arm):
            found = run_series(directory / run["name"], {"name": run["name"], "page_size": run["side"],
                                                         "round": run["round"], "repeat": run["round"]})
            probe = run_probe(directory / run["name"])
            if found is not None and probe is not None:
                series.append(found)
                probes[run["side"], found.block] = probe
        found = estimates(series, probes, ["A", "B"], [("B", "A")])
        for method in METHODS:
            [effect] = found[method]
            low, high = effect.interval(0.95)
            called = low > 0 or high < 0
            lines.append(f"{directory.name} {arm}, B vs A, {method} ({effect.blocks} rounds, t on {effect.dof:g} df"
                         + (f", r² {found['r2'][0]:.2f}" if method != "model" else "")
                         + f"): {100 * math.expm1(effect.delta):+.1f}% [{100 * math.expm1(low):+.1f}, "
                           f"{100 * math.expm1(high):+.1f}], {100 * (math.expm1(high) - math.expm1(low)):.1f} points "
                           f"wide -> {'a FALSE CALL' if called else 'no call'}")
    return lines


def bundle_probe_lines(bundle: Path) -> list[str]:
    """A course bundle's pairs: the probes' mean log-ratio over the rounds (what the page size does to
    the ramp-up, with a one-sample t-test of 0) and the r² of the rounds' log-ratios on them."""
    from scipy import stats

    from pagelab.bundle import SweepRecord, read_runs
    from pagelab.evidence.runs import model_data

    record = SweepRecord.load(bundle)
    table = read_runs(record)
    data = model_data(table)
    probes = bundle_probes(bundle, record.runs)
    of = {size: {block: x for (s, block), x in probes.items() if s == size} for size in table.page_order}
    within = {size.page_size: size.within_a for size in data.components.sizes}
    lines = []
    for earlier, later in combinations(table.page_order, 2):
        d, x, w = pair_rounds(data.by_size[later], data.by_size[earlier], of[later], of[earlier], within[later],
                              within[earlier])
        fit = cuped_effect(d, x, w)
        test = stats.ttest_1samp(x, 0.0)
        lines.append(f"{bundle.name} {later} vs {earlier}: {len(x)} rounds, the ramp-up probes' mean log-ratio "
                     f"{100 * np.mean(x):+.1f}% (sd {100 * np.std(x, ddof=1):.1f}, t-test of 0: p {test.pvalue:.2f}); "
                     f"r² of the rounds' log-ratios on them {fit.r_squared:.2f}, θ {fit.theta:+.2f}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweeps", type=at_least_one, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--real", action="store_true", help="the real data only (no simulation)")
    parser.add_argument("--aa", type=Path, nargs="*", default=[], help="bench_noise_levers.py output directories")
    parser.add_argument("--bundles", type=Path, nargs="*", default=[], help="course sweep bundles (read only)")
    args = parser.parse_args()
    gc.freeze()  # statsmodels' Holm runs gc.collect() per call (see bench_evidence_model.py)
    if args.real:
        for directory in args.aa:
            print("\n".join(noise_levers_aa(directory.resolve())))
        for bundle in args.bundles:
            print("\n".join(bundle_probe_lines(bundle.resolve())))
        return 0
    simulation_table(args.sweeps, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
