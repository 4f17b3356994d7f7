"""notebooks/ycsb_page_size.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import servers_under

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO_ROOT / "notebooks" / "ycsb_page_size.ipynb"
KERNEL = "pagelab"
PARAMETER_NAMES = {"backends", "page_sizes", "records", "operations", "workloads", "distribution", "threads", "seed",
                   "buffer_pool", "max_seconds", "out_dir"}


def cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def test_committed_without_outputs_with_parameters_and_time_to_run():
    notebook = cells()
    assert notebook[0]["cell_type"] == "markdown"
    first = "".join(notebook[0]["source"])
    assert "Time to run" in first and "seed 000" in first.lower() and "Prerequisites" in first
    code = [cell for cell in notebook if cell["cell_type"] == "code"]
    assert all(not cell.get("outputs") and not cell.get("execution_count") for cell in code)
    tagged = [cell for cell in code if "parameters" in cell.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0]
    names = {line.split("=")[0].strip() for line in "".join(tagged[0]["source"]).splitlines() if "=" in line}
    assert names == PARAMETER_NAMES
    assert json.loads(NOTEBOOK.read_text())["metadata"]["kernelspec"]["name"] == KERNEL


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> tuple[dict, Path]:
    import papermill
    from jupyter_client.kernelspec import KernelSpecManager

    if KERNEL not in KernelSpecManager().find_kernel_specs():
        pytest.fail(f"the Jupyter kernel {KERNEL!r} is not registered; run `make setup`")
    work = tmp_path_factory.mktemp("ycsb-notebook")
    parameters = dict(backends=["innodb", "prototype"], page_sizes=["16k", "64k"], records=300, operations=300,
                      workloads="abc", threads=2, seed=4, out_dir=str(work / "runs"))
    out = work / "ycsb_page_size.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters=parameters, kernel_name=KERNEL,
                               cwd=str(REPO_ROOT), progress_bar=False, execution_timeout=300)
    return json.loads(out.read_text()), work


def test_the_notebook_runs_and_shows_every_part(executed):
    notebook, work = executed
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert all(cell.get("execution_count") for cell in code)
    errors = [output for cell in code for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert errors == []
    text = json.dumps(notebook)
    for expected in ("seed 000 (OrientDB)", "mixed_50_50", "read_only", "throughput_gain", "p99_latency_gain",
                     "times faster on load", "max key length is 3072 bytes", "seed_orientdb_max_key_bytes"):
        assert expected in text, expected
    assert text.count("image/png") >= 3  # load, throughput and latency plots
    assert not servers_under(work)


def test_the_notebook_shows_the_runs_it_wrote(executed):
    notebook, work = executed
    import pandas as pd

    table = pd.read_csv(work / "runs" / "innodb" / "ycsb.csv")
    assert set(table["page_size"]) == {"16k", "64k"} and set(table["seed"]) == {4}
    read_only = table[(table["workload"] == "read_only") & (table["operation"] == "READ")]
    assert (read_only["operations"] == 300).all()
    assert (work / "runs" / "prototype" / "prototype-64k" / "workloadc.txt").exists()
