"""Building prototype trees and timing cold point lookups on them (pagelab.workloads.lookups: build, run)."""

from __future__ import annotations

import math

import pytest

from pagelab.common.errors import UsageError
from pagelab.models.blocksize import DEFAULT_LAYOUT, model_table
from pagelab.storage import PAGE_SIZES, max_key_bytes
from pagelab.storage.bufferpool import MIN_FRAMES
from pagelab.workloads.lookups.report import fill_table
from pagelab.workloads.lookups.build import (
    PrototypeCapacity,
    build_tree,
    cell_fill,
    key_for,
    measured_fill,
    prototype_capacity,
)
from pagelab.workloads.lookups.run import measure_point_lookups

from .conftest import TREES

# Device IOPS given by the test, so no test depends on a fio profile.
FAKE_IOPS = {4096: 8000.0, 16384: 6000.0}
LOOKUPS = 1500


# -- the model's NodeCapacity from the prototype's layout ------------------------------------------


def test_capacity_is_the_protocol_the_model_takes():
    table = model_table({4096: 1000.0, 16384: 800.0}, n_keys=1e6, layout=prototype_capacity)
    assert list(table["keys_per_node"]) == [102, 409]  # (4096 - 16) // (2 + 6 + 32), (16384 - 16) // 40
    assert isinstance(prototype_capacity, PrototypeCapacity)


@pytest.mark.parametrize("page_size", PAGE_SIZES)
def test_capacity_matches_the_analytic_layout_for_32_byte_keys(page_size):
    # The model's default NodeLayout describes the same slotted page: the two must agree.
    assert prototype_capacity.leaf_cells(page_size, 32, 8) == DEFAULT_LAYOUT.leaf_cells(page_size, 32, 8)
    assert prototype_capacity.interior_cells(page_size, 32) == DEFAULT_LAYOUT.interior_cells(page_size, 32)


def test_capacity_refuses_keys_over_the_prototype_limit():
    too_long = max_key_bytes(1024) + 1
    assert prototype_capacity.leaf_cells(1024, too_long, 8) == 0
    assert prototype_capacity.interior_cells(1024, too_long) == 0
    assert prototype_capacity.interior_cells(4096, too_long) > 0


def test_ascending_inserts_fill_leaves_to_the_capacity():
    """The capacity is what the prototype really puts in a page: appends fill leaves completely."""
    built = build_tree(None, 4096, 20_000, order="sequential")
    capacity = prototype_capacity.leaf_cells(4096, 32, 8)
    leaf_level = built.levels[-1]
    assert leaf_level["pages"] == math.ceil(20_000 / capacity)
    assert built.leaf_cell_fill > 0.99


# -- building --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(TREES))
def test_built_tree_depth_and_fill_are_sane(built_trees, name):
    built = built_trees[name]
    page_size, n_keys, key_bytes = TREES[name]
    assert built.page_size == page_size and built.n_keys == n_keys and built.order == "random"
    assert built.depth == len(built.pages_per_level) and built.pages_per_level[0] == 1
    assert built.depth == (2 if name == "16k" else 3)
    assert built.levels[-1]["cells"] == n_keys
    # Random inserts leave nodes between half and completely full (ln 2 ~ 0.69 in theory).
    assert 0.5 < built.fill < 1
    assert 0.55 < built.leaf_cell_fill < 0.9
    assert built.leaf_cell_fill == pytest.approx(cell_fill({"page_size": page_size, "levels": built.levels},
                                                           key_bytes, 8, "leaf"))  # fmt: skip
    assert built.file_bytes >= (built.pages + 1) * page_size  # header page + tree pages


def test_measured_fill_after_random_inserts_is_near_ln2():
    fill = measured_fill(4096, n_keys=20_000)
    assert 0.6 < fill < 0.8
    assert measured_fill(4096, n_keys=20_000, order="sequential") > 0.99


def test_a_build_is_reused_only_when_its_arguments_match(tmp_path):
    path = tmp_path / "small.db"
    first = build_tree(path, 4096, 2_000)
    again = build_tree(path, 4096, 2_000, reuse=True)
    assert again.reused and again.pages_per_level == first.pages_per_level
    other = build_tree(path, 4096, 3_000, reuse=True)
    assert not other.reused and other.n_keys == 3_000


def test_keys_that_cannot_number_the_tree_are_refused(tmp_path):
    with pytest.raises(UsageError, match="cannot number"):
        build_tree(tmp_path / "x.db", 4096, 70_000, key_bytes=2)
    with pytest.raises(UsageError, match="do not fit"):
        build_tree(tmp_path / "x.db", 1024, 10, key_bytes=300)


# -- cold lookups ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_cache_results(built_trees):
    """Cold lookups through the smallest buffer pool the prototype allows (8 pages)."""
    return {
        name: measure_point_lookups(built.path, built.page_size, LOOKUPS, device_profile=FAKE_IOPS)
        for name, built in built_trees.items()
    }


@pytest.mark.parametrize("name", list(TREES))
def test_cold_lookups_with_a_tiny_cache_read_about_depth_pages(built_trees, tiny_cache_results, name):
    built, result = built_trees[name], tiny_cache_results[name]
    assert result.direct_io and result.cache_pages == MIN_FRAMES and result.missing == 0
    assert result.gets_per_lookup == built.depth  # every lookup visits one page per level
    # Every lookup passes the root, so even 8 frames keep it; below it the tree is larger than
    # the pool, so the other levels mostly go to the device: depth - 1 reads, give or take.
    leaves = built.pages_per_level[-1]
    assert built.depth - 1 - 0.45 <= result.reads_per_lookup <= built.depth
    assert result.reads_per_lookup >= 1 - MIN_FRAMES / leaves - 0.05  # the leaf is almost never cached


