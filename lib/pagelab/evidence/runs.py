"""A bundle's runs as one table: one value per finished run and metric, the runs left out and why,
and each run's TpmC interval series for the two-level model. Kept apart from the tables and words
made from it, because what a run is (its files, its block, its host) changes with the bundle's
format, not with how the evidence is judged or worded.

The unit of evidence is the run: each repeat restored the loaded snapshot and restarted the
server, so runs are independent draws of what this machine does. Values within a run (intervals,
samples) are not independent; the TpmC intervals of each run are kept as its series
(`RunTable.series`, pagelab.evidence.components), from which the within-run and between-run
variance components come.

Runs are paired by their block: the runs compared with each other because they shared the
machine's minute. A run's entry in sweep.json may name its block ("block", e.g. a node and a
round); without one its block is its round (`block_of`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pagelab.evidence.components import RunSeries, VarianceComponents, variance_components
from pagelab.evidence.intervals import CONFIDENCE, DEFAULT_EQUIVALENCE_PCT
from pagelab.evidence.block_weights import EQUAL
from pagelab.evidence.model import OVER_TIME_BLOCK, OverTimeRuns, counted_series, over_time_runs
from pagelab.evidence.sequential import SequentialPlan, plan_of
from pagelab.common.units import page_size_label


# The host of a run made before runs recorded theirs (sweep.json's entry has no "host").
UNRECORDED_HOST = "unrecorded"


@dataclass(frozen=True)
class Metric:
    name: str  # the column in every table
    label: str
    unit: str
    higher: str  # the verdict's word when the first page size's median is the higher
    lower: str
    decimals: int


METRICS: tuple[Metric, ...] = (
    Metric("tpmc", "TpmC", "New-Orders/min", "faster", "slower", 0),
    Metric("read_iops", "Read IOPS", "r/s", "higher", "lower", 0),
    Metric("write_iops", "Write IOPS", "w/s", "higher", "lower", 0),
    Metric("hit_ratio", "Hit ratio", "per 1000", "higher", "lower", 1),
    Metric("new_order_p95_ms", "New-Order p95", "ms", "higher", "lower", 1),
)
METRICS_BY_NAME = {metric.name: metric for metric in METRICS}


@dataclass
class RunTable:
    """One row per finished run (run, page_size, page_size_bytes, repeat, one column per metric),
    and the runs left out, with why."""

    runs: pd.DataFrame
    excluded: list[tuple[str, str]]
    profile: dict
    page_order: list[str]
    noise: dict | None = None  # noise.json, when the sweep measured the machine first
    # Each finished run's TpmC interval series (verdict and over-time runs); [] for a bundle whose
    # runs kept none (then only the rank tests can judge).
    series: list = field(default_factory=list)
    # The pairs' family confidence at the sweep's latest look: CONFIDENCE for a sweep analysed once,
    # lower when it was made to be extended by more rounds (pagelab.evidence.sequential).
    confidence: float = CONFIDENCE
    looks: SequentialPlan | None = None
    host_noise: dict = field(default_factory=dict)  # {host: its noise.json}, each node's own (--noise on Slurm)


# Other user processes' mean load (cores, summary.json's other_work) above which a run counts as
# measured beside other work: a tenth of a core is about what an editor, a shell and a browser tab
# use together on this kind of machine, and 5% of a 2-core machine's capacity.
LOADED_CORES = 0.1


@dataclass(frozen=True)
class OtherWork:
    """What a set of runs recorded of other user processes' CPU while they measured."""

    runs: int  # that recorded it
    median: float  # cores
    most: float
    most_run: str
    loaded: tuple[str, ...]  # the runs beside more than LOADED_CORES


def other_work_of(frame: pd.DataFrame) -> OtherWork | None:
    """The summary of `frame`'s `other_cores` (one row per run, with its `run`); None where no run
    recorded it (a bundle from before the record)."""
    recorded = frame.dropna(subset=["other_cores"]) if "other_cores" in frame else frame.iloc[0:0]
    if recorded.empty:
        return None
    worst = recorded.loc[recorded["other_cores"].idxmax()]
    return OtherWork(len(recorded), float(recorded["other_cores"].median()), float(worst["other_cores"]),
                     str(worst["run"]), tuple(recorded.loc[recorded["other_cores"] > LOADED_CORES, "run"]))


