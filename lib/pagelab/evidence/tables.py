"""A bundle's runs as evidence: one value per run and metric, medians with intervals per page
size, and each pair of page sizes compared, with a verdict; the same between two bundles.

A sweep's pairs of one metric are one family (pagelab.evidence.families: Holm-adjusted p-values,
Bonferroni-adjusted intervals), and the margin of "equivalent" is the bundle's `equivalence_pct`
(its default for a bundle made before the knob existed). Two bundles are compared in
pagelab.evidence.two_sweeps.

The unit of evidence is the run: each repeat restored the loaded snapshot and restarted the
server, so runs are independent draws of what this machine does. Values within a run (intervals,
samples) are not independent; the TpmC intervals of each run are kept as its series
(`RunTable.series`, pagelab.evidence.components), from which the within-run and between-run
variance components come.

Runs are paired by their block: the runs compared with each other because they shared the
machine's minute. A run's entry in sweep.json may name its block ("block", e.g. a node and a
round); without one its block is its round (`block_of`).

The host is a factor: runs spread over nodes (Slurm) may differ by node as much as by page size
(Maricq et al., OSDI 2018). `host_table` gives per-host medians, and `host_lines` says when the
spread between hosts is larger than the effect of the page size.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from pagelab.evidence.components import RunSeries, VarianceComponents, components_lines, variance_components
from pagelab.evidence.families import (NOT_TESTED, PRIMARY, compare_family, family_confidence, holm, primary_pair,
                                       smallest_p, verdict_room)
from pagelab.evidence.outliers import outlier_lines
from pagelab.evidence.model import MODEL_METHOD, counted_series, over_time_lines, pair_effect
from pagelab.evidence.node_model import NODE_BLOCKS_METHOD, NODE_METHODS, node_effect, split_rounds
from pagelab.evidence.sequential import SequentialPlan, plan_of
from pagelab.evidence.intervals import (
    CONFIDENCE,
    DEFAULT_EQUIVALENCE_PCT,
    DEFAULT_RESOLVE_PCT,
    EQUIVALENT,
    MAX_REPEATS_ESTIMATE,
    MIN_RUNS_FOR_VERDICT,
    NOT_RESOLVED,
    Comparison,
    log_spread,
    median_interval,
    verdict_text,
)
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
    }


OVER_TIME_BLOCK = "over-time"


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
    return ModelData(components, by_size, uses)


def components_of(table: RunTable) -> VarianceComponents | None:
    """The bundle's two variance components of TpmC (pagelab.evidence.components), from its runs'
    interval series (the over-time runs' as far as they count); None for a bundle whose runs kept none."""
    data = model_data(table)
    return data.components if data else None


def primary_index(table: RunTable, pairs: Sequence[tuple[str, str]]) -> int | None:
    """The index in `pairs` ((earlier, later) page sizes) of the bundle's declared primary
    comparison (its profile's `primary`, either way round), or None."""
    declared = primary_pair(table.profile.get("primary") or "")
    if declared is None:
        return None
    return next((i for i, pair in enumerate(pairs) if set(pair) == set(declared)), None)


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


def _values(runs: pd.DataFrame, page_size: str, metric: str) -> list[float]:
    if runs.empty:
        return []
    return [float(v) for v in runs.loc[runs["page_size"] == page_size, metric] if not pd.isna(v)]


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


def equivalence_of(table: RunTable) -> float:
    """The bundle's margin delta: its profile's equivalence_pct, else the default."""
    return float(table.profile.get("equivalence_pct") or DEFAULT_EQUIVALENCE_PCT)


# paired: compared round by round (pagelab.evidence.intervals), and then runs_a and runs_b count the
# rounds in which both page sizes finished. confidence_pct: the interval's level (Bonferroni-adjusted
# over family_size pairs); p_value the rank test's, p_adjusted Holm's over the family; detectable_pct the
# minimum detectable effect; runs_for_equivalence the runs a side equivalence_pct would need.
PAIR_COLUMNS = ("metric", "a", "b", "runs_a", "runs_b", "change_pct", "low_pct", "high_pct", "confidence_pct",
                "verdict", "p_value", "p_adjusted", "family_size", "equivalence_pct", "detectable_pct",
                "runs_for_equivalence", "repeats_needed", "resolve_pct", "paired", "method", "role")


def comparison_row(comparison: Comparison, label_a: str, label_b: str, metric: Metric) -> dict:
    return {"metric": metric.name, "a": label_a, "b": label_b, "runs_a": comparison.n_a, "runs_b": comparison.n_b,
            "change_pct": comparison.change_pct, "low_pct": comparison.low_pct, "high_pct": comparison.high_pct,
            "confidence_pct": 100 * comparison.confidence,
            "verdict": comparison.words(metric.higher, metric.lower), "p_value": comparison.p_value,
            "p_adjusted": comparison.p_adjusted, "family_size": comparison.family_size,
            "equivalence_pct": comparison.equivalence_pct, "detectable_pct": comparison.detectable_pct,
            "runs_for_equivalence": comparison.runs_for_equivalence, "repeats_needed": comparison.repeats_needed,
            "resolve_pct": comparison.resolve_pct, "paired": comparison.paired, "method": comparison.method,
            "role": comparison.role}


def _values_by_block(runs: pd.DataFrame, page_size: str, metric: str) -> dict:
    """{block: value} of one page size's runs: what `measure` pairs by (the round, when a table
    has no block column)."""
    if runs.empty:
        return {}
    key = "block" if "block" in runs else "repeat"
    rows = runs.loc[runs["page_size"] == page_size, [key, metric]]
    return {block: float(value) for block, value in rows.itertuples(index=False) if not pd.isna(value)}


def pairwise_table(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   equivalence_pct: float | None = None, metrics: Sequence[Metric] = METRICS) -> pd.DataFrame:
    """Each later page size against each earlier one (8k vs 4k, 16k vs 4k, 16k vs 8k), per metric
    (every metric unless given), round by round where enough rounds finished on both sides; the
    pairs of a metric judged as one family (`compare_family`). Unpaired, the runs needed come from
    the spread pooled over all page sizes of the bundle. equivalence_pct: the bundle's own unless
    given."""
    delta = equivalence_of(table) if equivalence_pct is None else equivalence_pct
    rows = []
    pairs = list(combinations(table.page_order, 2))
    primary = primary_index(table, pairs)
    split = split_rounds(table.runs)
    data = model_data(table) if any(metric.name == "tpmc" for metric in metrics) and not split else None
    for metric in metrics:
        by_size = {size: _values_by_block(table.runs, size, metric.name) for size in table.page_order}
        spread = log_spread([list(values.values()) for values in by_size.values()])
        models = [_tpmc_model(table, data, split, second, first) if metric.name == "tpmc" else None
                  for first, second in pairs]
        found = compare_family([(by_size[second], by_size[first]) for first, second in pairs], spread=spread,
                               resolve_pct=resolve_pct, confidence=table.confidence, equivalence_pct=delta,
                               models=models, primary=primary)
        rows += [comparison_row(comparison, second, first, metric)
                 for (first, second), comparison in zip(pairs, found)]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)  # the columns even with one page size and no pair


