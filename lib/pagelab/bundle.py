"""The run bundle: where a sweep keeps its files, and reading them back as pandas tables.

    data/runs/<sweep-id>/
      sweep.json              profile, machine, versions, the status of every run, and the looks (the
                              analyses it was made for: after its rounds, and after each --add-rounds)
      plan.json               the run units, in order, with their rounds: `pagelab run-unit BUNDLE --round K` runs one round
      locks/                  lock files of units and instances (pagelab.common.locks)
      instances/<page>/       one server instance per page size (and warehouses level, <page>-w<N>/, when
                              warehouses is a grid factor); snapshot/ is its loaded datadir
      <page>-r<k>/            one run (in a grid, <page>-w<N>-pool<level>-r<k>/, only the listed factors): run.ipynb, host.json, my.cnf, variables.csv, mysqld.err, tpcc.log,
                              iostat.json, innodb/NNNNN.txt, global_status.csv, tidy tables, summary.json,
                              rampup_series.csv (auto ramp-up)
      superseded/<run>-<UTC time>/  a finished run whose part-done round a Slurm resume measured anew
                              (pagelab.sweep.run_unit.keep_superseded): kept, no longer counted
      report.ipynb, report.pdf, figures/ (PNG and SVG), noise.json (sweep --noise), notes.md (yours);
                              sweep.json's "report" names the last report made, "report_step" the sweep's own
    reports/<sweep-id>-<hash>.pdf  a copy of report.pdf

A bundle is self-contained: zip the sweep directory and anyone can rerun the report on it.

Units may run at once on several nodes (`--executor slurm`), so sweep.json is never rewritten
from a copy read earlier: every change re-reads it and writes it back under its lock
(.sweep.json.lock, pagelab.common.locks), changing only its own part.

`SweepRecord.load` is the one reader of sweep.json and `NotABundle` the one refusal of a directory
without one. A process loads the record once and passes it on; `WHOLE_READS` counts every whole
read by what it was for ("load", or the re-read of a change: "update_run", "update_document", "save").
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.atomic import atomic_write_json, atomic_write_text, json_digest
from pagelab.common.errors import UsageError
from pagelab.common.locks import held_lock
from pagelab.common.storage import naming
from pagelab.mysql.pagesize import parse_page_size
from pagelab.common.units import page_size_label
from pagelab.common.paths import PROJECT_ROOT

SWEEP_FILE = "sweep.json"
SWEEP_FILE_LOCK = ".sweep.json.lock"  # held while sweep.json is read, changed and written back
PHASE_FILE = ".phase"
PHASES_LOG = "phases.csv"
# sweep.json's "round_order": how a round's runs were ordered. Bundles without it ran every round in
# the page sizes' order; since the key exists the order is drawn from the profile's seed per round.
ROUND_ORDER_DRAWN = "drawn from the seed per round"
# The per-run tidy tables of DESIGN.md ("Tidy tables"), combined across runs by load_tables().
TIDY_TABLES = ("tpcc_intervals", "iostat", "innodb", "hit_ratio")
RUN_STATUSES = ("pending", "running", "done", "failed", "interrupted")
# Whole reads of sweep.json in this process, by what they were for (see the module comment).
WHOLE_READS: Counter = Counter()


class NotABundle(UsageError):
    """A directory given as a sweep's bundle that has no sweep.json."""

    def __init__(self, directory: Path):
        what = "does not exist" if not Path(directory).exists() else "is not a sweep bundle (no sweep.json)"
        super().__init__(f"{directory} {what}; give the directory of a sweep made by `pagelab sweep`")


def sweep_file(sweep_dir: str | os.PathLike) -> Path:
    """BUNDLE/sweep.json, or NotABundle; a check that reads nothing, for before a lock is taken."""
    path = project_path(sweep_dir) / SWEEP_FILE
    if not path.is_file():
        raise NotABundle(Path(sweep_dir))
    return path


def _read_whole(path: Path, purpose: str) -> dict:
    WHOLE_READS[purpose] += 1
    return json.loads(path.read_text())


def project_path(path: str | os.PathLike) -> Path:
    """A path as written in a notebook parameter: relative ones are relative to the project, so a
    notebook opened from notebooks/ in JupyterLab and one run by the sweep mean the same place."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


def profile_digest(values: dict) -> str:
    """A fingerprint of a sweep's knob values, kept in sweep.json, so that a resume can tell that
    they were edited after runs were measured with them."""
    return json_digest(values)


def run_name(page_size: int | str, repeat: int) -> str:
    """'16k-r1': the directory of one run."""
    return f"{page_size_label(parse_page_size(page_size))}-r{repeat}"


def level_text(name: str, level) -> str:
    """A grid level as a run directory's name has it: w2, pool30pct, pool64M."""
    if name == "warehouses":
        return f"w{level}"
    return "pool" + str(level).replace("%", "pct").replace(".", "_")


