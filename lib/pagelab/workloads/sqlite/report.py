"""SQLite's experiment 053 presented: medians with intervals, verdicts (pagelab.evidence), the experiment's table beside
ours, the native path's share of the Python path's time, and the B-tree beside the times."""


from __future__ import annotations

import math

import pandas as pd

from pagelab.common.errors import UsageError
from pagelab.evidence import DEFAULT_EQUIVALENCE_PCT, EQUIVALENT, FASTER, NOT_RESOLVED, SLOWER, compare_family, verdict_text
from pagelab.evidence.intervals import CONFIDENCE, median_interval, ratio_interval
from pagelab.evidence.wording import pct_text
from pagelab.common.reference import reference_table
from pagelab.common.units import KIB, page_size_label
from pagelab.workloads.sqlite.benchmarks import (
    BASELINE_PAGE_SIZE,
    MEASURES,
    NATIVE,
    PATH_TITLES,
    PYTHON,
    SEED_OTHER_PAGE_SIZE,
    SEED_TABLE,
    TABLE,
)

# What our interval says about the experiment's delta (`seed_check`); short, to fit a table cell
REPRODUCED = "reproduced"  # faster, and the interval reaches the experiment's delta
REPRODUCED_LARGER = "reproduced, larger"  # faster, the whole interval beyond the experiment's delta
SMALLER = "faster, less than the experiment"  # faster, the whole interval short of the experiment's delta
NOT_REPRODUCED = "does not hold"  # not faster, and the interval excludes the experiment's delta
UNDECIDED = "undecided"  # the interval holds both the experiment's delta and no change
NO_INTERVAL = "no interval"  # one sample a side

# -- statistics and verdicts ----------------------------------------------------------------------


def _check_measure(measure: str) -> None:
    if measure not in MEASURES:
        raise UsageError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")


def timing_summary(samples: pd.DataFrame, measure: str = "time_ms") -> pd.DataFrame:
    """Per path, benchmark (in the run's order) and page size, from `measure`: samples,
    median_ms with its distribution-free interval (ci_low_ms, ci_high_ms at ci_confidence_pct:
    pagelab.evidence's median_interval), min_ms, max_ms, spread_pct ((max - min) / min: the
    run-to-run spread, max/min - 1), us_per_row. The measures:

        time_ms  wall clock, mean per iteration (a loop's time over its iterations, the experiment's)
        cpu_ms   this process's CPU time, mean per iteration
        best_ms  the sample's fastest iteration: the figure other load on a shared machine
                 disturbs least (timeit's advice), so the most repeatable one there
    """
    _check_measure(measure)
    if samples.empty:
        raise UsageError("no samples to summarise")
    order = list(dict.fromkeys(samples["benchmark"]))
    rows = []
    for (path, name, size), group in samples.groupby(["path", "benchmark", "page_size_bytes"], sort=False):
        values = list(group[measure])
        interval = median_interval(values)
        first = group.iloc[0]
        rows.append({
            "path": path, "benchmark": name, "page_size": first["page_size"], "page_size_bytes": size,
            "kind": first["kind"], "rows_per_iteration": first["rows_per_iteration"],
            "iterations": first["iterations"], "repeats": group["repeat"].nunique(), "runs": group["run"].nunique(),
            "samples": len(values), "median_ms": interval.median,
            "ci_low_ms": interval.low if len(values) >= 2 else math.nan,
            "ci_high_ms": interval.high if len(values) >= 2 else math.nan,
            "ci_confidence_pct": round(100 * interval.confidence, 1) if len(values) >= 2 else math.nan,
            "min_ms": min(values), "max_ms": max(values),
            "spread_pct": (max(values) / min(values) - 1) * 100,
            "us_per_row": interval.median * 1000 / first["rows_per_iteration"], "measure": measure,
        })
    table = pd.DataFrame(rows)
    table["order"] = table["benchmark"].map(order.index)
    table["path_order"] = table["path"].map({NATIVE: 0, PYTHON: 1})
    table = table.sort_values(["path_order", "order", "page_size_bytes"], kind="stable")
    return table.drop(columns=["order", "path_order"]).reset_index(drop=True)


