"""Two variance components of a sweep's throughput, from every run's interval series.

A run's log throughput y (the log of its mean rate over T measured seconds) scatters about its
page size's level in two ways:

    Var(y) = a / T + f

- a, the *within-run* component (log-scale variance x seconds): the fast noise inside a run. A
  run of T seconds averages it down as 1 / T. It is measured from the runs' own interval series
  as non-overlapping batch means (Law, "Simulation Modeling and Analysis", 5th ed. 2015, ch. 9.5;
  Alexopoulos & Goldsman, "To batch or not to batch?", ACM TOMACS 14(1), 2004): the intervals
  are grouped into batches of m, and m is the smallest size (1, 2, 4, ...) whose batch means show
  no lag-1 autocorrelation (`lag1_test`). Then a = the pooled variance of the runs' log batch
  means times the batch's seconds, with the chi-square interval of a pooled variance.
  The batch size is chosen per group of alike runs (`within_groups`): a page size's verdict runs
  together (one length, one machine state: one test has the power of all their batches), and each
  over-time run's counted part on its own. Each group's a estimates the same a (the variance x
  seconds of the batch means does not depend on m once m is past the correlation), so the groups
  are pooled by their degrees of freedom, a = sum(dof_g a_g) / sum(dof_g), on sum(dof_g) -- the
  pooled variance of independent samples (e.g. Searle et al. 1992, ch. 3). Why not one batch size
  for all the page size's runs: the test on the pooled batch means is dominated by the longest
  run, and one over-time run with a slow drift the drift test let pass pushed m to 32 intervals,
  which no 100 s verdict run fills -- a then rested on that run's 3 batch means alone (2 degrees
  of freedom) and set every run's w and the model's floor (bench/bench_within_pooling.py measures
  the bias and the model's coverage either way). Pooling assumes the groups share one a; Bartlett's
  test (`groups_differ`) checks it, and where it fails a note says so with each group's figure: on
  course-full every page size's verdict runs were noisier within than its over-time run's steady
  part (8k 4,281 against 772 %²·s), so a verdict round's own a is above the pooled one there.
  The pooled a is the page size's summary; a block's within variance uses the a of the group its
  run belongs to (`SizeComponents.role_a`: a round's run the verdict group's a, the over-time
  run its own), in the floors here, in the model's w_b (pagelab.evidence.model), and so in the
  precision weights and the planner: with the pooled a, a verdict round's w was too small and the
  over-time block's too large wherever the groups differ.
- f, the *between-run* floor (log-scale variance): what stays between runs however long they are
  (restart, restore, the machine's minute). Per page size, from the spread of its runs' y over
  the rounds; per pair, from the spread of the pair's log-ratio d_b = y_A - y_B over the blocks
  (rounds) both ran in, where what a round shares cancels: f = Var(d) - (a_A / T_A + a_B / T_B).
  It is the method-of-moments estimate of a variance component, truncated at 0 (Searle, Casella
  & McCulloch, "Variance Components", 1992, ch. 3); its interval takes the within part as known
  (it rests on far more batches than f rests on rounds) and the chi-square interval of Var(d)
  with rounds - 1 degrees of freedom, shifted by it and truncated at 0.

So a pair measured in n rounds of T seconds has Var(mean d) = (a_pair / T + f_pair) / n, with
a_pair = a_A + a_B: that is what a design is chosen from (Kalibera & Jones, "Rigorous
Benchmarking in Reasonable Time", ISMM 2013: repetitions at each level from the variance at
each level).

`variance_components` takes the runs as `RunSeries` (the interval rates of one run, its page
size and its block) and returns `VarianceComponents`; the bundle layer reads the series from each
run's tpcc_intervals.csv. The field names of these classes are a stable interface: the planner
and the bundle's components.json use them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from typing import Sequence

import numpy as np
import scipy  # scipy.stats loads on first use (2-3 s): the CLI and a run's kernel import this module without testing anything

from pagelab.evidence.intervals import CONFIDENCE
from pagelab.evidence.numbers import signed_text

# Batch sizes tried, in intervals per batch: doubling (Law 2015, ch. 9.5.3, and the batch-size
# rules reviewed by Alexopoulos & Goldsman 2004 double until the batch means look independent).
BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64)
# The level of the lag-1 test: one-sided, at 5%, for positive correlation (which makes the batch
# means' variance too small; a negative one makes it too large, which errs on the safe side).
LAG1_ALPHA = 0.05
# The level at which the groups' a are called different (`groups_differ`): a note, not a change of rule.
GROUPS_ALPHA = 0.05
GROUPS_TEST = "Bartlett's test"  # as the note names it; the report cites Bartlett 1937 where a note does
# A run takes part in the within-run estimate with at least this many batches (one difference).
MIN_BATCHES = 2
@dataclass(frozen=True)
class RunSeries:
    """One run's interval series: rates (per minute, e.g. New-Orders/min) over intervals of
    `seconds` each, in order; its page size, its block (the runs compared with each other: a
    round, or a node's round) and its role ("verdict", or "over_time" for the long runs)."""

    run: str
    page_size: str
    block: str
    rates: tuple[float, ...]
    seconds: tuple[float, ...]
    role: str = "verdict"

    @property
    def measured_s(self) -> float:
        return float(sum(self.seconds))

    @property
    def log_mean(self) -> float:
        """log of the run's mean rate, time-weighted: the run's y."""
        rates, seconds = np.asarray(self.rates, float), np.asarray(self.seconds, float)
        return float(math.log(float((rates * seconds).sum() / seconds.sum())))


@dataclass(frozen=True)
class Estimate:
    """A variance component with its interval at `confidence` and its degrees of freedom."""

    value: float
    low: float
    high: float
    dof: float
    confidence: float = CONFIDENCE

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Lag1:
    """The lag-1 test of the chosen batch size: the pooled autocorrelation of the runs' batch
    means, what it would be without correlation, and the one-sided p."""

    batch_intervals: int
    batch_s: float
    autocorrelation: float
    expected: float
    p_value: float
    independent: bool  # the test passed; False: no size passed, the largest usable one was taken


@dataclass(frozen=True)
class WithinGroup:
    """One group of alike runs of a page size (`within_groups`): its runs that had 2 or more batches
    of its own batch size, its a (log-scale variance x seconds) with degrees of freedom, and the
    lag-1 test that chose the size."""

    runs: tuple[str, ...]
    batches: int
    within_a: Estimate
    lag1: Lag1
    role: str = "verdict"  # the runs' role: "verdict", or "over_time" (one over-time run)

    @property
    def lower_bound(self) -> bool:
        """Whether this group's a is a lower bound: no batch size its runs allow passed the lag-1 test, so
        its batch means stay correlated and their variance understates a (the components' notes say so)."""
        return bool(self.batches) and not self.lag1.independent


@dataclass(frozen=True)
class SizeComponents:
    """One page size: its within-run a and between-run f, from `runs` runs (and `batches` batches)."""

    page_size: str
    runs: int  # verdict runs (the floor's); over-time runs add batches only
    batches: int
    run_s: float  # the median measured seconds of its verdict runs
    within_a: Estimate  # log-scale variance x seconds
    between_f: Estimate  # log-scale variance
    lag1: Lag1  # the test of the group with the most degrees of freedom (the verdict runs, as a rule)
    groups: tuple["WithinGroup", ...] = ()  # what a pools: each group of alike runs, its batch size and a

    def role_a(self, role: str) -> Estimate:
        """The a of a run of `role` ("verdict" or "over_time"): its group's a (the module comment),
        the over-time groups pooled if there are several; the verdict group's a when no group of that
        role has degrees of freedom, and the pooled a when neither has (or the groups are not known)."""
        for wanted in (role, "verdict"):
            found = [g for g in self.groups if g.role == wanted and g.within_a.dof > 0]
            if found:
                return found[0].within_a if len(found) == 1 else pooled_groups(found, self.within_a.confidence)
        return self.within_a

    def has_role(self, role: str) -> bool:
        """Whether a group of `role` has an a of its own (degrees of freedom above 0)."""
        return any(g.role == role and g.within_a.dof > 0 for g in self.groups)


@dataclass(frozen=True)
class PairComponents:
    """One pair's log-ratio a vs b over the blocks both ran in: within_a = a_a + a_b (log-scale
    variance x seconds), between_f its floor (log-scale variance), over `rounds` blocks of runs of
    `run_s` seconds (the median). Var of the mean log-ratio over n rounds of T s is
    (within_a / T + between_f) / n. within_a is the two verdict groups' a (a round's runs,
    `SizeComponents.role_a`); over_time_a the two over-time runs' a, None when neither page size
    has an over-time run with an a of its own."""

    a: str
    b: str
    rounds: int
    run_s: float
    within_a: Estimate
    between_f: Estimate
    over_time_a: Estimate | None = None
    # what f was estimated from (`floor_component`): the blocks' sample variance of d, and the mean
    # of their within parts a_A/T_A + a_B/T_B; kept so that several bundles' f can be pooled
    # (pagelab.evidence.pooled), which the truncated f alone does not allow
    d_variance: float = math.nan
    d_within: float = math.nan

    def round_variance(self, run_s: float | None = None) -> float:
        """Var(d) of one round of `run_s`-second runs (this pair's own length by default)."""
        return self.within_a.value / (run_s or self.run_s) + self.between_f.value


@dataclass(frozen=True)
class VarianceComponents:
    sizes: tuple[SizeComponents, ...]
    pairs: tuple[PairComponents, ...]
    confidence: float = CONFIDENCE
    notes: tuple[str, ...] = field(default_factory=tuple)

    def size(self, page_size: str) -> SizeComponents | None:
        return next((s for s in self.sizes if s.page_size == page_size), None)

    def pair(self, a: str, b: str) -> PairComponents | None:
        return next((p for p in self.pairs if (p.a, p.b) == (a, b)), None)

    def to_dict(self) -> dict:
        """JSON-able: the bundle's components.json."""
        return {"model": "Var(log run mean) = within_a / T + between_f", "confidence": self.confidence,
                "sizes": [asdict(s) for s in self.sizes], "pairs": [asdict(p) for p in self.pairs],
                "notes": list(self.notes)}


def _batch_logs(run: RunSeries, size: int) -> np.ndarray:
    """log of each whole batch of `size` intervals' mean rate (time-weighted), in order."""
    rates, seconds = np.asarray(run.rates, float), np.asarray(run.seconds, float)
    k = rates.size // size
    if k == 0:
        return np.empty(0)
    work = (rates * seconds)[: k * size].reshape(k, size).sum(axis=1)
    time = seconds[: k * size].reshape(k, size).sum(axis=1)
    with np.errstate(divide="ignore"):
        return np.log(work / time)


def lag1_test(batches: Sequence[np.ndarray]) -> tuple[float, float, float]:
    """(r1, expected, p): the lag-1 autocorrelation of batch means pooled over runs (each run
    centred on its own mean), r1 = sum z_j z_(j+1) / sum z_j^2, against what independent means
    give. Centring on a run's own mean of k values biases r1 to about -1/k (Marriott & Pope,
    "Bias in the estimation of autocorrelations", Biometrika 41, 1954), so the expected value is
    that bias weighted as the runs enter the sum; its standard error is 1 / sqrt(N) for N batch
    means (Bartlett 1946). One-sided p for positive correlation from `scipy.stats.norm`."""
    products = squares = bias = 0.0
    count = 0
    for z in batches:
        if z.size < 3:
            continue
        z = z - z.mean()
        products += float((z[:-1] * z[1:]).sum())
        squares += float((z ** 2).sum())
        bias -= (z.size - 1) / z.size  # E[sum z_j z_(j+1)] / sigma^2 for a centred series of k
        count += z.size
    if count == 0 or squares == 0:
        return math.nan, math.nan, math.nan
    # the denominator's expectation is sum (k - 1) sigma^2; bias holds sum -(k-1)/k
    expected = bias / (count - sum(1 for z in batches if z.size >= 3))
    r1 = products / squares
    return r1, expected, float(scipy.stats.norm.sf((r1 - expected) * math.sqrt(count)))


def _uncorrelated_words(group: WithinGroup) -> str:
    """Where the lag-1 test's value without correlation comes from (`lag1_test`): batch means centred on
    their own run's mean, k of them, have a lag-1 autocorrelation of -1/k when uncorrelated; runs of
    unlike k enter weighted by k - 1."""
    k = group.batches / len(group.runs) if group.runs else math.nan
    words = "uncorrelated batch means centred on their own run's mean have lag-1 −1/k, k a run's batch means"
    if k.is_integer() and math.isclose(group.lag1.expected, -1 / k):
        return f"{words}, here −1/{k:g} (Marriott & Pope 1954)"
    return f"{words}, averaged over the runs weighted by k − 1 (Marriott & Pope 1954)"


def _pooled_variance(batches: Sequence[np.ndarray]) -> tuple[float, int]:
    """The variance of batch means about their own run's mean, pooled over runs, and its dof."""
    squares, dof = 0.0, 0
    for z in batches:
        if z.size >= MIN_BATCHES:
            squares += float(((z - z.mean()) ** 2).sum())
            dof += z.size - 1
    return (squares / dof if dof else math.nan), dof


def chi2_interval(value: float, dof: float, confidence: float) -> tuple[float, float]:
    """The chi-square interval of a variance estimated with `dof` degrees of freedom."""
    if not (dof > 0 and math.isfinite(value)):
        return math.nan, math.nan
    alpha = 1 - confidence
    return (dof * value / float(scipy.stats.chi2.ppf(1 - alpha / 2, dof)),
            dof * value / float(scipy.stats.chi2.ppf(alpha / 2, dof)))


def _group_within(runs: Sequence[RunSeries], confidence: float) -> WithinGroup:
    """One group's a: the smallest batch size whose pooled batch means pass the lag-1 test (the
    largest testable one when none does), and the pooled variance of its batch means x the batch's
    seconds. Every run's intervals must be of one length (the profile's interval_s); a shorter
    last interval is left out by the caller."""
    lengths = [s for run in runs for s in run.seconds]
    if not lengths:
        return WithinGroup((), 0, Estimate(math.nan, math.nan, math.nan, 0, confidence),
                           Lag1(0, math.nan, math.nan, math.nan, math.nan, False))
    interval = float(np.median(lengths))
    chosen = None
    for size in BATCH_SIZES:
        batches = [(run.run, _batch_logs(run, size)) for run in runs]
        usable = [(name, z) for name, z in batches if z.size >= MIN_BATCHES]
        if not usable:
            break
        r1, expected, p = lag1_test([z for _, z in usable])
        candidate = (size, usable, r1, expected, p)
        if chosen is None or not math.isnan(p):
            chosen = candidate
        if math.isnan(p) or p >= LAG1_ALPHA:  # too few batches to test, or no correlation: take it
            break
    if chosen is None:  # every run shorter than 2 intervals
        return WithinGroup((), 0, Estimate(math.nan, math.nan, math.nan, 0, confidence),
                           Lag1(0, math.nan, math.nan, math.nan, math.nan, False))
    size, usable, r1, expected, p = chosen
    variance, dof = _pooled_variance([z for _, z in usable])
    batch_s = size * interval
    a = variance * batch_s
    low, high = chi2_interval(a, dof, confidence)
    lag1 = Lag1(size, batch_s, r1, expected, p, bool(math.isnan(p) or p >= LAG1_ALPHA))
    return WithinGroup(tuple(name for name, _ in usable), sum(z.size for _, z in usable),
                       Estimate(a, low, high, dof, confidence), lag1)


def within_groups(runs: Sequence[RunSeries]) -> list[list[RunSeries]]:
    """The groups of a page size's runs whose batch size is chosen together (module comment): its
    verdict runs, then each over-time run on its own."""
    verdict = [run for run in runs if run.role == "verdict"]
    return ([verdict] if verdict else []) + [[run] for run in runs if run.role != "verdict"]


def pooled_estimate(estimates: Sequence[Estimate], confidence: float = CONFIDENCE) -> Estimate:
    """Variance estimates of one quantity pooled by their degrees of freedom (the pooled variance of
    independent samples), with the chi-square interval on their sum; nan when none has any."""
    used = [e for e in estimates if e.dof > 0 and math.isfinite(e.value)]
    dof = sum(e.dof for e in used)
    if not dof:
        return Estimate(math.nan, math.nan, math.nan, 0, confidence)
    value = sum(e.dof * e.value for e in used) / dof
    low, high = chi2_interval(value, dof, confidence)
    return Estimate(value, low, high, dof, confidence)


def pooled_groups(groups: Sequence[WithinGroup], confidence: float = CONFIDENCE) -> Estimate:
    """The groups' a pooled by their degrees of freedom, with the chi-square interval on their sum."""
    return pooled_estimate([g.within_a for g in groups], confidence)


def groups_differ(groups: Sequence[WithinGroup]) -> float:
    """The p of Bartlett's test that the groups' a are one (M. S. Bartlett, "Properties of sufficiency
    and statistical tests", Proc. R. Soc. A 160, 1937, pp. 268-282, cited in the report's References
    where a note prints its p; Snedecor & Cochran, "Statistical Methods", 8th
    ed. 1989, ch. 13.9): each group's a is a variance estimate on its degrees of freedom nu_i, M = N
    ln(pooled) - sum nu_i ln a_i, N = sum nu_i, corrected by C = 1 + (sum 1/nu_i - 1/N) / (3 (k - 1)),
    and M / C referred to chi-square on k - 1 (`scipy.stats.chi2`). scipy.stats.bartlett takes raw
    samples centred on one mean each; a group's batch means are centred on each run's own mean and
    its batches differ in seconds, so the statistic is formed from the groups' figures. nan with
    fewer than 2 groups."""
    used = [g for g in groups if g.within_a.dof > 0 and g.within_a.value > 0 and math.isfinite(g.within_a.value)]
    if len(used) < 2:
        return math.nan
    nu = np.array([g.within_a.dof for g in used], float)
    a = np.array([g.within_a.value for g in used], float)
    total = float(nu.sum())
    pooled = float((nu * a).sum() / total)
    m = total * math.log(pooled) - float((nu * np.log(a)).sum())
    c = 1 + (float((1 / nu).sum()) - 1 / total) / (3 * (len(used) - 1))
    return float(scipy.stats.chi2.sf(m / c, len(used) - 1))


def within_component(runs: Sequence[RunSeries], confidence: float = CONFIDENCE,
                     groups: bool = True) -> tuple[Estimate, Lag1, int]:
    """(a, the lag-1 test of the main group's batch size, batch means used) from `runs` of one page
    size: each group of `within_groups` with its own batch size, pooled by degrees of freedom
    (module comment). `groups=False` takes one batch size for all the runs, the rule before the
    groups (kept for bench/bench_within_pooling.py's before-and-after)."""
    found = within_parts(runs, confidence) if groups else [_group_within(runs, confidence)]
    return _summary(found, confidence)


def _summary(found: Sequence[WithinGroup], confidence: float) -> tuple[Estimate, Lag1, int]:
    """(pooled a, the main group's lag-1 test -- independent only if every group's was --, batch means)."""
    main = max(found, key=lambda g: g.within_a.dof, default=None)
    if main is None:
        empty = _group_within([], confidence)
        return empty.within_a, empty.lag1, 0
    independent = all(g.lag1.independent for g in found if g.batches)
    return pooled_groups(found, confidence), replace(main.lag1, independent=independent), \
        sum(g.batches for g in found)


def within_parts(runs: Sequence[RunSeries], confidence: float = CONFIDENCE) -> list[WithinGroup]:
    """Each group of `within_groups` with its own batch size and a."""
    return [replace(_group_within(group, confidence), role=group[0].role) for group in within_groups(runs)]


def floor_component(values: Sequence[float], within: Sequence[float], within_dof: float,
                    confidence: float = CONFIDENCE) -> Estimate:
    """f from the spread of `values` (one per run or round) whose within-run variances are
    `within` (a / T for each): max(0, Var(values) - mean(within)), and its interval with the
    within part taken as known (see the module comment). nan with fewer than 2 values."""
    x = np.asarray(values, float)
    if x.size < 2:
        return Estimate(math.nan, math.nan, math.nan, 0, confidence)
    known = float(np.mean(within)) if len(within) and math.isfinite(within_dof) else 0.0
    return floor_from(float(x.var(ddof=1)), known, x.size - 1, confidence)


def floor_from(spread: float, known: float, dof: float, confidence: float = CONFIDENCE) -> Estimate:
    """f = max(0, spread - known) from a sample variance `spread` on `dof` degrees of freedom and the
    within part `known` it holds, with the chi-square interval of the spread shifted by it and
    truncated at 0 (the module comment); pagelab.evidence.pooled uses it for several bundles."""
    low, high = chi2_interval(spread, dof, confidence)
    return Estimate(max(spread - known, 0.0), max(low - known, 0.0), max(high - known, 0.0), dof, confidence)


def _sum_estimate(first: Estimate, second: Estimate, confidence: float) -> Estimate:
    """a_A + a_B with Satterthwaite's degrees of freedom (Satterthwaite, "An approximate
    distribution of estimates of variance components", Biometrics Bulletin 2(6), 1946) and the
    chi-square interval at them."""
    value = first.value + second.value
    terms = sum(e.value ** 2 / e.dof for e in (first, second) if e.dof > 0)
    dof = value ** 2 / terms if terms > 0 else 0.0
    low, high = chi2_interval(value, dof, confidence)
    return Estimate(value, low, high, dof, confidence)


def variance_components(series: Sequence[RunSeries], page_order: Sequence[str] | None = None,
                        confidence: float = CONFIDENCE) -> VarianceComponents:
    """The two components per page size and per pair (each later page size against each earlier
    one, as the verdicts pair them) from every run's series. Over-time runs add to the within
    part only (a run that long holds many batches); the floors come from the verdict runs, one
    per block. Pairs use the blocks in which both page sizes have a verdict run."""
    order = list(page_order) if page_order else list(dict.fromkeys(run.page_size for run in series))
    by_size: dict[str, list[RunSeries]] = defaultdict(list)
    for run in series:
        if run.rates:
            by_size[run.page_size].append(run)
    sizes, within, notes = [], {}, []
    for page_size in order:
        runs = by_size.get(page_size, [])
        parts = within_parts(runs, confidence)
        a, lag1, batches = _summary(parts, confidence)
        verdict = [run for run in runs if run.role == "verdict"]
        for part in parts:
            if part.lower_bound:
                whose = "its verdict runs'" if len(part.runs) > 1 else f"{part.runs[0]}'s"
                notes.append(f"{page_size}: {whose} batch means of up to {part.lag1.batch_intervals} intervals stay "
                             f"correlated (lag-1 {signed_text(part.lag1.autocorrelation, 2)} against "
                             f"{signed_text(part.lag1.expected, 2)} without correlation: {_uncorrelated_words(part)}; "
                             f"p {part.lag1.p_value:.2g}) and the runs are too short for longer batches: their part "
                             "of the within-run a is a lower bound")
        differ = groups_differ(parts)
        if differ < GROUPS_ALPHA:
            each = ", ".join(f"{'its verdict runs' if len(g.runs) > 1 else g.runs[0]} {1e4 * g.within_a.value:,.0f} "
                             f"%²·s on {g.within_a.dof:g} df" for g in parts if g.within_a.dof > 0)
            notes.append(f"{page_size}: its groups' within-run a differ ({each}; {GROUPS_TEST} p {differ:.2g}): a "
                         "pools them as one, and a's interval is narrower than the groups' spread warrants")
        size = SizeComponents(page_size, len(verdict), batches, math.nan, a, Estimate(math.nan, math.nan, math.nan, 0),
                              lag1, tuple(parts))
        within[page_size] = size
        rounds_a = size.role_a("verdict")
        f = floor_component([run.log_mean for run in verdict], [rounds_a.value / run.measured_s for run in verdict],
                            rounds_a.dof, confidence)
        run_s = float(np.median([run.measured_s for run in verdict])) if verdict else math.nan
        sizes.append(replace(size, run_s=run_s, between_f=f))
    pairs = []
    for first, second in combinations(order, 2):
        a_runs = {run.block: run for run in by_size.get(second, []) if run.role == "verdict"}
        b_runs = {run.block: run for run in by_size.get(first, []) if run.role == "verdict"}
        blocks = [block for block in a_runs if block in b_runs]
        d = [a_runs[k].log_mean - b_runs[k].log_mean for k in blocks]
        # the pair's rounds: each side's verdict group's a (SizeComponents.role_a)
        first_a, second_a = within[first].role_a("verdict"), within[second].role_a("verdict")
        w = [second_a.value / a_runs[k].measured_s + first_a.value / b_runs[k].measured_s for k in blocks]
        pair_a = _sum_estimate(second_a, first_a, confidence)
        f = floor_component(d, w, pair_a.dof, confidence)
        over_time_a = (_sum_estimate(within[second].role_a("over_time"), within[first].role_a("over_time"), confidence)
                       if within[second].has_role("over_time") or within[first].has_role("over_time") else None)
        run_s = float(np.median([a_runs[k].measured_s for k in blocks] + [b_runs[k].measured_s for k in blocks])) \
            if blocks else math.nan
        pairs.append(PairComponents(second, first, len(blocks), run_s, pair_a, f, over_time_a,
                                    float(np.var(d, ddof=1)) if len(d) > 1 else math.nan,
                                    float(np.mean(w)) if w else math.nan))
    return VarianceComponents(tuple(sizes), tuple(pairs), confidence, tuple(notes))
