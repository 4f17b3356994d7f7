"""Figures and tables of the Week 4 lab's report, drawn from a sweep's combined tidy tables.

Every function takes the DataFrames of `pagelab.bundle.load_tables` and returns a matplotlib Figure
or a DataFrame, so the report notebook is a list of one-line calls, and the same figures can be
drawn from any bundle, including one made with tpcc-mysql.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pagelab.common.reference import reference_table
from pagelab.mysql.pagesize import PAGE_SIZES
from pagelab.common.units import KIB
from pagelab.evidence.wording import pct_text

# The lab's report reads its monitors at these points of a 1200 s run.
SEED_CHECKPOINTS_S = (100, 400, 800, 1100)
# One colour per page size in every figure of a report (seaborn's colour-blind palette, in page
# size order), so 16k is the same colour in the IOPS, hit-ratio and latency figures.
PAGE_COLOURS = dict(zip(PAGE_SIZES.values(), ("#0173B2", "#DE8F05", "#029E73", "#D55E00", "#CC78BC")))


def _style():
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    return sns


def save_figure(figure, sweep_dir: str | Path, name: str) -> Path:
    """Keep a figure in the bundle for use in a paper: sweep_dir/figures/NAME.png (raster, 200 dpi)
    and NAME.svg (vector). Returns the PNG's path."""
    directory = Path(sweep_dir) / "figures"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    figure.savefig(path, dpi=200, bbox_inches="tight")
    figure.savefig(directory / f"{name}.svg", bbox_inches="tight")
    return path


def _per_run(frame: pd.DataFrame) -> dict:
    """seaborn arguments for one line per run: the runs' samples fall at different times (each
    ramp-up ends when the run is steady), so a mean across runs at each time would zigzag."""
    if "repeat" in frame and frame["repeat"].nunique() > 1:
        return {"units": "repeat", "estimator": None, "alpha": 0.8, "linewidth": 1}
    return {"errorbar": None}


def _page_size_legend(axis) -> None:
    """seaborn titles a legend with its hue's column name (`page_size`); the reader gets words."""
    if axis.get_legend() is not None:
        axis.get_legend().set_title("page size")


def _page_order(frame: pd.DataFrame) -> list[str]:
    return list(frame.sort_values("page_size_bytes")["page_size"].drop_duplicates())


def tpmc_by_page_size(summary: pd.DataFrame, per_size: pd.DataFrame):
    """Each run's TpmC as a dot, and per page size the median with its order-statistic interval
    (pagelab.evidence), labelled with the confidence that interval really has."""
    sns = _style()
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4))
    order = _page_order(summary) if not summary.empty else []
    tpmc = per_size[per_size["metric"] == "tpmc"].set_index("page_size").reindex(order)
    if not summary.empty:
        sns.stripplot(data=summary, x="page_size", y="tpmc", order=order, ax=axis, hue="page_size",
                      palette=PAGE_COLOURS, size=5, jitter=0.08, zorder=1, legend=False, alpha=0.7)
    for position, (label, row) in enumerate(tpmc.iterrows()):
        if pd.isna(row["median"]):
            continue
        has_interval = row["runs"] >= 2
        axis.errorbar(position, row["median"], yerr=[[row["median"] - row["low"]], [row["high"] - row["median"]]]
                      if has_interval else None, fmt="_", markersize=26, color=PAGE_COLOURS.get(label, "#333333"),
                      capsize=8, zorder=2)
        note = f"{row['median']:,.0f}" + (f"\n{row['confidence_pct']:g}% interval" if has_interval else "\n1 run")
        axis.annotate(note, (position, row["high"] if has_interval else row["median"]), textcoords="offset points",
                      xytext=(0, 8), ha="center", fontsize=8)
    axis.set(xlabel="innodb_page_size", ylabel="TpmC (New-Orders per minute)",
             title="TPC-C throughput: runs (dots), median and its interval")
    axis.margins(y=0.2)
    figure.tight_layout()
    return figure


