"""`SHOW ENGINE INNODB STATUS` -> one row per snapshot, from its BUFFER POOL AND MEMORY section.

What it reads (MariaDB 10.11 through the `mariadb` client with `\\G`; MySQL 5.7 and 8.0 print the
same section, with `, single page 0` after the flush list and, with several buffer pool
instances, per-instance copies under INDIVIDUAL BUFFER POOL INFO that are skipped)::

    *************************** 1. row ***************************
      Type: InnoDB
    Status:
    =====================================
    2026-11-21 14:03:55 0x7fed2c2b26c0 INNODB MONITOR OUTPUT      -> timestamp
    =====================================
    Per second averages calculated from the last 10 seconds     -> averages_window_s
    History list length 57                                      -> history_list_length
    Log sequence number 119072041                               -> log_sequence_number (and the
    Log flushed up to   119052592                                  flushed / checkpoint lines)
    ----------------------
    BUFFER POOL AND MEMORY
    ----------------------
    Buffer pool size   1016                                     -> pool_pages
    Free buffers       860                                      -> free_pages
    Database pages     156                                      -> database_pages
    Old database pages 0                                        -> old_pages
    Modified db pages  105                                      -> dirty_pages
    Pending reads 0
    Pending writes: LRU 1, flush list 0
    Pages made young 0, not young 0
    0.00 youngs/s, 0.00 non-youngs/s
    Pages read 70067, created 3155, written 32885
    6518.05 reads/s, 126.89 creates/s, 2814.42 writes/s
    Buffer pool hit rate 773 / 1000, young-making rate 0 / 1000 not 0 / 1000
    Pages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s
    LRU len: 156, unzip_LRU len: 0
    I/O sum[8848]:cur[93454], unzip sum[0]:cur[0]

"No buffer pool page gets since the last printout" replaces the hit-rate line when nothing was
read between two printouts: hit_rate, young_rate and not_young_rate are then empty.

Several snapshots in one text (an error log with innodb_status_output=ON) give several rows. A
fragment without the section headers (a few lines copied into a report) is read as far as it goes:
values separated by single spaces, lines cut off at the end ("single page", "0.00/"), a wrapped
"not 22 / 1000" on the next line. A value whose line was cut before its unit is left empty with a
warning rather than guessed: "evicted without access 0" may have been "0.25/s".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from pagelab.common.errors import ParseError
from pagelab.parse.common import (
    ParseResult,
    Warnings,
    ordered_rows,
    text_of,
    to_float,
    to_int,
    to_number,
    without_last_token,
)

COLUMNS = (
    "timestamp", "averages_window_s",
    "pool_pages", "free_pages", "database_pages", "old_pages", "dirty_pages",
    "pages_made_young", "pages_not_young", "pages_read", "pages_created", "pages_written",
    "hit_rate", "young_rate", "not_young_rate", "reads_s", "creates_s", "writes_s",
)  # fmt: skip

Converter = Callable[[str], Any]


class _Field:
    """One value on a line: its column, where it sits, and whether its absence is worth a warning.

    `only_if` names a word that must be on the line for the value to be expected at all: MySQL
    prints ", single page 0" where MariaDB prints nothing, and neither is damage.
    """

    def __init__(self, column: str, pattern: str, convert: Converter, only_if: str | None = None):
        self.column = column
        self.pattern = re.compile(pattern)
        self.convert = convert
        self.only_if = re.compile(only_if) if only_if else None


class _LineRule:
    def __init__(self, starts: str, *fields: _Field, skip_if: str | None = None):
        self.starts = re.compile(starts)
        self.fields = fields
        self.skip_if = re.compile(skip_if) if skip_if else None

    def applies_to(self, line: str) -> bool:
        if not self.starts.match(line):
            return False
        return not (self.skip_if and self.skip_if.search(line))


_RATE_PER_1000 = r"([\d.]+)\s*/\s*1000"

_BUFFER_POOL_RULES = (
    _LineRule(r"Total (?:large )?memory allocated",
              _Field("total_memory_bytes", r"^Total (?:large )?memory allocated\s+(\d+)", to_int)),
    _LineRule(r"Dictionary memory allocated",
              _Field("dictionary_memory_bytes", r"^Dictionary memory allocated\s+(\d+)", to_int)),
    _LineRule(r"Buffer pool size,? bytes",
              _Field("buffer_pool_bytes", r"^Buffer pool size,? bytes\s+(\d+)", to_int)),
    _LineRule(r"Buffer pool size\b", _Field("pool_pages", r"^Buffer pool size\s+(\d+)", to_int)),
    _LineRule(r"Free buffers", _Field("free_pages", r"^Free buffers\s+(\d+)", to_int)),
    _LineRule(r"Database pages", _Field("database_pages", r"^Database pages\s+(\d+)", to_int)),
    _LineRule(r"Old database pages", _Field("old_pages", r"^Old database pages\s+(\d+)", to_int)),
    _LineRule(r"Modified db pages", _Field("dirty_pages", r"^Modified db pages\s+(\d+)", to_int)),
    _LineRule(r"Percent of dirty pages",
              _Field("dirty_pages_pct", r"^Percent of dirty pages[^:]*:\s*([\d.]+)", to_float)),
    _LineRule(r"Max dirty pages percent",
              _Field("max_dirty_pages_pct", r"^Max dirty pages percent:?\s*([\d.]+)", to_float)),
    _LineRule(r"Pending reads", _Field("pending_reads", r"^Pending reads\s+(\d+)", to_int)),
    _LineRule(r"Pending writes:",
              _Field("pending_writes_lru", r"\bLRU\s+(\d+)", to_int),
              _Field("pending_writes_flush_list", r"flush list\s+(\d+)", to_int),
              _Field("pending_writes_single_page", r"single[ -]page(?: writes)?\s+(\d+)", to_int,
                     only_if=r"single")),
    _LineRule(r"Pages made young",
              _Field("pages_made_young", r"^Pages made young\s+(\d+)", to_int),
              _Field("pages_not_young", r"not young\s+(\d+)", to_int)),
    _LineRule(r"[\d.]+\s+youngs?/s",
              _Field("youngs_s", r"^([\d.]+)\s+youngs?/s", to_float),
              _Field("non_youngs_s", r"([\d.]+)\s+non-youngs?/s", to_float)),
    _LineRule(r"Pages read\s+\d",
              _Field("pages_read", r"^Pages read\s+(\d+)", to_int),
              _Field("pages_created", r"created\s+(\d+)", to_int),
              _Field("pages_written", r"written\s+(\d+)", to_int)),
    # FILE I/O has its own "reads/s ... avg bytes/read" line; it is not the buffer pool's.
    _LineRule(r"[\d.]+\s+reads/s",
              _Field("reads_s", r"^([\d.]+)\s+reads/s", to_float),
              _Field("creates_s", r"([\d.]+)\s+creates/s", to_float),
              _Field("writes_s", r"([\d.]+)\s+writes/s", to_float),
              skip_if=r"avg bytes/read"),
    _LineRule(r"Buffer pool hit rate",
              _Field("hit_rate", r"hit rate\s+" + _RATE_PER_1000, to_number),
              _Field("young_rate", r"young-making rate\s+" + _RATE_PER_1000, to_number),
              # a hand copy lost the "n" of "not": "ot 27 / 1000"
              _Field("not_young_rate", r"(?:^|[\s,])n?ot\s+" + _RATE_PER_1000, to_number)),
    _LineRule(r"Pages read ahead",
              _Field("read_ahead_s", r"^Pages read ahead\s+([\d.]+)/s", to_float),
              _Field("evicted_without_access_s", r"evicted without access\s+([\d.]+)/s", to_float),
              _Field("random_read_ahead_s", r"Random read ahead\s+([\d.]+)/s", to_float,
                     only_if=r"Random")),
    # the tail of "Random read ahead 0.00/s" when a copy wrapped it: "m read ahead 0.00/s"
    _LineRule(r"(?:Random|m) read ahead",
              _Field("random_read_ahead_s", r"read ahead\s+([\d.]+)/s", to_float)),
    _LineRule(r"LRU len:",
              _Field("lru_len", r"^LRU len:\s*(\d+)", to_int),
              _Field("unzip_lru_len", r"unzip_LRU len:\s*(\d+)", to_int, only_if=r"unzip")),
    _LineRule(r"I/O sum",
              _Field("io_sum", r"^I/O sum\[(\d+)\]", to_int),
              _Field("io_cur", r"^I/O sum\[\d+\]:cur\[(\d+)\]", to_int),
              _Field("io_unzip_sum", r"unzip sum\[(\d+)\]", to_int, only_if=r"unzip"),
              _Field("io_unzip_cur", r"unzip sum\[\d+\]:cur\[(\d+)\]", to_int, only_if=r"unzip")),
)  # fmt: skip

_NO_PAGE_GETS = re.compile(r"^No buffer pool page gets since the last printout")
_NO_PAGE_GETS_COLUMNS = ("hit_rate", "young_rate", "not_young_rate")

# Lines a wrapped copy pushed to the next line: "not 22 / 1000", "0 / 1000", "ahead 0.00/s".
_CONTINUATION = re.compile(r"^(?:n?ot\s+[\d.]+\s*/\s*1000|[\d.]+\s*/\s*1000\s*$|ahead\s+[\d.]+/s)")

_MONITOR_HEADER = re.compile(r"INNODB MONITOR OUTPUT")
_TIMESTAMP_ISO = re.compile(
    r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s+(?:0x[0-9a-fA-F]+\s+)?INNODB MONITOR"
)
_TIMESTAMP_OLD = re.compile(r"^(\d{2})(\d{2})(\d{2})\s+(\d{1,2}:\d{2}:\d{2})\s+INNODB MONITOR")
_AVERAGES = re.compile(r"^Per second averages calculated from the last (\d+) seconds")
_HISTORY = re.compile(r"^History list length\s+(\d+)")
# InnoDB before 5.5 printed an LSN as two 32-bit halves: "Log sequence number 0 1602327".
_LOG_POSITIONS = {
    "log_sequence_number": re.compile(r"^Log sequence number\s+(\d+)(?:\s+(\d+))?\s*$"),
    "log_flushed_up_to": re.compile(r"^Log flushed up to\s+(\d+)(?:\s+(\d+))?\s*$"),
    "pages_flushed_up_to": re.compile(r"^Pages flushed up to\s+(\d+)(?:\s+(\d+))?\s*$"),
    "last_checkpoint_at": re.compile(r"^Last checkpoint at\s+(\d+)(?:\s+(\d+))?\s*$"),
}
_INSTANCE_HEADER = re.compile(r"^---BUFFER POOL\s+\d+")
_SECTION_RULE = re.compile(r"^-{3,}\s*$")


def parse_innodb_status(text: str) -> ParseResult:
    """One row per snapshot in `text` (see module docstring); ParseError if none has pool figures."""
    text = _unescape_batch_output(text_of(text, "InnoDB status output"))
    numbered = list(enumerate(text.splitlines(), start=1))
    warnings = Warnings()
    if numbered and not text.endswith(("\n", "\r")):
        numbered[-1] = (numbered[-1][0], without_last_token(numbered[-1][1]))
        warnings.add(numbered[-1][0], "the text ends without a line end; the last value on it is not read")
    rows = []
    for segment in _split_snapshots(numbered):
        row = _read_snapshot(segment, warnings)
        if row is not None:
            rows.append(row)
    if not rows:
        raise ParseError("no InnoDB buffer pool figures found (no 'Buffer pool size', 'Database pages', ...)")
    return ParseResult(
        rows=ordered_rows(rows, COLUMNS),
        warnings=warnings.messages,
        meta={"snapshots": len(rows)},
        columns=COLUMNS,
    )


def _unescape_batch_output(text: str) -> str:
    # `mysql -e 'SHOW ENGINE INNODB STATUS'` without \G, in batch mode, prints the whole status as
    # one tab-separated field with its newlines escaped as the two characters "\n".
    if "INNODB MONITOR OUTPUT" in text and text.count("\\n") > text.count("\n"):
        return text.replace("\\n", "\n").replace("\\t", "\t")
    return text


def _split_snapshots(numbered: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    starts = []
    for index, (_, line) in enumerate(numbered):
        if _MONITOR_HEADER.search(line) and "END OF" not in line:
            begins_at = index - 1 if index and numbered[index - 1][1].startswith("===") else index
            starts.append(begins_at)
    if not starts:
        return [numbered]
    starts[0] = 0  # whatever precedes the first header (the client's "1. row" lines) belongs to it
    return [numbered[begin:end] for begin, end in itertools.pairwise([*starts, len(numbered)])]


def _read_snapshot(segment: list[tuple[int, str]], warnings: Warnings) -> dict[str, Any] | None:
    if not segment:
        return None
    facts = _read_snapshot_facts(segment)
    region = _buffer_pool_region(segment)
    figures = _read_buffer_pool_lines(region, warnings)
    if not figures:
        first_line = segment[0][0]
        warnings.add(first_line, "snapshot has no buffer pool figures (cut off before them?); skipped")
        return None
    row: dict[str, Any] = {
        "timestamp": facts.pop("timestamp", None),
        "averages_window_s": facts.pop("averages_window_s", None),
    }
    row.update(figures)
    row.update(facts)
    return row


def _read_snapshot_facts(segment: list[tuple[int, str]]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for _, raw in segment:
        line = raw.strip()
        if "timestamp" not in facts:
            iso = _TIMESTAMP_ISO.match(line)
            old = _TIMESTAMP_OLD.match(line)
            if iso:
                facts["timestamp"] = f"{iso.group(1)}T{iso.group(2)}"
                continue
            if old:
                year, month, day, clock = old.groups()
                facts["timestamp"] = f"20{year}-{month}-{day}T{int(clock[:-6]):02d}{clock[-6:]}"
                continue
        averages = _AVERAGES.match(line)
        if averages:
            facts.setdefault("averages_window_s", to_int(averages.group(1)))
            continue
        history = _HISTORY.match(line)
        if history:
            facts.setdefault("history_list_length", to_int(history.group(1)))
            continue
        for column, pattern in _LOG_POSITIONS.items():
            match = pattern.match(line)
            if match and column not in facts:
                high_or_only, low = (to_int(group) for group in match.groups())
                if high_or_only is not None and match.group(2) is None:
                    facts[column] = high_or_only
                elif high_or_only is not None and low is not None:
                    facts[column] = (high_or_only << 32) + low
                break
    return facts


def _buffer_pool_region(segment: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines of the main (total) BUFFER POOL AND MEMORY section, or of a headerless fragment."""
    titles = [i for i, (_, line) in enumerate(segment) if line.strip() == "BUFFER POOL AND MEMORY"]
    if titles:
        position = titles[0] + 1
        while position < len(segment) and _SECTION_RULE.match(segment[position][1].strip()):
            position += 1
        candidates = segment[position:]
    elif any(_SECTION_RULE.match(line.strip()) or _MONITOR_HEADER.search(line) for _, line in segment):
        return []  # a full printout cut off before its buffer pool section: other sections' lines
    else:
        candidates = segment  # a fragment someone copied: no section headings to go by
    region = []
    for number, line in candidates:
        stripped = line.strip()
        if _INSTANCE_HEADER.match(stripped) or stripped.startswith("INDIVIDUAL BUFFER POOL INFO"):
            break
        if titles and (_SECTION_RULE.match(stripped) or "END OF INNODB MONITOR OUTPUT" in stripped):
            break
        region.append((number, stripped))
    return region


