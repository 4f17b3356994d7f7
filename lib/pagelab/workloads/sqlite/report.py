"""Seed 001 presented: medians and spreads, verdicts beyond the spread, the seed's table beside ours, plots."""


from __future__ import annotations

import math

import pandas as pd

from pagelab.workloads.sqlite.run import (
    BASELINE_PAGE_SIZE,
    MEASURES,
    MIN_SAMPLES_FOR_VERDICT,
    REGRESSION,
    SEED_OTHER_PAGE_SIZE,
    SEED_TABLE,
    TABLE,
    UNCHANGED,
    WIN,
)
from pagelab.errors import UsageError
from pagelab.paths import REFERENCE_DIR
from pagelab.units import page_size_label

# -- statistics, verdicts, the seed's table ---------------------------------------------------------

def timing_summary(samples: pd.DataFrame, measure: str = "time_ms") -> pd.DataFrame:
    """Per benchmark (in the run's order) and page size: samples, median_ms, min_ms, max_ms,
    spread_pct ((max - min) / median), us_per_row, from `measure`:

        time_ms  wall clock, mean per iteration (a loop's time over its iterations, the seed's)
        cpu_ms   this process's CPU time, mean per iteration
        best_ms  the sample's fastest iteration: the figure other load on a shared machine
                 disturbs least (timeit's advice), so the most repeatable one there
    """
    if measure not in MEASURES:
        raise UsageError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    if samples.empty:
        raise UsageError("no samples to summarise")
    order = list(dict.fromkeys(samples["benchmark"]))
    grouped = samples.groupby(["benchmark", "page_size_bytes"], sort=False)
    table = grouped.agg(page_size=("page_size", "first"), kind=("kind", "first"),
                        rows_per_iteration=("rows_per_iteration", "first"), iterations=("iterations", "first"),
                        repeats=("repeat", "nunique"), runs=("run", "nunique"), samples=(measure, "size"),
                        median_ms=(measure, "median"), min_ms=(measure, "min"), max_ms=(measure, "max")).reset_index()
    table["spread_pct"] = (table["max_ms"] - table["min_ms"]) / table["median_ms"] * 100
    table["us_per_row"] = table["median_ms"] * 1000 / table["rows_per_iteration"]
    table["measure"] = measure
    table["order"] = table["benchmark"].map(order.index)
    table = table.sort_values(["order", "page_size_bytes"], kind="stable").drop(columns="order")
    columns = ["benchmark", "page_size", "page_size_bytes", "kind", "rows_per_iteration", "iterations", "repeats",
               "runs", "samples", "median_ms", "min_ms", "max_ms", "spread_pct", "us_per_row", "measure"]
    return table[columns].reset_index(drop=True)


def classify(baseline_min: float, baseline_max: float, other_min: float, other_max: float) -> str:
    """"win" if the other page size's whole range is below the baseline's (faster beyond the
    spread), "regression" if wholly above, "unchanged" if the ranges overlap (or touch)."""
    values = (baseline_min, baseline_max, other_min, other_max)
    if any(value is None or math.isnan(value) for value in values):
        raise UsageError(f"classify needs four numbers, got {values}")
    if baseline_min > baseline_max or other_min > other_max:
        raise UsageError(f"a range's min is above its max: baseline {baseline_min}-{baseline_max}, "
                         f"other {other_min}-{other_max}")
    if other_max < baseline_min:
        return WIN
    if other_min > baseline_max:
        return REGRESSION
    return UNCHANGED


