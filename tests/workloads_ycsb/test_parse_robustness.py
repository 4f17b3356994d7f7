"""parse_ycsb on damaged text: a cut removes figures but never changes one, and junk never crashes it
(the same properties tests/parse checks for the other parsers)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pagelab.common.errors import ParseError
from pagelab.parse import ParseResult, parse_ycsb
from tests.conftest import REPO_ROOT, SOURCES

SAMPLES = REPO_ROOT / "tests" / "golden" / "samples"
TEXTS = [
    (SAMPLES / "ycsb_0.17_hdr_mongodb_workloadb.txt").read_text(),
    (SAMPLES / "ycsb_histogram_cloudspanner_spec.txt").read_text(),
    (SOURCES / "orientdb-page-size-proposal.txt").read_text(),
    "[OVERALL], RunTime(ms), 1718\n[OVERALL], Throughput(ops/sec), 1746.2165308498254\n"
    "[READ], Operations, 1542\n[READ], AverageLatency(us), 216.17315175097275\n[READ], MinLatency(us), 12\n"
    "[READ], MaxLatency(us), 5575\n[READ], 95thPercentileLatency(us), 444\n[READ], 99thPercentileLatency(us), 1156\n"
    "[READ], Return=OK, 1542\n[UPDATE], Operations, 1458\n[UPDATE], AverageLatency(us), 889.1124828532236\n"
    "[UPDATE], MinLatency(us), 332\n[UPDATE], MaxLatency(us), 25613\n[UPDATE], 95thPercentileLatency(us), 1504\n"
    "[UPDATE], 99thPercentileLatency(us), 4045\n[UPDATE], Return=OK, 1458\n",
]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse_or_refuse(text: str) -> ParseResult | None:
    try:
        result = parse_ycsb(text)
    except ParseError:
        return None
    assert all(isinstance(warning, str) for warning in result.warnings)
    assert len(result.to_frame()) == len(result.rows)
    return result


@SETTINGS
@given(data=st.data())
def test_a_cut_removes_values_but_never_changes_one(data):
    full_text = data.draw(st.sampled_from(TEXTS))
    full = {(row["run"], row["operation"]): row for row in parse_ycsb(full_text).rows}
    cut = parse_or_refuse(full_text[: data.draw(st.integers(0, len(full_text)))])
    if cut is None:
        return
    for row in cut.rows:
        reference = full[(row["run"], row["operation"])]
        changed = {column: (value, reference.get(column)) for column, value in row.items()
                   if value is not None and value != reference.get(column)}
        assert not changed, changed


# A line of prose: letters, digits, spaces and punctuation, but none of the brackets and commas of
# YCSB's "[OPERATION], Measure, value" lines, and no line break.
PROSE = st.text(st.characters(whitelist_categories=("L", "N", "Zs", "Pd", "Po"), blacklist_characters="[],\x85"),
                min_size=1, max_size=40)


@SETTINGS
@given(text=st.sampled_from(TEXTS), junk=PROSE, where=st.floats(0, 1))
def test_a_line_of_prose_between_two_lines_changes_no_figure(text, junk, where):
    """YCSB's output is read line by line, and a run's block is its run of "[...]" lines: a foreign
    line where a block already ends (a log message, a note pasted in) is not a figure, and every row
    and value stays what the whole text gives. (Inside a block it would split the run in two.)"""
    lines = text.splitlines(keepends=True)
    outside_blocks = [at for at in range(len(lines) + 1)
                      if not (0 < at < len(lines) and lines[at - 1].startswith("[") and lines[at].startswith("["))]
    at = outside_blocks[int((len(outside_blocks) - 1) * where)]
    damaged = parse_or_refuse("".join(lines[:at] + [junk + "\n"] + lines[at:]))
    assert damaged is not None, "a line of prose made the text unreadable"
    assert damaged.rows == parse_ycsb(text).rows


@SETTINGS
@given(text=st.sampled_from(TEXTS), junk=st.text(min_size=1, max_size=40), where=st.floats(0, 1))
def test_junk_anywhere_is_refused_or_read_into_numbers(text, junk, where):
    """Junk inside a line may cost that figure, but what is read is still a number or missing."""
    at = int(len(text) * where)
    damaged = parse_or_refuse(text[:at] + junk + text[at:])
    if damaged is None:
        return
    for row in damaged.rows:
        for column, value in row.items():
            if column not in ("run", "operation", "workload", "source") and value is not None:
                assert isinstance(value, (int, float)) and not isinstance(value, bool), (column, value)
