"""The kinds of value a sweep knob can take: how each reads, checks and shows a value.

Each type has `allowed` (the human text in errors and help), `parse(raw)` for a YAML value or a
CLI string, `text(value)` for the way a user would write it back, and `jsonable(value)` for
sweep.json. `parse(jsonable(v)) == v` always holds, so a sweep can be resumed from its JSON.
A rejected value raises `Rejected`; `pagelab.sweep.knobs.Knob.parse` adds the knob's name and
what it allows. The knobs themselves are declared in pagelab.sweep.knobs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from pagelab.common.errors import UsageError
from pagelab.mysql.config import MIN_BUFFER_POOL_BYTES, ServerSettings, option_key
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE, PAGE_SIZES, parse_page_size
from pagelab.mysql.variables import setting_problem
from pagelab.tpcc.modes import MODE_NAMES, mode_named
from pagelab.tpcc.stats import DEFAULT_RESPONSE_LIMITS_MS
from pagelab.common.transactions import TransactionKind
from pagelab.common.units import MIB, format_size, page_size_label, parse_size

# A buffer pool given as a percentage is rounded to whole MiB: 1 MiB is a multiple of every InnoDB
# page size (64 KiB at most), so the pool always holds a whole number of pages and "pool bytes /
# page size" equals the page count InnoDB reports.
BUFFER_POOL_GRANULE = MIB
# InnoDB refuses a smaller pool; a small database times a small percentage must not go below it.
BUFFER_POOL_FLOOR = MIN_BUFFER_POOL_BYTES
# Options the server accepts that a profile must set through a knob, not server_options, so that
# each value lives in one place (and shows up in the report under its knob's name).
OPTIONS_OWNED_BY_KNOBS = {
    "innodb_buffer_pool_size": "buffer_pool",
    "innodb_flush_method": "flush_method",
    "innodb_log_file_size": "redo_log",
    "max_connections": "max_connections",
    "innodb_page_size": "page_sizes",
}


class Rejected(Exception):
    """A value a knob's type does not accept; `Knob.parse` adds the knob's name and allowed values."""


# The one way to write a list on the command line, for every knob that takes one: `a,b` or `[a,b]`
# (`pagelab sweep --help` says so once, in its knob table's heading).
LIST_SYNTAX = "a knob that takes a list takes it as a,b or [a,b]"


def listed(raw: Any) -> Any:
    """`raw` as a list of strings when it is a string written as a list, `a,b` or `[a,b]` (LIST_SYNTAX);
    anything else (a YAML list, a single value) as it is."""
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    elif "," not in text:
        return raw
    return [item.strip() for item in text.split(",") if item.strip()]


# --- value types ---------------------------------------------------------------------------------------


class _SavedAsIs:
    """A knob type whose parsed value is already what sweep.json keeps."""

    def jsonable(self, value):
        return value


class _PlainNumber(_SavedAsIs):
    """A knob type whose value is a plain number, said as Python's shortest form of it."""

    def text(self, value: float) -> str:
        return f"{value:g}"


@dataclass(frozen=True)
class Integer(_SavedAsIs):
    minimum: int
    maximum: int | None = None

    @property
    def allowed(self) -> str:
        if self.maximum is None:
            return f"an integer >= {self.minimum}"
        return f"an integer from {self.minimum} to {self.maximum}"

    def parse(self, raw: Any) -> int:
        if isinstance(raw, bool):  # YAML turns `yes` into True, which is an int in Python
            raise Rejected(f"{raw!r} is not an integer")
        if isinstance(raw, int):
            number = raw
        elif isinstance(raw, str) and re.fullmatch(r"\s*[+-]?\d+\s*", raw):
            number = int(raw)
        else:
            raise Rejected(f"{raw!r} is not an integer")
        if number < self.minimum or (self.maximum is not None and number > self.maximum):
            raise Rejected(f"{number} is out of range")
        return number

    def text(self, value: int) -> str:
        return str(value)


AUTO = "auto"


@dataclass(frozen=True)
class SecondsOrAuto(_SavedAsIs):
    """Whole seconds, or `auto`: let a stated rule decide, up to a cap set by another knob."""

    minimum: int
    rule: str  # what `auto` does, for the allowed text

    @property
    def allowed(self) -> str:
        return f"an integer >= {self.minimum}, or auto ({self.rule})"

    def parse(self, raw: Any) -> int | str:
        if isinstance(raw, str) and raw.strip().lower() == AUTO:
            return AUTO
        return Integer(self.minimum).parse(raw)

    def text(self, value: int | str) -> str:
        return str(value)