def unit_name(page_size: int | str, repeat: int, cell: dict | None = None, role: str = "verdict") -> str:
    """'16k-r1', in a grid '16k-pool30pct-r1', an over-time run '16k-over-time': the directory of one run."""
    if not cell and role == "verdict":
        return run_name(page_size, repeat)
    levels = [level_text(name, cell[name]) for name in ("warehouses", "buffer_pool") if name in (cell or {})]
    last = "over-time" if role == "over_time" else f"r{repeat}"
    return "-".join([page_size_label(parse_page_size(page_size)), *levels, last])


def instance_name(page_size: int | str, cell: dict | None = None) -> str:
    """The instance a run's data lives in: one per page size, and per warehouses level when the
    warehouses are a grid factor (a pool level is only a restart, on the same data)."""
    label = page_size_label(parse_page_size(page_size))
    return f"{label}-w{cell['warehouses']}" if cell and "warehouses" in cell else label


def set_phase(run_dir: Path, phase: str) -> None:
    """What the run is doing now, for the sweep's progress bar (the run executes in a kernel).

    Each new phase is also appended to phases.csv (epoch seconds, phase), so the bundle records
    how long init, load, restarts and the measurement took."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / PHASE_FILE, phase)
    if not phase.startswith("measure "):  # per-interval progress is not a phase of its own
        with naming(run_dir / PHASES_LOG), open(run_dir / PHASES_LOG, "a") as log:
            log.write(f"{time.time():.3f},{phase}\n")


def phase_marks(run_dir: Path) -> list[tuple[float, str]]:
    """(epoch seconds, phase) per line of phases.csv, in order; [] before the run has one."""
    try:
        lines = (Path(run_dir) / PHASES_LOG).read_text().splitlines()
    except OSError:
        return []
    return [(float(t), name) for t, name in (line.split(",", 1) for line in lines if "," in line)]


def phase_durations(run_dir: Path) -> list[tuple[str, float]]:
    """(phase, seconds) in order, from phases.csv; the last phase ('done') has no duration."""
    marks = phase_marks(run_dir)
    return [(name, marks[i + 1][0] - t) for i, (t, name) in enumerate(marks[:-1])]


# The phases of a page size's first run that no later run repeats: the instance is made and loaded once.
SETUP_PHASES = ("init", "load", "snapshot")


@dataclass(frozen=True)
class RunTiming:
    """When one finished run started and ended (epoch seconds, from its phases.csv), how much of it
    was the page size's one-time set-up, and how many seconds it measured (summary.json)."""

    name: str
    page_size: str
    role: str
    started: float
    done: float
    setup_s: float
    measured_s: float


def run_timings(record: "SweepRecord") -> list[RunTiming]:
    """Every finished run's timing, in the order the runs started (runs without phases.csv or
    summary.json, from older bundles, are left out)."""
    timings = []
    for entry in record.runs:
        run_dir = record.directory / entry["name"]
        marks = phase_marks(run_dir)
        summary_path = run_dir / "summary.json"
        if entry["status"] != "done" or len(marks) < 2 or not summary_path.is_file():
            continue
        summary = json.loads(summary_path.read_text())
        setup = sum(seconds for name, seconds in phase_durations(run_dir) if name in SETUP_PHASES)
        timings.append(RunTiming(entry["name"], entry["page_size"], entry.get("role", "verdict"), marks[0][0],
                                 marks[-1][0], setup, float(summary.get("measure_s") or 0)))
    return sorted(timings, key=lambda timing: timing.started)


def read_phase(run_dir: Path) -> str | None:
    try:
        return (Path(run_dir) / PHASE_FILE).read_text().strip() or None
    except OSError:
        return None


