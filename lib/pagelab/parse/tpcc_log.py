"""tpcc-mysql's `tpcc_start` output -> one row per interval line, plus the run's summary in meta.

The current Percona-Lab format (and what pagelab's own driver writes)::

    option w with value '1'            <- echoed options; `option p` is the password: dropped
    <Parameters>
         [server]: 127.0.0.1
           [pass]:                      <- dropped, never stored
      [warehouse]: 1
    ...
    MEASURING START.

      10, trx: 1869, 95%: 19.710, 99%: 30.258, max_rt: 126.288, 1872|93.235, 187|9.714, 187|79.165, 187|77.656
    ...
    <Raw Results>
      [0] sc:1183 lt:10505  rt:0  fl:0 avg_rt: 12.1 (5)
     in 60 sec.
    <Raw Results2(sum ver.)>
      [0] sc:1183  lt:10505  rt:0  fl:0
    <Constraint Check> (all must be [OK])
     [transaction percentage]
            Payment: 43.48% (>=43.0%) [OK]
     [response time (at least 90% passed)]
          New-Order: 10.12%  [NG] *
    <TpmC>
                     11688.000 TpmC

An interval line is `seconds, trx: <new-order count>, 95%: <new-order p95 ms>, 99%: <p99 ms>,
max_rt: <new-order max ms>` and then `count|max ms` for payment, order-status, delivery and
stock-level, in that order. Counts and times are for that interval only.

Also read:

* older tpcc-mysql, `  10, 27(0):3.829|7.321, 26(0):1.854|4.399, ...` - per type
  `count(late):rt90|max` (and `count(late):rt90` when built with _SLEEP_ONLY_). The 90th
  percentile lands in the extra column `<type>_p90_ms` and the late count in `<type>_late`;
  p95/p99 stay empty. Those versions timed transactions in seconds (their histogram is named
  REC_PER_SEC, and the sample in tests/golden/samples does ~37 transactions per 10 s on 10
  connections at a "3.8" p90), so their times are multiplied by 1000 into the `_ms` columns;
  meta["interval_format"] says which format was read.
* forks that print a phase after the seconds (`  10, measure, trx: ...`) -> extra column `phase`,
  and `95:` / `max rt:` spelled without `%` / underscore.
* pagelab's extended lines: a type's `count|max` may carry `|p95|p99` as well
  (`1872|93.235|20.1|31.7`) -> `payment_p95_ms`, `payment_p99_ms`, ...; fields this parser does not
  know are skipped with a warning instead of failing the line.

A log cut off mid-run gives the rows so far, tpmc None and the warning "log ends before
<TpmC>". If the text stops without a line end, the value the cut went through is not read
(tpcc-mysql prints times with three decimals, so "187|79.1" at the very end is recognisably cut).

The `(5)` after avg_rt is the type's response-time limit (5, 5, 5, 80, 20), kept as printed in
`rt_limit`, without a unit in its name because its unit depends on the writer: tpcc-mysql
compares it with response times in milliseconds (so "late" means over 5 ms), while pagelab's
driver prints TPC-C's limit in seconds there. avg_rt itself is in milliseconds for both.

This module reads the log top to bottom and everything but the interval lines: the echoed options
and <Parameters>, the phases, <Raw Results>, <Constraint Check> and <TpmC>. The interval lines, in
each format above, are read by `pagelab.parse.tpcc_log_intervals`.
"""

from __future__ import annotations

import re
from typing import Any

from pagelab.common.errors import ParseError
from pagelab.parse.common import (
    ParseResult,
    Warnings,
    excerpt,
    ordered_rows,
    text_of,
    to_float,
    to_int,
    to_number,
    without_last_token,
)
from pagelab.parse.tpcc_log_intervals import (
    COLUMNS,
    INTERVAL_START,
    TRANSACTION_TYPES,
    read_interval_line,
    without_cut_field,
)

# `[pass]` and option `p` carry the database password: they are recognised only to be dropped.
_PARAMETER_KEYS = {
    "server": ("server", str),
    "port": ("port", int),
    "dbname": ("dbname", str),
    "user": ("user", str),
    "warehouse": ("warehouses", int),
    "connection": ("connections", int),
    "rampup": ("rampup_s", int),
    "measure": ("measure_s", int),
    "ratio": ("ratio", str),
    "seed": ("seed", int),  # printed by pagelab's own driver
    "driver": ("driver", str),
}
_OPTION_KEYS = {
    "h": ("server", str),
    "P": ("port", int),
    "d": ("dbname", str),
    "u": ("user", str),
    "w": ("warehouses", int),
    "c": ("connections", int),
    "r": ("rampup_s", int),
    "l": ("measure_s", int),
    "i": ("interval_s", int),
}
_SECRET_KEYS = {"pass", "password"}
_SECRET_OPTIONS = {"p"}

