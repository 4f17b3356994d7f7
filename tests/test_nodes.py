"""What the nodes did (pagelab.evidence.nodes), on run tables laid out as a two-node Slurm sweep lays
them out: a round per node, the rounds alternating. The nodes' speeds, the effect per node, the
node x page size test both ways, a round that spans nodes, and each node's own noise."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pagelab.evidence.nodes import node_lines, node_summary
from pagelab.evidence.tables import RunTable

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
    assert node_lines(summary)[-1].startswith("Round 3 ran on more than one node: its runs are compared unpaired, "
                                              "not as a block; over all runs with the node as a random effect "
                                              "(MixedLM), 16k vs 4k −")


def test_one_node_has_no_section():
    table = two_node_table(4, 1.0, {"node-a": 1.0, "node-b": 1.0})
    table.runs["host"] = "vm"
    assert node_summary(table) is None and node_lines(None) == []
