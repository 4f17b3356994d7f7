"""A page-size sweep: the run notebook executed by papermill per page size and repeat, then the
report notebook and the PDF.

    pagelab sweep --profile quick [--set knob=value ...] [--out DIR]
    pagelab sweep --resume DIR

Every run is recorded in sweep.json as it goes (pending, running, done, failed, interrupted), so
a sweep can be stopped at any point: Ctrl-C, SIGTERM or SIGHUP (a closed terminal) interrupts
the current run (its kernel stops the server on the way out), keeps every finished run, and
`--resume DIR` runs the rest; a run that did not finish starts again from an empty directory. A failed run keeps its error
and executed notebook (until a resume runs it again), the sweep goes on unless `fail_fast`, and
`pagelab sweep` exits 1 after the report if any run failed.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.common.storage import storage_fault_in
from pagelab.sweep.footprint import NotEnoughSpace
from pagelab.sweep.kept_load import record_is_there
from pagelab.sweep.stop_signals import StopRequest, stop_signals_interrupt
from pagelab.common.paths import RUNS_DIR
from pagelab.common.atomic import atomic_write_json, leftover_temporaries
from pagelab.common.locks import LockBusy, held_lock, holder_pid
from pagelab.report.pdf import check_pdf_path, check_writable_directory, is_complete_pdf
from pagelab.common.units import size_text
from pagelab.sweep.plan import write_plan
from pagelab.sweep.run_unit import (begin, check_room_for_unit, execute, mark_done, record_failure,
                                    server_log_mark, server_storage_fault, short_error, stop_unit_server,
                                    unit_instance_dir)
from pagelab.sweep.storage_stop import (ReadOnlySeen, ReadOnlyWatch, refuse_unwritable, stop_if_storage_fault,
                                        storage_fault_stop, suppress_storage_faults)
from pagelab.bundle import (ROUND_ORDER_DRAWN, SWEEP_FILE, SweepRecord, new_run_entries, now_iso, profile_digest,
                            read_phase, read_runs, sweep_file)
from pagelab.sweep.report_step import REPORT_PDF, execute_report
from pagelab.evidence.block_weights import EQUAL
from pagelab.evidence.sequential import first_look

LOCK_FILE = ".sweep.lock"  # held by the process running the sweep (bundle_lock)


class SweepInterrupted(PagelabError):
    """Ctrl-C, SIGTERM or SIGHUP: finished runs are kept; `pagelab sweep --resume DIR` does the rest."""

    exit_code = 130  # as a shell reports a process ended by SIGINT


def create_sweep(profile, out_dir: Path | None, profile_name: str, measure_noise_per_host: bool = False) -> Path:
    """A new sweep directory with sweep.json listing every run as pending, and its plan
    (`measure_noise_per_host`: the plan's measure_noise, for units run elsewhere)."""
    from pagelab.machine.system import run_metadata
    from pagelab.sweep.profiles import changed_knobs

    values = profile.to_dict()
    sweep_id = f"{profile_name}-{time.strftime('%Y%m%d-%H%M%S')}"
    sweep_dir = Path(out_dir) if out_dir else RUNS_DIR / sweep_id
    if sweep_dir.exists() and not sweep_dir.is_dir():
        raise UsageError(f"--out {sweep_dir} is a file; give a directory for the sweep")
    if sweep_dir.exists() and any(sweep_dir.iterdir()):
        hint = f"continue it with --resume {sweep_dir}" if (sweep_dir / SWEEP_FILE).exists() else "or empty it"
        raise UsageError(f"{sweep_dir} is not empty; choose another --out, {hint}")
    existing = next(path for path in (sweep_dir, *sweep_dir.absolute().parents) if path.exists())
    refuse_unwritable(existing, "--out")  # before anything is made there
    check_writable_directory(sweep_dir, "--out")
    created = now_iso()
    document = {
        "sweep_id": sweep_dir.name,
        "profile_name": profile_name,
        "profile": values,
        "profile_sha256": profile_digest(values),
        # what --set changed, each knob's value in the profile's file beside the one used (the report's Setup)
        "changed_knobs": changed_knobs(profile),
        "created": created,
        # The primary comparison as declared before any run (knob primary); fixed from here on.
        "primary": {"comparison": values.get("primary", ""), "declared": created},
        # How TpmC's blocks are weighed (knob block_weights), likewise declared before any run.
        "block_weights": {"weights": values.get("block_weights", EQUAL), "declared": created},
        "machine": run_metadata(sweep_dir),
        "runs": new_run_entries(profile),
        "round_order": ROUND_ORDER_DRAWN,
        "looks": first_look(profile.repeats, created),
        "report": None,
    }
    atomic_write_json(sweep_dir / SWEEP_FILE, document)
    write_plan(SweepRecord(sweep_dir / SWEEP_FILE, document), measure_noise_per_host)
    return sweep_dir


class _Progress:
    """One bar over the runs; its text shows the current run's phase, read from the run's phase file."""

    def __init__(self, total: int, done: int, enabled: bool):
        from pagelab.common.progress import progress_bar

        self.bar = progress_bar(total, "sweep", "run", initial=done, disable=not enabled,
                        bar_format="{desc}: {n_fmt}/{total_fmt} runs |{bar}| {elapsed} {postfix}")
        self.run_dir: Path | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(1.0):
            if self.run_dir is not None:
                self.bar.set_postfix_str(f"{self.run_dir.name}: {read_phase(self.run_dir) or 'starting'}")

    def follow(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.bar.set_postfix_str(f"{run_dir.name}: starting")

    def advance(self) -> None:
        self.bar.update(1)

    def say(self, text: str) -> None:
        """A line of its own, above the bar on a terminal."""
        write = getattr(self.bar, "write", None)  # tqdm's; a plain progress prints whole lines anyway
        if write is not None:
            write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.bar.close()


def execute_runs(record: SweepRecord, fail_fast: bool = False, progress: bool = True,
                 watch: ReadOnlyWatch | None = None) -> SweepRecord:
    """Execute every run of the sweep that is not done, one papermill execution each; the record
    as the runs left it. `watch` (the sweep's ReadOnlyWatch, entered) is told which run to follow;
    without one, nothing watches."""
    with stop_signals_interrupt() as stop:
        return _execute_runs(record, fail_fast, progress, watch or ReadOnlyWatch(record), stop)


def _execute_runs(record: SweepRecord, fail_fast: bool, progress: bool, watch: ReadOnlyWatch,
                  stop: StopRequest) -> SweepRecord:
    from pagelab.sweep.profiles import profile_from_dict

    sweep_dir = record.directory
    # validated again, so a damaged or hand-edited sweep.json is refused before any run starts
    profile = profile_from_dict(record.document["profile"]).to_dict()
    todo = record.pending()
    bar = _Progress(len(record.runs), len(record.runs) - len(todo), progress)
    current = None  # the run under way, if the interrupt comes during one rather than between two
    try:
        for entry in todo:
            _check_room_for(sweep_dir, entry, profile)
            current = entry
            log_mark = server_log_mark(sweep_dir, entry)
            run_dir = begin(record, entry)  # the same unit code as `pagelab run-unit` (pagelab.sweep.run_unit)
            notebook = run_dir / "run.ipynb"
            bar.follow(run_dir)
            watch.follow(run_dir, unit_instance_dir(sweep_dir, entry, None), run=entry["name"])  # (one disk here)
            _say_kept_load(sweep_dir, entry, profile, bar)
            try:
                execute(sweep_dir, entry, profile, between_cells=stop.raise_if_received)
                stop.raise_if_received()  # a stop swallowed in the notebook's last cell: the run is not done
            except Exception as exc:  # papermill's execution error carries the cell's traceback
                if stop.signum is not None:  # the stop, turned into an error on its way out of papermill
                    raise KeyboardInterrupt(f"signal {stop.signum}") from exc
                with watch.paused():  # this failure says the fault, if it was one
                    _stop_run_instance(sweep_dir, entry)
                    phase = read_phase(run_dir)  # where it struck: nothing after the fault rewrote it
                    fault = record_failure(record, entry, exc, server_storage_fault(sweep_dir, entry, log_mark))
                    current = None
                    bar.advance()
                    if fault is not None:  # every next run would fail the same way, after a load's worth of waiting
                        raise storage_fault_stop(record, fault, entry["name"], phase) from exc
                    if fail_fast:
                        raise PagelabError(f"run {entry['name']} failed (--fail-fast): {short_error(exc)}\n"
                                           f"executed notebook: {notebook}") from exc
                    watch.follow(sweep_dir / SWEEP_FILE, stage="sweep, between runs")
                continue
            mark_done(record, entry)
            watch.follow(sweep_dir / SWEEP_FILE, stage="sweep, between runs")
            current = None
            bar.advance()
            stop.raise_if_received()  # one that came while the run was recorded
    except KeyboardInterrupt as interrupt:
        # Wherever it lands (in a run's notebook, or between runs while the record is updated),
        # the finished runs stay done and the one under way is marked and its server stopped.
        # The read-only watch stops a sweep this way too (ReadOnlySeen): the same, said as the fault.
        seen = isinstance(interrupt, ReadOnlySeen)
        watch.disarm()
        name = phase = None
        # not if it just finished: sweep.json's word, as the stop may have landed after mark_done's write
        # and before its copy into `record` (seen in the fault matrix: a done run re-marked interrupted)
        if current is not None and record.recorded_status(current["name"]) != "done":
            name, phase = current["name"], read_phase(sweep_dir / current["name"])
            with suppress_storage_faults():  # a failing disk keeps it `running`, which is not done either
                if seen:
                    record_failure(record, current, f"the filesystem turned read-only during its {phase}", watch.fault)
                else:
                    record.update_run(name, status="interrupted", finished=now_iso(),
                                      error="interrupted by Ctrl-C, SIGTERM or SIGHUP")
            _stop_run_instance(sweep_dir, current)
        if seen:
            raise storage_fault_stop(record, watch.fault, name, phase, "sweep, between runs") from None
        raise SweepInterrupted(
            f"sweep interrupted {f'during {name}' if name else 'between runs'}; finished runs are kept. "
            f"Continue with: pagelab sweep --resume {sweep_dir}") from None
    except (PagelabError, NotEnoughSpace):
        raise
    except Exception as exc:  # between runs: the run's start, or its record as done
        watch.disarm()
        fault = storage_fault_in(exc)
        if fault is None:
            raise
        if current is not None:
            _stop_run_instance(sweep_dir, current)
        name = current["name"] if current is not None else None
        raise storage_fault_stop(record, fault, name, read_phase(sweep_dir / name) if name else None) from exc
    finally:
        bar.close()
    return record


def _say_kept_load(sweep_dir: Path, entry: dict, profile: dict, bar: _Progress) -> None:
    """Before a run whose page size's datadir holds a completed load and no whole snapshot (a copy
    into the snapshot cut short): that the run keeps the load and copies its snapshot again, or why
    it loads again (pagelab.sweep.kept_load). The run's kernel decides by the same check, and says
    it in the run's notebook."""
    if not record_is_there(unit_instance_dir(sweep_dir, entry, None)):
        return  # the usual case: no record, and nothing more to import or read
    from pagelab.sweep.experiment import kept_load_line

    said = kept_load_line(sweep_dir, profile, entry)
    if said:
        bar.say(f"pagelab sweep: {entry['name']}: {said}")


def _check_room_for(sweep_dir: Path, entry: dict, profile: dict) -> None:
    """Refuse the run before it starts if its disk has too little room for it (the unit's own check)."""
    try:
        check_room_for_unit(sweep_dir, entry, profile, scratch=None)
    except NotEnoughSpace as short:
        raise UsageError(f"{short}; then continue with: pagelab sweep --resume {sweep_dir}") from None


def _stop_run_instance(sweep_dir: Path, entry: dict) -> None:
    """Belt and braces: whatever happened in the kernel, no server of this sweep keeps running."""
    stop_unit_server(sweep_dir, entry)


def summary_lines(record: SweepRecord) -> list[str]:
    """What the end of a sweep prints: median TpmC per page size with its interval, then a verdict
    for each pair of page sizes (pagelab.evidence), so no difference is shown without one."""
    from pagelab.evidence.grid import grid_factors, grid_lines
    from pagelab.evidence.outliers import outlier_lines
    from pagelab.evidence.medians import page_size_table, page_size_text
    from pagelab.evidence.wording import verdict_lines

    table = read_runs(record)
    if table.runs.empty:
        return ["no finished runs"]
    if grid_factors(table):  # compared within each level of the grid's other factor
        return grid_lines(table)
    per_size = page_size_table(table)
    lines = page_size_text(per_size[per_size["metric"] == "tpmc"])
    return lines + verdict_lines(table, "tpmc") + outlier_lines(table.runs)  # a slow disk's run, if one stands apart


def failed_runs(record: SweepRecord) -> list[str]:
    return [entry["name"] for entry in record.runs if entry["status"] == "failed"]


def sweep(profile, profile_name: str, out_dir: Path | None = None, fail_fast: bool = False,
          pdf_path: Path | None = None, progress: bool = True, noise: bool = False,
          report: dict | None = None, keep_instances: bool = False) -> tuple[SweepRecord, Path | None]:
    """Create the bundle, run every run, write the report. `report`: author, title, affiliation
    and notes for the PDF (see execute_report). The record as the sweep left it, and the PDF."""
    if pdf_path is not None:
        check_pdf_path(Path(pdf_path))  # before the runs, not after an hour of them
    sweep_dir = create_sweep(profile, out_dir, profile_name)
    if noise:
        from pagelab.machine.noise import NOISE_FILE, measure_noise

        atomic_write_json(sweep_dir / NOISE_FILE, measure_noise(sweep_dir, progress=progress))
    return finish(sweep_dir, fail_fast, pdf_path, progress, report, keep_instances)


def check_bundle_directory(sweep_dir: Path) -> None:
    """UsageError unless `sweep_dir` holds a sweep.json: checked before the lock, which would leave a
    lock file in a folder that is not a bundle."""
    if not Path(sweep_dir).is_dir():
        raise UsageError(f"{sweep_dir} does not exist; give the directory of a sweep to --resume")
    sweep_file(sweep_dir)


# The analysis a profile declares before the data, which sweep.json records when the bundle is made
# and a resume may not change: (knob, its record's field, the knob's default, its name in the
# refusal, what it decides).
DECLARED_ANALYSIS = (("primary", "comparison", "", "primary comparison", "a primary comparison"),
                     ("block_weights", "weights", EQUAL, "block_weights", "how the blocks are weighed"))


def check_resumable(sweep_dir: Path) -> SweepRecord:
    """The bundle's record, loaded; UsageError unless its knob values are the ones it started with."""
    from pagelab.sweep.profiles import profile_from_dict

    check_bundle_directory(sweep_dir)
    try:
        record = SweepRecord.load(sweep_dir)
        values = record.document["profile"]
        runs = record.runs
    except (json.JSONDecodeError, KeyError, TypeError) as damage:
        raise UsageError(f"{sweep_dir}/sweep.json is damaged ({damage}); it cannot be resumed, start a new "
                         "sweep with --out") from None
    profile_from_dict(values)  # a knob edited into something invalid is refused, naming the knob
    for knob, field, default, name, what in DECLARED_ANALYSIS:
        declared, now = (record.document.get(knob) or {}).get(field), values.get(knob, default)
        if declared is not None and declared != now:
            raise UsageError(f"{sweep_dir}/sweep.json's {name} is now {now or '(none)'!r}, but {declared or '(none)'!r} "
                             f"was declared when the bundle was made, before any run; {what} cannot change "
                             f"afterwards: put back {knob}: {declared!r}, or start a new sweep with --out")
    recorded = record.document.get("profile_sha256")
    if recorded is not None and recorded != profile_digest(values) and any(e["status"] == "done" for e in runs):
        raise UsageError(f"{sweep_dir}/sweep.json's knob values were changed after runs were measured with "
                         "the old ones, so its runs would not be comparable; put the values back, or start a "
                         "new sweep with --out")
    return record


def finish(sweep_dir: Path, fail_fast: bool = False, pdf_path: Path | None = None,
           progress: bool = True, report: dict | None = None,
           keep_instances: bool = False) -> tuple[SweepRecord, Path | None]:
    """Run what is left of a bundle, then its report and tidy-up, under the bundle's lock; sweep.json
    is loaded once the lock is held, and that record is passed on. The record as the sweep left it,
    and the PDF."""
    if pdf_path is not None:
        check_pdf_path(Path(pdf_path))
    check_bundle_directory(sweep_dir)
    refuse_unwritable(Path(sweep_dir), "cannot continue the sweep in")
    with bundle_lock(sweep_dir), stop_signals_interrupt() as stop:
        record = check_resumable(sweep_dir)
        refuse_runs_while_queued(record)
        _say_footprint_ahead(record)
        # From here on a filesystem turned read-only is said within seconds, whatever is under way
        # (storage_stop.ReadOnlyWatch); a stop it makes that nothing below says, it says on its way out.
        with ReadOnlyWatch(record) as watch:
            runs_before = [(entry["name"], entry["status"]) for entry in record.runs]
            record = execute_runs(record, fail_fast=fail_fast, progress=progress, watch=watch)
            failed = failed_runs(record)
            if failed:
                print(f"pagelab sweep: {len(failed)} run(s) failed: {', '.join(failed)} (see sweep.json and their "
                      "run.ipynb)", file=sys.stderr)
            watch.follow(sweep_dir / "report.ipynb", stage="report")
            reported_before = record.document.get("report")
            try:
                pdf = (recorded_report_still_current(record, runs_before, pdf_path, report)
                       or execute_report(record, pdf_path, **(report or {}), between_cells=stop.raise_if_received,
                                      sweep_step=True))
            except ReadOnlySeen:
                if _recorded_report(sweep_dir) not in (None, reported_before):  # it struck once the report was done
                    watch.follow(sweep_dir / "instances", stage="tidy-up after the report")
                raise
            except KeyboardInterrupt:
                raise SweepInterrupted(f"sweep interrupted while writing the report; every run is kept. "
                                       f"Continue with: pagelab sweep --resume {sweep_dir}") from None
            except Exception as exc:
                watch.disarm()
                stop_if_storage_fault(record, exc, "report")
                raise
            watch.follow(sweep_dir / "instances", stage="tidy-up after the report")
            try:
                tidy_up(record, keep_instances)
            except ReadOnlySeen:
                raise
            except Exception as exc:
                watch.disarm()
                stop_if_storage_fault(record, exc, "tidy-up after the report", sweep_dir / "instances")
                raise
    return record, pdf


def recorded_report_still_current(record: SweepRecord, runs_before: list[tuple[str, str]], pdf_path: Path | None,
                                  report: dict | None) -> Path | None:
    """The bundle's PDF, if the report sweep.json records is the one this resume would make: every
    run was done before it began and none was added, the PDF and its executed notebook are there, and
    nothing asks for another (a title, an author, notes, a copy elsewhere). A sweep stopped after its
    report (in the tidy-up, say) then finishes without executing the report notebook and printing the
    PDF again, a minute's work on a small machine; `pagelab report` makes one anew. None otherwise."""
    recorded = record.document.get("report")
    runs_now = [(entry["name"], entry["status"]) for entry in record.runs]
    if not recorded or runs_now != runs_before or any(status != "done" for _, status in runs_now):
        return None
    if any((report or {}).values()):
        return None
    bundle_pdf = record.directory / REPORT_PDF
    copy = Path(recorded.get("copy") or "")
    if pdf_path is not None and Path(pdf_path).resolve() != copy.resolve():
        return None
    if not (is_complete_pdf(bundle_pdf) and is_complete_pdf(copy)
            and (record.directory / recorded.get("notebook", "report.ipynb")).is_file()):
        return None  # (a disk that failed under them may have lost what was written last)
    print(f"pagelab sweep: the report recorded in sweep.json ({recorded.get('written')}) is of these runs: "
          f"kept, not made again ({bundle_pdf}; `pagelab report {record.directory}` makes it anew)", file=sys.stderr)
    return bundle_pdf


def _recorded_report(sweep_dir: Path) -> dict | None:
    """The report sweep.json on the disk names (None if none, or if it cannot be read)."""
    try:
        return SweepRecord.load(sweep_dir).document.get("report")
    except (OSError, ValueError):
        return None


def refuse_runs_while_queued(record: SweepRecord) -> None:
    """A local run must not run units that Slurm jobs of the same bundle may still run."""
    from pagelab.sweep.slurm import refuse_while_queued

    submissions = record.document.get("slurm") or []
    if not submissions:
        return
    try:
        refuse_while_queued(record.directory, submissions)
    except MissingDependencyError:
        print(f"pagelab sweep: warning: {record.directory} was submitted to Slurm, and this machine cannot ask "
              "Slurm whether its jobs still run (no squeue); make sure they have ended", file=sys.stderr)


def _say_footprint_ahead(record: SweepRecord) -> None:
    from pagelab.sweep.footprint import sweep_estimate
    from pagelab.sweep.profiles import profile_from_dict

    sweep_dir = record.directory
    profile = profile_from_dict(record.document["profile"])
    levels = profile.warehouses if isinstance(profile.warehouses, tuple) else (profile.warehouses,)
    needed = sum(sweep_estimate(len(set(profile.page_sizes)), warehouses, profile.redo_log) for warehouses in levels)
    free = shutil.disk_usage(sweep_dir).free
    print(f"pagelab sweep: while it runs, this sweep keeps about {size_text(needed)} in {sweep_dir} (a datadir "
          f"and a snapshot per page size, removed at the end unless --keep-instances); "
          f"{size_text(free)} free there", file=sys.stderr)


def tidy_up(record: SweepRecord, keep_instances: bool) -> None:
    """After the report: the datadirs and snapshots go, unless asked to keep them or a run still
    has to be redone with --resume, and the user is told what the bundle holds."""
    from pagelab.sweep.footprint import remove_instances, tree_bytes

    sweep_dir = record.directory
    for leftover in leftover_temporaries(sweep_dir):  # a rename a failing disk lost, or a writer killed mid-write
        leftover.unlink(missing_ok=True)
    keep = keep_instances or any(entry["status"] != "done" for entry in record.runs)
    if not keep and remove_instances(sweep_dir):
        record.update_document(instances_removed=now_iso())
    kept = " (datadirs and snapshots kept)" if keep else ""
    print(f"pagelab sweep: the bundle holds {size_text(tree_bytes(sweep_dir))}{kept}", file=sys.stderr)


@contextmanager
def bundle_lock(sweep_dir: Path) -> Iterator[None]:
    """One process at a time runs a sweep: two would take the same pending run and its server.

    The lock is BUNDLE/.sweep.lock (pagelab.common.locks, a lockf lock, which NFS carries to the
    other nodes), holding the holder's pid and host for the message a second sweep gets. The kernel
    drops the lock when its process dies, so a sweep killed with -9 leaves only the file, and the
    next sweep takes it over. The file is removed at the end."""
    lock_path = Path(sweep_dir) / LOCK_FILE
    try:
        with held_lock(lock_path, wait=False, remove=True):
            yield
    except LockBusy as busy:
        if busy.path != lock_path:  # another lock, busy within the sweep
            raise
        raise UsageError(f"{sweep_dir} is in use by another pagelab sweep ({busy.holder}); wait for it to end, "
                         f"or stop it (Ctrl-C in its terminal, or kill {holder_pid(busy.holder)}) and then "
                         f"continue with --resume {sweep_dir}") from None
