"""The B+tree through an in-memory database: splits, limits, deletes, scans, statistics."""

from __future__ import annotations

import math
import random

import pytest

from pagelab.common.errors import UsageError
from pagelab.storage import Database, EntryTooLargeError


def random_keys(count: int, seed: int = 1, length: int = 16) -> list[bytes]:
    rng = random.Random(seed)
    return [rng.randbytes(length) for _ in range(count)]


@pytest.mark.parametrize("page_size, limit", [(4096, 1012), (16384, 4084), (65536, 16372)])
def test_an_oversized_key_is_refused_naming_the_limit_and_the_page_size(page_size, limit):
    db = Database.open(page_size=page_size)
    db.put(b"x" * limit, b"fits")
    with pytest.raises(EntryTooLargeError) as caught:
        db.put(b"x" * (limit + 1), b"v")
    message = str(caught.value)
    assert f"key of {limit + 1} bytes" in message and f"{limit}-byte limit" in message
    assert f"{page_size // 1024}k pages" in message
    assert isinstance(caught.value, UsageError)
    assert len(db) == 1


def test_the_key_limit_shrinks_with_the_page_seed_000s_risk():
    """Going from 64 KiB to 16 KiB pages cuts the longest key to a quarter (InnoDB halves its
    3072-byte index limit for each halving of the page): keys that fit before are refused."""
    key = b"k" * 5000
    Database.open(page_size="64k").put(key, b"")
    with pytest.raises(EntryTooLargeError, match="4084-byte limit for 16k pages"):
        Database.open(page_size="16k").put(key, b"")


def test_an_oversized_value_is_refused_and_the_transaction_goes_on():
    db = Database.open(page_size=1024)
    with db.transaction():
        db.put(b"a", b"1")
        with pytest.raises(EntryTooLargeError, match="value of 255 bytes is over the 254-byte limit for 1k pages"):
            db.put(b"b", b"v" * 255)
        db.put(b"c", b"3")
    assert list(db.scan()) == [(b"a", b"1"), (b"c", b"3")]


@pytest.mark.parametrize("page_size", [1024, 4096, 16384])
def test_random_inserts_split_into_a_sorted_balanced_tree(page_size):
    db = Database.open(page_size=page_size, cache_bytes=16 << 20)
    keys = random_keys(6000)
    with db.transaction():
        for key in keys:
            db.put(key, key[::-1])
    db.check()
    assert [k for k, _ in db.scan()] == sorted(set(keys))
    assert all(db.get(key) == key[::-1] for key in keys[:500])
    assert db.get(b"absent") is None


def test_depth_grows_like_the_log_of_the_entries():
    db = Database.open(page_size=1024, cache_bytes=16 << 20)
    entry = 16 + 16 + 6  # key, value, slot and lengths
    leaf_capacity = (1024 - 16) // entry
    max_fanout = (1024 - 16) // (16 + 8) + 1
    depths = []
    inserted = 0
    keys = random_keys(40000, seed=2)
    for target in (20, 500, 5000, 40000):
        with db.transaction():
            for key in keys[inserted:target]:
                db.put(key, key)
        inserted = target
        stats = db.stats()
        depths.append(stats["depth"])
        leaves = stats["leaf_pages"]
        assert leaves >= target / leaf_capacity
        # interior pages are at least half full after splits, so fanout is between max/2 and max
        assert 1 + math.ceil(math.log(leaves, max_fanout)) <= stats["depth"] <= 1 + math.ceil(math.log(leaves, max_fanout / 2)) if leaves > 1 else stats["depth"] == 1
    assert depths == sorted(depths) and depths[0] == 1 and depths[-1] >= 4


def test_ascending_inserts_fill_leaves_and_random_ones_settle_near_69_percent():
    sequential = Database.open(page_size=4096, cache_bytes=32 << 20)
    shuffled = Database.open(page_size=4096, cache_bytes=32 << 20)
    keys = [b"%016d" % i for i in range(30000)]
    with sequential.transaction():
        for key in keys:
            sequential.put(key, b"v" * 100)
    random.Random(3).shuffle(keys)
    with shuffled.transaction():
        for key in keys:
            shuffled.put(key, b"v" * 100)
    assert sequential.stats()["leaf_fill"] > 0.97
    assert 0.6 < shuffled.stats()["leaf_fill"] < 0.8
    assert sequential.stats()["leaf_pages"] < shuffled.stats()["leaf_pages"]


