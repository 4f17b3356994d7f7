"""The golden-file cases: every real capture the parsers are checked against, and how to serialise
what a parser makes of it.

Used by tests/parse (to compare) and by tests/golden/regen.py (to write the expected files once).
A case is a name, the parser output's columns and rows, and a JSON side file (meta and warnings).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagelab.parse import (
    ParseResult,
    parse_fio,
    parse_innodb_status,
    parse_innodb_status_dir,
    parse_iostat,
    parse_tpcc_log,
    parse_ycsb,
)

GOLDEN_DIR = Path(__file__).resolve().parent
SAMPLES_DIR = GOLDEN_DIR / "samples"
CAPTURED_DIR = GOLDEN_DIR / "captured"
FIXTURES_DIR = GOLDEN_DIR.parent / "fixtures" / "captured"
SEED_002 = GOLDEN_DIR.parent / "fixtures" / "sources" / "week4-lab-report.txt"
SEED_000 = GOLDEN_DIR.parent / "fixtures" / "sources" / "orientdb-page-size-proposal.txt"

MARIADB_RUNS = ("4k-w1-c4", "16k-w1-c4", "64k-w1-c4")


class MissingFixtures(RuntimeError):
    """The captured fixtures are not where the tests expect them; the suite must fail, not skip."""


def require_fixtures() -> None:
    missing = [path for path in (FIXTURES_DIR, SEED_002, SEED_000) if not path.exists()]
    if missing:
        raise MissingFixtures(
            "captured fixtures missing: "
            + ", ".join(str(path) for path in missing)
            + " ("
            "tests/fixtures/ is part of the repository: restore it with `git checkout -- tests/fixtures`)"
        )


@dataclass
class GoldenOutput:
    columns: list[str]
    rows: list[dict[str, Any]]
    side: dict[str, Any] = field(default_factory=dict)

    def csv_text(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow([cell(row.get(column)) for column in self.columns])
        return buffer.getvalue()

    def side_text(self) -> str:
        return json.dumps(self.side, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def cell(value: Any) -> str:
    """How one value is written in a golden CSV; the comparison is on these strings."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def portable(meta: dict[str, Any]) -> dict[str, Any]:
    """Meta with the fixtures' absolute location replaced by `<fixtures>`, so a golden file holds
    on any checkout (CI clones to a different root than a developer's machine)."""
    root = str(FIXTURES_DIR)
    return {
        key: "<fixtures>" + value[len(root):] if isinstance(value, str) and value.startswith(root) else value
        for key, value in meta.items()
    }


def from_result(result: ParseResult) -> GoldenOutput:
    return GoldenOutput(
        columns=result.column_names(),
        rows=result.rows,
        side={"meta": portable(result.meta), "warnings": result.warnings},
    )


def from_labelled_parts(parts: list[tuple[dict[str, Any], ParseResult]]) -> GoldenOutput:
    """Several parses of pieces of one document, each row prefixed with its piece's labels."""
    columns: list[str] = []
    rows: list[dict[str, Any]] = []
    side_parts = []
    for labels, result in parts:
        for name in list(labels) + result.column_names():
            if name not in columns:
                columns.append(name)
        rows.extend({**labels, **row} for row in result.rows)
        side_parts.append({"labels": labels, "meta": portable(result.meta), "warnings": result.warnings})
    return GoldenOutput(columns=columns, rows=rows, side={"parts": side_parts})


# --- the Week 4 lab report: captures pasted in by hand ------------------------------------------

_SEED_HEADING = re.compile(r"^Page size = (\d+)KB(?:, progress: (\d+) seconds)?")


def seed_sections(text: str) -> list[tuple[int, int | None, str]]:
    """(page size in KB, progress in s or None, body text) for each "Page size = ..." heading."""
    sections: list[tuple[int, int | None, list[str]]] = []
    for line in text.splitlines():
        heading = _SEED_HEADING.match(line)
        if heading:
            progress = int(heading.group(2)) if heading.group(2) else None
            sections.append((int(heading.group(1)), progress, []))
        elif sections:
            sections[-1][2].append(line)
    return [(page_kb, progress, "\n".join(body) + "\n") for page_kb, progress, body in sections]


