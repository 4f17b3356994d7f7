"""The interval lines of tpcc-mysql's `tpcc_start` log: one row per line, counts and response
times of that interval only.

Reads both layouts that `pagelab.parse.tpcc_log`'s docstring describes (the format's one
description): the current one (`trx: n, 95%: ms, 99%: ms, max_rt: ms`, then `count|max ms` for
the other four types, which pagelab's driver extends with `|p95|p99`) and older tpcc-mysql's
`count(late):rt90|max` per type in seconds. A line's problems become warnings naming the line,
never an exception; a line that is no interval line gives no row.
"""

from __future__ import annotations

import re
from typing import Any

from pagelab.common.transactions import TransactionKind
from pagelab.parse.common import Warnings, excerpt, to_float, to_int

CURRENT_FORMAT = "trx: n, 95%: ms, 99%: ms, max_rt: ms, n|max ms (x4)"
OLD_FORMAT = "n(late):rt90|max per type, in seconds (older tpcc-mysql)"

TRANSACTION_TYPES = tuple(kind.column for kind in TransactionKind)  # in tpcc-mysql's order

COLUMNS = (
    "t_s",
    "new_order", "new_order_p95_ms", "new_order_p99_ms", "new_order_max_ms",
    "payment", "payment_max_ms",
    "order_status", "order_status_max_ms",
    "delivery", "delivery_max_ms",
    "stock_level", "stock_level_max_ms",
)  # fmt: skip

# Seconds and a comma open an interval line, whichever format follows.
INTERVAL_START = re.compile(r"^\s*-?\d+\s*,")
_LABELLED_FIELD = re.compile(r"^([A-Za-z0-9_%]+(?: [A-Za-z0-9_%]+)*)\s*:\s*(\S+)$")
_PIPE_FIELD = re.compile(r"^\d+(?:\|[^|]*)+$")
_OLD_TYPE_FIELD = re.compile(
    r"^(?P<count>\d+)(?:\((?P<late>\d+)\))?:(?P<rt90>[\d.]+|-?nan)"
    r"(?:\|(?P<max>[\d.]+|-?nan))?(?:\((?P<avg>[\d.]+|-?nan)\))?$"
)

_LABELS = {
    "trx": "new_order",
    "95%": "new_order_p95_ms",
    "95": "new_order_p95_ms",
    "99%": "new_order_p99_ms",
    "99": "new_order_p99_ms",
    "max_rt": "new_order_max_ms",
    "max rt": "new_order_max_ms",
}


def without_cut_field(line: str, number: int, warnings: Warnings) -> str:
    """The last line of a log that stops without a line end, minus a value the cut went through.

    tpcc-mysql prints every time with three decimals, so "187|79.1" at the very end is a
    number cut short, not a fast delivery.
    """
    warnings.add(number, "the last line has no line end and may be cut off")
    if re.search(r"\.\d{3}\s*$", line) or "," not in line:
        return line
    warnings.add(number, "dropped the last field, cut off in the middle")
    return line[: line.rfind(",")]


def read_interval_line(line: str, number: int, warnings: Warnings) -> tuple[dict[str, Any], str] | None:
    """The row of one interval line (a line INTERVAL_START matches) and the format it was written in
    (CURRENT_FORMAT or OLD_FORMAT), or None when nothing on it could be read (said in `warnings`)."""
    fields = [field.strip() for field in line.split(",")]
    seconds = to_int(fields[0])
    if seconds is None:
        warnings.add(number, f"interval line without its seconds: {excerpt(line)}")
        return None
    fields = [field for field in fields[1:] if field]
    row: dict[str, Any] = {"t_s": seconds}
    if fields and re.fullmatch(r"[A-Za-z-]+", fields[0]):
        row["phase"] = fields.pop(0)

    if fields and _OLD_TYPE_FIELD.match(fields[0]):
        row = _read_old_interval_fields(row, fields, line, number, warnings)
        return (row, OLD_FORMAT) if row else None
    row = _read_current_interval_fields(row, fields, line, number, warnings)
    return (row, CURRENT_FORMAT) if row else None


def _read_current_interval_fields(row, fields, line, number, warnings) -> dict[str, Any] | None:
    other_types = iter(TRANSACTION_TYPES[1:])
    ignored = []
    types_seen = 0
    for field in fields:
        labelled = _LABELLED_FIELD.match(field)
        if labelled and labelled.group(1).strip().lower() in _LABELS:
            key = _LABELS[labelled.group(1).strip().lower()]
            value = to_int(labelled.group(2)) if key == "new_order" else to_float(labelled.group(2))
            if value is None:
                warnings.add(number, f"{key} is not a number in {excerpt(line)}")
            row[key] = value
            if key == "new_order":
                types_seen += 1
            continue
        if _PIPE_FIELD.match(field):
            kind = next(other_types, None)
            if kind is None:
                ignored.append(field)
                continue
            types_seen += 1
            _store_pipe_field(row, kind, field, line, number, warnings)
            continue
        ignored.append(field)

    if types_seen == 0:
        warnings.add(number, f"not an interval line tpcc-mysql writes: {excerpt(line)}")
        return None
    if ignored:
        shown = ", ".join(repr(item[:30]) for item in ignored[:5])
        warnings.add(number, f"ignored {len(ignored)} field(s) this parser does not know: {shown}")
    if types_seen < len(TRANSACTION_TYPES):
        warnings.add(number, f"interval line has {types_seen} of 5 transaction types (cut off?)")
    return row


def _store_pipe_field(row, kind: str, field: str, line: str, number: int, warnings) -> None:
    parts = field.split("|")
    row[kind] = to_int(parts[0])
    names = (f"{kind}_max_ms", f"{kind}_p95_ms", f"{kind}_p99_ms")
    for name, part in zip(names, parts[1:], strict=False):
        value = to_float(part)
        if value is None and part.strip():
            warnings.add(number, f"{name} is not a number in {excerpt(line)}")
        row[name] = value
    if len(parts) > 1 + len(names):
        warnings.add(number, f"ignored {len(parts) - 1 - len(names)} extra '|' value(s) for {kind}")


def _read_old_interval_fields(row, fields, line, number, warnings) -> dict[str, Any] | None:
    for kind, field in zip(TRANSACTION_TYPES, fields, strict=False):
        match = _OLD_TYPE_FIELD.match(field)
        if not match:
            warnings.add(number, f"{kind} field is not count(late):rt90|max in {excerpt(line)}")
            break
        row[kind] = to_int(match.group("count"))
        if match.group("late") is not None:
            row[f"{kind}_late"] = to_int(match.group("late"))
        row[f"{kind}_p90_ms"] = _seconds_to_ms(match.group("rt90"))
        if match.group("max") is not None:
            row[f"{kind}_max_ms"] = _seconds_to_ms(match.group("max"))
        if match.group("avg") is not None:
            row[f"{kind}_avg_ms"] = _seconds_to_ms(match.group("avg"))
    known = sum(1 for kind in TRANSACTION_TYPES if kind in row)
    if known < len(TRANSACTION_TYPES):
        warnings.add(number, f"interval line has {known} of 5 transaction types (cut off?)")
    if len(fields) > len(TRANSACTION_TYPES):
        warnings.add(number, f"ignored {len(fields) - 5} field(s) after the five transaction types")
    return row if known else None


def _seconds_to_ms(token: str) -> float | None:
    seconds = to_float(token)
    return None if seconds is None else round(seconds * 1000, 6)
