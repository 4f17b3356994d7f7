"""tpcc-mysql log parser: facts checked against the source text, formats, damage, secrets."""

from __future__ import annotations

import re

import pytest
from golden_cases import FIXTURES_DIR, SAMPLES_DIR, seed_text, seed_tpcc_texts
from pagelab.common.errors import ParseError
from pagelab.parse import parse_tpcc_log
from pagelab.parse.tpcc_log_intervals import COLUMNS, OLD_FORMAT

RUNS = ("4k-w1-c4", "16k-w1-c4", "64k-w1-c4")


def fixture_log(run: str) -> str:
    return (FIXTURES_DIR / "mariadb-10.11" / run / "tpcc_start.log").read_text()


def tpmc_printed(text: str) -> float:
    """The number under <TpmC>, read without the parser."""
    return float(re.search(r"<TpmC>\s*\n\s*([\d.]+) TpmC", text).group(1))


def test_4k_tpmc_is_the_number_in_its_tpmc_section():
    text = fixture_log("4k-w1-c4")
    assert parse_tpcc_log(text).meta["tpmc"] == tpmc_printed(text) == 11688.0


@pytest.mark.parametrize("run", RUNS)
def test_interval_new_orders_add_up_to_tpmc(run):
    # tpcc-mysql's TpmC is all new orders of the measured time, per minute
    result = parse_tpcc_log(fixture_log(run))
    new_orders = sum(row["new_order"] for row in result.rows)
    assert (
        new_orders * 60 / result.meta["measured_s"] == result.meta["tpmc"] == tpmc_printed(fixture_log(run))
    )
    raw = result.meta["raw_results"][0]
    assert raw["sc"] + raw["lt"] == new_orders


def test_4k_first_interval_line_read_field_by_field():
    # "  10, trx: 1869, 95%: 19.710, 99%: 30.258, max_rt: 126.288, 1872|93.235, 187|9.714, 187|79.165, 187|77.656"
    row = parse_tpcc_log(fixture_log("4k-w1-c4")).rows[0]
    assert row == {
        "t_s": 10, "new_order": 1869, "new_order_p95_ms": 19.71, "new_order_p99_ms": 30.258,
        "new_order_max_ms": 126.288, "payment": 1872, "payment_max_ms": 93.235,
        "order_status": 187, "order_status_max_ms": 9.714, "delivery": 187, "delivery_max_ms": 79.165,
        "stock_level": 187, "stock_level_max_ms": 77.656,
    }  # fmt: skip


def test_header_summary_and_checks():
    meta = parse_tpcc_log(fixture_log("64k-w1-c4")).meta
    assert {key: meta[key] for key in ("server", "port", "dbname", "user", "warehouses", "connections")} == {
        "server": "127.0.0.1", "port": 13400, "dbname": "tpcc", "user": "root", "warehouses": 1, "connections": 4,
    }  # fmt: skip
    assert (meta["rampup_s"], meta["measure_s"], meta["interval_s"], meta["measured_s"]) == (10, 60, 10, 60)
    # "  [3] sc:310 lt:101  rt:0  fl:0 avg_rt: 84.1 (80)"
    assert meta["raw_results"][3] == {
        "index": 3, "transaction": "delivery", "sc": 310, "lt": 101, "rt": 0, "fl": 0,
        "avg_rt_ms": 84.1, "rt_limit": 80,
    }  # fmt: skip
    assert meta["raw_results_sum"][0] == {
        "index": 0,
        "transaction": "new_order",
        "sc": 0,
        "lt": 4108,
        "rt": 0,
        "fl": 0,
    }
    mix = meta["constraint_check"]["transaction_percentage"]
    assert mix[0] == {"transaction": "payment", "percent": 43.46, "min_percent": 43.0, "ok": True}
    response = meta["constraint_check"]["response_time_passed"]
    assert [check["ok"] for check in response] == [False] * 5
    assert response[3] == {"transaction": "delivery", "percent": 75.43, "ok": False}


def test_frame_has_the_contract_columns_in_order():
    frame = parse_tpcc_log(fixture_log("16k-w1-c4")).to_frame()
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 6 and frame["t_s"].tolist() == [10, 20, 30, 40, 50, 60]


def test_password_is_never_kept():
    text = fixture_log("4k-w1-c4")
    text = text.replace("option p with value ''", "option p with value 'hunter2-secret'")
    text = text.replace("[pass]: ", "[pass]: hunter2-secret")
    result = parse_tpcc_log(text)
    assert "hunter2" not in repr((result.rows, result.meta, result.warnings))
    assert "pass" not in result.meta and "password" not in result.meta


def test_log_cut_off_mid_run():
    lines = fixture_log("4k-w1-c4").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.startswith("  30, trx"))
    result = parse_tpcc_log("".join(lines[: cut + 1]))
    assert [row["t_s"] for row in result.rows] == [10, 20, 30]
    assert result.meta["tpmc"] is None
    assert any("log ends before <TpmC>" in warning for warning in result.warnings)
    assert all(warning.startswith("line ") for warning in result.warnings)


