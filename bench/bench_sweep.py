"""Time a whole sweep (default: the `quick` profile of `make demo`), phase by phase.

Runs `pagelab sweep --profile PROFILE` into a temporary directory, then prints each run's phases
(init, load, snapshot, restore, start, ramp-up, record) from its phases.csv, the report and PDF
time, and the total against the 10-minute goal for `quick` on the 2-core machine. The data
generation cache is cold unless --warm-cache.

Usage: .venv/bin/python bench/bench_sweep.py [--profile quick] [--set knob=value ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pagelab.bundle import SweepRecord, phase_durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pagelab-bench-sweep-") as scratch:
        sweep_dir, pdf = Path(scratch) / "sweep", Path(scratch) / "report.pdf"
        command = [sys.executable, "-m", "pagelab.cli", "sweep", "--profile", args.profile, "--out", str(sweep_dir),
                   "--pdf", str(pdf)] + [f"--set={s}" for s in args.set]
        started = time.time()
        done = subprocess.run(command, capture_output=True, text=True)
        total = time.time() - started
        if done.returncode != 0:
            print(done.stderr[-3000:])
            raise SystemExit(f"sweep failed (exit {done.returncode})")
        record = SweepRecord.load(sweep_dir)
        runs_end = max(time.mktime(time.strptime(r["finished"][:19], "%Y-%m-%dT%H:%M:%S")) for r in record.runs)
        for run in record.runs:
            phases = phase_durations(sweep_dir / run["name"])
            listed = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in phases)
            summary = json.loads((sweep_dir / run["name"] / "summary.json").read_text())
            print(f"{run['name']:>7}: {sum(s for _, s in phases):6.1f} s  [{listed}]  {summary['tpmc']:,.0f} TpmC")
        print(f" report: {started + total - runs_end:6.1f} s (report notebook and PDF, approx.)")
        print(f"  total: {total:6.1f} s for profile {args.profile} (goal for quick: <= 600 s)")
        print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "")


if __name__ == "__main__":
    main()
