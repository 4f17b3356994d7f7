"""SQLite's experiment 053's benchmark (pagelab.workloads.sqlite) at two page sizes, on both paths, small."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import pandas as pd
import pytest

from pagelab.common.errors import UsageError
from pagelab.workloads.sqlite import database as sqlite_database
from pagelab.workloads.sqlite.benchmarks import EXECUTE_BATCH_NAME, benchmark_plan
from pagelab.workloads.sqlite.database import btree_levels, create_database, load_rows, verify_page_size
from pagelab.workloads.sqlite.report import (
    btree_beside_times,
    btree_summary,
    delta_table,
    seed_check,
    seed_comparison,
    seed_style_table,
    seed_table,
    share_table,
    summary_line,
    timing_summary,
    wal_frames_summary,
)
from pagelab.workloads.sqlite.run import run_sqlite_bench

from .conftest import SMALL

SIZES = SMALL["page_sizes"]


def header_page_size(path: Path) -> tuple[int, int, int]:
    """Read straight from the file: the page size (bytes 16-17, big-endian, 1 = 65536) and the
    write and read format versions (bytes 18 and 19: 2 means WAL)."""
    header = path.read_bytes()[:100]
    assert header[:16] == b"SQLite format 3\x00"
    (size,) = struct.unpack(">H", header[16:18])
    return (65536 if size == 1 else size), header[18], header[19]


# -- every database has its page size -------------------------------------------------------------

def test_each_benchmark_database_really_has_its_page_size(small_bench):
    directory = Path(small_bench.settings["database_directory"])
    files = sorted(directory.glob("*.sqlite"))
    assert len(files) == SMALL["repeats"] * len(SIZES)
    for path in files:
        asked = int(path.stem.split("-")[1])
        assert header_page_size(path) == (asked, 2, 2)  # the page size, and WAL mode
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            assert connection.execute("PRAGMA page_size").fetchone()[0] == asked
            count = connection.execute("SELECT count(*), max(id) FROM items").fetchone()
            assert count == (SMALL["rows"], SMALL["rows"])  # the writes were all deleted again
        finally:
            connection.close()
    databases = small_bench.databases
    assert sorted(databases["page_size_bytes"].unique()) == list(SIZES)
    assert (databases["page_size_pragma"] == databases["page_size_bytes"]).all()
    assert (databases["page_size_header"] == databases["page_size_bytes"]).all()
    assert (databases["page_size_native"] == databases["page_size_bytes"]).all()  # the C connection's view
    assert (databases["mmap_bytes"] == 256 * 1024 * 1024).all()


@pytest.mark.parametrize("page_size", [512, 8192, 65536])
def test_create_database_sets_the_page_size_before_wal_and_checks_it(tmp_path, page_size):
    path = tmp_path / "bench.sqlite"
    connection = create_database(path, page_size)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert connection.execute("PRAGMA mmap_size").fetchone()[0] == 256 * 1024 * 1024
        load_rows(connection, 50)
    finally:
        connection.close()
    assert header_page_size(path) == (page_size, 2, 2)


def test_a_page_size_sqlite_did_not_take_is_a_clear_error(tmp_path):
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("CREATE TABLE t (x)")  # written at SQLite's default, 4096
        connection.execute("PRAGMA page_size = 8192")  # too late: SQLite ignores it
        assert verify_page_size(connection, path, 4096) == 4096
        with pytest.raises(UsageError, match=r"asked SQLite for 8192-byte pages .* got 4096 .*new, empty database"):
            verify_page_size(connection, path, 8192)
    finally:
        connection.close()
    with pytest.raises(UsageError, match="exists"):
        create_database(path, 8192)


# -- the samples and the seed's names ---------------------------------------------------------------

def test_the_default_benchmarks_carry_the_seeds_names():
    names = [bench.name for bench in benchmark_plan()]
    seed = list(seed_table()["benchmark"])
    assert names == [name for name in seed if name != "selectBytes (all sizes)"]
    assert EXECUTE_BATCH_NAME in names


def test_samples_are_the_seeds_repeats_times_runs_on_each_path(small_bench):
    samples = small_bench.samples
    names = [bench.name for bench in benchmark_plan(SMALL["rows"], SMALL["write_batches"],
                                                   SMALL["execute_batch_rows"], SMALL["read_batches"])]
    assert list(dict.fromkeys(samples["benchmark"])) == names
    counts = samples.groupby(["path", "benchmark", "page_size_bytes"]).size()
    assert len(counts) == 2 * len(names) * len(SIZES)
    assert (counts == SMALL["repeats"] * SMALL["runs"]).all()
    assert (samples[["time_ms", "cpu_ms", "best_ms"]] > 0).all().all()
    assert (samples["best_ms"] <= samples["time_ms"] * (1 + 1e-9)).all()
    # enough iterations for the sample time, the same count at both page sizes of a path
    work = samples["iterations"] * samples["time_ms"] / 1000
    assert (samples.groupby(["path", "benchmark"])["iterations"].nunique() == 1).all()
    assert (samples.loc[samples["benchmark"] == EXECUTE_BATCH_NAME, "iterations"] > 1).all()
    assert work.median() >= SMALL["min_sample_seconds"] * 0.25
    # C builds a row without Python objects: selecting every row is faster natively
    medians = samples.groupby(["benchmark", "path"])["best_ms"].median().unstack()
    assert medians.loc[f"Select maps {SMALL['rows']} rows", "native"] < medians.loc[
        f"Select maps {SMALL['rows']} rows", "python"]


def test_timing_summary_has_median_interval_and_spread(small_bench):
    timings = small_bench.timings
    assert list(timings.columns[:4]) == ["path", "benchmark", "page_size", "page_size_bytes"]
    assert (timings["min_ms"] <= timings["median_ms"]).all() and (timings["median_ms"] <= timings["max_ms"]).all()
    assert (timings["ci_low_ms"] <= timings["median_ms"]).all()
    assert (timings["median_ms"] <= timings["ci_high_ms"]).all()
    assert (timings["samples"] == SMALL["repeats"] * SMALL["runs"]).all()
    for path in ("native", "python"):
        one = small_bench.samples.query(
            f"path == '{path}' and benchmark == 'Batched write tx 100 rows' and page_size_bytes == 8192")["time_ms"]
        row = timings.query(
            f"path == '{path}' and benchmark == 'Batched write tx 100 rows' and page_size_bytes == 8192").iloc[0]
        assert row["median_ms"] == pytest.approx(one.median())
        assert (row["min_ms"], row["max_ms"]) == (one.min(), one.max())
        assert row["spread_pct"] == pytest.approx((one.max() / one.min() - 1) * 100)
    # selects grow with the rows read
    read = timings[timings["kind"] == "tx_read"].groupby("rows_per_iteration")["median_ms"].median()
    assert read.loc[1000] > read.loc[500]


# -- verdicts: pagelab.evidence's interval and rank test ------------------------------------------------

def scaled(samples: pd.DataFrame, factor: float, jitter: float = 0.0) -> pd.DataFrame:
    """The native path's measured samples, with 8192's replaced by 4096's own times x factor
    (plus a jitter that alternates sign), so both sides keep the real spread of this machine."""
    samples = samples[samples["path"] == "native"].copy()
    base = samples[samples["page_size_bytes"] == 4096].sort_values(["benchmark", "repeat", "run"])
    other_index = samples[samples["page_size_bytes"] == 8192].sort_values(["benchmark", "repeat", "run"]).index
    signs = [1 if i % 2 else -1 for i in range(len(base))]
    samples.loc[other_index, "time_ms"] = [t * factor * (1 + sign * jitter)
                                           for t, sign in zip(base["time_ms"], signs)]
    return samples


def test_verdicts_on_the_measured_samples(small_bench):
    samples = small_bench.samples
    timings = timing_summary(samples[samples["path"] == "native"])
    spread = (timings["max_ms"] / timings["min_ms"]).max()
    # 8192 exactly as fast as 4096: never faster or slower; equivalent where the spread allows
    same = delta_table(scaled(samples, 1.0))
    assert set(same["verdict"]) <= {"equivalent", "not resolved"}
    for row in same.itertuples():
        inside = -row.equivalence_pct <= row.delta_ci_low_pct and row.delta_ci_high_pct <= row.equivalence_pct
        assert (row.verdict == "equivalent") == inside
    assert (same["delta_ci_low_pct"] <= 0).all() and (same["delta_ci_high_pct"] >= 0).all()
    # faster or slower by more than the widest spread measured: every benchmark called
    faster = delta_table(scaled(samples, 0.9 / spread))
    assert set(faster["verdict"]) == {"faster"} and (faster["delta_ci_high_pct"] < 0).all()
    assert (faster["p_adjusted"] < 0.05).all() and (faster["p_adjusted"] >= faster["p_value"]).all()
    slower = delta_table(scaled(samples, 1.1 * spread))
    assert set(slower["verdict"]) == {"slower"} and (slower["delta_ci_low_pct"] > 0).all()
    # one sample per page size has no interval: however large the difference, nothing is called
    single = scaled(samples, 0.1)
    single = single[(single["repeat"] == 0) & (single["run"] == 0)]
    assert set(delta_table(single)["verdict"]) == {"not resolved"}
    assert summary_line(faster) == f"8192: {len(faster)} faster, 0 slower, 0 equivalent within ±3%, 0 not resolved " \
                                   "(3 repeats × 2 runs vs baseline 4096)"


def test_the_real_verdicts_follow_their_intervals(small_bench):
    for path in ("native", "python"):
        for measure in ("time_ms", "cpu_ms", "best_ms"):
            delta = small_bench.delta(measure=measure, path=path)
            assert len(delta) == 6 and set(delta["page_size_bytes"]) == {8192} and set(delta["path"]) == {path}
            for row in delta.itertuples():
                assert row.delta_ci_low_pct <= row.delta_pct <= row.delta_ci_high_pct
                called = row.p_adjusted < 0.05
                if row.verdict == "faster":  # 8192 takes less time than 4096
                    assert called and row.delta_ci_high_pct < 0
                elif row.verdict == "slower":
                    assert called and row.delta_ci_low_pct > 0
                elif row.verdict == "equivalent":
                    assert -3 <= row.delta_ci_low_pct and row.delta_ci_high_pct <= 3
                else:
                    assert row.verdict == "not resolved"
                    assert not called or row.delta_ci_low_pct <= 0 <= row.delta_ci_high_pct
                assert row.delta_pct == pytest.approx((row.median_ms / row.baseline_ms - 1) * 100)
            counts = delta["verdict"].value_counts()
            assert small_bench.summary_line(measure=measure, path=path) == (
                f"8192: {counts.get('faster', 0)} faster, {counts.get('slower', 0)} slower, "
                f"{counts.get('equivalent', 0)} equivalent within ±3%, {counts.get('not resolved', 0)} not resolved "
                "(3 repeats × 2 runs vs baseline 4096)")


def test_seed_style_table_prints_the_seeds_own_row():
    delta = pd.DataFrame([{
        "path": "native", "benchmark": "Select maps 10000 rows", "baseline_page_size_bytes": 4096,
        "page_size": "8k", "page_size_bytes": 8192, "baseline_ms": 5.57, "baseline_min_ms": 5.5,
        "baseline_max_ms": 5.6, "median_ms": 4.6, "min_ms": 4.58, "max_ms": 4.67,
        "delta_pct": (4.6 / 5.57 - 1) * 100, "delta_ci_low_pct": -18.2, "delta_ci_high_pct": -16.0, "p_value": 0.002,
        "delta_min_pct": (4.58 / 5.57 - 1) * 100, "delta_max_pct": (4.67 / 5.57 - 1) * 100,
        "verdict": "faster", "equivalence_pct": 3.0, "samples_needed": 4, "repeats": 3, "runs": 2,
        "measure": "time_ms"}])
    table = seed_style_table(delta)
    row = table.loc["Select maps 10000 rows"]
    assert list(row) == ["5.57ms", "4.58-4.67ms", "-16 to -18%", "-17.4% [-18.2%, -16.0%]", "faster"]
    assert summary_line(delta) == ("8192: 1 faster, 0 slower, 0 equivalent within ±3%, 0 not resolved "
                                   "(3 repeats × 2 runs vs baseline 4096)")


@pytest.mark.parametrize("low, high, verdict, expected", [
    (-20.0, -15.0, "faster", "reproduced"),
    (-30.0, -25.0, "faster", "reproduced, larger"),
    (-10.0, -2.0, "faster", "faster, less than the experiment"),
    (-5.0, 3.0, "not resolved", "does not hold"),
    (2.0, 6.0, "slower", "does not hold"),
    (-25.0, 5.0, "not resolved", "undecided"),
    (-30.0, -25.0, "not resolved", "undecided"),
    (float("nan"), float("nan"), "not resolved", "no interval"),
])
def test_seed_check_reads_our_interval_against_the_seeds_range(low, high, verdict, expected):
    assert seed_check(-16, -18, low, high, verdict) == expected  # the seed's "-16 to -18%"
    assert seed_check(float("nan"), float("nan"), low, high, verdict) is None  # selectBytes: no delta


def test_seed_comparison_puts_the_seeds_numbers_beside_ours(small_bench):
    table = seed_comparison(small_bench.delta())
    seed = seed_table()
    assert list(table.index[: len(seed)]) == list(seed["benchmark"])
    assert table.loc["Select maps 10000 rows", "seed_baseline_ms"] == 5.57
    assert table.loc["Select maps 10000 rows", "seed_verdict"] == "faster"
    assert table.loc["selectBytes (all sizes)", "seed_verdict"] == "unchanged"
    assert pd.isna(table.loc["selectBytes (all sizes)", "our_baseline_ms"])
    ours = small_bench.delta().set_index("benchmark")
    for name in ("Batched write tx 100 rows", "Batched write tx 1000 rows", EXECUTE_BATCH_NAME,
                 "Transaction read 500 rows", "Transaction read 1000 rows"):
        assert table.loc[name, "our_baseline_ms"] == ours.loc[name, "baseline_ms"]
        assert table.loc[name, "our_verdict"] == ours.loc[name, "verdict"]
        assert table.loc[name, "seed_check"] == seed_check(
            table.loc[name, "seed_delta_pct_from"], table.loc[name, "seed_delta_pct_to"],
            ours.loc[name, "delta_ci_low_pct"], ours.loc[name, "delta_ci_high_pct"], ours.loc[name, "verdict"])
    assert table.index[-1] == "Select maps 2000 rows"  # ours, with another row count than the seed's
    assert pd.isna(table.loc["Select maps 2000 rows", "seed_baseline_ms"])


def test_delta_needs_a_measured_baseline_and_one_path(small_bench):
    with pytest.raises(UsageError, match="baseline 16384 was not measured"):
        small_bench.delta(baseline=16384)
    with pytest.raises(UsageError, match="measure must be one of"):
        small_bench.delta(measure="wall")
    with pytest.raises(UsageError, match="a delta table is for one path"):
        delta_table(small_bench.samples)
    reversed_ = small_bench.delta(baseline=8192)
    assert set(reversed_["page_size_bytes"]) == {4096}


# -- the two paths side by side, and the tree beside the times ------------------------------------------

def test_the_share_of_the_python_time_the_native_path_accounts_for(small_bench):
    shares = share_table(small_bench.samples).set_index(["benchmark", "page_size_bytes"])
    assert len(shares) == 6 * len(SIZES)
    samples = small_bench.samples
    for (name, size), row in shares.iterrows():
        part = samples[(samples["benchmark"] == name) & (samples["page_size_bytes"] == size)]
        native = part.loc[part["path"] == "native", "time_ms"].median()
        python = part.loc[part["path"] == "python", "time_ms"].median()
        assert row["native_share_pct"] == pytest.approx(100 * native / python)
        assert row["share_ci_low_pct"] <= row["native_share_pct"] <= row["share_ci_high_pct"]
    with pytest.raises(UsageError, match="python was not measured"):
        share_table(samples[samples["path"] == "native"])


def test_btree_depth_and_leaves_stand_beside_the_times(small_bench):
    table = btree_beside_times(small_bench.btree, small_bench.samples)
    assert len(table) == 6 * len(SIZES)
    trees = btree_summary(small_bench.btree).set_index("page_size_bytes")
    for row in table.itertuples():
        assert row.rows == SMALL["rows"]
        assert (row.height, row.leaf_pages) == (trees.loc[row.page_size_bytes, "height"],
                                                trees.loc[row.page_size_bytes, "leaf_pages"])
        assert row.native_ms > 0 and row.python_ms > 0


# -- dbstat: the B-tree per page size -------------------------------------------------------------

def test_dbstat_heights_are_plausible(small_bench):
    assert small_bench.settings["dbstat"] is True
    btree = small_bench.btree
    assert set(btree["tree_source"]) == {"dbstat"} and set(btree["btree"]) == {"items"}
    summary = btree_summary(btree).set_index("page_size_bytes")
    for size in SIZES:
        levels = btree[btree["page_size_bytes"] == size].sort_values("level")
        assert levels["pages"].iloc[0] == 1  # one root
        assert levels["page_type"].iloc[-1] == "leaf" and set(levels["page_type"].iloc[:-1]) <= {"internal"}
        assert levels["cells"].iloc[-1] == SMALL["rows"]  # a rowid table keeps every row in its leaves
        assert 0.5 < summary.loc[size, "leaf_fill"] <= 1
    assert summary.loc[8192, "height"] <= summary.loc[4096, "height"]
    ratio = summary.loc[8192, "leaf_pages"] / summary.loc[4096, "leaf_pages"]
    assert 0.4 < ratio < 0.6  # twice the page, about half the leaves
    assert summary.loc[4096, "cells_per_leaf"] == pytest.approx(SMALL["rows"] / summary.loc[4096, "leaf_pages"])


@pytest.mark.parametrize("rows", [1, 30, 20_000])
def test_larger_pages_are_never_deeper(tmp_path, rows, monkeypatch):
    heights = {}
    for size in (1024, 4096, 8192):
        path = tmp_path / f"{size}.sqlite"
        connection = create_database(path, size)
        try:
            load_rows(connection, rows)
            levels = btree_levels(connection, path, size)
            monkeypatch.setattr(sqlite_database, "dbstat_available", lambda connection: False)
            walked = btree_levels(connection, path, size)
            monkeypatch.undo()
        finally:
            connection.close()
        assert [(l["level"], l["pages"], l["cells"]) for l in walked] == [
            (l["level"], l["pages"], l["cells"]) for l in levels]
        assert walked[0]["tree_source"].startswith("file walk")
        heights[size] = len(levels)
    assert heights[1024] >= heights[4096] >= heights[8192]
    if rows == 1:
        assert heights == {1024: 1, 4096: 1, 8192: 1}
    if rows == 20_000:  # 728 leaves need a second interior level at 4k; 361 fit under one 8k root
        assert (heights[4096], heights[8192]) == (3, 2)


# -- WAL frames per write transaction ---------------------------------------------------------------

def test_wal_frames_per_write_transaction(small_bench):
    frames = small_bench.wal_frames
    writes = {"Batched write tx 100 rows", "Batched write tx 1000 rows", EXECUTE_BATCH_NAME}
    assert set(frames["benchmark"]) == writes
    assert (frames.groupby(["benchmark", "page_size_bytes"]).size() == SMALL["frame_transactions"]).all()
    assert (frames["wal_frames"] >= 1).all()
    assert (frames["wal_frames"] == frames["wal_frames_checkpoint"]).all()  # WAL growth = PRAGMA wal_checkpoint's log
    assert (frames["wal_bytes"] == frames["wal_frames"] * (frames["page_size_bytes"] + 24)).all()
    summary = wal_frames_summary(frames, small_bench.btree).set_index(["benchmark", "page_size_bytes"])
    for size in SIZES:
        small = summary.loc[("Batched write tx 100 rows", size)]
        large = summary.loc[("Batched write tx 1000 rows", size)]
        assert large["wal_frames_avg"] > 3 * small["wal_frames_avg"]  # the larger batch writes more frames
        assert large["wal_frames_avg"] >= large["leaves_filled"]  # at least the leaves its rows fill
        # executemany writes the same pages as single executes of the same rows
        assert summary.loc[(EXECUTE_BATCH_NAME, size), "wal_frames_avg"] == small["wal_frames_avg"]
    assert (summary.loc[("Batched write tx 1000 rows", 8192), "wal_frames_avg"]
            < summary.loc[("Batched write tx 1000 rows", 4096), "wal_frames_avg"])  # fewer, larger pages


# -- bad input is refused before anything is created -------------------------------------------------

@pytest.mark.parametrize("arguments, message", [
    (dict(page_sizes=(4096, 3000)), "powers of two from 512 to 65536, got 3000"),
    (dict(page_sizes=(256,)), "powers of two from 512 to 65536, got 256"),
    (dict(page_sizes=(131072,)), "powers of two from 512 to 65536, got 131072"),
    (dict(page_sizes=()), "page_sizes is empty"),
    (dict(page_sizes=4096), "must be a list"),
    (dict(page_sizes=(4096, 4096)), "twice"),
    (dict(rows=0), "rows must be a whole number >= 1"),
    (dict(rows=400), "a transaction read of 500 rows needs a table of at least that many"),
    (dict(write_batches=(100, 0)), "write_batches must be a whole number >= 1"),
    (dict(write_batches=100), "must be a list of row counts"),
    (dict(execute_batch_rows=-5), "execute_batch_rows must be"),
    (dict(repeats=0), "repeats must be"),
    (dict(runs=1.5), "runs must be"),
    (dict(min_sample_seconds=0), "min_sample_seconds must be > 0"),
    (dict(frame_transactions=0), "frame_transactions must be"),
    (dict(synchronous="sometimes"), "synchronous must be one of OFF, NORMAL, FULL, EXTRA"),
    (dict(mmap_bytes=-1), "mmap_bytes must be"),
    (dict(paths=("native", "native")), "paths must name each of native, python at most once"),
    (dict(paths=("c",)), "paths must name each of"),
    (dict(paths=()), "paths must name each of"),
    (dict(paths="native"), "paths must be a list"),
])
def test_bad_parameters_are_refused_before_side_effects(tmp_path, arguments, message):
    with pytest.raises(UsageError, match=message):
        run_sqlite_bench(**{**SMALL, **arguments}, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_directory_is_refused(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        run_sqlite_bench(**SMALL, directory=tmp_path / "nowhere")
    assert not (tmp_path / "nowhere").exists()


def test_create_database_refuses_bad_page_sizes_without_creating_a_file(tmp_path):
    with pytest.raises(UsageError, match="powers of two"):
        create_database(tmp_path / "x.sqlite", 5000)
    assert list(tmp_path.iterdir()) == []


def test_without_keep_the_databases_are_removed(tmp_path):
    result = run_sqlite_bench(page_sizes=(8192,), rows=50, write_batches=(10,), execute_batch_rows=10,
                              read_batches=(20,), repeats=1, runs=1, min_sample_seconds=0.001,
                              frame_transactions=1, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert result.settings["database_directory"] is None
    assert len(result.samples) == 8 and set(result.samples["page_size_bytes"]) == {8192}  # 4 benchmarks, 2 paths
    with pytest.raises(UsageError, match="at least two page sizes"):
        result.delta()
