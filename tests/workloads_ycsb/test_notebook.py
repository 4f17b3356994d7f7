"""notebooks/ycsb_page_size.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import pytest

from tests.conftest import servers_under
from tests.notebook_checks import (check_committed_clean, check_ran_without_errors, execute, internal_labels,
                                  output_count, output_text, table_headers)

NOTEBOOK = "ycsb_page_size.ipynb"
PARAMETER_NAMES = {"backends", "page_sizes", "records", "operations", "workloads", "distribution", "threads", "seed",
                   "buffer_pool", "max_seconds", "out_dir"}


def test_committed_without_outputs_with_parameters_and_time_to_run():
    check_committed_clean(NOTEBOOK, "[oep 9] use 16k pages", PARAMETER_NAMES)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    work = tmp_path_factory.mktemp("ycsb-notebook")
    parameters = dict(backends=["innodb", "prototype"], page_sizes=["16k", "64k"], records=300, operations=300,
                      workloads="abc", threads=2, seed=4, out_dir=str(work / "runs"))
    return execute(NOTEBOOK, work, parameters), work


def test_the_notebook_runs_and_shows_every_part(executed):
    notebook, work = executed
    check_ran_without_errors(notebook)
    assert not internal_labels(table_headers(notebook)), "a table shows an internal name"
    text = output_text(notebook)
    for expected in ("OrientDB's proposal", "mixed_50_50", "read_only", "throughput gain", "p99 latency gain",
                     "times faster on load", "max key length is 3072 bytes", "OrientDB max key (bytes), the proposal",
                     "load time s"):  # the last: the throughput table beside the proposal's
        assert expected in text, expected
    assert output_count(notebook, "image/png") >= 3  # load, throughput and latency plots
    assert not servers_under(work)


def test_the_notebook_shows_the_runs_it_wrote(executed):
    notebook, work = executed
    import pandas as pd

    table = pd.read_csv(work / "runs" / "innodb" / "ycsb.csv")
    assert set(table["page_size"]) == {"16k", "64k"} and set(table["seed"]) == {4}
    read_only = table[(table["workload"] == "read_only") & (table["operation"] == "READ")]
    assert (read_only["operations"] == 300).all()
    assert (work / "runs" / "prototype" / "prototype-64k" / "workloadc.txt").exists()
