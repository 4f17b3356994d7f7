"""One run of seed 002's experiment: one page size, one repeat, from datadir to tidy tables.

The run notebook (notebooks/tpcc_page_size_run.ipynb) calls `run_tpcc_page_size`, which does,
in the order of DESIGN.md's flow:

1. init    the page size's instance (sweep_dir/instances/<page>/), the first time only;
2. load    TPC-C from the seeded cache, measure the loaded size, stop cleanly, snapshot the
           datadir — later repeats restore that snapshot instead, so every repeat starts from the
           identical loaded state;
3. start   with the measured buffer pool (bytes, or a percentage of the loaded size);
4. run     monitors (iostat, InnoDB status, global status) around the TPC-C driver, on one clock;
5. record  my.cnf, SHOW VARIABLES, this run's part of the error log, tidy tables, summary.json.

The server is stopped on every way out, including Ctrl-C and errors.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.mysql.pagesize import page_size_label, parse_page_size
from pagelab.runs import project_path, run_name, set_phase, write_json_atomically
from pagelab.profiles import resolve_buffer_pool
from pagelab.tpcc.modes import DEFAULT_MODE

LOADED_FILE = "loaded.json"


@dataclass
class RunParameters:
    """The run notebook's parameters, one per profile knob that a single run needs."""

    sweep_dir: str
    page_size: str = "16k"
    repeat: int = 1
    warehouses: int = 1
    connections: int = 4
    rampup_s: int = 10
    measure_s: int = 60
    interval_s: int = 10
    sample_interval_s: int = 10
    buffer_pool: str = "64M"
    flush_method: str = "O_DIRECT"
    redo_log: str = "256M"
    max_connections: int = 200
    seed: int = 1
    driver_mode: str = DEFAULT_MODE
    loader: str = "pagelab"
    tpcc_mysql_dir: str = ""
    server_options: dict = field(default_factory=dict)
    cache_dir: str = "data/cache"
    # A pool large enough for the load to run from memory; the measured pool is set afterwards.
    load_buffer_pool: str = "256M"

    def __post_init__(self) -> None:
        self.sweep_dir = str(project_path(self.sweep_dir))
        self.cache_dir = str(project_path(self.cache_dir))

    @property
    def page_size_bytes(self) -> int:
        return parse_page_size(self.page_size)

    @property
    def name(self) -> str:
        return run_name(self.page_size_bytes, self.repeat)

    def settings(self, buffer_pool_bytes: int) -> ServerSettings:
        return ServerSettings(buffer_pool_bytes=buffer_pool_bytes, flush_method=self.flush_method,
                              redo_log_bytes=self.redo_log, max_connections=self.max_connections,
                              extra=dict(self.server_options))


def loaded_state(instance_dir: Path) -> dict | None:
    """What the load of this page size measured, once its snapshot exists."""
    path = Path(instance_dir) / LOADED_FILE
    snapshot_marker = Path(instance_dir) / "snapshot" / ".pagelab-snapshot.json"
    if path.exists() and snapshot_marker.exists():
        return json.loads(path.read_text())
    return None


def database_bytes(connection: ConnectionSpec, database: str = "tpcc") -> int:
    link = connection.connect()
    try:
        cursor = link.cursor()
        cursor.execute("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "
                       "WHERE table_schema = %s", (database,))
        return int(cursor.fetchone()[0])
    finally:
        link.close()


