"""What pyproject.toml cannot declare without an experimental setuptools feature: pagelab's three C
pieces, built by `pip install -e .` (which `make setup` runs) with a C compiler and Python's headers:

- the storage prototype's page search (why it is in C: the comment at the top of _cellsearch.c);
- the TPC-C terminal's client and its transactions over MariaDB Connector/C (why: the top of
  _tpccclient.c and tpcc_transactions.c), whose
  flags come from `mariadb_config`, installed with Debian's libmariadb-dev by `make setup`;
- SQLite experiment 053's benchmarks timed in C (why: the top of _sqlitetimer.c; the iterations
  themselves are sqlite_iterations.c), linked with the
  system's libsqlite3, whose header comes with Debian's libsqlite3-dev (`make setup` installs it).
"""

import shlex
import shutil
import subprocess
import sysconfig

from setuptools import Extension, setup

# A call the Python headers do not declare (an API of a newer Python) is an error at build time,
# not an undefined symbol at import time.
STRICT = ["-Werror=implicit-function-declaration"]


def connector_flags() -> tuple[list[str], list[str]]:
    """Compile and link flags of MariaDB Connector/C, from mariadb_config (or mysql_config)."""
    tool = shutil.which("mariadb_config") or shutil.which("mysql_config")
    if tool is None:
        raise SystemExit("pagelab: MariaDB Connector/C's headers are missing (no mariadb_config on PATH); "
                         "install them with `apt-get install libmariadb-dev` (make setup does), then retry")

    def ask(option: str) -> list[str]:
        return shlex.split(subprocess.run([tool, option], check=True, capture_output=True, text=True).stdout)

    return ask("--cflags"), ask("--libs")


def require_sqlite_header() -> None:
    """Stop the build, naming the fix, when the C compiler cannot find sqlite3.h (asked of the
    compiler's own preprocessor, so its include path is the one the build will use)."""
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    try:
        found = subprocess.run([*compiler, "-E", "-x", "c", "-"], input="#include <sqlite3.h>\n",
                               capture_output=True, text=True).returncode == 0
    except FileNotFoundError:
        raise SystemExit(f"pagelab: no C compiler ({compiler[0]}); install gcc (make setup does), then retry") from None
    if not found:
        raise SystemExit("pagelab: SQLite's header sqlite3.h is missing, needed to build "
                         "pagelab.workloads.sqlite._sqlitetimer; install it with `apt-get install libsqlite3-dev` "
                         "(make setup does), then retry")


connector_cflags, connector_libs = connector_flags()
require_sqlite_header()

setup(ext_modules=[
    Extension("pagelab.storage._cellsearch", ["lib/pagelab/storage/_cellsearch.c"], extra_compile_args=STRICT),
    Extension("pagelab.tpcc._tpccclient", ["lib/pagelab/tpcc/_tpccclient.c", "lib/pagelab/tpcc/tpcc_transactions.c"],
              depends=["lib/pagelab/tpcc/tpcc_transactions.h"],
              extra_compile_args=STRICT + connector_cflags, extra_link_args=connector_libs),
    Extension("pagelab.workloads.sqlite._sqlitetimer",
              ["lib/pagelab/workloads/sqlite/_sqlitetimer.c", "lib/pagelab/workloads/sqlite/sqlite_iterations.c"],
              depends=["lib/pagelab/workloads/sqlite/sqlite_iterations.h"],
              extra_compile_args=STRICT, libraries=["sqlite3"]),
])