def delta_table(timings: pd.DataFrame, baseline: int | None = None) -> pd.DataFrame:
    """The seed's delta table: per benchmark and page size other than the baseline, the
    baseline's median (and its min-max), the other's median and min-max, the delta % of each
    against the baseline's median, and the verdict (`classify`; "unchanged" when either side has
    a single sample, which has no spread to exceed)."""
    sizes = sorted(timings["page_size_bytes"].unique())
    if baseline is None:
        baseline = BASELINE_PAGE_SIZE if BASELINE_PAGE_SIZE in sizes else sizes[0]
    if baseline not in sizes:
        raise UsageError(f"baseline {baseline} was not measured; the page sizes are {', '.join(map(str, sizes))}")
    if len(sizes) < 2:
        raise UsageError("a delta table needs at least two page sizes")
    base = timings[timings["page_size_bytes"] == baseline].set_index("benchmark")
    rows = []
    for _, other in timings[timings["page_size_bytes"] != baseline].iterrows():
        ref = base.loc[other["benchmark"]]
        median = ref["median_ms"]
        rows.append({
            "benchmark": other["benchmark"],
            "baseline_page_size_bytes": baseline,
            "page_size": other["page_size"],
            "page_size_bytes": other["page_size_bytes"],
            "baseline_ms": median,
            "baseline_min_ms": ref["min_ms"],
            "baseline_max_ms": ref["max_ms"],
            "median_ms": other["median_ms"],
            "min_ms": other["min_ms"],
            "max_ms": other["max_ms"],
            "delta_median_pct": (other["median_ms"] / median - 1) * 100,
            "delta_min_pct": (other["min_ms"] / median - 1) * 100,
            "delta_max_pct": (other["max_ms"] / median - 1) * 100,
            "verdict": classify(ref["min_ms"], ref["max_ms"], other["min_ms"], other["max_ms"])
            if min(ref["samples"], other["samples"]) >= MIN_SAMPLES_FOR_VERDICT else UNCHANGED,
            "repeats": other["repeats"],
            "runs": other["runs"],
            "measure": other["measure"],
        })
    return pd.DataFrame(rows)


def summary_line(delta: pd.DataFrame) -> str:
    """"N wins, M regressions (K unchanged; 3 repeats × 2 runs vs baseline 4096)", one line per
    page size compared (the seed's "14 wins, 0 regressions (3 repeats × 2 runs vs baseline)")."""
    if delta.empty:
        raise UsageError("the delta table is empty")
    lines = []
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        counts = rows["verdict"].value_counts()
        wins, regressions, unchanged = (int(counts.get(v, 0)) for v in (WIN, REGRESSION, UNCHANGED))
        baseline = int(rows["baseline_page_size_bytes"].iloc[0])
        repeats, runs = int(rows["repeats"].max()), int(rows["runs"].max())
        lines.append(f"{size}: {wins} win{'s' * (wins != 1)}, {regressions} regression{'s' * (regressions != 1)} "
                     f"({unchanged} unchanged; {repeats} repeat{'s' * (repeats != 1)} × {runs} run{'s' * (runs != 1)} "
                     f"vs baseline {baseline})")
    return "\n".join(lines)


def findings(delta: pd.DataFrame) -> str:
    """The notebook's opening paragraph: our verdicts per page size beside the seed's."""
    return (f"Through Python's sqlite3 on this machine: {summary_line(delta).replace(chr(10), '; ')}. A benchmark "
            "counts as a win or a regression only when the two page sizes' ranges over every repeat and run do not "
            "overlap; otherwise it is unchanged (not distinguishable). Seed 001, timing the same six benchmarks "
            "through a thin C library, found 14 wins and 0 regressions for 8192 against 4096: large selects 16-18% "
            "faster, batched writes of 100 and 1,000 rows 23% and 26% faster, transaction reads 17-23% faster. "
            "Python builds a row object per row, which may hide page-level differences that the seed's C path "
            "measured. The delta table below shows each benchmark with its range.")


def _ms_range(low: float, high: float) -> str:
    a, b = f"{low:.2f}", f"{high:.2f}"
    return f"{a}ms" if a == b else f"{a}-{b}ms"


def _pct_range(low: float, high: float) -> str:
    near, far = sorted((low, high), key=abs)
    a, b = f"{near:+.0f}", f"{far:+.0f}"
    return f"{a}%" if a == b else f"{a} to {b}%"