def _number(value) -> float:
    """A recorded figure, NaN where none was recorded (0 is a figure: a quiet run's other work)."""
    return math.nan if value is None else float(value)


def _mean_measured(frame: pd.DataFrame, column: str) -> float:
    if frame.empty or column not in frame:
        return math.nan
    measured = frame[frame["t_s"] >= 0][column].dropna()
    return float(measured.mean()) if not measured.empty else math.nan


def _read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.exists() and path.stat().st_size > 0 else pd.DataFrame()


def run_values(run_dir: Path) -> dict[str, float]:
    """The metrics of one finished run, from the files it left."""
    summary = json.loads((run_dir / "summary.json").read_text())
    iostat = _read_csv(run_dir / "iostat.csv")
    hit_ratio = _read_csv(run_dir / "hit_ratio.csv")
    intervals = _read_csv(run_dir / "tpcc_intervals.csv")
    hit = _mean_measured(hit_ratio, "counter_hit_rate_per_1000")
    if math.isnan(hit):
        hit = _mean_measured(hit_ratio, "status_hit_rate_per_1000")
    p95 = intervals["new_order_p95_ms"].dropna() if "new_order_p95_ms" in intervals else pd.Series(dtype=float)
    return {
        "tpmc": float(summary["tpmc"]),
        "read_iops": _mean_measured(iostat, "r_s"),
        "write_iops": _mean_measured(iostat, "w_s"),
        "hit_ratio": hit,
        # The run's typical interval: the median of its per-interval 95th percentiles.
        "new_order_p95_ms": float(p95.median()) if not p95.empty else math.nan,
        # not a metric: the cores other user processes kept busy while it measured
        # (pagelab.machine.other_work), for `pagelab stats`'s line on the machine; NaN before the record
        "other_cores": _number((summary.get("other_work") or {}).get("other_cores")),
    }


def block_of(entry: dict) -> str:
    """The block a run of sweep.json belongs to: its own "block" when the bundle recorded one, else
    its round ("round 3"; the repeat for a bundle older than rounds); the over-time runs, which run
    one after another after the rounds, are one block."""
    if entry.get("block"):
        return str(entry["block"])
    if entry.get("role", "verdict") == "over_time":
        return OVER_TIME_BLOCK
    return f"round {entry.get('round') or entry['repeat']}"


def run_series(run_dir: Path, entry: dict) -> RunSeries | None:
    """The run's TpmC per interval from its tpcc_intervals.csv (New-Orders per interval over the
    interval's seconds, per minute), whole intervals only: a last interval cut short by the end
    of the measurement is left out, as are rows before the measurement began. None when the run
    kept no series."""
    intervals = _read_csv(run_dir / "tpcc_intervals.csv")
    if intervals.empty or not {"t_s", "new_order"} <= set(intervals.columns):
        return None
    ends = intervals["t_s"].to_numpy(float)
    counts = intervals["new_order"].to_numpy(float)
    keep = ends > 0
    ends, counts = ends[keep], counts[keep]
    if ends.size == 0:
        return None
    seconds = np.diff(np.concatenate([[0.0], ends]))
    whole = np.isclose(seconds, float(np.median(seconds))) & np.isfinite(counts)
    if not whole.any():
        return None
    return RunSeries(entry["name"], entry["page_size"], block_of(entry),
                     tuple(float(v) for v in counts[whole] / seconds[whole] * 60),
                     tuple(float(v) for v in seconds[whole]), entry.get("role", "verdict"))


