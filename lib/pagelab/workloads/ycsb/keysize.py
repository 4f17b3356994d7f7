"""The largest key each page size allows, tried for real (the OrientDB proposal's risk: "Maximum key size will be
decreased from 10240 to about 5120" when OrientDB goes from 64 KB to 16 KB pages).

InnoDB. On a running instance, `innodb_max_key_bytes` creates tables whose PRIMARY KEY is one
VARBINARY(n) column, n found by binary search (doubling from 1,024 until refused, then halving the
gap), and keeps the largest n the server accepted. The server's refusal is the answer's evidence:
MariaDB and MySQL say "Specified key was too long; max key length is 3072 bytes" (error 1071),
and that message is returned with the limit. A row with a key of exactly that many bytes is then
inserted, so the limit is one a key can really have. A PRIMARY KEY is probed because YCSB_KEY is
one: a plain secondary index would be silently cut to a prefix, and MariaDB makes an over-long
UNIQUE key a hash index instead of refusing it. The limit is InnoDB's index key prefix limit:
3072 bytes with the DYNAMIC row format at 16k and above, less at 8k and 4k pages (a key must fit
several times in a page), 767 with COMPACT or REDUNDANT.

The prototype. `Database.max_key_bytes` (a quarter of the page, so every interior page holds at
least four keys); `prototype_max_key_bytes` puts a key of that length into a fresh in-memory
database and checks that one byte more is refused, returning the prototype's own error message.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pagelab.common.errors import ServerError, UsageError
from pagelab.mysql.client import recreate_database
from pagelab.mysql.pagesize import parse_page_size
from pagelab.common.units import MIB, page_size_label

ER_TOO_LONG_KEY = 1071
PROBE_DATABASE = "pagelab_keyprobe"
PROBE_START = 1024
PROBE_CEILING = 65532  # the longest VARBINARY a row can hold: a key limit beyond it cannot be seen
SEED_MAX_KEY_BYTES = {65536: 10240, 16384: 5120}  # the OrientDB proposal's OrientDB figures ("about 5120" at 16k)


@dataclass
class KeyLimit:
    engine: str
    page_size_bytes: int
    max_key_bytes: int
    refused_key_bytes: int | None
    message: str
    probes: int = 0
    row_format: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"page_size": page_size_label(self.page_size_bytes), **asdict(self)}


def innodb_max_key_bytes(target, row_format: str | None = None) -> KeyLimit:
    """The largest VARBINARY PRIMARY KEY a running InnoDB accepts (`target`: an Instance or a
    ConnectionSpec), with the server's refusal of one byte more."""
    import mysql.connector

    from pagelab.mysql.client import ConnectionSpec

    if row_format is not None and row_format.upper() not in ("DYNAMIC", "COMPACT", "REDUNDANT", "COMPRESSED"):
        raise UsageError(f"row_format must be DYNAMIC, COMPACT, REDUNDANT or COMPRESSED, got {row_format!r}")
    suffix = f" ROW_FORMAT={row_format.upper()}" if row_format else ""
    connection = target.with_database(None).connect() if isinstance(target, ConnectionSpec) else target.connect()
    probes = 0
    messages: dict[int, str] = {}
    try:
        connection.autocommit = True
        cursor = connection.cursor()
        cursor.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
        recreate_database(cursor, PROBE_DATABASE)
        cursor.execute("SELECT @@innodb_page_size, @@innodb_default_row_format")
        page_size, default_format = cursor.fetchone()
        page_size = int(page_size)

        def accepted(length: int) -> bool:
            nonlocal probes
            probes += 1
            cursor.execute("DROP TABLE IF EXISTS probe")
            try:
                cursor.execute(f"CREATE TABLE probe (k VARBINARY({length}) NOT NULL PRIMARY KEY) ENGINE=InnoDB{suffix}")
            except mysql.connector.Error as exc:
                if exc.errno == ER_TOO_LONG_KEY:
                    messages[length] = exc.msg
                    return False
                raise ServerError(f"probing a {length}-byte key failed with another error than 'key too long': "
                                  f"{exc.errno} {exc.msg}") from exc
            return True

        if not accepted(1):
            raise ServerError("InnoDB refused even a 1-byte primary key")
        good, bad = 1, None
        length = PROBE_START
        while bad is None:
            if accepted(length):
                good = length
                if length >= PROBE_CEILING:
                    break
                length = min(length * 2, PROBE_CEILING)
            else:
                bad = length
        if bad is not None:
            while bad - good > 1:
                middle = (good + bad) // 2
                if accepted(middle):
                    good = middle
                else:
                    bad = middle
        # The limit, tried with a row: a table with the largest key, and one key of that length in it.
        accepted(good)
        cursor.execute("INSERT INTO probe VALUES (%s)", (b"k" * good,))
        cursor.execute("SELECT LENGTH(k) FROM probe")
        stored = int(cursor.fetchone()[0])
        if stored != good:
            raise ServerError(f"a {good}-byte key came back as {stored} bytes")
        cursor.execute(f"DROP DATABASE {PROBE_DATABASE}")
    finally:
        connection.close()
    message = messages[bad] if bad else f"no limit below {PROBE_CEILING} bytes (the longest VARBINARY a row holds)"
    used_format = row_format.upper() if row_format else f"{str(default_format).upper()} (default)"
    return KeyLimit("innodb", page_size, good, bad, message, probes, used_format)


