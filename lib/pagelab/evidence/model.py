"""The page-size effect on log TpmC from both variance components, and what of the over-time runs
may count.

The model. A run's log TpmC is y = level(page size) + block + e, Var(e) = a / T + f
(pagelab.evidence.components): the block (a round: the runs that shared the machine's minute)
is a random effect that every within-block comparison cancels, and the run is one through f. So
a pair's log-ratio in block b, d_b = y_A,b - y_B,b, has mean delta (the effect) and variance
sigma_b^2 = w_b + f, with w_b = a_A / T_A,b + a_B / T_B,b known from the runs' batch means and f
the pair's between-run floor; each a is that of the group the block's run belongs to (`block_a`:
a round's the verdict runs', the over-time block's the over-time run's own, as
pagelab.evidence.components groups them). The two-stage estimator of this mixed model (runs summarised by
their means with known within-run variance, then a model over the blocks) takes delta as the
mean of the d_b, each block one unit, and Var(mean d) = mean(sigma_b^2) / n, estimated by S^2 / n,
S^2 the blocks' sample variance, which estimates mean(sigma_b^2) without bias whatever f is. mean w
is a floor below which mean(sigma_b^2) cannot truly lie (f >= 0): when S^2 falls below the 5%
quantile that S^2 would have with f = 0, mean w chi2(0.05, n - 1) / (n - 1), that quantile is
taken instead, so a few rounds that happen to agree do not narrow the interval below what the
runs' own noise allows. (The floor at mean w itself would be conservative: with a small f, S^2
falls below it half the time, and 95% intervals covered 98% in bench/bench_evidence_model.py.) The
over-time runs' block (`over_time_use`) is one more block of the same weight: weighting it by
its smaller w would make it dominate exactly when f is least known. A sweep may declare the other
choice before its data, `block_weights: precision` (pagelab.evidence.block_weights: each block
weighed by its precision at an upper bound of f, measured to keep its coverage).

Degrees of freedom (written down because the interval's honesty rests on it): the blocks' count
minus 1. Satterthwaite's approximation (Satterthwaite, "An approximate distribution of estimates
of variance components", Biometrics Bulletin 2(6), 1946), applied to V = (mean w + f) / n with
f = S^2 - mean w as for a mixed model's contrast (Giesbrecht & Burns, "Two-stage analysis based
on a mixed model", Biometrics 41, 1985), gives exactly n - 1: the within parts cancel, and V
rests on the between-round variance S^2 alone, however small f is. So the rounds' count is what
the t interval stands on, never the thousands of batch means; a smaller f shows as a smaller S^2
and a shorter interval, not as more degrees of freedom. The t quantile and p come from
`scipy.stats.t`; with blocks alike this is the paired t interval (Jain 1991, ch. 13.4) with a
floor from the within-run component.

Below MIN_BLOCKS_FOR_MODEL blocks, or when a run kept no interval series, the exact rank tests
(pagelab.evidence.intervals) judge the pair instead, and the line says which method was used.

Two estimates compared (`effect_gap`): one pair's effect in two independent sets of blocks -- two
sweeps (`pagelab compare`), or a sweep's odd and even rounds (the A/A self-check) -- differs by
delta_1 - delta_2 with standard error sqrt(se_1^2 + se_2^2). Each variance rests on its own blocks
(n_i - 1 degrees of freedom), so the difference is referred to a t distribution with Welch's
degrees of freedom (B. L. Welch, "The generalization of 'Student's' problem when several different
population variances are involved", Biometrika 34, 1947; Satterthwaite 1946 above):
(se_1^2 + se_2^2)^2 / (se_1^4 / (n_1 - 1) + se_2^4 / (n_2 - 1)), between the smaller of the two
and their sum. Where a floor set a side's variance, that side's variance is no longer a sample
variance; it is then larger than the sample's, which errs on the safe side.

Over-time runs. Each is one long run per page size after the rounds, in an order drawn from the
seed: together one more block. What of it counts is decided before it enters (`over_time_use`):
its warm-up is cut by MSER-5 (pagelab.evidence.steady), then the rest is tested for drift, the
slope of its batch means over time (`scipy.stats.linregress`, two-sided at DRIFT_ALPHA, over
steady.BATCHES batch means; a batch size chosen by the lag-1 test would grow with the drift and
hide it). Without drift the whole
rest counts; with drift only its first window of the verdict runs' length (the drift has least
effect there, and that window is like a round's run); the report says which and why. A pair then
compares its two over-time runs over the seconds both counted (`shared_window`, at the end of this
file), or, where they share less than a verdict run's length, has no over-time block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy  # scipy.stats loads on first use (2-3 s): the CLI and a run's kernel import this module without testing anything

from pagelab.evidence.block_weights import EQUAL, PRECISION, precision_mean, weights_text
from pagelab.evidence.components import Estimate, RunSeries, SizeComponents, variance_components
from pagelab.evidence.intervals import (
    CONFIDENCE,
    DEFAULT_EQUIVALENCE_PCT,
    DEFAULT_RESOLVE_PCT,
    NOT_RESOLVED,
    Comparison,
    POWER,
    rounds_needed,
    runs_for_equivalence,
)
from pagelab.evidence.numbers import signed_text
from pagelab.evidence.steady import BATCHES, mser5

# The fewest blocks the model is used with: below 3, f rests on one degree of freedom or none, and
# a t quantile on 1 df (12.7 at 95%) is no better than the rank tests' floor.
MIN_BLOCKS_FOR_MODEL = 3
# The level of the drift test of an over-time run's batch means.
DRIFT_ALPHA = 0.05
MODEL_METHOD = "two-level model"
# The block of the over-time runs (pagelab.evidence.runs.block_of), and how a count of blocks that
# holds it is said: beside "7 runs per page size" a reader must see the eighth block is not a round.
OVER_TIME_BLOCK = "over-time"
OVER_TIME_BLOCK_WORDS = "and the over-time runs' block)"


def blocks_text(blocks: int, over_time: bool) -> str:
    """'8 blocks (the 7 rounds and the over-time runs' block)', or '7 blocks' without that block."""
    return f"{blocks} blocks (the {blocks - 1} rounds {OVER_TIME_BLOCK_WORDS}" if over_time else f"{blocks} blocks"
