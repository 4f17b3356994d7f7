"""What the report says of why a read request was the size it was (pagelab.report.read_requests),
from what a run records: iostat's merged reads (rrqm/s) and InnoDB's counters in global_status.csv.

The iostat data are real: tests/fixtures/captured/mariadb-10.11/<page>-w1-c4/iostat.txt (sysstat
12.6, `iostat -dxyt 10` beside a tpcc-mysql run of that page size), made into the run's iostat.csv
by the monitor's own tidy-table step. The counters' names are checked against the same captures'
SHOW GLOBAL STATUS; their rises over a measurement are set here (a capture holds one snapshot,
not two), starting from the captured values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from tests.conftest import FIXTURES

CAPTURES = FIXTURES / "mariadb-10.11"
PAGE_BYTES = {"4k": 4096, "8k": 8192, "16k": 16384, "64k": 65536}
AS_THE_DEVICE = -1  # `pages` of a run: as many as the device's read requests


def _captured_status(size: str) -> dict[str, str]:
    from pagelab.monitor.global_status import numeric_counters

    lines = (CAPTURES / f"{size}-w1-c4" / "global_status.txt").read_text().splitlines()[1:]
    return numeric_counters(line.split("\t", 1) for line in lines if "\t" in line)


def _run(bundle: Path, name: str, size: str, iostat_from: str | None, pages: int = 0, page_reads_kb: float = 0,
         read_ahead: int = 0) -> dict:
    """A finished run of `size` whose iostat is the capture of `iostat_from` (None: no iostat) and,
    with `pages`, whose counters rose by `pages` pages read in reads of `page_reads_kb` each, of
    which `read_ahead` read ahead."""
    from pagelab.monitor.tables import write_tidy_tables

    run_dir = bundle / name
    run_dir.mkdir(parents=True)
    (run_dir / "summary.json").write_text(json.dumps({"tpmc": 1000.0}))
    if iostat_from:
        text = (CAPTURES / f"{iostat_from}-w1-c4" / "iostat.txt").read_text()
        (run_dir / "iostat.json").write_text(text)  # the parser reads sysstat's text as well as its JSON
        samples = text.count("Device ")
        (run_dir / "iostat_times.csv").write_text("sample,t_s,epoch,clock_s\n" + "".join(
            f"{i},{10.0 * i},{1e9 + 10 * i},{10.0 * i}\n" for i in range(samples)))
        write_tidy_tables(run_dir)
    if pages == AS_THE_DEVICE:  # one InnoDB read per request the device completed, over the 60 s
        pages = round(float(pd.read_csv(run_dir / "iostat.csv")["r_s"].mean()) * 60)
    if pages:
        # the counters as captured at the end of a run of this page size (16k's for an uncaptured size)
        captured = size if (CAPTURES / f"{size}-w1-c4").exists() else "16k"
        start = {name: float(value) for name, value in _captured_status(captured).items()}
        rise = {"Innodb_pages_read": pages, "Innodb_data_reads": pages, "Innodb_data_read": pages * page_reads_kb * 1024,
                "Innodb_buffer_pool_read_ahead": read_ahead}
        rows = [{"t_s": t, **{name: start[name] + rise.get(name, 0) * t / 60 for name in start}} for t in (0.0, 60.0)]
        pd.DataFrame(rows).to_csv(run_dir / "global_status.csv", index=False)
    return {"name": name, "page_size": size, "page_size_bytes": PAGE_BYTES[size], "repeat": 1, "round": 1,
            "status": "done", "role": "verdict"}


def _load(bundle: Path, runs: list[dict]):
    from pagelab.report.lab_report import load

    sizes = sorted({run["page_size_bytes"] for run in runs})
    (bundle / "sweep.json").write_text(json.dumps({"sweep_id": bundle.name, "profile": {"page_sizes": sizes},
                                                   "runs": runs, "machine": {}}))
    return load(bundle)


def test_the_counters_it_reads_are_those_mariadb_reports_and_the_monitor_keeps_the_merges(tmp_path):
    from pagelab.report.read_requests import READ_COUNTERS

    for size in ("4k", "16k", "64k"):
        assert set(READ_COUNTERS) <= set(_captured_status(size)), size
    _run(tmp_path, "16k-r1", "16k", "16k")
    iostat = pd.read_csv(tmp_path / "16k-r1" / "iostat.csv")
    # "vda  1803.00  28846.40  0.20  0.01  0.22  16.00 ..." (r/s rkB/s rrqm/s %rrqm r_await rareq-sz)
    assert tuple(iostat.loc[0, ["r_s", "rkb_s", "rrqm_s", "rrqm_pct", "rareq_kb"]]) == (1803.0, 28846.4, 0.2, 0.01, 16.0)


def test_captured_runs_read_about_a_page_and_the_report_says_what_it_recorded(tmp_path):
    from pagelab.report.read_requests import read_request_sentence, read_request_table

    runs = [_run(tmp_path, f"{size}-r1", size, size, pages=AS_THE_DEVICE, page_reads_kb=PAGE_BYTES[size] / 1024)
            for size in ("4k", "16k", "64k")]
    data = _load(tmp_path, runs)
    table = read_request_table(data).set_index("page_size")
    # 16k: the capture's seven samples, r/s 12,615.1 in all and rrqm/s 1.3: 0.01% merged
    assert math.isclose(table.loc["16k", "merged_pct"], 100 * 1.3 / (12615.1 + 1.3), rel_tol=1e-9)
    assert table.loc["16k", "innodb_read_kb"] == 16 and table.loc["16k", "read_ahead_pages"] == 0
    text = read_request_sentence(data)
    # 16k's requests: r/s of the 7 samples sum to 12,615.1, so 108,129 in 60 s, each 16 KiB as InnoDB's reads
    assert ("At 16k read requests averaged 15.95 KiB: the block layer merged 0.0% of those it was given (unmerged, "
            "they averaged 15.95 KiB); InnoDB read 0 of its 108,129 pages ahead (0.0%), and its own reads averaged "
            "16.0 KiB; the device read 1.00× the bytes InnoDB read.") in text, text
    # a reader asks why reads can be larger than a page: with none larger, the report says so, and where to read why
    assert text.endswith("Every page size's read requests were about one page, so nothing here made a read larger "
                         "than a page; where a sweep's reads are larger, the block layer's merges, InnoDB's read-ahead "
                         "or another process on the same disk made them, and this paragraph then says which "
                         "(runbooks/tpcc-page-size.md, \"Request size against page size\")."), text


def test_requests_of_two_pages_without_merges_or_read_ahead_are_not_put_on_either(tmp_path):
    from pagelab.report.read_requests import read_request_sentence

    # 16k's real requests under an 8k run whose InnoDB read 8 KiB at a time: twice the page, nothing merged
    data = _load(tmp_path, [_run(tmp_path, "8k-r1", "8k", "16k", pages=AS_THE_DEVICE, page_reads_kb=8)])
    text = read_request_sentence(data)
    assert "At 8k read requests averaged 15.95 KiB: the block layer merged 0.0% of those it was given" in text, text
    assert ("At 8k neither the block layer's merges nor InnoDB's read-ahead account for the larger requests, and "
            "InnoDB read one page at a time: what the device read beyond InnoDB's bytes was read beside InnoDB (another "
            "process on the same disk) or below it (the file system), which this bundle, recording no per-process "
            "I/O, cannot tell apart (a sweep tells them apart with each process's I/O recorded beside it, `pidstat -d 10 > "
            "pidstat.log`, or with a disk nothing else uses, `--out DIR` on a file system of its own disk); InnoDB's own "
            "reads were a page each.") in text, text
    assert "its own reads averaged 8.0 KiB; the device read 1.99× the bytes InnoDB read." in text
    # the Discussion's check of the lab's claim says it too, after the sizes it found
    from pagelab.report.claims import DOES_NOT_HOLD, claims

    [claim] = [claim for claim in claims(data) if claim.key == "read_request"]
    # the page size that fails and the threshold, then the attribution
    assert "(the claim's line: within 10% of the page size, pagelab's: " in claim.evidence, claim.evidence
    assert "; it is not within 10% of the page at 8k: " in claim.evidence, claim.evidence
    # one run: no interval, and the verdict says it rests on the one mean
    assert claim.verdict == DOES_NOT_HOLD and claim.evidence.endswith(
        "(within 10% is 7.20–8.80 KiB); one run per page size, so no interval: the verdict rests on each page size's one "
        "mean. At 8k neither the block layer's merges nor "
        "InnoDB's read-ahead account for the larger requests, and InnoDB read one page at a time: what the device read "
        "beyond InnoDB's bytes was read beside InnoDB (another process on the same disk) or below it (the file "
        "system), which this bundle, recording no per-process I/O, cannot tell apart (a sweep tells them apart with "
        "each process's I/O recorded beside it, `pidstat -d 10 > pidstat.log`, or with a disk nothing else uses, "
        "`--out DIR` on a file system of its own disk); InnoDB's own reads were a page each"), claim.evidence


def test_read_ahead_and_merges_are_named_where_the_numbers_show_them(tmp_path):
    from pagelab.report.read_requests import read_request_sentence

    ahead = _load(tmp_path / "a", [_run(tmp_path / "a", "8k-r1", "8k", "16k", pages=60_000, page_reads_kb=8,
                                        read_ahead=30_000)])
    assert "At 8k the larger requests go with InnoDB's read-ahead (50% of the pages it read)" in \
        read_request_sentence(ahead)
    merged = _load(tmp_path / "m", [_run(tmp_path / "m", "8k-r1", "8k", None, pages=60_000, page_reads_kb=8)])
    # half of the requests the block layer was given merged into the other half: 16 KiB each, 8 unmerged
    pd.DataFrame({"t_s": [10.0, 20.0], "r_s": [500.0, 500.0], "rkb_s": [8000.0, 8000.0], "rrqm_s": [500.0, 500.0],
                  "rareq_kb": [16.0, 16.0], "w_s": [0.0, 0.0], "wareq_kb": [math.nan] * 2}).to_csv(
        tmp_path / "m" / "8k-r1" / "iostat.csv", index=False)
    text = read_request_sentence(_load(tmp_path / "m", [json.loads(json.dumps(r)) for r in merged.record.runs]))
    assert "the block layer merged 50.0% of those it was given (unmerged, they averaged 8.00 KiB)" in text, text
    assert "At 8k the block layer's merges account for the larger requests: unmerged, they were about a page" in text


def test_a_bundle_that_recorded_neither_says_so(tmp_path):
    from pagelab.report.read_requests import read_request_sentence

    run = _run(tmp_path, "8k-r1", "8k", None)
    pd.DataFrame({"t_s": [10.0, 20.0], "r_s": [500.0, 500.0], "rkb_s": [8000.0, 8000.0], "rareq_kb": [16.0, 16.0],
                  "w_s": [0.0, 0.0], "wareq_kb": [math.nan] * 2}).to_csv(tmp_path / "8k-r1" / "iostat.csv", index=False)
    text = read_request_sentence(_load(tmp_path, [run]))
    assert text.endswith("This bundle records neither the block layer's merges nor InnoDB's read-ahead, so it cannot "
                         "say which made a request larger than a page."), text


def _rounds(bundle: Path, size: str, iostat_from: list[str], innodb_share: float = 1.0) -> list[dict]:
    """One run of `size` per round, each with the capture of its `iostat_from` entry, and InnoDB's
    counters rising by `innodb_share` of the device's read requests, each read a page."""
    runs = []
    for number, source in enumerate(iostat_from, start=1):
        entry = _run(bundle, f"{size}-r{number}", size, source, pages=AS_THE_DEVICE, page_reads_kb=PAGE_BYTES[size] / 1024)
        if innodb_share != 1.0:  # InnoDB issued only this share of what the device completed
            path = bundle / entry["name"] / "global_status.csv"
            frame = pd.read_csv(path)
            for name in ("Innodb_data_reads", "Innodb_data_read", "Innodb_pages_read"):
                frame.loc[1, name] = frame.loc[0, name] + (frame.loc[1, name] - frame.loc[0, name]) * innodb_share
            frame.to_csv(path, index=False)
        runs.append({**entry, "repeat": number, "round": number})
    return runs


