"""The OrientDB proposal's tables beside ours: load time, throughput and latency per workload, "performance gain".

The tidy frames here are run_ycsb's (`YcsbRun.frame`, or OUT/ycsb.csv read back), one or several
concatenated (an InnoDB run and a prototype run), and the proposal's own numbers from
data/reference/orientdb_ycsb.csv (`seed_table()`), which share the columns workload, page_size,
page_size_bytes, operation, average_latency_us, min_latency_us, p95_latency_us, p99_latency_us,
throughput_ops_s and total_time_s. `source` names where a row comes from: "OrientDB's proposal",
"innodb" or "prototype".

The proposal's "performance gain" is the smaller page against the larger: throughput small / large,
latency large / small (so > 1 means the smaller page is better in both), load time large / small.
Its latency ratios are p99 ratios: "read latency is improved at 14 times" is 18,895 µs / 1,353 µs
at the 99th percentile (its averages differ by 1.9x); `performance_gain` gives average, p95 and
p99 ratios, and `gain_sentences` writes the proposal's in the proposal's words. Ours get no such word
unless the runs support it: each of our ratios carries the verdict of pagelab.evidence (the rule
of every comparison in the project: faster/slower, equivalent within ±3%, or not resolved, which
is all one run a side can ever be).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pagelab.common.reference import reference_table
from pagelab.evidence import compare, verdict_text
from pagelab.common.units import page_size_label
from pagelab.workloads.ycsb.workloads import BY_NAME, LOAD, WORKLOADS

SEED_SOURCE = "OrientDB's proposal"
SEED_TABLE = "orientdb_ycsb.csv"
WORKLOAD_ORDER = [LOAD.name] + [WORKLOADS[letter].name for letter in "abcfd"]
OPERATION_ORDER = ["OVERALL", "INSERT", "READ", "UPDATE", "READ-MODIFY-WRITE"]
FIGURES = ["throughput_ops_s", "average_latency_us", "p95_latency_us", "p99_latency_us"]


def seed_table() -> pd.DataFrame:
    """The proposal's YCSB numbers as transcribed in data/reference (see its README), with `source`."""
    frame = reference_table(SEED_TABLE)
    frame.insert(0, "source", SEED_SOURCE)
    return frame


