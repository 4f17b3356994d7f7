"""The kinds of value a sweep knob can take: how each reads, checks and shows a value.

Each type has `allowed` (the human text in errors and help), `parse(raw)` for a YAML value or a
CLI string, `text(value)` for the way a user would write it back, and `jsonable(value)` for
sweep.json. `parse(jsonable(v)) == v` always holds, so a sweep can be resumed from its JSON.
A rejected value raises `Rejected`; `pagelab.sweep.knobs.Knob.parse` adds the knob's name and
what it allows. The knobs themselves are declared in pagelab.sweep.knobs.

This module holds that protocol and the general shapes of a value (numbers, choices, switches,
paths, a list of levels); the types that know the server's terms (page sizes, sizes, the buffer
pool, my.cnf options) are in `server_knob_types.py`, the TPC-C driver's in `tpcc_knob_types.py`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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


class SavedAsIs:
    """A knob type whose parsed value is already what sweep.json keeps."""

    def jsonable(self, value):
        return value


class _PlainNumber(SavedAsIs):
    """A knob type whose value is a plain number, said as Python's shortest form of it."""

    def text(self, value: float) -> str:
        return f"{value:g}"


@dataclass(frozen=True)
class Integer(SavedAsIs):
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
class SecondsOrAuto(SavedAsIs):
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
class Choice(SavedAsIs):
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
class Boolean(SavedAsIs):
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
class DirectoryOrEmpty(SavedAsIs):
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
