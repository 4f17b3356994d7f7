"""The database account an external benchmark program (tpcc-mysql's tpcc_load and tpcc_start) logs
in with on a pagelab MariaDB instance: one per run, limited to the benchmark's database, never root,
and with no password anywhere.

Why no password: tpcc-mysql takes one only as `-p PASSWORD`, which every local user can read in
`ps` or /proc/PID/cmdline, and its environment would be the next place to look. So the account is
authenticated by MariaDB's unix_socket plugin instead: over the instance's private socket the
kernel tells the server which OS user connected (SO_PEERCRED), and the server admits that user to
the account of the same name. MariaDB 10.11 compares the names themselves (mapping an account to
another OS user came in 11.6), so the account is named after the OS user the program runs as.

Why never root: when pagelab itself runs as root, an account named after the OS user would be
MariaDB's root. The program then runs as `nobody` instead (PROGRAM_USER_WHEN_ROOT), with an
account `nobody`@`localhost`; the instance keeps its socket in a directory that user can reach
(pagelab.mysql.endpoints.socket_directory_for_others).

The account lives for one run: `CREATE OR REPLACE USER` just before the program starts, `DROP USER`
after it ends (also when it fails). CREATE OR REPLACE also retires an account of that name that an
older pagelab left with wider grants.

Over TCP (the transport `tcp`, the default) the server cannot tell which OS user connected, so
`tcp_program_account` gives the program an account `pagelab_program`@`127.0.0.1` with a random
one-time password (`secrets`), granted the benchmark's database alone. tpcc-mysql can take it only
as `-p`, so it is in that one program's argv for the run's length, and nowhere else: not in any
environment, log or file. It is dropped when the program ends, however it ends (pagelab drops it
after a kill -9 of the program too); an account left by a pagelab that was itself killed is
replaced by the next run's CREATE OR REPLACE, and its password was never written down.
"""

from __future__ import annotations

import getpass
import os
import pwd
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pagelab.common.errors import UsageError

# The OS user a program runs as when pagelab runs as root: it exists on every Debian/Ubuntu system
# and owns nothing, so the program can read and write nothing of the user's.
PROGRAM_USER_WHEN_ROOT = "nobody"
# The account of a program that logs in over TCP, and the only host it may come from.
TCP_ACCOUNT = "pagelab_program"
TCP_ACCOUNT_HOST = "127.0.0.1"
# Names that can be written inside a quoted SQL account name without escaping.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,80}")


@dataclass(frozen=True)
class ProgramIdentity:
    """Who the external program runs as: an OS user, and the database account of the same name."""

    account: str
    uid: int | None = None  # None: as the user running pagelab
    gid: int | None = None

    @property
    def sql_name(self) -> str:
        return f"'{self.account}'@'localhost'"

    def popen_arguments(self) -> dict:
        """subprocess.Popen keywords that start the program as this user (nothing when it is us)."""
        if self.uid is None:
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": [], "cwd": "/"}


def program_identity() -> ProgramIdentity:
    """The identity an external program gets: ours, unless we are root."""
    if os.geteuid() == 0:
        try:
            entry = pwd.getpwnam(PROGRAM_USER_WHEN_ROOT)
        except KeyError:
            raise UsageError(f"pagelab runs as root and there is no OS user {PROGRAM_USER_WHEN_ROOT!r} to run "
                             "tpcc-mysql as (it must not log in as root); create one, or run pagelab as an "
                             "ordinary user") from None
        return ProgramIdentity(PROGRAM_USER_WHEN_ROOT, entry.pw_uid, entry.pw_gid)
    name = getpass.getuser()
    if not _SAFE_NAME.fullmatch(name):
        raise UsageError(f"the OS user name {name!r} cannot name a database account (letters, digits, '_', '-', '.'); "
                         "run pagelab as a user with a plain name to use tpcc-mysql on a pagelab instance")
    return ProgramIdentity(name)


@contextmanager
def program_account(admin_cursor, database: str) -> Iterator[ProgramIdentity]:
    """A socket-only account for the external program, granted `database` alone, for the block's length."""
    _check_database_name(database)
    identity = program_identity()
    admin_cursor.execute(f"CREATE OR REPLACE USER {identity.sql_name} IDENTIFIED VIA unix_socket")
    admin_cursor.execute(f"GRANT ALL PRIVILEGES ON `{database}`.* TO {identity.sql_name}")
    try:
        yield identity
    finally:
        _drop(admin_cursor, identity.sql_name)


@dataclass(frozen=True)
class TcpLogin:
    """The per-run TCP account: its name and one-time password (never print this object)."""

    account: str
    password: str = field(repr=False)

    @property
    def sql_name(self) -> str:
        return f"'{self.account}'@'{TCP_ACCOUNT_HOST}'"


@contextmanager
def tcp_program_account(admin_cursor, database: str) -> Iterator[TcpLogin]:
    """An account reachable from 127.0.0.1 only, granted `database` alone, with a random one-time
    password, for the block's length (see the module comment)."""
    _check_database_name(database)
    login = TcpLogin(TCP_ACCOUNT, secrets.token_urlsafe(24))  # letters, digits, '-' and '_': no quoting needed
    admin_cursor.execute(f"CREATE OR REPLACE USER {login.sql_name} IDENTIFIED BY %s", (login.password,))
    try:
        admin_cursor.execute(f"GRANT ALL PRIVILEGES ON `{database}`.* TO {login.sql_name}")
        yield login
    finally:
        _drop(admin_cursor, login.sql_name)


def _drop(admin_cursor, sql_name: str) -> None:
    """DROP USER; a server that no longer answers keeps the account until the next run replaces it."""
    try:
        admin_cursor.execute(f"DROP USER IF EXISTS {sql_name}")
    except Exception as exc:  # noqa: BLE001 - any failure of a dying server: say so, do not hide the run's error
        print(f"pagelab: warning: could not drop the per-run account {sql_name} ({exc}); the next run "
              "replaces it", file=sys.stderr)


def _check_database_name(database: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", database):
        raise UsageError(f"database name {database!r}: letters, digits and '_' only")