@dataclass(frozen=True)
class PageSizePair(_SavedAsIs):
    """Two page sizes to be compared, "16k vs 4k" (the first against the second), or empty for none;
    kept as text with the page sizes spelt as labels."""

    allowed: str = "two page sizes as 'A vs B' (e.g. 16k vs 4k), or empty"

    def parse(self, raw: Any) -> str:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return ""
        if not isinstance(raw, str):
            raise Rejected(f"{raw!r} is not 'A vs B'")
        parts = [part.strip() for part in re.split(r"\s+vs\.?\s+", raw.strip())]
        if len(parts) != 2:
            raise Rejected(f"{raw!r} is not 'A vs B'")
        labels = []
        for part in parts:
            try:
                labels.append(page_size_label(parse_page_size(part)))
            except UsageError:
                raise Rejected(f"{part} is not a page size") from None
        if labels[0] == labels[1]:
            raise Rejected(f"{raw!r} compares {labels[0]} with itself")
        return f"{labels[0]} vs {labels[1]}"

    def text(self, value: str) -> str:
        return value or "(none)"


def _finite_number(raw: Any) -> float:
    """A knob's number as written (a trailing % allowed), refused when it is not one or not finite."""
    if isinstance(raw, bool):
        raise Rejected(f"{raw!r} is not a number")
    try:
        value = float(str(raw).strip().rstrip("%"))
    except ValueError:
        raise Rejected(f"{raw!r} is not a number") from None
    if not math.isfinite(value):
        raise Rejected(f"{value:g} is out of range")
    return value


@dataclass(frozen=True)
class Percent(_PlainNumber):
    """A percentage above 0 and at most `maximum`."""

    maximum: float

    @property
    def allowed(self) -> str:
        return f"a number above 0 and at most {self.maximum:g}"

    def parse(self, raw: Any) -> float:
        value = _finite_number(raw)
        if not 0 < value <= self.maximum:
            raise Rejected(f"{value:g} is out of range")
        return value


@dataclass(frozen=True)
class Number(_PlainNumber):
    """A number from `minimum` to `maximum` (0 allowed where `minimum` is 0: "none declared")."""

    minimum: float
    maximum: float

    @property
    def allowed(self) -> str:
        return f"a number from {self.minimum:g} to {self.maximum:g}"

    def parse(self, raw: Any) -> float:
        value = _finite_number(raw)
        if not self.minimum <= value <= self.maximum:
            raise Rejected(f"{value:g} is out of range")
        return value


@dataclass(frozen=True)
class PageSizeList:
    """One or more InnoDB page sizes, in the order given, as bytes."""

    allowed: str = " ".join(PAGE_SIZES.values())

    def parse(self, raw: Any) -> tuple[int, ...]:
        raw = listed(raw)
        if isinstance(raw, (str, int)) and not isinstance(raw, bool):
            items = [item for item in str(raw).split() if item]  # one size, or sizes apart by spaces
        elif isinstance(raw, (list, tuple)):
            items = list(raw)
        else:
            raise Rejected(f"{raw!r} is not a list of page sizes")
        if not items:
            raise Rejected("no page size given")
        sizes: list[int] = []
        for item in items:
            try:
                n_bytes = parse_page_size(item)
            except UsageError:
                raise Rejected(f"{item} is not allowed") from None
            if n_bytes in sizes:
                # Twice the same size would be two runs under one name; `repeats` is the way.
                raise Rejected(f"{page_size_label(n_bytes)} is given twice (use repeats for more runs)")
            sizes.append(n_bytes)
        return tuple(sizes)

    def text(self, value: tuple[int, ...]) -> str:
        return ",".join(page_size_label(n) for n in value)

    def jsonable(self, value: tuple[int, ...]) -> list[int]:
        # Bytes, as every table's page_size_bytes column and the sweep's run list use them.
        return list(value)


@dataclass(frozen=True)
class ByteSize:
    minimum: int

    @property
    def allowed(self) -> str:
        return f"a size such as 64M or 1G, at least {format_size(self.minimum)}"

    def parse(self, raw: Any) -> int:
        try:
            n_bytes = parse_size(raw)
        except UsageError:
            raise Rejected(f"{raw!r} is not a size") from None
        if n_bytes < self.minimum:
            raise Rejected(f"{raw} is too small")
        return n_bytes

    def text(self, value: int) -> str:
        return format_size(value)

    def jsonable(self, value: int) -> str:
        return format_size(value)


