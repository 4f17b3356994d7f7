"""Choosing a sweep's design from measured variance components: how many rounds of how long.

A pair's mean log-ratio over n rounds of runs measuring T seconds has variance

    V(n, T) = (a / T + f) / n

with a the pair's within-run component (log-scale variance x seconds) and f its between-run floor
(pagelab.evidence.components). Each run costs T plus an overhead o (restore, restart, ramp-up,
record, the gap to the next run), measured from a bundle's own timings, and a sweep of k page sizes
also pays fixed costs (each page size's init and load, the report, and the over-time runs when
the profile has them). Within a budget B the design is then

    n(T) = floor((B - fixed) / (k (T + o)))

rounds of T seconds, and the T that minimises V is the one that minimises the primary pair's
interval. Without the floor of whole rounds, V (T + o) is smallest at T* = sqrt(a o / f): Kalibera
& Jones's rule ("Rigorous Benchmarking in Reasonable Time", ISMM 2013, section 5) of choosing the
repetitions at each level from the variance measured at each level. `best_design` searches the
lengths in whole intervals, with whole rounds, and prints T* beside it.

When the profile has over-time runs and they pass the drift check, TpmC's two-level model
(pagelab.evidence.model) takes them as one more block: a design then has k = n + 1 blocks
(`extra_blocks`). With equal weights (the default) the model's estimate is the blocks' plain mean,
so its variance is exactly

    V = sum_b (w_b + f) / k^2 = (n (a / T + f) + a_ot / T_ot + f) / (n + 1)^2   (`equal_variance`)

with w_b a block's within-run part: a / T for a round, a_ot / T_ot for the over-time block (a the
pair's verdict runs' a, a_ot its over-time runs', each the a of its group as the model takes it,
pagelab.evidence.components.SizeComponents.role_a; a for both when the bundle ran no over-time
runs), T_ot the
seconds of each over-time run the model is expected to keep after MSER-5 and the drift check
(`pagelab plan` takes the share the --from bundle's own over-time runs kept,
pagelab.evidence.runs.over_time_kept; all of over_time_s when the bundle ran none, which it says).
(The model's S^2 estimates mean(w_b + f) without bias, so this is the variance its interval
estimates; model.py's module comment.) Taking the over-time block as one more round instead,
(a / T + f) / (n + 1), put the power 3-4 points below what simulated sweeps gave (below).

With `block_weights: precision` declared (pagelab.evidence.block_weights) the over-time block
weighs by its precision, as far as the rounds bound f: it has the same w_ot = a / T_ot, the rounds
w = a / T, and the estimator weighs each block
by v_b = 1 / (w_b + f_U), f_U the one-sided 95% Q-profile bound of f. A design takes f_U at what
the rounds give when their spread is as expected, (w + f)(k - 1) / chi2(0.05, k - 1) - w (the
bound of k blocks alike), and its variance is that of the weighted mean with those weights,

    V = sum v_b^2 (w_b + f) / (sum v_b)^2,

never below 1 / sum 1 / (w_b + f), the variance with f known (`precision_variance`); the power is
on k - 1 degrees of freedom, as the estimator's HKSJ interval. Both checked against 1,000 simulated
sweeps each (bench/bench_block_weights.py --only planner, a = 2,721 %^2 s, the over-time block
counting what the sweeps kept of its 1200 s, power for 16k 5% slower), planned and simulated
[exact 95% interval]:

    design (f)             equal weights               precision weights
    7 x 100 s (f 0)        72%, 71.0% [68.1, 73.8]     75%, 74.1% [71.3, 76.8]
    12 x 60 s (f 31 %^2)   51%, 52.6% [49.5, 55.7]     52%, 53.0% [49.9, 56.1]
    6 x 150 s (f 0)        81%, 80.1% [77.5, 82.5]     84%, 82.1% [79.6, 84.4]
    10 x 80 s (f 4 %^2)    73%, 74.1% [71.3, 76.8]     76%, 76.4% [73.6, 79.0]

(planned with the over-time block at the sweeps' median kept, 1174 s; at all 1200 s the figures
differ by under 0.2 points). Every planned figure lies in its simulated interval; the one-more-round
figures of equal weights, 66.6%, 49.5%, 75.7% and 70.1%, lay 3.1-4.4 points below, three of four
outside their intervals.

Pricing the over-time block at the verdict runs' a as well, where its runs are quieter within (4
times in bench/bench_within_pooling.py --only planner; 3.6-8 times on course-full), or every block at
the pooled a, is wrong both ways: at the pooled a the 7 x 100 s design was planned at 94% power
against 72% simulated, at each group's a 72%.

The interval and the power use the blocks' degrees of freedom, n - 1 for n blocks: the two-stage estimate (each
round's log-ratio of run means, then their mean) is a t statistic with n - 1 degrees of freedom
whatever the split between a and f, which is honest when f is not negligible (and conservative
when it is). The interval's half-width is t_(1 - alpha/2, n-1) sqrt(V); the power for a true
effect delta (log scale) is that of the two-sided t-test, from the noncentral t distribution
(`scipy.stats.nct`) with noncentrality delta / sqrt(V); the minimum detectable effect is the
delta with the asked power (80% by default), found with `scipy.optimize.brentq`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize, stats

from pagelab.evidence.block_weights import EQUAL, PRECISION

MIN_ROUNDS = 3  # fewer rounds estimate no floor: a design from them would rest on nothing
DEFAULT_POWER = 0.8
# Past this many rounds the answer is "more than": no design on one machine comes near it.
MOST_ROUNDS = 10_000
# The longest run a design considers: as long as the longest over-time run any profile has (1200 s).
LONGEST_RUN_S = 1200


@dataclass(frozen=True)
class Costs:
    """What a sweep costs beyond its measured seconds, in seconds: each run's overhead, the fixed
    part (each page size's init and load, the report, the over-time runs) and its page sizes."""

    per_run_s: float
    fixed_s: float
    page_sizes: int

    def total_s(self, rounds: int, run_s: float) -> float:
        return self.fixed_s + rounds * self.page_sizes * (run_s + self.per_run_s)

    def rounds_within(self, budget_s: float, run_s: float) -> int:
        return max(0, math.floor((budget_s - self.fixed_s) / (self.page_sizes * (run_s + self.per_run_s))))


@dataclass(frozen=True)
class Design:
    """n rounds of runs measuring run_s seconds, and what they give for one pair."""

    rounds: int
    run_s: float
    blocks: int  # what the analysis compares round by round: the rounds, and the over-time block if it counts
    total_s: float
    variance: float  # of the pair's mean log-ratio
    dof: int
    alpha: float
    half_width_pct: float  # of the interval of the ratio, 100 (exp(t sqrt V) - 1)
    power: float | None  # for the named effect
    detectable_pct: float  # at DEFAULT_POWER (or the power asked for)


def variance_of_mean(within_a: float, between_f: float, rounds: int, run_s: float) -> float:
    """V(n, T) = (a / T + f) / n: n blocks alike (no over-time block)."""
    return (within_a / run_s + between_f) / rounds


def equal_variance(within_a: float, between_f: float, rounds: int, run_s: float, over_time_s: float,
                   over_time_a: float | None = None) -> float:
    """The variance of the equal-weight mean of `rounds` rounds of `run_s` s and one over-time block
    counting `over_time_s` s: sum (w_b + f) / k^2 over the k = rounds + 1 blocks (module comment),
    the rounds' w from `within_a`, the over-time block's from `over_time_a` (`within_a` if None)."""
    if over_time_s <= 0:
        raise ValueError(f"an over-time block counts some seconds; got {over_time_s}")
    k = rounds + 1
    ot_a = within_a if over_time_a is None else over_time_a
    return (rounds * (within_a / run_s + between_f) + ot_a / over_time_s + between_f) / k ** 2


@dataclass(frozen=True)
class PrecisionVariance:
    """What precision weights give a design: the weighted mean's variance with the weights the
    estimator is expected to use, the variance with f known, and the over-time block's share."""

    variance: float
    known_f: float
    bound: float  # f_U, the planning value of f's upper bound that weighs the blocks
    over_time_share: float


def precision_variance(within_a: float, between_f: float, rounds: int, run_s: float,
                       over_time_s: float, over_time_a: float | None = None) -> PrecisionVariance:
    """The variance of the precision-weighted mean of `rounds` rounds of `run_s` s and one
    over-time block counting `over_time_s` s (see the module comment), the over-time block's w from
    `over_time_a` (`within_a` if None)."""
    k = rounds + 1
    w = [within_a / run_s] * rounds + [(within_a if over_time_a is None else over_time_a) / over_time_s]
    round_w = within_a / run_s
    bound = max((round_w + between_f) * (k - 1) / float(stats.chi2.ppf(0.05, k - 1)) - round_w, 0.0)
    v = [1 / (x + bound) for x in w]
    total = sum(v)
    variance = sum(x * x * (y + between_f) for x, y in zip(v, w)) / total ** 2
    return PrecisionVariance(variance, 1 / sum(1 / (y + between_f) for y in w), bound, v[-1] / total)


def power(effect_log: float, se: float, dof: int, alpha: float) -> float:
    """The two-sided t-test's power at `alpha` for a true effect `effect_log` (noncentral t)."""
    critical = float(stats.t.isf(alpha / 2, dof))
    shift = abs(effect_log) / se
    beyond = float(stats.nct.sf(critical, dof, shift))
    # the wrong-way tail is the noncentral t's far tail, which scipy returns as NaN once it is
    # below about 1e-170 (noncentrality ~15 and more): it is 0 to any precision that matters here
    wrong_way = float(stats.nct.cdf(-critical, dof, shift))
    return beyond + (0.0 if math.isnan(wrong_way) else wrong_way)


def detectable_log(se: float, dof: int, alpha: float, wanted: float = DEFAULT_POWER) -> float:
    """The smallest true effect (log scale) the two-sided t-test finds with power `wanted`; inf when
    no effect within 3 critical values and 10 standard errors past it would be."""
    critical = float(stats.t.isf(alpha / 2, dof))
    far = 3 * critical + 10  # in standard errors; the noncentral t's tail is NaN much further out

    def short(shift: float) -> float:
        return power(shift * se, se, dof, alpha) - wanted

    if short(far) < 0:
        return math.inf
    return float(optimize.brentq(short, 0.0, far)) * se


def percent(log_value: float) -> float:
    """A log-scale difference as a ratio's percent: 100 (exp(x) - 1)."""
    return 100 * math.expm1(log_value)


def design(within_a: float, between_f: float, costs: Costs, rounds: int, run_s: float, alpha: float,
           effect_log: float | None = None, wanted: float = DEFAULT_POWER, extra_blocks: int = 0,
           over_time_s: float | None = None, weights: str = EQUAL, over_time_a: float | None = None) -> Design:
    """What `rounds` rounds of `run_s`-second runs (and `extra_blocks` more blocks, the over-time
    runs', counting `over_time_s` seconds each) give for a pair with components a and f, its blocks
    weighed as `weights` says: equal (`equal_variance`) or by their precision (`precision_variance`).
    The rounds' w is a / T, the over-time block's `over_time_a` / `over_time_s` (a when None)."""
    blocks = rounds + extra_blocks
    if blocks < 2:
        raise ValueError(f"a design needs at least 2 blocks for an interval, got {blocks}")
    if extra_blocks not in (0, 1):
        raise ValueError(f"a sweep has at most one over-time block, got extra_blocks={extra_blocks}")
    if weights not in (EQUAL, PRECISION):
        raise ValueError(f"weights is {EQUAL!r} or {PRECISION!r}, got {weights!r}")
    if extra_blocks and not over_time_s:
        raise ValueError("a design with the over-time block needs the seconds it counts (over_time_s): give what "
                         "the bundle's over-time runs kept, or the profile's over_time_s")
    if not extra_blocks:
        variance = variance_of_mean(within_a, between_f, blocks, run_s)
    elif weights == PRECISION:
        variance = precision_variance(within_a, between_f, rounds, run_s, over_time_s, over_time_a).variance
    else:
        variance = equal_variance(within_a, between_f, rounds, run_s, over_time_s, over_time_a)
    se, dof = math.sqrt(variance), blocks - 1
    half = float(stats.t.isf(alpha / 2, dof)) * se
    return Design(rounds, float(run_s), blocks, costs.total_s(rounds, run_s), variance, dof, alpha, percent(half),
                  power(effect_log, se, dof, alpha) if effect_log is not None else None,
                  percent(detectable_log(se, dof, alpha, wanted)))


def rounds_for_power(a: float, f: float, run_s: float, alpha: float, effect_log: float, extra_blocks: int = 0,
                     wanted: float = DEFAULT_POWER, over_time_s: float | None = None,
                     weights: str = EQUAL, over_time_a: float | None = None) -> int | None:
    """The fewest rounds of `run_s`-second runs whose design has power `wanted` for `effect_log`
    (`design`; power grows with the rounds, so a bisection finds them); None past MOST_ROUNDS.
    `over_time_s`: the seconds the over-time block counts, its within-run part `over_time_a` over
    them (a when None), weighed as `weights` says."""
    costs = Costs(0.0, 0.0, 1)  # the rounds, not the time they take

    def enough(rounds: int) -> bool:
        found = design(a, f, costs, rounds, run_s, alpha, effect_log, wanted, extra_blocks, over_time_s,
                       weights, over_time_a)
        return found.power is not None and found.power >= wanted

    low = max(2 - extra_blocks, 1)
    if not enough(MOST_ROUNDS):
        return None
    high = MOST_ROUNDS
    while low < high:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle + 1
    return low


def kalibera_jones_length(within_a: float, between_f: float, per_run_s: float) -> float:
    """T* = sqrt(a o / f), the run length that minimises V (T + o) (inf when the floor is 0: then
    one long run per round is best)."""
    if between_f <= 0:
        return math.inf
    return math.sqrt(within_a * per_run_s / between_f)


def best_design(within_a: float, between_f: float, costs: Costs, budget_s: float, alpha: float,
                interval_s: float, effect_log: float | None = None, wanted: float = DEFAULT_POWER,
                min_rounds: int = MIN_ROUNDS, longest_s: float = LONGEST_RUN_S, extra_blocks: int = 0,
                over_time_s: float | None = None, weights: str = EQUAL,
                over_time_a: float | None = None, shortest_s: float = 0.0) -> Design | None:
    """The rounds x run length (whole intervals of `interval_s`, at least two and at least
    `shortest_s`, at most `longest_s`) within `budget_s` whose interval for the pair is narrowest;
    None if no design of `min_rounds` rounds fits."""
    best: Design | None = None
    steps = int(longest_s // interval_s)
    for multiple in range(max(2, math.ceil(shortest_s / interval_s)), steps + 1):
        run_s = multiple * interval_s
        rounds = costs.rounds_within(budget_s, run_s)
        if rounds < min_rounds:
            break  # longer runs only leave fewer rounds
        found = design(within_a, between_f, costs, rounds, run_s, alpha, effect_log, wanted, extra_blocks,
                       over_time_s, weights, over_time_a)
        if best is None or found.half_width_pct < best.half_width_pct:
            best = found
    return best


def per_run_overhead(starts: list[float], dones: list[float], setups: list[float], measured: list[float]) -> float:
    """The median seconds a run costs beyond what it measures, from runs in the order they started:
    each run's time to the next one's start (to its own end for the last), less its one-time
    set-up (a page size's init and load) and its measured seconds."""
    import statistics

    cycles = [(starts[i + 1] if i + 1 < len(starts) else dones[i]) - starts[i] - setups[i] - measured[i]
              for i in range(len(starts))]
    return float(statistics.median(cycles))
