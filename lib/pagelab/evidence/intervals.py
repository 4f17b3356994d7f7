"""How sure a sweep can be: intervals for medians, for ratios between page sizes, and a verdict.

Every comparison leads with its effect and interval (Hoefler & Belli 2015; Kalibera & Jones,
"Rigorous Benchmarking in Reasonable Time", ISMM 2013), and the word after it is read off the
interval and a stated margin delta (`equivalence_pct`):

- faster / slower: the interval lies wholly on one side of 1 and the rank test agrees (below);
- equivalent within +-delta: the interval lies wholly inside +-delta. That is the two one-sided
  tests (TOST, Schuirmann 1987, J. Pharmacokinet. Biopharm. 15(6)) at the interval's own level:
  a (1 - alpha) two-sided interval inside the margin rejects both "at least +delta" and "at most
  -delta" at alpha / 2 each; like the verdicts it needs MIN_RUNS_FOR_VERDICT runs a side;
- not resolved: anything else. Then the comparison carries the smallest effect these runs could
  resolve at this spread (`detectable_pct`, the minimum detectable effect at 80% power, Bloom 1995,
  "Minimum Detectable Effects", Evaluation Review 19(5)) and the runs that delta would need
  (`runs_for_equivalence`), so "the data show no difference above 2%" and "the data cannot tell
  2% from 20%" never read alike.

A comparison here is one pair; `pagelab.evidence.families` judges a family of pairs together (Holm
for the p-values, Bonferroni for the interval level).

The methods follow the two papers the project takes its statistics from:

- Maricq et al., "Taming Performance Variability", OSDI 2018 (and its CONFIRM tool): run-to-run
  results on real machines are not normally distributed, so summarise with the median and a
  distribution-free confidence interval from order statistics, and say how many runs a wanted
  precision needs.
- Hoefler & Belli, "Scientific Benchmarking of Parallel Computing Systems", SC 2015: report
  medians with nonparametric intervals, say how many runs, and compare with a stated test.

A verdict between two page sizes needs two things: the bootstrap interval of the ratio of their
medians lies wholly on one side of 1, and the exact Mann-Whitney U test (a rank test, no
distribution assumed) rejects "same distribution" at 5%, pointing the same way. The interval
alone is too eager with few runs: a percentile bootstrap from 3 runs a side calls ~11% of A/A
pairs different (bench bench_verdicts.py), and the exact test cannot reject at all with 3
against 3 (its smallest two-sided p is 0.1). So for a single pair, 3 runs per page size never give a verdict; 4 give one
only when every run of one side beats every run of the other; 5 or more are the useful minimum. A
family of pairs raises the floor (pagelab.evidence.families.smallest_family_p).

Page sizes of one sweep are compared round by round. A sweep runs its page sizes in rounds (each
once per round, in an order drawn from its seed), so the runs of a round share whatever the machine did in that minute: on
this VM a slow minute takes 10-15% off every run of its round. A comparison that treats the runs
as unrelated lets such a round widen the interval of both sides; one that keeps each round's pair
together (the design's blocks) does not. So when two page sizes have MIN_ROUNDS_FOR_PAIRED rounds
in which both finished, the bootstrap resamples rounds, not runs (`paired=True`; the resampling
unit is the independent one, Davison & Hinkley 1997, "Bootstrap Methods and their Application",
ch. 2), and the test is the exact Wilcoxon signed-rank test on the rounds' differences (Wilcoxon
1945), which needs 6 pairs to reach p < 0.05 (its smallest two-sided p is 2 / 2^n). With fewer
rounds, or for two separate sweeps (`pagelab compare`, whose runs share no rounds), the runs are
compared unpaired as above.

Everything statistical comes from scipy: `scipy.stats.binom` for the order-statistic interval of
a median and the confidence it really has (Conover, "Practical Nonparametric Statistics", 3rd ed.
1999, ch. 3: the confidence interval for a quantile from the binomial distribution),
`scipy.stats.bootstrap` for the interval of a ratio of medians, `scipy.stats.mannwhitneyu` and
`scipy.stats.wilcoxon` for the tests, `scipy.stats.t` for the number of runs a precision needs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy  # scipy.stats loads on first use (2-3 s): the CLI and a run's kernel import this module without testing anything

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
# The difference a sweep should be able to resolve unless told otherwise: the Week 4 lab's page sizes
# differ by 3-11%, so 5% is the scale of the claims being checked.
DEFAULT_RESOLVE_PCT = 5.0
# Beyond this many runs per page size the estimate is reported as "more than".
MAX_REPEATS_ESTIMATE = 200

# The margin within which two page sizes count as the same, in percent: a knob (equivalence_pct), whose
# default this is. The Week 4 lab's page sizes differ by 3-11%, so 3% is below every effect it claims.
DEFAULT_EQUIVALENCE_PCT = 3.0
# The power the minimum detectable effect and the runs for equivalence are stated at (Cohen's 80%).
POWER = 0.8

FASTER, SLOWER, EQUIVALENT, NOT_RESOLVED = "faster", "slower", "equivalent", "not resolved"


@dataclass(frozen=True)
class MedianInterval:
    """The median of n runs with an order-statistic interval, and the confidence it really has.

    low and high are the `low_rank`-th and `high_rank`-th smallest runs (1-based; 1 and n: the
    range); `confidence` is the probability that such an interval holds the population median,
    which with few runs is not the level asked for (`asked`): a sample has only n + 1 gaps for a
    bound to fall in, so the coverage moves in steps."""

    n: int
    median: float
    low: float
    high: float
    confidence: float
    low_rank: int = 0
    high_rank: int = 0
    asked: float = CONFIDENCE

    @property
    def far_end_pct(self) -> float:
        """The larger of the two distances from the median to the interval's ends, as a percentage
        of the median: an order-statistic interval need not be symmetric, so this is not a
        half-width; it is how far the interval reaches on its longer side."""
        if self.n == 0 or self.median == 0:
            return math.nan
        return 100 * max(self.median - self.low, self.high - self.median) / abs(self.median)


def median_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """(r, s, coverage): the 1-based ranks of the order statistics x(r) <= x(s) that bound the
    median of n runs at `confidence` or more, and the coverage they really have. With B the number
    of runs below the population median, B ~ Binomial(n, 1/2) whatever the runs' distribution, and
    [x(r), x(s)] misses the median only when B < r or B >= s, so its coverage is
    P(r <= B <= s - 1) (Conover 1999, ch. 3). r is the largest rank with P(B <= r - 1) <= alpha / 2,
    s = n + 1 - r by symmetry; when even the range (r = 1) falls short of `confidence`, the range
    it is, with the coverage it reaches, 1 - 2 * 0.5^n (75% for 3 runs, 93.75% for 5). By
    `scipy.stats.binom`; n >= 2."""
    binomial = scipy.stats.binom(n, 0.5)
    ranks = np.arange(1, (n + 1) // 2 + 1)  # the lower bound's rank never passes the median's
    holding = ranks[binomial.cdf(ranks - 1) <= (1 - confidence) / 2]
    r = int(holding[-1]) if holding.size else 1
    s = n + 1 - r
    return r, s, order_coverage(n, r, s)


def order_coverage(n: int, r: int, s: int) -> float:
    """The probability that [x(r), x(s)], the r-th and s-th smallest of n runs, holds the
    population median: P(r <= B <= s - 1) for B ~ Binomial(n, 1/2) (`scipy.stats.binom`)."""
    return float(scipy.stats.binom.cdf(s - 1, n, 0.5) - scipy.stats.binom.cdf(r - 1, n, 0.5))


def median_interval(values, confidence: float = CONFIDENCE) -> MedianInterval:
    """Median and distribution-free interval (CONFIRM's method; Conover 1999, ch. 3): the pair of
    order statistics that covers the population median with at least `confidence`
    (`median_ranks`), and the confidence that pair really has. That is more than asked whenever no
    narrower pair reaches it (7 runs: the range, 98.4%, as the 2nd to 6th reach only 87.5%), and
    less with fewer than 6 runs, which have no pair at 95%: then the interval is the range, and
    `confidence` says what it really reaches rather than pretending to 95%."""
    x = np.sort(np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float))
    if x.size == 0:
        return MedianInterval(0, math.nan, math.nan, math.nan, 0.0, asked=confidence)
    median = float(np.median(x))
    if x.size == 1:  # one run: a value, not an interval
        return MedianInterval(1, median, median, median, 0.0, 1, 1, confidence)
    r, s, coverage = median_ranks(int(x.size), confidence)
    return MedianInterval(int(x.size), median, float(x[r - 1]), float(x[s - 1]), coverage, r, s, confidence)


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
    p_adjusted: float = math.nan  # Holm-adjusted over the family (pagelab.evidence.families); p_value alone
    confidence: float = CONFIDENCE  # the interval's level: Bonferroni-adjusted in a family of several pairs
    equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT  # the margin delta of "equivalent"
    detectable_pct: float = math.nan  # the minimum detectable effect at these runs and this spread, in %
    runs_for_equivalence: int | None = None  # runs (rounds when paired) a side for +-delta; > MAX: "more"
    family_size: int = 1  # the pairs judged together (the Holm and Bonferroni m)
    # Which way the rank test points: +1 when a ranks above b, -1 below, 0 untested or even. A
    # verdict needs it to agree with the interval: a ratio of medians can lie above 1 while most
    # rounds have a below b (a few large rounds one way, many small ones the other).
    direction: int = 0
    # How the pair was judged: the test and what it paired ("Wilcoxon signed-rank, 7 rounds", or
    # the two-level model's line, pagelab.evidence.model); the printed line says it.
    method: str = ""
    # In a family with a declared primary comparison (pagelab.evidence.families): "primary", the
    # pairs tested after it "after the primary", else "".
    role: str = ""
    # Why a pair whose test rejected was still not called (`judged`): "interval" when its interval
    # reaches across no change, "direction" when the test points the other way; else "".
    test_alone: str = ""

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


def verdict_text(verdict: str, equivalence_pct: float) -> str:
    """A verdict as it reads after an interval: "equivalent within ±3%", or the word itself."""
    return f"{EQUIVALENT} within ±{equivalence_pct:g}%" if verdict == EQUIVALENT else verdict


def _ratio_of_medians(a, b, axis=-1):
    # A metric that is 0 in some resamples (no device I/O on a tmpfs) gives inf or nan there,
    # which the percentile interval then shows; numpy need not also warn about each one.
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.median(a, axis=axis) / np.median(b, axis=axis)


def ratio_interval(a, b, confidence: float = CONFIDENCE, paired: bool = False) -> tuple[float, float, float]:
    """(ratio, low, high): median(a) / median(b) with a percentile bootstrap interval
    (Efron & Tibshirani 1993, ch. 13), resampling each side independently, or whole rounds when
    `paired` (a[i] and b[i] ran in round i), by `scipy.stats.bootstrap`. Needs at least 2 runs on
    each side. low and high are nan (no interval) when resamples give no ratio (a median of 0)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ratio = float(_ratio_of_medians(a, b))
    low, high = percentile_bounds((a, b), _ratio_of_medians, ratio, confidence, paired,
                                  alike=bool(np.ptp(a) == 0 and np.ptp(b) == 0))
    return ratio, low, high


def percentile_bounds(samples: tuple, statistic, estimate: float, confidence: float, paired: bool = False,
                      alike: bool = False) -> tuple[float, float]:
    """(low, high): the percentile bootstrap interval of `statistic` over `samples` by
    `scipy.stats.bootstrap` (RESAMPLES, BOOTSTRAP_SEED), widened to hold `estimate`, the data's
    own value: a percentile interval need not hold it (medians of few runs jump), and a line must
    never show an effect outside its interval. nan bounds mean some resamples had no value (a
    median of 0: no device I/O on a tmpfs); that is (nan, nan), no interval -- a point there would
    read as "equivalent" -- unless every side's runs are `alike`, when the point is the answer."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        # All runs of a side equal: the bootstrap distribution is a point (scipy warns of it).
        # A side whose median is 0 makes the ratios infinite, and scipy's standard error of them nan.
        warnings.simplefilter("ignore", scipy.stats.DegenerateDataWarning)
        result = scipy.stats.bootstrap(samples, statistic, vectorized=True, paired=paired, confidence_level=confidence,
                                 n_resamples=RESAMPLES, method="percentile",
                                 random_state=np.random.default_rng(BOOTSTRAP_SEED))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):
        return (estimate, estimate) if alike else (math.nan, math.nan)
    return min(low, estimate), max(high, estimate)


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
    Analysis", 1991, section 13.9), the t quantile from `scipy.stats.t`. It is a lower bound: that
    formula is for a mean, and the interval a sweep shows is a bootstrap of a ratio of medians, which
    needs more runs for the same width (about pi/2 times as many for normal runs). This is CONFIRM's question
    (how many repetitions for a wanted precision) answered from the runs at hand rather than from
    CONFIRM's thousands of runs. None without a spread; MAX_REPEATS_ESTIMATE + 1 means "more"."""
    if spread is None:
        return None
    if spread == 0:
        return MIN_RUNS_FOR_VERDICT
    target = math.log(1 + resolve_pct / 100)
    # Below MIN_RUNS_FOR_VERDICT the rank test cannot reject, however narrow the interval.
    for n in range(MIN_RUNS_FOR_VERDICT, MAX_REPEATS_ESTIMATE + 1):
        if scipy.stats.t.ppf(1 - (1 - confidence) / 2, 2 * n - 2) * spread * math.sqrt(2 / n) <= target:
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
    n = np.arange(MIN_ROUNDS_FOR_PAIRED, MAX_REPEATS_ESTIMATE + 1)
    return _first(n, scipy.stats.t.ppf(1 - (1 - confidence) / 2, n - 1) * ratio_spread / np.sqrt(n) <= target)


def _first(n: np.ndarray, enough: np.ndarray) -> int:
    """The first n where `enough` holds (every n tried at once), else MAX_REPEATS_ESTIMATE + 1."""
    return int(n[np.argmax(enough)]) if enough.any() else MAX_REPEATS_ESTIMATE + 1


def _t_sum(confidence: float, dof: int) -> float:
    """t(1 - alpha/2) + t(POWER): the standard errors between no effect and an effect found with
    POWER (`scipy.stats.t`)."""
    return float(scipy.stats.t.ppf(1 - (1 - confidence) / 2, dof) + scipy.stats.t.ppf(POWER, dof))


def detectable_pct(spread: float | None, n_a: int, n_b: int, paired: bool,
                   confidence: float = CONFIDENCE) -> float:
    """The minimum detectable effect in %: the true ratio an interval of this level finds with
    POWER, at this spread (log spread of the runs, or of the rounds' ratios when `paired`) and
    these runs, (t(1 - alpha/2) + t(POWER)) * standard error on the log scale (Bloom 1995; Jain
    1991, ch. 13 for the standard errors). nan without a spread. Like `repeats_needed` it is the
    figure for a mean, so the medians' bootstrap interval resolves somewhat less than it says."""
    if spread is None or n_a < 2 or n_b < 2 or (paired and n_a < 2):
        return math.nan
    if paired:
        error, dof = spread / math.sqrt(n_a), n_a - 1
    else:
        error, dof = spread * math.sqrt(1 / n_a + 1 / n_b), n_a + n_b - 2
    return 100 * (math.exp(_t_sum(confidence, dof) * error) - 1)


def runs_for_equivalence(spread: float | None, equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT,
                         paired: bool = False, confidence: float = CONFIDENCE) -> int | None:
    """Runs a side (rounds when `paired`) for an interval of this level to lie inside
    +-equivalence_pct with POWER when the two sides are truly alike: the smallest n with
    (t(1 - alpha/2) + t(1 - (1 - POWER)/2)) * standard error <= log(1 + equivalence_pct / 100), the
    sample size of an equivalence test at a true difference of 0 (Chow, Shao & Wang, "Sample Size
    Calculations in Clinical Research", 2nd ed. 2008, sec. 3.2), t quantiles from `scipy.stats.t`.
    None without a spread; MAX_REPEATS_ESTIMATE + 1 means "more"."""
    if spread is None:
        return None
    fewest = MIN_ROUNDS_FOR_PAIRED if paired else MIN_RUNS_FOR_VERDICT
    if spread == 0:
        return fewest
    target = math.log(1 + equivalence_pct / 100)
    n = np.arange(fewest, MAX_REPEATS_ESTIMATE + 1)
    dof = n - 1 if paired else 2 * n - 2
    error = spread / np.sqrt(n) if paired else spread * np.sqrt(2 / n)
    z = scipy.stats.t.ppf(1 - (1 - confidence) / 2, dof) + scipy.stats.t.ppf(1 - (1 - POWER) / 2, dof)
    return _first(n, z * error <= target)


def _finite(values) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(v)]