def test_the_read_request_claim_has_an_interval_and_runs_across_the_line_do_not_decide_it(tmp_path):
    # Gap: "does not hold" on a pooled mean 1% past the line, with no interval. Each run's own mean is
    # a replicate: the median run's order-statistic interval decides, and one crossing the line leaves
    # the claim not resolved.
    from pagelab.report.claims import HOLDS, NOT_RESOLVED_HERE, claims

    crossing = _load(tmp_path / "crossing", _rounds(tmp_path / "crossing", "16k", ["16k", "16k", "64k"]))
    [claim] = [c for c in claims(crossing) if c.key == "read_request"]
    assert claim.verdict == NOT_RESOLVED_HERE, claim.evidence
    assert "each run's own mean, per page size the median run with its order-statistic interval" in claim.evidence
    assert "at 16k the interval crosses the 10% line (17.60 KiB)" in claim.evidence, claim.evidence
    alike = _load(tmp_path / "alike", _rounds(tmp_path / "alike", "16k", ["16k", "16k", "16k"]))
    [claim] = [c for c in claims(alike) if c.key == "read_request"]
    assert claim.verdict == HOLDS, claim.evidence


def test_the_report_says_iostat_counts_the_whole_disk_and_how_far_it_parts_from_innodbs_own_reads(tmp_path):
    # Gap: whether iostat counts other processes' I/O on a data device that is also the system disk.
    # It does (the kernel's per-device counters); InnoDB's counters are its own, and the report says
    # by how much the device's read requests and bytes exceeded them.
    from pagelab.report.read_requests import device_against_innodb, foreign_io_sentence

    data = _load(tmp_path, _rounds(tmp_path, "16k", ["16k", "16k", "16k"], innodb_share=0.8))
    row = device_against_innodb(data).iloc[0]
    assert math.isclose(row["device_r_s"] / row["innodb_r_s"], 1 / 0.8, rel_tol=1e-3), row
    text = foreign_io_sentence(data)
    assert "iostat counts every request the device completed, from any process" in text, text
    assert "This bundle records no per-process I/O and no load average" in text, text
    assert "16k +25.0% read requests" in text and "the requests beyond InnoDB's averaging 16 KiB" in text, text
    # which statistic the rates are, so they are not read as the IOPS table's medians
    assert "each a second over all the verdict runs' measurements together" in text, text
    assert "not the IOPS table's median of the runs' means" in text, text


