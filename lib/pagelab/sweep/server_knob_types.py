"""Sweep knob types whose values are the server's terms: page sizes, byte sizes, the buffer pool
and extra my.cnf options.

They follow the protocol of `pagelab.sweep.knob_types` (`allowed`, `parse`, `text`, `jsonable`;
a rejected value raises `Rejected`) and change with pagelab.mysql: its page sizes, its smallest
buffer pool, the options it manages itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from pagelab.common.errors import UsageError
from pagelab.common.units import MIB, format_size, page_size_label, parse_size
from pagelab.mysql.config import MIN_BUFFER_POOL_BYTES, ServerSettings, option_key
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE, PAGE_SIZES, parse_page_size
from pagelab.mysql.variables import setting_problem
from pagelab.sweep.knob_types import Rejected, SavedAsIs, listed

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


@dataclass(frozen=True)
class PageSizePair(SavedAsIs):
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
