"""iostat parser: sysstat text of several generations, JSON, units, timestamps, damage."""

from __future__ import annotations

import pytest
from golden_cases import CAPTURED_DIR, FIXTURES_DIR, SAMPLES_DIR, seed_iostat_tables, seed_text
from pagelab.common.errors import ParseError
from pagelab.parse import parse_iostat
from pagelab.parse.iostat import COLUMNS

RUN_IOSTAT = FIXTURES_DIR / "mariadb-10.11" / "4k-w1-c4" / "iostat.txt"
JSON_FIXTURE = FIXTURES_DIR / "iostat-json" / "iostat_fio_randread.json"


def test_sysstat_12_text_with_timestamps():
    result = parse_iostat(RUN_IOSTAT.read_text())
    assert len(result.rows) == 7 and result.meta["samples"] == 7 and not result.warnings
    first = result.rows[0]
    # "vda  1604.70  6427.60  0.80  0.05  0.09  4.01 3202.60  15739.20 ... 0.74  23.96" at 11/21/26 13:59:29
    assert first["timestamp"] == "2026-11-21T13:59:29" and first["sample"] == 0 and first["device"] == "vda"
    assert (first["r_s"], first["rkb_s"], first["rareq_kb"], first["r_await_ms"]) == (
        1604.7,
        6427.6,
        4.01,
        0.09,
    )
    assert (first["w_s"], first["wkb_s"], first["wareq_kb"], first["w_await_ms"]) == (
        3202.6,
        15739.2,
        4.91,
        0.17,
    )
    assert (first["aqu_sz"], first["util_pct"]) == (0.74, 23.96)
    assert result.meta["column_set"] == "sysstat 12 (-x)" and result.meta["cpus"] == 2
    assert list(result.to_frame().columns[: len(COLUMNS)]) == list(COLUMNS)


def test_json_fixture():
    result = parse_iostat(JSON_FIXTURE.read_text())
    assert len(result.rows) == 10 and result.meta["format"] == "json"
    first = result.rows[0]
    # {"disk_device": "vda", "r/s": 11049.00, ..., "rkB/s": 66286.00, ..., "aqu-sz": 0.86, "util": 62.60}
    assert (first["timestamp"], first["r_s"], first["rkb_s"], first["util_pct"]) == (
        "2026-11-21T14:15:02",
        11049.0,
        66286.0,
        62.6,
    )
    assert first["rrqm_pct"] == 0.04  # JSON "rrqm" is the text's %rrqm


def test_json_and_text_of_the_same_tool_agree_on_names():
    text = parse_iostat((CAPTURED_DIR / "iostat_s12_dxyt.txt").read_text())
    json_result = parse_iostat((CAPTURED_DIR / "iostat_s12_dxyt.json").read_text())
    assert set(text.column_names()) == set(json_result.column_names())


def test_megabytes_become_kilobytes():
    result = parse_iostat((CAPTURED_DIR / "iostat_s12_dxytm.txt").read_text())
    # "vda  12.00  0.16 ... 5401.00  337.56" -> 0.16 MB/s = 163.84 kB/s, 337.56 MB/s = 345661.44 kB/s
    assert (result.rows[0]["rkb_s"], result.rows[0]["wkb_s"]) == (163.84, 345661.44)


def test_sysstat_10_average_request_size_is_in_sectors():
    result = parse_iostat((SAMPLES_DIR / "iostat_sysstat10_xy_azure.txt").read_text())
    sda = next(row for row in result.rows if row["device"] == "sda")
    # "sda  0.00  56.00  0.00  65.00  0.00  504.00  15.51  0.01  3.02  0.00  3.02  0.12  0.80"
    assert sda["avgrq_kb"] == 7.755 and sda["rareq_kb"] is None and sda["wareq_kb"] is None
    assert (sda["w_s"], sda["wkb_s"], sda["aqu_sz"], sda["w_await_ms"], sda["svctm_ms"], sda["util_pct"]) == (
        65.0,
        504.0,
        0.01,
        3.02,
        0.12,
        0.8,
    )
    assert result.meta["column_set"] == "sysstat 10 (-x)" and result.meta["date"] == "2020-02-10"
    assert [row["device"] for row in result.rows] == ["loop0", "sdb", "sda", "scd0"]  # avg-cpu skipped


def test_sysstat_9_has_no_split_awaits():
    result = parse_iostat((SAMPLES_DIR / "iostat_sysstat9_xdm_centos6.txt").read_text())
    assert result.rows[0]["r_await_ms"] is None and result.rows[0]["await_ms"] == 1.63
    assert result.rows[0]["wkb_s"] == 20.48  # "0.02" MB/s
    assert result.meta["column_set"] == "sysstat 9 or older (-x)"