def fenced_blocks(body: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", body, flags=re.MULTILINE | re.DOTALL)


def seed_innodb_snapshots(text: str) -> list[tuple[int, int | None, str]]:
    """The fenced blocks that hold a pasted BUFFER POOL AND MEMORY section.

    Some lost their "Buffer pool size" line in the copy, so a block counts when it has any of
    the section's lines.
    """
    found = []
    for page_kb, progress, body in seed_sections(text):
        for block in fenced_blocks(body):
            if re.search(r"^(Buffer pool size|Free buffers|Database pages)", block, re.MULTILINE):
                found.append((page_kb, progress, block))
    return found


def seed_iostat_tables(text: str) -> list[tuple[int, int | None, str]]:
    """The tab-separated iostat tables: a "Device<TAB>..." line and the lines up to a blank one."""
    tables = []
    for page_kb, progress, body in seed_sections(text):
        lines = body.splitlines()
        for index, line in enumerate(lines):
            if line.startswith("Device\t"):
                end = index + 1
                while end < len(lines) and lines[end].strip():
                    end += 1
                tables.append((page_kb, progress, "\n".join(lines[index:end]) + "\n"))
    return tables


def seed_tpcc_texts(text: str) -> list[tuple[int, str]]:
    """Per page size, everything the report pasted under that size's headings, in order."""
    by_page: dict[int, list[str]] = {}
    for page_kb, _, body in seed_sections(text):
        by_page.setdefault(page_kb, []).append(body)
    return [(page_kb, "".join(bodies)) for page_kb, bodies in by_page.items()]


def seed_text() -> str:
    return SEED_002.read_text(encoding="utf-8")


# --- OrientDB's page-size proposal: YCSB fragments pasted between headings ----------------------

_SEED000_WORKLOADS = {
    "Load of data": "load",
    "Mixed load 50% of writes, 50% of reads": "mixed_50_50",
    "Read mostly load 5% writes, 95% reads": "read_mostly_95_5",
    "Read only workload": "read_only",
}
_SEED000_PAGE = re.compile(r"^\**\s*(\d+)k pages\s*\**\s*$")


def orientdb_blocks(text: str) -> list[tuple[str, int, str]]:
    """(workload, page size in KB, block text) for each fenced YCSB block of OrientDB's proposal, labelled
    by the workload and page-size headings above it ("**64k pages**", or "16k pages" unbolded)."""
    blocks: list[tuple[str, int, str]] = []
    workload, page_kb, fence = None, None, None
    for line in text.splitlines():
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith("```"):
                blocks.append((workload, page_kb, "\n".join(fence) + "\n"))
                fence = None
            else:
                fence.append(line)
            continue
        heading = stripped.strip("*").strip()
        if heading in _SEED000_WORKLOADS:
            workload = _SEED000_WORKLOADS[heading]
        elif _SEED000_PAGE.match(stripped):
            page_kb = int(_SEED000_PAGE.match(stripped).group(1))
        elif stripped.startswith("```"):
            fence = []
    return blocks


def orientdb_text() -> str:
    return SEED_000.read_text(encoding="utf-8")


# --- the cases ---------------------------------------------------------------------------------


def _flat(file_name: str) -> str:
    return file_name.replace(".", "_")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _case_list() -> list[tuple[str, Callable[[], GoldenOutput]]]:
    cases: list[tuple[str, Callable[[], GoldenOutput]]] = []

    def add(name: str, build: Callable[[], GoldenOutput]) -> None:
        cases.append((name, build))

    mariadb = FIXTURES_DIR / "mariadb-10.11"
    for run in MARIADB_RUNS:
        run_dir = mariadb / run
        add(
            f"tpcc_log/mariadb-10.11_{run}",
            lambda d=run_dir: from_result(parse_tpcc_log(_read(d / "tpcc_start.log"))),
        )
        add(
            f"innodb_status/mariadb-10.11_{run}_run",
            lambda d=run_dir: from_result(parse_innodb_status_dir(d / "innodb")),
        )
        add(
            f"innodb_status/mariadb-10.11_{run}_after_load",
            lambda d=run_dir: from_result(parse_innodb_status(_read(d / "innodb_after_load.txt"))),
        )
        add(
            f"iostat/mariadb-10.11_{run}",
            lambda d=run_dir: from_result(parse_iostat(_read(d / "iostat.txt"))),
        )
    add(
        "iostat/iostat-json_fio_randread",
        lambda: from_result(parse_iostat(_read(FIXTURES_DIR / "iostat-json" / "iostat_fio_randread.json"))),
    )
    for size in ("4k", "16k", "64k"):
        add(
            f"fio/randread_qd1_{size}",
            lambda s=size: from_result(parse_fio(_read(FIXTURES_DIR / "fio" / f"randread_qd1_{s}.json"))),
        )

    for path in sorted(CAPTURED_DIR.glob("iostat_*")):
        add(f"iostat/captured_{_flat(path.name)}", lambda p=path: from_result(parse_iostat(_read(p))))
    for path in sorted(CAPTURED_DIR.glob("innodb_*")):
        add(f"innodb_status/captured_{_flat(path.name)}", lambda p=path: from_result(parse_innodb_status(_read(p))))
    for path in sorted(CAPTURED_DIR.glob("tpcc_*")):
        add(f"tpcc_log/captured_{_flat(path.name)}", lambda p=path: from_result(parse_tpcc_log(_read(p))))
    for path in sorted(SAMPLES_DIR.glob("iostat_*")):
        add(f"iostat/sample_{_flat(path.name)}", lambda p=path: from_result(parse_iostat(_read(p))))
    for path in sorted(SAMPLES_DIR.glob("innodb_*")):
        add(
            f"innodb_status/sample_{_flat(path.name)}",
            lambda p=path: from_result(parse_innodb_status(_read(p))),
        )
    for path in sorted(SAMPLES_DIR.glob("tpcc_*")):
        add(f"tpcc_log/sample_{_flat(path.name)}", lambda p=path: from_result(parse_tpcc_log(_read(p))))
    for path in sorted(SAMPLES_DIR.glob("fio_*")):
        add(f"fio/sample_{_flat(path.name)}", lambda p=path: from_result(parse_fio(_read(p))))
    for path in sorted(SAMPLES_DIR.glob("ycsb_*")):
        add(f"ycsb/sample_{_flat(path.name)}", lambda p=path: from_result(parse_ycsb(_read(p))))

    add(
        "week4_lab/innodb",
        lambda: from_labelled_parts(
            [
                ({"page_size_kb": page_kb, "progress_s": progress}, parse_innodb_status(block))
                for page_kb, progress, block in seed_innodb_snapshots(seed_text())
            ]
        ),
    )
    add(
        "week4_lab/iostat",
        lambda: from_labelled_parts(
            [
                ({"page_size_kb": page_kb, "progress_s": progress}, parse_iostat(table))
                for page_kb, progress, table in seed_iostat_tables(seed_text())
            ]
        ),
    )
    add(
        "week4_lab/tpcc_intervals",
        lambda: from_labelled_parts(
            [
                ({"page_size_kb": page_kb}, parse_tpcc_log(body))
                for page_kb, body in seed_tpcc_texts(seed_text())
            ]
        ),
    )
    add(
        "orientdb_proposal/ycsb",
        lambda: from_labelled_parts(
            [
                ({"workload": workload, "page_size_kb": page_kb}, parse_ycsb(block))
                for workload, page_kb, block in orientdb_blocks(orientdb_text())
            ]
        ),
    )
    add("orientdb_proposal/ycsb_whole_text", lambda: from_result(parse_ycsb(orientdb_text())))
    return cases


def golden_cases() -> list[tuple[str, Callable[[], GoldenOutput]]]:
    """All cases; raises MissingFixtures when the captures are absent."""
    require_fixtures()
    return _case_list()


def golden_paths(name: str) -> tuple[Path, Path]:
    return GOLDEN_DIR / f"{name}.csv", GOLDEN_DIR / f"{name}.json"


def expected_golden_files() -> set[Path]:
    return {path for name, _ in golden_cases() for path in golden_paths(name)}


def stored_golden_files() -> set[Path]:
    return {
        path
        for folder in ("tpcc_log", "innodb_status", "iostat", "fio", "week4_lab", "ycsb", "orientdb_proposal")
        for path in (GOLDEN_DIR / folder).glob("*")
        if path.suffix in (".csv", ".json")
    }
