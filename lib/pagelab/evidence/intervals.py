"""How sure a sweep can be: intervals for medians, for ratios between page sizes, and a verdict.

The methods follow the two papers the project takes its statistics from:

- Maricq et al., "Taming Performance Variability", OSDI 2018 (and its CONFIRM tool): run-to-run
  results on real machines are not normally distributed, so summarise with the median and a
  distribution-free confidence interval from order statistics, and say how many runs a wanted
  precision needs.
- Hoefler & Belli, "Scientific Benchmarking of Parallel Computing Systems", SC 2015: report
  medians with nonparametric intervals, say how many runs, and compare with a stated test.

A verdict between two page sizes needs two things: the bootstrap interval of the ratio of their
medians lies wholly on one side of 1, and the exact Mann-Whitney U test (a rank test, no
distribution assumed) rejects "same distribution" at 5%. The interval alone is too eager with
few runs: a percentile bootstrap from 3 runs a side calls ~11% of A/A pairs different (bench
bench_verdicts.py), and the exact test cannot reject at all with 3 against 3 (its smallest
two-sided p is 0.1). So 3 runs per page size never give a verdict; 4 give one only when every
run of one side beats every run of the other; 5 or more are the useful minimum.

Page sizes of one sweep are compared round by round. A sweep runs its page sizes in rounds (4k,
8k, 16k, then again), so the runs of a round share whatever the machine did in that minute: on
this VM a slow minute takes 10-15% off every run of its round. A comparison that treats the runs
as unrelated lets such a round widen the interval of both sides; one that keeps each round's pair
together (the design's blocks) does not. So when two page sizes have MIN_ROUNDS_FOR_PAIRED rounds
in which both finished, the bootstrap resamples rounds, not runs (`paired=True`; the resampling
unit is the independent one, Davison & Hinkley 1997, "Bootstrap Methods and their Application",
ch. 2), and the test is the exact Wilcoxon signed-rank test on the rounds' differences (Wilcoxon
1945), which needs 6 pairs to reach p < 0.05 (its smallest two-sided p is 2 / 2^n). With fewer
rounds, or for two separate sweeps (`pagelab compare`, whose runs share no rounds), the runs are
compared unpaired as above.

Everything statistical comes from scipy: `scipy.stats.quantile_test` for the order-statistic
interval of a median, `scipy.stats.binom` for the confidence a small sample's range reaches,
`scipy.stats.bootstrap` for the interval of a ratio of medians, `scipy.stats.mannwhitneyu` and
`scipy.stats.wilcoxon` for the tests, `scipy.stats.t` for the number of runs a precision needs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
# The fewest runs a side for which the exact Mann-Whitney test can reach p < 0.05 (4 against 4:
# the smallest two-sided p is 2/70).
MIN_RUNS_FOR_VERDICT = 4
# The fewest rounds for a paired comparison: the exact Wilcoxon signed-rank test cannot reach
# p < 0.05 with 5 pairs (smallest two-sided p 2/32) but can with 6 (2/64).
MIN_ROUNDS_FOR_PAIRED = 6
# Bootstrap resamples: with 9,999 the 2.5% and 97.5% percentiles move by well under 0.5% between
# seeds for samples of 3-10 runs (Davison & Hinkley 1997 advise at least 999 for 95% intervals).
RESAMPLES = 9_999
# A fixed seed, so `pagelab stats` prints the same intervals every time it reads a bundle.
BOOTSTRAP_SEED = 2026
# The difference a sweep should be able to resolve unless told otherwise: seed 002's page sizes
# differ by 3-11%, so 5% is the scale of the claims being checked.
DEFAULT_RESOLVE_PCT = 5.0
# Beyond this many runs per page size the estimate is reported as "more than".
MAX_REPEATS_ESTIMATE = 200

FASTER, SLOWER, NOT_DISTINGUISHABLE = "faster", "slower", "not distinguishable"


@dataclass(frozen=True)
class MedianInterval:
    """The median of n runs with an order-statistic interval, and the confidence it really has."""

    n: int
    median: float
    low: float
    high: float
    confidence: float

    @property
    def half_width_pct(self) -> float:
        """The interval's larger side, as a percentage of the median."""
        if self.n == 0 or self.median == 0:
            return math.nan
        return 100 * max(self.median - self.low, self.high - self.median) / abs(self.median)


