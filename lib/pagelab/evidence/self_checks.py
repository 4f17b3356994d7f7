"""A sweep checked against itself: an A/A comparison of each page size with itself, and whether its
first round stands apart (`pagelab stats BUNDLE --checks`).

A/A halves. Each page size's (or grid cell's) rounds are split by parity, the odd rounds against
the even ones. The rounds ran interleaved, each in an order drawn afresh from the profile's seed,
so the two halves differ only by chance and by whatever the design failed to cancel. They are
judged exactly as page sizes are (`compare_family`: per metric one family over the page sizes,
Holm-adjusted rank tests, Bonferroni-adjusted intervals), run by run, since odd and even rounds
share no round. Any "faster"/"slower" (or "higher"/"lower") here is a false call, and a sweep
whose family gives one has a problem its page-size verdicts share.

The first round. A page size's first run comes right after its load, the others after a restore
of the loaded snapshot; anything the load leaves behind (writes still being flushed, a cold cache)
shows as a first round that is systematically low. Per page size (or cell), the rank of round 1
among its runs: with n exchangeable runs it is uniform on 1..n, so P(rank <= r) = r / n is its
one-sided p-value. The groups' p-values are combined with Fisher's method
(`scipy.stats.combine_pvalues`), conservative here because rank p-values are discrete.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats

from pagelab.evidence.families import compare_family
from pagelab.evidence.intervals import DEFAULT_RESOLVE_PCT, EQUIVALENT, NOT_RESOLVED, log_spread
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


def false_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """The A/A rows that called a difference: every word but 'equivalent' and 'not resolved'."""
    return frame[~frame["verdict"].isin([EQUIVALENT, NOT_RESOLVED]) & frame["change_pct"].notna()]


def first_round_table(table: RunTable, metric: str = "tpmc") -> pd.DataFrame:
    """Per group: round 1's value, the median of the later rounds, their ratio, and round 1's rank
    (1 = lowest) among the group's runs with its one-sided p-value rank / n."""
    rows = []
    for label, runs in _groups(table):
        values = runs[["repeat", metric]].dropna()
        first = values.loc[values["repeat"] == FIRST_ROUND, metric]
        later = values.loc[values["repeat"] != FIRST_ROUND, metric]
        if first.empty or len(later) < 2:
            continue
        value = float(first.iloc[0])
        rank = int(stats.rankdata(values[metric].to_numpy())[list(values["repeat"]).index(FIRST_ROUND)])
        rows.append({"group": label, "metric": metric, "first": value, "later_median": float(later.median()),
                     "ratio": value / float(later.median()), "rank": rank, "runs": len(values),
                     "p_this_low": rank / len(values)})
    return pd.DataFrame(rows, columns=["group", "metric", "first", "later_median", "ratio", "rank", "runs",
                                       "p_this_low"])


def first_round_p(frame: pd.DataFrame) -> float:
    """Fisher's combination of the groups' p-values (nan without groups)."""
    if frame.empty:
        return math.nan
    return float(stats.combine_pvalues(frame["p_this_low"].to_numpy(), method="fisher").pvalue)


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
    wrong = false_calls(halves)
    lines.append(f"A/A false calls: {len(wrong)} of {int(halves['change_pct'].notna().sum())} comparisons"
                 + (" (" + "; ".join(f"{r['a']}: {r['metric']} {r['verdict']}" for r in wrong.to_dict('records')) + ")"
                    if len(wrong) else ""))
    first = first_round_table(table)
    if first.empty:
        lines.append("The first round: too few rounds to rank it.")
        return lines
    lines.append("The first round (each page size's first run after its load) against the later rounds, TpmC:")
    for row in first.to_dict("records"):
        lines.append(f"  {row['group']:>6}  {row['first']:,.0f} against a median of {row['later_median']:,.0f} "
                     f"({row['ratio']:.3f}), rank {row['rank']} of {row['runs']} (1 = lowest)")
    lines.append(f"  round 1 this low or lower by chance: p {first_round_p(first):.2g} (Fisher's combination of "
                 f"rank / n over {len(first)} groups)")
    return lines