def measure(a, b, spread: float | None = None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
            confidence: float = CONFIDENCE, equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
    """One pair measured, not yet judged: median(a) / median(b) with its bootstrap interval at
    `confidence`, the raw two-sided rank-test p, the minimum detectable effect and the runs delta
    needs; verdict NOT_RESOLVED until `judged`. Dicts ({round: value}) are compared round by round
    when both finished MIN_ROUNDS_FOR_PAIRED of the same rounds (see the module comment), else as
    lists are, every run on its own; a round one side failed is left out of the paired comparison.
    `spread` (log_spread over every page size) sizes the runs needed when unpaired; without it, the
    two sides' own spread is used."""
    if isinstance(a, dict) and isinstance(b, dict):
        rounds = sorted(r for r in a if r in b and _finite([a[r]]) and _finite([b[r]]))
        if len(rounds) >= MIN_ROUNDS_FOR_PAIRED:
            return _measured_rounds([a[r] for r in rounds], [b[r] for r in rounds], resolve_pct, confidence,
                                    equivalence_pct)
        a, b = list(a.values()), list(b.values())
    a, b = _finite(a), _finite(b)
    base = dict(confidence=confidence, equivalence_pct=equivalence_pct)
    if not a or not b:
        return Comparison(len(a), len(b), math.nan, math.nan, math.nan, NOT_RESOLVED, None, resolve_pct, **base)
    if spread is None:
        spread = log_spread([a, b])
    needed = repeats_needed(spread, resolve_pct, confidence)
    for_equivalence = runs_for_equivalence(spread, equivalence_pct, False, confidence)
    detectable = detectable_pct(spread, len(a), len(b), False, confidence)
    if len(a) < 2 or len(b) < 2:
        ratio = float(_ratio_of_medians(np.asarray(a), np.asarray(b)))
        return Comparison(len(a), len(b), ratio, math.nan, math.nan, NOT_RESOLVED, needed, resolve_pct,
                          detectable_pct=detectable, runs_for_equivalence=for_equivalence, **base)
    ratio, low, high = ratio_interval(a, b, confidence)
    p_value = float(scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="exact").pvalue)
    direction = _direction(lambda side: scipy.stats.mannwhitneyu(a, b, alternative=side, method="exact").pvalue)
    return Comparison(len(a), len(b), ratio, low, high, NOT_RESOLVED, needed, resolve_pct, p_value, False,
                      p_value, detectable_pct=detectable, runs_for_equivalence=for_equivalence,
                      direction=direction, method=f"exact Mann-Whitney U, {len(a)}+{len(b)} runs", **base)