def median_interval(values, confidence: float = CONFIDENCE) -> MedianInterval:
    """Median and distribution-free interval (CONFIRM's method): the pair of order statistics
    that covers the population median with `confidence`, by `scipy.stats.quantile_test`.

    Fewer than 6 runs have no such pair at 95% (the range covers the median with probability
    1 - 2 * 0.5^n: 75% for 3 runs, 94% for 5). Then the interval is the range, and `confidence`
    says what it really reaches, from the binomial distribution, rather than pretending to 95%.
    """
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if x.size == 0:
        return MedianInterval(0, math.nan, math.nan, math.nan, 0.0)
    median = float(np.median(x))
    if x.size >= 2:
        interval = stats.quantile_test(x, q=median, p=0.5).confidence_interval(confidence)
        if math.isfinite(interval.low) and math.isfinite(interval.high):
            return MedianInterval(int(x.size), median, float(interval.low), float(interval.high), confidence)
    # The range [min, max] misses the median only when every run falls on one side of it.
    reached = 1 - 2 * float(stats.binom.pmf(x.size, x.size, 0.5))
    return MedianInterval(int(x.size), median, float(x.min()), float(x.max()), max(reached, 0.0))


@dataclass(frozen=True)
class Comparison:
    """Median of `a` over median of `b`, with a bootstrap interval and what it lets one say."""

    n_a: int
    n_b: int
    ratio: float
    low: float
    high: float
    verdict: str
    repeats_needed: int | None  # runs per side that this spread needs to resolve `resolve_pct`
    resolve_pct: float
    p_value: float = math.nan  # exact Mann-Whitney U, or exact Wilcoxon signed-rank when paired; two-sided
    paired: bool = False  # compared round by round (n_a == n_b == the rounds both finished)

    @property
    def change_pct(self) -> float:
        return 100 * (self.ratio - 1)

    @property
    def low_pct(self) -> float:
        return 100 * (self.low - 1)

    @property
    def high_pct(self) -> float:
        return 100 * (self.high - 1)

    def words(self, higher: str = FASTER, lower: str = SLOWER) -> str:
        """The verdict in the metric's own words ("faster", "higher", ...)."""
        return {FASTER: higher, SLOWER: lower}.get(self.verdict, self.verdict)


def _ratio_of_medians(a, b, axis=-1):
    # A metric that is 0 in some resamples (no device I/O on a tmpfs) gives inf or nan there,
    # which the percentile interval then shows; numpy need not also warn about each one.
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.median(a, axis=axis) / np.median(b, axis=axis)


