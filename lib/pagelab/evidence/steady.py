"""When a run has warmed up, and when it has measured enough: the two rules behind `auto`.

Warm-up (TPC-C clause 5.5 asks for a measurement in steady state). The series is the server's
work rate sampled every few seconds during the ramp-up. The truncation point comes from MSER-5
(White 1997, "An effective truncation heuristic for bias reduction in simulation output";
Franklin & White 2008 for the batch size of 5): average the series in batches of 5, and for each
candidate cut d compute

    MSER(d) = sum over the batches after d of (Y_j - mean after d)^2 / (k - d)^2

where k is the number of batches. The cut is the d that minimises it over the first half,
d <= k/2 (the usual restriction: near the end a few batches can have a small spread by chance).
A minimum at that boundary means the series was still moving at mid-run (the run is too short to
tell), so the warm-up goes on; a minimum before it means what follows the cut is level. A cap ends the warm-up whatever the rule says, and the run records which of the two
ended it.

Measurement length. Interval throughputs of one run are correlated, so their plain standard
error is too small. Non-overlapping batch means (Law & Kelton, "Simulation Modeling and
Analysis", 3rd ed., section 9.5.3; Schmeiser 1982, "Batch size effects in the analysis of
simulation output", for 10 to 30 batches) group the intervals into BATCHES equal batches and
treat the batch means as independent: mean +- t(0.975, b - 1) * s_b / sqrt(b), the t interval
from `scipy.stats.t.interval`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.stats loads on first use (2-3 s): the CLI and a run's kernel import this module without testing anything

MSER_BATCH = 5
# The warm-up rule needs this many MSER batches before it may call a series level: with fewer,
# a single noisy batch decides.
MIN_MSER_BATCHES = 4
# Batches of the batch-means interval: Schmeiser's lower end, since a run has few intervals.
BATCHES = 10


@dataclass(frozen=True)
class Truncation:
    cut: int  # samples to drop from the front
    level: bool  # the minimum lies in the first half: what follows the cut is level
    batches: int


def mser5(series) -> Truncation:
    """MSER-5 on `series` (see the module comment). Samples past the last whole batch are left out."""
    x = np.asarray(series, dtype=float)
    k = x.size // MSER_BATCH
    if k < 2:
        return Truncation(0, False, k)
    batches = x[: k * MSER_BATCH].reshape(k, MSER_BATCH).mean(axis=1)
    # For each cut d: the batches d..k-1, their mean and sum of squared deviations, from suffix sums.
    suffix_sum = np.cumsum(batches[::-1])[::-1]
    suffix_sq = np.cumsum((batches ** 2)[::-1])[::-1]
    remaining = np.arange(k, 0, -1, dtype=float)
    squared_deviations = suffix_sq - suffix_sum ** 2 / remaining
    mser = squared_deviations / remaining ** 2
    half = k // 2
    d = int(np.argmin(mser[: half + 1]))
    return Truncation(d * MSER_BATCH, d < half and k >= MIN_MSER_BATCHES, k)


@dataclass(frozen=True)
class BatchMeans:
    mean: float
    half_width: float
    batches: int

    @property
    def half_width_pct(self) -> float:
        return 100 * self.half_width / abs(self.mean) if self.mean else math.inf


def batch_means(series, batches: int = BATCHES, confidence: float = 0.95) -> BatchMeans | None:
    """The mean of `series` with its batch-means interval; None with fewer than `batches` values."""
    x = np.asarray(series, dtype=float)
    size = x.size // batches
    if size < 1:
        return None
    means = x[: size * batches].reshape(batches, size).mean(axis=1)
    centre = float(means.mean())
    spread = float(means.std(ddof=1))
    if spread == 0:
        return BatchMeans(centre, 0.0, batches)
    low, high = scipy.stats.t.interval(confidence, batches - 1, loc=centre, scale=spread / math.sqrt(batches))
    return BatchMeans(centre, float(high - centre), batches)
