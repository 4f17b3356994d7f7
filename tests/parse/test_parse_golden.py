"""Every real capture against its reviewed golden CSV (and JSON side file), field by field."""

from __future__ import annotations

import csv
import io
import json

import pytest
from golden_cases import (
    FIXTURES_DIR,
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
    assert {"seed002/innodb", "seed002/iostat", "seed002/tpcc_intervals"} <= set(names)


def test_no_stale_or_missing_golden_files():
    expected, stored = expected_golden_files(), stored_golden_files()
    assert not (expected - stored), f"golden files never generated: {sorted(expected - stored)}"
    assert not (stored - expected), f"golden files no case checks: {sorted(stored - expected)}"


@pytest.mark.parametrize("name,build", CASES, ids=[name for name, _ in CASES])
def test_matches_golden(name, build):
    output = build()
    csv_path, side_path = golden_paths(name)
    expected_rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    actual_rows = list(csv.reader(io.StringIO(output.csv_text())))

    assert actual_rows[0] == expected_rows[0], f"{name}: columns differ"
    assert len(actual_rows) == len(expected_rows), (
        f"{name}: {len(actual_rows) - 1} rows, golden has {len(expected_rows) - 1}"
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

    expected_side = json.loads(side_path.read_text(encoding="utf-8"))
    assert json.loads(output.side_text()) == expected_side, f"{name}: meta or warnings differ"