def prototype_max_key_bytes(page_size: int | str) -> KeyLimit:
    """The prototype's key limit at a page size, with its refusal of one byte more."""
    from pagelab.storage import Database, EntryTooLargeError

    size = parse_page_size(page_size) if isinstance(page_size, str) else int(page_size)
    db = Database.open(None, page_size=size, cache_bytes=max(MIB, 16 * size))
    try:
        limit = db.max_key_bytes
        db.put(b"k" * limit, b"v")
        if db.get(b"k" * limit) != b"v":
            raise RuntimeError(f"a {limit}-byte key did not come back from the prototype")
        try:
            db.put(b"k" * (limit + 1), b"v")
        except EntryTooLargeError as exc:
            message = str(exc)
        else:
            raise RuntimeError(f"the prototype accepted a {limit + 1}-byte key over its {limit}-byte limit")
    finally:
        db.close(checkpoint=False)
    return KeyLimit("prototype", size, limit, limit + 1, message, probes=2)


def max_key_sizes(page_sizes=(16384, 65536), directory: str | os.PathLike | None = None,
                  engines=("innodb", "prototype"), row_format: str | None = None, keep: bool = False):
    """One row per (engine, page size): the largest key, the size refused and the engine's message.

    InnoDB is probed on a small private instance per page size in `directory` (created and
    removed again unless `keep`; default data/runs/ycsb-keyprobe); about 3 s per page size."""
    import pandas as pd

    sizes = [parse_page_size(size) for size in page_sizes]
    unknown = set(engines) - {"innodb", "prototype"}
    if unknown:
        raise UsageError(f"engines must be innodb and/or prototype, got {sorted(unknown)}")
    rows = []
    if "innodb" in engines:
        from pagelab.mysql import Instance, ServerSettings, detect_server
        from pagelab.common.paths import RUNS_DIR
        from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE

        detect_server()
        base = Path(directory) if directory is not None else RUNS_DIR / "ycsb-keyprobe"
        for size in sizes:
            root = base / f"keyprobe-{page_size_label(size)}"
            settings = ServerSettings(buffer_pool_bytes=MIN_BUFFER_POOL_BY_PAGE_SIZE[size], redo_log_bytes=8 * MIB,
                                      max_connections=10)
            instance = Instance(root, size, settings=settings)
            instance.init(force=True)
            try:
                with instance:
                    instance.start()
                    rows.append(innodb_max_key_bytes(instance, row_format).to_dict())
            finally:
                if not keep:
                    shutil.rmtree(root, ignore_errors=True)
    if "prototype" in engines:
        rows += [prototype_max_key_bytes(size).to_dict() for size in sizes]
    frame = pd.DataFrame(rows)
    frame["seed_orientdb_max_key_bytes"] = frame["page_size_bytes"].map(SEED_MAX_KEY_BYTES)
    return frame
