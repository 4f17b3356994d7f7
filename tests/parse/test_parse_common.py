"""What all parsers share: the result type, numbers, the CLI table."""

from __future__ import annotations

import pytest
from pagelab.common.errors import ParseError
from pagelab.parse import PARSERS, ParseResult, parse_fio, parse_innodb_status, parse_iostat, parse_tpcc_log, parse_ycsb
from pagelab.parse.common import excerpt, to_number


def test_cli_names():
    assert PARSERS == {
        "tpcc-log": parse_tpcc_log,
        "innodb-status": parse_innodb_status,
        "iostat": parse_iostat,
        "fio": parse_fio,
        "ycsb": parse_ycsb,
    }


def test_frame_puts_contract_columns_first_even_when_empty():
    result = ParseResult(rows=[{"b": 2, "extra": 1}, {"late": 3}], columns=("a", "b"))
    frame = result.to_frame()
    assert list(frame.columns) == ["a", "b", "extra", "late"]
    assert frame["a"].isna().all() and frame.loc[0, "b"] == 2
    assert list(ParseResult(columns=("a", "b")).to_frame().columns) == ["a", "b"]


@pytest.mark.parametrize(
    "token,value",
    [("12", 12), ("-3", -3), ("0.50", 0.5), ("0,50", 0.5), (".5", 0.5), ("1e3", 1000.0),
     ("-nan", None), ("", None), ("12a", None), ("9" * 500, None), (None, None)],
)  # fmt: skip
def test_numbers(token, value):
    assert to_number(token) == value


def test_excerpts_hide_anything_like_a_password():
    assert "hunter2" not in excerpt("       [pass]: hunter2")
    assert "hunter2" not in excerpt("option p with value 'hunter2'")
    assert excerpt("  10, trx: 1") == "'10, trx: 1'"


@pytest.mark.parametrize("parser", list(PARSERS.values()))
@pytest.mark.parametrize("value", [None, 42, ["a"]])
def test_non_text_input_is_a_parse_error(parser, value):
    with pytest.raises(ParseError):
        parser(value)