_OPTION_LINE = re.compile(r"^option (\w) with value '(.*)'\s*$")
_PARAMETER_LINE = re.compile(r"^\s*\[(\w+)\]:\s?(.*?)\s*$")
_RAW_RESULT = re.compile(
    r"^\s*\[(?P<index>\d+)(?::[^\]]*)?\]\s*sc:\s*(?P<sc>\d+)\s+lt:\s*(?P<lt>\d+)\s+"
    r"rt:\s*(?P<rt>\d+)\s+fl:\s*(?P<fl>\d+)"
    r"(?:\s+avg_rt:\s*(?P<avg>\S+)\s*\(\s*(?P<limit>[\d.]+)\s*\))?"
)
_MEASURED = re.compile(r"^\s*in (\d+) sec\.")
_RAMPUP = re.compile(r"^RAMP-UP TIME\.\((\d+) sec\.\)")
_TPMC = re.compile(r"^\s*([\d.]+|-?nan)\s+TpmC\s*$")
_MIX_CHECK = re.compile(r"^\s*([A-Za-z-]+):\s*([\d.]+|-?nan)%\s*\(\s*>=\s*([\d.]+)%\)\s*\[(OK|NG)\]")
_RESPONSE_CHECK = re.compile(r"^\s*([A-Za-z-]+):\s*([\d.]+|-?nan)%\s*\[(OK|NG)\]")


_LOADER_BANNER = "TPCC-mysql Data Loader"  # the banner tpcc_load prints first; tpcc_start's says "Load Generator"


def parse_tpcc_log(text: str) -> ParseResult:
    """Interval rows and run summary from tpcc-mysql `tpcc_start` output (see module docstring)."""
    text = text_of(text, "tpcc-mysql output")
    reader = _LogReader(text)
    for number, line in enumerate(reader.lines, start=1):
        if line.strip():
            reader.read(number, line)
    return reader.result()


class _LogReader:
    """State while reading a log top to bottom: which section a line is in decides what it means."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.ends_cut = not text.endswith(("\n", "\r"))
        self.warnings = Warnings()
        self.meta: dict[str, Any] = {}
        self.options: dict[str, Any] = {}  # the echoed command line; <Parameters> wins over it
        self.rows: list[dict[str, Any]] = []
        self.section: str | None = None  # the current <...> block: whose "[0] sc:..." line is it?
        self.check_kind: str | None = None
        self.recognised_anything = False
        self.tpmc_line: int | None = None

    def read(self, number: int, line: str) -> None:
        if number == len(self.lines) and self.ends_cut and not INTERVAL_START.match(line):
            self.warnings.add(number, "the log ends without a line end; the last value on it is not read")
            line = without_last_token(line)
        stripped = line.strip()
        for handler in (
            self._interval,
            self._option,
            self._section_heading,
            self._parameter,
            self._raw_result,
            self._progress,
            self._constraint_check,
            self._tpmc,
        ):
            if handler(number, line, stripped):
                return

    def result(self) -> ParseResult:
        if not self.rows and "tpmc" not in self.meta:
            loader_banner = next((number for number, line in enumerate(self.lines[:5], 1) if _LOADER_BANNER in line), None)
            if loader_banner is not None:
                raise ParseError(f"this is tpcc_load's log (line {loader_banner}: {_LOADER_BANNER!r}), which loads the "
                                 "tables and measures nothing; give the log of tpcc_start, the run")
        if not self.recognised_anything:
            raise ParseError("no tpcc-mysql output found (no interval lines, header or <TpmC> section)")
        for key, value in self.options.items():
            self.meta.setdefault(key, value)
        _check_ending(self.meta, self.rows, self.lines, self.tpmc_line, self.warnings)
        return ParseResult(
            rows=ordered_rows(self.rows, COLUMNS),
            warnings=self.warnings.messages,
            meta=self.meta,
            columns=COLUMNS,
        )

    def _interval(self, number: int, line: str, stripped: str) -> bool:
        if not INTERVAL_START.match(line):
            return False
        if number == len(self.lines) and self.ends_cut:
            line = without_cut_field(line, number, self.warnings)
        read = read_interval_line(line, number, self.warnings)
        if read is not None:
            row, interval_format = read
            self.rows.append(row)
            self.meta.setdefault("interval_format", interval_format)
            self.recognised_anything = True
        return True

    def _option(self, number: int, line: str, stripped: str) -> bool:
        option = _OPTION_LINE.match(stripped)
        if option:
            self.recognised_anything = True
            _store_option(self.options, option.group(1), option.group(2))
        return option is not None

    def _section_heading(self, number: int, line: str, stripped: str) -> bool:
        if not stripped.startswith("<"):
            return False
        self.section = _section_name(stripped)
        if self.section == "tpmc":
            self.tpmc_line = number
        self.recognised_anything = self.recognised_anything or self.section is not None
        return True

    def _parameter(self, number: int, line: str, stripped: str) -> bool:
        if not (stripped.startswith("[") and "]:" in stripped and self.section in (None, "parameters")):
            return False
        parameter = _PARAMETER_LINE.match(stripped)
        if parameter:
            self.recognised_anything = True
            _store_parameter(self.meta, parameter.group(1), parameter.group(2), number, self.warnings)
        return True

    def _raw_result(self, number: int, line: str, stripped: str) -> bool:
        raw = _RAW_RESULT.match(line)
        if raw:
            self.recognised_anything = True
            key = "raw_results_sum" if self.section == "raw_results_sum" else "raw_results"
            self.meta.setdefault(key, []).append(_raw_result(raw))
        return raw is not None

    def _progress(self, number: int, line: str, stripped: str) -> bool:
        """The lines that mark the run's phases: ramp-up, start, stop, measured seconds."""
        measured = _MEASURED.match(line)
        if measured:
            self.meta["measured_s"] = to_int(measured.group(1))
            return True
        rampup = _RAMPUP.match(stripped)
        if rampup:
            self.recognised_anything = True
            self.meta.setdefault("rampup_s", to_int(rampup.group(1)))
            return True
        if stripped.startswith("MEASURING START"):
            self.recognised_anything = True
            return True
        if stripped.startswith("STOPPING THREADS"):
            self.meta["stopped"] = True
            return True
        return False

    def _constraint_check(self, number: int, line: str, stripped: str) -> bool:
        if stripped.startswith("[transaction percentage]"):
            self.check_kind = "transaction_percentage"
            return True
        if stripped.startswith("[response time"):
            self.check_kind = "response_time_passed"
            return True
        if _read_constraint_line(stripped, self.check_kind, self.meta):
            self.recognised_anything = True
            return True
        return False

    def _tpmc(self, number: int, line: str, stripped: str) -> bool:
        tpmc = _TPMC.match(stripped)
        if tpmc is None:
            return False
        self.recognised_anything = True
        self.meta["tpmc"] = to_float(tpmc.group(1))
        if self.meta["tpmc"] is None:
            self.warnings.add(number, f"TpmC is not a number: {excerpt(stripped)}")
        return True