def test_the_method_says_the_bundle_records_no_load_and_names_the_trace_other_work_left_on_the_disk(tmp_path):
    # Gap: the report never said whether the machine was loaded. It can say only what the bundle
    # recorded: no load average, and how far the data device's read requests exceeded InnoDB's.
    from pagelab.report.method import load_record_sentence

    busy = _load(tmp_path / "busy", _rounds(tmp_path / "busy", "16k", ["16k", "16k", "16k"], innodb_share=0.8))
    text = load_record_sentence(busy)
    assert "Nor does the bundle record a load average" in text, text
    # the requests and the bytes, each its largest excess and where, from the table Section 4.2 prints
    from pagelab.report.read_requests import device_against_innodb

    table = device_against_innodb(busy)
    more_bytes = float((100 * (table["device_kb_s"] / table["innodb_kb_s"] - 1)).max())
    assert (f"completed up to 25.0% more read requests than InnoDB issued (16k) and read up to {more_bytes:.1f}% more "
            "bytes than InnoDB read (16k) (Section 4.2)") in text, text
    quiet = _load(tmp_path / "quiet", _rounds(tmp_path / "quiet", "16k", ["16k", "16k", "16k"]))
    assert "about as many read requests as InnoDB issued (within 1% either way: 16k " in load_record_sentence(quiet)


