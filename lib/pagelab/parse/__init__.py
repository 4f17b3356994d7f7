"""Parsers: pure functions from the text a tool printed to tidy rows (DESIGN.md, "Tidy tables").

Each returns a `ParseResult` (rows, warnings naming lines, meta) and raises only `ParseError`,
and only when nothing in the text can be read. `PARSERS` maps the CLI's names to them:
`pagelab parse tpcc-log FILE` prints `PARSERS["tpcc-log"](text).to_frame()` as CSV.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pagelab.common.errors import ParseError
from pagelab.parse.common import ParseResult, ordered_rows, to_int
from pagelab.parse.fio import parse_fio
from pagelab.parse.innodb_status import COLUMNS as INNODB_COLUMNS
from pagelab.parse.innodb_status import parse_innodb_status
from pagelab.parse.iostat import parse_iostat
from pagelab.parse.tpcc_log import parse_tpcc_log
from pagelab.parse.ycsb import parse_ycsb

__all__ = [
    "PARSERS",
    "ParseError",
    "ParseResult",
    "parse_fio",
    "parse_innodb_status",
    "parse_innodb_status_dir",
    "parse_iostat",
    "parse_tpcc_log",
    "parse_ycsb",
]

PARSERS: dict[str, Callable[[str], ParseResult]] = {
    "tpcc-log": parse_tpcc_log,
    "innodb-status": parse_innodb_status,
    "iostat": parse_iostat,
    "fio": parse_fio,
    "ycsb": parse_ycsb,
}

# "007_1795269630.txt" (sequence and Unix time, as the fixtures name them) or "00007.txt"
_SNAPSHOT_NAME = re.compile(r"^(\d+)(?:_(\d+))?$")


def parse_innodb_status_dir(path: str | Path) -> ParseResult:
    """Every `*.txt` InnoDB status snapshot in a directory, in the order their names number them.

    Rows gain `snapshot` (the file name) and `epoch` (Unix time, when the name carries one). A
    file that cannot be read at all is skipped with a warning; ParseError only if none can be.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise ParseError(f"not a directory of InnoDB status snapshots: {directory}")
    files = sorted((file for file in directory.glob("*.txt") if file.is_file()), key=_snapshot_order)
    if not files:
        raise ParseError(f"no InnoDB status snapshots (*.txt) found in {directory}")

    rows, warnings = [], []
    for file in files:
        match = _SNAPSHOT_NAME.match(file.stem)
        epoch = to_int(match.group(2)) if match and match.group(2) else None
        try:
            result = parse_innodb_status(file.read_text(encoding="utf-8", errors="replace"))
        except ParseError as error:
            warnings.append(f"{file.name}: {error}; skipped")
            continue
        warnings.extend(f"{file.name}: {message}" for message in result.warnings)
        rows.extend({"snapshot": file.name, "epoch": epoch, **row} for row in result.rows)
    if not rows:
        raise ParseError(f"none of the {len(files)} snapshot files in {directory} could be read")
    columns = ("snapshot", "epoch", *INNODB_COLUMNS)
    return ParseResult(
        rows=ordered_rows(rows, columns),
        warnings=warnings,
        meta={"directory": str(directory), "files": len(files), "snapshots": len(rows)},
        columns=columns,
    )


def _snapshot_order(file: Path) -> tuple:
    match = _SNAPSHOT_NAME.match(file.stem)
    if match:
        return (0, to_int(match.group(1)) or 0, to_int(match.group(2) or "0") or 0, file.name)
    return (1, 0, 0, file.name)  # unnumbered names last, alphabetically
