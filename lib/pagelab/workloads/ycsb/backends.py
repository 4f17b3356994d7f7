"""Where YCSB's operations go: an InnoDB table on a private MariaDB/MySQL instance, or the storage prototype.

Both offer the same session: read(key) -> status, update(key, field, value) -> status,
insert(key, values) -> status, close(). A status is YCSB's: "OK", "NOT_FOUND" or "ERROR".

InnoDB. The table is YCSB's JDBC binding's usertable:

    CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, ..., FIELD9 TEXT)
      ENGINE=InnoDB DEFAULT CHARSET=latin1

(latin1 said explicitly: MySQL 8's utf8mb4 default would make the 255-character key 1020 bytes,
over InnoDB's 768-byte key limit at 4k pages.) Every operation is one autocommitted statement
(read: SELECT * ... WHERE YCSB_KEY = '...'; update: UPDATE usertable SET FIELDn = '...' WHERE ...;
insert: INSERT INTO usertable VALUES (...)). Keys and values hold only letters, digits, '-' and
'_', so they go into the SQL text as literals. Each worker connects through the instance's unix
socket with mysql-connector's C extension (`_mysql_connector`, documented for direct use, and the
cheapest client: about 55 µs of client CPU per read here, against ~120 µs through a cursor), or
with the pure-Python connector where the extension cannot load. An UPDATE counts found rows
(CLIENT_FOUND_ROWS), so rewriting a field with the same value is OK and a missing key NOT_FOUND.

The prototype. One `pagelab.storage.Database` per page size; the record's value is its fields
serialised in order, each as a 2-byte big-endian length and its bytes (1,020 bytes for 10 x 100).
An update reads the record, replaces the field and puts it back. A Database is for one thread, so
the prototype runs with one client thread, in the driver's own process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagelab.common.errors import ServerError
from pagelab.mysql.client import ConnectionSpec, recreate_database, database_bytes

OK, NOT_FOUND, ERROR = "OK", "NOT_FOUND", "ERROR"
TABLE = "usertable"
KEY_COLUMN = "YCSB_KEY"
DATABASE = "ycsb"
# Client errors that mean the server is gone: lost connection, gone away, can't connect.
SERVER_GONE = {2002, 2003, 2006, 2013, 2055, 4031}


class BackendGone(ServerError):
    """The server went away under a worker: the phase cannot go on."""


def field_names(field_count: int) -> list[str]:
    return [f"FIELD{i}" for i in range(field_count)]


def create_table_sql(field_count: int, row_format: str | None = None) -> str:
    fields = ", ".join(f"{name} TEXT" for name in field_names(field_count))
    suffix = f" ROW_FORMAT={row_format}" if row_format else ""
    return (f"CREATE TABLE {TABLE} ({KEY_COLUMN} VARCHAR(255) NOT NULL PRIMARY KEY, {fields}) "
            f"ENGINE=InnoDB DEFAULT CHARSET=latin1{suffix}")


# -- InnoDB --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InnoDBTarget:
    """What a worker needs to open its own connection (picklable; the password is not in its repr)."""

    connection: ConnectionSpec
    field_count: int = 10
    prefer_c_extension: bool = True

    def open(self) -> InnoDBSession:
        return InnoDBSession(self.connection.with_database(self.connection.database or DATABASE), self.field_count,
                             self.prefer_c_extension)


def c_extension():
    """mysql-connector's `_mysql_connector`, or None when it cannot load (see pagelab/__init__.py)."""
    try:
        import _mysql_connector
    except ImportError:
        return None
    return _mysql_connector


def _plugin_dir(module) -> str:
    """Where the connector keeps its client authentication plugins (mysql_native_password.so,
    which MariaDB's root uses), found as mysql.connector's own C-extension connection finds it."""
    bundled = Path(module.__file__).resolve().parent / "mysql" / "vendor" / "plugin"
    if bundled.exists():
        return str(bundled)
    system = Path("/usr/lib64/mysql/plugin")
    return str(system if system.exists() else Path("/usr/lib/mysql/plugin"))


