"""Every knob of a page-size sweep, declared once.

A knob is one thing a user may vary in a sweep: the page sizes, the TPC-C scale, the run's timing,
the server's settings. Each is declared below in `KNOBS`, exactly once, with its type, default,
allowed values, unit and help text. Everything else is generated from those declarations: the
parsing of YAML values and of `--set knob=value` strings, the error messages (which name the knob
and what it allows), the knob table in `pagelab sweep --help`, and the set-up table on a report's
title page. Adding a knob means adding one `Knob(...)` entry, nothing more.

A profile is a YAML file in runbooks/profiles/ giving values for some knobs; the rest take their
defaults. `load_profile("quick", ["measure_s=30"])` reads one, applies `--set` overrides, checks
every knob and the rules between knobs, and returns a frozen `Profile` -- or raises one
`UsageError` listing every problem. Nothing is started before that, so a typo costs nothing.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import yaml

from pagelab.common.errors import UsageError
from pagelab.evidence.intervals import DEFAULT_EQUIVALENCE_PCT
from pagelab.mysql.config import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_REDO_LOG_BYTES,
    FLUSH_METHODS,
    MIN_BUFFER_POOL_BYTES,
    ServerSettings,
)
from pagelab.mysql.pagesize import pool_too_small
from pagelab.sweep.knob_types import (
    AUTO,
    Boolean,
    BufferPoolSize,
    ByteSize,
    Choice,
    DirectoryOrEmpty,
    DriverModeChoice,
    Integer,
    Levels,
    PageSizeList,
    Percent,
    Rejected,
    ResponseLimits,
    SecondsOrAuto,
    ServerOptionMap,
)
from pagelab.common.paths import PROFILES_DIR
from pagelab.tpcc.outputs import TRANSPORTS, RunOptions
from pagelab.tpcc.inputs import NURAND_MODELS, TransactionKind
from pagelab.tpcc.modes import (DEFAULT_MODE, LOADERS, MODES_BY_NAME, PAGELAB_LOADER, TPCC_MYSQL_LOADER, mode_named,
                                runs_tpcc_mysql)
from pagelab.common.units import MIB, format_size, page_size_label, size_text

PROFILE_SUFFIXES = (".yaml", ".yml")

# Connections pagelab opens itself during a measured run, beyond the driver's: the InnoDB-status
# sampler, the global-status sampler, the sweep's control session, and one spare so a user can
# look at the server with the mysql client while it runs.
PAGELAB_OWN_CONNECTIONS = 4
# --- the knobs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """One knob: its declaration, and the parsing and checking generated from it."""

    name: str
    label: str  # as it reads in a report's set-up table
    kind: Any  # one of the value types above
    default_raw: Any  # as a user would write it; parsed once below, so a bad default fails at import
    unit: str
    help: str
    default: Any = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "default", self.parse(self.default_raw))

    @property
    def allowed(self) -> str:
        return self.kind.allowed

    def parse(self, raw: Any) -> Any:
        """The knob's value from a YAML value or a `--set` string; UsageError naming knob and allowed values."""
        try:
            return self.kind.parse(raw)
        except Rejected as problem:
            raise UsageError(f"{self.name}: {problem}; allowed: {self.allowed}") from None

    def text(self, value: Any) -> str:
        return self.kind.text(value)

    def jsonable(self, value: Any) -> Any:
        return self.kind.jsonable(value)

    def summary(self) -> str:
        """One line for an argparse `help=`: the help text, default and allowed values."""
        return f"{self.help} (default {self.text(self.default)}; allowed: {self.allowed})"


# The driver's own defaults (pagelab.tpcc.outputs.RunOptions, the layer below) are the knobs'
# defaults: each value is written once, there, and read here.
RUN_DEFAULTS = RunOptions()

