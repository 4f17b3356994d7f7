"""The Voron post's workload ("The cost of random writes") on the storage prototype, at small sizes."""

from __future__ import annotations

import pandas as pd
import pytest

from pagelab.common.errors import UsageError
from pagelab.workloads.random_writes import report as random_writes_report
from pagelab.workloads.random_writes import run as random_writes_run
from pagelab.workloads.random_writes.report import seed_comparison, seed_table
from pagelab.workloads.random_writes.run import COLUMNS, make_ids, make_keys, run_random_write_cost
from tests.conftest import repr_in_another_process
from tests.notebook_checks import figure_texts, internal_labels

from .conftest import SMALL

TIMING = ["seconds", "cpu_seconds"]


def row(frame: pd.DataFrame, page_size: int, order: str) -> pd.Series:
    rows = frame[(frame["page_size"] == page_size) & (frame["key_order"] == order)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_one_row_per_page_size_and_key_order(small_pagelab):
    assert list(small_pagelab.columns[: len(COLUMNS)]) == COLUMNS
    assert list(zip(small_pagelab["page_size"], small_pagelab["key_order"])) == [
        (4096, "sequential"), (4096, "random"), (16384, "sequential"), (16384, "random")]
    assert set(small_pagelab["engine"]) == {"pagelab"}
    assert (small_pagelab["transactions"] == 200).all() and (small_pagelab["items_per_transaction"] == 20).all()


def test_sequential_keys_write_far_fewer_pages_than_random(small_pagelab):
    for page_size in SMALL["page_sizes"]:
        sequential, random_ = row(small_pagelab, page_size, "sequential"), row(small_pagelab, page_size, "random")
        assert random_["pages_avg"] > 3 * sequential["pages_avg"], page_size
        assert random_["pages_total"] > 3 * sequential["pages_total"]
        assert random_["bytes_total"] > 3 * sequential["bytes_total"]
        # sequential appends fill leaves; random inserts split them in the middle
        assert sequential["leaf_fill"] > 0.9 and 0.5 < random_["leaf_fill"] < 0.85


def test_the_figures_are_consistent(small_pagelab):
    for _, r in small_pagelab.iterrows():
        assert r["pages_min"] <= r["pages_avg"] <= r["pages_max"]
        assert r["pages_total"] == pytest.approx(r["pages_avg"] * r["transactions"])
        # each page image carries a 32-byte record header, each commit a 32-byte commit record
        assert r["bytes_total"] == r["pages_total"] * (r["page_size"] + 32) + 32 * r["transactions"]
        assert r["bytes_per_txn_avg"] == pytest.approx(r["bytes_total"] / r["transactions"])
        assert r["tree_depth"] == len(r["pages_per_level"]) and r["pages_per_level"][0] == 1
        assert r["leaf_pages"] == r["pages_per_level"][-1] and r["tree_pages"] == sum(r["pages_per_level"])
        assert r["pages_min"] >= 2  # at least one leaf and the header page


def test_same_seed_same_figures_and_workers_do_not_matter(small_pagelab):
    again = run_random_write_cost(**SMALL, workers=2)
    pd.testing.assert_frame_equal(small_pagelab.drop(columns=TIMING), again.drop(columns=TIMING))


def test_another_seed_draws_other_random_keys():
    assert repr(make_keys(1000, "random", seed=1)) == repr_in_another_process(
        "from pagelab.workloads.random_writes.run import make_keys", 'make_keys(1000, "random", seed=1)')
    assert make_keys(1000, "random", seed=1) != make_keys(1000, "random", seed=2)
    assert make_keys(1000, "sequential", seed=1) == make_keys(1000, "sequential", seed=2)


def test_keys_are_the_seed_programs():
    sequential = make_keys(1000, "sequential")
    assert sequential[:2] == [b"0000000000000000", b"0000000000000001"]
    assert sequential == sorted(sequential)
    keys = make_keys(10_000, "random", seed=3)
    assert all(len(key) == 16 and key.isdigit() for key in keys)
    assert len(set(keys)) == len(keys)
    assert keys != sorted(keys)
    assert all(0 <= number < 2**31 - 1 for number in make_ids(10_000, "random", seed=3))
    assert len(random_writes_run.make_value()) == 128


def test_a_file_backed_run_counts_the_same_pages(tmp_path, small_pagelab):
    on_disk = run_random_write_cost(page_sizes=(4096,), transactions=SMALL["transactions"],
                                    items_per_transaction=SMALL["items_per_transaction"], seed=SMALL["seed"],
                                    directory=tmp_path, synchronous=False, workers=1)
    in_memory = small_pagelab[small_pagelab["page_size"] == 4096].reset_index(drop=True)
    same = ["pages_avg", "pages_max", "pages_total", "pages_std", "bytes_total", "tree_depth", "leaf_pages"]
    pd.testing.assert_frame_equal(on_disk[same], in_memory[same])
    assert set(on_disk["backend"]) == {"file"}
    assert list(tmp_path.iterdir()) == []  # its temporary directory is gone


def test_one_key_order_and_bad_arguments():
    only = run_random_write_cost(page_sizes=(8192,), transactions=5, items_per_transaction=3, key_order="random",
                                 workers=1)
    assert list(only["key_order"]) == ["random"]
    with pytest.raises(UsageError, match="key_order"):
        run_random_write_cost(page_sizes=(8192,), transactions=5, items_per_transaction=3, key_order="reverse")
    with pytest.raises(UsageError, match="page size"):
        run_random_write_cost(page_sizes=(3000,), transactions=5, items_per_transaction=3)
    with pytest.raises(UsageError, match="does not exist"):
        run_random_write_cost(page_sizes=(8192,), transactions=5, items_per_transaction=3, directory="/nonexistent/x")


def test_the_seeds_table_beside_ours(small_pagelab):
    seed = seed_table()
    assert list(seed["statistic"]) == ["average", "max", "total", "std_dev"]
    table = seed_comparison(small_pagelab)
    assert list(table.index) == ["average", "max", "total", "std_dev"]
    assert list(table.columns) == ["Voron (the post) sequential", "pagelab sequential", "Voron (the post) random",
                                   "pagelab random"]
    assert table.loc["average", "Voron (the post) sequential"] == 7.06
    assert table.loc["total", "Voron (the post) random"] == 556973
    ours = row(small_pagelab, 4096, "random")
    assert table.loc["std_dev", "pagelab random"] == pytest.approx(ours["pages_std"])
    # a page size the seed did not run: only the seed's columns and ours where we have rows
    assert list(seed_comparison(small_pagelab, page_size=8192).columns) == ["Voron (the post) sequential",
                                                                           "Voron (the post) random"]


def test_tables_and_plot_for_the_notebook(small_pagelab):
    import matplotlib

    matplotlib.use("Agg")
    table = random_writes_report.pages_per_transaction_table(small_pagelab)
    assert list(table.index.get_level_values("page_size_label")) == ["4k", "16k"]
    assert (table["random ÷ sequential"] > 3).all()
    figure = random_writes_report.plot_pages_per_transaction(small_pagelab)
    assert len(figure.axes) == 2
    assert not internal_labels(figure_texts(figure)) and "key order" in figure_texts(figure)  # a legend in words
    estimate = random_writes_report.expected_random_pages(small_pagelab)
    assert (estimate["distinct_leaves_expected"] <= estimate["items_per_transaction"]).all()
