"""What a YCSB experiment is asked to do (`YcsbOptions`), checked whole before anything is created,
and what it then runs with (`ResolvedOptions`): the page sizes, the workloads, the client threads,
and the buffer pool (or the prototype's cache) sized from an estimate of the data.

The buffer pool (or the prototype's cache) is the same for every page size of a run, so the page
size is the only difference: by default 15% of the data the records will make (an estimate from
the record count, ~1.1 KB per record at ~69% page fill after inserts in hashed order), and at
least what InnoDB needs for the largest page size (6 MiB at 16k, 11 MiB at 32k, 21 MiB at 64k;
MariaDB refuses to start with less). `cache_bytes` sets it. pagelab.workloads.ycsb.runner runs it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.common.units import MIB, format_size, page_size_label, parse_size, with_article
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE, parse_page_size, pool_too_small
from pagelab.workloads.ycsb import backends
from pagelab.workloads.ycsb.driver import PARALLELISMS
from pagelab.workloads.ycsb.worker import PhasePlan
from pagelab.workloads.ycsb.generators import DISTRIBUTIONS, key_name
from pagelab.workloads.ycsb.workloads import Workload, parse_workloads

BACKENDS = ("innodb", "prototype")
DEFAULT_PAGE_SIZES = (16384, 65536)  # the OrientDB proposal's two sizes
DEFAULT_RECORDS = 50_000  # ~80 MB in InnoDB: ~3.6x the 21 MiB (22 MB) pool that 64k pages need at least
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
