"""TpmC's pairs when some round ran on more than one node: every run of the pair compared unpaired,
with the node as a random effect.

A round is a block only while its runs shared a node (pagelab.sweep.plan). In a bundle where some
round's runs spread over nodes (one from before rounds were Slurm tasks, or a cluster's round that
a local resume finished: pagelab.bundle.with_blocks) the rounds no longer pair the runs alike, and
the nodes may differ in speed (Maricq et al., "Taming Performance Variability", OSDI 2018): a
pair judged run by run would put a node's speed into the page size that happened to run on it
more often. So such a bundle's pairs of page sizes are judged from every run of the two page
sizes, unpaired, by a linear mixed model with a random intercept per node (Laird & Ware,
"Random-effects models for longitudinal data", Biometrics 38, 1982; Pinheiro & Bates,
"Mixed-Effects Models in S and S-PLUS", 2000):

    log metric = mu + delta * [the run is of page size a] + u_node + e,
    u_node ~ N(0, s_node^2),  e ~ N(0, s^2),

fitted by REML with statsmodels' `MixedLM`; delta is the effect on the log scale, with its Wald
standard error.

Degrees of freedom (written down because the interval's honesty rests on them): N - M - 1 for N
runs of the pair on M nodes, the "between-within" rule of Pinheiro & Bates (2000, sec. 2.4.2),
the denominator degrees of freedom nlme gives a fixed effect that varies within the groups: the
runs, less one per node, less the one within-node effect. Why that is the right count and not
more: where each node ran each page size equally often, the REML estimate of delta is the
within-node least-squares contrast (the nodes' means carry nothing about delta), and its t
statistic has exactly N - M - 1 degrees of freedom under normal errors, as in a one-way layout
with the node as fixed blocks. Where a node ran one page size more often, the model adds what
the nodes' means say of delta, weighted by the variance components it estimated; the rule keeps
the within-node count there too (nlme's convention), rather than the N - 2 a pooled regression
would claim. The residual s is the runs' whole spread within a node: the minute that a round's
runs shared is not taken out (they are not paired), which makes s larger and the interval wider
than a paired analysis of the same runs, never narrower.

When REML's fit is singular (with few runs the node variance lands near 0 and the Hessian is not
positive definite, so statsmodels gives the effect no standard error: about 1 pair in 50 of
3 + 3 runs on 2 nodes), the pair is fitted with the nodes as fixed blocks instead, by ordinary
least squares: log metric = mu + delta * [a] + b_node + e. That is the estimator the argument
above reduces REML to where the page sizes are balanced over the nodes, with the same N - M - 1
degrees of freedom, and elsewhere it uses only what each node says within itself; the line names
it. Falling back to the rank tests instead would compare the runs as if the nodes were alike,
the very thing this module exists to avoid.

Below MIN_DOF degrees of freedom, or when both fits fail, `node_effect` gives None and the rank
tests judge the pair (pagelab.evidence.intervals), as each line says.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from pagelab.evidence.intervals import (
    CONFIDENCE,
    DEFAULT_EQUIVALENCE_PCT,
    DEFAULT_RESOLVE_PCT,
    NOT_RESOLVED,
    POWER,
    Comparison,
    repeats_needed,
    runs_for_equivalence,
)

NODE_MODEL_METHOD = "mixed model with the node as a random effect (MixedLM), runs unpaired"
NODE_BLOCKS_METHOD = ("the nodes as fixed blocks (least squares, as the mixed model's fit was singular), "
                      "runs unpaired")
NODE_METHODS = (NODE_MODEL_METHOD, NODE_BLOCKS_METHOD)
# The fewest degrees of freedom the model is used with: a t quantile on 1 df (12.7 at 95%) is no
# better than the rank tests' floor (as pagelab.evidence.model.MIN_BLOCKS_FOR_MODEL).
MIN_DOF = 2


def split_rounds(runs: pd.DataFrame) -> list[int]:
    """Rounds (the run table's `repeat`) whose runs ran on more than one node."""
    if runs.empty or "host" not in runs:
        return []
    hosts = runs.groupby("repeat")["host"].nunique()
    return sorted(int(repeat) for repeat in hosts[hosts > 1].index)


@dataclass(frozen=True)
class NodeEffect:
    """delta (log-scale effect of a against b) from the mixed model, its standard error and
    degrees of freedom, the runs of each side, the nodes, and the residual spread s."""

    delta: float
    se: float
    dof: int
    runs_a: int
    runs_b: int
    nodes: int
    spread: float
    method: str = NODE_MODEL_METHOD  # or NODE_BLOCKS_METHOD, when REML's fit was singular

    def interval(self, confidence: float) -> tuple[float, float]:
        half = float(stats.t.ppf(1 - (1 - confidence) / 2, self.dof)) * self.se
        return self.delta - half, self.delta + half

    @property
    def p_value(self) -> float:
        return float(2 * stats.t.sf(abs(self.delta) / self.se, self.dof))

    def comparison(self, confidence: float = CONFIDENCE, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
        """The pair as a measured, not yet judged Comparison (pagelab.evidence.intervals.judged
        judges it): exp(delta) with its t interval at `confidence`, the two-sided p, the
        detectable effect (t(1 - alpha/2) + t(POWER)) x se (Bloom 1995), and the runs a side the
        margin and `resolve_pct` would need at the residual spread, unpaired."""
        low, high = self.interval(confidence)
        quantiles = float(stats.t.ppf(1 - (1 - confidence) / 2, self.dof) + stats.t.ppf(POWER, self.dof))
        p = self.p_value
        return Comparison(self.runs_a, self.runs_b, math.exp(self.delta), math.exp(low), math.exp(high),
                          NOT_RESOLVED, repeats_needed(self.spread, resolve_pct, confidence), resolve_pct, p, False,
                          p, confidence, equivalence_pct, 100 * (math.exp(quantiles * self.se) - 1),
                          runs_for_equivalence(self.spread, equivalence_pct, False, confidence),
                          direction=int(np.sign(self.delta)),
                          method=f"{self.method}, {self.runs_a}+{self.runs_b} runs on {self.nodes} nodes, "
                                 f"t on {self.dof} df")


def node_effect(runs: pd.DataFrame, metric: str, a: str, b: str) -> NodeEffect | None:
    """Page size `a` against `b` over all their runs in `runs` (columns host, page_size, metric),
    by the mixed model of the module comment; None with fewer than two nodes, fewer than two runs
    a side, fewer than MIN_DOF degrees of freedom, or a fit that fails."""
    import statsmodels.formula.api as smf

    data = runs.loc[runs["page_size"].isin([a, b]), ["host", "page_size", metric]].dropna()
    data = data[data[metric] > 0]
    runs_a, runs_b = int((data["page_size"] == a).sum()), int((data["page_size"] == b).sum())
    nodes = int(data["host"].nunique())
    dof = len(data) - nodes - 1
    if nodes < 2 or min(runs_a, runs_b) < 2 or dof < MIN_DOF:
        return None
    data = data.assign(y=np.log(data[metric]), treated=(data["page_size"] == a).astype(float))
    for method in NODE_METHODS:
        try:
            with warnings.catch_warnings():
                # a node variance estimated at 0 (nodes alike) is a boundary fit, not a failure
                warnings.simplefilter("ignore")
                if method == NODE_MODEL_METHOD:
                    fitted = smf.mixedlm("y ~ treated", data, groups=data["host"]).fit(reml=True)
                else:
                    fitted = smf.ols("y ~ treated + C(host)", data).fit()
            delta, se = float(fitted.params["treated"]), float(fitted.bse["treated"])
            spread = math.sqrt(float(fitted.scale))
        except (ValueError, np.linalg.LinAlgError, KeyError):
            continue
        if math.isfinite(delta) and math.isfinite(se) and se > 0:
            return NodeEffect(delta, se, dof, runs_a, runs_b, nodes, spread, method)
    return None