def _tpmc_model(table: RunTable, data: ModelData | None, split: list[int], a: str, b: str):
    """TpmC's model of a against b, or None where the rank tests judge. With a round on more than
    one node (`split`), the node as a random effect over all runs (pagelab.evidence.node_model);
    else the two-level model (pagelab.evidence.model), unless the runs kept no series, a run kept
    none, or too few blocks are shared."""
    if split:
        return node_effect(table.runs, "tpmc", a, b)
    return model_effect(data, a, b)


def model_effect(data: ModelData | None, a: str, b: str):
    """The two-level model's estimate of a against b, or None where the rank tests judge: no
    series, a run without one, or too few blocks."""
    if data is None or data.by_size.get(a) is None or data.by_size.get(b) is None:
        return None
    within = {size.page_size: size.within_a for size in data.components.sizes}
    return pair_effect(data.by_size[a], data.by_size[b], within[a], within[b])


def pct_text(pct: float, unit: str = "%") -> str:
    """'+9.5%', '−4.1%': a change in percent as every verdict and report sentence prints it."""
    return f"{pct:+.1f}{unit}".replace("-", "−")


def interval_text(low: float, high: float, confidence_pct: float | None, unit: str = "%") -> str:
    """'[+4.1%, +15.0%] (98.33% CI)': an interval with its own level, so a line read alone says it
    (a family's pairs are at the Bonferroni level, a declared primary at the full one); no level
    when the row has none recorded."""
    level = "" if _missing(confidence_pct) else f" ({float(confidence_pct):.4g}% CI)"
    return f"[{pct_text(low, unit)}, {pct_text(high, unit)}]{level}"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _runs_text(n, what: str = "runs a side") -> str:
    return f"more than {MAX_REPEATS_ESTIMATE} {what}" if n > MAX_REPEATS_ESTIMATE else f"about {int(n)} {what}"