def delta_table(samples: pd.DataFrame, baseline: int | None = None, measure: str = "time_ms",
                equivalence_pct: float = DEFAULT_EQUIVALENCE_PCT) -> pd.DataFrame:
    """The experiment's delta table for one path's samples: per benchmark and page size other than the
    baseline, the baseline's median and min-max, the other's, the delta % of the medians with its
    bootstrap interval and the exact Mann-Whitney p, raw and Holm-adjusted (pagelab.evidence's
    compare_family, other against baseline; the benchmarks of one page size are one family, so the
    interval is at the Bonferroni-adjusted level `ci_confidence_pct`), the delta % at the other's
    min and max (the experiment's printed form), the verdict ("faster", "slower", "equivalent" within
    ±equivalence_pct, "not resolved"), the smallest delta these samples resolve, and the samples a
    side that would resolve a 5% difference and that equivalence would need at this spread."""
    _check_measure(measure)
    if samples.empty:
        raise UsageError("no samples to compare")
    if samples["path"].nunique() != 1:
        raise UsageError(f"a delta table is for one path; these samples have {sorted(samples['path'].unique())}")
    sizes = sorted(samples["page_size_bytes"].unique())
    if baseline is None:
        baseline = BASELINE_PAGE_SIZE if BASELINE_PAGE_SIZE in sizes else sizes[0]
    if baseline not in sizes:
        raise UsageError(f"baseline {baseline} was not measured; the page sizes are {', '.join(map(str, sizes))}")
    if len(sizes) < 2:
        raise UsageError("a delta table needs at least two page sizes")
    values = {key: list(group[measure]) for key, group in samples.groupby(["benchmark", "page_size_bytes"])}
    timings = timing_summary(samples, measure)
    base = timings[timings["page_size_bytes"] == baseline].set_index("benchmark")
    rows = []
    others = timings[timings["page_size_bytes"] != baseline]
    judged = {}
    for size, group in others.groupby("page_size_bytes", sort=False):
        names = list(group["benchmark"])
        found = compare_family([(values[(name, size)], values[(name, baseline)]) for name in names],
                               equivalence_pct=equivalence_pct)
        judged.update({(name, size): comparison for name, comparison in zip(names, found)})
    for _, other in others.iterrows():
        name, size = other["benchmark"], other["page_size_bytes"]
        ref = base.loc[name]
        # a time that is higher is slower: compare's "faster" (ratio above 1) reads as "slower"
        comparison = judged[(name, size)]
        median = ref["median_ms"]
        rows.append({
            "path": other["path"], "benchmark": name, "baseline_page_size_bytes": baseline,
            "page_size": other["page_size"], "page_size_bytes": size,
            "baseline_ms": median, "baseline_min_ms": ref["min_ms"], "baseline_max_ms": ref["max_ms"],
            "median_ms": other["median_ms"], "min_ms": other["min_ms"], "max_ms": other["max_ms"],
            "delta_pct": comparison.change_pct, "delta_ci_low_pct": comparison.low_pct,
            "delta_ci_high_pct": comparison.high_pct, "ci_confidence_pct": 100 * comparison.confidence,
            "p_value": comparison.p_value, "p_adjusted": comparison.p_adjusted,
            "delta_min_pct": (other["min_ms"] / median - 1) * 100,
            "delta_max_pct": (other["max_ms"] / median - 1) * 100,
            "verdict": comparison.words(higher=SLOWER, lower=FASTER),
            "equivalence_pct": comparison.equivalence_pct, "detectable_pct": comparison.detectable_pct,
            "samples_needed": comparison.repeats_needed, "samples_for_equivalence": comparison.runs_for_equivalence,
            "repeats": other["repeats"], "runs": other["runs"], "measure": measure,
        })
    return pd.DataFrame(rows)


def summary_line(delta: pd.DataFrame) -> str:
    """"8192: N faster, M slower, E equivalent within ±3%, K not resolved (3 repeats × 2 runs vs baseline 4096)",
    one line per page size compared (the experiment's "14 wins, 0 regressions (3 repeats × 2 runs vs
    baseline)")."""
    if delta.empty:
        raise UsageError("the delta table is empty")
    lines = []
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        counts = rows["verdict"].value_counts()
        faster, slower, same, open_ = (int(counts.get(v, 0)) for v in (FASTER, SLOWER, EQUIVALENT, NOT_RESOLVED))
        baseline = int(rows["baseline_page_size_bytes"].iloc[0])
        repeats, runs = int(rows["repeats"].max()), int(rows["runs"].max())
        delta = rows["equivalence_pct"].iloc[0] if "equivalence_pct" in rows else DEFAULT_EQUIVALENCE_PCT
        lines.append(f"{size}: {faster} faster, {slower} slower, {same} equivalent within ±{delta:g}%, {open_} not resolved "
                     f"({repeats} repeat{'s' * (repeats != 1)} × {runs} run{'s' * (runs != 1)} vs baseline {baseline})")
    return "\n".join(lines)