@pytest.mark.parametrize("name", ["4k", "16k-wide"])
def test_a_cache_holding_the_upper_levels_saves_their_reads(built_trees, tiny_cache_results, name):
    built, tiny = built_trees[name], tiny_cache_results[name]
    interior = sum(built.pages_per_level[:-1])
    cache_bytes = (2 * interior + 2 * MIN_FRAMES) * built.page_size
    # old_blocks_time 0: a page touched twice is made young at once, so the interior pages (touched
    # by lookup after lookup) stay and the leaves pass through the old sublist.
    kept = measure_point_lookups(built.path, built.page_size, LOOKUPS, cache_bytes, device_profile=FAKE_IOPS,
                                 pool_options={"old_blocks_time_ms": 0})  # fmt: skip
    warm_up = interior / LOOKUPS  # the cold pool reads every interior page once
    assert kept.reads_per_lookup <= 1 + warm_up + 0.02  # about the leaf only
    assert kept.reads_per_lookup < tiny.reads_per_lookup - 0.3
    # With InnoDB's default old_blocks_time (1 s) the same pool also saves reads, if fewer: in a
    # run this short an interior page touched again while old is not made young ("not young").
    default = measure_point_lookups(built.path, built.page_size, LOOKUPS, cache_bytes, device_profile=FAKE_IOPS,
                                    baseline=False)  # fmt: skip
    assert kept.reads_per_lookup <= default.reads_per_lookup < tiny.reads_per_lookup


def test_the_prediction_is_iops_over_measured_reads(built_trees, tiny_cache_results):
    built, result = built_trees["4k"], tiny_cache_results["4k"]
    assert result.device_iops == FAKE_IOPS[4096]
    assert result.predicted_lookups_per_s == pytest.approx(FAKE_IOPS[4096] / result.reads_per_lookup)
    assert result.ratio == pytest.approx(result.lookups_per_s / result.predicted_lookups_per_s)
    assert result.lookups_per_s == pytest.approx(LOOKUPS / result.seconds)
    # The model's side: the same tree by the numbers (3 levels, its measured fill, 8 cached pages).
    assert result.fill == pytest.approx(built.leaf_cell_fill)
    assert result.model_levels == built.depth
    assert 1 < result.model_uncached_hops < result.model_hops < built.depth
    assert result.model_lookups_per_s == pytest.approx(FAKE_IOPS[4096] / result.model_uncached_hops)
    assert result.pread_iops > 0 and result.decode_us_per_page > 0
    assert result.meets_goal == (result.ratio >= 0.8)


def test_lookups_with_the_wrong_key_size_are_an_error(built_trees):
    built = built_trees["16k"]
    with pytest.raises(UsageError, match="found nothing"):
        measure_point_lookups(built.path, built.page_size, 50, key_bytes=16, device_profile=FAKE_IOPS, baseline=False)


def test_keys_sort_as_their_numbers():
    assert key_for(255) < key_for(256) < key_for(70_000)
    assert len(key_for(7)) == 32


def test_fill_table_samples_one_doubling_of_the_keys():
    table = fill_table([4096, 16384], n_keys=4_000, steps=2)
    assert list(table["block_size_bytes"]) == [4096, 16384]
    assert list(table["keys"]) == ["4,000..5,657"] * 2
    assert (table["leaf_fill_min"] <= table["leaf_fill"]).all() and (table["leaf_fill"] <= table["leaf_fill_max"]).all()
    assert table["leaf_fill"].between(0.5, 1).all()


# -- fio beside the lookups ------------------------------------------------------------------------


def test_fio_runs_between_slices_of_the_lookups(built_trees):
    """fio_rounds=3: fio before the lookups and after each of 3 slices, each slice set beside the
    runs either side of it; the pooled figure is against the mean of all four runs."""
    built = built_trees["4k"]
    result = measure_point_lookups(built.path, built.page_size, 600, device_profile=FAKE_IOPS, baseline=False,
                                   fio_beside_s=0.3, fio_rounds=3)  # fmt: skip
    assert len(result.fio_runs) == 4 and all(iops > 0 for iops in result.fio_runs)
    assert result.fio_beside_iops == pytest.approx(sum(result.fio_runs) / 4)
    assert result.fio_beside_ratio == pytest.approx(result.lookups_per_s * result.reads_per_lookup / result.fio_beside_iops)
    assert len(result.fio_round_ratios) == 3
    # Python's lookups next to fio's own reads of the same file: neither ten times faster nor slower.
    assert all(0.1 < ratio < 10 for ratio in result.fio_round_ratios)
    once = measure_point_lookups(built.path, built.page_size, 200, device_profile=FAKE_IOPS, baseline=False,
                                 fio_beside_s=0.3)  # fmt: skip
    assert len(once.fio_runs) == 2 and once.fio_round_ratios is None  # one slice: fio just before and just after


@pytest.mark.parametrize("rounds", [0, -1, True, 2.5, 601])
def test_a_bad_number_of_fio_rounds_is_refused_before_fio_runs(built_trees, rounds):
    built = built_trees["4k"]
    with pytest.raises(UsageError, match="fio_rounds must be a whole number from 1 to n_lookups"):
        measure_point_lookups(built.path, built.page_size, 600, device_profile=FAKE_IOPS, baseline=False,
                              fio_beside_s=30, fio_rounds=rounds)  # fmt: skip
