"""fio JSON parser: the fixtures, text around the JSON, old fio, damage."""

from __future__ import annotations

import json

import pytest
from golden_cases import FIXTURES_DIR, SAMPLES_DIR
from pagelab.common.errors import ParseError
from pagelab.parse import parse_fio
from pagelab.parse.fio import COLUMNS


def fixture(size: str) -> str:
    return (FIXTURES_DIR / "fio" / f"randread_qd1_{size}.json").read_text()


@pytest.mark.parametrize("size,bs_bytes", [("4k", 4096), ("16k", 16384), ("64k", 65536)])
def test_fixture_values_are_the_json_values(size, bs_bytes):
    document = json.loads(fixture(size))
    job = document["jobs"][0]
    row = parse_fio(fixture(size)).rows[0]
    assert (row["jobname"], row["rw"], row["bs_bytes"], row["iodepth"], row["direct"]) == (
        f"randread-{size}",
        "randread",
        bs_bytes,
        1,
        1,
    )
    assert row["read_iops"] == job["read"]["iops"] and row["read_bw_kb_s"] == job["read"]["bw"]
    assert row["read_lat_mean_us"] == job["read"]["lat_ns"]["mean"] / 1000
    assert row["read_lat_p99_us"] == job["read"]["clat_ns"]["percentile"]["99.000000"] / 1000
    assert row["p99_basis"] == "clat" and row["runtime_s"] == job["job_runtime"] / 1000


def test_4k_by_hand():
    row = parse_fio(fixture("4k")).rows[0]
    # "iops" : 14394.242303, "bw" : 57576, clat p99 132096 ns, "job_runtime" : 5001
    assert (row["read_iops"], row["read_bw_kb_s"], row["read_lat_p99_us"], row["runtime_s"]) == (
        14394.242303,
        57576,
        132.096,
        5.001,
    )
    assert list(parse_fio(fixture("4k")).to_frame().columns[: len(COLUMNS)]) == list(COLUMNS)


def test_notes_before_the_json_are_skipped_with_a_warning():
    note = (
        "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n"
    )
    result = parse_fio(note + fixture("16k"))
    assert result.rows[0]["bs_bytes"] == 16384
    assert len(result.warnings) == 1 and result.warnings[0].startswith(
        "line 1: skipped 1 line(s) of text before the JSON"
    )


def test_two_documents_in_one_text():
    result = parse_fio(fixture("4k") + "\n" + fixture("64k"))
    assert [row["jobname"] for row in result.rows] == ["randread-4k", "randread-64k"] and result.meta[
        "documents"
    ] == 2


def test_fio_2_wrote_microseconds_and_no_job_options():
    result = parse_fio((SAMPLES_DIR / "fio_2.2.10_randwrite_doc.json").read_text())
    row = result.rows[0]
    assert (
        row["rw"] is None and row["bs_bytes"] is None and row["iodepth"] is None
    )  # set in a job file fio 2 did not echo
    assert (row["write_iops"], row["write_bw_kb_s"], row["write_lat_mean_us"], row["runtime_s"]) == (
        15624.7,
        62499,
        8182.26,
        600.008,
    )
    assert result.meta["disk_util"] == [{"device": "xvda", "util_pct": 100.0}]


def test_sizes_and_options():
    document = json.loads(fixture("4k"))
    document["global options"] = {"bs": "4k,64k", "ioengine": "libaio"}
    del document["jobs"][0]["job options"]["bs"]
    document["jobs"][0]["job options"]["iodepth"] = "32"
    row = parse_fio(json.dumps(document)).rows[0]
    assert (row["bs_bytes"], row["iodepth"], row["ioengine"]) == (4096, 32, "psync")
    document["jobs"][0]["job options"]["bs"] = "1MiB"
    assert parse_fio(json.dumps(document)).rows[0]["bs_bytes"] == 1 << 20


def test_cut_off_json_keeps_complete_jobs():
    two_jobs = json.loads(fixture("4k"))
    two_jobs["jobs"].append(json.loads(fixture("64k"))["jobs"][0])
    text = json.dumps(two_jobs, indent=2)
    result = parse_fio(text[: text.index('"disk_util"')])
    assert [row["jobname"] for row in result.rows] == ["randread-4k", "randread-64k"]
    assert any("cut off or damaged" in warning for warning in result.warnings)


@pytest.mark.parametrize("text", ["", "fio: no jobs\n", '{"fio version": "fio-3.33"', "[1, 2]"])
def test_nothing_readable_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_fio(text)