def _join_wrapped_lines(region: list[tuple[int, str]]) -> list[tuple[int, str]]:
    joined: list[tuple[int, str]] = []
    for number, line in region:
        if joined and _CONTINUATION.match(line):
            first_number, previous = joined[-1]
            joined[-1] = (first_number, f"{previous} {line}")
        else:
            joined.append((number, line))
    return joined


def _read_buffer_pool_lines(region: list[tuple[int, str]], warnings: Warnings) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    no_page_gets = False
    for number, line in _join_wrapped_lines(region):
        if _NO_PAGE_GETS.match(line):
            for column in _NO_PAGE_GETS_COLUMNS:
                figures.setdefault(column, None)
            no_page_gets = True
            continue
        rule = next((rule for rule in _BUFFER_POOL_RULES if rule.applies_to(line)), None)
        if rule is None:
            continue
        missing = []
        for field in rule.fields:
            if figures.get(field.column) is not None:
                continue  # the first value read wins; a later line can only fill a gap
            match = field.pattern.search(line)
            value = field.convert(match.group(1)) if match else None
            if value is None:
                if field.only_if is None or field.only_if.search(line):
                    missing.append(field.column)
                    figures[field.column] = None  # the row says the line was there, unreadable
                continue
            figures[field.column] = value
        if missing:
            warnings.add(number, f"no readable value for {', '.join(missing)} (line cut off?): {line[:60]!r}")
    if not no_page_gets and all(value is None for value in figures.values()):
        return {}  # only damaged lines: nothing worth a row
    return figures
