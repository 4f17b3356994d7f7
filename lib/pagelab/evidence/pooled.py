"""One pair's variance components pooled over several bundles of one set-up on one machine.

A sweep of 7 rounds estimates the between-run floor f on 6 degrees of freedom: its 95% interval
runs from 0 to several times the estimate, and a design planned from it (pagelab.evidence.planner)
rests on that. Bundles of the same set-up (the same workload, pool, server and driver, on the same
machine; pagelab.cli.plan checks this) estimate the same a and f, so they can be pooled:

- a, each bundle's pair a (the two verdict groups' a), pooled by its degrees of freedom: the
  pooled variance of independent samples, sum(dof_i a_i) / sum(dof_i) on sum(dof_i) degrees of
  freedom (Searle, Casella & McCulloch, "Variance Components", 1992, ch. 3), with the chi-square
  interval on the pooled degrees of freedom; the over-time runs' a the same way, over the bundles
  that have one.
- f, from each bundle's blocks: E[S_i^2] = mean(w_i) + f, with S_i^2 the sample variance of
  bundle i's block log-ratios d about their own mean (each bundle keeps its own effect, so a
  difference between bundles' means is not taken for noise) on k_i - 1 degrees of freedom and
  w_i their within parts. The method-of-moments estimate of the common f is then

      f = max(0, sum((k_i - 1) (S_i^2 - mean(w_i))) / sum(k_i - 1)),

  the one-way analysis-of-variance estimate with each group's mean removed (Searle et al., ch. 3),
  and its interval the chi-square interval of the pooled S^2 on sum(k_i - 1) degrees of freedom,
  less the pooled within part and truncated at 0, as one bundle's is
  (pagelab.evidence.components.floor_component).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from pagelab.evidence.components import PairComponents, floor_from, pooled_estimate
from pagelab.evidence.intervals import CONFIDENCE


def pooled_pair(pairs: Sequence[PairComponents], confidence: float = CONFIDENCE) -> PairComponents:
    """One pair's components from several bundles' (the module comment): `rounds` their rounds
    together, `run_s` the first's. Refuses pairs of different page sizes, or a bundle whose blocks'
    spread was not kept (one made before it was), rather than pool them wrongly."""
    if not pairs:
        raise ValueError("no bundles' components to pool")
    names = {(pair.a, pair.b) for pair in pairs}
    if len(names) != 1:
        raise ValueError(f"components of different pairs cannot be pooled: {sorted(names)}")
    if len(pairs) == 1:
        return pairs[0]
    missing = [pair for pair in pairs if not (math.isfinite(pair.d_variance) and math.isfinite(pair.d_within))]
    if missing:
        raise ValueError("a bundle's components lack the blocks' spread (d_variance, d_within) the floor is pooled from")
    dof = sum(pair.rounds - 1 for pair in pairs)
    spread = sum((pair.rounds - 1) * pair.d_variance for pair in pairs) / dof
    within = sum((pair.rounds - 1) * pair.d_within for pair in pairs) / dof
    floor = floor_from(spread, within, dof, confidence)
    over_time = [pair.over_time_a for pair in pairs if pair.over_time_a is not None]
    return replace(pairs[0], rounds=sum(pair.rounds for pair in pairs),
                   within_a=pooled_estimate([pair.within_a for pair in pairs], confidence), between_f=floor,
                   over_time_a=pooled_estimate(over_time, confidence) if over_time else None,
                   d_variance=spread, d_within=within)
