"""One run of seed 002's experiment: one page size, one repeat, from datadir to tidy tables.

The run notebook (notebooks/tpcc_page_size_run.ipynb) calls `run_tpcc_page_size` with the sweep's
profile, a page size and a repeat. What the run takes from the profile is its `RunPlan`, built in
one place (`run_plan`). The steps:

1. init    the page size's instance (sweep_dir/instances/<page>/), the first time only;
2. load    TPC-C from the seeded cache, measure the loaded size, stop cleanly, snapshot the
           datadir — later repeats restore that snapshot instead, so every repeat starts from the
           identical loaded state;
3. start   with the measured buffer pool (bytes, or a percentage of the loaded size);
4. run     monitors (iostat, InnoDB status, global status) around the TPC-C driver, on one clock;
5. record  my.cnf, SHOW VARIABLES, this run's part of the error log, tidy tables, summary.json.

The server is stopped on every way out, including Ctrl-C and errors.

Units of a sweep may run at once on several nodes sharing the bundle (pagelab.sweep.run_unit). The
page size's instance and snapshot are guarded by its lock, instances/.<page>.lock: whoever needs
the snapshot first makes it while the others wait, then restores it. A run in the page size's own
instance holds that lock to its end; a run given `instance_dir` (its own server) holds it only
until the snapshot exists. The generated TPC-C cache is made under the cache's lock likewise.
"""

from __future__ import annotations

import json
import shutil
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.atomic import atomic_write_csv, atomic_write_json
from pagelab.common.locks import BUNDLE_LOCKS_DIR, LockBusy, held_lock, writer_lock
from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.instance import SNAPSHOT_MARKER, DiskWatch
from pagelab.mysql.client import ConnectionSpec, database_bytes
from pagelab.mysql.pagesize import parse_page_size
from pagelab.common.paths import CACHE_DIR
from pagelab.sweep.profiles import KNOBS_BY_NAME, Profile
from pagelab.bundle import project_path, run_name, set_phase
from pagelab.tpcc.modes import TPCC_MYSQL_LOADER
from pagelab.tpcc.outputs import RunOptions
from pagelab.common.units import MIB, page_size_label

LOADED_FILE = "loaded.json"
CACHE_LOCK = ".generate.lock"  # in the cache directory: one process generates a dataset, others wait
# A pool large enough for the load to run from memory; the measured pool is set afterwards.
LOAD_BUFFER_POOL_BYTES = 256 * MIB


@dataclass(frozen=True)
class RunPlan:
    """Everything one run takes from the profile: the only place a run reads the profile's knobs.

    `run_plan` builds it; a test varies every knob and checks that each one changes a plan."""

    page_size_bytes: int
    repeat: int
    run_options: RunOptions
    server_settings: ServerSettings | None  # of the measured run; None until a pool in % can be resolved
    load_settings: ServerSettings  # of the load: LOAD_BUFFER_POOL_BYTES
    monitor_interval_s: int
    loader: str
    tpcc_mysql_dir: str

    @property
    def name(self) -> str:
        return run_name(self.page_size_bytes, self.repeat)


def run_plan(profile: Profile, page_size: int | str, repeat: int, db_bytes: int | None) -> RunPlan:
    """The plan of one run; `db_bytes` (the loaded database) resolves a buffer pool given in %."""
    page_size_bytes = parse_page_size(page_size)
    return RunPlan(
        page_size_bytes=page_size_bytes, repeat=int(repeat), run_options=profile.run_options(),
        server_settings=None if db_bytes is None and profile.buffer_pool.percent_of_db is not None
        else profile.server_settings(db_bytes, page_size=page_size_bytes),
        load_settings=profile.server_settings(None, LOAD_BUFFER_POOL_BYTES),
        monitor_interval_s=profile.sample_interval_s, loader=profile.loader, tpcc_mysql_dir=profile.tpcc_mysql_dir)


def loaded_state(instance_dir: Path) -> dict | None:
    """What the load of this page size measured, once its snapshot exists."""
    path = Path(instance_dir) / LOADED_FILE
    snapshot_marker = Path(instance_dir) / "snapshot" / SNAPSHOT_MARKER
    if path.exists() and snapshot_marker.exists():
        return json.loads(path.read_text())
    return None


