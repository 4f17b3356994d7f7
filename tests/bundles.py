"""What a finished sweep's bundle holds (DESIGN.md's run bundle), asserted by the sweep's tests
and the fault suite alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

# Per run and per sweep.
RUN_FILES = ("run.ipynb", "my.cnf", "variables.csv", "mysqld.err", "tpcc.log", "iostat.json", "global_status.csv",
             "tpcc_intervals.csv", "iostat.csv", "innodb.csv", "summary.json")
SWEEP_FILES = ("sweep.json", "report.ipynb")
FIGURES = ("tpmc", "tpmc_order", "iops", "request_size", "hit_ratio", "new_order_latency")


def assert_run_files(run_dir: Path) -> None:
    """A finished run's files are there and not empty, with at least 3 InnoDB status samples."""
    for name in RUN_FILES:
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, f"{run_dir.name}/{name}"
    assert len(list((run_dir / "innodb").glob("*.txt"))) >= 3


def assert_complete_bundle(bundle: Path, assert_run: Callable[[Path], None] = assert_run_files) -> dict:
    """What an uninterrupted (or resumed and finished) sweep leaves: every run done and whole
    (`assert_run` on each), the machine recorded, the report notebook without errors, the PDF whole
    and recorded in sweep.json, the figures, and no lock, datadir, snapshot or temporary file.
    Returns sweep.json."""
    import nbformat

    record = json.loads((bundle / "sweep.json").read_text())
    assert [e["status"] for e in record["runs"]] == ["done"] * len(record["runs"]), record["runs"]
    for entry in record["runs"]:
        assert_run(bundle / entry["name"])
    for key in ("os", "kernel", "cores", "memory_bytes"):
        assert key in record["machine"], key
    for name in SWEEP_FILES:
        assert (bundle / name).is_file(), name
    notebook = nbformat.read(bundle / "report.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert not [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    pdf = (bundle / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-1024:], "report.pdf is not a whole PDF"
    assert record.get("report") and record["report"].get("pdf"), "sweep.json does not record the report"
    for figure in FIGURES:
        assert (bundle / "figures" / f"{figure}.png").stat().st_size > 1000, figure
    # what a finished sweep no longer keeps: the lock, the datadirs and snapshots, and any
    # temporary file or directory (a rename that never happened, a PDF export that was killed)
    assert not (bundle / ".sweep.lock").exists(), "the lock file outlived the sweep"
    left = [p for p in bundle.rglob("*") if p.name in ("data", "snapshot", "snapshot.partial", "data.restoring")
            or ".tmp" in p.name]
    assert not left, f"left behind in a finished bundle: {[str(p.relative_to(bundle)) for p in left[:5]]}"
    return record
