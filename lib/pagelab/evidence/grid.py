"""A sweep with a second factor beside the page size (a profile's `buffer_pool: [10%, 30%, 50%]`
or `warehouses: [1, 2]`): each cell's median, the page-size effect at each level of the other
factor, and whether that effect changes with the factor.

The runs of a grid carry their levels in `level_<knob>` columns (pagelab.bundle.read_runs,
from each run's `cell` in sweep.json). At one level, the runs are an ordinary sweep over page sizes
whose rounds are the grid's rounds, so the medians, intervals and page-size comparisons are the
ones of pagelab.evidence.medians and .pairs, unchanged: the effect at a level is the ratio of medians of the
largest page size against the smallest, round by round when enough rounds finished
(`compare_rounds`).

Whether the effect changes with the factor is the difference of the effects at the factor's last
and first level, in log points (100 x the difference of the natural logs of the two ratios of
medians; close to percentage points for effects of a few percent), with a percentile bootstrap
interval by `pagelab.evidence.effect_difference`, which resamples a level by rounds when its two
page sizes share enough of them, else run by run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pandas as pd

from pagelab.evidence.families import AGREE, effect_difference
from pagelab.evidence.runs import METRICS_BY_NAME, RunTable
from pagelab.evidence.medians import page_size_table
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.wording import BOOTSTRAP_WORDS, pct_text

LEVEL_PREFIX = "level_"
FACTOR_WORDS = {"buffer_pool": "buffer pool", "warehouses": "warehouses"}


def grid_factors(table: RunTable) -> list[str]:
    """The knobs this bundle's runs vary besides the page size, in the profile's order."""
    if table.runs.empty:
        return []
    return [column[len(LEVEL_PREFIX):] for column in table.runs.columns if column.startswith(LEVEL_PREFIX)]


def levels(table: RunTable, factor: str) -> list:
    """The factor's levels in the order the profile lists them."""
    listed = table.profile.get(factor)
    found = list(dict.fromkeys(table.runs[LEVEL_PREFIX + factor].dropna()))
    if isinstance(listed, list):
        return [level for level in listed if level in found] + [level for level in found if level not in listed]
    return found


def at_level(table: RunTable, factor: str, level) -> RunTable:
    """The runs at one level of the factor, as a sweep of their own."""
    return replace(table, runs=table.runs[table.runs[LEVEL_PREFIX + factor] == level].reset_index(drop=True))


def cell_table(table: RunTable, factor: str, metric: str = "tpmc") -> pd.DataFrame:
    """Per level and page size: runs, median and its interval (pagelab.evidence.medians.page_size_table)."""
    rows = []
    for level in levels(table, factor):
        per_size = page_size_table(at_level(table, factor, level))
        for row in per_size[per_size["metric"] == metric].to_dict("records"):
            rows.append({"factor": factor, "level": level, **row})
    return pd.DataFrame(rows)


def effect_pair(table: RunTable) -> tuple[str, str]:
    """(a, b): the largest page size against the smallest, the effect a grid follows."""
    return table.page_order[-1], table.page_order[0]


def effect_table(table: RunTable, factor: str, metric: str = "tpmc") -> pd.DataFrame:
    """Per level: the page-size effect (a against b, `effect_pair`), ratio of medians as a change in
    percent with its interval and verdict (pagelab.evidence.pairs.pairwise_table: the level's page
    sizes judged as one family, so the interval is at the Bonferroni level of its pairs, 95% for one)."""
    a, b = effect_pair(table)
    rows = []
    for level in levels(table, factor):
        pairs = pairwise_table(at_level(table, factor, level), metrics=(METRICS_BY_NAME[metric],))
        for row in pairs[(pairs["a"] == a) & (pairs["b"] == b)].to_dict("records"):
            rows.append({"factor": factor, "level": level, **row})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class EffectChange:
    factor: str
    first_level: object
    last_level: object
    first_pct: float
    last_pct: float
    difference: float  # last minus first, in log points
    low: float
    high: float
    agree_within: float | None = None  # the interval lies inside +-this (pagelab.evidence's equivalence margin)