@dataclass(frozen=True)
class BufferPoolSpec:
    """A buffer pool as the user gave it: fixed bytes, or a percentage of the loaded database."""

    n_bytes: int | None = None
    percent_of_db: float | None = None

    def resolve(self, db_bytes: int | None, page_size: int | None = None) -> int:
        """The pool's bytes; a percentage is raised to what InnoDB needs at `page_size` (if given)."""
        if self.n_bytes is not None:
            return self.n_bytes
        if db_bytes is None:
            raise UsageError(f"buffer_pool: {self} of the loaded database needs the database's size, "
                             "which is only known after the load")
        wanted = db_bytes * self.percent_of_db / 100
        rounded = int(round(wanted / BUFFER_POOL_GRANULE)) * BUFFER_POOL_GRANULE
        return max(rounded, MIN_BUFFER_POOL_BY_PAGE_SIZE[page_size] if page_size else BUFFER_POOL_FLOOR)

    def __str__(self) -> str:
        if self.n_bytes is not None:
            return format_size(self.n_bytes)
        return f"{self.percent_of_db:g}%"


@dataclass(frozen=True)
class BufferPoolSize:
    minimum_bytes: int
    # A pool of 0% is no pool, and more than 100% of the data can never miss, which defeats the
    # experiment: the page-size effect only shows when the pool is smaller than the data.
    minimum_percent: float = 1
    maximum_percent: float = 100

    @property
    def allowed(self) -> str:
        return (f"a size such as 64M or 1G (at least {format_size(self.minimum_bytes)}, a whole number of MiB), "
                f"or {self.minimum_percent:g}% to {self.maximum_percent:g}% of the loaded database")

    def parse(self, raw: Any) -> BufferPoolSpec:
        if isinstance(raw, BufferPoolSpec):
            return raw
        if isinstance(raw, str) and raw.strip().endswith("%"):
            number = raw.strip()[:-1].strip()
            try:
                percent = float(number)
            except ValueError:
                raise Rejected(f"{raw!r} is not a percentage") from None
            if not math.isfinite(percent) or not self.minimum_percent <= percent <= self.maximum_percent:
                raise Rejected(f"{raw.strip()} is out of range")
            return BufferPoolSpec(percent_of_db=percent)
        try:
            n_bytes = parse_size(raw)
        except UsageError:
            raise Rejected(f"{raw!r} is neither a size nor a percentage") from None
        if n_bytes < self.minimum_bytes:
            raise Rejected(f"{raw} is too small")
        if n_bytes % BUFFER_POOL_GRANULE:
            raise Rejected(f"{raw} is not a whole number of MiB")
        return BufferPoolSpec(n_bytes=n_bytes)

    def text(self, value: BufferPoolSpec) -> str:
        return str(value)

    def jsonable(self, value: BufferPoolSpec) -> str:
        return str(value)


