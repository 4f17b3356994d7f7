"""Experiment 053's figures: each path's times per page size against the baseline, the experiment's deltas as
stars, and the WAL frames per write transaction."""


from __future__ import annotations

import pandas as pd

from pagelab.common.errors import UsageError
from pagelab.workloads.sqlite.report import seed_table
from pagelab.workloads.sqlite.benchmarks import BASELINE_PAGE_SIZE, PATH_TITLES, SEED_OTHER_PAGE_SIZE


def plot_timings(timings: pd.DataFrame, baseline: int | None = None):
    """One path's timings (`timing_summary`): each benchmark's time relative to the baseline's
    median (100%), one bar per page size, the whisker the median's interval; the experiment's 8192
    delta as a star."""
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns

    if timings["path"].nunique() != 1:
        raise UsageError("plot_timings draws one path's timings; select them with timings[timings.path == ...]")
    sns.set_theme(style="whitegrid", context="notebook")
    sizes = sorted(timings["page_size_bytes"].unique())
    if baseline is None:
        baseline = BASELINE_PAGE_SIZE if BASELINE_PAGE_SIZE in sizes else sizes[0]
    base = timings[timings["page_size_bytes"] == baseline].set_index("benchmark")["median_ms"]
    names = list(dict.fromkeys(timings["benchmark"]))
    width = 0.8 / len(sizes)
    figure, axis = plt.subplots(figsize=(12, 4.5))
    colors = sns.color_palette(n_colors=len(sizes))
    for index, (size, color) in enumerate(zip(sizes, colors)):
        rows = timings[timings["page_size_bytes"] == size].set_index("benchmark").reindex(names)
        relative = rows["median_ms"] / base.reindex(names) * 100
        low = relative - rows["ci_low_ms"] / base.reindex(names) * 100
        high = rows["ci_high_ms"] / base.reindex(names) * 100 - relative
        x = np.arange(len(names)) + (index - (len(sizes) - 1) / 2) * width
        axis.bar(x, relative, width, yerr=[low, high], capsize=3, color=color, label=f"{size} (median, interval)")
    seed = seed_table().set_index("benchmark")
    for i, name in enumerate(names):
        if name in seed.index and pd.notna(seed.loc[name, "delta_pct_from"]) and SEED_OTHER_PAGE_SIZE in sizes:
            mid = (seed.loc[name, "delta_pct_from"] + seed.loc[name, "delta_pct_to"]) / 2
            offset = (sizes.index(SEED_OTHER_PAGE_SIZE) - (len(sizes) - 1) / 2) * width
            axis.scatter([i + offset], [100 + mid], marker="*", s=160, color="gold", edgecolor="black", zorder=5,
                         label="experiment 053, 8192" if i == 0 else None)
    axis.axhline(100, color="black", linewidth=0.8)
    axis.set_xticks(range(len(names)), [textwrap.fill(name, 16) for name in names], fontsize="small")
    axis.set_ylabel(f"time, % of {baseline}'s median")
    axis.set_title(f"{PATH_TITLES[timings['path'].iloc[0]]}: experiment 053's benchmarks per page size, "
                   f"{timings['measure'].iloc[0]}")
    axis.legend(fontsize="small")
    figure.tight_layout()
    return figure


def plot_wal_frames(summary: pd.DataFrame):
    """WAL frames and KiB written per write transaction, per benchmark and page size."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    frame = summary.assign(**{"page size": summary["page_size_bytes"].astype(str)})
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, column, title in ((axes[0], "wal_frames_avg", "WAL frames per write transaction"),
                                (axes[1], "wal_kib_per_tx", "KiB of WAL per write transaction")):
        sns.barplot(data=frame, x="benchmark", y=column, hue="page size", ax=axis)
        axis.set_title(title)
        axis.set_xlabel("")
        axis.set_ylabel(title.split(" per")[0])
        axis.tick_params(axis="x", labelsize="small", rotation=15)
        for container in axis.containers:
            axis.bar_label(container, fmt="%.0f", fontsize="small")
    figure.tight_layout()
    return figure