def test_the_iops_claim_is_not_resolved_where_innodbs_own_reads_do_not_agree_with_the_device(tmp_path):
    # Gap: the device's read IOPS, other processes' requests included, decided "IOPS falls ... does not
    # hold" with no warning. The claim is checked on InnoDB's own read requests too; where that check
    # does not give the device's verdict, the runs cannot decide.
    from pagelab.report.claims import DOES_NOT_HOLD, NOT_RESOLVED_HERE, _iops_fall

    runs = _rounds(tmp_path, "4k", ["4k", "4k", "4k"]) + _rounds(tmp_path, "16k", ["16k", "16k", "16k"])
    data = _load(tmp_path, runs)
    row = {"metric": "read_iops", "a": "16k", "b": "4k", "runs_a": 3, "runs_b": 3, "change_pct": 11.0,
           "low_pct": 2.2, "high_pct": 23.7, "confidence_pct": 95.0, "verdict": "higher", "p_value": 0.03,
           "p_adjusted": 0.03, "family_size": 1, "equivalence_pct": 3.0, "paired": True, "method": "", "role": ""}
    data.pairs = pd.DataFrame([row])
    claim = _iops_fall(data)
    assert "on InnoDB's own read requests a second" in claim.evidence, claim.evidence
    assert claim.verdict == NOT_RESOLVED_HERE, claim.evidence  # 3 runs a side: InnoDB's check cannot call it
    assert "the two counts disagree, so the runs cannot decide" in claim.evidence
    # what the device's count alone would say, in the claim's words (read IOPS higher: it does not hold)
    assert "though the device's count alone would say the claim does not hold" in claim.evidence, claim.evidence
    assert claim.verdict != DOES_NOT_HOLD
    # what family the check is in, and the rule, said where it is used (it is in no Method family)
    assert ("a check of this claim alone, not one of the Method's families: judged as read IOPS is, at the device "
            "line's level, with no correction of its own") in claim.evidence, claim.evidence


