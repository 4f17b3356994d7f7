"""How noisy this machine is, measured rather than assumed: the same two small jobs, 5 times each.

A sweep's verdicts depend on the run-to-run spread of the machine it ran on; Maricq et al. (OSDI
2018) found that spread differs between nominally identical servers and over days. So pagelab
measures it with two fixed jobs, alternated (disk, CPU, disk, CPU, ...) so that a slow drift
falls on both:

- the disk: fio random 4 KiB reads at queue depth 1 with O_DIRECT for FIO_RUNTIME_S, the
  access pattern of a buffer-pool miss (pagelab.machine.fio);
- the CPU: a fixed loop of Python arithmetic, timed on the wall clock, which also shows time
  stolen by a hypervisor or a neighbour.

The spread of each is reported as the coefficient of variation and the range over the median
(numpy). `pagelab doctor --noise` prints it; `pagelab sweep --noise` keeps it in the bundle
(noise.json), so a report can say how noisy the machine was when the runs were made.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import numpy as np

from pagelab.common.paths import DATA_DIR

NOISE_REPEATS = 5
# Long enough for ~20k reads on an SSD at QD1, short enough for the whole check to take ~30 s.
FIO_RUNTIME_S = 3
# A 64 MiB test file: far beyond the drive's own cache; the reads are O_DIRECT, so the page cache
# does not matter.
FIO_SIZE = "64M"
# ~0.3 s of interpreter work on the 2-core machine: many scheduler ticks, so a steal shows.
CPU_LOOP_ITERATIONS = 2_000_000
NOISE_FILE = "noise.json"


def cpu_loop_seconds(iterations: int = CPU_LOOP_ITERATIONS) -> float:
    started = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += (i * i) % 7
    elapsed = time.perf_counter() - started
    if total < 0:  # never; keeps the loop's result in use
        raise AssertionError
    return elapsed


def spread(values: list[float]) -> dict:
    x = np.asarray(values, dtype=float)
    median = float(np.median(x))
    return {"values": [round(v, 6) for v in values], "median": median,
            "cv_pct": float(100 * x.std(ddof=1) / x.mean()) if x.size > 1 else None,
            "range_pct": float(100 * (x.max() - x.min()) / median) if median else None}


def measure_noise(directory: str | Path = DATA_DIR, repeats: int = NOISE_REPEATS, progress: bool = True) -> dict:
    """Both jobs `repeats` times, alternated; see the module comment."""
    from pagelab.machine.fio import measure_random_read_iops
    from pagelab.common.progress import progress_bar

    iops, cpu = [], []
    bar = progress_bar(repeats, "machine noise", "round", disable=not progress)
    try:
        for _ in range(repeats):
            profile = measure_random_read_iops(directory, block_sizes=[4096], runtime_s=FIO_RUNTIME_S, size=FIO_SIZE,
                                               progress=False)
            iops.append(profile.results[0].iops)
            cpu.append(cpu_loop_seconds())
            bar.update(1)
    finally:
        bar.close()
    return {"repeats": repeats, "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host": socket.gethostname(),
            "disk_read_iops_4k_qd1": spread(iops), "cpu_loop_s": spread(cpu),
            "method": f"fio randread 4 KiB QD1 O_DIRECT {FIO_RUNTIME_S} s, and a {CPU_LOOP_ITERATIONS:,}-step Python "
                      f"loop, alternated, {repeats} times each"}