KNOBS: tuple[Knob, ...] = (
    Knob("page_sizes", "Page sizes", PageSizeList(), "4k,8k,16k", "bytes (k = KiB)",
         "innodb_page_size values to sweep, comma-separated, in this order. Each gets its own "
         "datadir, since InnoDB fixes the page size when the datadir is created."),
    Knob("repeats", "Repeats", Integer(1), 1, "runs",
         "Measured runs per page size, each restarted from the same loaded snapshot; 3 or more give "
         "a confidence interval for TpmC."),
    Knob("warehouses", "Warehouses", Levels(Integer(1)), RUN_DEFAULTS.warehouses, "warehouses",
         "TPC-C scale: about 100 MB of data per warehouse (seed 002: 7 warehouses, 700 MB). A list "
         "sweeps it as a second factor: every page size at every level, loaded once per level."),
    Knob("connections", "Connections", Integer(1), RUN_DEFAULTS.connections, "connections",
         "Driver connections (terminals), each running transactions back to back (tpcc-mysql -c)."),
    Knob("rampup_s", "Ramp-up", SecondsOrAuto(0, "until steady state, at most max_rampup_s"), RUN_DEFAULTS.rampup_s, "s",
         "Seconds of load before measuring starts, not counted (tpcc-mysql -r); auto: until the buffer pool "
         "has stopped filling and MSER-5 finds the work rate level (TPC-C clause 5.5's steady state), at most "
         "max_rampup_s. Built-in driver modes only."),
    Knob("max_rampup_s", "Ramp-up cap", Integer(1), RUN_DEFAULTS.max_rampup_s, "s",
         "The longest an auto ramp-up may take; a run that reaches it says so in its summary."),
    Knob("measure_s", "Measured time", SecondsOrAuto(1, "until TpmC is precise to target_ci_pct"), RUN_DEFAULTS.measure_s,
         "s",
         "Measured seconds; TpmC is the New-Orders completed in them, per minute (tpcc-mysql -l); auto: until "
         "the 95% batch-means interval of TpmC is within target_ci_pct, at most max_measure_s."),
    Knob("max_measure_s", "Measurement cap", Integer(1), RUN_DEFAULTS.max_measure_s, "s",
         "The longest an auto measurement may take (seed 002 measured 1200 s)."),
    Knob("over_time_s", "Over-time run", Integer(0), 0, "s",
         "0: none. Else one more run per page size after the rounds, measuring this long, for the figures "
         "over time and the seed's checkpoints (seed 002: 1200 s, read at 100, 400, 800 and 1100 s); "
         "the verdicts come from the other runs, which measure measure_s."),
    Knob("target_ci_pct", "Target precision", Percent(50), RUN_DEFAULTS.target_ci_pct, "%",
         "With measure_s auto: stop once the 95% interval of TpmC within the run is this close, in percent."),
    Knob("interval_s", "Report interval", Integer(1), RUN_DEFAULTS.interval_s, "s",
         "Seconds per driver report line (tpcc-mysql -i); at most measure_s."),
    Knob("sample_interval_s", "Monitor interval", Integer(1), 10, "s",
         "Seconds between monitor samples of iostat, SHOW ENGINE INNODB STATUS and SHOW GLOBAL STATUS; "
         "at most measure_s."),
    Knob("buffer_pool", "Buffer pool", Levels(BufferPoolSize(MIN_BUFFER_POOL_BYTES)), "30%", "bytes or % of loaded DB",
         "innodb_buffer_pool_size of the measured runs: a size, or a percentage of the largest loaded "
         "database of the sweep's page sizes, resolved once so every page size gets the same bytes "
         "(seed 002: 30%). It must be smaller than the data for the page size to matter. A list sweeps "
         "it as a second factor (a restart per level, the same loaded data)."),
    Knob("flush_method", "Flush method", Choice(FLUSH_METHODS), "O_DIRECT", "",
         "innodb_flush_method; O_DIRECT keeps the OS page cache from hiding buffer-pool misses."),
    Knob("redo_log", "Redo log", ByteSize(MIB), format_size(DEFAULT_REDO_LOG_BYTES), "bytes",
         "innodb_log_file_size; large enough that checkpoints do not throttle a short run."),
    Knob("max_connections", "Max connections", Integer(1, 100_000), DEFAULT_MAX_CONNECTIONS, "connections",
         f"Server max_connections; at least connections + {PAGELAB_OWN_CONNECTIONS} for pagelab's monitors."),
    Knob("seed", "Seed", Integer(0), RUN_DEFAULTS.seed, "",
         "Seed of the generated TPC-C data and of the driver's inputs, so every page size gets the same "
         "data and the same transactions (the tpcc-mysql driver has no seed)."),
    Knob("driver_mode", "Driver mode", DriverModeChoice(), DEFAULT_MODE, "",
         "statements: tpcc-mysql's SQL statements from pagelab's terminals (reproduces tpcc-mysql and seed 002); "
         "procedures: one stored-procedure CALL per transaction (HammerDB-style, a higher load than tpcc-mysql); "
         "tpcc-mysql: a real tpcc-mysql build (set tpcc_mysql_dir)."),
    Knob("transport", "Transport", Choice(TRANSPORTS), RUN_DEFAULTS.transport, "",
         "How every driver mode reaches the server: tcp (to 127.0.0.1, as tpcc-mysql is documented and seed 002 "
         "ran it) or socket (the instance's unix socket, cheaper per round trip: on 2 cores worth 6-23% of "
         "TpmC). Two sweeps compare only with the same transport."),
    Knob("stall_s", "Stall limit", Integer(1), RUN_DEFAULTS.stall_s, "s",
         "A run in which no transaction completes (tpcc-mysql: no log line arrives when due) for this long "
         "fails: the server stopped answering. It is killed, and the sweep goes on."),
    Knob("nurand", "NURand constants", Choice(NURAND_MODELS), RUN_DEFAULTS.nurand_model, "",
         "Where the skewed draws of customers and items get their constant C: tpcc-mysql (what tpcc_start "
         "really does: a constant per terminal, and for items after an order's first line the previous "
         "line's quantity, so each terminal has its own hot set) or spec (one C for the run, TPC-C clause "
         "2.1.6: a narrower hot set)."),
    Knob("spec_pacing", "Spec pacing", Boolean(), RUN_DEFAULTS.spec_pacing, "",
         "Keying and think times of TPC-C clause 5.2.5.7 between transactions; off, as in tpcc-mysql, "
         "so terminals run back to back."),
    Knob("response_limits", "Response-time limits", ResponseLimits(), "", "ms",
         "Limits of the \"90% within\" check in the log, per kind; the default is TPC-C's (clause 5.2.5.3)."),
    Knob("loader", "Loader", Choice(LOADERS), PAGELAB_LOADER, "",
         "pagelab: the seeded bulk loader, the same rows for every page size (~2.5 s per warehouse); "
         "tpcc-mysql: a real tpcc_load (set tpcc_mysql_dir; ~1 min per warehouse)."),
    Knob("tpcc_mysql_dir", "tpcc-mysql build", DirectoryOrEmpty(), "", "path",
         "Directory holding tpcc-mysql's tpcc_load and tpcc_start; needed with driver_mode or loader tpcc-mysql only."),
    Knob("server_options", "Server options", ServerOptionMap(), {}, "",
         "Extra my.cnf options for every run, e.g. {innodb_io_capacity: 2000}; "
         "--set server_options.NAME=VALUE adds or replaces one."),
    Knob("equivalence_pct", "Equivalence margin", Percent(50), DEFAULT_EQUIVALENCE_PCT, "%",
         "The margin δ of the verdicts: two page sizes are \"equivalent within ±δ\" when the interval of "
         "their ratio lies inside ±δ; pagelab stats and compare read it from the bundle."),
)
KNOBS_BY_NAME: Mapping[str, Knob] = MappingProxyType({knob.name: knob for knob in KNOBS})


