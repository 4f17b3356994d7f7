"""notebooks/sqlite_page_size.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import pytest

from tests.notebook_checks import check_committed_clean, check_ran_without_errors, execute, output_count, output_text

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
    assert output_count(executed, "image/png") == 3  # the timings of each path, and the WAL frames


def test_the_notebook_shows_both_paths_beside_the_seed(executed):
    text = output_text(executed)
    assert "Select maps 2000 rows" in text and "Batched write tx (executeBatch)" in text
    assert "What SQLite's pages do (native C):" in text and "What a Python user sees (Python's sqlite3):" in text
    assert text.count("2 repeats × 2 runs vs baseline 4096") >= 2  # a summary line per path
    assert " faster, " in text and " not resolved" in text and "equivalent within ±" in text
    assert "seed_baseline_ms" in text and "5.57" in text and "our_verdict" in text and "seed_check" in text
    assert "median delta [CI]" in text and "ci_low_ms" in text
    assert "native_share_pct" in text and "python_adds_us_per_row" in text
    assert "pages_per_level" in text and "dbstat" in text and "leaf_pages" in text and "native_ms" in text
    assert "wal_frames_avg" in text and "leaves_filled" in text
    assert "page_size_header" in text and "page_size_native" in text
