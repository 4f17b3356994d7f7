"""What every parser returns, and the small helpers they share.

A parser reads text someone else's program wrote, so it has to expect damage: a log cut off by a
killed run, a snapshot copied by hand into a report, a tool version nobody tested. The rule is the
same for all of them: rows that could be read come back, every line that could not is named in a
warning ("line 12: ..."), and only input with nothing recognisable in it raises `ParseError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pagelab.common.errors import ParseError


@dataclass
class ParseResult:
    """Tidy rows read from one text, what went wrong on the way, and facts that are not rows.

    `columns` lists the contract's columns (DESIGN.md, "Tidy tables") in order; `to_frame` puts
    them first, always present even when every value is missing, then any extra keys the rows
    carry, in the order they first appear.
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    columns: tuple[str, ...] = ()

    def column_names(self) -> list[str]:
        names = list(self.columns)
        seen = set(names)
        for row in self.rows:
            for key in row:
                if key not in seen:
                    seen.add(key)
                    names.append(key)
        return names

    def to_frame(self):
        """The rows as a pandas DataFrame, contract columns first and in order."""
        import pandas as pd  # imported late: parsing itself must not pay for pandas

        names = self.column_names()
        return pd.DataFrame([[row.get(name) for name in names] for row in self.rows], columns=names)


class Warnings:
    """Collects warnings that each start with the line they are about."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, line_number: int | None, message: str) -> None:
        prefix = f"line {line_number}: " if line_number is not None else ""
        self.messages.append(prefix + message)


def text_of(text: Any, what: str) -> str:
    """The input as a str; bytes are decoded leniently because captured files may hold junk."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise ParseError(f"expected the text of {what}, got {type(text).__name__}")
    if not text.strip():
        raise ParseError(f"no {what} found: the input is empty")
    return text


_LONGEST_NUMBER = 40
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?$")


def to_number(token: str | None) -> int | float | None:
    """An int or float from a token, or None when it is not a number.

    Accepts a decimal comma ("0,00"), which sysstat prints under many locales. "nan" and
    friends are read as None: tpcc-mysql prints "-nan" when it divides by a zero count.
    """
    if token is None:
        return None
    token = token.strip()
    # Python refuses int() of more than 4300 digits; no real figure is anywhere near that long
    if len(token) > _LONGEST_NUMBER or not _NUMBER.match(token):
        return None
    if "," in token:
        token = token.replace(",", ".")
    if re.fullmatch(r"[+-]?\d+", token):
        return int(token)
    return float(token)


def to_float(token: str | None) -> float | None:
    value = to_number(token)
    return None if value is None else float(value)


def to_int(token: str | None) -> int | None:
    value = to_number(token)
    return value if isinstance(value, int) else None


def excerpt(line: str, limit: int = 80) -> str:
    """A line shortened for a warning message, with anything that may be a secret left out."""
    if re.search(r"pass|option\s+p\b", line, re.IGNORECASE):
        return "<line not shown: it may hold a password>"
    line = line.strip()
    return repr(line if len(line) <= limit else line[: limit - 3] + "...")


def without_last_token(line: str) -> str:
    """A line minus its last whitespace-separated token (and the space before it).

    Used on the last line of a text that stops without a line end: the cut may have gone
    through that token, turning 1016 into 10, so it is not read at all.
    """
    kept = line.rstrip()
    tokens = kept.split()
    return kept[: kept.rfind(tokens[-1])].rstrip(" ") if tokens else kept


def line_number_at(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, max(0, offset)) + 1


def first_present(*values: Any) -> Any:
    for value in values:
        if value is not None:
            return value
    return None


def ordered_rows(rows: Iterable[dict[str, Any]], columns: Iterable[str]) -> list[dict[str, Any]]:
    """Rows with the contract's columns first (missing ones as None), extras kept after them."""
    columns = list(columns)
    result = []
    for row in rows:
        ordered = {name: row.get(name) for name in columns}
        ordered.update((key, value) for key, value in row.items() if key not in ordered)
        result.append(ordered)
    return result