def _known_knobs() -> str:
    return " ".join(KNOBS_BY_NAME)


# --- rules between knobs -----------------------------------------------------------------------------
#
# Each rule looks at all values and returns problems, each naming the knob to change.


def _intervals_fit_the_measurement(values: Mapping[str, Any]) -> list[str]:
    problems = []
    longest = "max_measure_s" if values["measure_s"] == AUTO else "measure_s"
    for name in ("interval_s", "sample_interval_s"):
        if values[name] > values[longest]:
            problems.append(f"{name}: {values[name]} is longer than {longest} ({values[longest]}), "
                            f"so no interval would be complete; allowed: 1 to {longest}")
    return problems


def _auto_needs_a_builtin_driver(values: Mapping[str, Any]) -> list[str]:
    automatic = [name for name in ("rampup_s", "measure_s") if values[name] == AUTO]
    if automatic and mode_named(values["driver_mode"]).fixed_durations:
        return [f"{automatic[0]}: auto needs one of pagelab's driver modes (tpcc_start takes fixed -r and -l); "
                f"allowed with driver_mode {values['driver_mode']}: whole seconds"]
    return []


def _server_admits_every_connection(values: Mapping[str, Any]) -> list[str]:
    needed = values["connections"] + PAGELAB_OWN_CONNECTIONS
    if values["max_connections"] < needed:
        return [f"max_connections: {values['max_connections']} is too few for {values['connections']} driver "
                f"connections and pagelab's own {PAGELAB_OWN_CONNECTIONS}; allowed: at least {needed}"]
    return []