def run_table(bundle: Path, record: dict) -> RunTable:
    """Every run of a bundle, from its sweep.json document (`record`, as pagelab.bundle reads it):
    finished ones as rows, the others named with their status and error; every finished run's
    interval series (over-time runs too: they are no rows, as they measured another length)."""
    bundle = Path(bundle)
    rows, excluded, series = [], [], []
    for entry in record["runs"]:
        if entry.get("role", "verdict") == "over_time":  # for the figures over time, and the model's data
            if entry["status"] == "done" and not entry.get("cell"):
                found = run_series(bundle / entry["name"], entry)
                series += [found] if found else []
            continue
        if entry["status"] != "done":
            reason = entry.get("error") or "not finished"
            excluded.append((entry["name"], f"{entry['status']}: {reason}"))
            continue
        try:
            values = run_values(bundle / entry["name"])
        except (OSError, ValueError, KeyError) as exc:
            excluded.append((entry["name"], f"its files cannot be read: {exc}"))
            continue
        levels = {f"level_{name}": level for name, level in (entry.get("cell") or {}).items()}
        if not entry.get("cell"):  # a grid's runs are compared within each level, by their rank tests
            found = run_series(bundle / entry["name"], entry)
            series += [found] if found else []
        rows.append({"run": entry["name"], "page_size": entry["page_size"],
                     "page_size_bytes": entry["page_size_bytes"], "repeat": entry["repeat"],
                     "block": block_of(entry),
                     "host": entry.get("host") or UNRECORDED_HOST, **levels, **values})
    sizes = record.get("profile", {}).get("page_sizes") or sorted({e["page_size_bytes"] for e in record["runs"]})
    noise_path = bundle / "noise.json"
    noise = json.loads(noise_path.read_text()) if noise_path.exists() else None
    profile = dict(record.get("profile", {}))
    if record.get("primary"):  # what was declared when the bundle was made counts, not a later edit
        profile["primary"] = record["primary"].get("comparison", "")
    if record.get("block_weights"):  # likewise how TpmC's blocks are weighed
        profile["block_weights"] = record["block_weights"].get("weights", EQUAL)
    order = [page_size_label(int(s)) for s in sizes]
    looks = plan_of(record, 1 - CONFIDENCE)
    # The largest Holm family a look tests: every pair, or, after a declared primary tested alone,
    # the others (pagelab.evidence.families.compare_family)
    pairs = len(order) * (len(order) - 1) // 2
    holm_family = pairs - 1 if profile.get("primary") and pairs > 1 else pairs
    host_noise = {path.parent.name: json.loads(path.read_text()) for path in sorted(bundle.glob("hosts/*/noise.json"))}
    return RunTable(pd.DataFrame(rows), excluded, profile, order, noise, series,
                    looks.family_confidence(holm_family), looks, host_noise)


@dataclass(frozen=True)
class ModelData:
    """What the two-level model has of a bundle: the components, each page size's runs as
    {block: (log mean, seconds)} (None for a page size with a run that kept no series), and what
    of the over-time runs counted."""

    components: VarianceComponents
    by_size: dict
    over_time: list
    weights: str = EQUAL  # the bundle's declared block_weights (pagelab.evidence.block_weights)
    long_runs: OverTimeRuns | None = None  # the over-time runs whole, for each pair's shared window

    def sides(self, a: str, b: str) -> tuple[dict, dict] | None:
        """{block: (y, T)} of a and of b as the pair compares them (its over-time block over the seconds
        both runs counted, pagelab.evidence.model.OverTimeRuns); None where a side has no model."""
        if self.by_size.get(a) is None or self.by_size.get(b) is None:
            return None
        if self.long_runs is None:
            return self.by_size[a], self.by_size[b]
        return self.long_runs.sides(a, b, self.by_size[a], self.by_size[b])


def model_data(table: RunTable) -> ModelData | None:
    """The bundle's TpmC for the two-level model (pagelab.evidence.model): every verdict run's
    series and what of the over-time runs may count; None for a bundle whose runs kept none."""
    if not table.series:
        return None
    counted, uses = counted_series(table.series)
    components = variance_components(counted, table.page_order)
    by_size = {}
    for size in table.page_order:
        runs = [run for run in counted if run.page_size == size]
        rows = int((table.runs["page_size"] == size).sum()) if not table.runs.empty else 0
        complete = sum(run.role != "over_time" for run in runs) >= rows
        by_size[size] = {run.block: (run.log_mean, run.measured_s) for run in runs} if complete else None
    return ModelData(components, by_size, uses, weights_of(table), over_time_runs(table.series, uses))