def test_decimal_commas():
    result = parse_iostat((SAMPLES_DIR / "iostat_sysstat10_xdmz_decimal_comma.txt").read_text())
    sda = result.rows[1]
    assert (sda["device"], sda["r_s"], sda["rkb_s"], sda["avgrq_kb"]) == ("sda", 56.27, 1280.0, 28.335)
    assert result.meta["samples"] == 3 and len(result.rows) == 3  # the last report had no busy device


def test_sysstat_11_column_order():
    result = parse_iostat((SAMPLES_DIR / "iostat_sysstat11_xd_rhel8.txt").read_text())
    last = result.rows[-1]
    # "vda  0.00   37.00  0.00  395.50  0.00  10.00  0.00  21.28  0.00  0.92  0.03  0.00  10.69  0.11  0.40"
    assert (
        last["w_s"],
        last["wkb_s"],
        last["w_await_ms"],
        last["aqu_sz"],
        last["wareq_kb"],
        last["util_pct"],
    ) == (37.0, 395.5, 0.92, 0.03, 10.69, 0.4)


def test_seed_002_hand_copied_tables():
    tables = seed_iostat_tables(seed_text())
    assert len(tables) == 12
    page_kb, progress, table = tables[0]
    sda = next(row for row in parse_iostat(table).rows if row["device"] == "sda")
    # "sda	265.00	1.04	0.00	0.00	0.94	4.00	264.00"
    assert (page_kb, progress) == (4, 100)
    assert (sda["r_s"], sda["rkb_s"], sda["r_await_ms"], sda["rareq_kb"], sda["w_s"]) == (
        265.0,
        1064.96,
        0.94,
        4.0,
        264.0,
    )
    broken = parse_iostat(tables[7][2])  # 8KB at 1100 s: the w/s column became "1150, t"
    assert all(row.get("w_s") is None for row in broken.rows)
    assert broken.warnings == ["line 1: skipped column(s) this parser does not know: '1150, t'"]


def test_timestamps_in_other_locales():
    text = (
        "Linux 5.4.0 (host) \t21/11/2026 \t_x86_64_\t(4 CPU)\n\n"
        "21/11/2026 01:59:29 PM\n"
        "Device            r/s     w/s\n"
        "sda              1,00    2,00\n"
    )
    row = parse_iostat(text).rows[0]
    assert row["timestamp"] == "2026-11-21T13:59:29" and (row["r_s"], row["w_s"]) == (1.0, 2.0)


def test_basic_report_without_x():
    text = (
        "Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n"
        "vda              12.47         1.14       126.37   73868138 8190705216\n"
    )
    result = parse_iostat(text)
    row = result.rows[0]
    assert (row["tps"], row["rkb_s"], row["wkb_s"], row["written_kb"]) == (12.47, 1.14, 126.37, 8190705216.0)
    assert row["r_s"] is None and result.meta["column_set"] == "basic report (no -x)"


def test_device_name_last_as_with_pretty_output():
    text = "      tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn Device\n    64.00       288.00       308.00     288     308 vda\n"
    row = parse_iostat(text).rows[0]
    assert row["device"] == "vda" and row["rkb_s"] == 288.0


def test_json_cut_off_mid_run():
    text = JSON_FIXTURE.read_text()
    cut = text.index('"timestamp": "11/21/26 14:15:10"') + 200  # inside the fifth sample's device entry
    result = parse_iostat(text[:cut])
    assert [row["timestamp"] for row in result.rows] == [
        "2026-11-21T14:15:02", "2026-11-21T14:15:04", "2026-11-21T14:15:06", "2026-11-21T14:15:08",
    ]  # fmt: skip
    assert result.rows[3]["rkb_s"] == 178064.0
    assert any("JSON is not complete" in warning for warning in result.warnings)


def test_short_device_line_is_read_with_a_warning():
    text = "Device            r/s     w/s   rkB/s\nvda              1.00    2.00\n"
    result = parse_iostat(text)
    assert result.rows[0]["w_s"] == 2.0 and result.rows[0]["rkb_s"] is None
    assert result.warnings == ["line 2: vda: 2 values for 3 columns"]


@pytest.mark.parametrize(
    "text", ["", "Linux 6.1 (vm) 01/01/26 _x86_64_ (2 CPU)\n", "{", '{"sysstat": {"hosts": []}}']
)
def test_nothing_readable_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_iostat(text)


def test_a_value_cut_at_the_end_of_the_text_is_not_read():
    text = RUN_IOSTAT.read_text()
    result = parse_iostat(text[: text.index("0.74  23.96") + len("0.74  23.9")])  # first sample's %util
    assert len(result.rows) == 1
    assert result.rows[0]["util_pct"] is None and result.rows[0]["aqu_sz"] == 0.74  # not 23.9