def _signed(pct: float, decimals: int = 0) -> str:
    """An effect as the experiment's log prints it (an ASCII minus), by the one formatter of an
    effect (pagelab.evidence.wording.pct_text: no sign when it rounds to zero)."""
    return pct_text(pct, decimals=decimals).replace("−", "-")


def _ms_range(low: float, high: float) -> str:
    a, b = f"{low:.2f}", f"{high:.2f}"
    return f"{a}ms" if a == b else f"{a}-{b}ms"


def _pct_range(low: float, high: float) -> str:
    near, far = sorted((low, high), key=abs)
    a, b = (pct_text(value, "", 0).replace("−", "-") for value in (near, far))
    return f"{a}%" if a == b else f"{a} to {b}%"


def seed_style_table(delta: pd.DataFrame) -> pd.DataFrame:
    """The delta table printed as the experiment prints its own: Benchmark, Baseline ("5.57ms"), then
    per page size "<size> pages" ("4.58-4.67ms", its min-max), "<size> delta" ("-16 to -18%"),
    "<size> median delta [CI]" (at the family's level, `ci_confidence_pct`) and "<size> verdict"."""
    table = pd.DataFrame({"Benchmark": list(dict.fromkeys(delta["benchmark"]))}).set_index("Benchmark")
    baseline = int(delta["baseline_page_size_bytes"].iloc[0])
    first = delta.drop_duplicates("benchmark").set_index("benchmark")
    table[f"Baseline ({baseline})"] = [f"{first.loc[name, 'baseline_ms']:.2f}ms" for name in table.index]
    for size, rows in delta.groupby("page_size_bytes", sort=True):
        rows = rows.set_index("benchmark")
        table[f"{size} pages"] = [_ms_range(rows.loc[n, "min_ms"], rows.loc[n, "max_ms"]) for n in table.index]
        table[f"{size} delta"] = [_pct_range(rows.loc[n, "delta_min_pct"], rows.loc[n, "delta_max_pct"])
                                  for n in table.index]
        table[f"{size} median delta [CI]"] = [
            f"{_signed(rows.loc[n, 'delta_pct'], 1)} [{_signed(rows.loc[n, 'delta_ci_low_pct'], 1)}, "
            f"{_signed(rows.loc[n, 'delta_ci_high_pct'], 1)}]" for n in table.index]
        table[f"{size} verdict"] = [verdict_text(rows.loc[n, "verdict"], rows.loc[n, "equivalence_pct"])
                                    for n in table.index]
    return table


# -- the experiment beside ours ---------------------------------------------------------------------------

def seed_table() -> pd.DataFrame:
    """Experiment 053's Results table (data/reference/sqlite_page_size.csv): benchmark,
    baseline_4096_ms, page_8192_ms_from/_to, delta_pct_from/_to, note."""
    return reference_table(SEED_TABLE)


def seed_check(seed_from: float, seed_to: float, low: float, high: float, verdict: str) -> str | None:
    """What our interval of the 8192 delta (low..high %, and our verdict) says about the experiment's
    delta range (from..to %, as printed): reproduced when we call it faster and the interval
    reaches the experiment's range; shown not to hold when the interval lies wholly above the experiment's
    range (less gain than the experiment's, or none); undecided when it spans both the experiment's delta and
    no change. None where the experiment has no delta."""
    if any(pd.isna(v) for v in (seed_from, seed_to)):
        return None
    if any(pd.isna(v) for v in (low, high)):
        return NO_INTERVAL
    seed_low, seed_high = sorted((seed_from, seed_to))
    if high < seed_low:
        return REPRODUCED_LARGER if verdict == FASTER else UNDECIDED
    if low > seed_high:
        return SMALLER if verdict == FASTER else NOT_REPRODUCED
    return REPRODUCED if verdict == FASTER else UNDECIDED


