"""Time `pagelab sweep --executor slurm` on the tests' private two-node Slurm cluster (tests/slurm/cluster.py).

Two figures against the goals:
- submitting a sweep of N units (default 100: 5 page sizes x 20 repeats) takes under 5 s,
  whatever N is: the jobs are submitted held (`--hold`) and cancelled, so nothing runs;
- with --smoke, the smoke sweep through Slurm (submit, array, report job) against the same sweep
  run locally: at most 1.3x the local time. About 6 minutes on the 2-core machine.

Usage: .venv/bin/python bench/bench_slurm.py [--units 100] [--smoke]   (as root: it starts slurmctld,
two slurmds in network namespaces and munged of its own, and stops them)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' cluster fixture, reused here

from arguments import at_least_one  # noqa: E402
from pagelab.mysql.pagesize import PAGE_SIZES as INNODB_PAGE_SIZES  # noqa: E402
from tests.slurm.cluster import Cluster  # noqa: E402

PAGELAB = [sys.executable, "-m", "pagelab.cli"]
SUBMIT_GOAL_S = 5.0
SLURM_OVER_LOCAL_GOAL = 1.3
PAGE_SIZES = tuple(INNODB_PAGE_SIZES.values())  # every InnoDB page size, by label


def sweep(cluster: Cluster, out: Path, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    done = subprocess.run(PAGELAB + ["sweep", "--profile", "smoke", "--out", str(out), *args], capture_output=True,
                          text=True, env=cluster.env)
    if done.returncode != 0:
        raise SystemExit(f"sweep failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return time.monotonic() - started, done


def jobs_of(stdout: str) -> list[str]:
    line = next(line for line in stdout.splitlines() if line.startswith("watch:"))
    return line.split("-j", 1)[1].strip().split(",")


def wait_gone(cluster: Cluster, jobs: list[str]) -> None:
    while cluster.run("squeue", "-h", "-j", ",".join(jobs), check=False).stdout.strip():
        time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=at_least_one, default=100)
    parser.add_argument("--smoke", action="store_true", help="also time the smoke sweep, local and through Slurm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pagelab-bench-slurm-") as scratch:
        base = Path(scratch)
        cluster = Cluster(base / "cluster").start()
        try:
            repeats = -(-args.units // len(PAGE_SIZES))
            seconds, done = sweep(cluster, base / "held", "--executor", "slurm", "--scratch", str(base / "scratch"),
                                  "--slurm-args=--hold",
                                  f"--set=page_sizes={','.join(PAGE_SIZES)}", f"--set=repeats={repeats}")
            cluster.run("scancel", *jobs_of(done.stdout))
            units = len(PAGE_SIZES) * repeats
            print(f"submit: {seconds:5.2f} s for {units} units (goal: under {SUBMIT_GOAL_S:g} s)")
            if args.smoke:
                local, _ = sweep(cluster, base / "local")
                started = time.monotonic()
                _, done = sweep(cluster, base / "slurm", "--executor", "slurm", "--scratch", str(base / "scratch"))
                wait_gone(cluster, jobs_of(done.stdout))
                through_slurm = time.monotonic() - started
                print(f"smoke: local {local:.0f} s, through Slurm {through_slurm:.0f} s: "
                      f"{through_slurm / local:.2f}x (goal: at most {SLURM_OVER_LOCAL_GOAL}x)")
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
