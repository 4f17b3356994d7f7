"""Each page size on its own: the median of its runs per metric with the order-statistic interval
and the confidence that interval really has (pagelab.evidence.intervals.median_interval), as a table
and as the lines `pagelab stats` prints. The table's columns and their words live together here,
so a change to what the interval is changes what it is called in the same place.
"""

from __future__ import annotations

import math

import pandas as pd

from pagelab.evidence.intervals import median_interval
from pagelab.evidence.runs import METRICS, RunTable, _values
from pagelab.evidence.wording import number_text


def page_size_table(table: RunTable) -> pd.DataFrame:
    """Per metric and page size: runs, median, interval and the confidence the interval has."""
    rows = []
    for metric in METRICS:
        for page_size in table.page_order:
            interval = median_interval(_values(table.runs, page_size, metric.name))
            ranged = interval.n >= 2  # one run has a value, not an interval
            rows.append({"metric": metric.name, "page_size": page_size, "runs": interval.n,
                         "median": interval.median, "low": interval.low if ranged else math.nan,
                         "high": interval.high if ranged else math.nan,
                         "confidence_pct": round(100 * interval.confidence, 1) if ranged else math.nan,
                         "half_width_pct": interval.half_width_pct if ranged else math.nan})
    return pd.DataFrame(rows)


def page_size_text(per_size: pd.DataFrame) -> list[str]:
    """The per-page-size table as aligned lines: one block per metric."""
    lines = []
    for metric in METRICS:
        part = per_size[per_size["metric"] == metric.name]
        if part.empty:
            continue
        lines.append(f"{metric.label} ({metric.unit}): median [interval] of the runs")
        for row in part.to_dict("records"):
            if row["runs"] >= 2:
                interval = (f"[{number_text(row['low'], metric.decimals)}, {number_text(row['high'], metric.decimals)}] "
                            f"at {row['confidence_pct']:g}%  ±{row['half_width_pct']:.1f}%")
            else:
                interval = "no interval from one run" if row["runs"] else "no runs"
            lines.append(f"  {row['page_size']:>4}  {number_text(row['median'], metric.decimals):>10}  {interval}"
                         f"  ({row['runs']} run{'s' if row['runs'] != 1 else ''})")
    return lines
