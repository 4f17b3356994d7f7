"""A profile: the values of every knob for one sweep, read from YAML and checked.

A profile is a YAML file in runbooks/profiles/ giving values for some knobs (declared once in
`knobs.py`); the rest take their defaults. `load_profile("quick", ["measure_s=30"])` reads one,
applies `--set` overrides, checks every knob and the rules between knobs, and returns a frozen
`Profile` -- or raises one `UsageError` listing every problem. Nothing is started before that, so a
typo costs nothing. A profile also lays out its runs (`units`: rounds, cells, order) and describes
itself for `--help` and for the report's set-up table.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import yaml

from pagelab.common.errors import UsageError
from pagelab.common.paths import PROFILES_DIR
from pagelab.common.transactions import TransactionKind
from pagelab.common.units import page_size_label, size_text
from pagelab.mysql.config import ServerSettings
from pagelab.sweep.knob_types import AUTO, LIST_SYNTAX
from pagelab.sweep.knobs import GRID_FACTORS, KNOBS, KNOBS_BY_NAME, RENAMED_KNOBS, RULES, known_knobs_text
from pagelab.tpcc.modes import MODES_BY_NAME, TPCC_MYSQL_LOADER, mode_named, runs_tpcc_mysql
from pagelab.tpcc.outputs import RunOptions

PROFILE_SUFFIXES = (".yaml", ".yml")
# What `pagelab sweep` and `make demo` run when no profile is named.
DEFAULT_PROFILE = "quick"
# What a run is for: a verdict run (measure_s, in the rounds) or an over-time run (over_time_s).
VERDICT_RUN, OVER_TIME_RUN = "verdict", "over_time"
# The seed stream the over-time runs' order is drawn from (numpy's SeedSequence entropy [seed, 1]).
OVER_TIME_STREAM = 1


# --- profiles ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """A validated set of knob values. Knobs read as attributes: `profile.page_sizes`, `profile.measure_s`."""

    name: str
    values: Mapping[str, Any]
    source: str = ""  # the YAML file it came from, or "" when built from a dict
    overrides: tuple[str, ...] = ()
    description: str = ""  # the YAML file's opening comment
    notes: tuple[str, ...] = ()  # said to the user once, e.g. a knob read under its new name

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))
        object.__setattr__(self, "overrides", tuple(self.overrides))
        object.__setattr__(self, "notes", tuple(self.notes))

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
        raise AttributeError(f"{type(self).__name__} has no knob or attribute {name!r}; known knobs: {known_knobs_text()}")

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
        "round", "position"}. Blocked in rounds: round k runs every cell (page size x levels) once,
        so a slow drift of the machine (SSD garbage collection, heat) spreads over all of them. The
        order within each round is a permutation drawn afresh from the profile's random seed (numpy's
        PCG64): round k takes the k-th draw, so a position effect (the run after a load, after a
        long run, first in a round) falls on no page size systematically either, and rounds added
        later (`added_units`) continue the same stream."""
        units = self._verdict_units(first_round=1, first_repeat=1, count=self.repeats)
        if self.over_time_s:  # after the rounds: a long run on a machine the short ones have warmed alike
            # One more block (pagelab.evidence.model counts its stationary part), so its order is drawn
            # from the seed like a round's: from a stream of its own, so rounds added later keep theirs.
            import numpy as np

            cells = self._cells_jsonable()
            order = np.random.default_rng((self.random_seed, OVER_TIME_STREAM)).permutation(len(cells))
            for position, index in enumerate(order, start=1):
                page_size, cell = cells[int(index)]
                units.append({"page_size": page_size, "repeat": 1, "cell": cell, "round": self.repeats + 1,
                              "position": position, "role": OVER_TIME_RUN})
        return units

    def added_units(self, first_round: int, first_repeat: int, count: int) -> list[dict[str, Any]]:
        """`count` more rounds of verdict runs for a sweep extended after it ran (`--add-rounds`):
        numbered from `first_round` (after every round the sweep has, the over-time runs' included)
        and `first_repeat`, each ordered by the random seed's draw of its round's number."""
        return self._verdict_units(first_round, first_repeat, count)

    def _cells_jsonable(self) -> list[tuple[int, dict[str, Any]]]:
        return [(page_size, {name: KNOBS_BY_NAME[name].jsonable(level) for name, level in cell.items()})
                for cell in self.cells() for page_size in self.page_sizes]

    def _verdict_units(self, first_round: int, first_repeat: int, count: int) -> list[dict[str, Any]]:
        import numpy as np

        cells = self._cells_jsonable()
        shuffle = np.random.default_rng(self.random_seed)
        for _ in range(first_round - 1):  # the draws of the rounds before: the stream goes on where they left it
            shuffle.permutation(len(cells))
        units = []
        for offset in range(count):
            order = shuffle.permutation(len(cells))
            for position, index in enumerate(order, start=1):
                page_size, cell = cells[int(index)]
                units.append({"page_size": page_size, "repeat": first_repeat + offset, "cell": cell,
                              "round": first_round + offset, "position": position, "role": VERDICT_RUN})
        return units

    @property
    def most_rounds(self) -> int:
        """The most rounds this sweep may reach: max_rounds, or its repeats when none were declared."""
        return self.max_rounds or self.repeats

    def verdict_floor_note(self) -> str | None:
        """What a sweep of this profile can never say, to be said before it starts: with too few
        rounds for its family of page-size pairs, no pair can be called faster or slower however
        large the effect (pagelab.evidence.families.verdict_room). None when it can, and for one
        run a side, which the report already says has no interval."""
        from math import comb

        pairs = comb(len(self.page_sizes), 2)
        if self.repeats < 2 or pairs < 1:
            return None
        # only now: the exact tests' floor needs scipy.stats, seconds to import for every new sweep
        from pagelab.evidence.families import MOST_ROUNDS_CONSIDERED, smallest_family_p, verdict_room
        from pagelab.evidence.intervals import CONFIDENCE, MIN_RUNS_FOR_VERDICT
        from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL

        enough = verdict_room(self.repeats, pairs)
        if enough is None:
            return None
        floor = smallest_family_p(self.repeats, pairs)
        remedy = (f"{enough} rounds can (--set repeats={enough})" if enough
                  else f"more than {MOST_ROUNDS_CONSIDERED} rounds would be needed")
        still = ("Medians, intervals and 'equivalent' are still given." if self.repeats >= MIN_RUNS_FOR_VERDICT
                 else "Medians and intervals are still given.")
        if self.repeats >= MIN_BLOCKS_FOR_MODEL:
            still += (" This floor is the rank tests' (IOPS, hit ratio, response time): TpmC's pairs are judged by "
                      "the two-level model from the runs' interval series, which has none.")
        family = f"{pairs} pairs" if pairs > 1 else "1 pair"
        adjusted = f", Holm-adjusted over the {pairs} pairs," if pairs > 1 else ""
        return (f"with {len(self.page_sizes)} page sizes ({family}) and {self.repeats} rounds, no pair can be called "
                f"faster or slower: the exact rank test's smallest p{adjusted} is {floor:.3f}, not below {1 - CONFIDENCE:g}; "
                f"{remedy}. {still}")

    def for_role(self, role: str) -> "Profile":
        """This profile for a run of `role`: an over-time run measures over_time_s, no auto stop."""
        if role != OVER_TIME_RUN:
            return self
        values = dict(self.values, measure_s=self.over_time_s)
        return Profile(name=self.name, values=values, source=self.source, overrides=self.overrides,
                       description=self.description)

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
                          interval_s=self.interval_s, seed=self.random_seed,
                          spec_pacing=self.spec_pacing, mode=self.driver_mode, tpcc_mysql_dir=self.tpcc_mysql_dir,
                          nurand_model=self.nurand, transport=self.transport, stall_s=self.stall_s,
                          response_limits_ms={kind: self.response_limits[kind.column] for kind in TransactionKind})

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, for sweep.json; `profile_from_dict` reads it back."""
        knob_values = {knob.name: knob.jsonable(self.values[knob.name]) for knob in KNOBS}
        return {"profile": self.name, "source": self.source, "overrides": list(self.overrides),
                "description": self.description, **knob_values}


def changed_knobs(profile: Profile) -> dict[str, dict[str, Any]]:
    """Each knob a `--set` changed: {knob: {"profile": the value in the profile's file, "used": the value
    the sweep runs with}}, JSON-able, for sweep.json; its report says which settings differ from the
    profile a reader can look up. {} without overrides, or when the profile was not read from a file."""
    if not profile.overrides or not profile.source or not Path(profile.source).is_file():
        return {}
    plain = load_profile(profile.source).to_dict()
    used = profile.to_dict()
    names = dict.fromkeys(RENAMED_KNOBS.get(name, name) for name in
                          (_split_override(override)[0].partition(".")[0] for override in profile.overrides))
    return {name: {"profile": plain[name], "used": used[name]} for name in names
            if name in KNOBS_BY_NAME and plain[name] != used[name]}


def available_profiles(directory: Path = PROFILES_DIR) -> list[str]:
    """Names of the profiles shipped in `directory` (runbooks/profiles/)."""
    if not directory.is_dir():
        return []
    return sorted(path.stem for path in directory.iterdir() if path.suffix in PROFILE_SUFFIXES)


def profile_summary(name: str) -> str:
    """What a shipped profile is for, in a line: its opening comment's first clause (up to " -- ", a
    question mark or a full stop), as the profile itself says it."""
    comment = " ".join(_opening_comment(_profile_path(name).read_text()).split())
    comment = comment.removeprefix(f"{name}:").strip()
    return re.split(r" -- |(?<=\?) |\. ", comment, maxsplit=1)[0].rstrip(".")


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
        raise UsageError(f"profile {path}: must be a mapping of knob: value; known knobs: {known_knobs_text()}")
    return data, _opening_comment(text)


def _split_override(override: str) -> tuple[str, Any]:
    name, equals, value = override.partition("=")
    name = name.strip()
    if not equals or not name:
        raise UsageError(f"--set takes knob=value, got {override!r} (e.g. --set measure_s=30); "
                         f"known knobs: {known_knobs_text()}")
    return name, value.strip()


def _renamed(name: str, where: str, notes: list[str]) -> str:
    """A knob's current name for `name`; an old name is taken, with a note in `notes`."""
    new = RENAMED_KNOBS.get(name)
    if new is None:
        return name
    notes.append(f"{name} is now called {new}; {where} was read with {new} (rename it there to drop this note)")
    return new


