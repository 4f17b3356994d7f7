"""What the nodes of a sweep spread over several of them did (`pagelab stats`, the report's node
section): each node's level, the primary effect on each node with its interval, and a test that
the page-size effect is the same on every node.

Nodes of one cluster differ (Maricq et al., "Taming Performance Variability", OSDI 2018), so a
sweep over nodes blocks on them: each round runs on one node (pagelab.sweep.slurm), its runs are
compared within it (the run table's `block`, pagelab.bundle.with_blocks), and a node's speed
cancels out of every paired comparison. What remains to ask is whether the page-size effect
itself depends on the node:

- a node's level: the median of the reference page size's runs on it (the primary pair's second
  page size), and the nodes' spread as the fastest level over the slowest;
- the primary effect per node: that node's runs compared as any pair is (`compare_rounds`: round
  by round where enough rounds ran there, else run by run), with its 95% interval;
- the interaction: ordinary least squares on log(metric) with the blocks (rounds within nodes; the
  node itself where some round spans nodes), the page size, and node x page size, against the same
  model without node x page size, by the F test for nested linear models
  (statsmodels `RegressionResults.compare_f_test`; Montgomery, "Design and Analysis of
  Experiments", 8th ed., ch. 5 and 14, nested and blocked factors). A small p says the page-size
  effect differs between nodes;
- a round whose runs span nodes is no block: the bundle's TpmC pairs are then judged unpaired,
  with the node as a random effect (pagelab.evidence.node_model, statsmodels MixedLM), and the
  section says so, with the primary effect from that model.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from pagelab.evidence.intervals import CONFIDENCE, compare_rounds
from pagelab.evidence.node_model import node_effect, split_rounds
from pagelab.evidence.runs import METRICS_BY_NAME, UNRECORDED_HOST, RunTable, _values_by_block
from pagelab.evidence.wording import pct_text
from pagelab.evidence.stats_text import noise_lines

# The interaction is called at this level, like every single test here.
ALPHA = 0.05


def primary_pair(table: RunTable) -> tuple[str, str]:
    """(page size, reference page size) of the primary comparison: the profile's declared one
    ("16k vs 4k") when it has one, else the largest page size against the smallest."""
    declared = str(table.profile.get("primary") or "")
    if " vs " in declared:
        first, second = (part.strip() for part in declared.split(" vs ", 1))
        if first in table.page_order and second in table.page_order:
            return first, second
    return table.page_order[-1], table.page_order[0]


def interaction_test(runs: pd.DataFrame, metric: str, blocked: bool) -> dict | None:
    """F test of node x page size on log(metric), with the blocks (rounds within nodes; the nodes
    when some round spans nodes, `blocked` False) and the page size in both models; None when the
    data leave it no residual degrees of freedom."""
    import statsmodels.formula.api as smf

    data = runs[["host", "page_size", "block", metric]].dropna(subset=[metric]).copy()
    data = data[data[metric] > 0]
    if data["host"].nunique() < 2 or data["page_size"].nunique() < 2:
        return None
    data["y"] = np.log(data[metric])
    base = "y ~ C(block) + C(page_size)" if blocked else "y ~ C(host) + C(page_size)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reduced = smf.ols(base, data).fit()
        full = smf.ols(base + " + C(page_size):C(host)", data).fit()
        if full.df_resid < 1 or full.df_model <= reduced.df_model:
            return None
        f_value, p_value, df_diff = full.compare_f_test(reduced)
    return {"f": float(f_value), "p": float(p_value), "df_num": int(df_diff), "df_den": int(full.df_resid),
            "blocks": "rounds within nodes" if blocked else "nodes"}


def node_summary(table: RunTable, metric: str = "tpmc") -> dict | None:
    """The node section's numbers; None for a sweep on one node (or from before hosts were recorded)."""
    runs = table.runs
    if runs.empty or len(table.page_order) < 2:
        return None
    nodes = sorted(set(runs["host"]) - {UNRECORDED_HOST})
    if len(nodes) < 2:
        return None
    if "block" not in runs:
        runs = runs.assign(block=runs["repeat"].map(lambda repeat: f"round {repeat}"))
    page_size, reference = primary_pair(table)
    per_node = []
    for node in nodes:
        mine = runs[runs["host"] == node]
        level = mine.loc[mine["page_size"] == reference, metric].dropna()
        found = compare_rounds(_values_by_block(mine, page_size, metric), _values_by_block(mine, reference, metric))
        ranged = found.n_a >= 2 and found.n_b >= 2 and math.isfinite(found.low)
        per_node.append({"node": node, "reference_runs": int(level.size),
                         "level": float(np.median(level)) if level.size else math.nan,
                         "rounds": int(mine["repeat"].nunique()), "ratio": found.ratio,
                         "low": found.low if ranged else math.nan, "high": found.high if ranged else math.nan,
                         "paired": found.paired, "noise": table_host_noise(table, node)})
    levels = [row["level"] for row in per_node if math.isfinite(row["level"])]
    spread = 100 * (max(levels) / min(levels) - 1) if len(levels) >= 2 and min(levels) > 0 else math.nan
    split = split_rounds(runs)
    return {"metric": metric, "page_size": page_size, "reference": reference, "nodes": per_node,
            "speed_spread_pct": spread, "interaction": interaction_test(runs, metric, not split), "split_rounds": split,
            "random_effect": random_effect(runs, metric, page_size, reference) if split else None}


