"""A pair's effect adjusted by a covariate measured before each run: CUPED on the rounds.

CUPED (Deng, Xu, Kohavi & Walker, "Improving the sensitivity of online controlled experiments by
utilizing pre-experiment data", WSDM 2013) lowers the variance of an effect by a covariate X
measured before the treatment could act on it: Y_adj = Y - theta (X - mean X), with theta the
regression slope of Y on X, leaves the mean where it was and removes the part of Y's variance X
predicts, a share rho^2 of it.

Here Y is a round's log-ratio d_b = y_A,b - y_B,b of a pair (as the two-level model's rounds,
pagelab.evidence.model) and X the same log-ratio of a probe each run made before its measurement
(the ramp-up's rate after the restore and the flush: what the machine gave that run just before
it measured). A slow minute of the machine that lasts into the measurement shows in both.

The estimator is the least-squares fit of d_b = delta + theta (x_b - mean x) + e_b over the n
rounds (`statsmodels` OLS: the regression the paper's theta is the slope of): delta, the intercept
at mean x, is the adjusted effect and its standard error the fit's, sqrt(s^2 / n) with s^2 the
residual variance. theta is estimated from the same rounds, so the t interval stands on n - 2
degrees of freedom, one fewer than the unadjusted mean's n - 1 (the residual degrees of freedom
of a regression with one slope). With as few rounds as a sweep has, that lost degree of freedom
can cost more than the variance removed gains; the runbook's table of noise levers measures which.

No floor at the within-run part (as the model's unadjusted interval has): a covariate that also
predicts the runs' within-run noise may rightly take the rounds' variance below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pagelab.evidence.components import Estimate, chi2_interval
from pagelab.evidence.intervals import CONFIDENCE
from pagelab.evidence.model import PairEffect

# The fewest rounds: an intercept and a slope leave n - 2 degrees of freedom, and the interval
# needs at least 2 of them to be finite and not absurdly wide (t on 1 df is 12.7 at 95%).
MIN_ROUNDS_FOR_COVARIATE = 4


@dataclass(frozen=True)
class AdjustedEffect:
    """A pair's effect adjusted by its covariate (`effect`, on n - 2 df), the slope theta and the
    share of the rounds' variance the covariate explained (r^2 of the fit)."""

    effect: PairEffect
    theta: float
    r_squared: float


def cuped_effect(d: Sequence[float], x: Sequence[float], within: Sequence[float] | None = None) -> AdjustedEffect | None:
    """The CUPED-adjusted effect of rounds whose log-ratios are `d` and whose probes' log-ratios
    are `x` (see the module comment); `within` the rounds' within-run parts w_b (a_A / T_A +
    a_B / T_B), for the floor f left after the adjustment. None with fewer than
    MIN_ROUNDS_FOR_COVARIATE rounds, or a covariate that does not vary."""
    import statsmodels.api as sm  # loads in ~1 s: only when asked

    d, x = np.asarray(d, float), np.asarray(x, float)
    n = d.size
    if n < MIN_ROUNDS_FOR_COVARIATE or x.size != n or np.ptp(x) == 0:
        return None
    design = sm.add_constant(x - x.mean(), has_constant="add")
    fit = sm.OLS(d, design).fit()
    residual_variance = float(fit.scale)  # RSS / (n - 2)
    mean_within = float(np.mean(within)) if within is not None and len(within) else 0.0
    floor = max(residual_variance - mean_within, 0.0)
    median_within = float(np.median(within)) if within is not None and len(within) else 0.0
    effect = PairEffect(float(fit.params[0]), float(fit.bse[0]), float(fit.df_resid), n, floor, median_within + floor)
    return AdjustedEffect(effect, float(fit.params[1]), float(fit.rsquared))


def adjusted_floor(d: Sequence[float], x: Sequence[float], within: Sequence[float],
                   confidence: float = CONFIDENCE) -> Estimate:
    """The between-run floor f of a pair after the adjustment: the fit's residual variance less the
    rounds' mean within-run part, truncated at 0, with the chi-square interval of the residual
    variance on n - 2 degrees of freedom shifted likewise (as pagelab.evidence.components.
    floor_component does for the unadjusted rounds on n - 1)."""
    adjusted = cuped_effect(d, x, within)
    if adjusted is None:
        return Estimate(math.nan, math.nan, math.nan, 0, confidence)
    dof = adjusted.effect.dof
    residual_variance = adjusted.effect.se ** 2 * adjusted.effect.blocks
    known = float(np.mean(within)) if len(within) else 0.0
    low, high = chi2_interval(residual_variance, dof, confidence)
    return Estimate(max(residual_variance - known, 0.0), max(low - known, 0.0), max(high - known, 0.0), dof,
                    confidence)
