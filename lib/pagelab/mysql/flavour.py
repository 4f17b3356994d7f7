"""Find the MySQL-compatible server on this machine and tell MariaDB from MySQL.

The two flavours initialise a datadir differently (`mariadb-install-db` against
`mysqld --initialize-insecure`), so the flavour is read from the server's own `--version` output
rather than guessed from a binary's name: Debian ships a `mysqld` symlink to `mariadbd`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.errors import MissingDependencyError

# Debian and Ubuntu put the server in /usr/sbin, which is not on a normal user's PATH, so these
# directories are searched after PATH. PAGELAB_SERVER_PATH (os.pathsep-separated) replaces the
# list: point it at a MySQL 8 tarball's bin/, or set it empty to search PATH alone.
DEFAULT_SERVER_SEARCH_DIRS = "/usr/sbin:/usr/local/sbin:/usr/local/mysql/bin"
SERVER_NAMES = ("mariadbd", "mysqld")
MARIADB_INSTALL_DB_NAMES = ("mariadb-install-db", "mysql_install_db")

INSTALL_HINT = (
    "install MariaDB with `sudo apt-get install mariadb-server` (or run `make setup`), "
    "or put a MySQL 8 `mysqld` on PATH"
)


@dataclass(frozen=True)
class ServerFlavour:
    """One installed server: which program, which flavour, which version."""

    server_binary: Path
    flavour: str  # "mariadb" or "mysql"
    version: str  # e.g. "10.11.19"
    version_line: str  # the whole first line of `--version`, for the record
    install_db: Path | None  # mariadb-install-db for MariaDB; None for MySQL (mysqld initialises itself)

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split("."))

    def describe(self) -> str:
        return f"{'MariaDB' if self.flavour == 'mariadb' else 'MySQL'} {self.version} ({self.server_binary})"


def _search_path() -> list[str]:
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    extra = os.environ.get("PAGELAB_SERVER_PATH", DEFAULT_SERVER_SEARCH_DIRS).split(os.pathsep)
    return path + [d for d in extra if d and d not in path]


def which(name: str) -> Path | None:
    """Like shutil.which, but also looks in the sbin directories where distributions put servers."""
    found = shutil.which(name, path=os.pathsep.join(_search_path()))
    return Path(found) if found else None


def parse_version_line(line: str) -> tuple[str, str]:
    """('mariadb'|'mysql', 'X.Y.Z') from a server's `--version` line.

    MariaDB: "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
    MySQL:   "/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"
    """
    match = re.search(r"Ver\s+(\d+\.\d+\.\d+)(\S*)", line)
    if not match:
        raise MissingDependencyError(f"cannot read a server version from {line!r}; {INSTALL_HINT}")
    version, suffix = match.group(1), match.group(2)
    flavour = "mariadb" if "mariadb" in (suffix + line).lower() else "mysql"
    return flavour, version


def detect_server(server_binary: str | os.PathLike | None = None) -> ServerFlavour:
    """The server to run, from an explicit path, else the first of mariadbd/mysqld found.

    Raises MissingDependencyError naming what to install when there is none.
    """
    if server_binary is not None:
        candidates = [Path(server_binary)]
        if not candidates[0].exists():
            resolved = which(str(server_binary))
            if resolved is None:
                raise MissingDependencyError(f"server binary {server_binary} not found; {INSTALL_HINT}")
            candidates = [resolved]
    else:
        candidates = [p for p in (which(n) for n in SERVER_NAMES) if p is not None]
    if not candidates:
        raise MissingDependencyError(f"no MySQL-compatible server (mariadbd or mysqld) found; {INSTALL_HINT}")
    binary = candidates[0]
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise MissingDependencyError(f"cannot run {binary}: {exc}; {INSTALL_HINT}") from exc
    line = (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else ""
    flavour, version = parse_version_line(line)
    install_db = None
    if flavour == "mariadb":
        # Prefer the install script that sits beside the server's package, then PATH.
        for name in MARIADB_INSTALL_DB_NAMES:
            install_db = which(name)
            if install_db:
                break
        if install_db is None:
            raise MissingDependencyError(
                f"{binary} is MariaDB {version} but mariadb-install-db is missing; {INSTALL_HINT}"
            )
    return ServerFlavour(binary, flavour, version, line, install_db)