def random_effect(runs: pd.DataFrame, metric: str, page_size: str, reference: str) -> dict | None:
    """The primary effect over all runs with the node as a random effect (the model TpmC's pairs
    are judged by when a round spans nodes), as a ratio with its 95% interval and degrees of
    freedom; None when the model cannot be fitted."""
    found = node_effect(runs, metric, page_size, reference)
    if found is None:
        return None
    low, high = found.interval(CONFIDENCE)
    return {"ratio": math.exp(found.delta), "low": math.exp(low), "high": math.exp(high), "dof": found.dof}


def table_host_noise(table: RunTable, node: str) -> dict | None:
    """The node's own noise figures (`pagelab sweep --noise`), if they were measured."""
    if node in table.host_noise:
        return table.host_noise[node]
    if table.noise and table.noise.get("host") == node:
        return table.noise
    return None


def node_lines(summary: dict | None) -> list[str]:
    """The node section as lines: the sentence a reader needs first, then a line per node."""
    if summary is None:
        return []
    page_size, reference = summary["page_size"], summary["reference"]
    test = summary["interaction"]
    spread = summary["speed_spread_pct"]
    speed = (f"The nodes differ in speed by {spread:.0f}%" if math.isfinite(spread)
             else "The nodes' speeds cannot be compared (a node ran no reference run)")
    if test is None:
        effect = "too few runs per node to test whether the page-size effect differs between them"
    elif test["p"] < ALPHA:
        effect = "the page-size effect differs between them too"
    else:
        effect = "the page-size effect does not detectably"
    label = METRICS_BY_NAME[summary["metric"]].label
    how = ("" if test is None else
           f": node × page size on log {label}, F({test['df_num']}, {test['df_den']}) = {test['f']:.2f}, "
           f"p = {test['p']:.2g} (blocks: {test['blocks']}; OLS F test, statsmodels)")
    lines = [f"{speed}, and {effect}{how}.",
             f"Per node: {reference}'s median as its level, and {page_size} against {reference} on that node "
             "alone, with its 95% interval:"]
    fastest = max((row["level"] for row in summary["nodes"] if math.isfinite(row["level"])), default=math.nan)
    for row in summary["nodes"]:
        level = ("no run" if not math.isfinite(row["level"]) else f"{row['level']:,.0f} (the fastest)"
                 if row["level"] == fastest else f"{row['level']:,.0f} ({pct_text(100 * (row['level'] / fastest - 1))})")
        interval = (f"[{pct_text(100 * (row['low'] - 1))}, {pct_text(100 * (row['high'] - 1))}]"
                    if math.isfinite(row["low"]) else "(too few runs for an interval)")
        effect = pct_text(100 * (row["ratio"] - 1)) if math.isfinite(row["ratio"]) else "—"
        lines.append(f"  {row['node']}: level {level}; {page_size} vs {reference} {effect} {interval}, "
                     f"{row['rounds']} round{'s' if row['rounds'] != 1 else ''}"
                     f"{' compared round by round' if row['paired'] else ''}")
        if row["noise"]:
            lines += [f"    noise: {line}" for line in noise_lines(row["noise"])]
    if summary["split_rounds"]:
        rounds = ", ".join(str(number) for number in summary["split_rounds"])
        found = summary["random_effect"]
        how = ("" if found is None else
               f": {page_size} vs {reference} {pct_text(100 * (found['ratio'] - 1))} "
               f"[{pct_text(100 * (found['low'] - 1))}, {pct_text(100 * (found['high'] - 1))}] at "
               f"{100 * CONFIDENCE:g}%, t on {found['dof']} df")
        lines.append(f"Round{'s' if len(summary['split_rounds']) > 1 else ''} {rounds} ran on more than one node: "
                     f"{'their' if len(summary['split_rounds']) > 1 else 'its'} runs are no block, so every run is "
                     f"compared unpaired, and {label}'s pairs are judged by a mixed model with the node as a random "
                     f"effect (MixedLM){how}.")
    return lines
