"""Runs that stand far below their page size's others: what a slow disk leaves behind.

Why a flag and not a stop. A disk that is slow but answers (an overloaded network filesystem, a
disk retrying its reads, 500 ms on every write and flush) does not stop the server: transactions
still complete, only slowly. The stall watchdog is for a server that completes nothing for
`stall_s`; stretched to slowness it would need a threshold of speed, which differs by machine,
page size and buffer pool, and would fail sound runs on a slow machine. So such a run completes
and is kept, measured as the disk was, and the evidence flags it: its TpmC lies far below what its
page size's other runs allow, and a user reads that flag beside the verdicts instead of taking a
sick disk's minute for the page size's effect.

The rule. Each run's log TpmC is fitted by ordinary least squares with one mean per page size (per
page size and level in a grid), and each run is tested as an outlier of that fit by its
externally studentized residual, Bonferroni-adjusted over the runs (statsmodels'
`OLSResults.outlier_test(method="bonf")`; R. D. Cook and S. Weisberg, "Residuals and Influence in
Regression", Chapman and Hall 1982, section 2.2). A run is flagged when its adjusted p is below
OUTLIER_ALPHA and its residual is negative: a slow disk, or another load on the machine, only
makes a run slower. The test needs a residual degree of freedom after a run is left out, so at
least two runs more than groups; with two runs of a page size the test cannot tell which of the
two is odd from that page size alone, and it is the spread of the other page sizes' runs that
says whether the pair's gap is far beyond chance (the lower of the two is then the one flagged).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

OUTLIER_ALPHA = 0.05


def _group_labels(runs: pd.DataFrame) -> pd.Series:
    factors = ["page_size"] + sorted(c for c in runs.columns if c.startswith("level_"))
    return runs[factors].astype(str).agg(" ".join, axis=1)


def slow_outliers(runs: pd.DataFrame, metric: str = "tpmc") -> pd.DataFrame:
    """The runs far below their group's others: run, group, value, the group's median without the
    run, the studentized residual and the Bonferroni-adjusted p. Empty when nothing is flagged or
    too few runs allow the test."""
    import statsmodels.api as sm

    columns = ["run", "group", "value", "others_median", "student_resid", "p_bonferroni"]
    frame = runs[runs[metric].notna() & (runs[metric] > 0)].copy() if metric in runs else pd.DataFrame()
    if frame.empty:
        return pd.DataFrame(columns=columns)
    frame["group"] = _group_labels(frame)
    frame["log_value"] = np.log(frame[metric].astype(float))
    groups = frame["group"].nunique()
    if len(frame) < groups + 2 or frame.groupby("group").size().max() < 2:
        return pd.DataFrame(columns=columns)
    means = pd.get_dummies(frame["group"], dtype=float)  # one mean per group
    tested = sm.OLS(frame["log_value"], means).fit().outlier_test(method="bonf")
    found = []
    for (index, row), (_, test) in zip(frame.iterrows(), tested.iterrows()):
        resid, p = float(test["student_resid"]), float(test["bonf(p)"])
        if math.isfinite(resid) and resid < 0 and p < OUTLIER_ALPHA:
            others = frame[(frame["group"] == row["group"]) & (frame.index != index)][metric]
            found.append({"run": row["run"], "group": row["group"], "value": float(row[metric]),
                          "others_median": float(others.median()), "student_resid": resid, "p_bonferroni": p})
    return pd.DataFrame(found, columns=columns)


OUTLIER_METHOD = ("a Bonferroni outlier test on studentized residuals: log TpmC fitted with one mean per page size "
                  "by least squares, each run's externally studentized residual, Bonferroni-adjusted over the runs "
                  "(Cook & Weisberg 1982; computed with statsmodels)")


def outlier_lines(runs: pd.DataFrame, metric: str = "tpmc") -> list[str]:
    """One line per flagged run, saying what it is, what it is against, and what to look at."""
    flagged = slow_outliers(runs, metric)
    lines = []
    for row in flagged.to_dict("records"):
        lines.append(f"{row['run']} stands far below {row['group']}'s other runs: TpmC {row['value']:,.0f} against "
                     f"their median {row['others_median']:,.0f} (adjusted p {row['p_bonferroni']:.2g}: "
                     f"{OUTLIER_METHOD}). A slow disk or another load on the machine during it is the usual "
                     f"cause: look at its iostat.csv (w_await, r_await) and dmesg. It is kept and counted in the "
                     f"verdicts; rerun the sweep on a sound disk if it should not be.")
    return lines
