"""The server's own list of settings, and the settings of other servers that MariaDB lacks.

`compiled_defaults()` reads what `mariadbd --no-defaults --help --verbose` prints after its line of
dashes: one setting a line, name (with dashes) then its compiled-in default. A profile's
server_options are checked against that list, so a misspelt name fails before anything starts
instead of stopping the server at its first start. `NOT_ON_MARIADB` names settings that a MySQL
lab guide sets but MariaDB ignores or no longer has, each with the reason a report prints.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import lru_cache

NOT_ON_MARIADB = {
    "innodb_buffer_pool_instances": "MariaDB has ignored it since 10.5 (one buffer pool instance) and removed it in 10.6",
    "innodb_log_files_in_group": "MariaDB since 10.5 writes one redo log file; give its whole size with redo_log",
}
# A my.cnf name with this prefix is skipped by a server that does not know it (MySQL's own rule).
LOOSE_PREFIX = "loose_"


def server_binary(server: str = "mariadbd") -> str | None:
    return shutil.which(server) or shutil.which(f"/usr/sbin/{server}") or shutil.which("mysqld") or (
        "/usr/sbin/mysqld" if shutil.which("/usr/sbin/mysqld") else None)


@lru_cache(maxsize=4)
def compiled_defaults(server: str = "mariadbd") -> dict[str, str]:
    """Every setting the server knows with its compiled-in default, by name with underscores;
    empty when no server binary is installed (the check is then left to the server's start)."""
    binary = server_binary(server)
    if binary is None:
        return {}
    try:
        text = subprocess.run([binary, "--no-defaults", "--help", "--verbose"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    defaults, started = {}, False
    for line in text.splitlines():
        if line.startswith("-----"):
            started = True
            continue
        if started:
            match = re.match(r"^(\S+)\s+(.*)$", line)
            if not match:
                break
            defaults[match.group(1).replace("-", "_")] = match.group(2).strip()
    return defaults


def setting_problem(name: str) -> str | None:
    """Why `name` cannot go into this server's my.cnf, or None if it can."""
    key = name.strip().replace("-", "_").lower()
    if key in NOT_ON_MARIADB:
        return f"{name} is not applicable: {NOT_ON_MARIADB[key]}; leave it out"
    known = compiled_defaults()
    if known and not key.startswith(LOOSE_PREFIX) and key not in known:
        return (f"{name} is not a setting of this server ({server_binary()}); its settings are listed by "
                "`mariadbd --help --verbose`")
    return None