def with_source(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    if "source" not in frame.columns:
        frame.insert(0, "source", frame["backend"])
    return frame


def _sorted(frame: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    keys = {
        "workload": lambda s: s.map({name: i for i, name in enumerate(WORKLOAD_ORDER)}).fillna(99),
        "operation": lambda s: s.map({name: i for i, name in enumerate(OPERATION_ORDER)}).fillna(99),
    }
    return frame.sort_values(list(by), key=lambda s: keys[s.name](s) if s.name in keys else s,
                             kind="stable").reset_index(drop=True)


def load_table(*frames: pd.DataFrame, seed: bool = True) -> pd.DataFrame:
    """The load per source and page size: time, inserts/s and the INSERT latencies."""
    ours = pd.concat([with_source(f) for f in frames], ignore_index=True) if frames else pd.DataFrame()
    parts = []
    if not ours.empty:
        load = ours[ours["workload"] == LOAD.name]
        overall = load[load["operation"] == "OVERALL"][["source", "page_size", "page_size_bytes", "records",
                                                         "total_time_s", "throughput_ops_s", "db_bytes",
                                                         "cache_bytes"]]
        inserts = load[load["operation"] == "INSERT"][["source", "page_size_bytes", "average_latency_us",
                                                       "min_latency_us", "p95_latency_us", "p99_latency_us"]]
        parts.append(overall.merge(inserts, on=["source", "page_size_bytes"], how="left"))
    if seed:
        seed_rows = seed_table()
        seed_rows = seed_rows[seed_rows["workload"] == LOAD.name]
        parts.append(seed_rows[["source", "page_size", "page_size_bytes", "total_time_s", "average_latency_us",
                                "min_latency_us", "p95_latency_us", "p99_latency_us"]])
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return table.rename(columns={"throughput_ops_s": "inserts_per_s"}).reset_index(drop=True)


def workload_table(*frames: pd.DataFrame, seed: bool = True, overall: bool = False) -> pd.DataFrame:
    """Throughput and latency (avg, p95, p99) per source, workload, operation and page size
    (the load left out: see load_table). `overall` adds each phase's OVERALL row."""
    parts = [with_source(f) for f in frames]
    if seed:
        parts.append(seed_table())
    table = pd.concat(parts, ignore_index=True)
    table = table[table["workload"] != LOAD.name]
    if not overall:
        table = table[table["operation"] != "OVERALL"]
    columns = ["source", "workload", "operation", "page_size", "page_size_bytes", *FIGURES]
    return _sorted(table[columns], ["source", "workload", "operation", "page_size_bytes"])


def seed_comparison(*frames: pd.DataFrame, figure: str = "throughput_ops_s") -> pd.DataFrame:
    """One figure, the proposal's and ours side by side: a row per (workload, operation, page size),
    a column per source. The load's figure is its total time in seconds."""
    parts = [with_source(f) for f in frames] + [seed_table()]
    table = pd.concat(parts, ignore_index=True)
    table = table[table["operation"] != "OVERALL"].copy()
    load_rows = table["workload"] == LOAD.name
    value = table[figure].where(~load_rows, table["total_time_s"] if figure == "throughput_ops_s" else table[figure])
    table = table.assign(value=value)
    wide = table.pivot_table(index=["workload", "operation", "page_size_bytes"], columns="source", values="value",
                             aggfunc="first").reset_index()
    wide.columns.name = None
    wide.insert(3, "page_size", wide["page_size_bytes"].map(lambda b: page_size_label(int(b))))
    wide = _sorted(wide, ["workload", "operation", "page_size_bytes"]).drop(columns="page_size_bytes")
    if figure == "throughput_ops_s":
        wide.insert(0, "figure", ["load time s" if w == LOAD.name else "ops/s" for w in wide["workload"]])
    else:
        wide.insert(0, "figure", figure)
    return wide


def performance_gain(*frames: pd.DataFrame, small: str | int = "16k", large: str | int = "64k",
                     seed: bool = True) -> pd.DataFrame:
    """The OrientDB proposal's ratios per source, workload and operation: throughput small/large, latency
    large/small (avg, p95, p99), and for the load, time large/small ("times faster on load")."""
    small_bytes, large_bytes = _bytes(small), _bytes(large)
    parts = [with_source(f) for f in frames]
    if seed:
        parts.append(seed_table())
    table = pd.concat(parts, ignore_index=True)
    rows = []
    for (source, workload, operation), group in table.groupby(["source", "workload", "operation"], sort=False):
        by_size = group.set_index("page_size_bytes")
        if small_bytes not in by_size.index or large_bytes not in by_size.index:
            continue
        a, b = by_size.loc[small_bytes], by_size.loc[large_bytes]
        runs_a, runs_b = (side if isinstance(side, pd.DataFrame) else side.to_frame().T for side in (a, b))
        if isinstance(a, pd.DataFrame):
            a, b = a.iloc[0], b.iloc[0]
        # Every run of each side compared by pagelab.evidence; the proposal's numbers are its claims, not runs.
        verdicts = {} if source == SEED_SOURCE else {
            f"{name}_verdict": _verdict(runs_a[column], runs_b[column], higher, lower)
            for name, column, higher, lower in (("throughput", "throughput_ops_s", "higher", "lower"),
                                                ("p99_latency", "p99_latency_us", "higher", "lower"))}
        row = {"source": source, "workload": workload, "operation": operation,
               "throughput_gain": _ratio(a["throughput_ops_s"], b["throughput_ops_s"]),
               "avg_latency_gain": _ratio(b["average_latency_us"], a["average_latency_us"]),
               "p95_latency_gain": _ratio(b["p95_latency_us"], a["p95_latency_us"]),
               "p99_latency_gain": _ratio(b["p99_latency_us"], a["p99_latency_us"]),
               "load_speedup": _ratio(b["total_time_s"], a["total_time_s"]) if workload == LOAD.name else None,
               **verdicts}
        rows.append(row)
    gains = pd.DataFrame(rows)
    if gains.empty:
        return gains
    gains = gains[~((gains["workload"] == LOAD.name) & (gains["operation"] == "OVERALL"))
                  | gains["load_speedup"].notna()]
    return _sorted(gains, ["source", "workload", "operation"])


def _verdict(small, large, higher: str, lower: str) -> str:
    """What our runs support for small against large (pagelab.evidence.compare)."""
    values = [[float(v) for v in side if v == v] for side in (list(small), list(large))]
    comparison = compare(*values)
    text = verdict_text(comparison.words(higher, lower), comparison.equivalence_pct)
    return f"{text} ({min(comparison.n_a, comparison.n_b)} run{'s' if min(comparison.n_a, comparison.n_b) != 1 else ''} a side)"


def _bytes(size: str | int) -> int:
    from pagelab.mysql.pagesize import parse_page_size

    return parse_page_size(size)


def _ratio(numerator, denominator) -> float | None:
    try:
        numerator, denominator = float(numerator), float(denominator)
    except (TypeError, ValueError):
        return None
    if denominator != denominator or numerator != numerator or denominator == 0:
        return None
    return numerator / denominator


def gain_sentences(gains: pd.DataFrame, source: str, small: str = "16k") -> list[str]:
    """The proposal's sentences ("read throughput is improved at 1.9 times, read latency is improved
    at 14 times") for the proposal's gains; for ours the same ratios, each with the verdict our runs
    support (pagelab.evidence: one run a side is "not resolved"); latency is p99, as in the proposal."""
    lines = []
    mine = gains[gains["source"] == source]
    for workload in WORKLOAD_ORDER:
        rows = mine[mine["workload"] == workload]
        if rows.empty:
            continue
        title = BY_NAME[workload].title if workload in BY_NAME else workload
        if workload == LOAD.name:
            speedup = rows["load_speedup"].dropna()
            if not speedup.empty:
                lines.append(f"*{title} — {small} pages {speedup.iloc[0]:.2f} times faster on load*")
            continue
        parts = []
        for _, row in rows.iterrows():
            if row["operation"] in ("OVERALL", "INSERT") or "-FAILED" in row["operation"]:
                continue
            name = {"READ": "read", "UPDATE": "write", "READ-MODIFY-WRITE": "read-modify-write"}.get(
                row["operation"], row["operation"].lower())
            if source == SEED_SOURCE:  # the proposal's own words for its own numbers
                parts.append(f"{name} throughput is {_improved(row['throughput_gain'])}, "
                             f"{name} latency (p99) is {_improved(row['p99_latency_gain'])}")
            else:  # a ratio, and only the word our runs support
                parts.append(f"{name} throughput {_times(row['throughput_gain'])} at {small}: "
                             f"{row.get('throughput_verdict') or 'not resolved'}; {name} latency (p99) "
                             f"{_times(row['p99_latency_gain'])} lower at {small}: "
                             f"{row.get('p99_latency_verdict') or 'not resolved'}")
        if parts:
            lines.append(f"*{title} — " + "; ".join(parts) + "*")
    return lines


def _times(ratio) -> str:
    return "not measured" if ratio is None or ratio != ratio else f"×{ratio:.2f}"


def _improved(ratio) -> str:
    if ratio is None or ratio != ratio:
        return "not measured"
    if ratio >= 1:
        return f"improved at {ratio:.2f} times"
    return f"worse by {1 / ratio:.2f} times"


# -- plots ---------------------------------------------------------------------------------------

def plot_figure(*frames: pd.DataFrame, figure: str = "throughput_ops_s", seed: bool = True, log: bool = False,
                ax=None):
    """Grouped bars of one figure per (workload, operation), one bar per source and page size."""
    import matplotlib.pyplot as plt

    table = workload_table(*frames, seed=seed)
    table = table.dropna(subset=[figure])
    table = table.assign(group=table["workload"].str.replace("_", " ") + "\n" + table["operation"].str.lower(),
                         series=table["source"] + " " + table["page_size"])
    groups = list(dict.fromkeys(_sorted(table, ["workload", "operation"])["group"]))
    series = list(dict.fromkeys(_sorted(table, ["source", "page_size_bytes"])["series"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(max(7.0, 1.4 * len(groups) + 2), 4), layout="constrained")
    width = 0.8 / max(1, len(series))
    for index, name in enumerate(series):
        values = table[table["series"] == name].set_index("group")[figure]
        xs = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, [values.get(group, float("nan")) for group in groups], width=width, label=name)
    ax.set_xticks(range(len(groups)), groups, fontsize="small")
    labels = {"throughput_ops_s": "operations / s", "average_latency_us": "average latency (µs)",
              "p95_latency_us": "95th percentile latency (µs)", "p99_latency_us": "99th percentile latency (µs)"}
    ax.set_ylabel(labels.get(figure, figure))
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return ax


def plot_load(*frames: pd.DataFrame, seed: bool = True, ax=None):
    """Load time per source and page size (the proposal's in hours is far off scale: a separate axis)."""
    import matplotlib.pyplot as plt

    table = load_table(*frames, seed=seed)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
    sources = list(dict.fromkeys(table["source"]))
    sizes = sorted(table["page_size_bytes"].unique())
    width = 0.8 / max(1, len(sizes))
    for index, size in enumerate(sizes):
        rows = table[table["page_size_bytes"] == size].set_index("source")["total_time_s"]
        xs = [s + (index - (len(sizes) - 1) / 2) * width for s in range(len(sources))]
        ax.bar(xs, [rows.get(source, float("nan")) for source in sources], width=width,
               label=f"{page_size_label(int(size))} pages")
    ax.set_xticks(range(len(sources)), sources)
    ax.set_yscale("log")
    ax.set_ylabel("load time (s, log scale)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return ax
