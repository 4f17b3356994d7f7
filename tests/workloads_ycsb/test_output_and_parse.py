"""Latency histograms, YCSB's text format, and `parse_ycsb` on our output and on OrientDB's proposal's."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from pagelab.common.errors import ParseError
from pagelab.parse import PARSERS, parse_ycsb
from pagelab.workloads.ycsb import LOAD, WORKLOADS, LatencyHistogram, PhaseResult, java_double, tidy_rows, ycsb_text
from pagelab.workloads.ycsb.histogram import bucket_of, bucket_range
from tests.conftest import REPO_ROOT, SOURCES

FIGURES = ["operations", "average_latency_us", "min_latency_us", "max_latency_us", "p95_latency_us",
           "p99_latency_us", "throughput_ops_s", "runtime_ms", "return_ok"]


def same(mine, read_back) -> bool:
    return bool(pd.isna(mine) and pd.isna(read_back)) or (not pd.isna(read_back) and mine == read_back)


def assert_parses_back(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    """Every figure of our tidy rows equals what parse_ycsb reads from our text (YCSB prints no
    operation count for OVERALL: that one is compared as the sum of the operations' own)."""
    ours, theirs = ours.reset_index(drop=True), theirs.reset_index(drop=True)
    assert list(theirs["operation"]) == list(ours["operation"])
    for figure in FIGURES:
        for index, (mine, read_back) in enumerate(zip(ours[figure], theirs[figure])):
            if figure == "operations" and ours["operation"][index] == "OVERALL":
                assert pd.isna(read_back)
                continue
            assert same(mine, read_back), (figure, ours["operation"][index], mine, read_back)


def exact_percentile(values, percent):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(percent / 100 * len(ordered))) - 1]


def test_histogram_is_exact_below_2048_us():
    values = [random.Random(1).randrange(1, 2048) for _ in range(5000)]
    histogram = LatencyHistogram()
    histogram.record_all(values)
    assert histogram.count == 5000 and histogram.total == sum(values)
    assert (histogram.min, histogram.max) == (min(values), max(values))
    for percent in (50, 95, 99, 99.9):
        assert histogram.percentile(percent) == exact_percentile(values, percent)


def test_histogram_keeps_three_significant_digits_above():
    rng = random.Random(2)
    values = [int(rng.lognormvariate(9, 1.5)) + 2048 for _ in range(5000)]
    histogram = LatencyHistogram()
    histogram.record_all(values)
    for percent in (95, 99):
        exact = exact_percentile(values, percent)
        assert exact <= histogram.percentile(percent) <= exact * 1.001
    assert histogram.max == max(values) and histogram.mean == pytest.approx(sum(values) / len(values))
    for value in (2048, 4095, 4096, 72191, 10**7):
        low, high = bucket_range(bucket_of(value))
        assert low <= value <= high and (high - low) <= value / 1000


def test_histograms_merge_and_travel_as_if_recorded_in_one():
    rng = random.Random(3)
    parts = [[rng.randrange(1, 100_000) for _ in range(1000)] for _ in range(3)]
    merged, whole = LatencyHistogram(), LatencyHistogram()
    for part in parts:
        piece = LatencyHistogram()
        piece.record_all(part)
        merged.merge(LatencyHistogram.from_wire(piece.to_wire()))
        whole.record_all(part)
    assert merged.summary() == whole.summary()


@pytest.mark.parametrize("value,text", [
    (4182.493150684932, "4182.493150684932"), (100.0, "100.0"), (12345678.9, "1.23456789E7"),
    (1.2098756170999897e10, "1.2098756170999897E10"), (0.0005, "5.0E-4"), (0.001, "0.001"), (0.0, "0.0"),
])  # fmt: skip
def test_doubles_print_as_java_prints_them(value, text):
    assert java_double(value) == text


def synthetic_result() -> PhaseResult:
    rng = random.Random(4)
    read, update, failed = LatencyHistogram(), LatencyHistogram(), LatencyHistogram()
    read.record_all(rng.randrange(20, 9000) for _ in range(950))
    update.record_all(rng.randrange(40, 90000) for _ in range(48))
    failed.record_all([70, 80])
    return PhaseResult(workload=WORKLOADS["b"], runtime_ms=1234, operations=1000,
                       histograms={"READ": read, "UPDATE": update, "UPDATE-FAILED": failed},
                       statuses={"READ": {"OK": 950}, "UPDATE": {"OK": 48, "NOT_FOUND": 2}},
                       threads=2, parallelism="processes", client="c-extension", client_cpu_s=0.5)


def test_our_text_is_ycsbs_format_and_parses_back_to_the_same_numbers():
    result = synthetic_result()
    text = ycsb_text(result)
    lines = text.splitlines()
    assert lines[0] == "[OVERALL], RunTime(ms), 1234"
    assert lines[1] == f"[OVERALL], Throughput(ops/sec), {1000 * 1000 / 1234!r}"
    assert lines[2:9] == [
        "[READ], Operations, 950",
        f"[READ], AverageLatency(us), {result.histograms['READ'].mean!r}",
        f"[READ], MinLatency(us), {result.histograms['READ'].min}",
        f"[READ], MaxLatency(us), {result.histograms['READ'].max}",
        f"[READ], 95thPercentileLatency(us), {result.histograms['READ'].percentile(95)}",
        f"[READ], 99thPercentileLatency(us), {result.histograms['READ'].percentile(99)}",
        "[READ], Return=OK, 950",
    ]
    assert "[UPDATE], Return=NOT_FOUND, 2" in lines and "[UPDATE-FAILED], Operations, 2" in lines

    parsed = parse_ycsb(text)
    assert parsed.warnings == []
    ours = pd.DataFrame(tidy_rows(result, {"backend": "innodb", "page_size": "16k", "page_size_bytes": 16384}))
    theirs = parsed.to_frame()
    assert list(ours["operation"]) == ["OVERALL", "READ", "UPDATE", "UPDATE-FAILED"]
    assert_parses_back(ours, theirs)
    assert theirs.loc[theirs["operation"] == "UPDATE", "return_not_found"].item() == 2


