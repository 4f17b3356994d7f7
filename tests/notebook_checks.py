"""What every notebook test checks: the notebook is committed clean and in the cookbook shape, and
it executes under papermill with the project's kernel (small parameters, real parts)."""

from __future__ import annotations

import html
import json
import re
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


# What a reader must not meet as a label: a snake_case name (a tidy table's column, `seed_hops`) or
# the project's own word for its references ("seed"; "random seed" is a word of the trade). The
# server's own settings (`innodb_page_size`) are names a reader looks up, and may be shown.
_INTERNAL = re.compile(r"(?<![\w-])(?!innodb_)[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])|(?<!random )\bseeds?\b",
                       re.IGNORECASE)


def internal_labels(labels) -> list[str]:
    """The labels among `labels` that are internal names, each once."""
    return sorted({label.strip() for label in labels if _INTERNAL.search(label.strip())})


def table_headers(executed: dict) -> list[str]:
    """Every header cell of every HTML table the executed notebook shows: column labels, the
    index's name and each row's label."""
    cells = []
    for cell in code_cells(executed):
        for output in cell.get("outputs", []):
            shown = "".join(output.get("data", {}).get("text/html", ""))
            cells += [html.unescape(re.sub(r"<[^>]+>", "", found))
                      for found in re.findall(r"<th\b[^>]*>(.*?)</th>", shown, re.S)]
    return [text for text in cells if text.strip()]


def figure_texts(figure) -> list[str]:
    """Every text a matplotlib figure draws: titles, axis labels, tick labels, legend titles and entries."""
    from matplotlib.text import Text

    return [text.get_text() for text in figure.findobj(Text) if text.get_text()]
