"""What each noise lever does to the two variance components, measured on A/A.

A/A: one page size compared with itself. Every round runs four real TPC-C runs of one page size,
two per arm (side A and side B), each restored from the same loaded snapshot and flushed first,
as a sweep's runs are (pagelab.sweep.experiment.run_tpcc_page_size):

- arm `shared`: cpu_placement shared (the server and the driver on every CPU);
- arm `split`:  cpu_placement split (the server on one CPU, the driver, this process, on the other).

The arms alternate within each round, their order reversed every other round, so that whatever
else the machine does meanwhile (other users' load, the disk's minute) falls on both alike. For
each arm the runs' interval series give the within-run component a (batch means) and the A/A
pair's log-ratios over the rounds the between-run floor f, with their intervals, by the
project's own estimators (pagelab.evidence.components), and the A/A effect by the two-level model
(pagelab.evidence.model): it should be 0, and its interval should hold 0.

The same runs are then analysed with CUPED (pagelab.evidence.covariate): each run's ramp-up rate
(the transactions of its fixed ramp-up, after the restore and the flush, per second,
covariate.run_probe) is the covariate of its measured log throughput; f after the adjustment,
theta, r^2 and the adjusted A/A effect on n - 2 df (Deng et al.'s estimator, the intercept at a
probe log-ratio of 0: honest here, where both sides run the same page size, so the probes'
log-ratio has mean 0; not for a pair of page sizes, bench/bench_covariate.py) are printed beside
the unadjusted ones. No runs are added for it.

    .venv/bin/python bench/bench_noise_levers.py [--rounds 7] [--measure-s 45] [--rampup-s 10] [--out DIR]
    .venv/bin/python bench/bench_noise_levers.py --analyse DIR     # the table again from DIR's runs

Each run takes about a minute (restore, flush, start, ramp-up, measurement, stop): 7 rounds are
about 30 minutes. The runs are kept in DIR (default data/noise-levers/<time>), one directory per
run and runs.json listing them; a bench stopped part-way is analysed with --analyse.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from arguments import at_least_one
from pagelab.evidence.components import RunSeries, variance_components
from pagelab.evidence.covariate import adjusted_floor, cuped_effect, run_probe
from pagelab.evidence.model import pair_effect
from pagelab.evidence.runs import run_series
from pagelab.machine.placement import PLACEMENTS, SHARED, SPLIT
from pagelab.sweep.experiment import run_tpcc_page_size
from pagelab.sweep.profiles import load_profile

ROOT = Path(__file__).resolve().parent.parent
PAGE_SIZE = "4k"
SIDES = ("A", "B")
RUNS_FILE = "runs.json"


def profile_for(arm: str, args) -> object:
    """quick's TPC-C (1 warehouse, 4 connections, a 64M pool) at one page size, a fixed ramp-up
    (the probe: its length must not depend on the run), and the arm's placement."""
    return load_profile("quick", [f"page_sizes={PAGE_SIZE}", "primary=", f"warehouses={args.warehouses}",
                                  f"rampup_s={args.rampup_s}", f"measure_s={args.measure_s}", "interval_s=3",
                                  f"cpu_placement={arm}"])


def round_order(round_number: int) -> list[tuple[str, str]]:
    """(arm, side) in the order a round runs them: the arms alternate, reversed every other round."""
    arms = PLACEMENTS if round_number % 2 else PLACEMENTS[::-1]
    return [(arm, side) for side in SIDES for arm in arms]


def measure(args) -> Path:
    out = Path(args.out or ROOT / "data" / "noise-levers" / time.strftime("%Y%m%d-%H%M%S"))
    out.mkdir(parents=True, exist_ok=True)
    runs: list[dict] = []
    repeat = 0
    for round_number in range(1, args.rounds + 1):
        for arm, side in round_order(round_number):
            repeat += 1
            load = os.getloadavg()[0]
            started = time.monotonic()
            summary = run_tpcc_page_size(out, profile_for(arm, args), PAGE_SIZE, repeat)
            runs.append({"name": summary["run"], "arm": arm, "side": side, "round": round_number,
                         "load_1min_at_start": load, "seconds": round(time.monotonic() - started, 1),
                         "cpu_placement": summary["cpu_placement"], "tpmc": summary["tpmc"]})
            (out / RUNS_FILE).write_text(json.dumps(runs, indent=1))
            print(f"round {round_number} {arm:6} {side}: TpmC {summary['tpmc']:8.0f}  load {load:4.1f}  "
                  f"server CPUs {summary['cpu_placement']['server_cpus']}, driver CPUs "
                  f"{summary['cpu_placement']['driver_cpus']}", flush=True)
    return out


def interval_text(estimate, scale: float = 1.0, digits: int = 0) -> str:
    return (f"{estimate.value * scale:.{digits}f} [{estimate.low * scale:.{digits}f}, "
            f"{estimate.high * scale:.{digits}f}]")


