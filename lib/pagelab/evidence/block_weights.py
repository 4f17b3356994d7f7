"""TpmC's blocks weighted by their precision: the declared option `block_weights: precision`.

The two-level model (pagelab.evidence.model) gives each block -- a round, and the over-time runs'
block when it counts -- one unit in the mean of the pair's log-ratios d_b. A block's d_b has
variance w_b + f, w_b = a_A / T_A + a_B / T_B known from the runs' batch means and f the pair's
between-run floor, so a block of 1000 stationary seconds is much more precise than a round of
100 s when f is small, and counting it once wastes the course profile's longest runs. With
`precision` declared before the data, the blocks are combined as a random-effects meta-analysis of
the d_b with known within variances w_b and between-block variance tau^2 = f, by
`statsmodels.stats.meta_analysis.combine_effects`:

    m = sum v_b d_b / sum v_b,   v_b = 1 / (w_b + tau_w^2),
    Var(m) = q / sum v_b,  q = max(Q(tau_w^2) / (k - 1), chi2(0.05, k - 1) / (k - 1)),

and a t interval on k - 1 degrees of freedom, k the blocks. Var(m) is the Hartung-Knapp-Sidik-
Jonkman variance (Hartung & Knapp, "A refined method for the meta-analysis of controlled clinical
trials with binary outcome", Statistics in Medicine 20, 2001; Sidik & Jonkman, "A simple
confidence interval for meta-analysis", Statistics in Medicine 21, 2002): statsmodels' `var_hksj_fe`
of the blocks with variances w_b + tau_w^2, the weighted residual variance about m, on k - 1 df.

Which tau^2 weighs the blocks is the whole question: the model's equal weights were chosen because
weighting the over-time block by its smaller w "would make it dominate exactly when f is least
known". bench/bench_block_weights.py measured it (1,000 synthetic sweeps a cell; pair a = 2,721
%^2 s, f 0, 4, 31 and 100 %^2, 5, 8 and 12 rounds of 100 s, a 1200 s over-time block stationary or
drifting): with tau^2 estimated by Paule-Mandel (Paule & Mandel, "Consensus values and weighting
factors", J. Res. NBS 87, 1982; `method_re="pm"`) the plain HKSJ interval of the primary pair
covered under 93% in 13 of the 24 cells, 89.5% at f = 4 %^2 with 5 rounds and a drifting block
(the estimate is often 0 and the over-time block then takes the weight its w alone would give it);
the modified HKSJ, q at least 1 (Roever, Knapp & Friede, "Hartung-Knapp-Sidik-Jonkman approach and
its modification for random-effects meta-analysis with few studies", BMC Medical Research
Methodology 15:99, 2015), covered 97.1-99.2% in 5 cells at f = 0 and 92.8-92.9% in 2 at f = 31
%^2, outside 93-97% both ways. (statsmodels' "dl"
tau^2 is not truncated at 0, so it can make a variance negative: not used.) So tau_w^2 is the
one-sided 95% upper confidence bound of tau^2 from the Q-profile (Viechtbauer, "Confidence
intervals for the amount of heterogeneity in meta-analysis", Statistics in Medicine 26, 2007): the
tau^2 at which the generalised Q statistic, Q(tau^2) = sum (d_b - m)^2 / (w_b + tau^2), equals
chi2(0.05, k - 1), found with `scipy.optimize.brentq` on statsmodels' `q` of the blocks with
variances w_b + tau^2; 0 when Q(0) is already below it. The over-time block then weighs as much as
its precision allows only as far as the rounds can rule out an f that would make it no better than
a round. q's lower bound is the model's own floor (FLOOR_QUANTILE): at tau_w^2 > 0, Q(tau_w^2) is
chi2(0.05, k - 1) by construction, so the bound binds only when the blocks agree better than the
runs' own noise allows (tau_w^2 = 0). With every w_b alike this is exactly the equal-weight model,
floor included: tau_w^2 = S^2 (k - 1) / chi2(0.05, k - 1) - w, and Var(m) = S^2 / k, or the floor
w chi2(0.05, k - 1) / (k - 1) / k when S^2 is below it. Weighting by an upper bound of tau^2 is
pagelab's own rule, not a published method. Measured: 95% intervals of the 3 pairs covered
94.5-96.3% in all 24 cells, the family's false calls with no effect 2.7-6.2% (each interval reaching
5%), adding rounds over 3 looks 2.9-5.1%; the price of that honesty is that the rounds bound f
loosely, so the over-time block's median share of the weight is 8-21% (1/k would be 8-17%) and the
primary pair's power for a 5% effect rises by 0-3 points over equal weights (f = 0, 8 rounds: 79%
against 77%; the modified HKSJ, which over-covers, 87%).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

EQUAL, PRECISION = "equal", "precision"
BLOCK_WEIGHTS = (EQUAL, PRECISION)
# The one-sided level of tau^2's upper bound that weighs the blocks (the Q-profile's chi2 quantile),
# and the quantile of q's lower bound: the model's FLOOR_QUANTILE (pagelab.evidence.model), which
# passes it in
DEFAULT_LEVEL = 0.05
# How a method line names the estimator; the lines' heads find precision weights by its start
PRECISION_WORDS = "precision weights"


def _q_statistic(d: np.ndarray, w: np.ndarray, tau2: float) -> float:
    """The generalised Q of the blocks at between-block variance tau2 (statsmodels' fixed-effect q
    of variances w + tau2)."""
    from statsmodels.stats.meta_analysis import combine_effects

    return float(combine_effects(d, w + tau2, method_re="pm").q)


def tau2_upper(d: Sequence[float], w: Sequence[float], level: float = DEFAULT_LEVEL) -> float:
    """The one-sided (1 - level) Q-profile upper bound of tau^2 (Viechtbauer 2007): where Q(tau^2)
    falls to chi2(level, k - 1); 0 when Q(0) is below it already."""
    import scipy

    d, w = np.asarray(d, float), np.asarray(w, float)
    target = float(scipy.stats.chi2.ppf(level, len(d) - 1))
    if _q_statistic(d, w, 0.0) <= target:
        return 0.0
    # Q falls as tau^2 grows (to (k - 1) S^2 / tau^2 for large tau^2): bracket, then solve
    high = max(float(np.var(d, ddof=1)), float(w.max()), 1e-12)
    while _q_statistic(d, w, high) > target:
        high *= 4
    return float(scipy.optimize.brentq(lambda t: _q_statistic(d, w, t) - target, 0.0, high, xtol=1e-14, rtol=1e-10))


@dataclass(frozen=True)
class WeightedMean:
    """The blocks combined with precision weights: the estimate, its variance (on k - 1 df), the
    bound of tau^2 that weighed them, whether q's lower bound set the variance, each weight's share."""

    estimate: float
    variance: float
    tau2_bound: float
    floored: bool
    shares: tuple[float, ...]


def precision_mean(d: Sequence[float], w: Sequence[float], level: float = DEFAULT_LEVEL) -> WeightedMean:
    """The blocks' log-ratios `d` with within variances `w` combined with precision weights (see
    the module comment): weights 1 / (w + tau2_upper), the weighted mean, the HKSJ variance with q
    at least chi2(level, k - 1) / (k - 1)."""
    import scipy
    from statsmodels.stats.meta_analysis import combine_effects

    d, w = np.asarray(d, float), np.asarray(w, float)
    k = len(d)
    bound = tau2_upper(d, w, level)
    found = combine_effects(d, w + bound, method_re="pm")
    weights = 1 / (w + bound)
    least = float(scipy.stats.chi2.ppf(level, k - 1)) / (k - 1) / float(weights.sum())
    hksj = float(found.var_hksj_fe)
    return WeightedMean(float(found.mean_effect_fe), max(hksj, least), bound, bound == 0 and hksj < least,
                        tuple(float(v) for v in weights / weights.sum()))


def weights_text(share: float | None) -> str:
    """', precision weights (..., the over-time block 41% of the weight)' for a method line."""
    said = f", the over-time block {100 * share:.0f}% of the weight" if share is not None else ""
    return f", {PRECISION_WORDS} (f at its Q-profile 95% upper bound, HKSJ{said})"
