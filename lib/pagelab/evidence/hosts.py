"""The host as a factor: per-host medians of a bundle's runs, and whether the hosts differ more
than the page sizes do. Runs spread over nodes (Slurm) may differ by node as much as by page size
(Maricq et al., OSDI 2018); this is apart from the page-size tables because it answers another
question (is the machine a confound?) and changes with how sweeps spread over hosts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pagelab.evidence.runs import METRICS, METRICS_BY_NAME, UNRECORDED_HOST, RunTable, _values
from pagelab.evidence.wording import number_text


def host_table(table: RunTable) -> pd.DataFrame:
    """Per metric, page size and host: the runs and their median (numpy's median; too few runs per
    host for an interval in most sweeps, so none is claimed)."""
    rows = []
    if table.runs.empty:
        return pd.DataFrame(rows, columns=["metric", "page_size", "host", "runs", "median"])
    for metric in METRICS:
        for page_size in table.page_order:
            part = table.runs[table.runs["page_size"] == page_size]
            for host, group in part.groupby("host", sort=True):
                values = group[metric.name].dropna()
                rows.append({"metric": metric.name, "page_size": page_size, "host": host, "runs": len(values),
                             "median": float(np.median(values)) if len(values) else math.nan})
    return pd.DataFrame(rows, columns=["metric", "page_size", "host", "runs", "median"])


def host_spread(table: RunTable, metric: str = "tpmc") -> dict:
    """The largest host-to-host spread within one page size, and the page-size effect, both as the
    range of medians over the median of all runs, in %: {'hosts', 'host_spread_pct', 'page_size',
    'page_effect_pct', 'larger'} ('larger': the hosts differ more than the page sizes do)."""
    hosts = sorted(set(table.runs["host"])) if not table.runs.empty else []
    per_host = host_table(table)
    per_host = per_host[(per_host["metric"] == metric) & (per_host["runs"] > 0)]
    overall = float(np.median(table.runs[metric].dropna())) if hosts else math.nan
    worst, worst_size = math.nan, None
    for page_size, group in per_host.groupby("page_size", sort=False):
        if len(group) >= 2 and overall:
            spread = 100 * (group["median"].max() - group["median"].min()) / overall
            if math.isnan(worst) or spread > worst:
                worst, worst_size = spread, page_size
    sizes = [median for size in table.page_order if (median := _median_or_nan(table.runs, size, metric)) == median]
    effect = 100 * (max(sizes) - min(sizes)) / overall if len(sizes) >= 2 and overall else math.nan
    return {"hosts": hosts, "host_spread_pct": worst, "page_size": worst_size, "page_effect_pct": effect,
            "larger": bool(not math.isnan(worst) and not math.isnan(effect) and worst > effect)}


def _median_or_nan(runs: pd.DataFrame, page_size: str, metric: str) -> float:
    values = _values(runs, page_size, metric)
    return float(np.median(values)) if values else math.nan


def _rounds_within_hosts(runs: pd.DataFrame) -> bool:
    """True when the rounds that compare page sizes (two runs or more) each ran on one host."""
    rounds = [group for _, group in runs.groupby("repeat") if len(group) > 1]
    return bool(rounds) and all(group["host"].nunique() == 1 for group in rounds)


def host_lines(table: RunTable, metric: str = "tpmc") -> list[str]:
    """Which hosts the runs ran on and, with more than one, the per-host medians and whether the
    hosts differ more than the page sizes do."""
    found = host_spread(table, metric)
    hosts, label = found["hosts"], METRICS_BY_NAME[metric].label
    if not hosts or hosts == [UNRECORDED_HOST]:  # a bundle from before runs recorded their host
        return []
    if len(hosts) == 1:
        return [f"All runs ran on one machine (host name {hosts[0]})."]
    lines = [f"The runs ran on {len(hosts)} machines (host names {', '.join(hosts)}). Median {label} per machine:"]
    per_host = host_table(table)
    for row in per_host[(per_host["metric"] == metric) & (per_host["runs"] > 0)].to_dict("records"):
        lines.append(f"  {row['page_size']:>4} on {row['host']}: {number_text(row['median'], 0)} "
                     f"({row['runs']} run{'s' if row['runs'] != 1 else ''})")
    if math.isnan(found["host_spread_pct"]):
        lines.append("No page size ran on two hosts, so the hosts cannot be told apart from the page sizes.")
    elif found["larger"]:
        lines.append(f"The host-to-host spread ({found['host_spread_pct']:.1f}% at {found['page_size']}) is larger "
                     f"than the page-size effect ({found['page_effect_pct']:.1f}%): the hosts differ more than the "
                     "page sizes do. " + ("Each round ran on one host and is compared within it, so the hosts' "
                                          "difference cancels out of the comparisons."
                                          if _rounds_within_hosts(table.runs) else
                                          "Compare page sizes within one host, or run every page size on every host."))
    else:
        lines.append(f"The host-to-host spread ({found['host_spread_pct']:.1f}% at {found['page_size']}) is smaller "
                     f"than the page-size effect ({found['page_effect_pct']:.1f}%).")
    return lines