def _validate(raw_values: Mapping[str, Any], overrides: Iterable[str], where: str,
              notes: list[str] | None = None) -> dict[str, Any]:
    """Every knob's value from raw YAML values and `--set` strings; one UsageError with every problem.
    An old knob name is read as its new one, and `notes` gets a line saying so."""
    problems: list[str] = []
    notes = [] if notes is None else notes
    raw = {}
    for name, value in raw_values.items():
        new = _renamed(name, where, notes)
        if new != name and new in raw_values:
            problems.append(f"{name}: {where} gives both {name} and {new}, its new name; allowed: {new} alone")
        raw[new] = value
    for name in raw:
        if name not in KNOBS_BY_NAME:
            problems.append(f"{name}: unknown knob in {where}; known knobs: {known_knobs_text()}")
    option_overrides: dict[str, str] = {}
    for override in overrides:
        name, value = _split_override(override)
        name = _renamed(name, f"--set {override}", notes)
        knob_name, dot, option = name.partition(".")
        if dot and knob_name == "server_options" and option:
            option_overrides[option] = value
        elif name in KNOBS_BY_NAME:
            raw[name] = value
        else:
            problems.append(f"{name}: unknown knob in --set {override}; known knobs: {known_knobs_text()}")
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
    notes: list[str] = []
    values = _validate(raw, overrides, where=f"profile {path.name}", notes=notes)
    return Profile(name=path.stem, values=values, source=str(path), overrides=overrides,
                   description=description, notes=tuple(notes))


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
    notes: list[str] = []  # a sweep.json written before a knob's rename
    values = _validate(raw, (), where=f"the recorded profile {name}", notes=notes)
    return Profile(name=name, values=values, source=str(data.get("source", "")),
                   overrides=tuple(data.get("overrides", ())), description=str(data.get("description", "")),
                   notes=tuple(notes))