# How far below the within-run part the blocks' sample variance may fall before the floor binds:
# its 5% quantile when f = 0 (S^2 ~ mean w * chi2(n - 1) / (n - 1)).
FLOOR_QUANTILE = 0.05


def t_interval(estimate: float, se: float, dof: float, confidence: float) -> tuple[float, float]:
    """The two-sided t interval of `estimate` at `confidence` (quantile from `scipy.stats.t`)."""
    half = float(scipy.stats.t.ppf(1 - (1 - confidence) / 2, dof)) * se
    return estimate - half, estimate + half


def t_p_value(estimate: float, se: float, dof: float) -> float:
    """The two-sided t-test's p of estimate / se on `dof` degrees of freedom (`scipy.stats.t`)."""
    if se == 0:
        return 0.0 if estimate else 1.0
    return float(2 * scipy.stats.t.sf(abs(estimate) / se, dof))


@dataclass(frozen=True)
class PairEffect:
    """delta (log-scale effect of a against b), its standard error, degrees of freedom and blocks."""

    delta: float
    se: float
    dof: float
    blocks: int
    floor: float  # the pair's between-run floor f, estimated from these blocks (truncated at 0)
    round_variance: float  # Var(d) of one verdict round: the median w plus f
    floored: bool = False  # whether the floor from the within-run part set the variance (module comment)
    over_time_block: bool = False  # whether the over-time runs' block is among the blocks
    weights: str = EQUAL  # how the blocks were weighed: "equal", or "precision" (pagelab.evidence.block_weights)
    block_shares: tuple[tuple[str, float], ...] = ()  # each block's share of the weight, with precision weights

    def interval(self, confidence: float) -> tuple[float, float]:
        return t_interval(self.delta, self.se, self.dof, confidence)

    @property
    def p_value(self) -> float:
        return t_p_value(self.delta, self.se, self.dof)

    @property
    def over_time_share(self) -> float | None:
        """The over-time block's share of the weight (1 / blocks with equal weights); None without it."""
        if not self.over_time_block:
            return None
        return dict(self.block_shares).get(OVER_TIME_BLOCK) if self.weights == PRECISION else 1 / self.blocks

    def comparison(self, confidence: float = CONFIDENCE, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
        return model_comparison(self, confidence, resolve_pct, equivalence_pct)


def block_a(within: Estimate | SizeComponents, block: str) -> Estimate:
    """The a of a page size's run in `block`: its group's (SizeComponents.role_a: the over-time
    block's run its own, a round's run the verdict runs'); a bare Estimate is every run's a."""
    if isinstance(within, Estimate):
        return within
    return within.role_a("over_time" if block == OVER_TIME_BLOCK else "verdict")


def block_terms(a: dict, b: dict, within_a: Estimate | SizeComponents, within_b: Estimate | SizeComponents,
                blocks: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each block's log-ratio d_b = y_a - y_b and within-run variance w_b = a_A/T_A + a_B/T_B, in
    `blocks`' order (`pair_effect`; the report's table of a pair's blocks shows them)."""
    d = np.array([a[k][0] - b[k][0] for k in blocks])
    w = np.array([block_a(within_a, k).value / a[k][1] + block_a(within_b, k).value / b[k][1] for k in blocks])
    return d, w


def pair_effect(a: dict, b: dict, within_a: Estimate | SizeComponents, within_b: Estimate | SizeComponents,
                weights: str = EQUAL) -> PairEffect | None:
    """The model's estimate of a against b: `a` and `b` are {block: (y, T)} of each side's runs
    (log mean rate, measured seconds); `within_a`/`within_b` each page size's components, whose
    run in a block has its group's a (`block_a`), or one a for all its runs. None with fewer
    than MIN_BLOCKS_FOR_MODEL blocks in common. See the module comment for the estimator and its
    degrees of freedom; `weights` "precision" (the declared block_weights) weighs the blocks by
    their precision instead (pagelab.evidence.block_weights)."""
    blocks = sorted(block for block in a if block in b)
    if len(blocks) < MIN_BLOCKS_FOR_MODEL or not (block_a(within_a, "").dof > 0 and block_a(within_b, "").dof > 0):
        return None
    d, w = block_terms(a, b, within_a, within_b, blocks)
    n = len(blocks)
    total = float(d.var(ddof=1))
    f = max(total - float(w.mean()), 0.0)
    if weights == PRECISION:
        found = precision_mean(d, w, FLOOR_QUANTILE)
        return PairEffect(found.estimate, math.sqrt(found.variance), float(n - 1), n, f, float(np.median(w)) + f,
                          found.floored, OVER_TIME_BLOCK in blocks, PRECISION, tuple(zip(blocks, found.shares)))
    # Var(d_b) = w_b + f >= w_b: a sample variance of the rounds far below what the runs' own
    # series imply is chance, and the interval does not narrow on it (see the module comment).
    floor = float(w.mean()) * float(scipy.stats.chi2.ppf(FLOOR_QUANTILE, n - 1)) / (n - 1)
    variance = max(total, floor) / n
    return PairEffect(float(d.mean()), math.sqrt(variance), float(n - 1), n, f, float(np.median(w)) + f,
                      total < floor, OVER_TIME_BLOCK in blocks)


def model_comparison(effect: PairEffect, confidence: float = CONFIDENCE, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                     equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
    """The pair as a measured, not yet judged Comparison (pagelab.evidence.intervals.judged judges
    it): the effect as a ratio exp(delta) with its t interval at `confidence`, the two-sided p, the
    detectable effect (t(1 - alpha/2) + t(POWER)) x se (Bloom 1995), and the rounds the margin and
    `resolve_pct` would need at one round's variance."""
    low, high = effect.interval(confidence)
    quantiles = float(scipy.stats.t.ppf(1 - (1 - confidence) / 2, effect.dof) + scipy.stats.t.ppf(POWER, effect.dof))
    detectable = 100 * (math.exp(quantiles * effect.se) - 1)
    round_spread = math.sqrt(effect.round_variance)
    p = effect.p_value
    return Comparison(effect.blocks, effect.blocks, math.exp(effect.delta), math.exp(low), math.exp(high),
                      NOT_RESOLVED, rounds_needed(round_spread, resolve_pct, confidence), resolve_pct, p, True, p,
                      confidence, equivalence_pct, detectable,
                      runs_for_equivalence(round_spread, equivalence_pct, True, confidence),
                      direction=int(np.sign(effect.delta)),
                      method=f"{MODEL_METHOD}, {blocks_text(effect.blocks, effect.over_time_block)}"
                             f"{weights_text(effect.over_time_share) if effect.weights == PRECISION else ''}, t on "
                             f"{effect.dof:g} df")


def model_effects(series: Sequence[RunSeries], page_order: Sequence[str],
                  pairs: Sequence[tuple[str, str]], weights: str = EQUAL) -> list[PairEffect | None]:
    """The model's estimate of each (a, b) of `pairs` from `series` alone (the over-time runs as
    far as `counted_series` lets them count; the components from these runs too), None where a
    page size has too few blocks. Every run of a page size is taken to have kept its series: the
    caller leaves out a page size one of whose runs did not."""
    counted, uses = counted_series(series)
    components = variance_components(counted, page_order)
    within = {size.page_size: size for size in components.sizes}
    by_size = {size: {run.block: (run.log_mean, run.measured_s) for run in counted if run.page_size == size}
               for size in page_order}
    long_runs = over_time_runs(series, uses)
    return [pair_effect(*long_runs.sides(a, b, by_size[a], by_size[b]), within[a], within[b], weights)
            for a, b in pairs]


@dataclass(frozen=True)
class EffectGap:
    """One pair's effect in two independent sets of blocks, first minus second (log scale), with
    Welch's degrees of freedom (see the module comment)."""

    first: PairEffect
    second: PairEffect

    @property
    def difference(self) -> float:
        return self.first.delta - self.second.delta

    @property
    def se(self) -> float:
        return math.sqrt(self.first.se ** 2 + self.second.se ** 2)

    @property
    def dof(self) -> float:
        parts = [e.se ** 4 / e.dof for e in (self.first, self.second)]
        return self.se ** 4 / sum(parts) if sum(parts) > 0 else self.first.dof + self.second.dof

    def interval(self, confidence: float) -> tuple[float, float]:
        return t_interval(self.difference, self.se, self.dof, confidence)

    @property
    def p_value(self) -> float:
        return t_p_value(self.difference, self.se, self.dof)

    @property
    def method(self) -> str:
        return (f"{MODEL_METHOD} in each ({self.first.blocks} and {self.second.blocks} blocks), Welch-Satterthwaite "
                f"t on {self.dof:.1f} df")


# --- the over-time runs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OverTimeUse:
    """What of one over-time run counts: seconds cut as warm-up, seconds counted of the measured,
    and why."""

    run: str
    page_size: str
    measured_s: float
    cut_s: float
    counted_s: float
    drift_pct_per_min: float
    drift_p: float
    why: str


def over_time_use(run: RunSeries, verdict_s: float) -> tuple[RunSeries | None, OverTimeUse]:
    """The part of an over-time run that enters the model (None if none) and what was decided."""
    rates = np.asarray(run.rates, float)
    seconds = np.asarray(run.seconds, float)
    truncation = mser5(np.log(rates))
    cut = truncation.cut if truncation.level else 0
    rest = RunSeries(run.run, run.page_size, run.block, tuple(rates[cut:]), tuple(seconds[cut:]), run.role)
    cut_s = float(seconds[:cut].sum())
    # BATCHES batch means (Schmeiser 1982's lower end, as steady.batch_means): a batch size chosen
    # by the lag-1 test would grow with the drift itself and hide it in a few batches.
    size = len(rest.rates) // BATCHES
    if size < 1:
        return None, OverTimeUse(run.run, run.page_size, run.measured_s, cut_s, 0.0, math.nan, math.nan,
                                 "too short for a drift test")
    k = BATCHES
    work = (rates[cut:] * seconds[cut:])[: k * size].reshape(k, size).sum(axis=1)
    time = seconds[cut:][: k * size].reshape(k, size).sum(axis=1)
    centres = np.cumsum(time) - time / 2
    fit = scipy.stats.linregress(centres / 60, np.log(work / time))
    drift, p = 100 * float(fit.slope), float(fit.pvalue)
    # Said as the test found it: a slope it did not call is "drift not detected", never "no drift"
    # (absence of evidence is not a finding); `pagelab stats` and the report print these words.
    warmup = f"MSER-5 cut {cut_s:g} s of warm-up" if cut_s else "MSER-5 cut nothing"
    slope = f"{signed_text(drift)}%/min, p {p:.2g}"
    if p >= DRIFT_ALPHA:
        return rest, OverTimeUse(run.run, run.page_size, run.measured_s, cut_s, rest.measured_s, drift, p,
                                 f"{warmup}; drift not detected over the rest ({slope}): all of it counts")
    window = int(np.searchsorted(np.cumsum(seconds[cut:]), verdict_s - 1e-9)) + 1
    first = RunSeries(run.run, run.page_size, run.block, tuple(rates[cut:cut + window]),
                      tuple(seconds[cut:cut + window]), run.role)
    return first, OverTimeUse(run.run, run.page_size, run.measured_s, cut_s, first.measured_s, drift, p,
                              f"{warmup}; the rest drifts, drift detected ({slope}): only its first "
                              f"{first.measured_s:g} s count, a verdict run's length")


def verdict_length(series: Sequence[RunSeries]) -> float:
    """The verdict runs' median measured seconds (0 without any): what an over-time run is judged against."""
    lengths = [run.measured_s for run in series if run.role != "over_time"]
    return float(np.median(lengths)) if lengths else 0.0


def counted_series(series: Sequence[RunSeries]) -> tuple[list[RunSeries], list[OverTimeUse]]:
    """The series that enter the model: every verdict run whole, and of each over-time run what
    `over_time_use` lets count (judged against the verdict runs' median length)."""
    verdict = [run for run in series if run.role != "over_time"]
    verdict_s = verdict_length(series)
    counted, uses = list(verdict), []
    for run in series:
        if run.role == "over_time":
            part, use = over_time_use(run, verdict_s)
            uses.append(use)
            counted += [part] if part is not None else []
    return counted, uses


# --- a pair's over-time block: its two runs over the same seconds ---------------------------------
#
# Each over-time run counts its own window of the measurement: after its own warm-up cut, and only
# its first verdict-run length where it drifted (`over_time_use`). Two such windows can lie far
# apart (one run's first 90 s, the other's 200-1200 s), and over a long run the database grows and
# the rate falls, so a log-ratio of unequal windows measures when as much as which page size. A
# pair's over-time block therefore compares its two runs over the seconds both counted, and a pair
# whose runs share less than a verdict run's length has no over-time block: its blocks are its rounds.


def shared_window(first: OverTimeUse, second: OverTimeUse, verdict_s: float) -> tuple[float, float] | None:
    """The seconds of the measurement both runs counted, (start, end); None when they share less than
    a verdict run's `verdict_s` (or nothing)."""
    start = max(first.cut_s, second.cut_s)
    end = min(first.cut_s + first.counted_s, second.cut_s + second.counted_s)
    if end <= start or end - start < verdict_s - 1e-6:
        return None
    return start, end


def window_part(run: RunSeries, start: float, end: float) -> RunSeries:
    """The intervals of `run` that lie wholly within [start, end) of its measured seconds."""
    seconds = np.asarray(run.seconds, float)
    ends = np.cumsum(seconds)
    keep = (ends - seconds >= start - 1e-6) & (ends <= end + 1e-6)
    return RunSeries(run.run, run.page_size, run.block, tuple(np.asarray(run.rates, float)[keep]),
                     tuple(seconds[keep]), run.role)


@dataclass(frozen=True)
class OverTimeRuns:
    """The over-time runs as the pairs take them: each page size's whole series and what of it
    counted, and the verdict runs' length a shared window must reach."""

    series: dict  # {page size: its over-time RunSeries, whole}
    uses: dict  # {page size: OverTimeUse}
    verdict_s: float

    def window(self, a: str, b: str) -> tuple[float, float] | None:
        """The seconds pair a, b compares its over-time runs over; None without a shared window."""
        if a not in self.uses or b not in self.uses or a not in self.series or b not in self.series:
            return None
        return shared_window(self.uses[a], self.uses[b], self.verdict_s)

    def sides(self, a: str, b: str, a_blocks: dict, b_blocks: dict) -> tuple[dict, dict]:
        """{block: (y, T)} of each side for pair a, b: the rounds as they are, and the over-time block
        over the shared window, or left out of both sides without one."""
        a_blocks, b_blocks = dict(a_blocks), dict(b_blocks)
        window = self.window(a, b)
        if window is None:
            a_blocks.pop(OVER_TIME_BLOCK, None)
            b_blocks.pop(OVER_TIME_BLOCK, None)
            return a_blocks, b_blocks
        for blocks, size in ((a_blocks, a), (b_blocks, b)):
            part = window_part(self.series[size], *window)
            blocks[OVER_TIME_BLOCK] = (part.log_mean, part.measured_s)
        return a_blocks, b_blocks


def over_time_runs(series: Sequence[RunSeries], uses: Sequence[OverTimeUse]) -> OverTimeRuns:
    """`OverTimeRuns` of `series`, with the `uses` counted_series decided."""
    whole = {run.page_size: run for run in series if run.role == "over_time"}
    return OverTimeRuns(whole, {use.page_size: use for use in uses if use.counted_s > 0}, verdict_length(series))
