"""What must hold after any fault (tests/faults/README.md): every run done before it is byte for
byte as it was, every state file is whole JSON, no half-copied snapshot or dataset is left, and a
completed load is kept while one cut short is loaded again (pagelab.sweep.kept_load).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pagelab.bundle import phase_marks
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER  # written into a whole snapshot
from pagelab.sweep.kept_load import LOAD_RECORD  # an instance's record of the completed load its datadir holds
from tests.faults.harness import CACHE_MANIFEST, GRACE_S, PHASES_CSV, Sweep, instance_dir, read_record, wait_until_gone


def file_hashes(directory: Path) -> dict[str, str]:
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def done_runs(bundle: Path) -> dict[str, dict[str, str]]:
    """Every run sweep.json marks done, with the hash of each of its files."""
    record = read_record(bundle) or {"runs": []}
    return {entry["name"]: file_hashes(bundle / entry["name"]) for entry in record["runs"]
            if entry["status"] == "done"}


def assert_run_whole(run_dir: Path) -> None:
    """A finished run's files, each read back with the reader the project uses for it."""
    import configparser

    import nbformat
    import pandas as pd

    from pagelab.parse import parse_innodb_status_dir, parse_iostat, parse_tpcc_log

    name = run_dir.name
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["run"] == name and summary["tpmc"] > 0, f"{name}/summary.json: {summary}"
    log = (run_dir / "tpcc.log").read_text()
    assert "run aborted" not in log, f"{name}/tpcc.log is the log of an aborted run"
    assert parse_tpcc_log(log).rows, f"{name}/tpcc.log has no interval lines"
    for table in ("tpcc_intervals", "iostat", "innodb", "global_status", "variables"):
        frame = pd.read_csv(run_dir / f"{table}.csv")
        assert not frame.empty, f"{name}/{table}.csv has no rows"
    pd.read_csv(run_dir / "hit_ratio.csv")
    assert parse_iostat((run_dir / "iostat.json").read_text()).rows, f"{name}/iostat.json has no samples"
    assert parse_innodb_status_dir(run_dir / "innodb").rows, f"{name}/innodb/ has no readable snapshot"
    notebook = nbformat.read(run_dir / "run.ipynb", as_version=4)
    nbformat.validate(notebook)
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{name}/run.ipynb holds an error: {errors[0].get('ename')}"
    config = configparser.ConfigParser(allow_no_value=True, strict=False)
    config.read_string((run_dir / "my.cnf").read_text())
    assert int(config.get("mysqld", "innodb_page_size")) == summary["page_size_bytes"], f"{name}/my.cnf"
    assert (run_dir / "mysqld.err").stat().st_size > 0, f"{name}/mysqld.err is empty"
    phases = (run_dir / PHASES_CSV).read_text().splitlines()
    assert phases and phases[-1].split(",", 1)[1] == "done", f"{name}/phases.csv does not end in done"


def assert_state_files_whole(bundle: Path) -> None:
    """The small files that a later process reads back are whole: each instance's instance.json,
    loaded.json and record of a completed load parse, and every run's .phase names a phase."""
    for name in ("instance.json", "loaded.json", LOAD_RECORD):
        for path in (bundle / "instances").glob(f"*/{name}"):
            try:
                json.loads(path.read_text())
            except ValueError:
                raise AssertionError(f"{path} is not whole JSON: {path.read_bytes()[:80]!r}") from None
    for path in bundle.glob("*/.phase"):
        assert path.read_text().strip(), f"{path} is empty"


def assert_no_half_copies(bundle: Path, dataset: Path | None) -> None:
    """Only a whole copy carries a final name: every snapshot/ has its marker, and the TPC-C
    cache's dataset directory (if there is one yet) its manifest."""
    for snapshot in (bundle / "instances").glob("*/snapshot"):
        assert (snapshot / SNAPSHOT_MARKER).exists(), f"{snapshot} has no {SNAPSHOT_MARKER}: a half copy under the final name"
    if dataset is not None and dataset.exists():
        assert (dataset / CACHE_MANIFEST).exists(), f"{dataset} has no {CACHE_MANIFEST}: a half dataset under the final name"


# Runs read back whole by an earlier cell, by the hashes of their files then: a run whose files are
# byte for byte what was read back then is whole still, and is not read back again by every later
# cell (each read-back of a run parses its tables and notebook: seconds on a loaded machine).
_READ_BACK: dict[Path, dict[str, str]] = {}