def loaded_bytes(connection: ConnectionSpec, database: str = "tpcc") -> int:
    link = connection.connect()
    try:
        return database_bytes(link.cursor(), database)
    finally:
        link.close()


def page_lock_path(sweep_dir: Path, page_size_bytes: int) -> Path:
    return Path(sweep_dir) / BUNDLE_LOCKS_DIR / f"instance-{page_size_label(page_size_bytes)}.lock"


def _hold_page_lock(stack: ExitStack, sweep_dir: Path, plan: RunPlan, run_dir: Path) -> None:
    """The page size's lock, waited for (and the wait shown as a phase) if another unit has it."""
    path = page_lock_path(sweep_dir, plan.page_size_bytes)
    try:
        stack.enter_context(held_lock(path, wait=False))
    except LockBusy:
        set_phase(run_dir, f"wait for {page_size_label(plan.page_size_bytes)}")
        stack.enter_context(held_lock(path))


def _prepare_loaded_instance(plan: RunPlan, sweep_dir: Path, cache_dir: Path, run_dir: Path) -> tuple[Instance, dict]:
    """The page size's instance with TPC-C loaded: restored from its snapshot, or loaded now.
    The caller holds the page size's lock."""
    instance_dir = sweep_dir / "instances" / page_size_label(plan.page_size_bytes)
    state = loaded_state(instance_dir)
    instance = Instance(instance_dir, plan.page_size_bytes, settings=plan.load_settings)
    if state is not None:
        set_phase(run_dir, "restore")
        instance.stop()
        instance.restore()
        return instance, state
    set_phase(run_dir, "init")
    instance.init(force=True)
    options = plan.run_options
    with instance:
        instance.start()
        set_phase(run_dir, "load")
        spec = ConnectionSpec.for_instance(instance, tcp=options.transport == "tcp")
        if plan.loader == TPCC_MYSQL_LOADER:
            from pagelab.tpcc.external import load_with_tpcc_mysql

            load_with_tpcc_mysql(spec, options.warehouses, options.database, Path(plan.tpcc_mysql_dir),
                                 log_path=run_dir / "tpcc_load.log", echo=None, local_socket=local_socket(instance),
                                 transport=options.transport)
            load_report = {"loader": TPCC_MYSQL_LOADER}
        else:
            from pagelab.tpcc.datagen import generate
            from pagelab.tpcc.loader import load

            with held_lock(Path(cache_dir) / CACHE_LOCK):
                dataset = generate(options.warehouses, options.seed, cache_dir=cache_dir, progress=False)
            report = load(spec, dataset, database=options.database, progress=False)
            load_report = {"loader": "pagelab", "seconds_tables": report.seconds_tables,
                           "seconds_indexes": report.seconds_indexes, "seconds_verify": report.seconds_verify,
                           "row_counts": report.row_counts, "dataset": str(dataset.directory)}
        db_bytes = loaded_bytes(spec, options.database)
    set_phase(run_dir, "snapshot")
    instance.snapshot()
    state = {"db_bytes": db_bytes, "warehouses": options.warehouses, "seed": options.seed, "load": load_report}
    atomic_write_json(instance_dir / LOADED_FILE, state)
    return instance, state


def run_tpcc_page_size(sweep_dir: str | Path, profile: Profile, page_size: int | str, repeat: int,
                       cache_dir: str | Path = CACHE_DIR, instance_dir: str | Path | None = None) -> dict:
    """Run one page size and repeat of `profile` into sweep_dir/<page>-r<k>/; returns its summary.
    `instance_dir`: a server of the run's own there, restored from the page size's snapshot and
    removed at the end, instead of the page size's instance (see the module comment)."""
    sweep_dir, cache_dir = project_path(sweep_dir), project_path(cache_dir)
    plan = run_plan(profile, page_size, repeat, db_bytes=None)
    plan.run_options.validate()
    run_dir = sweep_dir / plan.name
    run_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        stack.enter_context(held_lock(writer_lock(sweep_dir, plan.name)))  # see pagelab.common.locks.writer_lock
        page_lock = stack.enter_context(ExitStack())
        _hold_page_lock(page_lock, sweep_dir, plan, run_dir)
        if not instance_dir:
            instance, state = _prepare_loaded_instance(plan, sweep_dir, cache_dir, run_dir)
        else:
            page_dir = sweep_dir / "instances" / page_size_label(plan.page_size_bytes)
            state = loaded_state(page_dir)
            if state is None:
                _, state = _prepare_loaded_instance(plan, sweep_dir, cache_dir, run_dir)
            page_lock.close()  # the snapshot exists and is only read from here on
            set_phase(run_dir, "restore")
            shutil.rmtree(instance_dir, ignore_errors=True)  # a killed earlier attempt's copy
            instance = Instance(instance_dir, plan.page_size_bytes, settings=plan.load_settings)
            stack.callback(_remove_own_instance, instance)
            instance.restore_new(page_dir / "snapshot")
        return _measure(instance, state, plan, profile, run_dir)


