"""Every real capture against its reviewed golden CSV (and JSON side file), field by field."""

from __future__ import annotations

import csv
import difflib
import io
import json

import pytest
from golden_cases import (
    FIXTURES_DIR,
    GOLDEN_DIR,
    MissingFixtures,
    expected_golden_files,
    golden_cases,
    golden_paths,
    stored_golden_files,
)

try:
    CASES = golden_cases()
    MISSING = None
except MissingFixtures as error:  # reported by the test below instead of silently collecting nothing
    CASES, MISSING = [], error


def test_captured_fixtures_are_present():
    if MISSING is not None:
        pytest.fail(str(MISSING))


def test_every_capture_has_a_case():
    """Guards against a glob that quietly matches nothing."""
    names = [name for name, _ in CASES]
    assert sum(name.startswith("tpcc_log/mariadb") for name in names) == 3
    assert sum(name.startswith("innodb_status/mariadb") for name in names) == 6
    assert sum(name.startswith("iostat/mariadb") for name in names) == 3
    assert sum(name.startswith("fio/randread") for name in names) == 3
    assert len(list(FIXTURES_DIR.glob("mariadb-10.11/*/innodb/*.txt"))) == 21
    assert {"week4_lab/innodb", "week4_lab/iostat", "week4_lab/tpcc_intervals"} <= set(names)


def test_no_stale_or_missing_golden_files():
    expected, stored = expected_golden_files(), stored_golden_files()
    assert not (expected - stored), f"golden files never generated: {sorted(expected - stored)}"
    assert not (stored - expected), f"golden files no case checks: {sorted(stored - expected)}"


def test_no_regenerated_file_waits_for_review():
    """regen.py writes beside the golden files (NAME.csv.new); until a person has compared the two
    and moved the new one over, the golden file stands and this test names what is waiting."""
    waiting = sorted(str(path.relative_to(GOLDEN_DIR)) for path in GOLDEN_DIR.rglob("*.new"))
    assert not waiting, f"regenerated golden files not reviewed yet (compare, then mv or delete): {waiting}"


def _difference(name: str, golden_text: str, parser_text: str) -> str:
    lines = difflib.unified_diff(golden_text.splitlines(), parser_text.splitlines(),
                                 f"golden/{name}", "parser today", lineterm="", n=0)
    return "\n".join(list(lines)[:40])


@pytest.mark.parametrize("name,build", CASES, ids=[name for name, _ in CASES])
def test_matches_golden(name, build):
    output = build()
    csv_path, side_path = golden_paths(name)
    golden_text = csv_path.read_text(encoding="utf-8")
    expected_rows = list(csv.reader(io.StringIO(golden_text)))
    actual_rows = list(csv.reader(io.StringIO(output.csv_text())))

    assert actual_rows[0] == expected_rows[0], f"{name}: columns differ\n" + _difference(name, golden_text, output.csv_text())
    assert len(actual_rows) == len(expected_rows), (
        f"{name}: {len(actual_rows) - 1} rows, golden has {len(expected_rows) - 1}\n"
        + _difference(name, golden_text, output.csv_text())
    )
    header = expected_rows[0]
    mismatches = [
        f"row {index} {column}: golden {want!r}, parser {got!r}"
        for index, (want_row, got_row) in enumerate(
            zip(expected_rows[1:], actual_rows[1:], strict=True), start=1
        )
        for column, want, got in zip(header, want_row, got_row, strict=False)
        if want != got
    ]
    assert not mismatches, f"{name}:\n" + "\n".join(mismatches[:20])

    side_text = side_path.read_text(encoding="utf-8")
    assert json.loads(output.side_text()) == json.loads(side_text), (
        f"{name}: meta or warnings differ\n" + _difference(name + ".json", side_text, output.side_text()))


def _golden_row(name: str, row: int) -> dict[str, str]:
    """Row `row` (1 = the first data row) of a golden CSV, as the file holds it."""
    rows = list(csv.DictReader(io.StringIO(golden_paths(name)[0].read_text(encoding="utf-8"))))
    return rows[row - 1]


# Values read by hand from the captured text, not from any parser: each golden file below must hold
# them. If a regenerated golden file loses one, the regeneration was wrong, whatever the parser says.
HAND_READ = [
    # tests/fixtures/captured/mariadb-10.11/64k-w1-c4/tpcc_start.log, line 29:
    # "  10, trx: 646, 95%: 51.537, 99%: 63.285, max_rt: 106.850, 644|72.053, 65|17.082, 65|128.873, 66|148.680"
    ("tpcc_log/mariadb-10.11_64k-w1-c4", 1, {"t_s": 10, "new_order": 646, "new_order_p95_ms": 51.537,
                                              "new_order_p99_ms": 63.285, "new_order_max_ms": 106.85,
                                              "payment": 644, "payment_max_ms": 72.053, "stock_level": 66,
                                              "stock_level_max_ms": 148.68}),
    # .../16k-w1-c4/iostat.txt, line 6, the first vda sample: r/s 1803.00, rkB/s 28846.40,
    # w/s 2992.10, rareq-sz 16.00, aqu-sz 1.51, %util 35.16
    ("iostat/mariadb-10.11_16k-w1-c4", 1, {"device": "vda", "r_s": 1803.0, "rkb_s": 28846.4, "w_s": 2992.1,
                                            "rareq_kb": 16.0, "aqu_sz": 1.51, "util_pct": 35.16}),
    # .../64k-w1-c4/innodb/001_1795269835.txt, lines 63-76: "Buffer pool size   1016",
    # "Free buffers       860", "Database pages     156", "Pages read 70067, created 3155, written 32885",
    # "Buffer pool hit rate 773 / 1000"
    ("innodb_status/mariadb-10.11_64k-w1-c4_run", 1, {"pool_pages": 1016, "free_pages": 860, "database_pages": 156,
                                                       "pages_read": 70067, "pages_created": 3155,
                                                       "pages_written": 32885, "hit_rate": 773}),
    # tests/fixtures/captured/fio/randread_qd1_4k.json, line 29 "iops" : 14394.242303 and line 60
    # clat percentile "99.000000" : 132096 (nanoseconds, so 132.096 us)
    ("fio/randread_qd1_4k", 1, {"bs_bytes": 4096, "read_iops": 14394.242303, "read_lat_p99_us": 132.096}),
]


@pytest.mark.parametrize("name,row,values", HAND_READ, ids=[name for name, _, _ in HAND_READ])
def test_golden_holds_the_values_read_by_hand(name, row, values):
    stored = _golden_row(name, row)
    wrong = {column: (want, stored[column]) for column, want in values.items()
             if (stored[column] if isinstance(want, str) else float(stored[column])) != want}
    assert not wrong, f"{name} row {row}: hand-read value vs golden file: {wrong}"


def test_the_64k_log_total_read_by_hand():
    # tests/fixtures/captured/mariadb-10.11/64k-w1-c4/tpcc_start.log, lines 66-67: "<TpmC>" then
    # "                 4108.000 TpmC"
    side = json.loads(golden_paths("tpcc_log/mariadb-10.11_64k-w1-c4")[1].read_text(encoding="utf-8"))
    assert side["meta"]["tpmc"] == 4108.0
