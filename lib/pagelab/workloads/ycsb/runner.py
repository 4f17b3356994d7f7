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
size is the only difference: by default 15% of the data the records will make (an estimate from
the record count, ~1.1 KB per record at ~69% page fill after inserts in hashed order), and at
least what InnoDB needs for the largest page size (6 MiB at 16k, 11 MiB at 32k, 21 MiB at 64k;
MariaDB refuses to start with less). `cache_bytes` sets it.

Output, written as each phase finishes (so Ctrl-C keeps every finished phase):

    OUT/ycsb.json                 options, seed, versions, machine, and each phase's status
    OUT/ycsb.csv                  the tidy table (output.TIDY_COLUMNS), all finished phases
    OUT/<backend>-<size>/load.txt, workloada.txt, ...   YCSB's text of each phase

The instance's or database's data is removed at the end unless `keep_data` (the instance's
my.cnf and error log stay). Ctrl-C stops the server (the instance is a context manager), closes
the prototype, marks the phase "interrupted" in ycsb.json and re-raises KeyboardInterrupt.
"""

from __future__ import annotations

import math
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import UsageError
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE, parse_page_size, pool_too_small
from pagelab.common.units import MIB, page_size_label, with_article
from pagelab.common.paths import RUNS_DIR
from pagelab.common.units import format_size, parse_size
from pagelab.workloads.ycsb import backends
from pagelab.workloads.ycsb.driver import PARALLELISMS, PhasePlan, PhaseResult, execute_phase
from pagelab.workloads.ycsb.generators import DISTRIBUTIONS, key_name
from pagelab.workloads.ycsb.output import tidy_rows, write_csv, ycsb_text
from pagelab.workloads.ycsb.workloads import LOAD, Workload, parse_workloads

BACKENDS = ("innodb", "prototype")
DEFAULT_PAGE_SIZES = (16384, 65536)  # the OrientDB proposal's two sizes
DEFAULT_RECORDS = 50_000  # ~80 MB in InnoDB: 4x the 21 MiB pool that 64k pages need at least
DEFAULT_OPERATIONS = 50_000
# Client workers when not given: 4 for InnoDB, whose phases mostly wait for the disk when the pool
# is well below the data (with everything cached, 2 processes do best on 2 cores:
# bench/bench_ycsb.py); the prototype takes one.
DEFAULT_INNODB_THREADS = 4
DEFAULT_CACHE_FRACTION = 0.15
# Bytes a record costs in a B-tree beside its fields: key (~23), row or cell headers, slot.
RECORD_OVERHEAD_BYTES = 60
RANDOM_INSERT_FILL = 0.69  # leaves of a B-tree filled in random key order end ~69% full
DEFAULT_REDO_LOG_BYTES = 64 * MIB


@dataclass
class YcsbOptions:
    """Everything a run varies; `validate()` checks it all before anything is created."""

    backend: str = "innodb"
    page_sizes: Sequence[int | str] = DEFAULT_PAGE_SIZES
    records: int = DEFAULT_RECORDS
    operations: int = DEFAULT_OPERATIONS
    workloads: str | Sequence[str] = "abc"
    distribution: str = "zipfian"
    threads: int | None = None
    seed: int = 1
    cache_bytes: int | str | None = None
    parallelism: str = "processes"
    max_seconds: float | None = None
    durable: bool = True
    field_count: int = 10
    field_length: int = 100
    hashed_keys: bool = True
    direct_io: bool = True
    redo_log_bytes: int | str = DEFAULT_REDO_LOG_BYTES
    keep_data: bool = False
    server_options: dict[str, str] = field(default_factory=dict)

    def validate(self) -> ResolvedOptions:
        if self.backend not in BACKENDS:
            raise UsageError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        try:
            sizes = _page_sizes(self.page_sizes)
        except UsageError as exc:
            if self.backend == "prototype" and "innodb_page_size" in str(exc):
                raise UsageError(str(exc).replace("innodb_page_size", "a YCSB page size for the prototype") +
                                 " (a record of 10 x 100 bytes needs at least 4k pages)") from None
            raise
        whole = _whole
        whole("records", self.records, 1, "--records")
        whole("operations", self.operations, 0, "--operations")
        threads = self.threads if self.threads is not None else (
            DEFAULT_INNODB_THREADS if self.backend == "innodb" else 1)
        whole("threads", threads, 1, "--threads")
        whole("seed", self.seed, 0, "--seed")
        whole("field count", self.field_count, 1, "--field-count")
        whole("field length", self.field_length, 1, "--field-length")
        workloads = parse_workloads(self.workloads)
        if self.distribution not in DISTRIBUTIONS:
            raise UsageError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {self.distribution!r}")
        if self.parallelism not in PARALLELISMS[:2]:
            raise UsageError(f"parallelism must be processes or threads, got {self.parallelism!r}")
        if self.max_seconds is not None and (isinstance(self.max_seconds, bool) or not self.max_seconds > 0):
            raise UsageError(f"max_seconds must be a positive number of seconds, got {self.max_seconds!r}")
        if self.backend == "prototype":
            if threads != 1:
                raise UsageError("the storage prototype runs one client thread (a Database is for one thread at a "
                                 f"time); use --threads 1, got {threads}")
            _check_prototype_fits(sizes, self.field_count, self.field_length)
        estimate = estimated_data_bytes(self.records, self.field_count, self.field_length)
        if self.cache_bytes is None:
            cache = auto_cache_bytes(estimate, sizes if self.backend == "innodb" else ())
            if self.backend == "prototype":
                cache = max(cache, 64 * max(sizes))
        else:
            cache = parse_size(self.cache_bytes, "the buffer pool (cache) size")
            if self.backend == "innodb":
                too_small = pool_too_small(cache, sizes)
                if too_small:
                    raise UsageError(f"a buffer pool of {too_small}")
            else:
                for size in sizes:
                    if cache < 16 * size:
                        raise UsageError(f"a {format_size(cache)} cache is only {cache // size} pages at "
                                         f"{page_size_label(size)}; give at least 16 pages ({format_size(16 * size)})")
        redo = parse_size(self.redo_log_bytes, "the redo log size")
        return ResolvedOptions(backend=self.backend, page_sizes=sizes, records=self.records,
                               operations=self.operations, workloads=workloads, distribution=self.distribution,
                               threads=threads, seed=self.seed, cache_bytes=cache, estimated_data_bytes=estimate,
                               parallelism=self.parallelism if self.backend == "innodb" else "inline",
                               max_seconds=self.max_seconds, durable=self.durable, field_count=self.field_count,
                               field_length=self.field_length, hashed_keys=self.hashed_keys,
                               direct_io=self.direct_io, redo_log_bytes=redo, keep_data=self.keep_data,
                               server_options=dict(self.server_options))


@dataclass(frozen=True)
class ResolvedOptions:
    backend: str
    page_sizes: tuple[int, ...]
    records: int
    operations: int
    workloads: tuple[Workload, ...]
    distribution: str
    threads: int
    seed: int
    cache_bytes: int
    estimated_data_bytes: int
    parallelism: str
    max_seconds: float | None
    durable: bool
    field_count: int
    field_length: int
    hashed_keys: bool
    direct_io: bool
    redo_log_bytes: int
    keep_data: bool
    server_options: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["workloads"] = [workload.letter for workload in self.workloads]
        data["page_sizes"] = [page_size_label(size) for size in self.page_sizes]
        return data

    def plan(self, workload: Workload) -> PhasePlan:
        operations = self.records if workload.is_load else self.operations
        return PhasePlan(workload=workload, records=self.records, operations=operations,
                         distribution=self.distribution, seed=self.seed, field_count=self.field_count,
                         field_length=self.field_length, hashed_keys=self.hashed_keys,
                         max_seconds=self.max_seconds)


def _whole(name: str, value: Any, minimum: int, flag: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UsageError(f"{name} ({flag}) must be a whole number of at least {minimum}, got {value!r}")


def _page_sizes(value: Sequence[int | str] | str | int) -> tuple[int, ...]:
    if isinstance(value, (str, int)):
        value = [part for part in str(value).replace(",", " ").split()]
    sizes = tuple(parse_page_size(size) for size in value)
    if not sizes:
        raise UsageError("give at least one page size, e.g. 16k,64k")
    if len(set(sizes)) != len(sizes):
        raise UsageError(f"page sizes repeat: {', '.join(page_size_label(s) for s in sizes)}")
    return sizes


def _check_prototype_fits(sizes: Iterable[int], field_count: int, field_length: int) -> None:
    from pagelab.storage import max_key_bytes, max_value_bytes

    record = backends.record_bytes(field_count, field_length)
    for size in sizes:
        if record > max_value_bytes(size):
            raise UsageError(f"a YCSB record of {field_count} x {field_length} bytes ({record} bytes serialised) does "
                             f"not fit {with_article(page_size_label(size))} page of the prototype (its largest value is "
                             f"{max_value_bytes(size)} bytes); use a larger page size or fewer/shorter fields")
        if len(key_name(2**63 - 1)) > max_key_bytes(size):
            raise UsageError(f"YCSB keys do not fit {with_article(page_size_label(size))} page of the prototype")


def estimated_data_bytes(records: int, field_count: int = 10, field_length: int = 100) -> int:
    """What `records` YCSB records take in a B-tree filled in hashed (random) key order."""
    per_record = backends.record_bytes(field_count, field_length) + RECORD_OVERHEAD_BYTES
    return int(records * per_record / RANDOM_INSERT_FILL)


def auto_cache_bytes(data_bytes: int, innodb_page_sizes: Iterable[int] = ()) -> int:
    """15% of the data, in whole MiB, and at least InnoDB's minimum for every page size given."""
    cache = max(MIB, math.ceil(data_bytes * DEFAULT_CACHE_FRACTION / MIB) * MIB)
    for size in innodb_page_sizes:
        cache = max(cache, MIN_BUFFER_POOL_BY_PAGE_SIZE[size])
    return cache


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
