"""Comparisons judged as a family, and the difference between two effects.

A sweep of 5 page sizes has 10 pairs per metric; each tested at 5% alone, an A/A sweep would print
a false "faster/slower" in about 2 of its 50 lines. So the pairs of one metric in one sweep form a
family, and so do `pagelab compare`'s per-page-size comparisons of one metric:

- the rank tests' p-values are adjusted with Holm's step-down method (S. Holm, "A simple
  sequentially rejective multiple test procedure", Scandinavian Journal of Statistics 6(2), 1979),
  by `statsmodels.stats.multitest.multipletests(method="holm")`, which holds the family-wise error
  rate at alpha under any dependence between the tests;
- the bootstrap intervals are taken at the Bonferroni-adjusted level 1 - alpha / m (O. J. Dunn,
  "Multiple comparisons among means", JASA 56, 1961), m the pairs of the family that have an
  interval (two or more runs on each side), so the intervals cover together what one 95% interval
  covers alone, and "equivalent" (an interval inside +-delta) is as careful as "faster".

A page-size effect is log(median(x) / median(y)). `effect_difference` compares one effect in two
settings -- two sweeps (`pagelab compare`), or two levels of a second factor within one sweep --
as the difference of the two log ratios, in log points (100 x the difference of natural logs;
close to percentage points for effects of a few percent), with a percentile bootstrap interval
from `scipy.stats.bootstrap`. Each setting's data are resampled on their own: by rounds when its
two sides share MIN_ROUNDS_FOR_PAIRED rounds (the runs of a round share the machine's minute),
else run by run on each side (Davison & Hinkley 1997, ch. 2: resample the independent unit).
Its word: AGREE when the interval lies inside +-delta, DIFFER when it excludes 0, else NOT_RESOLVED.
Where TpmC's two-level model (pagelab.evidence.model) estimates the pair in both settings, the
difference of its two estimates stands instead (`effect_differences` with `models`): a t interval
on Welch's degrees of freedom and a p-value, Holm-adjusted over the family; DIFFER then needs the
interval clear of 0 and the adjusted p under alpha. Each difference names its method.

Note that "every page size moved alike between two sweeps" is the same statement as "every pair's
effect agrees between them": log(A_x / B_x) - log(A_y / B_y) = log(A_x / A_y) - log(B_x / B_y).
So `pagelab compare` calls a shift uniform only when the effect differences agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import scipy  # scipy.stats loads on first use (2-3 s): the CLI and a run's kernel import this module without testing anything

from pagelab.evidence.intervals import (
    CONFIDENCE,
    FASTER,
    SLOWER,
    DEFAULT_EQUIVALENCE_PCT,
    DEFAULT_RESOLVE_PCT,
    MIN_ROUNDS_FOR_PAIRED,
    NOT_RESOLVED,
    Comparison,
    judged,
    measure,
    percentile_bounds,
)
from pagelab.evidence.model import EffectGap, PairEffect
from pagelab.evidence.node_model import NodeEffect

AGREE, DIFFER = "agree", "differ"
BOOTSTRAP_METHOD = "ratio of medians, bootstrap over each setting's rounds"


def family_confidence(m: int, confidence: float = CONFIDENCE) -> float:
    """The Bonferroni-adjusted level of each of m intervals that are to hold together at `confidence`."""
    return 1 - (1 - confidence) / max(m, 1)


def holm(p_values: Sequence[float], confidence: float = CONFIDENCE) -> list[float]:
    """Holm-adjusted p-values (statsmodels' multipletests, method "holm"), in the given order; a
    nan (no test) stays nan and does not count towards the family."""
    from statsmodels.stats.multitest import multipletests  # here: statsmodels takes a second or two to import

    finite = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    adjusted = [math.nan] * len(p_values)
    if finite:
        _, corrected, _, _ = multipletests([p_values[i] for i in finite], alpha=1 - confidence, method="holm")
        for i, p in zip(finite, corrected):
            adjusted[i] = float(p)
    return adjusted


# How many rounds `verdict_room` looks through for the fewest that can give a verdict.
MOST_ROUNDS_CONSIDERED = 40


def smallest_p(n_a: int, n_b: int, paired: bool) -> float:
    """The smallest two-sided p the exact test `measure` uses can give at all, from one side ahead
    throughout: in every one of n_a rounds (Wilcoxon signed-rank, `paired`), or with every one of
    its n_a runs above every one of the other side's n_b (Mann-Whitney). 1 without runs to rank."""
    if n_a < 1 or n_b < 1 or (paired and n_a != n_b):
        return 1.0
    ahead = np.arange(1.0, n_a + 1.0)
    if paired:
        return float(scipy.stats.wilcoxon(ahead, alternative="two-sided", method="exact").pvalue)
    return float(scipy.stats.mannwhitneyu(ahead + n_b, np.arange(1.0, n_b + 1.0), alternative="two-sided",
                                    method="exact").pvalue)


def smallest_family_p(rounds: int, pairs: int, confidence: float = CONFIDENCE) -> float:
    """The smallest Holm-adjusted p a family of `pairs` comparisons with `rounds` runs a side can
    reach at all (`smallest_p` for every pair), tested as `measure` tests it -- round by round from
    MIN_ROUNDS_FOR_PAIRED rounds, else run by run. Exact rank tests have a floor: 5 runs a side
    never give less than 2/252 (run by run), 6 rounds never less than 2/64 (round by round); times
    10 pairs (5 page sizes) both stay above 0.05, and no "faster" or "slower" is possible, however
    large the effect. Holm rejects nothing unless the smallest p times the pairs is below alpha."""
    if rounds < 2 or pairs < 1:
        return 1.0
    return max(holm([smallest_p(rounds, rounds, rounds >= MIN_ROUNDS_FOR_PAIRED)] * pairs, confidence))


def verdict_room(rounds: int, pairs: int, confidence: float = CONFIDENCE) -> int | None:
    """None when `rounds` can give a family of `pairs` a "faster"/"slower"; else the fewest rounds,
    from `rounds` on, that can (0 when none up to MOST_ROUNDS_CONSIDERED can). Not monotonic in the
    rounds: the paired test, which takes over at MIN_ROUNDS_FOR_PAIRED, starts from a higher floor."""
    alpha = 1 - confidence
    if smallest_family_p(rounds, pairs, confidence) < alpha:
        return None
    return next((n for n in range(rounds + 1, MOST_ROUNDS_CONSIDERED + 1)
                 if smallest_family_p(n, pairs, confidence) < alpha), 0)


def _has_interval(a, b) -> bool:
    def count(side):
        values = side.values() if isinstance(side, dict) else side
        return sum(1 for v in values if v is not None and not math.isnan(v))
    return count(a) >= 2 and count(b) >= 2


PRIMARY, AFTER_PRIMARY, NOT_TESTED = "primary", "after the primary", "not tested"


def primary_pair(text: str) -> tuple[str, str] | None:
    """('16k', '4k') from a declared primary comparison "16k vs 4k"; None for "" (none declared)."""
    if not text or not str(text).strip():
        return None
    parts = [part.strip() for part in str(text).split(" vs ")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"a primary comparison reads 'A vs B' (e.g. '16k vs 4k'), got {text!r}")
    return parts[0], parts[1]


def compare_family(pairs: Sequence[tuple], spread: float | None = None, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   confidence: float = CONFIDENCE, equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT,
                   models: Sequence[PairEffect | NodeEffect | None] | None = None,
                   primary: int | None = None) -> list[Comparison]:
    """Each (a, b) of `pairs` compared and judged as one family (see the module comment): a and b
    are lists of runs, or dicts {round: value} to be compared round by round where they can be;
    where `models` holds a model's estimate for a pair (a PairEffect: the two-level model,
    pagelab.evidence.model; a NodeEffect: the node as a random effect, pagelab.evidence.node_model),
    that model measures it instead of the rank tests. The intervals are at family_confidence(m), the
    p-values Holm-adjusted; `confidence` is the family's.

    With `primary` (the index of a comparison declared before the sweep) the family is tested in
    a fixed sequence, a serial gatekeeping procedure (Maurer, Hothorn & Lehmacher, "Multiple
    comparisons in drug clinical trials and preclinical assays: a-priori ordered hypotheses",
    1995; Westfall & Krishen, "Optimally weighted, fixed sequence and gatekeeper multiple testing
    procedures", J. Statist. Plann. Inference 99, 2001): the primary first, alone, at the full
    alpha with a (1 - alpha) interval; the others only if it was called faster or slower, then
    as a Holm family of their own at alpha, intervals at family_confidence(m - 1). A later pair's
    adjusted p is the larger of its Holm p and the primary's p (the fixed sequence's adjusted p),
    so nothing after an unresolved primary is called; the family-wise error stays at alpha. The
    gate opens on a difference only: opened by "equivalent", a true null in the primary could
    still be rejected by chance alongside errors after it, and the error would add up to 2 alpha."""
    models = list(models) if models is not None else [None] * len(pairs)

    def measured_at(index: int, level: float) -> Comparison:
        if models[index] is not None:
            return models[index].comparison(level, resolve_pct, equivalence_pct)
        return measure(*pairs[index], spread, resolve_pct, level, equivalence_pct)

    def has_interval(index: int) -> bool:
        return models[index] is not None or _has_interval(*pairs[index])

    if primary is None:
        m = sum(has_interval(i) for i in range(len(pairs)))
        level = family_confidence(m, confidence)
        measured = [measured_at(i, level) for i in range(len(pairs))]
        adjusted = holm([c.p_value for c in measured], confidence)
        return [judged(c, p, confidence, m) for c, p in zip(measured, adjusted)]
    alone = measured_at(primary, confidence)
    first = replace(judged(alone, alone.p_value, confidence, 1), role=PRIMARY)
    rest = [i for i in range(len(pairs)) if i != primary]
    m = sum(has_interval(i) for i in rest)
    level = family_confidence(m, confidence)
    measured = {i: measured_at(i, level) for i in rest}
    adjusted = holm([measured[i].p_value for i in rest], confidence)
    gate_open = first.verdict in (FASTER, SLOWER)
    found = {primary: first}
    for i, p in zip(rest, adjusted):
        sequence_p = max(p, first.p_value) if not math.isnan(p) else p
        later = replace(judged(measured[i], sequence_p, confidence, m), role=AFTER_PRIMARY)
        found[i] = later if gate_open else replace(later, verdict=NOT_RESOLVED, role=NOT_TESTED)
    return [found[i] for i in range(len(pairs))]


# --- the difference of two effects ------------------------------------------------------------------


@dataclass(frozen=True)
class EffectDifference:
    """One effect (x against y) in two settings, and how much it changed, in log points."""

    first_pct: float  # the effect in the first setting: 100 * (median(x) / median(y) - 1)
    second_pct: float
    difference: float  # 100 * (log ratio first - log ratio second), log points
    low: float
    high: float
    word: str  # AGREE, DIFFER or NOT_RESOLVED
    confidence: float
    equivalence_pct: float
    n_first: int  # rounds when paired, else the smaller side's runs
    n_second: int
    paired_first: bool
    paired_second: bool
    method: str = BOOTSTRAP_METHOD
    p_value: float = math.nan  # the two-level model's t-test (Welch); nan for the bootstrap
    p_adjusted: float = math.nan  # Holm over the family's p-values


def _setting(x, y) -> tuple[bool, np.ndarray, np.ndarray]:
    """(paired, x values, y values): aligned by round when enough rounds are shared."""
    def finite(value) -> bool:
        return value is not None and not math.isnan(value)

    if isinstance(x, dict) and isinstance(y, dict):
        rounds = sorted(r for r in x if r in y and finite(x[r]) and finite(y[r]))
        if len(rounds) >= MIN_ROUNDS_FOR_PAIRED:
            return True, np.array([x[r] for r in rounds], float), np.array([y[r] for r in rounds], float)
        x, y = list(x.values()), list(y.values())
    return (False, np.array([v for v in x if finite(v)], float), np.array([v for v in y if finite(v)], float))


def _log_ratio(x: np.ndarray, y: np.ndarray, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.median(x, axis=axis) / np.median(y, axis=axis))


def effect_difference(first: tuple, second: tuple, confidence: float = CONFIDENCE,
                      equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> EffectDifference:
    """effect_difference((x1, y1), (x2, y2), confidence=0.95, equivalence_pct=3.0) -> EffectDifference

    The effect of x against y in a first setting, log(median(x1) / median(y1)), minus the same in a
    second, log(median(x2) / median(y2)), times 100 (log points), with a percentile bootstrap
    interval at `confidence` (`scipy.stats.bootstrap` over the indices of each independently
    resampled unit). Each of x1, y1, x2, y2 is a list of run values, or a dict {round: value}; a
    setting given as two dicts sharing MIN_ROUNDS_FOR_PAIRED finished rounds is resampled by
    rounds (paired), any other setting run by run on each side. The two settings are always
    resampled independently of each other: two sweeps, or two levels of a second factor.
    Its word: AGREE when the interval lies in +-equivalence_pct, DIFFER when it excludes 0, else
    NOT_RESOLVED (also when a side has fewer than 2 runs: no interval)."""
    settings = [_setting(*first), _setting(*second)]
    effects = [_log_ratio(x, y) if x.size and y.size else math.nan for _, x, y in settings]
    difference = 100 * float(effects[0] - effects[1])
    sizes = [int(x.size) if paired else int(min(x.size, y.size)) for paired, x, y in settings]
    shape = dict(first_pct=100 * (math.exp(effects[0]) - 1) if math.isfinite(effects[0]) else math.nan,
                 second_pct=100 * (math.exp(effects[1]) - 1) if math.isfinite(effects[1]) else math.nan,
                 confidence=confidence, equivalence_pct=equivalence_pct, n_first=sizes[0], n_second=sizes[1],
                 paired_first=settings[0][0], paired_second=settings[1][0])
    if min(min(x.size, y.size) for _, x, y in settings) < 2 or not math.isfinite(difference):
        return EffectDifference(difference=difference, low=math.nan, high=math.nan, word=NOT_RESOLVED, **shape)
    # The resampled units as index arrays: one per paired setting (its rounds), two per unpaired one.
    samples, readers = [], []
    for paired, x, y in settings:
        if paired:
            samples.append(np.arange(x.size))
            readers.append((x, y, len(samples) - 1, len(samples) - 1))
        else:
            samples += [np.arange(x.size), np.arange(y.size)]
            readers.append((x, y, len(samples) - 2, len(samples) - 1))

    def statistic(*indices, axis=-1):
        logs = [_log_ratio(x[indices[i].astype(int)], y[indices[j].astype(int)], axis) for x, y, i, j in readers]
        return 100 * (logs[0] - logs[1])

    low, high = percentile_bounds(tuple(samples), statistic, difference, confidence,
                                  alike=all(np.ptp(side) == 0 for _, x, y in settings for side in (x, y)))
    if math.isnan(low):  # resamples without a ratio (a median of 0): no interval, not a point that agrees
        return EffectDifference(difference=difference, low=math.nan, high=math.nan, word=NOT_RESOLVED, **shape)
    return EffectDifference(difference=difference, low=low, high=high, word=_word(low, high, equivalence_pct),
                            **shape)


def _word(low: float, high: float, equivalence_pct: float, called: bool = True) -> str:
    """AGREE when [low, high] lies in +-equivalence_pct, DIFFER when it excludes 0 (and, for a
    tested difference, `called`: its adjusted p is under alpha), else NOT_RESOLVED."""
    if -equivalence_pct <= low and high <= equivalence_pct:
        return AGREE
    if (low > 0 or high < 0) and called:
        return DIFFER
    return NOT_RESOLVED


def gap_difference(gap: EffectGap, confidence: float, equivalence_pct: float, p_adjusted: float,
                   alpha: float) -> EffectDifference:
    """One pair's effect in two settings from the two-level model in each (pagelab.evidence.model
    .effect_gap): the difference in log points with its Welch t interval at `confidence`; DIFFER
    needs the interval clear of 0 and the Holm-adjusted p under `alpha`."""
    low, high = (100 * x for x in gap.interval(confidence))
    return EffectDifference(100 * math.expm1(gap.first.delta), 100 * math.expm1(gap.second.delta),
                            100 * gap.difference, low, high, _word(low, high, equivalence_pct, p_adjusted < alpha),
                            confidence, equivalence_pct, gap.first.blocks, gap.second.blocks, True, True,
                            gap.method, gap.p_value, p_adjusted)


def effect_differences(pairs: Sequence[tuple[tuple, tuple]], confidence: float = CONFIDENCE,
                       equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT,
                       models: Sequence[tuple[PairEffect | None, PairEffect | None]] | None = None
                       ) -> list[EffectDifference]:
    """Each (first, second) of `pairs` as `effect_difference`, judged as one family: the intervals
    at the Bonferroni-adjusted level family_confidence(m), m the pairs with data for an interval.
    Where `models` holds the two-level model's estimate in both settings for a pair, the difference
    of those two (a Welch t-test, pagelab.evidence.model.EffectGap) stands instead of the
    bootstrap; their p-values are Holm-adjusted over the family (statsmodels, `holm`), and DIFFER
    needs both the Bonferroni interval and the Holm p."""
    models = list(models) if models is not None else [(None, None)] * len(pairs)
    gaps = [EffectGap(*both) if all(e is not None for e in both) else None for both in models]
    m = sum(gap is not None or all(_has_interval(*setting) for setting in pair) for gap, pair in zip(gaps, pairs))
    level = family_confidence(m, confidence)
    adjusted = holm([gap.p_value if gap is not None else math.nan for gap in gaps], confidence)
    return [gap_difference(gap, level, equivalence_pct, p, 1 - confidence) if gap is not None
            else effect_difference(first, second, level, equivalence_pct)
            for gap, p, (first, second) in zip(gaps, adjusted, pairs)]