@dataclass(frozen=True)
class OverTimeKept:
    """What of a pair's over-time runs a design of `over_time_s`-second runs expects to count: each
    side's seconds (its run's counted share of `over_time_s`), and the one length T with
    (a_A + a_B)/T = a_A/T_A + a_B/T_B, each side's a its over-time run's (`SizeComponents.role_a`),
    so that the pair's over-time a over T is the block's within-run part: the harmonic mean of T_A
    and T_B weighed by the sides' a (the plain harmonic mean when an a is unknown; None when a side
    kept nothing)."""

    uses: tuple
    seconds: tuple[float, float]
    length_s: float | None


def over_time_kept(table: RunTable, first: str, second: str, over_time_s: float) -> OverTimeKept | None:
    """`OverTimeKept` from the share of each over-time run of the pair that the bundle's own warm-up
    cut and drift check let count and both runs share (pagelab.evidence.model.over_time_use,
    shared_window; length None where they share too little); None when the bundle ran none of them
    (pagelab plan and the report's precision paragraph, with precision weights)."""
    data = model_data(table)
    uses = {use.page_size: use for use in (data.over_time if data else [])}
    if first not in uses or second not in uses:
        return None
    # the pair compares its two runs over the seconds both counted (pagelab.evidence.model.shared_window)
    window = data.long_runs.window(first, second) if data.long_runs else None
    shared = window[1] - window[0] if window else 0.0
    seconds = tuple(shared / uses[size].measured_s * over_time_s for size in (first, second))
    # each side's a as the model takes it for its over-time run (SizeComponents.role_a), so that
    # (a_A + a_B) / T = a_A / T_A + a_B / T_B, the block's within-run part the model has
    sides = [data.components.size(size) for size in (first, second)]
    a = [side.role_a("over_time").value if side is not None else math.nan for side in sides]
    if min(seconds) <= 0:
        length = None
    elif all(math.isfinite(x) and x > 0 for x in a):
        length = (a[0] + a[1]) / (a[0] / seconds[0] + a[1] / seconds[1])
    else:
        length = 2 / (1 / seconds[0] + 1 / seconds[1])
    return OverTimeKept((uses[first], uses[second]), seconds, length)


def weights_of(table: RunTable) -> str:
    """How the bundle declared TpmC's blocks weighed: its block_weights, equal before the knob existed."""
    return str(table.profile.get("block_weights") or EQUAL)


def components_of(table: RunTable) -> VarianceComponents | None:
    """The bundle's two variance components of TpmC (pagelab.evidence.components), from its runs'
    interval series (the over-time runs' as far as they count); None for a bundle whose runs kept none."""
    data = model_data(table)
    return data.components if data else None


def equivalence_of(table: RunTable) -> float:
    """The bundle's margin delta: its profile's equivalence_pct, else the default."""
    return float(table.profile.get("equivalence_pct") or DEFAULT_EQUIVALENCE_PCT)


def _values(runs: pd.DataFrame, page_size: str, metric: str) -> list[float]:
    if runs.empty:
        return []
    return [float(v) for v in runs.loc[runs["page_size"] == page_size, metric] if not pd.isna(v)]


def _values_by_block(runs: pd.DataFrame, page_size: str, metric: str) -> dict:
    """{block: value} of one page size's runs: what `measure` pairs by (the round, when a table
    has no block column)."""
    if runs.empty:
        return {}
    key = "block" if "block" in runs else "repeat"
    rows = runs.loc[runs["page_size"] == page_size, [key, metric]]
    return {block: float(value) for block, value in rows.itertuples(index=False) if not pd.isna(value)}