def unresolved_advice(row: dict) -> str:
    """Why a pair is not resolved, in numbers: the smallest effect these runs resolve, and the runs
    the margin would need."""
    delta = row["equivalence_pct"]
    what = "rounds" if row.get("paired") else "runs a side"
    parts = []
    if not _missing(row.get("detectable_pct")):
        runs = int(row["runs_a"]) if row.get("paired") else f"{int(row['runs_a'])}+{int(row['runs_b'])}"
        parts.append(f"these {runs} {'rounds' if row.get('paired') else 'runs'} resolve effects of about "
                     f"±{row['detectable_pct']:.1f}%")
    if not _missing(row.get("runs_for_equivalence")):
        parts.append(f"{_runs_text(row['runs_for_equivalence'], what)} would show equivalence within ±{delta:g}%")
    if not parts:
        parts.append(f"{MIN_RUNS_FOR_VERDICT} or more runs a side can give a verdict, and show how many "
                     f"equivalence within ±{delta:g}% needs")
    return "; ".join(parts)


def verdict_line(row: dict, metric: Metric | None = None, adjustment: str = "Holm") -> str:
    """'8k vs 4k: TpmC +9.5% [+4.1%, +15.0%] (98.33% CI), faster (p 0.004, Holm)': the effect and
    its interval with the interval's level first, then the word from the interval and the margin;
    when not resolved, why in numbers. `adjustment` names how a family's p-values were adjusted."""
    metric = metric or METRICS_BY_NAME[row["metric"]]
    head = f"{row['a']} vs {row['b']}: {metric.label}"
    if math.isnan(row["change_pct"]):
        return f"{head}: no finished runs on one side"
    word = verdict_text(row["verdict"], row["equivalence_pct"])
    if math.isnan(row["low_pct"]):
        why = ("one run on a side" if min(row["runs_a"], row["runs_b"]) < 2
               else "some resampled medians are 0 (no ratio)")
        return f"{head} {pct_text(row['change_pct'])}, {why}, no interval: {word} ({unresolved_advice(row)})"
    interval = interval_text(row["low_pct"], row["high_pct"], row.get("confidence_pct"))
    text = f"{head} {pct_text(row['change_pct'])} {interval}, {word}"
    if row.get("role") == NOT_TESTED:
        text += (" (not tested: the primary comparison was not called faster or slower, and the others are "
                 f"tested only after it; {unresolved_advice(row)})")
    elif row["verdict"] == NOT_RESOLVED:
        text += f" ({unresolved_advice(row)})"
    elif row["verdict"] != EQUIVALENT and not _missing(row.get("p_adjusted")):
        text += f" (p {row['p_adjusted']:.2g}{', ' + adjustment if row.get('family_size', 1) > 1 else ''})"
    return text + _method_text(row)


