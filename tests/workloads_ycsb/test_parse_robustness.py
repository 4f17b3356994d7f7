"""parse_ycsb on damaged text: a cut removes figures but never changes one, and junk never crashes it
(the same properties tests/parse checks for the other parsers)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pagelab.common.errors import ParseError
from pagelab.parse import ParseResult, parse_ycsb
from tests.conftest import REPO_ROOT, SEEDS

SAMPLES = REPO_ROOT / "tests" / "golden" / "samples"
TEXTS = [
    (SAMPLES / "ycsb_0.17_hdr_mongodb_workloadb.txt").read_text(),
    (SAMPLES / "ycsb_histogram_cloudspanner_spec.txt").read_text(),
    (SEEDS / "000_1832ec65f899bf01.txt").read_text(),
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


@SETTINGS
@given(text=st.sampled_from(TEXTS), junk=st.text(min_size=1, max_size=40), where=st.floats(0, 1))
def test_junk_anywhere_is_survived(text, junk, where):
    at = int(len(text) * where)
    parse_or_refuse(text[:at] + junk + text[at:])
