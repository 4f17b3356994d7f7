"""What every notebook test checks: the notebook is committed clean and in the cookbook shape, and
it executes under papermill with the project's kernel (small parameters, real parts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pagelab.report.execute import KERNEL_NAME as KERNEL
from pagelab.report.execute import execute_notebook

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


def notebook_cells(name: str) -> list[dict]:
    return json.loads((NOTEBOOKS_DIR / name).read_text())["cells"]


def check_committed_clean(name: str, seed_label: str, parameter_names: set[str] | None = None) -> None:
    """No outputs or execution counts; a first markdown cell naming the seed, prerequisites and
    time to run; one `parameters` cell, the first code cell (with exactly these names if given);
    the `pagelab` kernel."""
    notebook = json.loads((NOTEBOOKS_DIR / name).read_text())
    cells = notebook["cells"]
    assert cells[0]["cell_type"] == "markdown"
    first = "".join(cells[0]["source"])
    assert "Time to run" in first and "Prerequisites" in first and seed_label in first.lower()
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert all(not cell.get("outputs") and not cell.get("execution_count") for cell in code)
    tagged = [cell for cell in code if "parameters" in cell.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0]
    if parameter_names is not None:
        names = {line.split("=")[0].strip() for line in "".join(tagged[0]["source"]).splitlines()
                 if "=" in line and not line.lstrip().startswith("#")}  # fmt: skip
        assert names == parameter_names
    assert notebook["metadata"]["kernelspec"]["name"] == KERNEL


def execute(name: str, out_dir: Path, parameters: dict[str, Any], timeout_s: int = 300) -> dict:
    """Run the notebook with papermill into out_dir and return the executed notebook; fails (never
    skips) when the kernel is not registered. A cell that raises fails here, naming the cell."""
    from jupyter_client.kernelspec import KernelSpecManager

    if KERNEL not in KernelSpecManager().find_kernel_specs():
        pytest.fail(f"the Jupyter kernel {KERNEL!r} is not registered; run `make setup`")
    out = Path(out_dir) / name
    execute_notebook(NOTEBOOKS_DIR / name, out, parameters=parameters, cwd=REPO_ROOT, execution_timeout=timeout_s)
    return json.loads(out.read_text())


def code_cells(executed: dict) -> list[dict]:
    return [cell for cell in executed["cells"] if cell["cell_type"] == "code"]


def check_ran_without_errors(executed: dict) -> None:
    code = code_cells(executed)
    assert all(cell.get("execution_count") for cell in code)
    errors = [output for cell in code for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert errors == []


def output_text(executed: dict) -> str:
    """Everything the executed notebook shows as text (streams, text/plain and text/html results),
    and nothing of its sources: a check on this fails when an output goes missing, even if the
    code that should print it is still there."""
    parts = []
    for cell in code_cells(executed):
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            data = output.get("data", {})
            for mime in ("text/plain", "text/html", "text/markdown"):
                parts.append("".join(data.get(mime, "")))
    return "\n".join(parts)


def output_count(executed: dict, mime: str) -> int:
    """How many outputs carry `mime` (e.g. image/png for a drawn figure)."""
    return sum(mime in output.get("data", {}) for cell in code_cells(executed) for output in cell.get("outputs", []))
