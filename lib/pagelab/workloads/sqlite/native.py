"""The native path: the benchmarks timed in C (_sqlitetimer) on a database the run created, and
the checksum that shows both paths read the same rows.

The database file is created and loaded once per page size and repeat (database.py: page_size
first, then WAL, the table, the rows, a checkpoint), through the same system libsqlite3 the C
module links. The C connection opened here sets its own per-connection PRAGMAs (synchronous,
mmap_size: the same as the Python path's) and checks the page size; everything it times runs in C.
"""


from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.workloads.sqlite.benchmarks import (
    DELETE_AFTER,
    INSERT,
    SELECT_ALL,
    SELECT_FIRST,
    WRITES,
    Benchmark,
)
from pagelab.workloads.sqlite.database import connection_pragmas

try:
    from pagelab.workloads.sqlite import _sqlitetimer
except ImportError as error:  # the venv was built before this module existed, or without its header
    _sqlitetimer = None
    _IMPORT_ERROR = error

STATEMENTS = {"select_all": SELECT_ALL, "select_first": SELECT_FIRST, "insert": INSERT, "delete_after": DELETE_AFTER}


def timer_module():
    """The C module, or a UsageError naming the fix."""
    if _sqlitetimer is None:
        raise UsageError(f"the native SQLite timer is not built ({_IMPORT_ERROR}); run `make setup` (it installs "
                         f"libsqlite3-dev and rebuilds pagelab's C pieces), or use paths=['python']")
    return _sqlitetimer


class NativeDatabase:
    """One benchmark database as the native path sees it: a C connection and its statements."""

    path_name = "native"

    def __init__(self, path: Path, page_size: int, rows: int, batches: dict[int, list[tuple]], synchronous: str,
                 mmap_bytes: int):
        self.path, self.page_size, self.rows, self.batches = path, page_size, rows, batches
        self.timer = timer_module().Timer(str(path), STATEMENTS, connection_pragmas(synchronous, mmap_bytes), rows)
        try:
            self.page_size_pragma = self.timer.value("PRAGMA page_size")
            self.mmap_bytes = self.timer.value("PRAGMA mmap_size")
            if self.page_size_pragma != page_size:
                raise UsageError(f"the native connection to {path} reports {self.page_size_pragma}-byte pages, "
                                 f"the run asked for {page_size}")
        except BaseException:
            self.timer.close()
            raise

    def _sample(self, bench: Benchmark, iterations: int, **options: Any) -> tuple[int, int, int, int | None]:
        batch = self.batches[bench.rows] if bench.kind in WRITES else None
        return self.timer.sample(bench.kind, bench.rows, iterations, batch=batch, **options)

    def run(self, bench: Benchmark) -> int:
        """One untimed iteration (a warm-up); the C side checks its row count."""
        self._sample(bench, 1)
        return bench.rows

    def sample(self, bench: Benchmark, iterations: int) -> tuple[float, float, float]:
        """Mean wall and CPU milliseconds per iteration and the fastest iteration's, timed in C."""
        wall, cpu, best, _ = self._sample(bench, iterations)
        return wall / iterations / 1e6, cpu / iterations / 1e6, best / 1e6

    def checksum(self, bench: Benchmark) -> int:
        """The CRC-32 (`rows_checksum`'s) of the rows one iteration of a read benchmark built."""
        if bench.kind in WRITES:
            raise UsageError(f"{bench.name} writes; only a read benchmark has rows to check")
        return self._sample(bench, 1, checksum=True)[3]

    def write_kept(self, bench: Benchmark) -> None:
        """One iteration of a write benchmark whose rows stay in the table (to read them back)."""
        if bench.kind not in WRITES:
            raise UsageError(f"{bench.name} does not write")
        self._sample(bench, 1, reset=False)

    def close(self) -> None:
        self.timer.close()


def _value_bytes(value: Any) -> bytes:
    """One value as _sqlitetimer's checksum encodes it (the format is in its opening comment)."""
    if value is None:
        return b"n"
    if isinstance(value, float):
        return b"f" + struct.pack("<d", value)
    if isinstance(value, int):
        return b"i" + struct.pack("<q", value)
    if isinstance(value, str):
        value = value.encode()
        return b"t" + struct.pack("<I", len(value)) + value
    if isinstance(value, bytes):
        return b"b" + struct.pack("<I", len(value)) + value
    raise TypeError(f"an SQLite value is None, float, int, str or bytes, not {type(value).__name__}")


def rows_checksum(rows: Iterable[Sequence[Any]]) -> int:
    """CRC-32 (zlib.crc32) over rows of values in column order: the native path's checksum,
    computed over rows Python read."""
    crc = 0
    for row in rows:
        crc = zlib.crc32(b"".join(_value_bytes(value) for value in row), crc)
    return crc
