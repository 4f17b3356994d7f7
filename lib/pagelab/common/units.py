"""Sizes as people write them ("64M", "4k", "1.5G") and as servers want them (bytes)."""

from __future__ import annotations

import re

from pagelab.common.errors import UsageError

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
_BINARY_SUFFIX = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": 1 << 40, "p": 1 << 50}
_SIZE_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)


def size_bytes(text: str) -> int | None:
    """Bytes from a size as people and tools write it, in binary units: "4096", "64k", "64KiB",
    "16 KB", "1.5G"; None if `text` is not one. The one parser of sizes: parse_size, the page-size
    checks and the fio parser read sizes through it."""
    match = _SIZE_PATTERN.match(str(text))
    if not match:
        return None
    number, suffix = match.groups()
    return int(float(number) * _BINARY_SUFFIX[suffix.lower()])


def parse_size(value: str | int, what: str = "size") -> int:
    """Bytes from an int or a string with an optional binary suffix: 65536, "64k", "64KiB", "1.5G"."""
    if isinstance(value, bool):
        raise UsageError(f"{what} must be a size such as 64M or 1G, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise UsageError(f"{what} must not be negative, got {value}")
        return value
    n_bytes = size_bytes(value)
    if n_bytes is None:
        raise UsageError(f"{what} must be a size such as 64M, 512k or 1G (binary units), got {value!r}")
    return n_bytes


def page_size_label(n_bytes: int) -> str:
    """How pages are named in tables, plots and file names: 4096 -> '4k', SQLite's 512 -> '512'."""
    return f"{n_bytes // 1024}k" if n_bytes >= 1024 and n_bytes % 1024 == 0 else str(n_bytes)


def kib(n_bytes: int) -> int | float:
    """A size in KiB for tables: whole when it is whole (4096 -> 4), else fractional (1536 -> 1.5)."""
    return n_bytes // KIB if n_bytes % KIB == 0 else n_bytes / KIB


def size_text(n_bytes: float, tenths: bool = False) -> str:
    """A size for people, in the largest binary unit it reaches: 4096 -> '4 KiB', 1536 -> '1.5 KiB',
    0 -> '0 B'. With `tenths`, always one decimal ('210.0 MiB'), for measured sizes that are
    rarely round."""
    n_bytes = int(n_bytes)
    for unit, factor in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n_bytes >= factor:
            value = n_bytes / factor
            return f"{value:.1f} {unit}" if tenths or value != int(value) else f"{value:.0f} {unit}"
    return f"{n_bytes} B"


def with_article(label: str) -> str:
    """'a 4k', 'an 8k', 'an 18k': the article as the label is spoken (eight, eighteen, eleven)."""
    spoken_vowel = label[:1] in "8aeiou" or re.match(r"(11|18)(\D|$)", label) is not None
    return f"{'an' if spoken_vowel else 'a'} {label}"


def format_size(n_bytes: int) -> str:
    """The shortest exact binary form: 65536 -> '64K', 100 -> '100'."""
    for suffix, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n_bytes and n_bytes % factor == 0:
            return f"{n_bytes // factor}{suffix}"
    return str(n_bytes)
