"""The TPC-C driver modes, declared once: what each sends to the server, and who sends it.

Every place that offers or reads a mode (the `--mode` option of `pagelab tpcc run` and
`pagelab sweep`, the profile knob `driver_mode`, the experiment, summary.json, the log header, the
report) reads this table. A mode is one of:

    statements   (default) pagelab's terminals send tpcc-mysql's own SQL statements, one
                 server-side prepared statement per round trip, with tpcc-mysql's transaction
                 boundaries, commit and rollback points, and retry rule. The server does the work
                 tpcc_start makes it do, and the client costs about what tpcc_start costs. This is
                 the mode that reproduces the Week 4 lab, which ran tpcc-mysql.
    procedures   each transaction is one CALL of a stored procedure that writes what the
                 statements mode writes (HammerDB's way). One round trip per transaction frees the
                 client's share of the CPUs for the server, so on a small machine the server runs at
                 about twice tpcc-mysql's load, in a different regime: a faster driver, not the
                 the lab's workload.
    tpcc-mysql   a real tpcc-mysql build (tpcc_start), given with --tpcc-mysql-dir / the knob
                 tpcc_mysql_dir; its log is parsed into the same outputs.

`pagelab` is an older name of `procedures` (bundles written before the modes existed say
"driver": "pagelab"); it reads as `procedures` everywhere.

What differs between modes is an attribute of the mode (`external`, `procedures`,
`fixed_durations`, `title`): code asks the mode, never compares its name. The loaders (pagelab's,
or tpcc-mysql's tpcc_load) are declared here too, since tpcc-mysql's loader and mode both need
its build (`runs_tpcc_mysql`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pagelab.common.errors import UsageError


@dataclass(frozen=True)
class DriverMode:
    name: str
    driver: str  # who sends the statements: "pagelab" or "tpcc-mysql"
    summary: str  # one line for --help, the log header and the report's title page
    external: bool = False  # runs a separate program rather than pagelab's terminals
    procedures: bool = False  # each transaction is a CALL of a stored procedure, created before the run

    @property
    def fixed_durations(self) -> bool:
        """tpcc_start takes fixed ramp-up and measurement times (-r, -l): no `auto` for them."""
        return self.external

    @property
    def title(self) -> str:
        """How the report's title page names the driver."""
        return "tpcc-mysql's tpcc_start" if self.external else f"pagelab TPC-C, mode {self.name}"


MODES: tuple[DriverMode, ...] = (
    DriverMode("statements", "pagelab",
               "tpcc-mysql's SQL statements, one prepared statement per round trip (reproduces tpcc-mysql)"),
    DriverMode("procedures", "pagelab",
               "one stored-procedure CALL per transaction (HammerDB-style; a higher load than tpcc-mysql)",
               procedures=True),
    DriverMode("tpcc-mysql", "tpcc-mysql", "a real tpcc-mysql build (tpcc_start)", external=True),
)
MODES_BY_NAME = {mode.name: mode for mode in MODES}
DEFAULT_MODE = "statements"
ALIASES = {"pagelab": "procedures"}
MODE_NAMES: tuple[str, ...] = tuple(MODES_BY_NAME)
# Who loads the TPC-C data: pagelab's loader, or tpcc-mysql's tpcc_load (from its build).
PAGELAB_LOADER, TPCC_MYSQL_LOADER = "pagelab", "tpcc-mysql"
LOADERS = (PAGELAB_LOADER, TPCC_MYSQL_LOADER)


def mode_named(name: str) -> DriverMode:
    """The mode called `name` (or an alias of it); UsageError with the allowed names otherwise."""
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in MODES_BY_NAME:
        raise UsageError(f"driver mode {name!r} is not one of: {' '.join(MODE_NAMES)}")
    return MODES_BY_NAME[key]


def runs_tpcc_mysql(driver_mode: str, loader: str) -> list[str]:
    """Which of the two ("driver_mode tpcc-mysql", "loader tpcc-mysql") runs a program of a
    tpcc-mysql build; empty if neither does."""
    return ([f"driver_mode {driver_mode}"] if mode_named(driver_mode).external else []) + (
        [f"loader {loader}"] if loader == TPCC_MYSQL_LOADER else [])


def mode_help() -> str:
    """The modes, one per line, for --help texts."""
    return "; ".join(f"{mode.name}: {mode.summary}" for mode in MODES)
