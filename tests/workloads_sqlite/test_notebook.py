"""notebooks/sqlite_page_size.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import pytest

from tests.notebook_checks import (check_committed_clean, check_ran_without_errors, execute, internal_labels,
                                  output_count, output_text, table_headers)

NOTEBOOK = "sqlite_page_size.ipynb"
SMALL_PARAMETERS = dict(page_sizes=[4096, 8192], row_counts=[2000], paths=["native", "python"],
                        write_batches=[100, 1000], execute_batch_rows=100, read_batches=[500, 1000], repeats=2,
                        runs=2, min_sample_seconds=0.005, progress=False)


def test_committed_without_outputs_with_parameters_and_time_to_run():
    check_committed_clean(NOTEBOOK, "experiment 053: page size 8192", set(SMALL_PARAMETERS))


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    return execute(NOTEBOOK, tmp_path_factory.mktemp("notebook"), SMALL_PARAMETERS)


def test_the_notebook_runs_without_errors(executed):
    check_ran_without_errors(executed)
    assert not internal_labels(table_headers(executed)), "a table shows an internal name"
    assert output_count(executed, "image/png") == 3  # the timings of each path, and the WAL frames


def test_the_notebook_shows_both_paths_beside_the_experiment(executed):
    text = output_text(executed)
    assert "Select maps 2000 rows" in text and "Batched write tx (executeBatch)" in text
    assert "What SQLite's pages do (native C):" in text and "What a Python user sees (Python's sqlite3):" in text
    assert text.count("2 repeats × 2 runs vs baseline 4096") >= 2  # a summary line per path
    assert " faster, " in text and " not resolved" in text and "equivalent within ±" in text
    # every table under words (pagelab.report.labels), the experiment's numbers named as its
    assert "baseline (ms), the experiment" in text and "5.57" in text and "verdict, ours" in text
    assert "what ours says of the experiment" in text
    assert "median delta [CI]" in text and "interval low (ms)" in text
    assert "native share (%)" in text and "python adds (µs per row)" in text
    assert "pages per level" in text and "dbstat" in text and "leaf pages" in text and "native (ms)" in text
    assert "average WAL frames" in text and "leaves filled" in text
    assert "page size header" in text and "page size native" in text
