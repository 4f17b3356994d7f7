"""How to reach a server: pagelab's own instance, or one it did not start.

`ConnectionSpec` is what the TPC-C loader, the driver and the monitors take, so the same code runs
against `pagelab server` instances and against a server a user points at with --host/--port/
--socket/--user/--password-file. Its repr never shows the password.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pagelab.common.errors import UsageError


def _connector():
    """mysql.connector, preferring its C extension (several times less client CPU per query)."""
    import mysql.connector

    return mysql.connector


@dataclass(frozen=True)
class ConnectionSpec:
    host: str | None = None
    port: int | None = None
    socket: str | None = None
    user: str = "root"
    password: str = field(default="", repr=False)
    database: str | None = None

    def __post_init__(self) -> None:
        if not self.socket and not self.host:
            raise UsageError("give a server to connect to: --socket PATH, or --host and --port")

    @classmethod
    def for_instance(cls, instance, database: str | None = None, tcp: bool = False) -> "ConnectionSpec":
        args = instance.connection_args(tcp=tcp)
        return cls(host=args.get("host"), port=args.get("port"), socket=args.get("unix_socket"),
                   user=args["user"], password=args["password"], database=database)

    @classmethod
    def from_options(cls, host=None, port=None, socket=None, user="root", password_file=None,
                     database=None) -> "ConnectionSpec":
        """From CLI options; the password is read from a file so it never sits in shell history."""
        password = ""
        if password_file:
            path = Path(password_file)
            try:
                password = path.read_text().strip("\n")
            except OSError as exc:
                raise UsageError(f"cannot read --password-file {path}: {exc.strerror}") from exc
        return cls(host=host, port=port, socket=socket, user=user, password=password, database=database)

    def with_database(self, database: str | None) -> "ConnectionSpec":
        return replace(self, database=database)

    def describe(self) -> str:
        where = self.socket if self.socket else f"{self.host}:{self.port or 3306}"
        return f"{self.user}@{where}" + (f"/{self.database}" if self.database else "")

    def connect_args(self) -> dict:
        args: dict = {"user": self.user, "password": self.password}
        if self.socket:
            args["unix_socket"] = self.socket
        else:
            args.update(host=self.host, port=self.port or 3306)
        if self.database:
            args["database"] = self.database
        return args

    def connect(self, **options):
        connector = _connector()
        return connector.connect(**self.connect_args(), **options)


def recreate_database(cursor, database: str) -> None:
    """Drop `database` if it exists, create it empty and make it the cursor's current one."""
    cursor.execute(f"DROP DATABASE IF EXISTS `{database}`")
    cursor.execute(f"CREATE DATABASE `{database}`")
    cursor.execute(f"USE `{database}`")


def fast_connector_available() -> bool:
    """True when mysql-connector's C extension loads (see pagelab/__init__.py on OpenSSL)."""
    try:
        import _mysql_connector  # noqa: F401
    except ImportError:
        return False
    return True


def database_bytes(cursor, database: str, table: str | None = None) -> int:
    """Data + index bytes of `database` (or of one table in it), as information_schema reports them."""
    sql = ("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "
           "WHERE table_schema = %s")
    cursor.execute(sql + (" AND table_name = %s" if table else ""), (database, table) if table else (database,))
    return int(cursor.fetchone()[0])
