"""notebooks/random_write_cost.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagelab.workloads.random_writes import run_random_write_cost

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO_ROOT / "notebooks" / "random_write_cost.ipynb"
KERNEL = "pagelab"
SMALL_PARAMETERS = dict(page_sizes=[4096, 16384], transactions=200, items_per_transaction=20, seed=3, sqlite=True,
                        workers=1)


def cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def test_committed_without_outputs_with_parameters_and_time_to_run():
    notebook = cells()
    assert notebook[0]["cell_type"] == "markdown"
    first = "".join(notebook[0]["source"])
    assert "Time to run" in first and "seed 004" in first.lower()
    code = [cell for cell in notebook if cell["cell_type"] == "code"]
    assert all(not cell.get("outputs") and not cell.get("execution_count") for cell in code)
    tagged = [cell for cell in code if "parameters" in cell.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1
    names = {line.split("=")[0].strip() for line in "".join(tagged[0]["source"]).splitlines() if "=" in line}
    assert names == set(SMALL_PARAMETERS)


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    papermill = pytest.importorskip("papermill")
    from jupyter_client.kernelspec import KernelSpecManager

    if KERNEL not in KernelSpecManager().find_kernel_specs():
        pytest.fail(f"the Jupyter kernel {KERNEL!r} is not registered; run `make setup`")
    out = tmp_path_factory.mktemp("notebook") / "random_write_cost.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters=SMALL_PARAMETERS, kernel_name=KERNEL,
                               cwd=str(REPO_ROOT), progress_bar=False, execution_timeout=300)
    return json.loads(out.read_text())


def test_the_notebook_runs_without_errors(executed):
    code = [cell for cell in executed["cells"] if cell["cell_type"] == "code"]
    assert all(cell.get("execution_count") for cell in code)
    errors = [output for cell in code for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert errors == []
    text = json.dumps(executed)
    assert "seed (Voron) random" in text and "sqlite random" in text
    assert "image/png" in text  # the plots were drawn


def test_the_notebook_shows_what_the_function_returns(executed):
    expected = run_random_write_cost(page_sizes=(4096,), transactions=200, items_per_transaction=20, seed=3,
                                     key_order="random", workers=1)
    total = f"{int(expected['pages_total'].iloc[0])}"
    text = json.dumps(executed)
    assert total in text