@dataclass
class SweepRecord:
    """sweep.json: what was asked, on what machine, and how far it got."""

    path: Path
    document: dict

    @classmethod
    def load(cls, sweep_dir: str | os.PathLike) -> "SweepRecord":
        """The record of a bundle, read whole; NotABundle if it has none."""
        path = sweep_file(sweep_dir)
        return cls(path, _read_whole(path, "load"))

    @property
    def directory(self) -> Path:
        return self.path.parent

    def save(self) -> None:
        """Write back the document's own keys (profile, report, ...); each run's entry is written
        by update_run, and taken here as it is on disk, which other processes may have changed."""
        with held_lock(self.path.with_name(SWEEP_FILE_LOCK)):
            current = _read_whole(self.path, "save")
            self.document["runs"] = current["runs"]
            atomic_write_json(self.path, self.document)

    def update_document(self, **changes) -> None:
        """Set top-level keys, leaving the rest as other processes left it."""
        with held_lock(self.path.with_name(SWEEP_FILE_LOCK)):
            current = _read_whole(self.path, "update_document")
            current.update(changes)
            atomic_write_json(self.path, current)
        self.document.update(changes)
        self.document["runs"] = current["runs"]

    @property
    def runs(self) -> list[dict]:
        return self.document["runs"]

    def run(self, name: str) -> dict:
        for entry in self.runs:
            if entry["name"] == name:
                return entry
        raise KeyError(name)

    def recorded_status(self, name: str) -> str:
        """The run's status as sweep.json holds it now. A stop (a KeyboardInterrupt raised by the
        signal handler) can land after update_run's write and before its copy into this record: the
        file then says done while the record still says running, and only the file is the truth."""
        for entry in _read_whole(self.path, "recorded_status")["runs"]:
            if entry["name"] == name:
                return entry["status"]
        raise KeyError(name)

    def update_run(self, name: str, **changes) -> None:
        """Change one run's entry, leaving every other as other processes left it."""
        with held_lock(self.path.with_name(SWEEP_FILE_LOCK)):
            current = _read_whole(self.path, "update_run")
            for entry in current["runs"]:
                if entry["name"] == name:
                    entry.update(changes)
                    break
            else:
                raise KeyError(name)
            atomic_write_json(self.path, current)
        self.document["runs"] = current["runs"]

    def pending(self) -> list[dict]:
        return [entry for entry in self.runs if entry["status"] != "done"]

    def append_runs(self, entries: list[dict], **changes) -> None:
        """Add runs at the end of the run list and set top-level keys, in one write."""
        with held_lock(self.path.with_name(SWEEP_FILE_LOCK)):
            current = _read_whole(self.path, "append_runs")
            names = {entry["name"] for entry in current["runs"]}
            clash = [entry["name"] for entry in entries if entry["name"] in names]
            if clash:
                raise ValueError(f"runs already in {self.path}: {', '.join(clash)}")
            current["runs"].extend(entries)
            current.update(changes)
            atomic_write_json(self.path, current)
        self.document.update(changes)
        self.document["runs"] = current["runs"]


def new_run_entries(profile) -> list[dict]:
    """sweep.json's run list, pending, in the profile's order (`Profile.units`): each run with its
    cell of the grid ({} without one), its round and its position in the round."""
    return run_entries(profile.units())


def run_entries(units: list[dict]) -> list[dict]:
    """sweep.json's entries, pending, for units as `Profile.units` lays them out."""
    return [
        {"name": unit_name(unit["page_size"], unit["repeat"], unit["cell"], unit["role"]),
         "page_size_bytes": unit["page_size"], "page_size": page_size_label(unit["page_size"]),
         "repeat": unit["repeat"], "cell": unit["cell"], "round": unit["round"], "position": unit["position"],
         "role": unit["role"], "status": "pending", "error": None,
         "notebook": None, "started": None, "finished": None}
        for unit in units
    ]


def now_iso(at: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(at))


# sweep.json's "report_step": when the sweep's own report step began and ended, and its seconds,
# written with the "report" it made. A later `pagelab report BUNDLE` rewrites "report" but not
# this, so what a report costs a sweep (pagelab plan) is not the time since the sweep's last run.
REPORT_STEP = "report_step"


def report_step(started: float, ended: float) -> dict:
    return {"started": now_iso(started), "ended": now_iso(ended), "seconds": round(ended - started, 1)}


def as_record(bundle: "SweepRecord | str | os.PathLike") -> SweepRecord:
    """The record itself, or the one loaded from a bundle's directory."""
    return bundle if isinstance(bundle, SweepRecord) else SweepRecord.load(bundle)


COMPONENTS_FILE = "components.json"


def write_components(bundle: "SweepRecord | str | os.PathLike") -> Path | None:
    """BUNDLE/components.json: the within-run and between-run variance components of TpmC per page
    size and per pair (pagelab.evidence.components), kept with the report; None (and no file) for
    a bundle whose runs kept no interval series."""
    from pagelab.evidence.runs import components_of

    record = as_record(bundle)
    components = components_of(read_runs(record))
    if components is None:
        return None
    path = record.directory / COMPONENTS_FILE
    atomic_write_text(path, json.dumps(components.to_dict(), indent=1).replace("NaN", "null"))
    return path