def _prepare_loaded_instance(params: RunParameters, run_dir: Path) -> tuple[Instance, dict]:
    """The page size's instance with TPC-C loaded: restored from its snapshot, or loaded now."""
    instance_dir = Path(params.sweep_dir) / "instances" / page_size_label(params.page_size_bytes)
    state = loaded_state(instance_dir)
    load_pool = resolve_buffer_pool(params.load_buffer_pool, None)
    instance = Instance(instance_dir, params.page_size_bytes, settings=params.settings(load_pool))
    if state is not None:
        set_phase(run_dir, "restore")
        instance.stop()
        instance.restore()
        return instance, state
    set_phase(run_dir, "init")
    instance.init(force=True)
    with instance:
        instance.start()
        set_phase(run_dir, "load")
        spec = ConnectionSpec.for_instance(instance, tcp=True)
        if params.loader == "tpcc-mysql":
            from pagelab.tpcc.external import load_with_tpcc_mysql

            load_with_tpcc_mysql(spec, params.warehouses, "tpcc", Path(params.tpcc_mysql_dir),
                                 log_path=run_dir / "tpcc_load.log")
            load_report = {"loader": "tpcc-mysql"}
        else:
            from pagelab.tpcc.datagen import generate
            from pagelab.tpcc.loader import load

            dataset = generate(params.warehouses, params.seed, cache_dir=Path(params.cache_dir), progress=False)
            report = load(spec, dataset, progress=False)
            load_report = {"loader": "pagelab", "seconds_tables": report.seconds_tables,
                           "seconds_indexes": report.seconds_indexes, "seconds_verify": report.seconds_verify,
                           "row_counts": report.row_counts, "dataset": str(dataset.directory)}
        db_bytes = database_bytes(spec)
    set_phase(run_dir, "snapshot")
    instance.snapshot()
    state = {"db_bytes": db_bytes, "warehouses": params.warehouses, "seed": params.seed, "load": load_report}
    write_json_atomically(instance_dir / LOADED_FILE, state)
    return instance, state


def run_tpcc_page_size(params: RunParameters) -> dict:
    """Run one page size and repeat into sweep_dir/<page>-r<k>/; returns its summary."""
    from pagelab.monitor import Monitor
    from pagelab.tpcc.driver import RunOptions, run

    options = RunOptions(warehouses=params.warehouses, connections=params.connections, rampup_s=params.rampup_s,
                         measure_s=params.measure_s, interval_s=params.interval_s, seed=params.seed,
                         mode=params.driver_mode, tpcc_mysql_dir=params.tpcc_mysql_dir)
    options.validate()
    run_dir = Path(params.sweep_dir) / params.name
    run_dir.mkdir(parents=True, exist_ok=True)
    instance, state = _prepare_loaded_instance(params, run_dir)
    pool = resolve_buffer_pool(params.buffer_pool, state["db_bytes"])
    instance.settings = params.settings(pool)
    log_offset = instance.paths.error_log.stat().st_size if instance.paths.error_log.exists() else 0
    with instance:
        set_phase(run_dir, "start")
        instance.start()
        shutil.copyfile(instance.paths.my_cnf, run_dir / "my.cnf")
        spec = ConnectionSpec.for_instance(instance, tcp=True)
        with Monitor(instance, run_dir, interval_s=params.sample_interval_s) as monitor:
            set_phase(run_dir, "ramp-up + measure")

            def progress(t_s, _row):
                set_phase(run_dir, f"measure {t_s:.0f}/{params.measure_s} s")

            result = run(spec, options, out_dir=run_dir, echo=None, on_interval=progress,
                         on_start=lambda measure_start: monitor.mark_measurement_start(measure_start))
        set_phase(run_dir, "record")
        _write_variables(instance, run_dir / "variables.csv")
    _copy_log_part(instance.paths.error_log, log_offset, run_dir / "mysqld.err")
    summary = dict(result.summary)
    summary.update(page_size_bytes=params.page_size_bytes, repeat=params.repeat, run=params.name,
                   db_bytes=state["db_bytes"], buffer_pool_requested_bytes=pool,
                   buffer_pool_spec=str(params.buffer_pool))  # buffer_pool_bytes: what the server reported
    write_json_atomically(run_dir / "summary.json", summary)
    set_phase(run_dir, "done")
    return summary


def _write_variables(instance: Instance, path: Path) -> None:
    rows = instance.query("SHOW GLOBAL VARIABLES")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["variable_name", "value"])
        writer.writerows(rows)


def _copy_log_part(source: Path, offset: int, target: Path) -> None:
    """This run's part of the instance's error log (the instance serves every repeat)."""
    try:
        with open(source, "rb") as handle:
            handle.seek(offset)
            target.write_bytes(handle.read())
    except OSError:
        target.write_text("")
