"""notebooks/sqlite_page_size.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import json
from pathlib import Path

import papermill
import pytest
from jupyter_client.kernelspec import KernelSpecManager

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO_ROOT / "notebooks" / "sqlite_page_size.ipynb"
KERNEL = "pagelab"
SMALL_PARAMETERS = dict(page_sizes=[4096, 8192], rows=2000, write_batches=[100, 1000], execute_batch_rows=100,
                        read_batches=[500, 1000], repeats=2, runs=1, min_sample_seconds=0.005, progress=False)


def cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def test_committed_without_outputs_with_parameters_and_time_to_run():
    notebook = cells()
    assert notebook[0]["cell_type"] == "markdown"
    first = "".join(notebook[0]["source"])
    assert "Time to run" in first and "seed 001" in first.lower() and "Prerequisites" in first
    code = [cell for cell in notebook if cell["cell_type"] == "code"]
    assert all(not cell.get("outputs") and not cell.get("execution_count") for cell in code)
    tagged = [cell for cell in code if "parameters" in cell.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0]
    names = {line.split("=")[0].strip() for line in "".join(tagged[0]["source"]).splitlines() if "=" in line}
    assert names == set(SMALL_PARAMETERS)
    assert json.loads(NOTEBOOK.read_text())["metadata"]["kernelspec"]["name"] == KERNEL


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    if KERNEL not in KernelSpecManager().find_kernel_specs():
        pytest.fail(f"the Jupyter kernel {KERNEL!r} is not registered; run `make setup`")
    out = tmp_path_factory.mktemp("notebook") / "sqlite_page_size.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters=SMALL_PARAMETERS, kernel_name=KERNEL,
                               cwd=str(REPO_ROOT), progress_bar=False, execution_timeout=300)
    return json.loads(out.read_text())


def test_the_notebook_runs_without_errors(executed):
    code = [cell for cell in executed["cells"] if cell["cell_type"] == "code"]
    assert all(cell.get("execution_count") for cell in code)
    errors = [output for cell in code for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert errors == []
    text = json.dumps(executed, ensure_ascii=False)
    assert text.count("image/png") >= 3  # the timings plots (means, fastest) and the WAL plot were drawn


def test_the_notebook_shows_the_tables(executed):
    text = json.dumps(executed, ensure_ascii=False)
    assert "Select maps 2000 rows" in text and "Batched write tx (executeBatch)" in text
    assert "8192: " in text and " regression" in text  # the summary line
    assert "2 repeats × 1 run vs baseline 4096" in text
    assert "seed_baseline_ms" in text and "5.57" in text and "our_verdict" in text  # the seed beside ours
    assert "pages_per_level" in text and "dbstat" in text
    assert "wal_frames_avg" in text and "leaves_filled" in text
    assert "page_size_header" in text
