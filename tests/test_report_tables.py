"""The report's tables and figures say what their numbers are (a fresh reader's list of 2026-11-29):
the hit ratio and IOPS as medians with intervals, one definition of a read rate, the write request
sizes as far as the data show them, why the pool is 256 MiB, the report interval's length, what
Table 1's CPU and disk rows can say, the appendix's server variables pagelab did not set, and the
glossary's MSER-5 and "weighted by requests". Every expected value is computed here from the
records the test writes or from the reference files the report reads."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pandas as pd

from tests.test_report_words import LOADED, POOL, bundle, load

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "data" / "reference"


def _notebook_cell(containing: str) -> str:
    notebook = json.loads((REPO / "notebooks" / "tpcc_page_size_report.ipynb").read_text())
    return next("".join(c["source"]) for c in notebook["cells"] if containing in "".join(c["source"]))


# --- 9. the hit ratio and IOPS as numbers -----------------------------------------------------------------------


def test_the_iops_table_gives_the_per_size_medians_reads_then_writes():
    from pagelab.evidence.medians import page_size_table
    from pagelab.evidence.runs import RunTable
    from pagelab.report.figures import iops_medians

    # 3 runs a page size; each run's IOPS its mean over its measurement (as run_values gives it)
    reads = {"4k": [3000.0, 3500.0, 3400.0], "16k": [3700.0, 3600.0, 4000.0]}
    runs = pd.DataFrame([{"run": f"{size}-r{i}", "page_size": size, "page_size_bytes": 4096 if size == "4k" else 16384,
                          "repeat": i, "tpmc": 1.0, "read_iops": value, "write_iops": value / 2, "hit_ratio": 988.0,
                          "new_order_p95_ms": 18.0}
                         for size, values in reads.items() for i, value in enumerate(values, start=1)])
    per_size = page_size_table(RunTable(runs, [], {}, ["4k", "16k"]))
    table = iops_medians(per_size)
    assert list(table["metric"]) == ["reads", "reads", "writes", "writes"]
    assert list(table["page_size"]) == ["4k", "16k", "4k", "16k"]
    expected = [statistics.median(reads["4k"]), statistics.median(reads["16k"]),
                statistics.median(reads["4k"]) / 2, statistics.median(reads["16k"]) / 2]
    assert list(table["median"]) == expected
    assert list(table["low"]) == [3000.0, 3600.0, 1500.0, 1800.0]  # 3 runs: the smallest to the largest


def test_the_notebook_shows_the_hit_ratio_and_iops_medians_and_table_4_has_no_second_read_rate():
    hit = _notebook_cell('"hit_ratio",))))')
    assert 'median_columns("hit_ratio")' in hit and "Innodb_buffer_pool_read_requests" in hit
    sizes = _notebook_cell("figures.REQUEST_WEIGHT_WORDS")
    # Table 4 gives sizes only; the rates are the IOPS table's medians over runs, the statistic Table 8 (lab) shows
    assert '"r_s"' not in sizes and '"w_s"' not in sizes and "figures.iops_medians(data.per_size)" in sizes


def test_figure_5s_axis_spans_the_measured_hit_ratio_not_the_cold_ramp_up():
    import matplotlib

    matplotlib.use("Agg")
    from pagelab.report.figures import hit_ratio_over_time

    measured = [984.0, 985.0, 989.0]
    innodb = pd.DataFrame({"t_s": [-30.0, 0.0, 10.0, 20.0], "hit_rate": [794.0, *measured],
                           "page_size": "4k", "page_size_bytes": 4096, "repeat": 1})
    figure = hit_ratio_over_time(innodb)
    low, high = figure.axes[0].get_ylim()
    pad = max(1.0, 0.15 * (max(measured) - min(measured)))
    assert (low, high) == (min(measured) - pad, max(measured) + pad)
    assert "ramp-up samples down to 794 lie below the axis" in figure.axes[0].get_xlabel()


# --- 10. "weighted by requests", defined -------------------------------------------------------------------------


def test_a_request_size_weighted_by_requests_is_the_kib_over_the_requests():
    from pagelab.report.figures import REQUEST_WEIGHT_WORDS, request_sizes

    # two equal 10 s samples: 100 reads/s of 4 KiB, then 300 reads/s of 8 KiB
    iostat = pd.DataFrame({"page_size_bytes": 4096, "page_size": "4k", "r_s": [100.0, 300.0], "rareq_kb": [4.0, 8.0],
                           "w_s": [10.0, 10.0], "wareq_kb": [8.0, 8.0]})
    kib, requests = 100 * 4.0 + 300 * 8.0, 100 + 300
    assert request_sizes(iostat).loc[0, "read_kb"] == kib / requests == 7.0  # not the samples' mean, 6.0
    assert "KiB read (written) over the requests read (written)" in REQUEST_WEIGHT_WORDS
    glossary = (REPO / "runbooks" / "glossary.md").read_text()
    assert "- **weighted by requests**" in glossary and "- **MSER-5**" in glossary


# --- 11. the write request sizes, as measured ---------------------------------------------------------------------


def _write_bundle(tmp_path: Path, wrqm: float, innodb_write_kb: float):
    """A 16k run whose device wrote 100 requests/s of 32 KiB (2 pages), of which `wrqm` a second were
    merged, and whose InnoDB wrote 6,000 times in 60 s, `innodb_write_kb` each."""
    from tests.test_read_requests import _load

    run = tmp_path / "16k-r1"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"tpmc": 1000.0}))
    pd.DataFrame({"t_s": [10.0, 20.0], "r_s": [50.0, 50.0], "rareq_kb": [16.0, 16.0], "w_s": [100.0, 100.0],
                  "wareq_kb": [32.0, 32.0], "wrqm_s": [wrqm, wrqm]}).to_csv(run / "iostat.csv", index=False)
    pd.DataFrame({"t_s": [0.0, 60.0], "Innodb_data_writes": [1000.0, 7000.0],
                  "Innodb_data_written": [0.0, 6000 * innodb_write_kb * 1024]}).to_csv(run / "global_status.csv",
                                                                                     index=False)
    entry = {"name": "16k-r1", "page_size": "16k", "page_size_bytes": 16384, "repeat": 1, "round": 1,
             "status": "done", "role": "verdict"}
    return _load(tmp_path, [entry])


def test_the_write_sizes_say_what_iostat_and_innodbs_counters_show_and_that_the_cause_is_not_measured(tmp_path):
    from pagelab.report.write_requests import write_request_sentence, write_request_table

    data = _write_bundle(tmp_path / "own", wrqm=1.0, innodb_write_kb=30.0)
    row = write_request_table(data).iloc[0]
    assert math.isclose(row["merged_pct"], 100 * 2 / (200 + 2)) and row["innodb_write_kb"] == 30.0
    text = write_request_sentence(data)
    assert (f"at 16k 32.0 KiB ({32 / 16:.1f} pages): the block layer merged {100 * 2 / 202:.1f}% of the write requests "
            "it was given; InnoDB's own writes, all its files together, averaged 30.0 KiB") in text, text
    # a run without the doublewrite and redo log counters: what made them larger is not claimed
    assert text.endswith("So the larger writes come from InnoDB's own writes, not from the block layer's merges; which "
                         "of them (data pages, the doublewrite buffer, the redo log) made them larger this bundle does "
                         "not show."), text
    assert "batched" not in text  # the runbook's cause is not what the bundle shows
    # half the requests merged and InnoDB writing a page at a time: the numbers do not say which, and it says so
    merged = write_request_sentence(_write_bundle(tmp_path / "merged", wrqm=100.0, innodb_write_kb=16.0))
    assert merged.endswith("this bundle does not show."), merged


WRITES = REPO / "tests" / "fixtures" / "captured" / "course-2026-11-29-writes"


def test_innodbs_write_counters_account_for_the_devices_write_sizes_on_real_runs(tmp_path):
    """Round 5 of the 12-round course sweep of 2026-11-29, one run per page size: its global_status.csv
    and iostat.csv as the monitor wrote them. The expected figures are computed here from the raw
    columns: the device's KiB from iostat's wkB/s (the module uses wareq-sz × w/s), InnoDB's from the
    counters over the seconds iostat's samples of the measurement cover."""
    import shutil

    from tests.test_read_requests import PAGE_BYTES, _load

    from pagelab.report.write_requests import write_request_sentence, write_request_table

    entries = []
    for run in sorted(WRITES.iterdir()):
        shutil.copytree(run, tmp_path / run.name)
        (tmp_path / run.name / "summary.json").write_text(json.dumps({"tpmc": 1000.0}))
        size = run.name.split("-")[0]
        entries.append({"name": run.name, "page_size": size, "page_size_bytes": PAGE_BYTES[size], "repeat": 5,
                        "round": 5, "status": "done", "role": "verdict"})
    table = write_request_table(_load(tmp_path, entries)).set_index("page_size")
    for size in ("4k", "8k", "16k"):
        iostat = pd.read_csv(WRITES / f"{size}-r5" / "iostat.csv")
        iostat = iostat[iostat["t_s"] >= 0]
        status = pd.read_csv(WRITES / f"{size}-r5" / "global_status.csv")
        # from the counters' sample at the start of iostat's first measured interval (within half a 10 s
        # sample of t = 0) to their last
        status = status[status["t_s"] > -5]
        rise = status.iloc[-1] - status.iloc[0]
        page_kib = PAGE_BYTES[size] / 1024
        pages_s = rise["Innodb_pages_written"] / rise["t_s"]
        innodb_kib_s = (page_kib * (rise["Innodb_pages_written"] + rise["Innodb_dblwr_pages_written"])
                        + rise["Innodb_os_log_written"] / 1024) / rise["t_s"]
        others_kib = (iostat["wkb_s"].mean() - page_kib * pages_s) / (iostat["w_s"].mean() - pages_s)
        row = table.loc[size]
        # wareq-sz is printed to two decimals, so the two routes to the device's KiB part by well under 1%
        assert math.isclose(row["device_per_innodb"], iostat["wkb_s"].mean() / innodb_kib_s, rel_tol=0.01), size
        assert math.isclose(row["other_request_kb"], others_kib, rel_tol=0.02), size
        assert math.isclose(row["dblwr_batch_pages"], rise["Innodb_dblwr_pages_written"] / rise["Innodb_dblwr_writes"])
        # what MariaDB 10.11 showed: a write call per data page, large doublewrite batches and log writes
        assert abs(rise["Innodb_data_writes"] / rise["Innodb_pages_written"] - 1) < 0.02, size
        assert others_kib > 4 * page_kib and 0.9 < row["device_per_innodb"] < 1.25, size
    text = write_request_sentence(_load(tmp_path, entries))
    assert "InnoDB's counters account for it." in text and "which went one page a write" in text, text
    assert f"its other write requests averaged {table.loc['4k', 'other_request_kb']:,.0f} KiB" in text, text
    assert "does not show" not in text, text


