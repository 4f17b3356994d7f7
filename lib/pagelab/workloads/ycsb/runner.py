"""A whole YCSB experiment: for each page size, load the records, then run the workloads.

    run = run_ycsb("innodb", page_sizes=("16k", "64k"), records=100_000, operations=100_000,
                   workloads="abc", out_dir="data/runs/ycsb-demo")
    run.frame            # the tidy table (also OUT/ycsb.csv)
    run.texts[("innodb", 16384, "mixed_50_50")]   # YCSB's text of one phase

Per page size:

    innodb     a fresh private instance (pagelab.mysql.Instance) in OUT/innodb-16k/server, with
               innodb_flush_method=O_DIRECT and a buffer pool well below the data; usertable
               created; the load; a clean restart (so every workload starts from the same cold
               pool, after the load's dirty pages are flushed); then the workloads.
    prototype  a fresh pagelab.storage Database in OUT/prototype-16k/usertable.db (O_DIRECT on
               the page file, a cache well below the data); the load; close and reopen (cold);
               then the workloads, one client thread.

The buffer pool (or the prototype's cache) is the same for every page size of a run, so the page
size is the only difference; what it is, and every other option, is checked and resolved by
pagelab.workloads.ycsb.options before anything is created.

Output, written as each phase finishes (so Ctrl-C keeps every finished phase):

    OUT/ycsb.json                 options, seed, versions, machine, and each phase's status
    OUT/ycsb.csv                  the tidy table (output.TIDY_COLUMNS), all finished phases
    OUT/<backend>-<size>/load.txt, workloada.txt, ...   YCSB's text of each phase

The instance's or database's data is removed at the end unless `keep_data` (the instance's
my.cnf and error log stay). Ctrl-C stops the server (the instance is a context manager), closes
the prototype, marks the phase "interrupted" in ycsb.json and re-raises KeyboardInterrupt.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import UsageError
from pagelab.common.paths import RUNS_DIR
from pagelab.common.units import page_size_label
from pagelab.workloads.ycsb import backends
from pagelab.workloads.ycsb.driver import PhaseResult, execute_phase
from pagelab.workloads.ycsb.output import tidy_rows, write_csv, ycsb_text
from pagelab.workloads.ycsb.workloads import LOAD, Workload
from pagelab.workloads.ycsb.options import (
    BACKENDS,
    DEFAULT_OPERATIONS,
    DEFAULT_PAGE_SIZES,
    DEFAULT_RECORDS,
    DEFAULT_REDO_LOG_BYTES,
    ResolvedOptions,
    YcsbOptions,
)


# -- the run -------------------------------------------------------------------------------------

@dataclass
class YcsbRun:
    """What run_ycsb returns: where it wrote, the tidy table, and each phase's YCSB text."""

    out_dir: Path
    frame: Any
    texts: dict[tuple[str, int, str], str]
    meta: dict[str, Any]

    @property
    def csv_path(self) -> Path:
        return self.out_dir / "ycsb.csv"


class _Journal:
    """ycsb.json and ycsb.csv, rewritten after every phase."""

    def __init__(self, out_dir: Path, options: ResolvedOptions):
        self.out_dir = out_dir
        self.rows: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {
            "kind": "pagelab-ycsb",
            "status": "running",
            "options": options.to_dict(),
            "seed": options.seed,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "versions": _versions(),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
            "runs": {},
        }
        self.save()

    def run_entry(self, backend: str, page_size: int) -> dict[str, Any]:
        return self.meta["runs"].setdefault(f"{backend}-{page_size_label(page_size)}", {"phases": {}})

    def save(self) -> None:
        atomic_write_json(self.out_dir / "ycsb.json", self.meta)

    def add_rows(self, rows: list[dict[str, Any]]) -> None:
        self.rows.extend(rows)
        write_csv(self.out_dir / "ycsb.csv", self.rows)


def _versions() -> dict[str, Any]:
    from pagelab import __version__

    versions = {"pagelab": __version__, "python": sys.version.split()[0]}
    try:
        import mysql.connector

        versions["mysql_connector"] = mysql.connector.__version__
    except Exception:  # noqa: BLE001 - a version note must not stop a run
        pass
    return versions


