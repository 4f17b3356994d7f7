"""A sweep checked against itself: an A/A comparison of each page size with itself, and whether its
first round stands apart (`pagelab stats BUNDLE --checks`).

A/A halves. Each page size's (or grid cell's) rounds are split by parity, the odd rounds against
the even ones. The rounds ran interleaved, each in an order drawn afresh from the profile's seed,
so the two halves differ only by chance and by whatever the design failed to cancel. Any
"faster"/"slower" (or "higher"/"lower") between them is a false call.

The check asks one question of the sweep, "did it call anything between identical conditions?",
so all its comparisons (every group, every metric) are one family, held at 5% for the sweep.
Holm cannot do that here: at 9 rounds (5 against 4) the exact rank test's smallest p, 1/63, times
15 comparisons is above 5%, so such a check could never fire. Instead the p-values come from a
max-T permutation test over the rounds (P. H. Westfall and S. S. Young, "Resampling-Based
Multiple Testing", Wiley 1993, single-step max-T): each comparison's statistic is the difference
of the halves' median log values over their pooled median absolute deviation; a split of the
rounds into two halves of the same sizes relabels every group and metric at once, so the largest
statistic over the family has the same distribution under every split when the rounds are
exchangeable. A comparison's adjusted p is the share of splits whose largest statistic reaches
its own (`scipy.stats.permutation_test`, exact over all splits up to 15 rounds: C(15, 7) = 6,435
splits, within its 9,999). That holds the family's error at 5% whatever the metrics' dependence,
and with the 126 splits of 9 rounds (halves of 5 and 4) its smallest p is 1/126. A comparison is called when that p is below 5% and its bootstrap interval, at the
Bonferroni level of the family, lies on one side of zero; "equivalent" when the interval lies
within the margin, as for page sizes. (Measured on this VM's quick sweeps, per-metric families
would have made a call somewhere in about 15% of sound sweeps: bench/bench_self_checks.py.)

TpmC's pair effects. The page-size verdicts on TpmC come from the two-level model
(pagelab.evidence.model) where the runs kept interval series, so the A/A that tests them asks
the model itself: each pair's effect (16k vs 4k, ...) estimated by the model in the odd rounds
alone and in the even rounds alone, and the two estimates' difference tested as `pagelab compare`
tests two sweeps' (a t-test on Welch's degrees of freedom, pagelab.evidence.model.EffectGap;
the pairs one family, Bonferroni intervals and Holm-adjusted p, pagelab.evidence.families).
The halves share no round, so the estimates are independent; the over-time runs are in neither
half. Any "differ" is a false call. Each half needs MIN_BLOCKS_FOR_MODEL rounds, so the check
takes 6 rounds or more; a bundle without series keeps only the check above, and says so.
(bench/bench_model_checks.py measures its false-call rate on synthetic sweeps.)

The first round. The first measured runs come right after the loads; anything a load leaves behind
(writes still being flushed, a cold cache) shows as a round 1 that is systematically low. Per page
size (or cell): round 1 against the median of the later rounds, and its rank among the group's
runs (1 = lowest, ties counted against round 1). The groups of one round share the machine's
minute, so they are not independent: the test takes the round as its unit. Each round's score is
the mean over the groups of log(value / the group's median); with R exchangeable rounds, round 1's
rank among the scores is uniform on 1..R, so P(rank <= r) = r / R is its one-sided p-value. One
sweep of 9 rounds can thus say no less than p = 0.11; independent sweeps are combined with Fisher's
method (`scipy.stats.combine_pvalues`), conservative here because rank p-values are discrete.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from itertools import combinations
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pagelab.evidence.families import DIFFER, effect_differences, family_confidence
from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL, model_effects
from pagelab.evidence.intervals import (BOOTSTRAP_SEED, CONFIDENCE, DEFAULT_RESOLVE_PCT, EQUIVALENT, NOT_RESOLVED,
                                        judged, log_spread, measure)
from pagelab.evidence.components import RunSeries
from pagelab.evidence.runs import METRICS, RunTable, equivalence_of
from pagelab.evidence.pairs import PAIR_COLUMNS, comparison_row
from pagelab.evidence.wording import BOOTSTRAP_WORDS, verdict_line
from pagelab.evidence.two_sweeps import EFFECT_COLUMNS, effect_lines, effect_rows

FIRST_ROUND = 1
MAX_T_METHOD = "ratio of medians, max-T permutation p over the splits of the rounds"


def _groups(table: RunTable) -> list[tuple[str, pd.DataFrame]]:
    """(label, runs) per page size, or per page size and level in a grid, in the sweep's order."""
    if table.runs.empty:
        return []
    factors = [c for c in table.runs.columns if c.startswith("level_")]
    found = []
    for size in table.page_order:
        runs = table.runs[table.runs["page_size"] == size]
        if not factors:
            found.append((size, runs))
            continue
        for levels, part in runs.groupby(factors, sort=False):
            levels = levels if isinstance(levels, tuple) else (levels,)
            found.append((" ".join([size, *(str(level) for level in levels)]), part))
    return found