def _direction(one_sided) -> int:
    """+1 when the one-sided test for "a above b" gives the smaller p, -1 for "a below b", 0 when even;
    `one_sided(alternative)` is the test's p for "greater" or "less"."""
    greater, less = float(one_sided("greater")), float(one_sided("less"))
    return (greater < less) - (less < greater)


def _measured_rounds(a, b, resolve_pct, confidence, equivalence_pct) -> Comparison:
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    ratio, low, high = ratio_interval(a, b, confidence, paired=True)
    differences = a - b
    if not differences.any():
        p_value, direction = 1.0, 0  # every round alike: nothing to rank
    else:
        # Rounds with no difference carry no sign and are dropped (Wilcoxon's own rule); the exact
        # distribution then holds for the rest.
        def signed_rank_p(side: str) -> float:
            return float(scipy.stats.wilcoxon(differences, zero_method="wilcox", alternative=side, method="exact").pvalue)

        p_value, direction = signed_rank_p("two-sided"), _direction(signed_rank_p)
    positive = (a > 0) & (b > 0)
    ratio_spread = float(np.std(np.log(a[positive] / b[positive]), ddof=1)) if positive.sum() >= 2 else None
    n = len(a)
    return Comparison(n, n, ratio, low, high, NOT_RESOLVED, rounds_needed(ratio_spread, resolve_pct, confidence),
                      resolve_pct, p_value, True, p_value, confidence, equivalence_pct,
                      detectable_pct(ratio_spread, n, n, True, confidence),
                      runs_for_equivalence(ratio_spread, equivalence_pct, True, confidence), direction=direction,
                      method=f"exact Wilcoxon signed-rank, {n} rounds")


