"""Damaged input: whatever happens to a real capture, a parser returns a result or raises ParseError.

Truncation anywhere, slices replaced with junk, lines dropped, repeated or swapped, bytes flipped.
Nothing else may escape: no IndexError from a short line, no ValueError from a half number, no
RecursionError from broken JSON, and the frame must still build.
"""

from __future__ import annotations

import pytest
from golden_cases import (
    CAPTURED_DIR,
    FIXTURES_DIR,
    SAMPLES_DIR,
    seed_innodb_snapshots,
    seed_iostat_tables,
    seed_text,
    seed_tpcc_texts,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pagelab.common.errors import ParseError
from pagelab.parse import PARSERS, ParseResult

SECRET = "hunter2-secret"
MARIADB = FIXTURES_DIR / "mariadb-10.11"


def _tpcc_texts() -> list[str]:
    with_password = (MARIADB / "4k-w1-c4" / "tpcc_start.log").read_text()
    with_password = with_password.replace("option p with value ''", f"option p with value '{SECRET}'")
    with_password = with_password.replace("[pass]: ", f"[pass]: {SECRET}")
    return [
        with_password,
        (SAMPLES_DIR / "tpcc_old_format_tutorial.log").read_text(),
        seed_tpcc_texts(seed_text())[1][1],
    ]


TEXTS = {
    "tpcc-log": _tpcc_texts(),
    "innodb-status": [
        sorted((MARIADB / "16k-w1-c4" / "innodb").glob("*.txt"))[0].read_text(),
        (SAMPLES_DIR / "innodb_mysql-5.7_manual_example.txt").read_text(),
        seed_innodb_snapshots(seed_text())[5][2],
    ],
    "iostat": [
        (MARIADB / "4k-w1-c4" / "iostat.txt").read_text(),
        (CAPTURED_DIR / "iostat_s12_dxyt.json").read_text(),
        (CAPTURED_DIR / "iostat_s12_xt_with_cpu.txt").read_text(),
        (SAMPLES_DIR / "iostat_sysstat10_xdmz_decimal_comma.txt").read_text(),
        seed_iostat_tables(seed_text())[7][2],
    ],
    "fio": [
        (FIXTURES_DIR / "fio" / "randread_qd1_4k.json").read_text(),
        (SAMPLES_DIR / "fio_2.2.10_randwrite_doc.json").read_text(),
    ],
}

JUNK = st.text(alphabet="0123456789.,:|%/-_ ()[]{}\"'\t\nabcxyzTRXNG", max_size=40)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def truncated(draw, texts):
    text = draw(st.sampled_from(texts))
    return text[: draw(st.integers(0, len(text)))]


@st.composite
def damaged(draw, texts):
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "drop_lines", "repeat_line", "swap_lines", "flip_bytes"]))
        lines = text.splitlines(keepends=True) or [""]
        at = draw(st.integers(0, len(lines) - 1))
        if kind == "replace":
            start = draw(st.integers(0, len(text)))
            end = draw(st.integers(start, min(len(text), start + 200)))
            text = text[:start] + draw(JUNK) + text[end:]
        elif kind == "drop_lines":
            text = "".join(lines[:at] + lines[at + draw(st.integers(1, 10)) :])
        elif kind == "repeat_line":
            text = "".join(lines[: at + 1] + [lines[at]] * draw(st.integers(1, 3)) + lines[at + 1 :])
        elif kind == "swap_lines":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
            text = "".join(lines)
        else:
            raw = bytearray(text.encode())
            for _ in range(draw(st.integers(1, 8))):
                if raw:
                    raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
            text = raw.decode("utf-8", errors="replace")
    return text


def parse_or_refuse(parser_name: str, text: str) -> ParseResult | None:
    try:
        result = PARSERS[parser_name](text)
    except ParseError:
        return None
    assert isinstance(result, ParseResult)
    assert all(isinstance(warning, str) for warning in result.warnings)
    assert len(result.to_frame()) == len(result.rows)
    return result


@pytest.mark.parametrize("parser_name", sorted(TEXTS))
def test_truncated_anywhere(parser_name):
    @SETTINGS
    @given(text=truncated(TEXTS[parser_name]))
    def check(text):
        result = parse_or_refuse(parser_name, text)
        if result is not None and parser_name == "tpcc-log":
            assert SECRET[:4] not in repr((result.rows, result.meta, result.warnings))

    check()


