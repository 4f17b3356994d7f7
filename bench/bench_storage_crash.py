"""Crash-recovery stress: SIGKILL a committing child at random moments, recover, check.

Each trial starts a child that reopens the database (recovering from the previous kill), then
commits transactions until it is killed after a random delay; the parent recovers and checks
that every transaction the child reported committed is present, every present one is complete,
and nothing beyond the one in flight exists (see pagelab/storage/crashtest.py for the workload
and the checks). Trials alternate 1 KiB and 4 KiB pages on two databases.

Usage: .venv/bin/python bench/bench_storage_crash.py [--trials 100] [--max-delay 1.0] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from pagelab.storage.crashtest import crash_trial


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--max-delay", type=float, default=1.0, help="kill within this many seconds of the start")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    failures = []
    with tempfile.TemporaryDirectory(prefix="pagelab-crash-") as directory:
        reported = {1024: -1, 4096: -1}
        recovered_total = 0
        for trial in range(args.trials):
            page_size = 1024 if trial % 2 == 0 else 4096
            path = Path(directory) / f"crash-{page_size // 1024}k.db"
            result = crash_trial(path, trial, reported[page_size], page_size=page_size,
                                 cache_bytes=48 * page_size, max_delay_s=args.max_delay, rng=rng)
            reported[page_size] = max(reported[page_size], result.present)
            recovered_total += result.recovered_transactions
            status = "ok" if not result.problems else "FAILED: " + "; ".join(result.problems)
            print(f"trial {trial + 1:3d}/{args.trials} {page_size // 1024}k  killed after {result.delay_s:4.2f} s  "
                  f"reported {result.reported:5d}  present {result.present:5d}  "
                  f"replayed {result.recovered_transactions:3d}  {status}", flush=True)
            if result.problems:
                failures.append((trial, result.problems))
    elapsed = time.perf_counter() - started
    print()
    print(f"{args.trials} crash trials in {elapsed:.0f} s: {args.trials - len(failures)} passed, {len(failures)} failed; "
          f"{reported[1024] + 1 + reported[4096] + 1} transactions committed in all, {recovered_total} replayed by recovery")
    for trial, problems in failures:
        print(f"  trial {trial + 1}: {problems}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