def run_ycsb(
    backend: str = "innodb",
    page_sizes: Sequence[int | str] = DEFAULT_PAGE_SIZES,
    records: int = DEFAULT_RECORDS,
    operations: int = DEFAULT_OPERATIONS,
    workloads: str | Sequence[str] = "abc",
    distribution: str = "zipfian",
    threads: int | None = None,
    seed: int = 1,
    out_dir: str | os.PathLike | None = None,
    *,
    cache_bytes: int | str | None = None,
    parallelism: str = "processes",
    max_seconds: float | None = None,
    durable: bool = True,
    field_count: int = 10,
    field_length: int = 100,
    hashed_keys: bool = True,
    direct_io: bool = True,
    redo_log_bytes: int | str = DEFAULT_REDO_LOG_BYTES,
    keep_data: bool = False,
    server_options: dict[str, str] | None = None,
    overwrite: bool = False,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
) -> YcsbRun:
    """Load, then run the workloads, for each page size on one backend (module docstring).

    backend        "innodb" (a MariaDB/MySQL instance per page size) or "prototype" (pagelab.storage)
    page_sizes     e.g. ("16k", "64k") or (16384, 65536); 4k..64k
    records        YCSB's recordcount: records loaded (keys "user" + FNV-64 hash of 0..records-1)
    operations     YCSB's operationcount: operations per workload
    workloads      letters from a b c d f ("abc"), or the OrientDB proposal's names; always run after the load
    distribution   zipfian (scrambled, 0.99), uniform or latest; D always uses latest
    threads        client workers (YCSB's -threads; default 4 for InnoDB, 1 for the prototype, the
                   only count it takes); processes unless parallelism="threads"
    seed           every draw's seed (recorded in ycsb.json and the table)
    out_dir        where everything goes (default data/runs/ycsb-<backend>-<time>); refused when it
                   holds an earlier run's ycsb.json unless overwrite=True
    cache_bytes    InnoDB's buffer pool / the prototype's cache (default: 15% of the data)
    max_seconds    end each phase after this long (YCSB's maxexecutiontime)
    durable        commit durably (innodb_flush_log_at_trx_commit=1; the prototype's journal fsync)
    keep_data      keep the datadir / database files after the run
    progress       a tqdm bar per phase; echo: a function given each phase's header and YCSB text
    """
    options = YcsbOptions(backend, page_sizes, records, operations, workloads, distribution, threads, seed,
                          cache_bytes, parallelism, max_seconds, durable, field_count, field_length, hashed_keys,
                          direct_io, redo_log_bytes, keep_data, dict(server_options or {})).validate()
    out = Path(out_dir) if out_dir is not None else RUNS_DIR / f"ycsb-{backend}-{time.strftime('%Y%m%d-%H%M%S')}"
    _check_out_dir(out, overwrite)
    if options.backend == "innodb":
        from pagelab.mysql import detect_server

        detect_server()  # a missing server is named before anything is written
    elif options.direct_io:
        from pagelab.machine.devices import o_direct_works

        works, reason = o_direct_works(out)
        if not works:
            raise UsageError(f"O_DIRECT is refused under {out}: {reason}; pass direct_io=False (--no-direct-io)")

    out.mkdir(parents=True, exist_ok=True)
    journal = _Journal(out, options)
    texts: dict[tuple[str, int, str], str] = {}
    try:
        for page_size in options.page_sizes:
            directory = out / f"{options.backend}-{page_size_label(page_size)}"
            directory.mkdir(exist_ok=True)
            entry = journal.run_entry(options.backend, page_size)
            entry["status"] = "running"
            journal.save()
            runner = _run_innodb if options.backend == "innodb" else _run_prototype
            runner(options, page_size, directory, journal, entry, texts, progress, echo)
            entry["status"] = "done"
            journal.save()
        journal.meta["status"] = "complete"
    except KeyboardInterrupt:
        journal.meta["status"] = "interrupted"
        raise
    except BaseException as exc:
        journal.meta["status"] = "failed"
        journal.meta["error"] = str(exc)
        raise
    finally:
        journal.meta["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        for entry in journal.meta["runs"].values():
            if entry.get("status") == "running":
                entry["status"] = journal.meta["status"] if journal.meta["status"] != "running" else "failed"
        journal.save()
    return YcsbRun(out, read_results(out), texts, journal.meta)


def _check_out_dir(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file; give a directory for the run's output")
    if (out / "ycsb.json").exists():
        if not overwrite:
            raise UsageError(f"{out} already holds a YCSB run (ycsb.json); give another directory, or "
                             f"overwrite it (--force / overwrite=True)")
        for child in out.iterdir():
            if child.is_dir() and child.name.split("-")[0] in BACKENDS:
                shutil.rmtree(child)
            elif child.name.startswith("ycsb."):
                child.unlink()


def _finish_phase(options: ResolvedOptions, page_size: int, directory: Path, journal: _Journal, entry: dict,
                  texts: dict, result: PhaseResult, labels: dict[str, Any], echo) -> None:
    text = ycsb_text(result)
    (directory / result.workload.file_name).write_text(text)
    texts[(options.backend, page_size, result.workload.name)] = text
    journal.add_rows(tidy_rows(result, labels))
    entry["phases"][result.workload.name] = {
        "status": "stopped early (max_seconds)" if result.stopped_early else "done",
        "file": str((directory / result.workload.file_name).relative_to(journal.out_dir)),
        "runtime_ms": result.runtime_ms, "operations": result.operations,
        "throughput_ops_s": round(result.throughput, 3), "client": result.client,
        "client_cpu_s": round(result.client_cpu_s, 3), **result.extra,
    }
    journal.save()
    if echo is not None:
        echo(f"# {options.backend} {page_size_label(page_size)}: {result.workload.title}\n" + text)


def _labels(options: ResolvedOptions, page_size: int, cache: int, db_bytes: int | None) -> dict[str, Any]:
    return {"backend": options.backend, "page_size": page_size_label(page_size), "page_size_bytes": page_size,
            "distribution": options.distribution, "records": options.records,
            "operation_count": options.operations, "seed": options.seed, "cache_bytes": cache, "db_bytes": db_bytes}


def _phases(options: ResolvedOptions) -> list[Workload]:
    return [LOAD, *options.workloads]


def _run_innodb(options: ResolvedOptions, page_size: int, directory: Path, journal: _Journal, entry: dict,
                texts: dict, progress: bool, echo) -> None:
    from pagelab.mysql import Instance, ServerSettings
    from pagelab.mysql.client import ConnectionSpec

    extra = dict(options.server_options)
    if not options.durable:
        extra.setdefault("innodb_flush_log_at_trx_commit", "2")
    settings = ServerSettings(buffer_pool_bytes=options.cache_bytes, flush_method="O_DIRECT",
                              redo_log_bytes=options.redo_log_bytes, max_connections=max(50, options.threads + 20),
                              extra=extra)
    instance = Instance(directory / "server", page_size, settings=settings)
    instance.init(force=True)
    db_bytes = None
    try:
        with instance:
            instance.start()
            spec = ConnectionSpec.for_instance(instance, database=backends.DATABASE)
            backends.create_usertable(spec, options.field_count)
            facts = dict(zip(("innodb_page_size", "innodb_buffer_pool_size", "innodb_flush_method", "server_version"),
                             instance.query("SELECT @@innodb_page_size, @@innodb_buffer_pool_size, "
                                            "@@innodb_flush_method, VERSION()")[0]))
            entry.update({"server": facts, "cache_bytes": options.cache_bytes,
                          "estimated_data_bytes": options.estimated_data_bytes})
            target = backends.InnoDBTarget(spec, options.field_count)
            for workload in _phases(options):
                if workload is not LOAD and entry.get("restarted") is None:
                    # A clean restart after the load: its dirty pages are flushed and every page
                    # size's workloads start from a cold buffer pool of the same size.
                    instance.stop()
                    instance.start()
                    spec = ConnectionSpec.for_instance(instance, database=backends.DATABASE)
                    target = backends.InnoDBTarget(spec, options.field_count)
                    entry["restarted"] = True
                before = backends.innodb_counters(spec)
                label = f"{options.backend} {page_size_label(page_size)} {workload.letter if not workload.is_load else 'load'}"
                result = _recorded_phase(journal, entry, workload, lambda: execute_phase(
                    target, options.plan(workload), options.threads, options.parallelism, progress=progress,
                    label=label))
                after = backends.innodb_counters(spec)
                if workload is LOAD:
                    db_bytes = backends.innodb_table_bytes(spec)
                    entry["db_bytes"] = db_bytes
                    entry["cache_fraction_of_data"] = round(options.cache_bytes / db_bytes, 4) if db_bytes else None
                result.extra = {
                    "pages_read": after.get("innodb_pages_read", 0) - before.get("innodb_pages_read", 0),
                    "pages_written": after.get("innodb_pages_written", 0) - before.get("innodb_pages_written", 0),
                }
                _finish_phase(options, page_size, directory, journal, entry, texts, result,
                              _labels(options, page_size, options.cache_bytes, db_bytes), echo)
    finally:
        if not options.keep_data and not instance.is_running():
            shutil.rmtree(instance.paths.datadir, ignore_errors=True)
            shutil.rmtree(instance.paths.default_snapshot, ignore_errors=True)


def _recorded_phase(journal: _Journal, entry: dict, workload, run):
    """run() one phase with its status in the run's journal: running, then interrupted or failed
    if it does not finish (a finished phase's status is written by _finish_phase)."""
    phases = entry["phases"]
    phases[workload.name] = {"status": "running"}
    journal.save()
    try:
        return run()
    except KeyboardInterrupt:
        phases[workload.name] = {"status": "interrupted"}
        raise
    except BaseException as exc:
        phases[workload.name] = {"status": "failed", "error": str(exc)}
        raise


def _run_prototype(options: ResolvedOptions, page_size: int, directory: Path, journal: _Journal, entry: dict,
                   texts: dict, progress: bool, echo) -> None:
    path = directory / "usertable.db"
    for leftover in backends.prototype_files(path):
        leftover.unlink(missing_ok=True)
    entry.update({"cache_bytes": options.cache_bytes, "estimated_data_bytes": options.estimated_data_bytes,
                  "direct_io": options.direct_io, "durable": options.durable})
    db = None
    db_bytes = None
    clean = False
    try:
        for workload in _phases(options):
            if db is None or (workload is not LOAD and entry.get("reopened") is None):
                if db is not None:  # close after the load and reopen: the workloads start cold
                    db.close()
                    entry["reopened"] = True
                db = backends.open_prototype(path, page_size, options.cache_bytes, options.direct_io, options.durable)
            before = db.counters()
            label = f"prototype {page_size_label(page_size)} {workload.letter if not workload.is_load else 'load'}"
            result = _recorded_phase(journal, entry, workload, lambda: execute_phase(
                backends.PrototypeTarget(db), options.plan(workload), 1, "inline", progress=progress, label=label))
            after = db.counters()
            if workload is LOAD:
                stats = db.stats()
                db_bytes = after["tree_pages_allocated"] * page_size
                entry.update({"db_bytes": db_bytes, "tree_depth": stats.get("depth"),
                              "pages_per_level": stats.get("pages_per_level"), "leaf_fill": stats.get("leaf_fill"),
                              "cache_fraction_of_data": round(options.cache_bytes / db_bytes, 4) if db_bytes else None})
            result.extra = {"pages_read": after["file_reads"] - before["file_reads"],
                            "pages_written": (after["file_writes"] - before["file_writes"]
                                              + after["journal_pages_written"] - before["journal_pages_written"])}
            _finish_phase(options, page_size, directory, journal, entry, texts, result,
                          _labels(options, page_size, options.cache_bytes, db_bytes), echo)
        clean = True
    finally:
        if db is not None:
            db.close(checkpoint=clean)
        if not options.keep_data:
            for leftover in backends.prototype_files(path):
                leftover.unlink(missing_ok=True)


def read_results(out_dir: str | os.PathLike):
    """OUT/ycsb.csv as a DataFrame (an empty one with the tidy columns if no phase finished)."""
    import pandas as pd

    from pagelab.workloads.ycsb.output import TIDY_COLUMNS

    path = Path(out_dir) / "ycsb.csv"
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame(columns=TIDY_COLUMNS)
    return pd.read_csv(path)