def seed_style_table(delta: pd.DataFrame) -> pd.DataFrame:
    """The delta table printed as the seed prints its own: Benchmark, Baseline ("5.57ms"), then
    per page size "<size> pages" ("4.58-4.67ms", its min-max), "<size> delta" ("-16 to -18%")
    and "<size> verdict"."""
    table = pd.DataFrame({"Benchmark": list(dict.fromkeys(delta["benchmark"]))}).set_index("Benchmark")
    baseline = int(delta["baseline_page_size_bytes"].iloc[0])
    first = delta.drop_duplicates("benchmark").set_index("benchmark")
    table[f"Baseline ({baseline})"] = [f"{first.loc[name, 'baseline_ms']:.2f}ms" for name in table.index]
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        rows = rows.set_index("benchmark")
        table[f"{size} pages"] = [_ms_range(rows.loc[n, "min_ms"], rows.loc[n, "max_ms"]) for n in table.index]
        table[f"{size} delta"] = [_pct_range(rows.loc[n, "delta_min_pct"], rows.loc[n, "delta_max_pct"])
                                  for n in table.index]
        table[f"{size} verdict"] = [rows.loc[n, "verdict"] for n in table.index]
    return table


def seed_table() -> pd.DataFrame:
    """Seed 001's Results table (data/reference/seed001_sqlite.csv): benchmark,
    baseline_4096_ms, page_8192_ms_from/_to, delta_pct_from/_to, note."""
    path = REFERENCE_DIR / SEED_TABLE
    if not path.exists():
        raise UsageError(f"the seed's table is missing: expected {path}")
    return pd.read_csv(path)


def seed_comparison(delta: pd.DataFrame) -> pd.DataFrame:
    """The seed's 4096 -> 8192 numbers beside ours, one row per benchmark (the seed's first, in
    its order; ours that the seed lacks after them, and the seed's without ours keep empty cells).

    seed_*  the seed's baseline ms, 8192 ms from/to and delta % from/to as printed, its verdict
            ("win" where it printed a negative delta, else its note)
    our_*   our baseline median, 8192 min/max ms, delta % at the min and max, and our verdict
    """
    seed = seed_table()
    seed_verdict = [WIN if pd.notna(high) and high < 0 and low < 0 else (note if isinstance(note, str) else None)
                    for low, high, note in zip(seed["delta_pct_from"], seed["delta_pct_to"], seed["note"])]
    seed = pd.DataFrame({
        "benchmark": seed["benchmark"],
        "seed_baseline_ms": seed["baseline_4096_ms"],
        "seed_8192_ms_from": seed["page_8192_ms_from"],
        "seed_8192_ms_to": seed["page_8192_ms_to"],
        "seed_delta_pct_from": seed["delta_pct_from"],
        "seed_delta_pct_to": seed["delta_pct_to"],
        "seed_verdict": seed_verdict,
    })
    ours = delta[(delta["baseline_page_size_bytes"] == BASELINE_PAGE_SIZE)
                 & (delta["page_size_bytes"] == SEED_OTHER_PAGE_SIZE)]
    ours = pd.DataFrame({
        "benchmark": ours["benchmark"],
        "our_baseline_ms": ours["baseline_ms"],
        "our_8192_ms_min": ours["min_ms"],
        "our_8192_ms_max": ours["max_ms"],
        "our_delta_pct_min": ours["delta_min_pct"],
        "our_delta_pct_max": ours["delta_max_pct"],
        "our_verdict": ours["verdict"],
    })
    order = list(seed["benchmark"]) + [name for name in ours["benchmark"] if name not in set(seed["benchmark"])]
    table = seed.merge(ours, on="benchmark", how="outer").set_index("benchmark")
    return table.reindex(order)


# -- the B-tree and the WAL, summarised ----------------------------------------------------------

