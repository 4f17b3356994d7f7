"""pagelab's log writer against a real tpcc_start log: line for line the same shapes, and it parses back."""

from __future__ import annotations

import re

import pytest

from pagelab.common.transactions import TransactionKind
from pagelab.parse import parse_tpcc_log
from pagelab.tpcc import logformat
from pagelab.tpcc.stats import DEFAULT_RESPONSE_LIMITS_MS, IntervalSample, measurement_totals, tpmc

INTERVAL_S, MEASURE_S = 10, 60


def written_log() -> tuple[str, list[IntervalSample]]:
    """A 6-interval log from the writer, with latencies drawn so that some are late."""
    intervals = []
    for index in range(MEASURE_S // INTERVAL_S):
        sample = IntervalSample()
        for kind in TransactionKind:
            count = 2000 if kind in (TransactionKind.NEW_ORDER, TransactionKind.PAYMENT) else 200
            for n in range(count + index):
                sample.record(int(kind), 1.0 + 997.3 * n / count * (1 + index) + 0.125 * int(kind), 0, n == 3)
        intervals.append(sample)
    totals = measurement_totals(intervals, DEFAULT_RESPONSE_LIMITS_MS)
    text = (logformat.header("127.0.0.1", 13400, "tpcc", "root", 1, 4, 10, MEASURE_S, INTERVAL_S, 1, "pagelab",
                             "statements")
            + logformat.rampup_banner(10) + logformat.measuring_banner()
            + "".join(logformat.interval_line((i + 1) * INTERVAL_S, s) for i, s in enumerate(intervals))
            + logformat.stopping_banner()
            + logformat.footer(totals, DEFAULT_RESPONSE_LIMITS_MS, MEASURE_S, tpmc(totals, MEASURE_S)))
    return text, intervals


def shapes(text: str) -> list[str]:
    """Each line with every number as '9': the layout without the values."""
    return [re.sub(r"\d+", "9", line) for line in text.splitlines()]


def test_the_body_has_tpcc_starts_layout_line_for_line(fixtures_dir):
    real = (fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log").read_text()
    ours, _ = written_log()
    start = "RAMP-UP TIME.(9 sec.)"
    real_body, our_body = shapes(real), shapes(ours)
    real_body, our_body = real_body[real_body.index(start):], our_body[our_body.index(start):]
    # The verdicts differ with the numbers ([OK] / [NG] *); everything else is the same layout.
    def without_verdicts(lines: list[str]) -> list[str]:
        return [re.sub(r"\s*\[(OK|NG)\]( \*)?$", "", line) for line in lines]

    assert without_verdicts(our_body) == without_verdicts(real_body)


def test_the_header_is_tpcc_starts_without_the_password_and_with_pagelabs_additions(fixtures_dir):
    real = shapes((fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log").read_text())
    ours = shapes(written_log()[0])
    real_header = real[:real.index("RAMP-UP TIME.(9 sec.)")]
    our_header = ours[:ours.index("RAMP-UP TIME.(9 sec.)")]
    password_lines = {"option p with value ''", "       [pass]: "}
    additions = {"       [seed]: 9", "     [driver]: pagelab", "       [mode]: statements"}
    assert [line for line in real_header if line not in password_lines] == \
        [line for line in our_header if line not in additions]
    assert "[mode]: statements" in written_log()[0]


def test_the_written_log_parses_back_to_what_was_written():
    text, intervals = written_log()
    parsed = parse_tpcc_log(text)
    assert parsed.warnings == []
    assert [row["new_order"] for row in parsed.rows] == [s.count(int(TransactionKind.NEW_ORDER)) for s in intervals]
    totals = measurement_totals(intervals, DEFAULT_RESPONSE_LIMITS_MS)
    assert parsed.meta["tpmc"] == pytest.approx(tpmc(totals, MEASURE_S))
    raw = {row["index"]: row for row in parsed.meta["raw_results"]}
    for kind in TransactionKind:
        assert raw[int(kind)]["sc"] == totals[int(kind)].success
        assert raw[int(kind)]["lt"] == totals[int(kind)].late
    assert totals[int(TransactionKind.NEW_ORDER)].late > 0, "the case must have late transactions"