def _tpcc_mysql_has_a_build(values: Mapping[str, Any]) -> list[str]:
    directory = values["tpcc_mysql_dir"]
    users = runs_tpcc_mysql(values["driver_mode"], values["loader"])
    if not users:
        return []
    if not directory:
        return [f"tpcc_mysql_dir: {' and '.join(users)} needs the directory of a tpcc-mysql build; "
                "allowed: a directory holding tpcc_load and tpcc_start"]
    if not Path(directory).is_dir():
        return [f"tpcc_mysql_dir: {directory} is not a directory; "
                "allowed: a directory holding tpcc_load and tpcc_start"]
    return []


def _levels(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def machine_memory_bytes() -> int:
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


# What TPC-C loads per warehouse, near enough to check a percentage before the load: 7 warehouses
# load 668-750 MB here depending on the page size (seed 002: 700 MB).
LOADED_BYTES_PER_WAREHOUSE_ESTIMATE = 100 * 10**6


def _pools_fit(values: Mapping[str, Any]) -> list[str]:
    """Every pool of the sweep must fit the machine and be at least what the largest page size
    needs: a fixed one exactly, a percentage of the data as estimated for its warehouses (and once
    more exactly when the memory budget is measured, pagelab.sweep.experiment)."""
    problems = []
    memory = machine_memory_bytes()
    for level in _levels(values["buffer_pool"]):
        for warehouses in _levels(values["warehouses"]):
            if level.n_bytes is not None:
                pool, about = level.n_bytes, ""
            else:
                pool = level.resolve(warehouses * LOADED_BYTES_PER_WAREHOUSE_ESTIMATE)
                about = f" (about, of the ~{size_text(warehouses * LOADED_BYTES_PER_WAREHOUSE_ESTIMATE)} {warehouses} warehouse(s) load)"
            # a percentage is raised to the page size's minimum when it is resolved (BufferPoolSpec.resolve)
            problem = pool_problem(pool, values["page_sizes"] if level.n_bytes is not None else (), memory)
            if problem:
                named = f"{level}{about}: " if isinstance(values["buffer_pool"], tuple) or about else ""
                problems.append(f"buffer_pool: {named}{problem}")
                break
    return problems


def pool_problem(pool_bytes: int, page_sizes: Iterable[int], memory_bytes: int) -> str | None:
    """Why a pool of `pool_bytes` cannot run these page sizes on a machine of `memory_bytes`, or None."""
    if pool_bytes >= memory_bytes:
        return (f"{size_text(pool_bytes)} is more than this machine's memory ({size_text(memory_bytes)}); "
                "allowed: a pool smaller than the memory, with room for the server and the driver")
    return pool_too_small(pool_bytes, page_sizes)


RULES = (_intervals_fit_the_measurement, _auto_needs_a_builtin_driver, _server_admits_every_connection,
         _tpcc_mysql_has_a_build, _pools_fit)
# The knobs a profile may give as a list of levels (a second factor beside the page size).
GRID_FACTORS = ("warehouses", "buffer_pool")
# What a run is for: a verdict run (measure_s, in the rounds) or an over-time run (over_time_s).
VERDICT_RUN, OVER_TIME_RUN = "verdict", "over_time"


# --- profiles ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """A validated set of knob values. Knobs read as attributes: `profile.page_sizes`, `profile.measure_s`."""

    name: str
    values: Mapping[str, Any]
    source: str = ""  # the YAML file it came from, or "" when built from a dict
    overrides: tuple[str, ...] = ()
    description: str = ""  # the YAML file's opening comment

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))
        object.__setattr__(self, "overrides", tuple(self.overrides))

    def __reduce__(self):
        # The read-only mappings inside cannot be pickled; a profile travels as its dict and is
        # validated again on arrival (copy.deepcopy and multiprocessing use this too).
        return profile_from_dict, (self.to_dict(),)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails; reading __dict__ directly avoids recursion while
        # the instance is being built or unpickled.
        values = self.__dict__.get("values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no knob or attribute {name!r}; known knobs: {_known_knobs()}")

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    @property
    def page_size_labels(self) -> list[str]:
        return [page_size_label(n) for n in self.page_sizes]

    def grid(self) -> dict[str, tuple]:
        """The second factors: each knob given as a list, with its levels in the order given."""
        return {name: self.values[name] for name in GRID_FACTORS if isinstance(self.values[name], tuple)}

    def cells(self) -> list[dict[str, Any]]:
        """Every combination of the second factors' levels, as knob values ([{}] without a grid)."""
        from itertools import product

        grid = self.grid()
        return [dict(zip(grid, levels)) for levels in product(*grid.values())]

    def for_cell(self, cell: Mapping[str, Any]) -> "Profile":
        """This profile at one cell of its grid: each listed knob at the cell's level (as a value
        or as sweep.json writes it)."""
        values = dict(self.values)
        for name, level in cell.items():
            values[name] = KNOBS_BY_NAME[name].parse(level)
        return Profile(name=self.name, values=values, source=self.source, overrides=self.overrides,
                       description=self.description)

    def units(self) -> list[dict[str, Any]]:
        """Every run, in the order a machine runs them: {"page_size", "repeat", "cell" (jsonable),
        "round", "position"}. Blocked in rounds: round k runs every cell (page size x levels) once.
        With a second factor the order within each round is a permutation drawn from the profile's
        seed (numpy's PCG64), so a drift of the machine falls on no factor systematically; without
        one it is the page sizes' order, as `runs`."""
        import numpy as np

        cells = [(page_size, {name: KNOBS_BY_NAME[name].jsonable(level) for name, level in cell.items()})
                 for cell in self.cells() for page_size in self.page_sizes]
        shuffle = np.random.default_rng(self.seed) if self.grid() else None
        units = []
        for repeat in range(1, self.repeats + 1):
            order = shuffle.permutation(len(cells)) if shuffle is not None else range(len(cells))
            for position, index in enumerate(order, start=1):
                page_size, cell = cells[int(index)]
                units.append({"page_size": page_size, "repeat": repeat, "cell": cell, "round": repeat,
                              "position": position, "role": VERDICT_RUN})
        if self.over_time_s:  # after the rounds: a long run on a machine the short ones have warmed alike
            for position, (page_size, cell) in enumerate(cells, start=1):
                units.append({"page_size": page_size, "repeat": 1, "cell": cell, "round": self.repeats + 1,
                              "position": position, "role": OVER_TIME_RUN})
        return units

    def for_role(self, role: str) -> "Profile":
        """This profile for a run of `role`: an over-time run measures over_time_s, no auto stop."""
        if role != OVER_TIME_RUN:
            return self
        values = dict(self.values, measure_s=self.over_time_s)
        return Profile(name=self.name, values=values, source=self.source, overrides=self.overrides,
                       description=self.description)

    def runs(self) -> list[tuple[int, int]]:
        """(page size in bytes, repeat from 1) of every run, repeat by repeat.

        Repeat-major order spreads any slow drift of the machine (SSD garbage collection, heat)
        over all page sizes, instead of loading it onto whichever size happens to run last.
        """
        return [(page_size, repeat) for repeat in range(1, self.repeats + 1) for page_size in self.page_sizes]

    def buffer_pool_bytes(self, db_bytes: int | None, page_size: int | None = None) -> int:
        """The pool for the measured runs; a percentage is taken of `db_bytes`, the loaded database,
        and raised to what InnoDB needs at `page_size`."""
        return self.buffer_pool.resolve(db_bytes, page_size)

    def server_settings(self, db_bytes: int | None, pool_bytes: int | None = None,
                        page_size: int | None = None) -> ServerSettings:
        """What the server runs with for a measured run of this profile at `page_size` (`pool_bytes`
        instead of the profile's buffer pool, e.g. the roomier pool of the load)."""
        pool = pool_bytes if pool_bytes is not None else self.buffer_pool_bytes(db_bytes, page_size)
        return ServerSettings(buffer_pool_bytes=pool, flush_method=self.flush_method,
                              redo_log_bytes=self.redo_log, max_connections=self.max_connections,
                              extra=dict(self.server_options))

    def run_options(self):
        """The TPC-C driver's options for a measured run of this profile."""
        rampup_auto, measure_auto = self.rampup_s == AUTO, self.measure_s == AUTO
        return RunOptions(warehouses=self.warehouses, connections=self.connections,
                          rampup_s=0 if rampup_auto else self.rampup_s, measure_s=0 if measure_auto else self.measure_s,
                          rampup_auto=rampup_auto, max_rampup_s=self.max_rampup_s, measure_auto=measure_auto,
                          max_measure_s=self.max_measure_s, target_ci_pct=self.target_ci_pct,
                          interval_s=self.interval_s, seed=self.seed,
                          spec_pacing=self.spec_pacing, mode=self.driver_mode, tpcc_mysql_dir=self.tpcc_mysql_dir,
                          nurand_model=self.nurand, transport=self.transport, stall_s=self.stall_s,
                          response_limits_ms={kind: self.response_limits[kind.column] for kind in TransactionKind})

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, for sweep.json; `profile_from_dict` reads it back."""
        knob_values = {knob.name: knob.jsonable(self.values[knob.name]) for knob in KNOBS}
        return {"profile": self.name, "source": self.source, "overrides": list(self.overrides),
                "description": self.description, **knob_values}


def available_profiles(directory: Path = PROFILES_DIR) -> list[str]:
    """Names of the profiles shipped in `directory` (runbooks/profiles/)."""
    if not directory.is_dir():
        return []
    return sorted(path.stem for path in directory.iterdir() if path.suffix in PROFILE_SUFFIXES)


def _profile_path(name_or_path: str | Path) -> Path:
    text = str(name_or_path)
    looks_like_a_path = isinstance(name_or_path, Path) or "/" in text or text.endswith(PROFILE_SUFFIXES)
    if looks_like_a_path:
        path = Path(text).expanduser()
        if not path.is_file():
            raise UsageError(f"profile: no file at {path}; give a profile name "
                             f"({' '.join(available_profiles())}) or the path of a YAML file")
        return path
    for suffix in PROFILE_SUFFIXES:
        path = PROFILES_DIR / f"{text}{suffix}"
        if path.is_file():
            return path
    raise UsageError(f"profile: {text!r} is not a profile; allowed: {' '.join(available_profiles())} "
                     f"(in {PROFILES_DIR}) or the path of a YAML file")


def _opening_comment(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return "\n".join(lines).strip()


def _read_yaml(path: Path) -> tuple[dict[str, Any], str]:
    text = path.read_text()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as problem:
        raise UsageError(f"profile {path}: not valid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UsageError(f"profile {path}: must be a mapping of knob: value; known knobs: {_known_knobs()}")
    return data, _opening_comment(text)


def _split_override(override: str) -> tuple[str, Any]:
    name, equals, value = override.partition("=")
    name = name.strip()
    if not equals or not name:
        raise UsageError(f"--set takes knob=value, got {override!r} (e.g. --set measure_s=30); "
                         f"known knobs: {_known_knobs()}")
    return name, value.strip()


def _validate(raw_values: Mapping[str, Any], overrides: Iterable[str], where: str) -> dict[str, Any]:
    """Every knob's value from raw YAML values and `--set` strings; one UsageError with every problem."""
    problems: list[str] = []
    raw = dict(raw_values)
    for name in raw:
        if name not in KNOBS_BY_NAME:
            problems.append(f"{name}: unknown knob in {where}; known knobs: {_known_knobs()}")
    option_overrides: dict[str, str] = {}
    for override in overrides:
        name, value = _split_override(override)
        knob_name, dot, option = name.partition(".")
        if dot and knob_name == "server_options" and option:
            option_overrides[option] = value
        elif name in KNOBS_BY_NAME:
            raw[name] = value
        else:
            problems.append(f"{name}: unknown knob in --set {override}; known knobs: {_known_knobs()}")
    values: dict[str, Any] = {}
    for knob in KNOBS:
        try:
            values[knob.name] = knob.parse(raw[knob.name]) if knob.name in raw else knob.default
        except UsageError as problem:
            problems.append(str(problem))
    if option_overrides and "server_options" in values:
        try:
            values["server_options"] = KNOBS_BY_NAME["server_options"].parse(
                {**values["server_options"], **option_overrides})
        except UsageError as problem:
            problems.append(str(problem))
    if not problems:
        for rule in RULES:
            problems.extend(rule(values))
    if len(problems) == 1:
        raise UsageError(problems[0])
    if problems:
        raise UsageError(f"{where}: {len(problems)} problems:\n" + "\n".join(f"  {p}" for p in problems))
    return values


