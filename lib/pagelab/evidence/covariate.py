"""A pair's effect adjusted by a covariate measured before each run (CUPED), and when that is honest.

CUPED (Deng, Xu, Kohavi & Walker, "Improving the sensitivity of online controlled experiments by
utilizing pre-experiment data", WSDM 2013) lowers the variance of an effect by a covariate X that
the treatment cannot move: the estimate Y_t - Y_c - theta (X_t - X_c), theta the slope of Y on X,
has the mean of Y_t - Y_c because X_t - X_c has mean 0 *by design* (X is measured before the
treatment, and the units were randomised), and a variance smaller by the share rho^2 of it that X
predicts.

Here Y is a round's log-ratio d_b = y_A,b - y_B,b of a pair (as the two-level model's rounds,
pagelab.evidence.model) and X the same log-ratio x_b of a probe each run made before its
measurement (`run_probe`: the ramp-up's rate after the restore and the flush). The estimator is
the least-squares fit of d_b = delta + theta x_b + e_b over the n rounds (`statsmodels` OLS), delta,
the intercept at x = 0 (the rounds' mean log-ratio less theta times the probes' mean log-ratio),
the adjusted effect, with the fit's standard error s sqrt(1/n + mean(x)^2 / Sxx) on n - 2 degrees
of freedom (theta is estimated from the same rounds).

The condition, and why the ramp-up's rate does not meet it for a pair of page sizes. delta is the
effect only if the probes' log-ratio has mean 0: the probe must not depend on which page size the
run had. In an A/A (bench/bench_noise_levers.py: one page size, both sides alike) it cannot, and
there CUPED is honest and narrows the interval. A run's ramp-up, though, is TPC-C at the run's own
page size: its rate moves with the page size as the measured rate does, so for 16k against 4k the
probes' log-ratio has an unknown mean mu, and the fit above is biased by -theta mu. Estimating mu
from the same rounds (centring x at its mean, as this module first did) removes the bias and the
gain with it: the intercept of the centred fit is the rounds' mean log-ratio exactly, whose
variance is Var(d) / n whatever theta is, while the fit's standard error sqrt(s^2 / n) is the
variance given the probes' mean, smaller by the share r^2: too small for the effect. On synthetic
sweeps (bench/bench_covariate.py, 1,000 sweeps a row; the tpcc runbook's "CUPED checked") the
centred fit's 95% intervals covered 85.3-92.9% when the probe explained much (rho 0.85), and the
family called a difference with no effect in 6.5-14.4% of sweeps. The uncentred fit held its
goals (coverage 94.4-95.5%, false calls at most 5.4%) at every rho when the probe was not moved by
the page size, and failed when it was (coverage down to 74.0%, false calls up to 26.0%). So
TpmC's verdicts take no covariate: a probe that qualifies must be measured the same way whatever
the run's page size (the machine's disk or CPU just before the run), which no run records yet.

`adjusted_floor` gives the floor f left after the fit (its residual variance less the rounds'
within-run part): how much of the run-to-run spread a probe predicts, the same with or without
centring, which the noise-levers bench prints.

The probe (`run_probe`). A run's ramp-up rate on the log scale, over a length the same in every run
of a sweep, so that the probes are comparable:
- rampup_s in seconds: the driver's ramp-up transactions over the ramp-up's seconds (summary.json's
  rampup_transactions and rampup_s);
- rampup_s auto: the ramp-up's length varies with how soon the pool settles (20-55 s in the course
  sweeps), so only its first PROBE_S seconds, which every auto ramp-up has (the rule cannot end it
  before MSER-5's 4 batches of 5 one-second samples, pagelab.tpcc.schedule, unless max_rampup_s is
  shorter): the server's rows written per second over those samples (rampup_series.csv, the series
  the rule itself reads), time-weighted.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from pagelab.evidence.components import Estimate, chi2_interval
from pagelab.evidence.intervals import CONFIDENCE
from pagelab.evidence.model import OVER_TIME_BLOCK, PairEffect

# The fewest rounds: an intercept and a slope leave n - 2 degrees of freedom, and the interval
# needs at least 2 of them to be finite and not absurdly wide (t on 1 df is 12.7 at 95%).
MIN_ROUNDS_FOR_COVARIATE = 4
# The probe of an auto ramp-up: its first PROBE_S seconds, the shortest an auto ramp-up can be
# (pagelab.tpcc.schedule: MSER-5 needs 4 batches of 5 samples, one a second, before it can end it).
PROBE_S = 20.0


@dataclass(frozen=True)
class AdjustedEffect:
    """A pair's effect adjusted by its covariate (`effect`, on n - 2 df), the slope theta, the share
    of the rounds' variance the covariate explained (r^2 of the fit) and the fit's residual variance."""

    effect: PairEffect
    theta: float
    r_squared: float
    residual_variance: float  # RSS / (n - 2)


def cuped_effect(d: Sequence[float], x: Sequence[float], within: Sequence[float] | None = None) -> AdjustedEffect | None:
    """The CUPED-adjusted effect of rounds whose log-ratios are `d` and whose probes' log-ratios are
    `x`: the intercept of d on x at x = 0 (Deng et al. 2013), honest only for a probe whose expected
    log-ratio is 0 (see the module comment); `within` the rounds' within-run parts w_b (a_A / T_A +
    a_B / T_B), for the floor f left after the adjustment. None with fewer than
    MIN_ROUNDS_FOR_COVARIATE rounds, or a covariate that does not vary."""
    import statsmodels.api as sm  # loads in ~1 s: only when asked

    d, x = np.asarray(d, float), np.asarray(x, float)
    n = d.size
    if n < MIN_ROUNDS_FOR_COVARIATE or x.size != n or np.ptp(x) == 0:
        return None
    fit = sm.OLS(d, sm.add_constant(x, has_constant="add")).fit()
    residual_variance = float(fit.scale)
    w = np.asarray(within if within is not None else [], float)
    floor = max(residual_variance - (float(w.mean()) if w.size else 0.0), 0.0)
    median_within = float(np.median(w)) if w.size else 0.0
    effect = PairEffect(float(fit.params[0]), float(fit.bse[0]), float(fit.df_resid), n, floor,
                        median_within + floor)
    return AdjustedEffect(effect, float(fit.params[1]), float(fit.rsquared), residual_variance)


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
    known = float(np.mean(within)) if len(within) else 0.0
    low, high = chi2_interval(adjusted.residual_variance, dof, confidence)
    return Estimate(max(adjusted.residual_variance - known, 0.0), max(low - known, 0.0), max(high - known, 0.0), dof,
                    confidence)


# --- the probe -------------------------------------------------------------------------------------


def run_probe(run_dir: Path) -> float | None:
    """The log of a run's ramp-up rate over a length the same in every run (module comment): a fixed
    ramp-up's transactions per second, or an auto ramp-up's rows written per second over its first
    PROBE_S seconds. None when the run recorded neither."""
    try:
        summary = json.loads((Path(run_dir) / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    rule = (summary.get("rampup") or {}).get("rule", "fixed")
    if rule == "fixed":
        count, seconds = summary.get("rampup_transactions"), summary.get("rampup_s")
        if not count or not seconds or count <= 0 or seconds <= 0:
            return None
        return math.log(count / seconds)
    import pandas as pd

    path = Path(run_dir) / "rampup_series.csv"
    if not path.exists() or path.stat().st_size == 0:
        return None
    series = pd.read_csv(path)
    sample_s = float((summary.get("rampup") or {}).get("sample_s") or 1.0)
    wanted = int(round(PROBE_S / sample_s))
    if len(series) < wanted or not {"t_s", "rows_per_s"} <= set(series.columns):
        return None
    first = series.iloc[:wanted]
    seconds = np.diff(np.concatenate([[0.0], first["t_s"].to_numpy(float)]))
    rows = float((first["rows_per_s"].to_numpy(float) * seconds).sum())
    return math.log(rows / float(seconds.sum())) if rows > 0 and seconds.sum() > 0 else None


def bundle_probes(directory: Path, entries: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], float]:
    """{(page size, block): log probe} of a bundle's finished runs that recorded one (every run of
    pagelab's own driver does)."""
    from pagelab.evidence.runs import block_of

    found = {}
    for entry in entries:
        if entry["status"] == "done" and not entry.get("cell"):
            probe = run_probe(Path(directory) / entry["name"])
            if probe is not None:
                found[entry["page_size"], block_of(entry)] = probe
    return found


def pair_rounds(a: dict, b: dict, probes_a: dict, probes_b: dict, within_a: Estimate,
                within_b: Estimate) -> tuple[list[float], list[float], list[float]]:
    """(d, x, w) of a pair's rounds with a probe on both sides: the log-ratios, the probes'
    log-ratios and the within-run parts. `a`, `b` are {block: (log mean, seconds)} as for
    pagelab.evidence.model.pair_effect, `probes_a`, `probes_b` {block: log probe}. The over-time
    runs' block is left out: an over-time run measures 1200 s (12 rounds' worth), of which the
    drift check keeps all or only a first window, so what its probe predicts of it is not what a
    round's probe predicts of a round (another slope), and one such block cannot estimate its own."""
    rounds = sorted(k for k in a if k in b and k != OVER_TIME_BLOCK and k in probes_a and k in probes_b)
    return ([a[k][0] - b[k][0] for k in rounds], [probes_a[k] - probes_b[k] for k in rounds],
            [within_a.value / a[k][1] + within_b.value / b[k][1] for k in rounds])