def read_runs(bundle: "SweepRecord | str | os.PathLike"):
    """The bundle's runs as pagelab.evidence compares them (a RunTable), each with its block."""
    from pagelab.evidence.runs import run_table

    record = as_record(bundle)
    return run_table(record.directory, with_blocks(record.document))


def with_blocks(document: dict) -> dict:
    """sweep.json's document with a "block" for each run whose round ran on more than one host:
    one of its own, so that it is compared unpaired (pagelab.evidence.runs.block_of). A run's
    block is the round within its node; a round on one host (as the Slurm executor runs a round,
    and a local sweep every round) keeps its round as its block. A round ran on several hosts in
    a bundle from before rounds were Slurm tasks, or when a local resume finished a cluster's round."""
    hosts: dict[int, set] = {}
    for entry in document["runs"]:
        if entry["status"] == "done":
            hosts.setdefault(run_round(entry), set()).add(entry.get("host"))
    runs = [{**entry, "block": f"{entry['name']} alone (round {run_round(entry)} ran on several nodes)"}
            if len(hosts.get(run_round(entry), ())) > 1 else entry for entry in document["runs"]]
    return {**document, "runs": runs}


def run_round(entry: dict) -> int:
    """A run's round; its repeat in a bundle from before rounds were recorded (they were the same)."""
    return int(entry.get("round") or entry["repeat"])


# Keys of a run's entry in sweep.json that may give its place in the order the runs executed.
RUN_ORDER_KEYS = ("order", "position")


def load_tables(bundle: "SweepRecord | str | os.PathLike") -> dict:
    """Every finished run's tidy tables combined, with run-level columns added
    (sweep, run, page_size_bytes, page_size, repeat, host), plus `summary`: one row per run, which
    also carries run_started and, where sweep.json records them, run_order / run_position."""
    import pandas as pd

    from pagelab.evidence.runs import UNRECORDED_HOST

    record = as_record(bundle)
    sweep_dir = record.directory
    frames: dict[str, list] = {name: [] for name in TIDY_TABLES}
    summaries = []
    for entry in record.runs:
        if entry["status"] != "done":
            continue
        run_dir = sweep_dir / entry["name"]
        keys = {"sweep": sweep_dir.name, "run": entry["name"], "page_size_bytes": entry["page_size_bytes"],
                "page_size": entry["page_size"], "repeat": entry["repeat"],
                "host": entry.get("host") or UNRECORDED_HOST, "role": entry.get("role", "verdict")}
        # When the run executed: its recorded place in the sweep's order (where sweep.json has one),
        # else its start time; the report draws TpmC in this order (report.figures.run_order).
        extra = {key: entry[key] for key in RUN_ORDER_KEYS + ("started",) if entry.get(key) is not None}
        for name in TIDY_TABLES:
            path = run_dir / f"{name}.csv"
            if path.exists() and path.stat().st_size > 0:
                frame = pd.read_csv(path)
                for column, value in reversed(keys.items()):
                    frame.insert(0, column, value)
                frames[name].append(frame)
        summary_path = run_dir / "summary.json"
        if summary_path.exists():
            summary = json.loads(summary_path.read_text())
            flat = {k: v for k, v in summary.items() if not isinstance(v, (dict, list))}
            # nested facts the Method reads: what ended an auto ramp-up and how far past its cap it could
            # go, that the kernel's pending writes were flushed before the server started, and what else
            # used the CPUs while it measured (bundles from before lack them)
            if isinstance(summary.get("rampup"), dict):
                flat["rampup_ended_by"] = summary["rampup"].get("ended_by")
                flat["rampup_ceiling_s"] = summary["rampup"].get("ceiling_s")
            if isinstance(summary.get("writeback_before_start"), dict):
                flat["writeback_dirty_bytes"] = summary["writeback_before_start"].get("dirty_bytes_before")
            if isinstance(summary.get("other_work"), dict):  # pagelab.machine.other_work; absent before
                flat["other_cores"] = summary["other_work"].get("other_cores")
                flat["steal_cores"] = summary["other_work"].get("steal_cores")
                flat["kernel_cores"] = summary["other_work"].get("kernel_cores")
            summaries.append({**keys, **flat, **{f"run_{key}": value for key, value in extra.items()}})
    tables = {name: (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()) for name, parts in frames.items()}
    tables["summary"] = pd.DataFrame(summaries)
    return tables
