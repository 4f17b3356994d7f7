"""Fidelity inside a sweep: one profile run once per driver mode, mode by mode within each round,
on the same instances, through the sweep's own runs (pagelab.sweep.experiment).

    .venv/bin/python bench/bench_sweep_modes.py --tpcc-mysql-dir /tmp/tpcc-mysql --profile quick

Each round runs every page size, and within a page size every mode one after the other (the modes'
order turns over from round to round, so a drift of the machine falls on each mode alike). All
runs restore the same page size's snapshot, loaded once by the profile's loader. Every mode gets
the profile's knobs, its transport included; a ramp-up of `auto` becomes the profile's
max_rampup_s for every mode, since tpcc_start takes fixed seconds (the quick profile's cap ends
every ramp-up anyway).

Printed:
- per page size, TpmC of each mode against the first (`--modes`, default statements,tpcc-mysql):
  the ratio of medians with its 95% interval and verdict, round by round
  (pagelab.evidence.intervals.compare_rounds). Goal: 0.90-1.10.
- per mode, the page-size effects against the first page size, side by side, with their
  intervals; and the difference of the effects between the modes in percentage points. Goal:
  within 3 points.

`--rounds` defaults to the profile's repeats (quick: 9; about 2 x 9.5 min with two modes).
Smoke-sized check: `--profile smoke --rounds 2 --set measure_s=5`. Needs a tpcc-mysql build for
the tpcc-mysql mode (`--tpcc-mysql-dir` or TPCC_MYSQL_DIR); without one, and with that mode
asked, it says so and exits 0. The bundle stays in `--out` (default: a temporary directory,
removed) for a look at each run; its runs are named <page>-r<k>, k = (round-1) x modes + mode.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from arguments import at_least_one

from pagelab.evidence.intervals import compare_rounds
from pagelab.sweep.knob_types import AUTO
from pagelab.sweep.profiles import load_profile
from pagelab.tpcc.modes import MODE_NAMES, mode_named


def mode_profiles(args: argparse.Namespace) -> dict:
    """The profile once per mode: the same knobs but driver_mode (and a fixed ramp-up for all)."""
    base = load_profile(args.profile, args.set)
    overrides = list(args.set)
    if base.rampup_s == AUTO:
        overrides.append(f"rampup_s={base.max_rampup_s}")
        print(f"rampup_s auto -> {base.max_rampup_s} s for every mode (tpcc_start takes fixed seconds)")
    if args.tpcc_mysql_dir:
        overrides.append(f"tpcc_mysql_dir={args.tpcc_mysql_dir}")
    return {mode: load_profile(args.profile, overrides + [f"driver_mode={mode}"]) for mode in args.modes}


def run_rounds(profiles: dict, rounds: int, sweep_dir: Path) -> list[dict]:
    from pagelab.sweep.experiment import run_tpcc_page_size

    modes = list(profiles)
    first = profiles[modes[0]]
    results = []
    for round_number in range(1, rounds + 1):
        order = modes if round_number % 2 else list(reversed(modes))
        for page_size in first.page_sizes:
            for mode in order:
                repeat = (round_number - 1) * len(modes) + modes.index(mode) + 1
                started = time.monotonic()
                try:
                    summary = run_tpcc_page_size(sweep_dir, profiles[mode], page_size, repeat)
                    tpmc, error = float(summary["tpmc"]), ""
                    transport = summary.get("transport")
                except Exception as exc:  # noqa: BLE001 - a failed run is reported and left out
                    tpmc, error, transport = math.nan, f"{type(exc).__name__}: {exc}", None
                row = {"round": round_number, "page_size": page_size, "mode": mode, "repeat": repeat, "tpmc": tpmc,
                       "transport": transport, "seconds": round(time.monotonic() - started, 1), "error": error}
                results.append(row)
                label = f"{page_size // 1024}k"
                print(f"  round {round_number} {label:>4} {mode:<11} "
                      + (f"TpmC {tpmc:>9,.0f}  over {transport}" if not error else f"FAILED: {error}")
                      + f"  ({row['seconds']:.0f} s)", flush=True)
    return results


def by_round(results: list[dict], page_size: int, mode: str) -> dict[int, float]:
    return {r["round"]: r["tpmc"] for r in results if r["page_size"] == page_size and r["mode"] == mode}


def interval_text(comparison) -> str:
    if math.isnan(comparison.ratio):
        return "no runs"
    if math.isnan(comparison.low):
        return f"{comparison.ratio:.3f} (one run a side: no interval)"
    return (f"{comparison.ratio:.3f} [{comparison.low:.3f}, {comparison.high:.3f}] {comparison.verdict}"
            + (" (paired)" if comparison.paired else ""))


def report(results: list[dict], profiles: dict) -> None:
    modes = list(profiles)
    sizes = profiles[modes[0]].page_sizes
    label = {size: f"{size // 1024}k" for size in sizes}
    reference = modes[0]
    print(f"\nTpmC per page size, each mode / {reference}: ratio of medians, 95% interval (goal 0.90-1.10)")
    for size in sizes:
        for mode in modes[1:]:
            comparison = compare_rounds(by_round(results, size, reference), by_round(results, size, mode))
            print(f"  {label[size]:>4}  {reference} / {mode}: {interval_text(comparison)}")
    base = sizes[0]
    print(f"\npage-size effects TpmC(p) / TpmC({label[base]}) per mode, 95% intervals "
          "(goal: the modes within 3 percentage points)")
    for size in sizes[1:]:
        effects = {mode: compare_rounds(by_round(results, size, mode), by_round(results, base, mode)) for mode in modes}
        cells = "   ".join(f"{mode}: {interval_text(effects[mode])}" for mode in modes)
        points = [100 * (effects[mode].ratio - effects[reference].ratio) for mode in modes[1:]]
        spread = "  ".join(f"{mode} - {reference}: {p:+.1f} points" for mode, p in zip(modes[1:], points))
        print(f"  {label[size]}/{label[base]}  {cells}\n          {spread}")
    failed = [r for r in results if r["error"]]
    if failed:
        print(f"\n{len(failed)} run(s) failed and are left out: "
              + "; ".join(f"{label[r['page_size']]} round {r['round']} {r['mode']}: {r['error']}" for r in failed))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="quick", help="profile name or YAML path (default quick)")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="knob overrides for every mode, as for pagelab sweep (repeatable)")
    parser.add_argument("--modes", default="statements,tpcc-mysql",
                        help=f"modes to run, comma-separated, the first the reference; of {', '.join(MODE_NAMES)} "
                             "(default statements,tpcc-mysql)")
    parser.add_argument("--rounds", type=at_least_one, help="rounds (default: the profile's repeats)")
    parser.add_argument("--tpcc-mysql-dir", default=os.environ.get("TPCC_MYSQL_DIR"),
                        help="a tpcc-mysql build (tpcc_load, tpcc_start); default $TPCC_MYSQL_DIR")
    parser.add_argument("--out", help="keep the bundle here (default: a temporary directory, removed)")
    args = parser.parse_args()
    args.modes = [mode_named(name).name for name in args.modes.split(",")]
    if len(set(args.modes)) < 2:
        parser.error("--modes needs two different modes or more")
    if "tpcc-mysql" in args.modes and not args.tpcc_mysql_dir:
        print("bench_sweep_modes: the tpcc-mysql mode needs a build (--tpcc-mysql-dir or TPCC_MYSQL_DIR); "
              "DEVELOPERS.md says how to make one. Nothing measured.")
        return 0
    profiles = mode_profiles(args)
    first = profiles[args.modes[0]]
    rounds = args.rounds or first.repeats
    print(f"profile {first.name} ({' '.join('--set ' + s for s in args.set) or 'as shipped'}), transport "
          f"{first.transport}, {rounds} round(s) x {len(first.page_sizes)} page size(s) x {len(args.modes)} modes")
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="pagelab-modes-",
                                                                 dir=os.environ.get("PAGELAB_BENCH_DIR")))
    try:
        results = run_rounds(profiles, rounds, work / "bundle")
        (work / "modes.json").write_text(json.dumps(results, indent=1))
        report(results, profiles)
    finally:
        if not args.out:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"\nbundle and modes.json kept in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
