"""What the nodes did (pagelab.evidence.nodes), on run tables laid out as a two-node Slurm sweep lays
them out: a round per node, the rounds alternating. The nodes' speeds, the effect per node, the
node x page size test both ways, a round that spans nodes, and each node's own noise. Then the
verdicts of a bundle whose rounds span nodes: judged unpaired with the node as a random effect
(pagelab.evidence.node_model), on synthetic runs whose layout would fool an unpaired rank test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pagelab.evidence.intervals import FASTER, SLOWER, compare
from pagelab.evidence.node_model import NODE_BLOCKS_METHOD, NODE_MODEL_METHOD, node_effect
from pagelab.evidence.nodes import node_lines, node_summary
from pagelab.evidence.runs import METRICS_BY_NAME, RunTable
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.wording import family_note, verdict_line

NOISE = {"disk_read_iops_4k_qd1": {"values": [900.0, 1000.0, 1100.0], "median": 1000.0, "cv_pct": 10.0,
                                   "range_pct": 20.0},
         "cpu_loop_s": {"values": [1.0, 1.1, 1.2], "median": 1.1, "cv_pct": 9.1, "range_pct": 18.2}, "host": "node-b"}


def two_node_table(rounds: int, node_b_speed: float, effect_16k: dict, spread: float = 0.01,
                   seed: int = 3) -> RunTable:
    """Round r on node-a (odd) or node-b (even); `effect_16k`: 16k's factor on each node."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(1, rounds + 1):
        node = "node-a" if r % 2 else "node-b"
        level = 1000 * (node_b_speed if node == "node-b" else 1.0) * np.exp(rng.normal(0, spread))
        for size, factor in (("4k", 1.0), ("8k", 1.0), ("16k", effect_16k[node])):
            rows.append({"run": f"{size}-r{r}", "page_size": size, "repeat": r, "host": node, "block": f"round {r}",
                         "tpmc": level * factor * np.exp(rng.normal(0, spread))})
    return RunTable(pd.DataFrame(rows), [], {}, ["4k", "8k", "16k"], host_noise={"node-b": NOISE})


def test_nodes_that_differ_in_speed_alone_are_said_to_share_the_effect():
    summary = node_summary(two_node_table(8, 1.12, {"node-a": 0.95, "node-b": 0.95}))
    assert [row["node"] for row in summary["nodes"]] == ["node-a", "node-b"]
    assert 9 < summary["speed_spread_pct"] < 15
    assert summary["interaction"]["p"] > 0.05 and summary["interaction"]["blocks"] == "rounds within nodes"
    for row in summary["nodes"]:
        assert row["low"] < row["ratio"] < row["high"] and abs(row["ratio"] - 0.95) < 0.03
    lines = node_lines(summary)
    assert lines[0].startswith(f"The nodes differ in speed by {summary['speed_spread_pct']:.0f}%, and the page-size "
                               "effect does not detectably: node × page size on log TpmC, F(2, ")
    assert "OLS F test, statsmodels" in lines[0]
    assert any(line.startswith("  node-b: level ") and "(the fastest)" in line for line in lines)
    # node-b measured its own noise (--noise on Slurm); node-a did not
    assert any(line.startswith("    noise: disk, fio 4 KiB random reads QD1: median 1,000 IOPS") for line in lines)
    assert sum("noise:" in line for line in lines) == 2


def test_an_effect_that_differs_between_nodes_is_found():
    summary = node_summary(two_node_table(8, 1.0, {"node-a": 0.90, "node-b": 1.05}))
    assert summary["interaction"]["p"] < 0.01
    assert "and the page-size effect differs between them too" in node_lines(summary)[0]


def test_a_round_on_two_nodes_is_no_block_and_the_node_a_random_effect():
    table = two_node_table(8, 1.1, {"node-a": 0.95, "node-b": 0.95})
    split = (table.runs["repeat"] == 3) & (table.runs["page_size"] == "4k")
    table.runs.loc[split, "host"] = "node-b"
    table.runs.loc[split, "block"] = "4k-r3 alone (round 3 ran on several nodes)"
    summary = node_summary(table)
    assert summary["split_rounds"] == [3] and summary["interaction"]["blocks"] == "nodes"
    found = summary["random_effect"]
    assert found["low"] < found["ratio"] < found["high"] and abs(found["ratio"] - 0.95) < 0.03
    # 16 runs of 16k and 4k on 2 nodes: 16 - 2 - 1 degrees of freedom
    assert found["dof"] == 13
    line = node_lines(summary)[-1]
    assert line.startswith("Round 3 ran on more than one node: its runs are no block, so every run is compared "
                           "unpaired, and TpmC's pairs are judged by a mixed model with the node as a random effect "
                           "(MixedLM): 16k vs 4k −"), line
    assert line.endswith("at 95%, t on 13 df."), line


def test_one_node_has_no_section():
    table = two_node_table(4, 1.0, {"node-a": 1.0, "node-b": 1.0})
    table.runs["host"] = "vm"
    assert node_summary(table) is None and node_lines(None) == []


