"""Server settings and the my.cnf written from them.

One `ServerSettings` describes everything an experiment varies or must pin down; `render_my_cnf`
turns it into the option file the server reads at every start. The page size is not a setting:
it belongs to the datadir (see pagesize.py) and is passed on the command line as well, because
`mariadb-install-db`/`mysqld --initialize` read an option file differently from a normal start.
"""

from __future__ import annotations

import os
import pwd
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.common.units import MIB, format_size, parse_size
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE

# 128 MiB is InnoDB's own default pool; experiments override it (e.g. 30% of the loaded data).
DEFAULT_BUFFER_POOL_BYTES = 128 * MIB
# Below this InnoDB refuses to start at any page size; larger pages need more
# (pagelab.mysql.pagesize.MIN_BUFFER_POOL_BY_PAGE_SIZE).
MIN_BUFFER_POOL_BYTES = min(MIN_BUFFER_POOL_BY_PAGE_SIZE.values())
# A larger redo log than MariaDB's 96 MiB default keeps TPC-C's write burst from being throttled
# by checkpoints in short runs, so page size, not log size, dominates what is measured.
DEFAULT_REDO_LOG_BYTES = 256 * MIB
FLUSH_METHODS = ("O_DIRECT", "fsync", "O_DSYNC", "littlesync", "nosync", "O_DIRECT_NO_FSYNC")
# O_DIRECT keeps the OS page cache out of the way, so a small buffer pool really misses to disk.
DEFAULT_FLUSH_METHOD = "O_DIRECT"
DEFAULT_MAX_CONNECTIONS = 200

_OPTION_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
# Options pagelab itself owns; setting them through `extra` would break the instance's bookkeeping.
_RESERVED_OPTIONS = {
    "datadir", "socket", "port", "bind_address", "pid_file", "log_error", "innodb_page_size", "user",
    "defaults_file", "skip_networking",
}


def option_key(name: str) -> str:
    """Servers treat '-' and '_' alike in option names; compare them in one spelling."""
    return name.strip().replace("-", "_").lower()


@dataclass
class ServerSettings:
    """What the server runs with, apart from the page size and the paths pagelab manages."""

    buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES
    flush_method: str = DEFAULT_FLUSH_METHOD
    redo_log_bytes: int = DEFAULT_REDO_LOG_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.buffer_pool_bytes = parse_size(self.buffer_pool_bytes, "buffer pool size")
        self.redo_log_bytes = parse_size(self.redo_log_bytes, "redo log size")
        if self.buffer_pool_bytes < MIN_BUFFER_POOL_BYTES:
            raise UsageError(
                f"buffer pool size must be at least {format_size(MIN_BUFFER_POOL_BYTES)}, "
                f"got {self.buffer_pool_bytes} bytes"
            )
        if self.redo_log_bytes < (MIB):
            raise UsageError(f"redo log size must be at least 1M, got {self.redo_log_bytes} bytes")
        if self.flush_method not in FLUSH_METHODS:
            raise UsageError(f"flush method must be one of {' '.join(FLUSH_METHODS)}, got {self.flush_method!r}")
        if isinstance(self.max_connections, bool) or not isinstance(self.max_connections, int) or not (
            1 <= self.max_connections <= 100_000
        ):
            raise UsageError(f"max connections must be an integer from 1 to 100000, got {self.max_connections!r}")
        cleaned = {}
        for name, value in dict(self.extra).items():
            if not _OPTION_NAME.match(str(name)):
                raise UsageError(f"server option name {name!r} is not valid; use key=value with a name like innodb_io_capacity")
            if option_key(name) in _RESERVED_OPTIONS:
                raise UsageError(f"server option {name!r} is managed by pagelab and cannot be set with --set")
            if "\n" in str(value):
                raise UsageError(f"server option {name!r} has a newline in its value")
            cleaned[str(name)] = str(value)
        self.extra = cleaned

    def with_overrides(self, **changes) -> "ServerSettings":
        merged = asdict(self)
        merged.update(changes)
        return ServerSettings(**merged)

    def to_dict(self) -> dict:
        return asdict(self)


def parse_set_options(pairs: list[str] | None) -> dict[str, str]:
    """`--set key=value` arguments -> dict, with an error naming the malformed one."""
    result: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set takes key=value, got {pair!r} (e.g. --set innodb_io_capacity=2000)")
        result[name.strip()] = value.strip()
    return result


@dataclass(frozen=True)
class InstancePaths:
    """Where one instance keeps its files (all inside its directory except, if needed, the socket)."""

    root: Path
    socket: Path

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def my_cnf(self) -> Path:
        return self.root / "my.cnf"

    @property
    def client_cnf(self) -> Path:
        return self.root / "client.cnf"

    @property
    def error_log(self) -> Path:
        return self.root / "mysqld.err"

    @property
    def pid_file(self) -> Path:
        return self.root / "mysqld.pid"

    @property
    def tmpdir(self) -> Path:
        return self.root / "tmp"

    @property
    def state_file(self) -> Path:
        return self.root / "instance.json"

    @property
    def default_snapshot(self) -> Path:
        return self.root / "snapshot"


def render_my_cnf(paths: InstancePaths, settings: ServerSettings, page_size: int, port: int | None) -> str:
    """The option file for one start. `port=None` means no TCP at all (used while securing root)."""
    lines = [
        "# Written by pagelab for a private instance; rewritten at every start.",
        "[mysqld]",
        f"datadir={paths.datadir}",
        f"socket={paths.socket}",
        f"pid-file={paths.pid_file}",
        f"log-error={paths.error_log}",
        f"tmpdir={paths.tmpdir}",
        f"innodb_page_size={page_size}",
    ]
    if port is None:
        lines.append("skip-networking")
    else:
        # Loopback only: these instances run benchmarks, they are not services.
        lines += [f"port={port}", "bind-address=127.0.0.1"]
    if os.geteuid() == 0:
        # mysqld refuses to run as root unless told to; the datadir is owned by whoever made it.
        # The user this process is, not $USER or $LOGNAME, which may name another (sudo -E): mysqld would
        # switch to it, be refused the datadir, and lose the parent-death signal in the switch.
        lines.append(f"user={pwd.getpwuid(os.geteuid()).pw_name}")
    lines += [
        "skip-name-resolve",
        f"innodb_buffer_pool_size={settings.buffer_pool_bytes}",
        f"innodb_flush_method={settings.flush_method}",
        f"innodb_log_file_size={settings.redo_log_bytes}",
        f"max_connections={settings.max_connections}",
        # A restart must start cold: a buffer pool reloaded from the last dump would hide the
        # very misses a page-size experiment measures, and differ between repeats.
        "innodb_buffer_pool_dump_at_shutdown=OFF",
        "innodb_buffer_pool_load_at_startup=OFF",
        # The bulk loader uses LOAD DATA LOCAL INFILE and multi-row inserts.
        "local_infile=1",
        "max_allowed_packet=64M",
        # No binary log: no replication here, and MySQL 8 would otherwise write every change twice.
        "skip-log-bin",
    ]
    for name, value in settings.extra.items():
        lines.append(f"{name}={value}" if value != "" else name)
    return "\n".join(lines) + "\n"


def render_client_cnf(paths: InstancePaths, password: str, port: int | None) -> str:
    """Credentials for `mariadb --defaults-file=DIR/client.cnf`; the only place the password lives."""
    lines = ["[client]", "user=root", f"password={password}", f"socket={paths.socket}"]
    if port is not None:
        lines.append(f"port={port}")
    return "\n".join(lines) + "\n"
