"""Our YCSB ratios carry only the words pagelab.evidence gives them; the seed keeps its own."""

from __future__ import annotations

import pandas as pd

from pagelab.workloads.ycsb import report


def _ours(copies: int) -> pd.DataFrame:
    """The seed's numbers posing as our runs (backend innodb), `copies` runs per page size."""
    runs = report.seed_table().drop(columns="source").assign(backend="innodb")
    return pd.concat([runs.assign(throughput_ops_s=runs["throughput_ops_s"] * (1 + k / 1000)) for k in range(copies)])


def test_one_run_a_side_is_never_called_improved():
    gains = report.performance_gain(_ours(1))
    ours = " ".join(report.gain_sentences(gains, "innodb"))
    assert "improved" not in ours and "worse" not in ours
    assert "read throughput ×1.91 at 16k: not resolved (1 run a side)" in ours, ours
    seed = " ".join(report.gain_sentences(gains, report.SEED_SOURCE))
    assert "read throughput is improved at 1.91 times" in seed  # the seed's claim, in its words


def test_enough_runs_give_the_evidence_word():
    gains = report.performance_gain(_ours(6))
    row = gains[(gains["source"] == "innodb") & (gains["operation"] == "READ")].iloc[0]
    assert row["throughput_verdict"].startswith(("higher", "lower")) and "(6 runs a side)" in row["throughput_verdict"]