def _section_name(stripped: str) -> str | None:
    lowered = stripped.lower()
    if lowered.startswith("<parameters>"):
        return "parameters"
    if lowered.startswith("<raw results2"):
        return "raw_results_sum"
    if lowered.startswith("<raw results>"):
        return "raw_results"
    if lowered.startswith("<constraint check>"):
        return "constraint_check"
    if lowered.startswith("<tpmc>"):
        return "tpmc"
    return None


def _store_option(options: dict[str, Any], letter: str, value: str) -> None:
    if letter in _SECRET_OPTIONS or letter not in _OPTION_KEYS:
        return
    key, kind = _OPTION_KEYS[letter]
    converted = _convert(value, kind)
    if converted is not None:
        options[key] = converted


def _store_parameter(meta, name: str, value: str, number: int, warnings: Warnings) -> None:
    name = name.lower()
    if name in _SECRET_KEYS:
        return
    if name not in _PARAMETER_KEYS:
        return
    key, kind = _PARAMETER_KEYS[name]
    if not value.strip():
        return  # printed empty, or cut off: either way nothing is known
    converted = _convert(value.split("(")[0].strip() if kind is int else value, kind)
    if converted is None and value.strip():
        warnings.add(number, f"[{name}] is not readable: {excerpt(value)}")
        return
    meta[key] = converted


def _convert(value: str, kind) -> Any:
    value = value.strip()
    if kind is int:
        return to_int(value)
    return value


def _raw_result(match: re.Match) -> dict[str, Any]:
    index = to_int(match.group("index"))
    result = {
        "index": index,
        "transaction": TRANSACTION_TYPES[index]
        if index is not None and index < len(TRANSACTION_TYPES)
        else None,
        "sc": to_int(match.group("sc")),
        "lt": to_int(match.group("lt")),
        "rt": to_int(match.group("rt")),
        "fl": to_int(match.group("fl")),
    }
    if match.group("avg") is not None:
        result["avg_rt_ms"] = to_float(match.group("avg"))
        result["rt_limit"] = to_number(match.group("limit"))
    return result


def _read_constraint_line(stripped: str, check_kind: str | None, meta: dict[str, Any]) -> bool:
    mix = _MIX_CHECK.match(stripped)
    if mix:
        meta.setdefault("constraint_check", {}).setdefault("transaction_percentage", []).append(
            {
                "transaction": _snake(mix.group(1)),
                "percent": to_float(mix.group(2)),
                "min_percent": to_float(mix.group(3)),
                "ok": mix.group(4) == "OK",
            }
        )
        return True
    response = _RESPONSE_CHECK.match(stripped)
    if response and check_kind != "transaction_percentage":
        meta.setdefault("constraint_check", {}).setdefault("response_time_passed", []).append(
            {
                "transaction": _snake(response.group(1)),
                "percent": to_float(response.group(2)),
                "ok": response.group(3) == "OK",
            }
        )
        return True
    return False


def _snake(printed_name: str) -> str:
    return printed_name.strip().lower().replace("-", "_")


def _check_ending(meta, rows, lines, tpmc_line, warnings: Warnings) -> None:
    last_line = len(lines)
    if "tpmc" not in meta:
        meta["tpmc"] = None
        if tpmc_line is not None:
            warnings.add(tpmc_line, "<TpmC> section without a number after it")
        else:
            warnings.add(last_line, "log ends before <TpmC> (run cut off or still running)")
    if not rows:
        warnings.add(last_line, "no interval lines found")