# --- generated documentation -------------------------------------------------------------------------


def profile_help(width: int = 80) -> str:
    """The knob table for `pagelab sweep --help` (use argparse's RawDescriptionHelpFormatter): each
    knob's value in the default profile, which is what `pagelab sweep` runs, and, where it differs,
    the value a profile that leaves the knob out gets."""
    default = load_profile(DEFAULT_PROFILE)
    header = ("knob", DEFAULT_PROFILE, "unit")
    rows = [(knob.name, knob.text(default.values[knob.name]), knob.unit) for knob in KNOBS]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    indent = " " * 6

    def line(cells: tuple[str, ...]) -> str:
        return "  " + "  ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip()

    names = available_profiles()
    out = ["profiles (in runbooks/profiles/), or the path of a YAML file:",
           *(f"  {name.ljust(max(map(len, names)))}  {profile_summary(name)}" for name in names),
           f"knobs: set in the profile's YAML, or on the command line with --set KNOB=VALUE (repeatable); "
           f"{LIST_SYNTAX}",
           f"The {DEFAULT_PROFILE} column is the default profile's value, what `pagelab sweep` runs without "
           "--profile; a profile that leaves a knob out gets the value under 'otherwise'.", "",
           line(header)]
    for knob, row in zip(KNOBS, rows):
        out.append(line(row))
        out += textwrap.wrap(knob.help, width, initial_indent=indent, subsequent_indent=indent)
        otherwise = "" if knob.text(knob.default) == row[1] else f"; otherwise: {knob.text(knob.default)}"
        out += textwrap.wrap(f"allowed: {knob.allowed}{otherwise}", width, initial_indent=indent,
                             subsequent_indent=indent + "  ")
    return "\n".join(out)


def describe(profile: Profile, db_bytes: int | None = None) -> list[tuple[str, str]]:
    """(label, value) rows for a report's title page, like the lab's "Benchmark setup" table."""
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