# --- 12. why the pool is 256 MiB ----------------------------------------------------------------------------------


def test_the_report_says_why_the_pool_is_the_labs_servers_from_its_status_output(tmp_path):
    from pagelab.report.setup_tables import pool_reason_sentence

    status = pd.read_csv(REFERENCE / "week4_lab_innodb.csv").dropna(subset=["pool_pages"])
    first = status.groupby("page_size", sort=False).first()
    pool_bytes = {int(r.pool_pages * r.page_size_bytes) for r in first.itertuples()}
    assert pool_bytes == {POOL}  # the lab's server's pool, which the synthetic runs recorded
    pages = {size: int(r.pool_pages) for size, r in first.iterrows()}
    text = pool_reason_sentence(load(bundle(tmp_path / "lab")))
    assert text.startswith("**Why the pool is 256 MiB.** The lab's text gives its pool as \u201c210MB (30% of DB "
                           "size)\u201d, but its own status output shows a pool of "
                           f"{pages['4k']:,} pages at 4k, {pages['8k']:,} at 8k and {pages['16k']:,} at 16k, "
                           "256 MiB at each"), text
    # a sweep with another pool gets no such sentence
    assert pool_reason_sentence(load(bundle(tmp_path / "other", summary={"buffer_pool_bytes": POOL // 2}))) == ""


# --- 13. the report interval's length -----------------------------------------------------------------------------


def test_the_checkpoint_tables_give_the_interval_length(tmp_path):
    from pagelab.report.figures import interval_text, lab_interval_s

    data = load(bundle(tmp_path, summary={"interval_s": 10}))
    assert interval_text(data.tables["summary"]) == "10 s"
    assert interval_text(pd.DataFrame({"interval_s": [10, 5, 10]})) == "5 s, 10 s"
    assert interval_text(pd.DataFrame({"tpmc": [1.0]})) == "not recorded by these runs"
    # the lab's: 60 × its New-Orders per interval over its TpmC, page size by page size
    lines = pd.read_csv(REFERENCE / "week4_lab_intervals.csv")
    tpmc = pd.read_csv(REFERENCE / "week4_lab_tpmc.csv").set_index("page_size")["tpmc"]
    each = [60 * statistics.mean(lines[lines["page_size"] == size]["new_order"]) / tpmc[size]
            for size in sorted(set(lines["page_size"]))]
    assert math.isclose(lab_interval_s(), statistics.mean(each)) and round(lab_interval_s()) == 10
    assert "figures.interval_text(summary)" in _notebook_cell("Transactions per report interval")


# --- 22. Table 1's CPU and disk -----------------------------------------------------------------------------------


def test_table_1s_notes_say_the_cpu_name_is_whole_and_a_virtual_disk_hides_its_storage(tmp_path):
    from pagelab.report.setup_tables import system_setup_notes

    machine = {"server": {"version": "10.11.19"}, "cpu_model": "AMD EPYC", "cores": 2,
               "data_device": {"path": "/", "disk": "vda", "device": "vda", "driver": "virtio_blk"}}
    # the synthetic bundle records no disk_profile knob: its disk's speed was not measured, said after the notes
    # (tests/test_report_reader19.py checks that sentence)
    from pagelab.report.setup_tables import BEFORE_THE_KNOB

    text = system_setup_notes(load(bundle(tmp_path / "vm", document={"machine": machine})))
    assert text == ("The CPU is named as this machine's /proc/cpuinfo names it (its \u201cmodel name\u201d), "
                    "\u201cAMD EPYC\u201d, whole: the machine gives no model number. The data device, vda (virtio_blk), is a virtual disk; the storage behind it "
                    "is not visible to the guest, so this report cannot say what kind of disk it is. " + BEFORE_THE_KNOB)
    metal = {**machine, "cpu_model": "Intel(R) Core(TM) i3-9100F CPU @ 3.60GHz",
             "data_device": {"path": "/", "disk": "nvme0n1", "driver": "nvme"}}
    assert system_setup_notes(load(bundle(tmp_path / "metal", document={"machine": metal}))) == BEFORE_THE_KNOB


# --- 24. the appendix's server variables that pagelab did not set ---------------------------------------------------


def test_the_appendix_says_which_variables_are_the_servers_own_and_what_they_mean(tmp_path):
    from pagelab.report.appendix import unset_variables_markdown
    from pagelab.report.labels import SERVER_SETTING_MEANINGS

    directory = bundle(tmp_path)
    data = load(directory)
    first = next(e for e in data.record.runs if e["status"] == "done")
    (directory / first["name"] / "my.cnf").write_text("[mysqld]\ninnodb_buffer_pool_size=268435456\nskip-log-bin\n")
    table = pd.DataFrame({"Variable": ["innodb_buffer_pool_size", "log_bin", "innodb_io_capacity_max",
                                       "innodb_log_file_mmap", "innodb_buffer_pool_size_auto_min"],
                          "Value": ["268435456", "OFF", "2000", "OFF", "8796093022208"],
                          "Server default": ["134217728", "", "4294967295", "TRUE", "0"]})
    text = unset_variables_markdown(data, table)
    unset = ["innodb_io_capacity_max", "innodb_log_file_mmap", "innodb_buffer_pool_size_auto_min"]
    assert text.startswith("Not set by pagelab (my.cnf above does not name them): "
                           + ", ".join(f"`{name}`" for name in unset) + ". Their values are the server's own"), text
    for name in unset:
        assert f"- `{name}`: {SERVER_SETTING_MEANINGS[name]}." in text
    assert "innodb_buffer_pool_size`:" not in text and "`log_bin`" not in text


def test_the_lab_table_says_how_far_the_level_is_from_the_labs_and_why():
    """Table "the lab's TpmC and IOPS beside this sweep's": the ratios read off its own rows (here
    3× and 4× the TpmC, 10× and 20× the reads), and the disk as the reason only where most of the
    data is outside the pool."""
    import pandas as pd

    from pagelab.report.seed_configuration import level_note

    table = pd.DataFrame({"page_size": ["4k", "16k"], "tpmc_seed": [1000.0, 2000.0], "tpmc_ours": [3000.0, 8000.0],
                          "read_iops_seed": [100.0, 50.0], "read_iops_ours": [1000.0, 1000.0]})
    # the pool's shares as Table 2 gives them, 36-40%: outside it, 60-64% (not 64% alone, the largest
    # database's)
    shares = pd.Series({"4k": 36.0, "16k": 40.0})
    disk = level_note(table, shares)
    assert "TpmC is 3.0–4.0× the lab's, and its data device completed 10–20× the lab's read requests" in disk, disk
    assert "with 60–64% of the data outside the pool (by page size), every page size waits on the disk" in disk, disk
    memory = level_note(table.drop(columns=["read_iops_ours"]), pd.Series({"4k": 80.0, "16k": 85.0}))
    assert "read requests" not in memory and "waits on the disk" not in memory and "the level is each machine's" in memory
    assert level_note(table.drop(columns=["tpmc_seed"]), shares) == ""