class InnoDBSession:
    """One connection; statements are plain autocommitted SQL text."""

    def __init__(self, spec: ConnectionSpec, field_count: int, prefer_c_extension: bool = True):
        from mysql.connector.constants import ClientFlag

        self.fields = field_names(field_count)
        self._select = f"SELECT * FROM {TABLE} WHERE {KEY_COLUMN} = '"
        self._update = [f"UPDATE {TABLE} SET {name} = '" for name in self.fields]
        self._insert = f"INSERT INTO {TABLE} ({KEY_COLUMN}, {', '.join(self.fields)}) VALUES ('"
        flags = ClientFlag.get_default() | ClientFlag.FOUND_ROWS
        module = c_extension() if prefer_c_extension else None
        self.client = "c-extension" if module is not None else "pure-python"
        args = spec.connect_args()
        try:
            if module is not None:
                self._errors = (module.MySQLInterfaceError,)
                connection = module.MySQL(raw=True, plugin_dir=_plugin_dir(module))
                connection.connect(host=args.get("host"), user=args["user"], password=args["password"],
                                   database=args.get("database"), port=int(args.get("port") or 0),
                                   unix_socket=args.get("unix_socket"), client_flags=flags, ssl_disabled=True)
                connection.autocommit(True)
                self._c = connection
                self._py = None
            else:
                import mysql.connector

                self._errors = (mysql.connector.Error,)
                self._py = mysql.connector.connect(**args, use_pure=True, autocommit=True, client_flags=[ClientFlag.FOUND_ROWS])
                self._c = None
        except Exception as exc:  # noqa: BLE001 - both connectors' errors, reported the same way
            raise BackendGone(f"cannot connect to {spec.describe()}: {exc}") from exc

    def _failed(self, exc: Exception) -> str:
        errno = getattr(exc, "errno", None)
        if errno in SERVER_GONE:
            raise BackendGone(f"the server went away ({exc})") from exc
        return ERROR

    def read(self, key: str) -> str:
        sql = self._select + key + "'"
        try:
            if self._c is not None:
                connection = self._c
                connection.query(sql)
                row = connection.fetch_row()
                connection.free_result()
            else:
                self._py.cmd_query(sql)
                rows, _ = self._py.get_rows()
                row = rows[0] if rows else None
        except self._errors as exc:
            return self._failed(exc)
        return OK if row is not None else NOT_FOUND

    def _change(self, sql: str) -> str:
        try:
            if self._c is not None:
                self._c.query(sql)
                changed = self._c.affected_rows()
            else:
                changed = self._py.cmd_query(sql).get("affected_rows", 0)
        except self._errors as exc:
            return self._failed(exc)
        return OK if changed == 1 else NOT_FOUND

    def update(self, key: str, field: int, value: str) -> str:
        return self._change(self._update[field] + value + f"' WHERE {KEY_COLUMN} = '" + key + "'")

    def insert(self, key: str, values: list[str]) -> str:
        return self._change(self._insert + key + "', '" + "', '".join(values) + "')")

    def close(self) -> None:
        try:
            if self._c is not None:
                self._c.close()
            elif self._py is not None:
                self._py.close()
        except Exception:  # noqa: BLE001 - closing a connection to a dead server must not hide why it died
            pass


def create_usertable(connection: ConnectionSpec, field_count: int, database: str = DATABASE) -> None:
    """A fresh database with an empty usertable (any earlier one is dropped)."""
    link = connection.with_database(None).connect(autocommit=True)
    try:
        cursor = link.cursor()
        recreate_database(cursor, database)
        cursor.execute(create_table_sql(field_count))
    finally:
        link.close()


def innodb_counters(connection: ConnectionSpec) -> dict[str, int]:
    """InnoDB's page I/O counters (SHOW GLOBAL STATUS), to count a phase's reads and writes."""
    link = connection.with_database(None).connect(autocommit=True)
    try:
        cursor = link.cursor()
        cursor.execute("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read', 'Innodb_pages_written', "
                       "'Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads')")
        return {str(name).lower(): int(value) for name, value in cursor.fetchall()}
    finally:
        link.close()


def innodb_table_bytes(connection: ConnectionSpec, database: str = DATABASE) -> int:
    """usertable's data + index bytes as InnoDB reports them (after ANALYZE TABLE, so current)."""
    link = connection.with_database(database).connect(autocommit=True)
    try:
        cursor = link.cursor()
        cursor.execute(f"ANALYZE TABLE {TABLE}")
        cursor.fetchall()
        return database_bytes(cursor, database, TABLE)
    finally:
        link.close()


# -- the storage prototype ----------------------------------------------------------------------

def encode_record(values: list[bytes]) -> bytes:
    return b"".join(len(value).to_bytes(2, "big") + value for value in values)


def decode_record(blob: bytes) -> list[bytes]:
    values, offset, end = [], 0, len(blob)
    while offset < end:
        length = int.from_bytes(blob[offset : offset + 2], "big")
        values.append(blob[offset + 2 : offset + 2 + length])
        offset += 2 + length
    return values


def record_bytes(field_count: int, field_length: int) -> int:
    return field_count * (2 + field_length)


class PrototypeSession:
    """YCSB operations on an open prototype Database (each put is its own transaction)."""

    client = "in-process"

    def __init__(self, db: Any):
        self.db = db

    def read(self, key: str) -> str:
        blob = self.db.get(key.encode())
        if blob is None:
            return NOT_FOUND
        decode_record(blob)  # readallfields: the fields are taken apart, as a client would
        return OK

    def update(self, key: str, field: int, value: str) -> str:
        encoded = key.encode()
        blob = self.db.get(encoded)
        if blob is None:
            return NOT_FOUND
        values = decode_record(blob)
        values[field] = value.encode()
        self.db.put(encoded, encode_record(values))
        return OK

    def insert(self, key: str, values: list[str]) -> str:
        self.db.put(key.encode(), encode_record([value.encode() for value in values]))
        return OK

    def close(self) -> None:
        pass


@dataclass
class PrototypeTarget:
    """The open Database a phase runs on (in this process only: a Database is for one thread)."""

    db: Any

    def open(self) -> PrototypeSession:
        return PrototypeSession(self.db)


def open_prototype(path: Path, page_size: int, cache_bytes: int, direct_io: bool, durable: bool):
    from pagelab.storage import Database

    return Database.open(path, page_size=page_size, cache_bytes=cache_bytes, direct_io=direct_io,
                         synchronous=durable)


def prototype_files(path: Path) -> list[Path]:
    from pagelab.storage.dbfiles import JOURNAL_SUFFIX

    return [path, path.with_name(path.name + JOURNAL_SUFFIX)]


def process_cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process from /proc (None when it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
