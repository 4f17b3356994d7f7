"""A sweep checked against itself: an A/A comparison of each page size with itself, and whether its
first round stands apart (`pagelab stats BUNDLE --checks`).

A/A halves. Each page size's (or grid cell's) rounds are split by parity, the odd rounds against
the even ones. The rounds ran interleaved, each in an order drawn afresh from the profile's seed,
so the two halves differ only by chance and by whatever the design failed to cancel. They are
judged exactly as page sizes are (`compare_family`: per metric one family over the page sizes,
Holm-adjusted rank tests, Bonferroni-adjusted intervals), run by run, since odd and even rounds
share no round. Any "faster"/"slower" (or "higher"/"lower") here is a false call. Each metric's
family holds its rate at 5%, so a sound sweep of five metrics still makes one somewhere in up to 5 x
5% = 25% of sweeps (Boole's inequality; less as the metrics move together: about 15% measured on
this VM's quick sweeps by bench/bench_self_checks.py). One call is thus a prompt to look, and a
call that recurs across sweeps, or a sweep with several events, is a problem the page-size
verdicts share. A sweep-wide family cannot replace this: at 9 rounds (5 against 4) the exact rank
test's smallest p, 1/63, times 15 comparisons is above 5%, so it could never call anything.

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

import numpy as np
import pandas as pd
from scipy import stats

from pagelab.evidence.families import compare_family
from pagelab.evidence.intervals import CONFIDENCE, DEFAULT_RESOLVE_PCT, EQUIVALENT, NOT_RESOLVED, log_spread
from pagelab.evidence.tables import (METRICS, PAIR_COLUMNS, RunTable, comparison_row, equivalence_of, family_text,
                                     verdict_line)

FIRST_ROUND = 1


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


def a_a_table(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT,
              equivalence_pct: float | None = None) -> pd.DataFrame:
    """Odd rounds against even rounds per group and metric, judged as one family per metric;
    rows as `pairwise_table`'s, a = '<group> odd rounds', b = '<group> even rounds'."""
    delta = equivalence_of(table) if equivalence_pct is None else equivalence_pct
    rows = []
    for metric in METRICS:
        halves = []
        for label, runs in _groups(table):
            values = runs[["repeat", metric.name]].dropna()
            odd = [float(v) for r, v in values.itertuples(index=False) if int(r) % 2 == 1]
            even = [float(v) for r, v in values.itertuples(index=False) if int(r) % 2 == 0]
            halves.append((label, odd, even))
        if not halves:
            continue
        spread = log_spread([side for _, odd, even in halves for side in (odd, even)])
        found = compare_family([(odd, even) for _, odd, even in halves], spread=spread, resolve_pct=resolve_pct,
                               equivalence_pct=delta)
        rows += [comparison_row(comparison, f"{label} odd rounds", f"{label} even rounds", metric)
                 for (label, _, _), comparison in zip(halves, found)]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def sweep_false_alarm_bound(frame: pd.DataFrame, confidence: float = CONFIDENCE) -> float:
    """The most often a sound sweep makes at least one A/A call: (1 - confidence) per metric's family,
    summed over the metrics compared (Boole's inequality), at most 1."""
    return min(1.0, (1 - confidence) * compared(frame)["metric"].nunique())


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
    for metric in METRICS:
        part = halves[halves["metric"] == metric.name]
        if part.empty:
            continue
        lines.append(family_text(part, f"A/A, {metric.label}: each page size's odd rounds against its even rounds"))
        lines += [f"  {verdict_line(row, metric)}" for row in part.to_dict("records")]
    counted = compared(halves)
    wrong = false_calls(counted)
    lines.append(f"A/A false calls: {len(wrong)} of {len(counted)} comparisons"
                 + (" (" + "; ".join(f"{r['a']}: {r['metric']} {r['verdict']}" for r in wrong.to_dict('records')) + ")"
                    if len(wrong) else "")
                 + (f"; each metric's family holds 5%, so a sound sweep makes a call somewhere in up to "
                    f"{100 * sweep_false_alarm_bound(halves):.0f}% of sweeps" if len(counted) else ""))
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