def _remove_own_instance(instance: Instance) -> None:
    """A run's own server goes with the run: its datadir is a copy of the snapshot, and what the
    run needs from it (my.cnf, its part of the error log) is already in the run directory."""
    instance.stop()
    shutil.rmtree(instance.root, ignore_errors=True)
    if instance.paths.socket.parent != instance.root:  # a long path's socket lives in the temp dir
        instance.paths.socket.unlink(missing_ok=True)


def _measure(instance: Instance, state: dict, plan: RunPlan, profile: Profile, run_dir: Path) -> dict:
    """Steps 3 to 5 of the module comment, on a loaded and stopped instance."""
    from pagelab.monitor import Monitor
    from pagelab.tpcc.driver import run

    plan = run_plan(profile, plan.page_size_bytes, plan.repeat, db_bytes=state["db_bytes"])
    instance.settings = plan.server_settings
    log_offset = instance.paths.error_log.stat().st_size if instance.paths.error_log.exists() else 0
    with instance:
        set_phase(run_dir, "start")
        instance.start()
        shutil.copyfile(instance.paths.my_cnf, run_dir / "my.cnf")
        spec = ConnectionSpec.for_instance(instance, tcp=plan.run_options.transport == "tcp")
        with Monitor(instance, run_dir, interval_s=plan.monitor_interval_s) as monitor:
            set_phase(run_dir, "ramp-up + measure")

            def progress(t_s, _row):
                set_phase(run_dir, f"measure {t_s:.0f}/{plan.run_options.longest_measure_s} s")

            result = run(spec, plan.run_options, out_dir=run_dir, echo=None, on_interval=progress,
                         on_start=lambda measure_start: monitor.mark_measurement_start(measure_start),
                         local_socket=local_socket(instance),
                         watch=DiskWatch(instance.paths.datadir.parent, instance.page_size_label).failure)
        set_phase(run_dir, "record")
        _write_variables(instance, run_dir / "variables.csv")
    _copy_log_part(instance.paths.error_log, log_offset, run_dir / "mysqld.err")
    summary = dict(result.summary)
    summary.update(page_size_bytes=plan.page_size_bytes, repeat=plan.repeat, run=plan.name,
                   db_bytes=state["db_bytes"], buffer_pool_requested_bytes=plan.server_settings.buffer_pool_bytes,
                   buffer_pool_spec=KNOBS_BY_NAME["buffer_pool"].text(profile.buffer_pool))
    atomic_write_json(run_dir / "summary.json", summary)  # buffer_pool_bytes: what the server reported
    set_phase(run_dir, "done")
    return summary


def local_socket(instance: Instance) -> str | None:
    """The socket tpcc-mysql's programs log in over without a password (MariaDB instances)."""
    return str(instance.paths.socket) if instance.flavour.flavour == "mariadb" else None


def _write_variables(instance: Instance, path: Path) -> None:
    atomic_write_csv(path, [["variable_name", "value"], *instance.query("SHOW GLOBAL VARIABLES")])


def _copy_log_part(source: Path, offset: int, target: Path) -> None:
    """This run's part of the instance's error log (the instance serves every repeat)."""
    try:
        with open(source, "rb") as handle:
            handle.seek(offset)
            target.write_bytes(handle.read())
    except OSError:
        target.write_text("")