def load_profile(name_or_path: str | Path, overrides: Iterable[str] = ()) -> Profile:
    """A shipped profile by name ("quick") or a YAML file by path, with `--set knob=value` overrides."""
    path = _profile_path(name_or_path)
    raw, description = _read_yaml(path)
    # A lone string would otherwise be taken apart letter by letter.
    overrides = (overrides,) if isinstance(overrides, str) else tuple(overrides)
    values = _validate(raw, overrides, where=f"profile {path.name}")
    return Profile(name=path.stem, values=values, source=str(path), overrides=overrides,
                   description=description)


def profile_from_dict(data: Mapping[str, Any]) -> Profile:
    """The inverse of `Profile.to_dict()`, validated again (e.g. when resuming a sweep from its sweep.json)."""
    metadata = ("profile", "source", "overrides", "description")
    raw = {name: value for name, value in data.items() if name not in metadata}
    if "driver" in raw:  # sweep.json written before driver modes: "driver": "pagelab" | "tpcc-mysql"
        legacy = raw.pop("driver")
        raw.setdefault("driver_mode", legacy)
        if legacy in MODES_BY_NAME and MODES_BY_NAME[legacy].external:
            raw.setdefault("loader", TPCC_MYSQL_LOADER)  # that driver loaded with tpcc_load then
    name = str(data.get("profile", "custom"))
    values = _validate(raw, (), where=f"profile {name}")
    return Profile(name=name, values=values, source=str(data.get("source", "")),
                   overrides=tuple(data.get("overrides", ())), description=str(data.get("description", "")))