def test_a_read_modify_write_block_has_no_return_lines_as_in_ycsb():
    rmw = LatencyHistogram()
    rmw.record_all([500, 600])
    read = LatencyHistogram()
    read.record_all([100, 200, 300, 400])
    result = PhaseResult(workload=WORKLOADS["f"], runtime_ms=10, operations=4,
                         histograms={"READ": read, "UPDATE": rmw, "READ-MODIFY-WRITE": rmw},
                         statuses={"READ": {"OK": 4}, "UPDATE": {"OK": 2}}, threads=1, parallelism="inline",
                         client="in-process", client_cpu_s=0.0)
    text = ycsb_text(result)
    assert "[READ-MODIFY-WRITE], Operations, 2" in text and "[READ-MODIFY-WRITE], Return" not in text


def test_the_seed_000_fragments_parse_to_the_reference_table():
    reference = pd.read_csv(REPO_ROOT / "data" / "reference" / "orientdb_ycsb.csv")
    parsed = parse_ycsb((SOURCES / "orientdb-page-size-proposal.txt").read_text()).to_frame()
    assert parsed["run"].tolist() == list(range(1, 13))  # each pasted block is a run of its own
    assert parsed["operation"].tolist() == reference["operation"].tolist()
    for figure in ("average_latency_us", "min_latency_us", "p95_latency_us", "p99_latency_us"):
        assert parsed[figure].tolist() == reference[figure].tolist(), figure
    # the fragments lack Operations, MaxLatency and RunTime: those stay empty rather than guessed
    assert parsed[["operations", "max_latency_us", "runtime_ms", "throughput_ops_s"]].isna().all().all()


def test_the_golden_cases_cover_seed_000_and_real_ycsb_outputs():
    import sys

    sys.path.insert(0, str(REPO_ROOT / "tests" / "golden"))
    from golden_cases import golden_cases

    names = [name for name, _ in golden_cases()]
    assert {"orientdb_proposal/ycsb", "orientdb_proposal/ycsb_whole_text"} <= set(names)
    assert sum(name.startswith("ycsb/sample_") for name in names) == 3
    golden = (REPO_ROOT / "tests" / "golden" / "orientdb_proposal" / "ycsb.csv").read_text()
    assert "/work/" not in golden and "/tmp/" not in golden


def test_real_ycsb_output_with_gc_lines_status_lines_and_buckets():
    text = (REPO_ROOT / "tests" / "golden" / "samples" / "ycsb_histogram_cloudspanner_spec.txt").read_text()
    result = parse_ycsb(text)
    row = result.to_frame().set_index("operation").loc["INSERT"]
    assert row["operations"] == 50000 and row["p99_latency_us"] == 253000 and row["p99_9_latency_us"] == 660000
    assert row["throughput_ops_s"] == pytest.approx(1000 * 50000 / 172520)
    assert result.meta["histogram_bucket_lines"] == 12
    text = (REPO_ROOT / "tests" / "golden" / "samples" / "ycsb_0.17_hdr_mongodb_workloadb.txt").read_text()
    result = parse_ycsb(text)
    assert result.meta["runs"] == 1 and "TOTAL_GCs" in result.meta["gc"]
    assert result.to_frame().set_index("operation").loc["UPDATE", "return_ok"] == 75097


def test_old_millisecond_percentiles_are_converted_and_odd_lines_named():
    text = ("[OVERALL], RunTime(ms), 2000.0\n[READ], Operations, 10\n[READ], 95thPercentileLatency(ms), 8\n"
            "[READ], Return=0, 10\n[READ], Weird(us), 3\n[READ], AverageLatency(us), many\n")
    result = parse_ycsb(text)
    row = result.rows[1]
    assert row["p95_latency_us"] == 8000 and row["return_ok"] == 10
    assert result.meta["percentiles_converted_from_ms"] == ["95thPercentileLatency(ms)"]
    assert any("line 5" in w and "Weird" in w for w in result.warnings)
    assert any("line 6" in w and "not a number" in w for w in result.warnings)


def test_a_cut_last_line_is_not_read_and_no_results_is_an_error():
    result = parse_ycsb("[READ], Operations, 10\n[READ], AverageLatency(us), 12")
    assert "average_latency_us" not in result.rows[0] or result.rows[0]["average_latency_us"] is None
    assert any("ends inside this line" in w for w in result.warnings)
    with pytest.raises(ParseError):
        parse_ycsb("Loading workload...\nStarting test.\n")
    assert PARSERS["ycsb"] is parse_ycsb


def test_load_rows_carry_the_seeds_columns():
    insert = LatencyHistogram()
    insert.record_all([100, 200])
    result = PhaseResult(workload=LOAD, runtime_ms=2000, operations=2, histograms={"INSERT": insert},
                         statuses={"INSERT": {"OK": 2}}, threads=1, parallelism="inline", client="in-process",
                         client_cpu_s=0.0)
    rows = tidy_rows(result, {"backend": "prototype", "page_size": "16k", "page_size_bytes": 16384})
    reference = pd.read_csv(REPO_ROOT / "data" / "reference" / "orientdb_ycsb.csv")
    assert set(reference.columns) <= set(rows[0])
    assert rows[0]["total_time_s"] == 2.0 and rows[1]["operation"] == "INSERT"