def _assert_run_whole_once(run_dir: Path, hashes: dict[str, str] | None) -> None:
    """assert_run_whole, unless this run's files (`hashes`, as check_after found them unchanged) are
    the ones read back whole before."""
    if hashes is not None and _READ_BACK.get(run_dir) == hashes:
        return
    assert_run_whole(run_dir)
    _READ_BACK[run_dir] = file_hashes(run_dir)


def check_after(bundle: Path, sweep: Sweep, done_before: dict[str, dict[str, str]],
                dataset: Path | None = None) -> dict:
    """The promises after a fault or a resume: nothing of the sweep left running, sweep.json whole,
    no run done unless its files are whole, every run done before still done and byte-identical,
    no half copy under a final name. Returns sweep.json."""
    left = wait_until_gone(sweep)
    assert not left, f"still running {GRACE_S:.0f} s after the sweep (pid {sweep.pid}) ended (now killed): {left}"
    record = read_record(bundle)
    assert record is not None, f"{bundle}/sweep.json is missing or not whole JSON"
    statuses = {entry["name"]: entry["status"] for entry in record["runs"]}
    for name, hashes in done_before.items():
        assert statuses.get(name) == "done", f"{name} was done before the fault and is now {statuses.get(name)}"
        now = file_hashes(bundle / name)
        changed = sorted(set(hashes) ^ set(now) | {p for p in hashes if p in now and hashes[p] != now[p]})
        assert not changed, f"{name} was done before the fault and changed: {changed[:5]}"
    for name, status in statuses.items():
        if status == "done":
            _assert_run_whole_once(bundle / name, done_before.get(name))
    assert_state_files_whole(bundle)
    assert_no_half_copies(bundle, dataset)
    return record


# --- a completed load, kept or loaded again (pagelab.sweep.kept_load) -------------------------------


def loads_to_keep(bundle: Path) -> dict[str, dict]:
    """Instance name -> its record, for each instance whose datadir holds a recorded completed load
    and which has no whole snapshot: what the next run of that instance must keep, not load again.
    Read here from the files, not through pagelab's own check, so that a resume that loads again
    anyway fails the cell."""
    found = {}
    for record in sorted((bundle / "instances").glob(f"*/{LOAD_RECORD}")):
        if not (record.parent / "snapshot" / SNAPSHOT_MARKER).exists():
            found[record.parent.name] = json.loads(record.read_text())
    return found


def check_loads(bundle: Path, to_keep: dict[str, dict], since: float, output: str) -> None:
    """What became of the loads in a cell whose sweeps started at `since`, given the completed loads
    `to_keep` (loads_to_keep before the cell):

    - a run of an instance whose completed load was to be kept neither initialised nor loaded it
      again, the sweep said so ("kept the completed load of 4k"), and if the snapshot was made
      whole, its loaded.json names the run that kept the load;
    - a run that made a snapshot of any other instance loaded it first (a load cut short, or none
      yet, is loaded again);
    - a run stopped in its init or load left no record of a completed load."""
    for phases_csv in sorted(bundle.glob(f"*/{PHASES_CSV}")):
        run = phases_csv.parent.name
        marks = [name for t, name in phase_marks(phases_csv.parent) if t >= since]
        if not marks:
            continue
        instance = instance_dir(bundle, run)
        story = f"{run}'s phases in this cell: {', '.join(marks)}"
        if instance.name in to_keep:
            kept = to_keep[instance.name]
            assert not {"init", "load"} & set(marks), (f"{run} loaded {instance.name} again, although its datadir "
                                                       f"held the completed load of {kept['loaded_by']}; {story}")
            if "snapshot" in marks:
                assert f"kept the completed load of {instance.name}" in output, \
                    f"the sweep did not say it kept {instance.name}'s completed load; {story}"
                loaded = instance / "loaded.json"
                if (instance / "snapshot" / SNAPSHOT_MARKER).exists() and loaded.exists():
                    assert json.loads(loaded.read_text()).get("load_kept_by") == run, loaded.read_text()
        elif "snapshot" in marks:
            assert "load" in marks[:marks.index("snapshot")], \
                f"{run} took a snapshot of {instance.name} without loading it, and no completed load was recorded; {story}"
        if marks[-1] in ("init", "load"):
            assert not (instance / LOAD_RECORD).exists(), \
                f"{run} was stopped in its {marks[-1]}, and {instance / LOAD_RECORD} says the load completed; {story}"
