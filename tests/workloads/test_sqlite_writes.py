"""The Voron post's workload ("The cost of random writes") on SQLite in WAL mode, at small sizes."""

from __future__ import annotations

import pandas as pd
import pytest

from pagelab.common.errors import UsageError
from pagelab.workloads.random_writes import sqlite as sqlite_writes
from pagelab.workloads.random_writes.report import seed_comparison
from pagelab.workloads.random_writes.run import COLUMNS
from pagelab.workloads.random_writes.sqlite import (
    file_page_size,
    frames_appended,
    open_database,
    run_sqlite_write_cost,
    tree_levels_dbstat,
    walk_btree,
)

from .conftest import SMALL


def test_rows_are_shaped_like_the_prototypes(small_sqlite, small_pagelab):
    assert list(small_sqlite.columns[: len(COLUMNS)]) == COLUMNS
    assert list(zip(small_sqlite["page_size"], small_sqlite["key_order"])) == list(
        zip(small_pagelab["page_size"], small_pagelab["key_order"]))
    assert set(small_sqlite["engine"]) == {"sqlite"}
    table = seed_comparison(small_pagelab, small_sqlite)
    assert "sqlite random" in table.columns and "pagelab random" in table.columns


def test_the_databases_have_the_requested_page_size(small_sqlite):
    assert list(small_sqlite["page_size_verified"]) == list(small_sqlite["page_size"])


@pytest.mark.parametrize("page_size", [1024, 65536])
def test_page_size_is_set_before_the_table_and_checked(tmp_path, page_size):
    path = tmp_path / "kv.sqlite"
    connection = open_database(path, page_size)
    try:
        assert connection.execute("PRAGMA page_size").fetchone()[0] == page_size
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    finally:
        connection.close()
    assert file_page_size(path) == page_size
    with pytest.raises(UsageError, match="exists"):
        open_database(path, page_size)
    with pytest.raises(UsageError, match="powers of two"):
        open_database(tmp_path / "other.sqlite", 3000)


def test_wal_frames_per_commit_are_positive_and_larger_for_random_keys(small_sqlite):
    assert (small_sqlite["pages_min"] >= 1).all()
    assert (small_sqlite["wal_checkpoints"] == 0).all()
    for page_size in SMALL["page_sizes"]:
        rows = small_sqlite[small_sqlite["page_size"] == page_size].set_index("key_order")
        assert rows.loc["random", "pages_avg"] > 2 * rows.loc["sequential", "pages_avg"]
        assert rows.loc["random", "bytes_total"] == rows.loc["random", "pages_total"] * (page_size + 24)


def test_checkpoints_between_commits_do_not_change_the_counts(tmp_path, small_sqlite):
    tight = run_sqlite_write_cost(page_sizes=(4096,), transactions=SMALL["transactions"],
                                  items_per_transaction=SMALL["items_per_transaction"], seed=SMALL["seed"],
                                  key_order="random", directory=tmp_path, wal_limit_bytes=256 * 1024, workers=1)
    assert tight["wal_checkpoints"].iloc[0] > 5
    loose = small_sqlite[(small_sqlite["page_size"] == 4096) & (small_sqlite["key_order"] == "random")]
    same = ["pages_avg", "pages_max", "pages_total", "pages_std", "tree_depth", "leaf_pages"]
    pd.testing.assert_frame_equal(tight[same].reset_index(drop=True), loose[same].reset_index(drop=True))
    assert list(tmp_path.iterdir()) == []


def test_same_seed_same_frames(tmp_path, small_sqlite):
    again = run_sqlite_write_cost(**SMALL, directory=tmp_path, workers=2)
    columns = ["pages_avg", "pages_max", "pages_total", "pages_std", "tree_depth", "pages_per_level", "leaf_fill"]
    pd.testing.assert_frame_equal(again[columns], small_sqlite[columns])


def test_dbstat_is_compiled_in_and_agrees_with_the_file_walk(tmp_path):
    path = tmp_path / "kv.sqlite"
    connection = open_database(path, 4096)
    try:
        assert sqlite_writes.dbstat_available(connection)
        keys = [b"%016d" % n for n in range(0, 60_000, 7)]
        connection.execute("BEGIN")
        connection.executemany("INSERT INTO kv VALUES (?, ?)", [(key, bytes(128)) for key in keys])
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        from_dbstat = tree_levels_dbstat(connection)
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'kv'").fetchone()[0]
    finally:
        connection.close()
    walked = walk_btree(path, root, 4096)
    assert len(from_dbstat) >= 3
    for mine, theirs in zip(walked, from_dbstat, strict=True):
        assert (mine["level"], mine["kind"], mine["pages"], mine["cells"]) == (
            theirs["level"], theirs["kind"], theirs["pages"], theirs["cells"])
        assert mine["used_bytes"] == theirs["used_bytes"]
    assert walked[-1]["cells"] + sum(level["cells"] for level in walked[:-1]) == len(keys)  # records in interior cells too


def test_frames_from_wal_growth():
    assert frames_appended(0, 32 + 3 * (4096 + 24), 4096) == 3  # a new WAL: its header once
    assert frames_appended(32 + 4120, 32 + 5 * 4120, 4096) == 4
    with pytest.raises(RuntimeError, match="whole number"):
        frames_appended(0, 4096, 4096)


def test_without_dbstat_the_tree_comes_from_the_file(tmp_path, monkeypatch, small_sqlite):
    monkeypatch.setattr(sqlite_writes, "dbstat_available", lambda connection: False)
    walked = run_sqlite_write_cost(page_sizes=(4096,), transactions=SMALL["transactions"],
                                   items_per_transaction=SMALL["items_per_transaction"], seed=SMALL["seed"],
                                   key_order="random", directory=tmp_path, workers=1)
    assert walked["tree_source"].iloc[0].startswith("file walk")
    expected = small_sqlite[(small_sqlite["page_size"] == 4096) & (small_sqlite["key_order"] == "random")].iloc[0]
    assert walked["pages_per_level"].iloc[0] == expected["pages_per_level"]
    assert walked["leaf_fill"].iloc[0] == pytest.approx(expected["leaf_fill"])
