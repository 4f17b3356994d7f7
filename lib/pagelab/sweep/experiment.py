"""One run of the Week 4 lab's experiment: one page size, one repeat, from datadir to tidy tables.

The run notebook (notebooks/tpcc_page_size_run.ipynb) calls `run_tpcc_page_size` with the sweep's
profile, a page size and a repeat. What the run takes from the profile is its `RunPlan`, built in
one place (`run_plan`). The steps:

1. init    the page size's instance (sweep_dir/instances/<page>/), the first time only;
2. load    TPC-C from the seeded cache, measure the loaded size, stop cleanly, snapshot the
           datadir, the first time only; every run, the first included, then restores that
           snapshot, so every repeat starts from the identical loaded state. A load that completed
           and whose snapshot's copy was cut short is kept, not loaded again (`kept_load`);
3. start   with the measured buffer pool: bytes, or a percentage of the sweep's memory budget
           reference (below);
4. run     monitors (iostat, InnoDB status, global status) around the TPC-C driver, on one clock,
           the server and this process placed on the CPUs as `cpu_placement` says
           (pagelab.machine.placement; the summary records where each ran);
5. record  my.cnf, SHOW VARIABLES, this run's part of the error log, tidy tables, summary.json,
           with the CPU other processes used while the run measured (pagelab.machine.other_work).

The server is stopped on every way out, including Ctrl-C and errors.

The first run after a load. Every run, the first of a page size included, starts from a copy of the
snapshot, and the kernel's pending writes are flushed (sync) before its server starts. Without
that, a page size's first run began on the datadir the load had just left, while the kernel was
still writing back the load's redo and the snapshot's copy: in two quick sweeps of 2026-11-26 the
first run of a page size was the lowest or second lowest of its nine in 5 of 6 cases
(`pagelab stats BUNDLE --checks` reads this from any bundle). The summary records how much was pending
(`writeback_before_start`).

One memory budget. A pool given as a percentage is resolved once per sweep, against the largest
loaded database of the sweep's page sizes (at the run's warehouses), so every page size gets the
same bytes, as the lab's server did (its status output shows 256 MiB at 4k, 8k and 16k). Each page
size loads a slightly different database (4k pages pack rows differently from 16k), so a pool
taken of each one's own size would give the page size with the larger database more memory, and
the comparison would be confounded with the pool. The first run that needs the budget loads every
page size (each under its own lock, in the sweep's page-size order, so two units never wait on each
other), and records it in sweep.json under "memory_budget"; every later run reads it from there.

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
from pagelab.common.disk import flush_pending_writes
from pagelab.common.locks import BUNDLE_LOCKS_DIR, LockBusy, held_lock, writer_lock
from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER, snapshot_problem
from pagelab.mysql.supervision import DiskWatch
from pagelab.mysql.client import ConnectionSpec, database_bytes
from pagelab.mysql.pagesize import parse_page_size
from pagelab.machine.placement import placed
from pagelab.common.paths import CACHE_DIR
from pagelab.sweep import kept_load
from pagelab.sweep.knobs import KNOBS_BY_NAME
from pagelab.sweep.profiles import Profile
from pagelab.bundle import instance_name, project_path, set_phase, unit_name
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
    cell: dict  # the unit's levels of the grid's factors, as sweep.json writes them; {} without a grid
    role: str  # "verdict", or "over_time": a long run for the figures over time (profiles.OVER_TIME_RUN)
    run_options: RunOptions
    server_settings: ServerSettings | None  # of the measured run; None until a pool in % can be resolved
    load_settings: ServerSettings  # of the load: LOAD_BUFFER_POOL_BYTES
    monitor_interval_s: int
    loader: str
    tpcc_mysql_dir: str
    cpu_placement: str  # pagelab.machine.placement: where the server and the driver run

    @property
    def name(self) -> str:
        return unit_name(self.page_size_bytes, self.repeat, self.cell, self.role)

    @property
    def instance_name(self) -> str:
        return instance_name(self.page_size_bytes, self.cell)


def run_plan(profile: Profile, page_size: int | str, repeat: int, db_bytes: int | None,
             cell: dict | None = None, role: str = "verdict") -> RunPlan:
    """The plan of one run; `db_bytes` (the sweep's memory-budget reference, `memory_budget`)
    resolves a buffer pool given in %. `profile` is the sweep's; a unit of a grid gives its `cell`."""
    page_size_bytes = parse_page_size(page_size)
    cell = dict(cell or {})
    profile = profile.for_cell(cell).for_role(role)
    return RunPlan(
        page_size_bytes=page_size_bytes, repeat=int(repeat), cell=cell, role=role, run_options=profile.run_options(),
        server_settings=None if db_bytes is None and profile.buffer_pool.percent_of_db is not None
        else profile.server_settings(db_bytes, page_size=page_size_bytes),
        load_settings=profile.server_settings(None, LOAD_BUFFER_POOL_BYTES),
        monitor_interval_s=profile.sample_interval_s, loader=profile.loader, tpcc_mysql_dir=profile.tpcc_mysql_dir,
        cpu_placement=profile.cpu_placement)


def loaded_state(instance_dir: Path, run_dir: Path | None = None) -> dict | None:
    """What the load of this page size measured, once its snapshot exists and is whole. A snapshot
    that is not (a disk that failed under it: pagelab.mysql.snapshot_record.snapshot_problem) counts as
    none, so the page size is loaded and snapshotted again; `run_dir`'s notebook says so."""
    path = Path(instance_dir) / LOADED_FILE
    snapshot = Path(instance_dir) / "snapshot"
    if not (path.exists() and (snapshot / SNAPSHOT_MARKER).exists()):
        return None
    problem = snapshot_problem(snapshot)
    if problem is None:
        try:
            return json.loads(path.read_text())
        except ValueError as damage:
            problem = f"{LOADED_FILE} is not whole ({damage})"
    if run_dir is not None:
        print(f"snapshot {snapshot} is not whole ({problem}): the page size is loaded and snapshotted again")
    return None


def loaded_bytes(connection: ConnectionSpec, database: str = "tpcc") -> int:
    link = connection.connect()
    try:
        return database_bytes(link.cursor(), database)
    finally:
        link.close()


def page_lock_path(sweep_dir: Path, name: str) -> Path:
    """The lock of an instance (`instance_name`: the page size, and the warehouses in a grid of them)."""
    return Path(sweep_dir) / BUNDLE_LOCKS_DIR / f"instance-{name}.lock"


def _hold_page_lock(stack: ExitStack, sweep_dir: Path, plan: RunPlan, run_dir: Path) -> None:
    """The page size's lock, waited for (and the wait shown as a phase) if another unit has it."""
    path = page_lock_path(sweep_dir, plan.instance_name)
    try:
        stack.enter_context(held_lock(path, wait=False))
    except LockBusy:
        set_phase(run_dir, f"wait for {plan.instance_name}")
        stack.enter_context(held_lock(path))


def instance_directory(sweep_dir: Path, plan: RunPlan) -> Path:
    """Where a page size's instance and its loaded snapshot live (`bundle.instance_name`)."""
    return Path(sweep_dir) / "instances" / plan.instance_name


MEMORY_BUDGET_KEY = "memory_budget"  # in sweep.json
MEMORY_BUDGET_RULE = "the largest loaded database of the sweep's page sizes"


def memory_budget(sweep_dir: Path, profile: Profile, cache_dir: Path, run_dir: Path, cell: dict | None = None) -> dict:
    """The sweep's memory-budget reference at the profile's warehouses (see the module comment):
    {"rule", "reference_page_size", "reference_db_bytes", "loaded_db_bytes": {page: bytes}},
    read from sweep.json, or measured now (loading every page size not yet loaded) and recorded.
    The caller holds no page size's lock."""
    from pagelab.bundle import SweepRecord

    cell = dict(cell or {})
    key = str(profile.for_cell(cell).warehouses)
    record = SweepRecord.load(sweep_dir)
    known = (record.document.get(MEMORY_BUDGET_KEY) or {}).get(key)
    if known is not None:
        return known
    loaded = {}
    for page_size in profile.page_sizes:  # the profile's order: every unit takes the locks in it
        plan = run_plan(profile, page_size, 1, db_bytes=None, cell=cell)
        state = loaded_state(instance_directory(sweep_dir, plan))
        if state is None:
            with ExitStack() as stack:
                _hold_page_lock(stack, sweep_dir, plan, run_dir)
                instance, state = _prepare_loaded_instance(plan, sweep_dir, cache_dir, run_dir, measured_here=False)
                instance.stop()
        loaded[page_size_label(page_size)] = int(state["db_bytes"])
    reference = max(loaded, key=loaded.get)
    budget = {"rule": MEMORY_BUDGET_RULE, "warehouses": int(key), "reference_page_size": reference,
              "reference_db_bytes": loaded[reference], "loaded_db_bytes": loaded}
    with held_lock(Path(sweep_dir) / BUNDLE_LOCKS_DIR / "memory-budget.lock"):
        current = SweepRecord.load(sweep_dir).document.get(MEMORY_BUDGET_KEY) or {}
        if key not in current:  # another unit may have measured the same budget meanwhile
            current[key] = budget
            record.update_document(**{MEMORY_BUDGET_KEY: current})
    return current[key]


def _prepare_loaded_instance(plan: RunPlan, sweep_dir: Path, cache_dir: Path, run_dir: Path,
                             measured_here: bool = True) -> tuple[Instance, dict]:
    """The page size's instance with TPC-C loaded: restored from its snapshot, or loaded now (and,
    when it is to be `measured_here`, restored from the snapshot just taken). The caller holds the
    page size's lock."""
    instance_dir = instance_directory(sweep_dir, plan)
    state = loaded_state(instance_dir, run_dir)
    instance = Instance(instance_dir, plan.page_size_bytes, settings=plan.load_settings)
    if state is not None:
        set_phase(run_dir, "restore")
        instance.stop()
        kept_load.forget(instance_dir)  # (one a kill left between loaded.json and its removal)
        instance.restore()
        return instance, state
    state, said = kept_load_state(instance, plan)
    if said:
        print(said)  # into the run's notebook; the sweep says it on the terminal (kept_load_line)
    if state is None:
        state = _load(instance, plan, cache_dir, run_dir)
    set_phase(run_dir, "snapshot")
    instance.snapshot()
    atomic_write_json(instance_dir / LOADED_FILE, state)
    kept_load.forget(instance_dir)  # the snapshot holds the load from here on
    if measured_here:
        # The first run starts from a restored copy as every later one does, not from the datadir the
        # load left: one path into every measurement (see "The first run after a load" above).
        set_phase(run_dir, "restore")
        instance.restore()
    return instance, state


def load_config(plan: RunPlan, instance: Instance) -> dict:
    """What a load's datadir depends on: a datadir loaded with anything else is not kept for this run
    (pagelab.sweep.kept_load)."""
    from pagelab.tpcc.population import GENERATOR_VERSION

    options = plan.run_options
    external = plan.loader == TPCC_MYSQL_LOADER
    return {"page_size": plan.page_size_bytes, "warehouses": options.warehouses, "seed": options.seed,
            "database": options.database, "loader": plan.loader,
            "generator": plan.tpcc_mysql_dir if external else GENERATOR_VERSION,
            "load_settings": plan.load_settings.to_dict(),
            "server": f"{instance.flavour.flavour} {instance.flavour.version}"}


def kept_load_state(instance: Instance, plan: RunPlan) -> tuple[dict | None, str | None]:
    """The state of a completed load the instance's datadir still holds (its snapshot not taken
    whole), if pagelab.sweep.kept_load's record of it holds for this run; and what to say: that
    it is kept, or why a record there is not."""
    if not kept_load.record_is_there(instance.root):
        return None, None
    unusable = ("a server is running on it" if instance.is_running()
                else None if instance.is_initialised() else "it is not a whole instance (no grant tables or client.cnf)")
    record, why = kept_load.check(instance.root, instance.paths.datadir, load_config(plan, instance), unusable)
    name = instance.root.name
    if record is None:
        return None, kept_load.not_kept_text(name, why) if why else None
    state = {**record["state"], "load_kept_by": plan.name}  # loaded.json says the load was kept, and by whom
    return state, kept_load.kept_text(name, record)


def kept_load_line(sweep_dir: Path, profile: dict, entry: dict) -> str | None:
    """What a sweep says before the run `entry` if the run will keep (or finds and does not keep)
    a completed load of its page size (kept_load_state): None in every other case, at the cost of
    a look for a file."""
    from pagelab.sweep.profiles import profile_from_dict

    plan = run_plan(profile_from_dict(profile), entry["page_size_bytes"], entry["repeat"], db_bytes=None,
                    cell=entry.get("cell"), role=entry.get("role", "verdict"))
    instance_dir = instance_directory(sweep_dir, plan)
    if not kept_load.record_is_there(instance_dir) or loaded_state(instance_dir) is not None:
        return None
    return kept_load_state(Instance(instance_dir, plan.page_size_bytes, settings=plan.load_settings), plan)[1]


def _load(instance: Instance, plan: RunPlan, cache_dir: Path, run_dir: Path) -> dict:
    """Init the instance and load TPC-C into it; what the load measured. Once pagelab's loader has
    returned verified and the server has shut down cleanly, the datadir's load is recorded
    (pagelab.sweep.kept_load), so that a snapshot's copy cut short does not cost the load again."""
    instance_dir = instance.root
    kept_load.forget(instance_dir)  # the datadir is made again: no record may outlive the load it describes
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
        clean = instance.stop()
    state = {"db_bytes": db_bytes, "warehouses": options.warehouses, "seed": options.seed, "load": load_report}
    # Kept only if verified (tpcc_load's data is taken on its exit status alone) and shut down cleanly
    # (a server killed on its way down leaves a datadir that only a crash recovery makes whole).
    if clean and plan.loader != TPCC_MYSQL_LOADER:
        kept_load.remember(instance_dir, instance.paths.datadir, load_config(plan, instance), state, run_dir.name)
    return state


def run_tpcc_page_size(sweep_dir: str | Path, profile: Profile, page_size: int | str, repeat: int,
                       cache_dir: str | Path = CACHE_DIR, instance_dir: str | Path | None = None,
                       cell: dict | None = None, role: str = "verdict") -> dict:
    """Run one page size and repeat of `profile` (at `cell` of its grid, as a run of `role`) into sweep_dir/<run>/;
    returns its summary. `instance_dir`: a server of the run's own there, restored from the page
    size's snapshot and removed at the end, instead of the page size's instance (see the module
    comment)."""
    sweep_dir, cache_dir = project_path(sweep_dir), project_path(cache_dir)
    plan = run_plan(profile, page_size, repeat, db_bytes=None, cell=cell, role=role)
    cell_profile = profile.for_cell(plan.cell)
    plan.run_options.validate()
    run_dir = sweep_dir / plan.name
    run_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        stack.enter_context(held_lock(writer_lock(sweep_dir, plan.name)))  # see pagelab.common.locks.writer_lock
        budget = (memory_budget(sweep_dir, profile, cache_dir, run_dir, plan.cell)  # before the page size's lock
                  if cell_profile.buffer_pool.percent_of_db is not None else None)
        page_lock = stack.enter_context(ExitStack())
        _hold_page_lock(page_lock, sweep_dir, plan, run_dir)
        if not instance_dir:
            instance, state = _prepare_loaded_instance(plan, sweep_dir, cache_dir, run_dir)
        else:
            page_dir = instance_directory(sweep_dir, plan)
            state = loaded_state(page_dir)
            if state is None:
                _, state = _prepare_loaded_instance(plan, sweep_dir, cache_dir, run_dir, measured_here=False)
            page_lock.close()  # the snapshot exists and is only read from here on
            set_phase(run_dir, "restore")
            shutil.rmtree(instance_dir, ignore_errors=True)  # a killed earlier attempt's copy
            instance = Instance(instance_dir, plan.page_size_bytes, settings=plan.load_settings)
            stack.callback(_remove_own_instance, instance)
            instance.restore_new(page_dir / "snapshot")
        return _measure(instance, state, plan, profile, run_dir, budget)


def _remove_own_instance(instance: Instance) -> None:
    """A run's own server goes with the run: its datadir is a copy of the snapshot, and what the
    run needs from it (my.cnf, its part of the error log) is already in the run directory."""
    instance.stop()
    shutil.rmtree(instance.root, ignore_errors=True)
    if instance.paths.socket.parent != instance.root:  # a long path's socket lives in the temp dir
        instance.paths.socket.unlink(missing_ok=True)


def _measure(instance: Instance, state: dict, plan: RunPlan, profile: Profile, run_dir: Path,
             budget: dict | None) -> dict:
    """Steps 3 to 5 of the module comment, on a loaded and stopped instance."""
    from pagelab.machine.other_work import OtherWork
    from pagelab.monitor import Monitor
    from pagelab.tpcc.driver import run

    reference = budget["reference_db_bytes"] if budget else None
    plan = run_plan(profile, plan.page_size_bytes, plan.repeat, db_bytes=reference, cell=plan.cell, role=plan.role)
    if budget:  # a percentage is checked exactly now that the data's size is known (knobs._pools_fit)
        from pagelab.common.errors import UsageError
        from pagelab.sweep.knobs import machine_memory_bytes, pool_problem

        problem = pool_problem(plan.server_settings.buffer_pool_bytes, profile.page_sizes, machine_memory_bytes())
        if problem:
            raise UsageError(f"buffer_pool: {KNOBS_BY_NAME['buffer_pool'].text(profile.for_cell(plan.cell).buffer_pool)} "
                             f"of {reference} bytes: {problem}")
    instance.settings = plan.server_settings
    set_phase(run_dir, "flush")
    writeback = flush_pending_writes()
    log_offset = instance.paths.error_log.stat().st_size if instance.paths.error_log.exists() else 0
    with instance:
        set_phase(run_dir, "start")
        instance.start()
        shutil.copyfile(instance.paths.my_cnf, run_dir / "my.cnf")
        spec = ConnectionSpec.for_instance(instance, tcp=plan.run_options.transport == "tcp")
        with placed(instance.pid(), plan.cpu_placement) as placement, \
                Monitor(instance, run_dir, interval_s=plan.monitor_interval_s) as monitor:
            set_phase(run_dir, "ramp-up + measure")

            def progress(t_s, _row):
                set_phase(run_dir, f"measure {t_s:.0f}/{plan.run_options.longest_measure_s} s")

            other_work = OtherWork(instance.pid())

            def measurement_started(measure_start):
                monitor.mark_measurement_start(measure_start)
                # a fixed ramp-up announces its measurement's start ahead of it: read /proc then
                other_work.start_at(measure_start)

            try:
                result = run(spec, plan.run_options, out_dir=run_dir, echo=None, on_interval=progress,
                             on_start=measurement_started, local_socket=local_socket(instance),
                             watch=DiskWatch(instance.paths.datadir.parent, instance.page_size_label).failure)
            finally:
                other_work.stop()
        set_phase(run_dir, "record")
        _write_variables(instance, run_dir / "variables.csv")
    _copy_log_part(instance.paths.error_log, log_offset, run_dir / "mysqld.err")
    summary = dict(result.summary)
    summary.update(page_size_bytes=plan.page_size_bytes, repeat=plan.repeat, run=plan.name,
                   db_bytes=state["db_bytes"], buffer_pool_requested_bytes=plan.server_settings.buffer_pool_bytes,
                   buffer_pool_spec=KNOBS_BY_NAME["buffer_pool"].text(profile.for_cell(plan.cell).buffer_pool),
                   cell=plan.cell, role=plan.role, **{f"level_{name}": level for name, level in plan.cell.items()},
                   memory_budget_reference_bytes=reference,
                   memory_budget_reference_page_size=budget["reference_page_size"] if budget else None,
                   writeback_before_start=writeback, cpu_placement=placement,
                   other_work=other_work.record())
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
