"""`pagelab report NOTEBOOK.ipynb -p NAME VALUE`: any of the project's notebooks, executed and printed.

The notebook is executed with papermill (its `parameters` cell takes the -p values) into
reports/<stem>-<time>/<stem>.ipynb (or beside --pdf), then printed without code cells to
<stem>.pdf beside it, so
every experiment, not only the page-size sweep, has a PDF a reader can hand in. Parameter
values are read as YAML, as papermill's own -y does: `-p rows 100000` is an integer,
`-p page_sizes "[4096, 8192]"` a list, anything else text.
"""

from __future__ import annotations

import time
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.common.paths import PROJECT_ROOT, REPORTS_DIR


def _parameter_value(text: str):
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def notebook_parameters(notebook: Path) -> set[str]:
    """The names the notebook's `parameters` cell assigns."""
    import ast

    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    names: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def checked_parameters(notebook: Path, parameters: list[list[str]]) -> dict:
    """`parameters` ([[name, value], ...]) as the values papermill passes, after checking that the
    notebook exists and has a parameter of each name; UsageError naming the notebook's parameters."""
    if not Path(notebook).is_file():
        raise UsageError(f"{notebook}: no such notebook; the project's are in notebooks/")
    known = notebook_parameters(Path(notebook))
    values = {name: _parameter_value(value) for name, value in parameters}
    unknown = sorted(set(values) - known)
    if unknown:
        raise UsageError(f"{Path(notebook).name} has no parameter {', '.join(unknown)}; "
                         f"its parameters: {', '.join(sorted(known)) or 'none'}")
    return values


def report_notebook(notebook: Path, parameters: list[list[str]], pdf_path: Path | None = None) -> tuple[Path, Path]:
    """Execute `notebook` with `parameters` ([[name, value], ...]) and print it; returns (executed
    notebook, PDF). Unknown parameter names are refused before anything runs."""
    from pagelab.report.execute import execute_notebook
    from pagelab.report.pdf import notebook_to_pdf
    from pagelab.report.pdf import check_pdf_path

    notebook = Path(notebook)
    values = checked_parameters(notebook, parameters)
    out_dir = Path(pdf_path).parent if pdf_path else REPORTS_DIR / f"{notebook.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    pdf_path = check_pdf_path(Path(pdf_path) if pdf_path else out_dir / f"{notebook.stem}.pdf")
    executed = out_dir / notebook.name
    execute_notebook(notebook, executed, parameters=values, cwd=PROJECT_ROOT, execution_timeout=7200)
    notebook_to_pdf(executed, pdf_path)
    return executed, pdf_path