def seed_comparison(delta: pd.DataFrame) -> pd.DataFrame:
    """The experiment's 4096 -> 8192 numbers beside ours, one row per benchmark (the experiment's first, in
    its order; ours that the experiment lacks after them, and the experiment's without ours keep empty cells).

    seed_*      the experiment's baseline ms, 8192 ms from/to and delta % from/to as printed, its
                verdict ("faster" where it printed a negative delta: its "win"; else its note)
    our_*       our baseline median, 8192 median, its delta % with the 95% interval, our verdict
    seed_check  what our interval says of the experiment's delta (`seed_check`: reproduced,
                reproduced larger, faster but less than the experiment's, does not hold, undecided)
    """
    seed = seed_table()
    seed_verdict = [FASTER if pd.notna(high) and high < 0 and low < 0 else (note if isinstance(note, str) else None)
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
        "our_8192_ms": ours["median_ms"],
        "our_delta_pct": ours["delta_pct"],
        "our_delta_ci_low_pct": ours["delta_ci_low_pct"],
        "our_delta_ci_high_pct": ours["delta_ci_high_pct"],
        "our_verdict": ours["verdict"],
    })
    order = list(seed["benchmark"]) + [name for name in ours["benchmark"] if name not in set(seed["benchmark"])]
    table = seed.merge(ours, on="benchmark", how="outer").set_index("benchmark").reindex(order)
    table["seed_check"] = [
        seed_check(row.seed_delta_pct_from, row.seed_delta_pct_to, row.our_delta_ci_low_pct,
                   row.our_delta_ci_high_pct, row.our_verdict) if pd.notna(row.our_verdict) else None
        for row in table.itertuples()]
    return table


def findings(native: pd.DataFrame | None, python: pd.DataFrame | None) -> str:
    """The notebook's opening paragraph: each path's verdicts (delta tables) beside the experiment's."""
    parts = []
    for path, delta in ((NATIVE, native), (PYTHON, python)):
        if delta is None or delta.empty:
            continue
        checks = seed_comparison(delta)["seed_check"].dropna()
        counted = ", ".join(f"{count} {check}" for check, count in checks.value_counts().items())
        title = PATH_TITLES[path]
        parts.append(f"**{title[0].upper() + title[1:]}:** {summary_line(delta).replace(chr(10), '; ')}; "
                     f"against the experiment's deltas: {counted or 'no benchmark of the experiment measured'}.")
    parts.append("A verdict needs the bootstrap interval of the ratio of medians on one side of 1 and the exact "
                 "Mann-Whitney test at 5%, the benchmarks of a page size one family (Holm-adjusted p-values, "
                 f"intervals at the Bonferroni-adjusted level, {round(CONFIDENCE * 100)}% together); \"equivalent\" "
                 "needs the interval within the margin; else \"not resolved\": the rule of the TPC-C sweep. SQLite's experiment 053, timing the "
                 "same six benchmarks through a thin C library, found 14 wins and 0 regressions for 8192 against "
                 "4096: large selects 16-18% faster, batched writes of 100 and 1,000 rows 23% and 26% faster, "
                 "transaction reads 17-23% faster.")
    return "\n\n".join(parts)


# -- the two paths, and the tree beside the times -----------------------------------------------------

def share_table(samples: pd.DataFrame, measure: str = "time_ms") -> pd.DataFrame:
    """Per benchmark and page size: the native and Python medians, the share of the Python path's
    time the native path accounts for (native median / Python median, with a 95% bootstrap
    interval from pagelab.evidence's ratio_interval) and what Python adds per row."""
    _check_measure(measure)
    missing = {NATIVE, PYTHON} - set(samples["path"])
    if missing:
        raise UsageError(f"the share needs both paths; {', '.join(sorted(missing))} was not measured")
    rows = []
    for (name, size), group in samples.groupby(["benchmark", "page_size_bytes"], sort=False):
        native = list(group.loc[group["path"] == NATIVE, measure])
        python = list(group.loc[group["path"] == PYTHON, measure])
        if len(native) >= 2 and len(python) >= 2:
            share, low, high = ratio_interval(native, python)
        else:
            share, low, high = float(pd.Series(native).median() / pd.Series(python).median()), math.nan, math.nan
        per_row = group["rows_per_iteration"].iloc[0]
        native_ms, python_ms = float(pd.Series(native).median()), float(pd.Series(python).median())
        rows.append({"benchmark": name, "page_size": page_size_label(size), "page_size_bytes": size,
                     "native_ms": native_ms, "python_ms": python_ms, "native_share_pct": 100 * share,
                     "share_ci_low_pct": 100 * low, "share_ci_high_pct": 100 * high,
                     "python_adds_us_per_row": (python_ms - native_ms) * 1000 / per_row, "measure": measure})
    return pd.DataFrame(rows)