def _halves(table: RunTable) -> list[tuple[str, object, list[int], list[int], dict[int, float]]]:
    """(label, metric, odd rounds, even rounds, {round: value}) per metric and group, in the table's order."""
    found = []
    for metric in METRICS:
        for label, runs in _groups(table):
            values = {int(r): float(v) for r, v in runs[["repeat", metric.name]].dropna().itertuples(index=False)}
            found.append((label, metric, sorted(r for r in values if r % 2 == 1), sorted(r for r in values if r % 2 == 0),
                          values))
    return found


def _row_statistics(values: np.ndarray, a_idx: np.ndarray, b_idx: np.ndarray) -> np.ndarray:
    """Per row (and per split, when the indices carry a leading batch axis): |median(a) - median(b)|
    over the halves' pooled median absolute deviation; 0 where a half has no value."""
    def centre_and_spread(idx):
        part = values[:, idx.astype(int)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a half without values: nan, counted as 0 below
            centre = np.nanmedian(part, axis=-1)
            spread = np.nanmedian(np.abs(part - centre[..., None]), axis=-1)
        return centre, spread

    (a, a_spread), (b, b_spread) = centre_and_spread(a_idx), centre_and_spread(b_idx)
    spread = np.sqrt((a_spread ** 2 + b_spread ** 2) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(a - b) / np.maximum(spread, 1e-12)
    return np.nan_to_num(t, nan=0.0, posinf=1e12)


def max_t_p_values(values: np.ndarray, first: Sequence[int], seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """max_t_p_values(values, first) -> adjusted p per row

    `values`: comparisons x rounds (nan where a round has no value); `first`: the column indices
    of one half, the other columns being the other half. Each row's statistic is the difference of
    the halves' medians over their pooled median absolute deviation, and the family's is the
    largest row's. A row's single-step max-T adjusted p (Westfall & Young 1993, algorithm 2.5) is
    the share of the splits into halves of the same sizes whose family statistic reaches the row's
    own, computed by scipy.stats.permutation_test (exact when there are at most 9,999 splits, else
    9,999 drawn from `seed`, the observed split counted in)."""
    values = np.asarray(values, float)
    rounds = values.shape[1]
    taken = set(first)
    second = [i for i in range(rounds) if i not in taken]

    def family_statistic(a_idx, b_idx, axis=-1):
        return _row_statistics(values, a_idx, b_idx).max(axis=0)

    result = stats.permutation_test((np.array(first, float), np.array(second, float)), family_statistic,
                                    permutation_type="independent", vectorized=True, n_resamples=9999,
                                    alternative="greater", random_state=np.random.default_rng(seed))
    null = np.asarray(result.null_distribution, float)
    observed = _row_statistics(values, np.array(first), np.array(second))
    extra = 0 if null.size >= math.comb(rounds, len(first)) else 1  # exact: the observed split is in `null`
    return np.array([(np.sum(null >= t * (1 - 1e-9)) + extra) / (null.size + extra) for t in observed])


def a_a_table(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT,
              equivalence_pct: float | None = None) -> pd.DataFrame:
    """Odd rounds against even rounds per group and metric, all of them one family (see the module
    comment); rows as `pairwise_table`'s, a = '<group> odd rounds', b = '<group> even rounds'."""
    delta = equivalence_of(table) if equivalence_pct is None else equivalence_pct
    halves = _halves(table)
    if not halves:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    m = sum(len(odd) >= 2 and len(even) >= 2 for _, _, odd, even, _ in halves)
    level = family_confidence(m)
    spreads = {metric.name: log_spread([[values[r] for r in side] for label, mm, odd, even, values in halves
                                        if mm is metric for side in (odd, even)]) for metric in METRICS}
    measured = [measure([values[r] for r in odd], [values[r] for r in even], spreads[metric.name], resolve_pct,
                        level, delta) for _, metric, odd, even, values in halves]
    rounds = sorted({r for *_, values in halves for r in values})
    adjusted = [math.nan] * len(halves)
    testable = [i for i, (_, _, odd, even, _) in enumerate(halves) if len(odd) >= 2 and len(even) >= 2]
    if testable and len(rounds) >= 4:
        matrix = np.array([[math.log(halves[i][4][r]) if r in halves[i][4] and halves[i][4][r] > 0 else math.nan
                            for r in rounds] for i in testable])
        first = [k for k, r in enumerate(rounds) if r % 2 == 1]
        for i, p in zip(testable, max_t_p_values(matrix, first)):
            adjusted[i] = float(p)
    return pd.DataFrame([comparison_row(replace(judged(c, p, CONFIDENCE, m), method=MAX_T_METHOD),
                                        f"{label} odd rounds", f"{label} even rounds", metric)
                         for (label, metric, *_), c, p in zip(halves, measured, adjusted)], columns=PAIR_COLUMNS)


# --- TpmC's pair effects, odd rounds against even rounds, by the two-level model ----------------------

ODD, EVEN = "the odd rounds", "the even rounds"


def pair_halves(series: Sequence[RunSeries], round_of: Mapping[str, int], page_order: Sequence[str],
                equivalence_pct: float, unusable: set | frozenset = frozenset()) -> pd.DataFrame:
    """Each pair (each later page size against each earlier one): its effect by the two-level model
    in the odd rounds and in the even rounds, and their difference, the pairs one family (see the
    module comment); rows of pagelab.evidence.two_sweeps.EFFECT_COLUMNS, effect_a_pct the odd
    rounds'. `round_of` gives each verdict run's round ({run name: round}); runs not in it are in
    neither half. `unusable` holds (parity, page size) where a run of that half kept no series: the
    pairs of that page size then have no model there, and no interval."""
    pairs = list(combinations(page_order, 2))
    effects = {}
    for parity in (1, 0):
        part = [run for run in series if run.role == "verdict" and run.run in round_of
                and round_of[run.run] % 2 == parity]
        found = model_effects(part, page_order, [(second, first) for first, second in pairs])
        effects[parity] = [None if {(parity, first), (parity, second)} & set(unusable) else effect
                           for effect, (first, second) in zip(found, pairs)]
    differences = effect_differences([(([], []), ([], []))] * len(pairs), equivalence_pct=equivalence_pct,
                                     models=list(zip(effects[1], effects[0])))
    return pd.DataFrame(effect_rows("tpmc", pairs, differences, equivalence_pct), columns=EFFECT_COLUMNS)


def pair_halves_table(table: RunTable) -> pd.DataFrame:
    """`pair_halves` of a bundle's runs: every verdict run's round, and the halves whose runs did
    not all keep a series. Empty for a bundle whose runs kept none."""
    if not table.series or table.runs.empty:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    runs = table.runs[["run", "page_size", "repeat"]].itertuples(index=False)
    kept = {run.run for run in table.series}
    rounds, unusable = {}, set()
    for name, size, repeat in runs:
        rounds[name] = int(repeat)
        if name not in kept:
            unusable.add((int(repeat) % 2, size))
    return pair_halves(table.series, rounds, table.page_order, equivalence_of(table), unusable)


def pair_halves_lines(table: RunTable) -> list[str]:
    """What `pagelab stats --checks` prints of TpmC's pair effects, odd rounds against even rounds."""
    head = "A/A of TpmC's pair effects, odd rounds against even rounds"
    if any(column.startswith("level_") for column in table.runs.columns):
        return [f"{head}: a grid's pairs are judged within each level by the rank tests, not by the two-level "
                "model, so there is no model to check; the check above stands for it."]
    if not table.series:
        return [f"{head}: this bundle's runs kept no interval series, so the two-level model cannot be checked "
                "here; the check above (each page size's halves, max-T) stands for it."]
    frame = pair_halves_table(table)
    tested = frame[frame["low_pts"].notna()]
    if tested.empty:
        return [f"{head}: the two-level model needs {MIN_BLOCKS_FOR_MODEL} rounds in each half, so "
                f"{2 * MIN_BLOCKS_FOR_MODEL} or more rounds with every run's series; this sweep has too few."]
    m = int(tested["family_size"].max())
    lines = [f"{head} (each pair's effect by the two-level model in each half, and their difference in log points "
             f"with a {tested['confidence_pct'].iloc[0]:.4g}% Welch-Satterthwaite t interval"
             + (f"; the {m} pairs one family, Bonferroni intervals, p Holm-adjusted" if m > 1 else "")
             + "; a 'differ' is a false call):"]
    lines += [f"  {line}" for line in effect_lines(tested, ODD, EVEN)]
    lines += [f"  {row['a']} vs {row['b']}: not checked (a run of a half kept no series, or a half has fewer than "
              f"{MIN_BLOCKS_FOR_MODEL} rounds of both)" for row in frame[frame["low_pts"].isna()].to_dict("records")]
    wrong = pair_false_calls(frame)
    lines.append(f"A/A false calls of the pair effects: {len(wrong)} of {len(tested)} pairs"
                 + (" (" + "; ".join(f"{row['a']} vs {row['b']}" for row in wrong.to_dict("records")) + ")"
                    if len(wrong) else ""))
    return lines


def pair_false_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """The pair-effect A/A rows that called a difference."""
    return frame[frame["word"] == DIFFER]


def splits(table: RunTable) -> int:
    """How many ways the sweep's rounds split into halves of the A/A's sizes (odd against even)."""
    rounds = sorted({int(r) for r in table.runs["repeat"]}) if not table.runs.empty else []
    return math.comb(len(rounds), sum(r % 2 == 1 for r in rounds)) if rounds else 0


def too_few_splits_text(table: RunTable) -> str:
    """Why the A/A check cannot call anything in this sweep ('' when it can): with S splits no p is below 1/S."""
    count = splits(table)
    if count and 1 / count >= 1 - CONFIDENCE:
        return (f"with {count} splits of the rounds no p can be below 1/{count}, so this check cannot call a "
                f"difference here (it takes 7 rounds or more)")
    return ""


def family_method_text(frame: pd.DataFrame, table: RunTable) -> str:
    """How the A/A family was judged, for the lines and the report."""
    m = len(compared(frame))
    return (f"all {m} comparisons one family: ratio of medians with a {100 * family_confidence(m):.4g}% bootstrap "
            f"interval (Bonferroni; {BOOTSTRAP_WORDS}), p from a max-T permutation test over the {splits(table):,} "
            f"splits of the rounds (Westfall & Young); equivalent = the interval within ±{equivalence_of(table):g}%")


def compared(frame: pd.DataFrame) -> pd.DataFrame:
    """The A/A rows that had runs enough for an interval on both sides: the ones that count."""
    return frame[frame["change_pct"].notna() & frame["low_pct"].notna()]


def false_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """The A/A rows that called a difference: every word but 'equivalent' and 'not resolved'."""
    return frame[~frame["verdict"].isin([EQUIVALENT, NOT_RESOLVED]) & frame["change_pct"].notna()]


def _rank_of(values: np.ndarray, index: int) -> int:
    """The rank of values[index] among values, 1 = lowest, ties ranked against it (the largest rank)."""
    return int(stats.rankdata(values, method="max")[index])


def first_round_table(table: RunTable, metric: str = "tpmc") -> pd.DataFrame:
    """Per group: round 1's value, the median of the later rounds, their ratio, and round 1's rank
    (1 = lowest) among the group's runs."""
    rows = []
    for label, runs in _groups(table):
        values = runs[["repeat", metric]].dropna()
        first = values.loc[values["repeat"] == FIRST_ROUND, metric]
        later = values.loc[values["repeat"] != FIRST_ROUND, metric]
        if first.empty or len(later) < 2:
            continue
        value = float(first.iloc[0])
        rank = _rank_of(values[metric].to_numpy(), list(values["repeat"]).index(FIRST_ROUND))
        rows.append({"group": label, "metric": metric, "first": value, "later_median": float(later.median()),
                     "ratio": value / float(later.median()), "rank": rank, "runs": len(values)})
    return pd.DataFrame(rows, columns=["group", "metric", "first", "later_median", "ratio", "rank", "runs"])


def round_scores(table: RunTable, metric: str = "tpmc") -> pd.Series:
    """Per round: the mean over the groups of log(value / the group's median)."""
    parts = []
    for _, runs in _groups(table):
        values = runs[["repeat", metric]].dropna()
        if len(values) >= 2:
            parts.append(pd.Series(np.log(values[metric].to_numpy() / values[metric].median()),
                                   index=values["repeat"].astype(int).to_numpy()))
    if not parts:
        return pd.Series(dtype=float)
    return pd.concat(parts).groupby(level=0).mean().sort_index()


def first_round_p(table: RunTable, metric: str = "tpmc") -> float:
    """P(round 1 scores this low or lower) with exchangeable rounds: its rank / the rounds (nan
    without round 1 and two more)."""
    scores = round_scores(table, metric)
    if FIRST_ROUND not in scores.index or len(scores) < 3:
        return math.nan
    return _rank_of(scores.to_numpy(), list(scores.index).index(FIRST_ROUND)) / len(scores)


def combined_first_round_p(tables: list[RunTable], metric: str = "tpmc") -> float:
    """Independent sweeps' first_round_p combined by Fisher's method (nan without any)."""
    found = [p for p in (first_round_p(table, metric) for table in tables) if not math.isnan(p)]
    return float(stats.combine_pvalues(found, method="fisher").pvalue) if found else math.nan


def check_lines(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT) -> list[str]:
    """What `pagelab stats --checks` prints after the sweep's own lines."""
    lines = []
    halves = a_a_table(table, resolve_pct)
    counted = compared(halves)
    lines.append(f"A/A: each page size's odd rounds against its even rounds ({family_method_text(halves, table)}):")
    for metric in METRICS:
        part = halves[halves["metric"] == metric.name]
        lines += [f"  {verdict_line(row, metric, adjustment='max-T')}" for row in part.to_dict("records")]
    wrong = false_calls(counted)
    lines.append(f"A/A false calls: {len(wrong)} of {len(counted)} comparisons"
                 + (" (" + "; ".join(f"{r['a']}: {r['metric']} {r['verdict']}" for r in wrong.to_dict('records')) + ")"
                    if len(wrong) else "")
                 + (f"; {cannot_call}" if (cannot_call := too_few_splits_text(table)) else ""))
    lines += pair_halves_lines(table)
    first = first_round_table(table)
    if first.empty:
        lines.append("The first round: too few rounds to rank it.")
        return lines
    lines.append("The first round (the first runs after the loads) against the later rounds, TpmC:")
    for row in first.to_dict("records"):
        lines.append(f"  {row['group']:>6}  {row['first']:,.0f} against a median of {row['later_median']:,.0f} "
                     f"({row['ratio']:.3f}), rank {row['rank']} of {row['runs']} (1 = lowest)")
    p = first_round_p(table)
    rounds = len(round_scores(table))
    lines.append(f"  round 1 this low or lower among the {rounds} rounds by chance: p {p:.2g} (its rank among the "
                 f"rounds' mean log-ratios; one sweep cannot go below 1/{rounds})")
    return lines
