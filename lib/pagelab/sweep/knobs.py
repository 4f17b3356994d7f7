"""Every knob of a page-size sweep, declared once, and the rules between knobs.

A knob is one thing a user may vary in a sweep: the page sizes, the TPC-C scale, the run's timing,
the server's settings. Each is declared below in `KNOBS`, exactly once, with its type, default,
allowed values, unit and help text. Everything else is generated from those declarations: the
parsing of YAML values and of `--set knob=value` strings, the error messages (which name the knob
and what it allows), the knob table in `pagelab sweep --help`, and the set-up table on a report's
title page. Adding a knob means adding one `Knob(...)` entry, nothing more. The value types live in
`knob_types.py` (the server's in `server_knob_types.py`, the TPC-C driver's in `tpcc_knob_types.py`);
a profile, the knobs' values read from YAML, in `profiles.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from pagelab.common.errors import UsageError
from pagelab.evidence.block_weights import BLOCK_WEIGHTS, EQUAL
from pagelab.evidence.intervals import DEFAULT_EQUIVALENCE_PCT
from pagelab.mysql.config import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_REDO_LOG_BYTES,
    FLUSH_METHODS,
    MIN_BUFFER_POOL_BYTES,
)
from pagelab.mysql.pagesize import pool_too_small
from pagelab.machine.placement import PLACEMENTS, SHARED, SPLIT, split_problem
from pagelab.sweep.knob_types import (
    AUTO,
    Boolean,
    Choice,
    DirectoryOrEmpty,
    Integer,
    Levels,
    Number,
    Percent,
    Rejected,
    SecondsOrAuto,
)
from pagelab.sweep.server_knob_types import BufferPoolSize, ByteSize, PageSizeList, PageSizePair, ServerOptionMap
from pagelab.sweep.tpcc_knob_types import DriverModeChoice, ResponseLimits
from pagelab.tpcc.outputs import TRANSPORTS, RunOptions
from pagelab.tpcc.inputs import NURAND_MODELS
from pagelab.tpcc.modes import DEFAULT_MODE, LOADERS, PAGELAB_LOADER, mode_named, runs_tpcc_mysql
from pagelab.common.units import MIB, format_size, page_size_label, size_text

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
         "innodb_page_size values to sweep, in this order. Each gets its own "
         "datadir, since InnoDB fixes the page size when the datadir is created."),
    Knob("repeats", "Repeats", Integer(1), 1, "runs",
         "Rounds: runs per page size, each page size once per round, each run restarted from the same "
         "loaded snapshot. A median has a 95% interval from 6 runs (fewer give the runs' range, at less "
         "confidence). A verdict on a pair needs at least: for TpmC, 3 rounds (its two-level model); for the "
         "other metrics, judged by exact rank tests, enough rounds for the test's smallest p to pass the family's "
         "procedure: the declared primary pair (`primary`) first, alone, at the full 5%, then, only if it was "
         "called, the other pairs by Holm's correction over them (a fixed sequence; without a primary, Holm over "
         "every pair). With 3 page sizes that is 5 rounds (compared run by run, smallest p 2/252, 2 x 2/252 = "
         "0.016) or 7 (from 6 rounds on they are compared round by round by the exact signed-rank test, whose "
         "smallest p is 2/64 with 6 rounds, 2 x 2/64 = 0.0625, and 2/128 with 7, 2 x 2/128 = 0.031), and 9 rounds "
         "with 5 page sizes. `pagelab sweep` says before it starts when the rounds leave no room for one."),
    Knob("max_rounds", "Most rounds", Integer(0), 0, "rounds",
         "0: the sweep is analysed once, after its repeats rounds, at the full 5%. Else the most rounds "
         "`pagelab sweep --resume BUNDLE --add-rounds N` may bring it to: every look (after the rounds, and after "
         "each addition) is then tested at a stricter level than 5%, strictest at the first look and near 5% at "
         "the last (an alpha-spending boundary of the O'Brien-Fleming type, after Lan & DeMets 1983, over rounds / "
         "max_rounds), so adding rounds until a pair resolves cannot make a verdict out of noise. Declared when "
         "the sweep is made."),
    Knob("warehouses", "Warehouses", Levels(Integer(1)), RUN_DEFAULTS.warehouses, "warehouses",
         "TPC-C scale: about 100 MB of data per warehouse (the Week 4 lab: 7 warehouses, 700 MB). A list "
         "sweeps it as a second factor: every page size at every level, loaded once per level."),
    Knob("connections", "Connections", Integer(1), RUN_DEFAULTS.connections, "connections",
         "Driver connections (terminals), each running transactions back to back (tpcc-mysql -c)."),
    Knob("rampup_s", "Ramp-up",
         SecondsOrAuto(0, "until the pool has filled and the rate is level, at most max_rampup_s"),
         RUN_DEFAULTS.rampup_s, "s",
         "Seconds of load before measuring starts, not counted (tpcc-mysql -r); auto: ramps up toward TPC-C "
         "clause 5.5's steady state and ends by itself when the buffer pool has stopped filling and MSER-5 "
         "calls the work rate level, or at max_rampup_s (twice that while the pool is still filling); the "
         "seconds measured after it are not a steady state shown. Built-in driver modes only."),
    Knob("max_rampup_s", "Ramp-up cap", Integer(1), RUN_DEFAULTS.max_rampup_s, "s",
         "The longest an auto ramp-up may take, unless the buffer pool is still filling then: a cold pool "
         "goes on filling for up to as long again, so that no measurement times a cold pool's reads. A run "
         "says in its summary which of these ended its ramp-up."),
    Knob("measure_s", "Measured time", SecondsOrAuto(1, "until TpmC is precise to target_ci_pct"), RUN_DEFAULTS.measure_s,
         "s",
         "Measured seconds, after the ramp-up ended; TpmC is the New-Orders completed in them, per minute "
         "(tpcc-mysql -l); auto: until "
         "the 95% batch-means interval of TpmC is within target_ci_pct, at most max_measure_s."),
    Knob("max_measure_s", "Measurement cap", Integer(1), RUN_DEFAULTS.max_measure_s, "s",
         "The longest an auto measurement may take (the Week 4 lab measured 1200 s)."),
    Knob("over_time_s", "Over-time run", Integer(0), 0, "s",
         "0: none. Else one more run per page size after the rounds, measuring this long, for the figures "
         "over time and the lab's checkpoints (the Week 4 lab: 1200 s, read at 100, 400, 800 and 1100 s). "
         "The medians, and the verdicts of every metric but TpmC, come from the rounds' runs, which measure "
         "measure_s; TpmC's verdict (its two-level model) counts the over-time runs as one more block: after "
         "MSER-5 cuts each one's warm-up, all of the rest where the drift test detects no drift, else only its "
         "first window of a verdict run's length."),
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
         "(the Week 4 lab's text says 30%, its server really had 256 MiB, which the course profile runs). "
         "It must be smaller than the data for the page size to matter. A list sweeps "
         "it as a second factor (a restart per level, the same loaded data)."),
    Knob("flush_method", "Flush method", Choice(FLUSH_METHODS), "O_DIRECT", "",
         "innodb_flush_method; O_DIRECT keeps the OS page cache from hiding buffer-pool misses."),
    Knob("redo_log", "Redo log", ByteSize(MIB), format_size(DEFAULT_REDO_LOG_BYTES), "bytes",
         "innodb_log_file_size; large enough that checkpoints do not throttle a short run."),
    Knob("max_connections", "Max connections", Integer(1, 100_000), DEFAULT_MAX_CONNECTIONS, "connections",
         f"Server max_connections; at least connections + {PAGELAB_OWN_CONNECTIONS} for pagelab's monitors."),
    Knob("random_seed", "Random seed", Integer(0), RUN_DEFAULTS.seed, "",
         "Random seed of the generated TPC-C data, of the driver's inputs and of the run order in each "
         "round, so every page size gets the same data and the same transactions and a sweep can be "
         "repeated exactly (the tpcc-mysql driver has no random seed of its own)."),
    Knob("driver_mode", "Driver mode", DriverModeChoice(), DEFAULT_MODE, "",
         "statements: tpcc-mysql's SQL statements from pagelab's terminals (reproduces tpcc-mysql and the Week 4 lab); "
         "procedures: one stored-procedure CALL per transaction (HammerDB-style, a higher load than tpcc-mysql); "
         "tpcc-mysql: a real tpcc-mysql build (set tpcc_mysql_dir)."),
    Knob("transport", "Transport", Choice(TRANSPORTS), RUN_DEFAULTS.transport, "",
         "How every driver mode reaches the server: tcp (to 127.0.0.1, as tpcc-mysql is documented and the Week "
         "4 lab ran it) or socket (the instance's unix socket, cheaper per round trip: on 2 cores worth 6-23% of "
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
    Knob("cpu_placement", "CPU placement", Choice(PLACEMENTS), SHARED, "",
         "shared: the server and the driver may each run on every CPU, as the scheduler places them; split: the "
         "server on one CPU, the driver (the run's kernel: its terminals and monitors) on the others, each "
         "pinned for the run (sched_setaffinity); needs 2 CPUs. Each run's summary records where each ran. "
         "Measured on A/A in the TPC-C runbook's table of noise levers."),
    Knob("server_options", "Server options", ServerOptionMap(), {}, "",
         "Extra my.cnf options for every run, e.g. {innodb_io_capacity: 2000}; "
         "--set server_options.NAME=VALUE adds or replaces one."),
    Knob("disk_profile", "Disk read speed", Boolean(), True, "",
         "Before the first run on each host, take the data disk's random reads at the sweep's page sizes, one "
         "at a time (fio: psync, O_DIRECT, QD1, 5 s per size on a 1 GiB file, about 20 s for 3 sizes; kept 30 days in "
         "data/cache, so a machine measures once a month), record them in BUNDLE/hosts/<host>/disk_profile.json "
         "and give them in the report's Setup: what the disk does, where its kind cannot be seen (a virtual "
         "disk). Without fio the sweep runs and the report says it was not measured; false: not measured."),
    Knob("equivalence_pct", "Equivalence margin", Percent(50), DEFAULT_EQUIVALENCE_PCT, "%",
         "The margin δ of the verdicts: two page sizes are \"equivalent within ±δ\" when the interval of "
         "their ratio lies inside ±δ; pagelab stats and compare read it from the bundle."),
    Knob("planned_within_a", "Planned within-run noise", Number(0, 1e7), 0, "%²·s",
         "The within-run variance component a the design (repeats x measure_s) was planned with, in %²·s as "
         "pagelab stats and the report write it (pagelab plan prints log² s: 2,721 %²·s is 0.2721 log² s); 0: none "
         "declared. With "
         "planned_floor_pct it lets the report say whether this sweep's machine was noisier than the design assumed."),
    Knob("planned_floor_pct", "Planned between-run floor", Number(0, 100), 0, "%",
         "The between-run floor √f the design was planned with, in % (1.6 is f = 0.016²); 0: none declared. "
         "The report sets the components the sweep measured beside it."),
    Knob("primary", "Primary comparison", PageSizePair(), "", "",
         "The comparison the sweep is for, declared before it runs, e.g. '16k vs 4k': recorded in sweep.json "
         "when the bundle is made and never changed after; tested first at the full 5%, the other pairs only "
         "after it (a fixed sequence). Empty: every pair alike, Holm over the family."),
    Knob("block_weights", "Block weights", Choice(BLOCK_WEIGHTS), EQUAL, "",
         "How TpmC's two-level model weighs its blocks (the rounds, and the over-time runs' block when it counts), "
         "declared before the data and recorded in sweep.json when the bundle is made, never changed after: "
         "equal (each block once, the mean of their log-ratios) or precision (each block by 1 / (its within-run "
         "variance + the between-run floor at its 95% upper bound), a random-effects meta-analysis with the "
         "Hartung-Knapp t on the blocks less one; a long stationary over-time block then weighs more, as far as "
         "the rounds can bound the floor). Checked by bench/bench_block_weights.py."),
)
KNOBS_BY_NAME: Mapping[str, Knob] = MappingProxyType({knob.name: knob for knob in KNOBS})
# Knobs that say what the design assumed, not how a run is made: a bundle made before them, or with
# other values, is still the same experiment (pagelab.sweep.extend, pagelab plan).
PLANNING_KNOBS = ("planned_within_a", "planned_floor_pct")
# Knobs that add a record to the bundle and change no run: likewise the same experiment either way.
RECORD_KNOBS = ("disk_profile",)
# Knobs that had another name: a profile, a `--set` or an older bundle's sweep.json that gives the
# old name is read as the new one, with a note saying so (pagelab.sweep.profiles).
RENAMED_KNOBS: Mapping[str, str] = MappingProxyType({"seed": "random_seed"})


def known_knobs_text() -> str:
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


def _room_to_grow(values: Mapping[str, Any]) -> list[str]:
    if values["max_rounds"] and values["max_rounds"] < values["repeats"]:
        return [f"max_rounds: {values['max_rounds']} is fewer than the {values['repeats']} rounds (repeats) the sweep "
                f"starts with; allowed: 0 (no rounds added later) or at least {values['repeats']}"]
    return []


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
# load 668-750 MB here depending on the page size (the Week 4 lab: 700 MB).
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


# The knobs a profile may give as a list of levels (a second factor beside the page size).
GRID_FACTORS = ("warehouses", "buffer_pool")


def _one_second_factor(values: Mapping[str, Any]) -> list[str]:
    """A grid varies one factor beside the page size. With two, the page-size effect at a level of
    one would pool runs made at different levels of the other, and its rounds would pair them."""
    listed = [name for name in GRID_FACTORS if isinstance(values[name], tuple) and len(values[name]) > 1]
    if len(listed) > 1:
        return [f"{' and '.join(listed)}: both are given as lists; allowed: one second factor beside the page "
                f"size per sweep, so give one of them a single value (or run one sweep per value)"]
    return []


def _primary_in_the_sweep(values: Mapping[str, Any]) -> list[str]:
    """A declared primary comparison names two page sizes the sweep runs."""
    if not values["primary"]:
        return []
    swept = [page_size_label(n) for n in values["page_sizes"]]
    missing = [label for label in values["primary"].split(" vs ") if label not in swept]
    if missing:
        return [f"primary: {values['primary']} names {' and '.join(missing)}, which this sweep does not run "
                f"(page_sizes {','.join(swept)}); allowed: two of {', '.join(swept)}, or add "
                f"{' and '.join(missing)} to page_sizes"]
    return []


def _split_needs_two_cpus(values: Mapping[str, Any]) -> list[str]:
    """Split placement gives the server and the driver CPUs of their own: one CPU cannot be split."""
    problem = split_problem() if values["cpu_placement"] == SPLIT else None
    return [f"cpu_placement: {problem}"] if problem else []


RULES = (_intervals_fit_the_measurement, _room_to_grow, _auto_needs_a_builtin_driver, _server_admits_every_connection,
         _tpcc_mysql_has_a_build, _pools_fit, _one_second_factor, _primary_in_the_sweep,
         _split_needs_two_cpus)


# A help sentence longer than this is cut at its first clause break outside brackets, so the table's
# column stays a line or two; the whole text is `pagelab sweep --help`'s.
SETS_LONGEST = 160


def what_it_sets(name: str) -> str:
    """The first sentence of the knob's declared help (what `pagelab sweep --help` prints), for the
    report's knob table: one source for what a knob means. A first sentence that is only a value's
    meaning ('0: none.') takes the next one with it; a long one ends at its first '; ' outside brackets, unless it lists the
    values' meanings ('statements: ...; procedures: ...'), which are kept whole. '' for a name this
    pagelab does not declare (a bundle's knob since removed)."""
    knob = KNOBS_BY_NAME.get(name)
    if knob is None:
        return ""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`(])", " ".join(knob.help.split()))
    first = sentences[0]
    if len(first) < 20 and len(sentences) > 1:
        first = f"{first} {sentences[1]}"
    if len(first) > SETS_LONGEST and not re.match(r"[\w-]+: ", first):  # not a list of values' meanings
        depth = 0
        for i, char in enumerate(first):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and first.startswith("; ", i):
                return first[:i] + "."
    return first