# --- generated documentation -------------------------------------------------------------------------


def profile_help(width: int = 80) -> str:
    """The knob table for `pagelab sweep --help` (use argparse's RawDescriptionHelpFormatter)."""
    header = ("knob", "default", "unit")
    rows = [(knob.name, knob.text(knob.default), knob.unit) for knob in KNOBS]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    indent = " " * 6

    def line(cells: tuple[str, ...]) -> str:
        return "  " + "  ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip()

    out = [f"profiles: {' '.join(available_profiles())} (in runbooks/profiles/), or the path of a YAML file",
           "knobs: set in the profile's YAML, or on the command line with --set KNOB=VALUE (repeatable)", "",
           line(header)]
    for knob, row in zip(KNOBS, rows):
        out.append(line(row))
        out += textwrap.wrap(knob.help, width, initial_indent=indent, subsequent_indent=indent)
        out += textwrap.wrap(f"allowed: {knob.allowed}", width, initial_indent=indent, subsequent_indent=indent + "  ")
    return "\n".join(out)


def describe(profile: Profile, db_bytes: int | None = None) -> list[tuple[str, str]]:
    """(label, value) rows for a report's title page, like the seed's "Benchmark setup" table."""
    rows = [("Profile", profile.name + (f" (--set {' --set '.join(profile.overrides)})" if profile.overrides else ""))]
    for knob in KNOBS:
        value = profile.values[knob.name]
        shown = knob.text(value)
        if knob.name == "page_sizes":
            shown = " ".join(profile.page_size_labels)
        elif knob.name == "buffer_pool" and not isinstance(value, tuple) and value.percent_of_db is not None:
            shown = f"{value} of the loaded database"
            if db_bytes is not None:
                shown += f" ({size_text(value.resolve(db_bytes), tenths=True)} of {size_text(db_bytes, tenths=True)})"
        elif knob.unit == "s":
            shown = f"{value} s"
        elif knob.name == "driver_mode":
            shown = f"{value}: {mode_named(value).summary}"
        elif knob.name == "tpcc_mysql_dir" and not runs_tpcc_mysql(profile.driver_mode, profile.loader):
            continue  # irrelevant unless that driver runs
        rows.append((knob.label, shown))
    return rows