def _method_text(row: dict) -> str:
    """'; primary, declared before the sweep; two-level model, 8 blocks, t on 7.0 df'."""
    parts = ["primary, declared before the sweep"] if row.get("role") == PRIMARY else []
    parts += [row["method"]] if row.get("method") else []
    return f"; {'; '.join(parts)}" if parts else ""


def family_note(frame: pd.DataFrame) -> str:
    """How a family's lines were judged: the estimate and its interval (ratio of medians with a
    bootstrap interval, the two-level model's t interval, or, when some round ran on more than one
    node, the t interval of the mixed model with the node as a random effect), the level and why,
    the p-value correction or the fixed sequence after a declared primary, the margin."""
    rows = frame.to_dict("records")
    if not rows:
        return "no pairs"
    delta = rows[0]["equivalence_pct"]
    modelled = [row for row in rows if _t_tested(row)]
    if modelled and len(modelled) == len(rows):
        what = ("every run unpaired (some round ran on more than one node) in a mixed model with the node as a random "
                "effect" if any(str(row["method"]).startswith(NODE_METHODS) for row in rows)
                else "geometric mean of the blocks' ratios")
        if any(str(row["method"]).startswith(NODE_BLOCKS_METHOD) for row in rows):
            what += " (where its fit was singular, the nodes as fixed blocks: each line says which)"
        interval, tests = "t interval", "t-test p-values"
    elif modelled:
        what, interval, tests = ("the model's estimate or ratio of medians (each line says which)",
                                 "t or bootstrap interval", "p-values")
    else:
        what, interval, tests = "ratio of medians", "bootstrap interval", "rank-test p-values"

    def level_of(part: list[dict], m: int) -> float:
        # the rows' own level: lower than 95% for the looks of a sweep extended by more rounds
        levels = [float(row["confidence_pct"]) for row in part if not _missing(row.get("confidence_pct"))]
        return min(levels) if levels else 100 * family_confidence(m)

    primary = [row for row in rows if row.get("role") == PRIMARY]
    if primary:
        others = [row for row in rows if row.get("role") != PRIMARY]
        m = max(int(row["family_size"]) for row in others) if others else 0
        rest = (f"; the other {m} pairs only after it, {level_of(others, m):.4g}% {interval}s, Bonferroni, "
                f"{tests} Holm-adjusted (a fixed sequence)" if m > 1 else
                "; the other pair only after it (a fixed sequence)" if m == 1 else "")
        family = (f"the primary comparison {primary[0]['a']} vs {primary[0]['b']}, declared before the sweep, first, "
                  f"at {level_of(primary, 1):.4g}% {interval}{rest}")
    else:
        m = max(int(row["family_size"]) for row in rows)
        family = (f"{level_of(rows, m):.4g}% {interval}, Bonferroni for a family of {m} pairs; {tests} "
                  f"Holm-adjusted" if m > 1 else f"{level_of(rows, m):.4g}% {interval}")
    return f"{what}, {family}; equivalent = the interval within ±{delta:g}%"


def _t_tested(row: dict) -> bool:
    """Whether a pair was judged by a model's t-test (the two-level model, or the node as a random
    effect) rather than by the rank tests."""
    return str(row.get("method") or "").startswith((MODEL_METHOD, *NODE_METHODS))