def test_line_cut_in_the_middle_keeps_what_it_has_and_says_so():
    text = fixture_log("4k-w1-c4")
    cut = text.index("187|79.165, 187|77.656") + 4
    result = parse_tpcc_log(text[:cut])
    last = result.rows[-1]
    assert last["t_s"] == 10 and last["order_status"] == 187 and last["stock_level"] is None
    assert any("3 of 5 transaction types" in warning for warning in result.warnings)
    assert any("may be cut off" in warning for warning in result.warnings)


def test_older_tpcc_mysql_format():
    # "  10, 27(0):3.829|7.321, 26(0):1.854|4.399, 3(0):1.503|1.670, 3(0):4.467|5.559, 3(0):14.525|20.229"
    result = parse_tpcc_log((SAMPLES_DIR / "tpcc_old_format_tutorial.log").read_text())
    assert len(result.rows) == 12 and not result.warnings
    first = result.rows[0]
    assert first["new_order"] == 27 and first["new_order_late"] == 0
    assert first["new_order_p95_ms"] is None and first["new_order_p99_ms"] is None
    assert first["new_order_p90_ms"] == 3829.0 and first["new_order_max_ms"] == 7321.0  # seconds in the log
    assert first["stock_level"] == 3 and first["stock_level_max_ms"] == 20229.0
    assert result.rows[4]["new_order_late"] == 1  # "  50, 32(1):4.377|5.695"
    assert result.meta["interval_format"] == OLD_FORMAT
    assert result.meta["tpmc"] == 188.0
    assert "s3cret" not in repr((result.rows, result.meta, result.warnings))


def test_sleep_only_build_prints_rt90_without_max():
    result = parse_tpcc_log("  10, 100(2):0.52, 98(0):0.21, 10(0):0.10, 10(0):1.20, 9(1):3.00\n")
    row = result.rows[0]
    assert row["new_order"] == 100 and row["new_order_late"] == 2 and row["new_order_p90_ms"] == 520.0
    assert row["new_order_max_ms"] is None and row["stock_level_late"] == 1


def test_variants_without_percent_signs_and_with_a_phase():
    text = (
        "   2, trx: 835, 95: 8.718, 99: 11.264, max_rt: 30.411, 836|47.925, 83|31.1, 84|50.2, 83|12.5\n"
        "  10, measure, trx: 10, 95%: 1.5, 99%: 2.5, max rt: 3.5, 11|4.5, 1|5.5, 1|6.5, 1|7.5\n"
    )
    first, second = parse_tpcc_log(text).rows
    assert (first["new_order_p95_ms"], first["new_order_p99_ms"], first["payment"]) == (8.718, 11.264, 836)
    assert (
        second["phase"] == "measure"
        and second["new_order_max_ms"] == 3.5
        and second["stock_level_max_ms"] == 7.5
    )


def test_extended_lines_with_more_percentiles_and_unknown_fields():
    line = "  10, trx: 1869, 95%: 19.7, 99%: 30.2, max_rt: 126.2, 1872|93.2|20.1|31.7, 187|9.7|2.5|4.0, 187|79.1, 187|77.6, queue: 3\n"
    result = parse_tpcc_log(line)
    row = result.rows[0]
    assert (
        row["payment_p95_ms"] == 20.1 and row["payment_p99_ms"] == 31.7 and row["order_status_p99_ms"] == 4.0
    )
    assert row["delivery_max_ms"] == 79.1 and "delivery_p95_ms" not in row
    assert any("line 1: ignored 1 field(s)" in warning and "queue" in warning for warning in result.warnings)


def test_seed_002_interval_at_100_s():
    by_page = dict(seed_tpcc_texts(seed_text()))
    result = parse_tpcc_log(by_page[4])
    first = result.rows[0]
    # "100, trx: 605, 95%: 134.073, 99%: 275.419, max_rt: 376.028, 605|329.127, 60|71.322, 61|635.522, 61|528.049"
    assert (first["t_s"], first["new_order"], first["new_order_p95_ms"], first["stock_level_max_ms"]) == (
        100,
        605,
        134.073,
        528.049,
    )
    assert result.meta["tpmc"] == 3517.6
    sixteen = parse_tpcc_log(by_page[16])
    assert sixteen.rows[2]["new_order_max_ms"] == 587.743  # printed as "max rt: 587.743" in the report


@pytest.mark.parametrize("text", ["", "   \n\n", "hello world\nnothing to see\n", "{}"])
def test_nothing_readable_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_tpcc_log(text)


def test_bytes_are_accepted():
    assert parse_tpcc_log(fixture_log("4k-w1-c4").encode()).meta["tpmc"] == 11688.0


def test_the_loaders_log_is_refused_with_what_to_give_instead():
    """tpcc_load's log shares the option echo and <Parameters> with tpcc_start's; parsed as a run it
    used to give a header row and two warnings, with exit 0."""
    text = (FIXTURES_DIR / "mariadb-10.11" / "4k-w1-c4" / "tpcc_load.log").read_text()
    with pytest.raises(ParseError, match=r"tpcc_load's log \(line 2: 'TPCC-mysql Data Loader'\).*tpcc_start"):
        parse_tpcc_log(text)