@pytest.mark.parametrize("parser_name", sorted(TEXTS))
def test_damaged_anywhere(parser_name):
    """Damaged text is refused, or gives rows in the contract of its kind: the whole text's
    contract columns, every one of them in every row and first in the frame, and each holding
    values of one type (or missing) all the way down, never a number in one row and text in another."""
    contracts = [PARSERS[parser_name](text).columns for text in TEXTS[parser_name]]

    @SETTINGS
    @given(data=st.data())
    def check(data):
        which = data.draw(st.integers(0, len(TEXTS[parser_name]) - 1))
        result = parse_or_refuse(parser_name, data.draw(damaged([TEXTS[parser_name][which]])))
        if result is None:
            return
        assert result.columns == contracts[which] and contracts[which], "the contract's columns changed"
        assert list(result.to_frame().columns[: len(result.columns)]) == list(result.columns)
        for index, row in enumerate(result.rows):
            missing = set(result.columns) - row.keys()
            assert not missing, f"row {index} lacks contract columns {missing}"
        kinds = {column: {type(row[column]) for row in result.rows} - {type(None)} for column in result.columns}
        mixed = {column: found for column, found in kinds.items() if len(found) > 1 and found != {int, float}}
        assert not mixed, f"columns holding values of different types: {mixed}"

    check()


@pytest.mark.parametrize("parser_name", sorted(TEXTS))
def test_every_cut_of_the_first_text_at_line_ends(parser_name):
    """Deterministic companion to the random cuts: each line boundary, and mid-line; every value
    read from the cut text is the whole text's, and a cut at a line end loses no row before it."""
    text = TEXTS[parser_name][0]
    full = PARSERS[parser_name](text)
    offsets = [index for index, char in enumerate(text) if char == "\n"]
    for offset in offsets[:: max(1, len(offsets) // 60)]:
        for end in (offset + 1, max(0, offset - 3)):
            cut = parse_or_refuse(parser_name, text[:end])
            if cut is not None:
                assert_cut_agrees(parser_name, full, cut)
    whole_again = parse_or_refuse(parser_name, text[: offsets[-1] + 1] + text[offsets[-1] + 1:])
    assert whole_again is not None and whole_again.rows == full.rows


def assert_cut_agrees(parser_name: str, full: ParseResult, cut: ParseResult) -> None:
    """Every row of `cut` is a row of `full` with its values unchanged (or missing), and so are the header facts."""
    key_of = ROW_KEYS[parser_name]
    whole_rows = {key_of(index, row): row for index, row in enumerate(full.rows)}
    for index, row in enumerate(cut.rows):
        key = key_of(index, row)
        assert key in whole_rows, f"row {index} ({key}) is not in the whole text's parse"
        reference = whole_rows[key]
        changed = {
            column: (value, reference.get(column))
            for column, value in row.items()
            if value is not None and value != reference.get(column)
        }
        assert not changed, f"row {index}: (cut, whole) = {changed}"
    for fact in HEADER_FACTS:
        if cut.meta.get(fact) is not None:
            assert cut.meta[fact] == full.meta[fact], fact


# What identifies "the same row" in a full and a truncated parse of one text.
ROW_KEYS = {
    "tpcc-log": lambda index, row: row["t_s"],
    "innodb-status": lambda index, row: index,
    "iostat": lambda index, row: (row["sample"], row["device"]),
    "fio": lambda index, row: row["jobname"],
}
HEADER_FACTS = ("server", "port", "dbname", "user", "warehouses", "connections", "rampup_s", "measure_s")


@pytest.mark.parametrize("parser_name", sorted(TEXTS))
def test_a_cut_removes_values_but_never_changes_one(parser_name):
    """A log cut off mid-number must not turn 1016 into 10: every value read from a truncated
    text is the value the whole text gives, or missing."""
    parser = PARSERS[parser_name]

    @SETTINGS
    @given(data=st.data())
    def check(data):
        full_text = data.draw(st.sampled_from(TEXTS[parser_name]))
        full = parser(full_text)
        cut = parse_or_refuse(parser_name, full_text[: data.draw(st.integers(0, len(full_text)))])
        if cut is None:
            return
        assert_cut_agrees(parser_name, full, cut)

    check()