def _difference_of_effects(first: tuple[dict, dict], last: tuple[dict, dict]) -> tuple[float, float, float, float | None]:
    """(difference, low, high, agree_within) in log points of the effect at `last` minus the effect at
    `first`, each given as ({round: value} of a, {round: value} of b), with its 95% interval;
    agree_within is the equivalence margin when the interval lies inside it, else None."""
    found = effect_difference(last, first)
    agree = float(found.equivalence_pct) if found.word == AGREE else None
    return float(found.difference), float(found.low), float(found.high), agree


def _by_round(table: RunTable, page_size: str, metric: str) -> dict[int, float]:
    rows = table.runs.loc[table.runs["page_size"] == page_size, ["repeat", metric]]
    return {int(repeat): float(value) for repeat, value in rows.itertuples(index=False) if not pd.isna(value)}


def effect_change(table: RunTable, factor: str, metric: str = "tpmc") -> EffectChange | None:
    """The effect at the factor's last level against its first; None without 2 runs in each group."""
    found = levels(table, factor)
    if len(found) < 2:
        return None
    a, b = effect_pair(table)
    first, last = at_level(table, factor, found[0]), at_level(table, factor, found[-1])
    groups = [_by_round(first, a, metric), _by_round(first, b, metric), _by_round(last, a, metric),
              _by_round(last, b, metric)]
    if min(len(group) for group in groups) < 2:
        return None
    difference, low, high, agree = _difference_of_effects((groups[0], groups[1]), (groups[2], groups[3]))
    effects = effect_table(table, factor, metric).set_index("level")["change_pct"]
    return EffectChange(factor, found[0], found[-1], float(effects[found[0]]), float(effects[found[-1]]),
                        difference, low, high, agree)


def effect_change_sentence(table: RunTable, factor: str, metric: str = "tpmc") -> str:
    """Whether the page-size effect changes with the factor, in one sentence with its interval."""
    a, b = effect_pair(table)
    words = FACTOR_WORDS.get(factor, factor)
    change = effect_change(table, factor, metric)
    if change is None:
        return (f"Whether the {a} vs {b} effect changes with the {words} needs at least 2 finished runs of each "
                f"page size at its first and last level; this sweep has fewer, so it cannot say.")
    if math.isnan(change.low):
        return (f"The {a} vs {b} effect is {pct_text(change.first_pct)} at {words} {change.first_level} and "
                f"{pct_text(change.last_pct)} at {change.last_level}; some resampled medians are 0, so the "
                f"change has no interval and this sweep cannot say whether it depends on the {words}.")
    head = (f"The {a} vs {b} effect is {pct_text(change.first_pct)} at {words} {change.first_level} and "
            f"{pct_text(change.last_pct)} at {change.last_level}: it moves by {pct_text(change.difference, ' log points')} "
            f"[{pct_text(change.low, '')}, {pct_text(change.high, '')}] (95% interval, {BOOTSTRAP_WORDS})")
    if change.low > 0 or change.high < 0:
        return head + f", so the page-size effect changes with the {words}."
    if change.agree_within is not None:
        return head + (f", inside ±{change.agree_within:g} log points: the page-size effect is the same at both "
                       f"levels of the {words}.")
    return head + f", an interval that includes 0: this sweep cannot tell that the effect depends on the {words}."


def grid_lines(table: RunTable, metric: str = "tpmc") -> list[str]:
    """What `pagelab stats` prints for a grid: per factor, each cell's median with its interval,
    the effect at each level, and whether it changes."""
    from pagelab.evidence.wording import number_text, verdict_line

    lines = []
    for factor in grid_factors(table):
        words = FACTOR_WORDS.get(factor, factor)
        lines.append(f"Per cell ({words} x page size): median TpmC [interval] of the runs")
        for row in cell_table(table, factor, metric).to_dict("records"):
            interval = (f"[{number_text(row['low'], 0)}, {number_text(row['high'], 0)}]" if row["runs"] >= 2
                        else "no interval")
            lines.append(f"  {words} {row['level']!s:>6}  {row['page_size']:>4}  {number_text(row['median'], 0):>10}  "
                         f"{interval}  ({row['runs']} runs)")
        lines.append(f"The page-size effect at each level of the {words}:")
        for row in effect_table(table, factor, metric).to_dict("records"):
            lines.append(f"  {words} {row['level']}: {verdict_line(row)}")
        lines.append(effect_change_sentence(table, factor, metric))
    return lines
