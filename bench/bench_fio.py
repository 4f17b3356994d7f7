"""The data device's random-read IOPS per block size, and the page-size advice it leads to.

Measures the disk under the data directory with fio (1k..64k, QD1, direct, 5 s per size), saves
the profile where `pagelab advise` reuses it (data/cache/fio-<disk>.json), prints the IOPS table,
and the advice for RethinkDB's question (10^9 keys of 32 bytes, 8-byte values) with no cache and
with a 1 GiB cache. With --repeat N the measurement runs N times and the table shows the spread
between runs, which is what the advisor's tie tolerance has to cover. Usage:

    .venv/bin/python bench/bench_fio.py [--directory data] [--runtime 5] [--repeat 1] [--reuse]
"""

from __future__ import annotations

import argparse
import time

from pagelab.models.advisor import advise
from pagelab.common.paths import CACHE_DIR, DATA_DIR
from pagelab.machine.fio import (
    DEFAULT_RUNTIME_S,
    DEFAULT_SIZE,
    load_or_measure,
    measure_random_read_iops,
    profile_cache_path,
)

GIB = 1 << 30
SEED_QUESTION = dict(n_keys=1e9, key_bytes=32, value_bytes=8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", default=str(DATA_DIR), help="a directory on the disk to measure")
    parser.add_argument("--runtime", type=float, default=DEFAULT_RUNTIME_S, help="seconds per block size")
    parser.add_argument("--size", default=DEFAULT_SIZE, help="test file size")
    parser.add_argument("--repeat", type=int, default=1, help="measure this many times to see the spread")
    parser.add_argument("--reuse", action="store_true", help="use the cached profile when it is fresh")
    args = parser.parse_args()

    started = time.perf_counter()
    if args.reuse:
        profiles = [load_or_measure(args.directory, runtime_s=args.runtime, size=args.size)]
    else:
        profiles = [
            measure_random_read_iops(args.directory, runtime_s=args.runtime, size=args.size)
            for _ in range(args.repeat)
        ]
        profiles[0].save(profile_cache_path(args.directory, CACHE_DIR))
    seconds = time.perf_counter() - started
    profile = profiles[0]

    print(f"\n{profile.describe()}  ({seconds:.0f} s)")
    for note in profile.notes:
        print(f"note: {note}")
    header = f"{'block':>6} {'IOPS':>9} {'mean µs':>8} {'p99 µs':>8} {'util %':>7}"
    if len(profiles) > 1:
        header += f" {'IOPS per run':>{9 * len(profiles)}} {'spread':>7}"
    print(header)
    for result in profile.results:
        line = (
            f"{result.block_size_bytes // 1024:>5}k {result.iops:>9,.0f} {result.lat_mean_us:>8.1f} "
            f"{result.lat_p99_us:>8.1f} {result.device_util_pct or 0:>7.1f}"
        )
        if len(profiles) > 1:
            runs = [p.iops_by_block_size()[result.block_size_bytes] for p in profiles]
            spread = (max(runs) - min(runs)) / min(runs)
            line += " " + "".join(f"{rate:>9,.0f}" for rate in runs) + f" {spread:>7.1%}"
        print(line)

    for cache_bytes in (0, GIB):
        print()
        print(advise(**SEED_QUESTION, cache_bytes=cache_bytes, device_profile=profile).render())


if __name__ == "__main__":
    main()