def btree_summary(btree: pd.DataFrame) -> pd.DataFrame:
    """Per page size and B-tree: height (levels), pages per level (root first), pages, leaf
    pages, rows (cells) per leaf and leaf fill."""
    rows = []
    for (size, name), levels in btree.groupby(["page_size_bytes", "btree"], sort=True):
        levels = levels.sort_values("level")
        leaf = levels.iloc[-1]
        rows.append({
            "page_size": page_size_label(size), "page_size_bytes": size, "btree": name,
            "btree_type": leaf["btree_type"], "height": len(levels),
            "pages_per_level": " / ".join(f"{n:,}" for n in levels["pages"]),
            "pages": int(levels["pages"].sum()), "leaf_pages": int(leaf["pages"]),
            "cells_per_leaf": leaf["cells"] / leaf["pages"], "leaf_fill": leaf["used_bytes"] / leaf["bytes"],
            "tree_source": leaf["tree_source"],
        })
    return pd.DataFrame(rows)


def wal_frames_summary(wal_frames: pd.DataFrame, btree: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per page size and write benchmark: WAL frames per transaction (mean, min, max), KiB of WAL
    per transaction and bytes per row written; with `btree`, the leaves the rows fill
    (rows_per_tx / cells per leaf of `items`) for comparison with the frames."""
    grouped = wal_frames.groupby(["benchmark", "page_size_bytes"], sort=False)
    table = grouped.agg(page_size=("page_size", "first"), rows_per_tx=("rows_per_tx", "first"),
                        transactions=("tx", "size"), wal_frames_avg=("wal_frames", "mean"),
                        wal_frames_min=("wal_frames", "min"), wal_frames_max=("wal_frames", "max"),
                        wal_bytes_avg=("wal_bytes", "mean")).reset_index()
    table["wal_kib_per_tx"] = table["wal_bytes_avg"] / 1024
    table["wal_bytes_per_row"] = table["wal_bytes_avg"] / table["rows_per_tx"]
    if btree is not None and not btree.empty:
        leaves = btree_summary(btree)
        per_leaf = leaves[leaves["btree"] == TABLE].set_index("page_size_bytes")["cells_per_leaf"]
        table["leaves_filled"] = table["rows_per_tx"] / table["page_size_bytes"].map(per_leaf)
    return table.drop(columns="wal_bytes_avg")


# -- plots ----------------------------------------------------------------------------------------

def plot_timings(timings: pd.DataFrame, baseline: int | None = None):
    """Each benchmark's time relative to the baseline's median (100%), one bar per page size,
    the whisker its min-max over the samples; the seed's 8192 delta as a star."""
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns

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
        low = relative - rows["min_ms"] / base.reindex(names) * 100
        high = rows["max_ms"] / base.reindex(names) * 100 - relative
        x = np.arange(len(names)) + (index - (len(sizes) - 1) / 2) * width
        axis.bar(x, relative, width, yerr=[low, high], capsize=3, color=color, label=f"{size} (median, min-max)")
    seed = seed_table().set_index("benchmark")
    for i, name in enumerate(names):
        if name in seed.index and pd.notna(seed.loc[name, "delta_pct_from"]) and SEED_OTHER_PAGE_SIZE in sizes:
            mid = (seed.loc[name, "delta_pct_from"] + seed.loc[name, "delta_pct_to"]) / 2
            offset = (sizes.index(SEED_OTHER_PAGE_SIZE) - (len(sizes) - 1) / 2) * width
            axis.scatter([i + offset], [100 + mid], marker="*", s=160, color="gold", edgecolor="black", zorder=5,
                         label="seed 8192" if i == 0 else None)
    axis.axhline(100, color="black", linewidth=0.8)
    axis.set_xticks(range(len(names)), [textwrap.fill(name, 16) for name in names], fontsize="small")
    axis.set_ylabel(f"time, % of {baseline}'s median")
    axis.set_title(f"SQLite benchmarks per page size (seed 001), {timings['measure'].iloc[0]}")
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
