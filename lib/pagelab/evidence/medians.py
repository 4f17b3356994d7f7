"""Each page size on its own: the median of its runs per metric with the order-statistic interval
and the confidence that interval really has (pagelab.evidence.intervals.median_interval), as a table
and as the lines `pagelab stats` prints. The table's columns and their words live together here,
so a change to what the interval is changes what it is called in the same place.
"""

from __future__ import annotations

import math

import pandas as pd

from pagelab.evidence.intervals import CONFIDENCE, median_interval, median_ranks, order_coverage
from pagelab.evidence.runs import METRICS, METRICS_BY_NAME, RunTable, _values
from pagelab.evidence.wording import number_text


# The columns' headers as every table of this shows them (the report's, a grid's cells): the
# confidence is the one the interval really has, and the farther end is what the code computes.
CONFIDENCE_HEADER = "Interval's actual confidence (%)"
FAR_END_HEADER = "Farther end from the median (%)"
FAR_END_WORDS = ("The farther end is the larger of the two distances from the median to the interval's ends, in % "
                 "of the median (the interval need not be symmetric, so it is not a half-width)")
METHOD_WORDS = ("the order-statistic confidence interval of a median: the number B of runs below the true median is "
                "binomial(n, ½) whatever the runs' distribution (Conover, Practical Nonparametric Statistics, 1999, "
                "ch. 3; scipy.stats.binom)")


def page_size_table(table: RunTable) -> pd.DataFrame:
    """Per metric and page size: runs, median, interval (the low_rank-th and high_rank-th smallest
    runs), the confidence the interval really has, and its farther end from the median in %."""
    rows = []
    for metric in METRICS:
        for page_size in table.page_order:
            interval = median_interval(_values(table.runs, page_size, metric.name))
            ranged = interval.n >= 2  # one run has a value, not an interval
            rows.append({"metric": metric.name, "page_size": page_size, "runs": interval.n,
                         "median": interval.median, "low": interval.low if ranged else math.nan,
                         "high": interval.high if ranged else math.nan,
                         "confidence_pct": round(100 * interval.confidence, 1) if ranged else math.nan,
                         "far_end_pct": interval.far_end_pct if ranged else math.nan,
                         "low_rank": interval.low_rank if ranged else 0,
                         "high_rank": interval.high_rank if ranged else 0})
    return pd.DataFrame(rows)


def median_columns(metric: str) -> dict[str, tuple[str, int | None]]:
    """The per-page-size table's columns as a report shows them ({column: (header, decimals)})."""
    found = METRICS_BY_NAME[metric]
    return {"page_size": ("Page size", None), "runs": ("Runs", 0),
            "median": (f"Median {found.label} ({found.unit})", found.decimals),
            "low": ("Interval low", found.decimals), "high": ("Interval high", found.decimals),
            "confidence_pct": (CONFIDENCE_HEADER, 1), "far_end_pct": (FAR_END_HEADER, 1)}


def _smallest(rank: int) -> str:
    """'the smallest', 'the 2nd smallest'."""
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return "the smallest" if rank == 1 else f"the {rank}{suffix} smallest"


def coverage_text(n: int, confidence: float = CONFIDENCE) -> str:
    """How the interval of n runs' median is made and the confidence it has, in numbers:
    'with 7 runs, from the smallest to the largest run, which holds the true median with probability
    1 − 2 × 0.5^7 = 98.4%: more than the 95% asked for, as the next narrower pair, ... only 87.5%'."""
    r, s, coverage = median_ranks(n, confidence)
    asked = f"{100 * confidence:g}%"
    if r == 1:
        pair, formula = "from the smallest to the largest run", f"1 − 2 × 0.5^{n} = {100 * coverage:.1f}%"
    else:
        pair = f"from {_smallest(r)} to {_smallest(r).replace('smallest', 'largest')} run"
        formula = f"1 − 2 × P(B ≤ {r - 1}) = {100 * coverage:.1f}% (B binomial({n}, ½))"
    text = f"with {n} runs, {pair}, which holds the true median with probability {formula}"
    if coverage < confidence:
        return f"{text}: less than the {asked} asked for, which {n} runs cannot reach"
    if coverage > confidence and r + 1 < s - 1:
        narrower = order_coverage(n, r + 1, s - 1)
        return (f"{text}: more than the {asked} asked for, as the next narrower pair, {_smallest(r + 1)} to "
                f"{_smallest(r + 1).replace('smallest', 'largest')}, holds it only {100 * narrower:.1f}% of the time")
    return text


def median_note(per_size: pd.DataFrame) -> str:
    """The note under a per-page-size table: what its interval is, the confidence it has for each
    number of runs in the table, and what the farther end is."""
    counts = sorted({int(n) for n in per_size["runs"] if n >= 2}, reverse=True) if not per_size.empty else []
    if not counts:
        return "One run or none per page size: a median, no interval."
    each = "; ".join(coverage_text(n) for n in counts)
    return f"Each interval is {METHOD_WORDS}; {each}. {FAR_END_WORDS}."


def page_size_text(per_size: pd.DataFrame) -> list[str]:
    """The per-page-size table as aligned lines: the note first, then one block per metric."""
    lines = [f"Medians of the runs per page size. {median_note(per_size)}"] if not per_size.empty else []
    for metric in METRICS:
        part = per_size[per_size["metric"] == metric.name]
        if part.empty:
            continue
        lines.append(f"{metric.label} ({metric.unit}): median [interval] of the runs, the interval's actual "
                     "confidence, its farther end")
        for row in part.to_dict("records"):
            if row["runs"] >= 2:
                interval = (f"[{number_text(row['low'], metric.decimals)}, {number_text(row['high'], metric.decimals)}] "
                            f"at {row['confidence_pct']:g}%, farther end {row['far_end_pct']:.1f}%")
            else:
                interval = "no interval from one run" if row["runs"] else "no runs"
            lines.append(f"  {row['page_size']:>4}  {number_text(row['median'], metric.decimals):>10}  {interval}"
                         f"  ({row['runs']} run{'s' if row['runs'] != 1 else ''})")
    return lines