def run_order(summary: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The runs in the order they executed, numbered from 1 in `position`, and how that order is
    known: the sweep's recorded place of each run (run_order or run_position from sweep.json,
    within its round), else each run's start time, else the planned order (round by round, page
    sizes in the profile's order)."""
    if summary.empty:
        return summary.assign(position=pd.Series(dtype=int)), "no runs"
    frame = summary.copy()
    for key in ("run_order", "run_position"):
        if key in frame and frame[key].notna().all():
            ordered, how = frame.sort_values(["repeat", key], kind="stable"), "the order the sweep recorded for the runs of each round"
            break
    else:
        if "run_started" in frame and frame["run_started"].notna().all():
            started = pd.to_datetime(frame["run_started"], utc=True, format="ISO8601")
            ordered, how = frame.assign(_started=started).sort_values("_started", kind="stable"), "each run's start time"
        else:
            ordered, how = frame.sort_values(["repeat", "page_size_bytes"], kind="stable"), "the planned order"
    ordered = ordered.drop(columns=[c for c in ("_started",) if c in ordered]).reset_index(drop=True)
    ordered["position"] = range(1, len(ordered) + 1)
    return ordered, how


def tpmc_by_run_order(summary: pd.DataFrame):
    """Each run's TpmC at its place in the order the runs executed, coloured by page size, with the
    rounds marked: a drift of the machine, a slow minute, or a position effect within the rounds
    shows here, and so does whether interleaving the page sizes spread it over all of them."""
    _style()
    import matplotlib.pyplot as plt

    ordered, how = run_order(summary)
    figure, axis = plt.subplots(figsize=(8, 3.6))
    if not ordered.empty:
        for label in _page_order(ordered):
            part = ordered[ordered["page_size"] == label]
            axis.plot(part["position"], part["tpmc"], linestyle="none", marker="o", markersize=6,
                      color=PAGE_COLOURS.get(label, "#333333"), label=label, zorder=3)
        axis.plot(ordered["position"], ordered["tpmc"], color="grey", linewidth=0.6, alpha=0.6, zorder=2)
        # a faint band on every other round, so the rounds the verdicts pair stand out
        for repeat, rows in ordered.groupby("repeat"):
            if int(repeat) % 2 == 0:
                axis.axvspan(rows["position"].min() - 0.5, rows["position"].max() + 0.5, color="#eeeeee", zorder=1)
        # beside the plot, not on it: a sweep of many rounds leaves no empty corner, and "best" put
        # the legend over runs (seen on a 12-round course report)
        axis.legend(title="page size", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    from matplotlib.ticker import MaxNLocator

    axis.xaxis.set_major_locator(MaxNLocator(integer=True))  # runs are counted, not measured
    axis.set(xlabel=f"run, in the order executed (from {how})\ngrey bands: every other round",
             ylabel="TpmC (New-Orders per minute)", title="TPC-C throughput by run order")
    figure.tight_layout()
    return figure


def iops_over_time(iostat: pd.DataFrame):
    """Read and write IOPS of the data device over the measurement, one line per page size."""
    sns = _style()
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    data = iostat[iostat["t_s"] >= 0] if not iostat.empty else iostat
    for axis, column, label in ((axes[0], "r_s", "read IOPS (requests/s)"), (axes[1], "w_s", "write IOPS (requests/s)")):
        if not data.empty:
            sns.lineplot(data=data, x="t_s", y=column, hue="page_size", hue_order=_page_order(data), ax=axis,
                         palette=PAGE_COLOURS, **_per_run(data))
            _page_size_legend(axis)
        axis.set(xlabel="seconds since measurement start", ylabel=label, title=label)
    figure.tight_layout()
    return figure


LOG2_SCALE_WORDS = "log scale, base 2"  # in both axis labels: a reader could not tell the x axis was log


def request_size_vs_page_size(iostat: pd.DataFrame):
    """Average read and write request size against the page size: reads track the page size."""
    _style()
    import matplotlib.pyplot as plt

    data = iostat[(iostat["t_s"] >= 0)] if not iostat.empty else iostat
    means = request_sizes(data)
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.set_xscale("log", base=2)
    axis.set_yscale("log", base=2)
    if not means.empty:
        # markers only: the page sizes are categories, and a line between them would claim sizes not run
        axis.plot(means["page_kb"], means["read_kb"], marker="o", linestyle="none", label="read request (rareq-sz)",
                  zorder=2)
        axis.plot(means["page_kb"], means["write_kb"], marker="s", linestyle="none", label="write request (wareq-sz)",
                  zorder=2)
        # Both axes log, base 2 (the page sizes double): the reference y = x is then the straight diagonal it
        # is (on a linear y it curved), over exactly the page sizes run, on top of reads that lie on it.
        sizes = sorted(means["page_kb"])
        axis.plot([sizes[0], sizes[-1]], [sizes[0], sizes[-1]], linestyle=(0, (4, 3)), color="black",
                  linewidth=1.2, zorder=3, label="= page size")
        axis.set_xlim(sizes[0] / 1.4, sizes[-1] * 1.4)
        axis.set_xticks(sizes, [f"{int(v)}k" for v in sizes])
        shown = [v for v in (*means["read_kb"], *means["write_kb"], *sizes) if v > 0]
        powers = range(math.floor(math.log2(min(shown))), math.ceil(math.log2(max(shown))) + 1)
        axis.set_yticks([2.0 ** p for p in powers], [f"{2 ** p:g}" for p in powers], minor=False)
        axis.minorticks_off()
    axis.set(xlabel=f"innodb_page_size ({LOG2_SCALE_WORDS})", ylabel=f"average request size (KiB, {LOG2_SCALE_WORDS})",
             title="I/O request size")
    axis.legend()
    figure.tight_layout()
    return figure


# What "weighted by requests" means under the request-size table (request_sizes computes it so).
REQUEST_WEIGHT_WORDS = ("weighted by requests: each iostat sample's mean request size (rareq-sz, wareq-sz) counts once "
                        "per request the sample completed, so a size is the KiB read (written) over the requests read "
                        "(written) in every sample of the runs' measurements")


def drawn_runs_text(data, verdict: bool = False) -> str:
    """Which runs a figure or table draws, for its caption: 'the 3 over-time runs, one per page size'
    for the figures over time of a sweep with over-time runs (data.over_time), else the verdict runs,
    'the 21 verdict runs (7 rounds)'; so a caption never says "every run" of a part of them."""
    if not verdict and data.has_over_time_runs:
        count = len(data.over_time["summary"])
        return f"the {count} over-time run{'s' if count != 1 else ''}, one per page size"
    runs = data.evidence.runs
    rounds = int(runs["block"].nunique()) if not runs.empty and "block" in runs else 0
    return (f"the {len(runs)} verdict run{'s' if len(runs) != 1 else ''}" + (f" ({rounds} rounds)" if rounds else "")
            + ("" if data.has_over_time_runs else ", the figures over time drawn from them too"))


def request_sizes(iostat: pd.DataFrame) -> pd.DataFrame:
    """Mean request sizes per page size over every iostat sample given (of all runs), each sample's
    rareq-sz / wareq-sz weighted by the requests it completed (r/s, w/s: the samples are equal
    intervals), so a size is the kB read (written) over the requests read (written). r_s and w_s
    are the plain means over those samples, not the report's IOPS (the median over runs of each
    run's mean, pagelab.evidence.runs.run_values), which the report gives instead."""
    if iostat.empty:
        return pd.DataFrame(columns=["page_size", "page_kb", "read_kb", "write_kb", "r_s", "w_s"])
    rows = []
    for (size, label), group in iostat.groupby(["page_size_bytes", "page_size"]):
        reads, writes = group["r_s"].fillna(0), group["w_s"].fillna(0)
        read_kb = (group["rareq_kb"].fillna(0) * reads).sum() / reads.sum() if reads.sum() else float("nan")
        write_kb = (group["wareq_kb"].fillna(0) * writes).sum() / writes.sum() if writes.sum() else float("nan")
        rows.append({"page_size": label, "page_kb": size / KIB, "read_kb": read_kb, "write_kb": write_kb,
                     "r_s": reads.mean(), "w_s": writes.mean()})
    return pd.DataFrame(rows).sort_values("page_kb").reset_index(drop=True)


def hit_ratio_over_time(innodb: pd.DataFrame):
    """Buffer-pool hit ratio (per 1000, as InnoDB prints it) over time, one line per page size."""
    sns = _style()
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    data = innodb.dropna(subset=["hit_rate"]) if "hit_rate" in innodb else innodb
    if not data.empty:
        sns.lineplot(data=data, x="t_s", y="hit_rate", hue="page_size", hue_order=_page_order(data), ax=axis,
                     palette=PAGE_COLOURS, marker="o", **_per_run(data))
        _page_size_legend(axis)
    axis.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    limits = hit_ratio_limits(data)
    below = ""
    if limits is not None:  # the measurement's range: a cold ramp-up's ~800 would squash 984-989 into a line
        axis.set_ylim(*limits)
        low = data[data["hit_rate"] < limits[0]]["hit_rate"]
        below = f"\nramp-up samples down to {low.min():g} lie below the axis" if not low.empty else ""
    axis.set(xlabel="seconds since measurement start (negative: ramp-up)" + below, ylabel="hit rate (per 1000)",
             title="Buffer pool hit ratio")
    figure.tight_layout()
    return figure


def iops_medians(per_size: pd.DataFrame) -> pd.DataFrame:
    """The read and write IOPS rows of the per-page-size medians (pagelab.evidence.medians), reads
    first, each named in `metric` ("reads", "writes"): one table for the two, as Figure 3 draws them."""
    names = {"read_iops": "reads", "write_iops": "writes"}
    rows = per_size[per_size["metric"].isin(names)] if not per_size.empty else per_size
    rows = rows.assign(_order=rows["metric"].map(list(names).index)).sort_values("_order", kind="stable")
    return rows.drop(columns="_order").assign(metric=rows["metric"].map(names)).reset_index(drop=True)


def hit_ratio_limits(innodb: pd.DataFrame) -> tuple[float, float] | None:
    """Figure 5's y-axis: the measured samples' range (t_s >= 0) and 15% of it (at least 1 per 1000)
    either side; None without measured samples."""
    if innodb.empty or "hit_rate" not in innodb:
        return None
    measured = innodb[innodb["t_s"] >= 0]["hit_rate"].dropna()
    if measured.empty:
        return None
    low, high = float(measured.min()), float(measured.max())
    pad = max(1.0, 0.15 * (high - low))
    return low - pad, high + pad


def hit_ratio_summary(hit_ratio: pd.DataFrame) -> pd.DataFrame:
    """Mean hit rate over the measurement (t_s >= 0) per page size, both ways: InnoDB's status
    text (averaged over its own window) and the global counters (exact over each interval)."""
    if hit_ratio.empty:
        return pd.DataFrame()
    measured = hit_ratio[hit_ratio["t_s"] >= 0]
    columns = [c for c in measured.columns if c.endswith("hit_rate_per_1000")]
    table = measured.groupby(["page_size_bytes", "page_size"])[columns].mean().round(1)
    return table.reset_index("page_size_bytes", drop=True)


def new_order_latency_over_time(intervals: pd.DataFrame):
    """New-Order 95th and 99th percentile response time per interval."""
    sns = _style()
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for axis, column in zip(axes, ("new_order_p95_ms", "new_order_p99_ms")):
        if not intervals.empty:
            sns.lineplot(data=intervals, x="t_s", y=column, hue="page_size", hue_order=_page_order(intervals),
                         ax=axis, palette=PAGE_COLOURS, marker="o", **_per_run(intervals))
            _page_size_legend(axis)
        axis.set(xlabel="seconds since measurement start", ylabel="response time (ms)",
                 title=f"New-Order {'95th' if 'p95' in column else '99th'} percentile")
    figure.tight_layout()
    return figure


def checkpoint_table(intervals: pd.DataFrame, checkpoints=SEED_CHECKPOINTS_S) -> pd.DataFrame:
    """The lab's table: the interval line at 100/400/800/1100 s (or the nearest our run has)."""
    if intervals.empty:
        return pd.DataFrame()
    rows = []
    columns = ["new_order", "new_order_p95_ms", "new_order_p99_ms", "new_order_max_ms", "payment",
               "order_status", "delivery", "stock_level"]
    for (size, label, repeat), group in intervals.groupby(["page_size_bytes", "page_size", "repeat"]):
        for checkpoint in checkpoints:
            nearest = group.iloc[(group["t_s"] - checkpoint).abs().argsort().iloc[0]]
            if rows and rows[-1]["page_size"] == label and rows[-1]["t_s"] == nearest["t_s"] and rows[-1]["repeat"] == repeat:
                continue  # a short run has fewer intervals than checkpoints
            rows.append({"page_size": label, "repeat": repeat, "t_s": nearest["t_s"],
                         **{c: nearest.get(c) for c in columns}})
    return pd.DataFrame(rows)


def checkpoint_monitors(intervals: pd.DataFrame, iostat: pd.DataFrame, innodb: pd.DataFrame,
                        checkpoints=SEED_CHECKPOINTS_S) -> pd.DataFrame:
    """What the lab read at its checkpoints besides the transactions: per page size and run, at each
    checkpoint, TpmC of the report interval nearest it (its New-Orders over its seconds, per minute),
    read and write IOPS of the iostat sample nearest it, and the hit rate (per 1000) of the InnoDB
    status sample nearest it; nan where a run has no such sample."""
    def nearest(frame: pd.DataFrame, keys: tuple, checkpoint: float, column: str) -> float:
        if frame.empty or column not in frame:
            return float("nan")
        part = frame[(frame["page_size"] == keys[0]) & (frame["repeat"] == keys[1]) & (frame["t_s"] >= 0)]
        part = part.dropna(subset=[column])
        return float(part.iloc[(part["t_s"] - checkpoint).abs().argsort().iloc[0]][column]) if not part.empty \
            else float("nan")

    if intervals.empty:
        return pd.DataFrame()
    rows = []
    for (_, label, repeat), group in intervals.groupby(["page_size_bytes", "page_size", "repeat"]):
        group = group.sort_values("t_s")
        seconds = group["t_s"].diff().fillna(group["t_s"]).median()
        for checkpoint in checkpoints:
            line = group.iloc[(group["t_s"] - checkpoint).abs().argsort().iloc[0]]
            if rows and rows[-1]["page_size"] == label and rows[-1]["repeat"] == repeat and \
                    rows[-1]["t_s"] == line["t_s"]:
                continue  # a short run has fewer intervals than checkpoints
            rows.append({"page_size": label, "repeat": repeat, "t_s": line["t_s"],
                         "tpmc": line["new_order"] * 60 / seconds if seconds else float("nan"),
                         "read_iops": nearest(iostat, (label, repeat), checkpoint, "r_s"),
                         "write_iops": nearest(iostat, (label, repeat), checkpoint, "w_s"),
                         "hit_rate": nearest(innodb, (label, repeat), checkpoint, "hit_rate")})
    return pd.DataFrame(rows)



def same_count_note(table: pd.DataFrame) -> str:
    """Where checkpoints of one run read the same New-Order count (and so the same TpmC), that they are
    different intervals, as their response times show: two readers took such a pair for one sample
    read twice. '' where no count repeats."""
    parts = []
    if table.empty:
        return ""
    for (label, _), group in table.groupby(["page_size", "repeat"], sort=False):
        for count, same in group.groupby("new_order", sort=False):
            if len(same) > 1:
                times = " and ".join(f"{t:,.0f} s" for t in same["t_s"])
                p95 = " and ".join(f"{v:.1f}" for v in same["new_order_p95_ms"])
                parts.append(f"{label}'s intervals at {times} counted the same {count:,.0f} New-Orders, so the same "
                             f"TpmC: they are different intervals, as their New-Order p95 shows ({p95} ms)")
    return (" " + "; ".join(parts) + ".") if parts else ""

def checkpoint_run_header(data) -> str:
    """The checkpoints table's run column, named for what it counts: the over-time run of each page size
    where the sweep ran them (each is its page size's one), else the verdict runs' round."""
    return "Over-time run" if data.has_over_time_runs else "Round"


def one_over_time_run_each(data) -> bool:
    """Whether the checkpoints tables read one over-time run per page size, as `course` runs them: then a
    run number, always 1, says nothing and the tables leave it out."""
    intervals = data.over_time["tpcc_intervals"]
    return (data.has_over_time_runs and not intervals.empty
            and int(intervals.groupby("page_size")["repeat"].nunique().max()) == 1)


def checkpoint_run_column(data) -> dict:
    """The checkpoints tables' run column for lab_report.present, or none (`one_over_time_run_each`)."""
    return {} if one_over_time_run_each(data) else {"repeat": (checkpoint_run_header(data), 0)}


def checkpoint_run_note(data) -> str:
    """What the checkpoints table's run column counts, for its caption."""
    if one_over_time_run_each(data):
        return "Each page size's rows read its one over-time run, run after the rounds."
    if data.has_over_time_runs:
        return "The Over-time run column numbers each page size's over-time runs, from 1, run after the rounds."
    return "The Round column is the round of the verdict run the row reads (this sweep ran no over-time runs)."


def interval_text(summary: pd.DataFrame) -> str:
    """How long each report interval of the runs was, from their summary.json's interval_s: "10 s",
    or the distinct lengths where runs differ; "not recorded" for runs that kept none."""
    if summary.empty or "interval_s" not in summary or summary["interval_s"].dropna().empty:
        return "not recorded by these runs"
    lengths = sorted({float(v) for v in summary["interval_s"].dropna()})
    return ", ".join(f"{v:g} s" for v in lengths)


def lab_interval_s() -> float | None:
    """The lab's report interval, which its report does not state, as its own numbers give it: 60 ×
    the New-Orders of its checkpoint intervals over its TpmC, averaged over its page sizes
    (data/reference: week4_lab_intervals.csv, week4_lab_tpmc.csv); None without them."""
    lines, tpmc = read_reference("week4_lab_intervals.csv"), read_reference("week4_lab_tpmc.csv")
    if lines.empty or tpmc.empty:
        return None
    per_size = lines.groupby("page_size")["new_order"].mean()
    rates = tpmc.set_index("page_size")["tpmc"].reindex(per_size.index).dropna()
    if rates.empty:
        return None
    return float((60 * per_size.reindex(rates.index) / rates).mean())


def read_reference(name: str) -> pd.DataFrame:
    """A table of the lab's published numbers from data/reference/ (empty if absent)."""
    return reference_table(name, missing_ok=True)


def seed_comparison(summary: pd.DataFrame, iostat: pd.DataFrame) -> pd.DataFrame:
    """The Week 4 lab's TpmC and IOPS beside ours, per page size. Ours are the medians over the runs
    the verdicts compare (each run's TpmC, each run's mean IOPS over its measurement), so the table
    shows the statistic the verdicts use; the lab's are its one run's, so the mean over its measurement."""
    seed_tpmc = read_reference("week4_lab_tpmc.csv")
    seed_io = read_reference("week4_lab_iostat.csv")
    ours = (summary.groupby("page_size").agg(tpmc_ours=("tpmc", "median")).reset_index() if not summary.empty
            else pd.DataFrame())
    measured = iostat[iostat["t_s"] >= 0] if not iostat.empty else iostat
    if not measured.empty:
        by_run = measured.groupby(["page_size", "run"]).agg(read_iops_ours=("r_s", "mean"), write_iops_ours=("w_s", "mean"),
                                                            read_kb_ours=("rareq_kb", "mean"))
        io = by_run.groupby("page_size").median().reset_index()
        ours = ours.merge(io, on="page_size", how="outer") if not ours.empty else io
    table = ours
    if not seed_tpmc.empty:
        seed = seed_tpmc.rename(columns={"tpmc": "tpmc_seed"})[["page_size", "tpmc_seed"]]
        table = seed.merge(table, on="page_size", how="outer") if not table.empty else seed
    if not seed_io.empty and {"r_s", "w_s"} <= set(seed_io.columns):
        io_seed = seed_io.groupby("page_size").agg(read_iops_seed=("r_s", "mean"), write_iops_seed=("w_s", "mean")).reset_index()
        table = table.merge(io_seed, on="page_size", how="left")
    if "page_size" in table:
        order = {label: index for index, label in enumerate(PAGE_SIZES.values())}
        table = table.sort_values("page_size", key=lambda s: s.map(order)).reset_index(drop=True)
    return table


def effect_across_levels(effects: pd.DataFrame, factor_words: str, level_labels: dict | None = None):
    """The page-size effect (a vs b, change of the median TpmC in %) at each level of the grid's
    other factor, with its 95% bootstrap interval (pagelab.evidence.grid.effect_table), in the
    profile's order of levels; 0 (no effect) drawn as a line. `level_labels` names a level on the
    axis as the report writes it (a pool with its share of the data: "40M (19%)")."""
    _style()
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 3.6))
    if not effects.empty:
        positions = list(range(len(effects)))
        change = effects["change_pct"].astype(float)
        low = (change - effects["low_pct"].astype(float)).fillna(0)
        high = (effects["high_pct"].astype(float) - change).fillna(0)
        axis.errorbar(positions, change, yerr=[low, high], fmt="o-", color=PAGE_COLOURS.get(effects.iloc[0]["a"], "#333"),
                      capsize=6)
        for position, row in zip(positions, effects.to_dict("records")):
            axis.annotate(pct_text(row["change_pct"]), (position, row["change_pct"]),
                          textcoords="offset points", xytext=(8, 4), fontsize=8)
        axis.set_xticks(positions, [(level_labels or {}).get(str(level), str(level)) for level in effects["level"]])
        pair = f"{effects.iloc[0]['a']} vs {effects.iloc[0]['b']}"
    else:
        pair = "page sizes"
    axis.axhline(0, color="#777777", linewidth=1, linestyle="--")
    axis.set(xlabel=factor_words, ylabel=f"TpmC, {pair} (%)",
             title=f"The page-size effect across the {factor_words}: median ratio and 95% interval")
    figure.tight_layout()
    return figure