@dataclass(frozen=True)
class Choice(_SavedAsIs):
    options: tuple[str, ...]

    @property
    def allowed(self) -> str:
        return " ".join(self.options)

    def parse(self, raw: Any) -> str:
        # Servers read option values case-insensitively; keep the canonical spelling.
        for option in self.options:
            if isinstance(raw, str) and raw.strip().lower() == option.lower():
                return option
        raise Rejected(f"{raw} is not allowed")

    def text(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Boolean(_SavedAsIs):
    allowed: str = "true or false"

    def parse(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "yes", "on", "1"):
            return True
        if text in ("false", "no", "off", "0"):
            return False
        raise Rejected(f"{raw!r} is not true or false")

    def text(self, value: bool) -> str:
        return "true" if value else "false"


@dataclass(frozen=True)
class ResponseLimits:
    """Milliseconds per transaction kind, for the "90% within the limit" check; kinds not given
    keep the specification's limit (clause 5.2.5.3)."""

    allowed: str = ("KIND=MS pairs, e.g. new_order=2000,stock_level=10000, with KIND one of "
                    + " ".join(kind.column for kind in TransactionKind))

    def parse(self, raw: Any) -> Mapping[str, float]:
        if isinstance(raw, Mapping):
            pairs = list(raw.items())
        elif isinstance(raw, str):
            pairs = [item.partition("=")[::2] for item in re.split(r"[,\s]+", raw.strip()) if item]
        else:
            raise Rejected(f"{raw!r} is not a set of KIND=MS pairs")
        limits = {kind.column: DEFAULT_RESPONSE_LIMITS_MS[kind] for kind in TransactionKind}
        for name, value in pairs:
            try:
                kind = TransactionKind.from_cli_name(str(name))
            except ValueError as problem:
                raise Rejected(str(problem)) from None
            try:
                milliseconds = float(value)
            except (TypeError, ValueError):
                milliseconds = -1.0
            if not milliseconds > 0 or math.isinf(milliseconds):
                raise Rejected(f"{kind.column}: {value!r} is not a positive number of milliseconds")
            limits[kind.column] = milliseconds
        return MappingProxyType(limits)

    def text(self, value: Mapping[str, float]) -> str:
        return ",".join(f"{name}={milliseconds:g}" for name, milliseconds in value.items())

    def jsonable(self, value: Mapping[str, float]) -> dict[str, float]:
        return dict(value)


@dataclass(frozen=True)
class DriverModeChoice(_SavedAsIs):
    """One of the driver modes of pagelab.tpcc.modes; an alias reads as the mode it names."""

    allowed: str = " ".join(MODE_NAMES)

    def parse(self, raw: Any) -> str:
        try:
            return mode_named(raw).name
        except UsageError:
            raise Rejected(f"{raw} is not allowed") from None

    def text(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class DirectoryOrEmpty(_SavedAsIs):
    allowed: str = "a directory path, or empty"

    def parse(self, raw: Any) -> str:
        if raw is None:
            return ""
        if not isinstance(raw, (str, Path)):
            raise Rejected(f"{raw!r} is not a path")
        text = str(raw).strip()
        return str(Path(text).expanduser()) if text else ""

    def text(self, value: str) -> str:
        return value or "(none)"


@dataclass(frozen=True)
class ServerOptionMap:
    """Extra my.cnf options: a YAML mapping, or `name=value,name=value` on the command line."""

    allowed: str = "option=value pairs, e.g. innodb_io_capacity=2000 (not options that have their own knob)"

    def parse(self, raw: Any) -> Mapping[str, str]:
        if raw is None or raw == "":
            pairs: dict[Any, Any] = {}
        elif isinstance(raw, Mapping):
            pairs = dict(raw)
        elif isinstance(raw, str):
            pairs = {}
            for pair in raw.split(","):
                name, equals, value = pair.partition("=")
                if not equals or not name.strip():
                    raise Rejected(f"{pair.strip()!r} is not option=value")
                pairs[name.strip()] = value.strip()
        else:
            raise Rejected(f"{raw!r} is not a mapping of options")
        options = {str(name): _option_value_text(value) for name, value in pairs.items()}
        for name in options:
            owner = OPTIONS_OWNED_BY_KNOBS.get(option_key(name))
            if owner:
                raise Rejected(f"{name} has its own knob; set {owner} instead")
            problem = setting_problem(name)
            if problem:
                raise Rejected(problem)
        try:
            # The server module knows which names are valid and which pagelab manages itself.
            ServerSettings(extra=options)
        except UsageError as problem:
            raise Rejected(str(problem)) from None
        return MappingProxyType(dict(sorted(options.items())))

    def text(self, value: Mapping[str, str]) -> str:
        return ",".join(f"{name}={option}" for name, option in value.items()) or "(none)"

    def jsonable(self, value: Mapping[str, str]) -> dict[str, str]:
        return dict(value)


def _option_value_text(value: Any) -> str:
    if isinstance(value, bool):  # YAML's `on`/`true`; the server spells them ON/OFF
        return "ON" if value else "OFF"
    if value is None:
        return ""
    return str(value)


@dataclass(frozen=True)
class Levels:
    """One value, or a list of them: the levels of a second factor of the sweep besides the page
    size (a profile's `buffer_pool: [10%, 30%]`). A list of one is that value; a list reads as a
    tuple of values, in the order given; on the command line, `--set buffer_pool=10%,30%` or
    `--set buffer_pool=[10%,30%]` (LIST_SYNTAX)."""

    kind: Any

    @property
    def allowed(self) -> str:
        return f"{self.kind.allowed}; or a list of such values, the levels of a second factor"

    def parse(self, raw: Any) -> Any:
        raw = listed(raw)
        if not isinstance(raw, (list, tuple)):
            return self.kind.parse(raw)
        if not raw:
            raise Rejected("an empty list has no level")
        levels = []
        for item in raw:
            try:
                levels.append(self.kind.parse(item))
            except Rejected as problem:
                raise Rejected(f"level {item!r} of the list: {problem}") from None
        shown = [self.kind.text(level) for level in levels]
        if len(set(shown)) != len(shown):
            raise Rejected(f"a level is given twice in {', '.join(shown)}")
        return tuple(levels) if len(levels) > 1 else levels[0]

    def text(self, value: Any) -> str:
        if isinstance(value, tuple):
            return "[" + ", ".join(self.kind.text(level) for level in value) + "]"
        return self.kind.text(value)

    def jsonable(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return [self.kind.jsonable(level) for level in value]
        return self.kind.jsonable(value)