def test_growing_values_split_the_leaf_they_are_in():
    db = Database.open(page_size=1024)
    for i in range(30):
        db.put(b"k%02d" % i, b"s")
    for i in range(30):
        db.put(b"k%02d" % i, b"L" * 200)
    db.check()
    assert db.stats()["leaf_pages"] >= 6
    assert all(value == b"L" * 200 for _, value in db.scan())


def test_deletes_do_not_merge_pages_and_the_space_is_reused():
    db = Database.open(page_size=1024, cache_bytes=4 << 20)
    keys = random_keys(3000, seed=4)
    with db.transaction():
        for key in keys:
            db.put(key, b"v" * 20)
    before = db.stats()
    with db.transaction():
        for key in keys:
            assert db.delete(key)
    assert not db.delete(keys[0])
    after = db.stats()
    assert len(db) == 0 and list(db.scan()) == []
    assert after["depth"] == before["depth"] and after["pages"] == before["pages"]
    assert after["empty_leaf_pages"] == after["leaf_pages"] and after["leaf_fill"] == 0
    db.check()
    with db.transaction():
        for key in keys:
            db.put(key, b"v" * 20)
    assert db.stats()["pages"] == before["pages"]  # the same ranges, the same pages
    db.check()


def test_scan_bounds():
    db = Database.open(page_size=1024)
    with db.transaction():
        for i in range(0, 200, 2):
            db.put(b"%03d" % i, b"%d" % i)

    def keys(*args, **kwargs):
        return [int(k) for k, _ in db.scan(*args, **kwargs)]

    assert keys() == list(range(0, 200, 2))
    assert keys(b"010", b"020") == [10, 12, 14, 16, 18]
    assert keys(b"010", b"020", end_inclusive=True) == [10, 12, 14, 16, 18, 20]
    assert keys(b"011", b"019") == [12, 14, 16, 18]
    assert keys(None, b"006") == [0, 2, 4]
    assert keys(b"190") == [190, 192, 194, 196, 198]
    assert keys(b"5") == [] and keys(b"020", b"010") == []


def test_a_scan_survives_changes_made_while_it_runs():
    db = Database.open(page_size=1024)
    with db.transaction():
        for i in range(1000):
            db.put(b"%04d" % i, b"x" * 30)
    seen = []
    for key, _ in db.scan():
        seen.append(key)
        at = int(key[:4])
        if at % 100 == 0:
            for i in range(at + 60, at + 90):  # delete ahead, beyond the leaf being read (25 keys a leaf)
                db.delete(b"%04d" % i)
            for i in range(50):  # and insert behind, forcing splits
                db.put(b"%04d-behind-%02d" % (at - 1, i), b"y" * 30)
    assert seen == sorted(set(seen))  # each key once, in order
    assert b"0061" not in seen and b"0059" in seen and b"0999" in seen
    assert not any(b"behind" in key for key in seen)


def test_stats_report_levels_and_fill():
    db = Database.open(page_size=1024, cache_bytes=4 << 20)
    with db.transaction():
        for key in random_keys(5000, seed=5):
            db.put(key, b"v" * 10)
    stats = db.stats()
    assert stats["depth"] == len(stats["levels"]) == len(stats["pages_per_level"])
    assert stats["pages_per_level"][0] == 1
    assert stats["pages"] == stats["leaf_pages"] + stats["interior_pages"] == sum(stats["pages_per_level"])
    assert [level["kind"] for level in stats["levels"]] == ["interior"] * (stats["depth"] - 1) + ["leaf"]
    assert stats["levels"][-1]["cells"] == stats["keys"] == 5000
    for level in stats["levels"]:
        assert 0 < level["fill"] <= 1 and level["used_bytes"] <= level["usable_bytes"]
    assert stats["max_key_bytes"] == 244