def scattered_table(effect_16k: float, seed: int = 5) -> RunTable:
    """As a bundle from before rounds were Slurm tasks lays its runs out: 8 rounds, each run on
    whichever node was free, so no round is a block. node-b is 10% faster than node-a and took 16k
    in 7 of the 8 rounds, 4k in 1: unpaired runs taken as they come would credit 16k with node-b's
    speed. `effect_16k`: 16k's true factor on both nodes."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(1, 9):
        for size, factor in (("4k", 1.0), ("8k", 1.0), ("16k", effect_16k)):
            node = {"4k": "node-b" if r == 1 else "node-a", "8k": "node-a" if r % 2 else "node-b",
                    "16k": "node-b" if r <= 7 else "node-a"}[size]
            speed = 1.10 if node == "node-b" else 1.0
            rows.append({"run": f"{size}-r{r}", "page_size": size, "repeat": r, "host": node,
                         "block": f"{size}-r{r} alone (round {r} ran on several nodes)",
                         "tpmc": 1000 * speed * factor * np.exp(rng.normal(0, 0.02))})
    return RunTable(pd.DataFrame(rows), [], {}, ["4k", "8k", "16k"])


def tpmc_pairs(table: RunTable) -> dict:
    found = pairwise_table(table, metrics=(METRICS_BY_NAME["tpmc"],))
    return {(row["a"], row["b"]): row for row in found.to_dict("records")}


def test_a_bundle_whose_rounds_span_nodes_is_judged_with_the_node_as_a_random_effect():
    table = scattered_table(1.0)
    sixteen, four = (table.runs[table.runs["page_size"] == size]["tpmc"].tolist() for size in ("16k", "4k"))
    # the trap is real: the same runs, unpaired, without the node, call 16k faster
    assert compare(sixteen, four).verdict == FASTER
    pairs = tpmc_pairs(table)
    row = pairs["16k", "4k"]
    assert row["verdict"] not in (FASTER, SLOWER) and row["low_pct"] < 0 < row["high_pct"], row
    assert abs(row["change_pct"]) < 3 and not row["paired"]
    # 8 + 8 runs on 2 nodes: 16 - 2 - 1 degrees of freedom
    assert row["method"] == f"{NODE_MODEL_METHOD}, 8+8 runs on 2 nodes, t on 13 df"
    assert verdict_line(row).endswith(f"; {NODE_MODEL_METHOD}, 8+8 runs on 2 nodes, t on 13 df")
    assert all(found["method"].startswith(NODE_MODEL_METHOD) for found in pairs.values())
    assert family_note(pd.DataFrame(pairs.values())).startswith(
        "every run unpaired (some round ran on more than one node) in a mixed model with the node as a random "
        "effect, ")


def test_a_true_effect_is_found_through_the_node_model():
    row = tpmc_pairs(scattered_table(0.85))["16k", "4k"]
    assert row["verdict"] == SLOWER and row["low_pct"] < -15 < row["high_pct"], row
    assert row["method"].startswith(NODE_MODEL_METHOD)


# 3 + 3 runs of a tiny sweep on 2 nodes, round 3 split over them, for which REML's node variance
# lands near 0 and statsmodels' MixedLM gives the effect a NaN standard error (found by drawing
# such bundles: about 1 pair in 50 does this).
SINGULAR_RUNS = [("node-a", "4k", 6863.3), ("node-a", "8k", 10565.5), ("node-b", "4k", 8089.7),
                 ("node-b", "8k", 4889.6), ("node-b", "4k", 10436.9), ("node-a", "8k", 9180.8)]


def test_a_singular_mixed_model_fit_gives_way_to_the_nodes_as_fixed_blocks():
    runs = pd.DataFrame(SINGULAR_RUNS, columns=["host", "page_size", "tpmc"])
    effect = node_effect(runs, "tpmc", "8k", "4k")
    assert effect is not None and effect.method == NODE_BLOCKS_METHOD
    # least squares on [1, is 8k, is node-b], worked out with numpy alone
    design = np.column_stack([np.ones(6), runs["page_size"] == "8k", runs["host"] == "node-b"]).astype(float)
    y = np.log(runs["tpmc"].to_numpy())
    beta, residual, *_ = np.linalg.lstsq(design, y, rcond=None)
    scale = float(residual[0]) / (6 - 3)
    se = math.sqrt(scale * np.linalg.inv(design.T @ design)[1, 1])
    assert math.isclose(effect.delta, beta[1], rel_tol=1e-9) and math.isclose(effect.se, se, rel_tol=1e-9)
    assert effect.dof == 6 - 2 - 1
    assert effect.comparison().method == f"{NODE_BLOCKS_METHOD}, 3+3 runs on 2 nodes, t on 3 df"


def test_rounds_within_one_node_keep_their_pairing():
    pairs = tpmc_pairs(two_node_table(8, 1.1, {"node-a": 0.95, "node-b": 0.95}))
    assert {row["method"] for row in pairs.values()} == {"exact Wilcoxon signed-rank, 8 rounds"}


def test_the_report_says_the_node_was_a_random_effect():
    from types import SimpleNamespace

    from pagelab.report.host_report import nodes_markdown
    from pagelab.report.model_details import model_sentences

    scattered = SimpleNamespace(evidence=scattered_table(1.0))
    method = model_sentences(scattered)
    assert method.strip().startswith("**The node model.** Rounds 1, 2, 3, 4, 5, 6, 7, 8 ran on more than one node, so no round pairs the "
                                     "runs alike: TpmC's pairs are judged from every run of the two page sizes, "
                                     "unpaired, by a mixed model of log TpmC with the node as a random intercept"), method
    section = nodes_markdown(scattered)
    assert "Some round ran on more than one node" in section and "Each round ran on one node" not in section
    blocked = SimpleNamespace(evidence=two_node_table(8, 1.1, {"node-a": 0.95, "node-b": 0.95}))
    assert "Each round ran on one node" in nodes_markdown(blocked)
    assert "random intercept" not in model_sentences(blocked)