def effect_text(effect, confidence: float = 0.95) -> str:
    if effect is None:
        return "-"
    low, high = effect.interval(confidence)
    return (f"{100 * math.expm1(effect.delta):+.1f}% [{100 * math.expm1(low):+.1f}, {100 * math.expm1(high):+.1f}] "
            f"(t, {effect.dof:g} df)")


def analyse(out: Path) -> None:
    runs = json.loads((out / RUNS_FILE).read_text())
    rows = []
    for arm in PLACEMENTS:
        mine = [run for run in runs if run["arm"] == arm]
        series: dict[tuple[str, int], RunSeries] = {}
        probes: dict[tuple[str, int], float] = {}
        for run in mine:
            found = run_series(out / run["name"], {"name": run["name"], "page_size": run["side"],
                                                   "round": run["round"], "repeat": run["round"]})
            if found is not None:
                series[run["side"], run["round"]] = found
                probes[run["side"], run["round"]] = run_probe(out / run["name"])
        components = variance_components(list(series.values()), list(SIDES))
        pair = components.pair(*SIDES[::-1])  # B against A: each later one against each earlier one
        sizes = {size.page_size: size for size in components.sizes}
        rounds = sorted(r for (side, r) in series if side == "A" and ("B", r) in series)
        if pair is None or len(rounds) < 3:
            print(f"{arm}: {len(rounds)} complete rounds, too few for the components")
            continue
        # the pair as the verdicts take it: B against A (components pair each later one with each earlier)
        d = [series["B", r].log_mean - series["A", r].log_mean for r in rounds]
        x = [probes["B", r] - probes["A", r] for r in rounds]
        w = [sizes["B"].within_a.value / series["B", r].measured_s + sizes["A"].within_a.value / series["A", r].measured_s
             for r in rounds]
        effect = pair_effect({r: (series["B", r].log_mean, series["B", r].measured_s) for r in rounds},
                             {r: (series["A", r].log_mean, series["A", r].measured_s) for r in rounds},
                             sizes["B"].within_a, sizes["A"].within_a)
        adjusted = cuped_effect(d, x, w)
        floor_adjusted = adjusted_floor(d, x, w)
        all_y = [s.log_mean for s in series.values()]
        all_x = list(probes.values())
        rows.append({
            "arm": arm, "rounds": len(rounds), "runs": len(series),
            "tpmc": float(np.exp(np.mean(all_y))),
            "load": float(np.mean([run["load_1min_at_start"] for run in mine])),
            "a": pair.within_a, "f": pair.between_f, "effect": effect,
            "f_cuped": floor_adjusted, "cuped": adjusted,
            "probe_r": float(np.corrcoef(all_x, all_y)[0, 1]) if len(all_x) > 2 else math.nan,
            "batch_s": sizes["A"].lag1.batch_s, "run_s": pair.run_s,
        })
    print(f"\nA/A of {PAGE_SIZE}, {out}: the pair B vs A of each arm over its rounds; 95% intervals")
    print("a: within-run (A and B summed), %^2 x s; f: between-run floor, %^2 (sqrt f in %)")
    header = ("arm", "rounds", "TpmC (geo mean)", "load 1 min", "a [95%]", "f [95%]", "sqrt f",
              "A/A effect", "f with CUPED [95%]", "theta, r^2", "A/A effect with CUPED")
    print(" | ".join(header))
    for row in rows:
        cuped = row["cuped"]
        print(" | ".join([
            row["arm"], str(row["rounds"]), f"{row['tpmc']:.0f}", f"{row['load']:.1f}",
            interval_text(row["a"], 1e4), interval_text(row["f"], 1e4, 1), f"{100 * math.sqrt(row['f'].value):.1f}%",
            effect_text(row["effect"]), interval_text(row["f_cuped"], 1e4, 1),
            f"{cuped.theta:.2f}, {cuped.r_squared:.2f}" if cuped else "-",
            effect_text(cuped.effect) if cuped else "-"]))
    for row in rows:
        print(f"{row['arm']}: batches of {row['batch_s']:g} s, runs of {row['run_s']:g} s; correlation of a run's "
              f"probe with its log TpmC over all its runs {row['probe_r']:+.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=at_least_one, default=7)
    parser.add_argument("--measure-s", type=at_least_one, default=45)
    parser.add_argument("--rampup-s", type=at_least_one, default=10)
    parser.add_argument("--warehouses", type=at_least_one, default=1)
    parser.add_argument("--out", help="directory for the runs (default data/noise-levers/<time>)")
    parser.add_argument("--analyse", metavar="DIR", help="no runs: the table from DIR's runs")
    args = parser.parse_args()
    if args.analyse:
        analyse(Path(args.analyse))
        return 0
    for arm in (SHARED, SPLIT):
        profile_for(arm, args)  # a machine that cannot split is refused before any run
    out = measure(args)
    analyse(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