def test_innodbs_reads_are_counted_over_the_seconds_iostat_counts_on_real_runs():
    """Round 5 of the 12-round course sweep of 2026-11-29 (tests/fixtures/captured/course-2026-11-29-writes),
    as the monitor wrote it: InnoDB's read rate (counter_deltas) against the device's, iostat's r/s
    over the measurement's samples (t_s >= 0), computed here from the raw column. With O_DIRECT and
    the block layer merging no reads, the two count the same requests; taken over windows a sample
    apart they parted by up to 0.8%, which the report read as the disk completing fewer reads."""
    from pagelab.report.read_requests import counter_deltas

    runs = FIXTURES / "course-2026-11-29-writes"
    for run in sorted(runs.iterdir()):
        iostat = pd.read_csv(run / "iostat.csv")
        device_r_s = float(iostat.loc[iostat["t_s"] >= 0, "r_s"].mean())
        measured = iostat[iostat["t_s"] >= 0]
        assert measured["rrqm_s"].sum() < 1e-4 * measured["r_s"].sum(), run.name  # next to nothing merged
        deltas = counter_deltas(run)
        assert math.isclose(device_r_s, deltas["Innodb_data_reads"] / deltas["seconds"], rel_tol=5e-4), run.name
        # iostat's samples cover 10 s each, the first ending about 10 s into the measurement
        assert math.isclose(deltas["seconds"], 10 * int((iostat["t_s"] >= 0).sum()), rel_tol=0.01), run.name