def floor_note(frame: pd.DataFrame) -> str | None:
    """Said when a family's runs leave no room for "faster" or "slower" at all: Holm rejects nothing
    unless the smallest p times the pairs is under alpha, and each pair's exact rank test has a
    floor for the runs it had (pagelab.evidence.families.smallest_p: by rounds when compared round
    by round, else by the runs on each side, which failed runs make unequal). None when some pair
    has room, or with one run a side (its lines say there is no interval)."""
    rows = [row for row in frame.to_dict("records") if min(int(row["runs_a"]), int(row["runs_b"])) >= 2]
    if not rows or any(_t_tested(row) for row in rows):
        return None  # a model's t-test has no floor: a large enough effect is always called
    m = max(int(row["family_size"]) for row in rows)
    floors = [smallest_p(int(row["runs_a"]), int(row["runs_b"]), bool(row["paired"])) for row in rows]
    primary = [f for f, row in zip(floors, rows) if row.get("role") == PRIMARY]
    # each pair at its floor, Holm as judged; after a declared primary, the primary alone opens the rest
    floor = primary[0] if primary else min(holm(floors + [1.0] * (m - len(floors)), CONFIDENCE))
    if floor < 1 - CONFIDENCE:
        return None
    sides = {(int(row["runs_a"]), int(row["runs_b"])) for row in rows}
    n = min(a for a, _ in sides)
    complete = sides == {(n, n)}  # no run failed on any side
    if complete:
        runs = f"{n} rounds" if all(row["paired"] for row in rows) else f"{n} runs a side"
    else:
        runs = "the runs that finished"
    enough = verdict_room(n, m) if complete else None
    remedy = f"; {enough} rounds could" if enough else ""
    over = f" after Holm's adjustment over {m} pairs" if m > 1 else ""
    return (f"with {runs} the exact rank tests cannot reach p < {1 - CONFIDENCE:g}{over} (the smallest "
            f"possible is {floor:.3f}): no pair here can be called faster or slower, however large its effect{remedy}")


def family_text(frame: pd.DataFrame, what: str = "page sizes compared") -> str:
    """The head of a family's lines: what they compare, then `family_note`."""
    return f"{what} ({family_note(frame)}):" if not frame.empty else f"{what}:"


def verdict_lines(table: RunTable, metric: str = "tpmc", resolve_pct: float = DEFAULT_RESOLVE_PCT) -> list[str]:
    pairs = pairwise_table(table, resolve_pct)
    return [verdict_line(row) for row in pairs[pairs["metric"] == metric].to_dict("records")]


# --- on a terminal -----------------------------------------------------------------------------------


def number_text(value: float, decimals: int) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.{decimals}f}"


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


def evidence_text(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT) -> str:
    """What `pagelab stats` prints: medians with intervals, verdicts per pair, runs left out."""
    lines = page_size_text(page_size_table(table))
    if table.looks is not None and table.looks.sequential:
        lines += table.looks.lines()
    pairs = pairwise_table(table, resolve_pct)
    for metric in METRICS:
        part = pairs[pairs["metric"] == metric.name]
        lines.append(family_text(part, f"{metric.label}, page sizes compared"))
        floor = floor_note(part)
        lines += [f"  note: {floor}"] if floor else []
        lines += [f"  {verdict_line(row, metric)}" for row in part.to_dict("records")]
    data = model_data(table)
    lines += components_lines(data.components) + over_time_lines(data.over_time) if data else [
        "No interval series in this bundle's runs: no variance components; the rank tests judged every pair."]
    lines += host_lines(table)
    lines += outlier_lines(table.runs)
    if table.excluded:
        lines.append("Runs left out:")
        lines += [f"  {name}: {why}" for name, why in table.excluded]
    if table.noise:
        lines.append("The machine's noise, measured before the runs (pagelab sweep --noise):")
        lines += [f"  {line}" for line in noise_lines(table.noise)]
    return "\n".join(lines)


def noise_lines(noise: dict) -> list[str]:
    lines = []
    for key, name, unit, decimals in (("disk_read_iops_4k_qd1", "disk, fio 4 KiB random reads QD1", "IOPS", 0),
                                      ("cpu_loop_s", "CPU, a fixed loop", "s", 3)):
        part = noise[key]
        cv = "—" if part["cv_pct"] is None else f"{part['cv_pct']:.1f}%"
        lines.append(f"{name}: median {part['median']:,.{decimals}f} {unit}, coefficient of variation {cv}, "
                     f"range {part['range_pct']:.1f}% of the median, {len(part['values'])} runs")
    return lines