def ratio_interval(a, b, confidence: float = CONFIDENCE, paired: bool = False) -> tuple[float, float, float]:
    """(ratio, low, high): median(a) / median(b) with a percentile bootstrap interval
    (Efron & Tibshirani 1993, ch. 13), resampling each side independently, or whole rounds when
    `paired` (a[i] and b[i] ran in round i), by `scipy.stats.bootstrap`. Needs at least 2 runs on
    each side."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ratio = float(_ratio_of_medians(a, b))
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        # All runs of a side equal: the bootstrap distribution is a point, which is the answer.
        # A side whose median is 0 makes the ratios infinite, and scipy's standard error of them nan.
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap((a, b), _ratio_of_medians, vectorized=True, paired=paired,
                                 confidence_level=confidence, n_resamples=RESAMPLES, method="percentile",
                                 random_state=np.random.default_rng(BOOTSTRAP_SEED))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):
        low = high = ratio
    return ratio, min(low, ratio), max(high, ratio)


def log_spread(groups) -> float | None:
    """The pooled standard deviation of log(value) within groups: the run-to-run spread of this
    machine as a relative figure, shared by every page size. None without two runs in a group."""
    residuals, dof = [], 0
    for values in groups:
        x = np.log(np.asarray([v for v in values if v and v > 0], dtype=float))
        if x.size >= 2:
            residuals.append(x - x.mean())
            dof += x.size - 1
    if dof == 0:
        return None
    return float(math.sqrt(sum(float((r ** 2).sum()) for r in residuals) / dof))


def repeats_needed(spread: float | None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   confidence: float = CONFIDENCE) -> int | None:
    """Runs per page size for a `confidence` interval of the ratio of two page sizes to be no wider
    than ±resolve_pct, given the machine's log spread: the smallest n with
    t(1 - alpha/2, 2n - 2) * spread * sqrt(2 / n) <= log(1 + resolve_pct / 100), the sample size
    of a two-sample comparison on the log scale (Jain, "The Art of Computer Systems Performance
    Analysis", 1991, section 13.9), the t quantile from `scipy.stats.t`. This is CONFIRM's question
    (how many repetitions for a wanted precision) answered from the runs at hand rather than from
    CONFIRM's thousands of runs. None without a spread; MAX_REPEATS_ESTIMATE + 1 means "more"."""
    if spread is None:
        return None
    if spread == 0:
        return MIN_RUNS_FOR_VERDICT
    target = math.log(1 + resolve_pct / 100)
    # Below MIN_RUNS_FOR_VERDICT the rank test cannot reject, however narrow the interval.
    for n in range(MIN_RUNS_FOR_VERDICT, MAX_REPEATS_ESTIMATE + 1):
        if stats.t.ppf(1 - (1 - confidence) / 2, 2 * n - 2) * spread * math.sqrt(2 / n) <= target:
            return n
    return MAX_REPEATS_ESTIMATE + 1


def rounds_needed(ratio_spread: float | None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                  confidence: float = CONFIDENCE) -> int | None:
    """The same question for a paired comparison, from the spread of log(a_i / b_i) over rounds:
    the smallest n with t(1 - alpha/2, n - 1) * ratio_spread / sqrt(n) <= log(1 + resolve_pct / 100),
    the paired-observations interval (Jain 1991, ch. 13). Never below MIN_ROUNDS_FOR_PAIRED."""
    if ratio_spread is None:
        return None
    target = math.log(1 + resolve_pct / 100)
    for n in range(MIN_ROUNDS_FOR_PAIRED, MAX_REPEATS_ESTIMATE + 1):
        if stats.t.ppf(1 - (1 - confidence) / 2, n - 1) * ratio_spread / math.sqrt(n) <= target:
            return n
    return MAX_REPEATS_ESTIMATE + 1


def compare(a, b, spread: float | None = None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
            confidence: float = CONFIDENCE) -> Comparison:
    """Compare runs `a` with runs `b`: the verdict is FASTER when the whole interval of
    median(a) / median(b) lies above 1 and the exact Mann-Whitney U test gives p < 1 - confidence,
    SLOWER the same below 1, else NOT_DISTINGUISHABLE. With one run on a side there is no
    interval, and the verdict is NOT_DISTINGUISHABLE: one run cannot separate an effect from noise. `spread` (log_spread over every page size) sizes the runs
    needed; without it, the two sides' own spread is used."""
    a = [v for v in a if v is not None and not math.isnan(v)]
    b = [v for v in b if v is not None and not math.isnan(v)]
    if not a or not b:
        return Comparison(len(a), len(b), math.nan, math.nan, math.nan, NOT_DISTINGUISHABLE, None, resolve_pct)
    if spread is None:
        spread = log_spread([a, b])
    needed = repeats_needed(spread, resolve_pct, confidence)
    if len(a) < 2 or len(b) < 2:
        ratio = float(np.median(a) / np.median(b))
        return Comparison(len(a), len(b), ratio, math.nan, math.nan, NOT_DISTINGUISHABLE, needed, resolve_pct)
    ratio, low, high = ratio_interval(a, b, confidence)
    p_value = float(stats.mannwhitneyu(a, b, alternative="two-sided", method="exact").pvalue)
    return _judged(len(a), len(b), ratio, low, high, p_value, needed, resolve_pct, confidence, paired=False)


def _judged(n_a, n_b, ratio, low, high, p_value, needed, resolve_pct, confidence, paired) -> Comparison:
    separated = p_value < 1 - confidence
    verdict = FASTER if low > 1 and separated else SLOWER if high < 1 and separated else NOT_DISTINGUISHABLE
    return Comparison(n_a, n_b, ratio, low, high, verdict, needed, resolve_pct, p_value, paired)


def compare_rounds(a_by_round: dict, b_by_round: dict, spread: float | None = None,
                   resolve_pct: float = DEFAULT_RESOLVE_PCT, confidence: float = CONFIDENCE) -> Comparison:
    """Compare two page sizes of one sweep from their runs keyed by round (repeat number): round by
    round when both finished at least MIN_ROUNDS_FOR_PAIRED of the same rounds (see the module
    comment), else as `compare` does, every run on its own. A round in which one side failed is
    left out of the paired comparison."""
    def finished(value) -> bool:
        return value is not None and not math.isnan(value)

    rounds = sorted(r for r in a_by_round if r in b_by_round and finished(a_by_round[r]) and finished(b_by_round[r]))
    if len(rounds) < MIN_ROUNDS_FOR_PAIRED:
        return compare(list(a_by_round.values()), list(b_by_round.values()), spread, resolve_pct, confidence)
    a = np.array([a_by_round[r] for r in rounds], dtype=float)
    b = np.array([b_by_round[r] for r in rounds], dtype=float)
    ratio, low, high = ratio_interval(a, b, confidence, paired=True)
    differences = a - b
    if not differences.any():
        p_value = 1.0  # every round alike: nothing to rank
    else:
        # Rounds with no difference carry no sign and are dropped (Wilcoxon's own rule); the exact
        # distribution then holds for the rest.
        p_value = float(stats.wilcoxon(differences, zero_method="wilcox", alternative="two-sided",
                                       method="exact").pvalue)
    positive = (a > 0) & (b > 0)
    ratio_spread = float(np.std(np.log(a[positive] / b[positive]), ddof=1)) if positive.sum() >= 2 else None
    needed = rounds_needed(ratio_spread, resolve_pct, confidence)
    return _judged(len(rounds), len(rounds), ratio, low, high, p_value, needed, resolve_pct, confidence, paired=True)