def btree_summary(btree: pd.DataFrame) -> pd.DataFrame:
    """Per row count, page size and B-tree: height (levels), pages per level (root first), pages,
    leaf pages, rows (cells) per leaf and leaf fill."""
    rows = []
    for (count, size, name), levels in btree.groupby(["rows", "page_size_bytes", "btree"], sort=True):
        levels = levels.sort_values("level")
        leaf = levels.iloc[-1]
        rows.append({
            "rows": count, "page_size": page_size_label(size), "page_size_bytes": size, "btree": name,
            "btree_type": leaf["btree_type"], "height": len(levels),
            "pages_per_level": " / ".join(f"{n:,}" for n in levels["pages"]),
            "pages": int(levels["pages"].sum()), "leaf_pages": int(leaf["pages"]),
            "cells_per_leaf": leaf["cells"] / leaf["pages"], "leaf_fill": leaf["used_bytes"] / leaf["bytes"],
            "tree_source": leaf["tree_source"],
        })
    return pd.DataFrame(rows)


def btree_beside_times(btree: pd.DataFrame, samples: pd.DataFrame, measure: str = "time_ms") -> pd.DataFrame:
    """Per row count, page size and benchmark: the `items` tree's height and leaf pages beside
    each path's median (tables of several runs, e.g. 10,000 and 1,000,000 rows, concatenated)."""
    trees = btree_summary(btree)
    trees = trees[trees["btree"] == TABLE][["rows", "page_size_bytes", "height", "leaf_pages", "cells_per_leaf"]]
    frames = []
    for count, part in samples.groupby("rows", sort=True):
        medians = timing_summary(part, measure).pivot_table(index=["benchmark", "page_size_bytes"], columns="path",
                                                            values="median_ms", sort=False)
        medians.columns = [f"{path}_ms" for path in medians.columns]
        medians = medians.reset_index()
        medians["rows"] = count
        frames.append(medians)
    times = pd.concat(frames, ignore_index=True)
    table = trees.merge(times, on=["rows", "page_size_bytes"], how="right")
    first = ["rows", "page_size_bytes", "height", "leaf_pages", "cells_per_leaf", "benchmark"]
    return table[first + [c for c in table.columns if c not in first]]


def wal_frames_summary(wal_frames: pd.DataFrame, btree: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per page size and write benchmark: WAL frames per transaction (mean, min, max), KiB of WAL
    per transaction and bytes per row written; with `btree`, the leaves the rows fill
    (rows_per_tx / cells per leaf of `items`) for comparison with the frames."""
    grouped = wal_frames.groupby(["benchmark", "page_size_bytes"], sort=False)
    table = grouped.agg(page_size=("page_size", "first"), rows_per_tx=("rows_per_tx", "first"),
                        transactions=("tx", "size"), wal_frames_avg=("wal_frames", "mean"),
                        wal_frames_min=("wal_frames", "min"), wal_frames_max=("wal_frames", "max"),
                        wal_bytes_avg=("wal_bytes", "mean")).reset_index()
    table["wal_kib_per_tx"] = table["wal_bytes_avg"] / KIB
    table["wal_bytes_per_row"] = table["wal_bytes_avg"] / table["rows_per_tx"]
    if btree is not None and not btree.empty:
        leaves = btree_summary(btree)
        per_leaf = leaves[leaves["btree"] == TABLE].set_index("page_size_bytes")["cells_per_leaf"]
        table["leaves_filled"] = table["rows_per_tx"] / table["page_size_bytes"].map(per_leaf)
    return table.drop(columns="wal_bytes_avg")