def judged(comparison: Comparison, p_adjusted: float, family_confidence: float = CONFIDENCE,
           family_size: int = 1) -> Comparison:
    """The verdict of a measured pair, from its interval, its margin and its (family-adjusted)
    p-value, tested at 1 - family_confidence: FASTER when the whole interval lies above 1 and
    the test rejects in the same direction, SLOWER the same below 1, EQUIVALENT when the interval lies inside
    +-equivalence_pct (and MIN_RUNS_FOR_VERDICT runs a side), else NOT_RESOLVED. One run on a side
    has no interval and is never more than NOT_RESOLVED: one run cannot separate an effect from noise."""
    c = comparison
    verdict, test_alone = NOT_RESOLVED, ""
    if not (math.isnan(c.low) or math.isnan(c.high)):
        separated = p_adjusted < 1 - family_confidence
        margin = c.equivalence_pct / 100
        if c.low > 1 and separated and c.direction > 0:
            verdict = FASTER
        elif c.high < 1 and separated and c.direction < 0:
            verdict = SLOWER
        elif min(c.n_a, c.n_b) >= MIN_RUNS_FOR_VERDICT and 1 - margin <= c.low and c.high <= 1 + margin:
            verdict = EQUIVALENT
        if verdict == NOT_RESOLVED and separated:  # the line says why the test alone did not call it
            test_alone = "interval" if c.low <= 1 <= c.high else "direction"
    return replace(c, verdict=verdict, p_adjusted=p_adjusted, family_size=family_size, test_alone=test_alone)


def compare(a, b, spread: float | None = None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
            confidence: float = CONFIDENCE, equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
    """Runs `a` against runs `b` as a family of one (`measure`, then `judged` at its own p-value)."""
    measured = measure(list(a), list(b), spread, resolve_pct, confidence, equivalence_pct)
    return judged(measured, measured.p_value, confidence)


def compare_rounds(a_by_round: dict, b_by_round: dict, spread: float | None = None,
                   resolve_pct: float = DEFAULT_RESOLVE_PCT, confidence: float = CONFIDENCE,
                   equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> Comparison:
    """Two page sizes of one sweep from their runs keyed by round, as a family of one: round by
    round when enough rounds finished on both sides, else run by run (`measure`)."""
    measured = measure(dict(a_by_round), dict(b_by_round), spread, resolve_pct, confidence, equivalence_pct)
    return judged(measured, measured.p_value, confidence)
