"""BTree.put's common case in C (_cellsearch.insert_in_gap) against put's Python path.

The C inserts a new key into its leaf's free gap over the pool's page objects, and the pool
counts the pages it met afterwards (BufferPool.count_hits); anything else falls back to Python.
These tests hold it to leaving exactly the pages, files, counts and LRU order the Python path
leaves, through commits, rollbacks, evictions and pages read back from the file, and to changing
nothing when it falls back."""

from __future__ import annotations

import itertools
import random

import pytest

from pagelab.storage import Database, StorageError, btree
from pagelab.storage._cellsearch import insert_in_gap

from .damaged import damaged_root

POOL_STATE = ("gets", "misses", "made_young", "not_young", "evictions", "pages_created", "pages_written")


class Rollback(Exception):
    pass


def _counting_c_path(monkeypatch) -> list[int]:
    """Route put through the real insert_in_gap, counting [calls, inserts it made]."""
    taken = [0, 0]

    def counted(*operands):
        met = insert_in_gap(*operands)
        taken[0] += 1
        taken[1] += met is not None
        return met

    monkeypatch.setattr(btree, "insert_in_gap", counted)
    return taken


def _workload(path, page_size: int, cache_pages: int, old_blocks_time_ms: int) -> tuple:
    """Puts (new keys and replacements), deletes, commits and rolled-back transactions (small
    ones: each keeps its pages in the pool until it ends) on a small pool, then the state a difference would show in: contents, pool counters, LRU order, files."""
    picker = random.Random(page_size + old_blocks_time_ms)
    clock = itertools.count(0.0, 0.25).__next__  # a page touched again 4 calls later is 1 s older
    keys: list[bytes] = []
    with Database.open(path, page_size=page_size, cache_bytes=cache_pages * page_size,
                       old_blocks_time_ms=old_blocks_time_ms, clock=clock) as db:  # fmt: skip
        for round_number in range(600):
            try:
                with db.transaction():
                    for _ in range(6):
                        roll = picker.random()
                        if roll < 0.7 or not keys:
                            key = picker.randbytes(picker.randint(1, 24))
                            keys.append(key)
                        else:
                            key = picker.choice(keys)
                        if roll > 0.95:
                            db.delete(key)
                        else:
                            db.put(key, picker.randbytes(picker.randint(0, 90)))
                    if round_number % 5 == 4:
                        raise Rollback
            except Rollback:
                pass
        pool = db._tree.pool
        state = {name: getattr(pool, name) for name in POOL_STATE}
        lru = [list(pool._old), list(pool._young)]
        contents = list(db.scan())
        db._tree.check()
    return contents, state, lru, path.read_bytes()


@pytest.mark.parametrize("page_size", [1024, 4096])
@pytest.mark.parametrize("old_blocks_time_ms", [0, 1000])
def test_the_c_insert_leaves_what_the_python_path_leaves(tmp_path, monkeypatch, page_size, old_blocks_time_ms):
    taken = _counting_c_path(monkeypatch)
    with_c = _workload(tmp_path / "c.db", page_size, 24, old_blocks_time_ms)
    monkeypatch.setattr(btree, "insert_in_gap", lambda *operands: None)
    python_only = _workload(tmp_path / "python.db", page_size, 24, old_blocks_time_ms)
    assert with_c[0] == python_only[0] and len(with_c[0]) > 1000
    assert with_c[1] == python_only[1]  # every count, including gets, made young and not young
    assert with_c[2] == python_only[2]  # the LRU, page by page
    assert with_c[3] == python_only[3]  # the page file, byte for byte
    state = with_c[1]
    assert state["evictions"] > 100 and state["misses"] > 100  # pages left and came back undecoded
    # the C path really did its share: pages read back from the file are not decoded until the
    # Python path's first change decodes them, and 1 KiB leaves are often too full for a gap insert
    assert taken[1] > taken[0] // 6


def test_an_insert_into_a_gap_shared_with_the_rollback_snapshot_copies_first(tmp_path, monkeypatch):
    """Deleting the lowest cell in a transaction grows the gap into bytes the rollback snapshot
    still holds; a C insert there must copy the page's bytes first, so the rollback restores the
    deleted key and forgets the new one."""
    taken = _counting_c_path(monkeypatch)
    with Database.open(tmp_path / "t.db", page_size=4096) as db:
        for number in range(20):
            db.put(b"key%03d" % number, b"v" * 30)  # autocommit: each put a committed transaction
        lowest = b"key019"  # the last insert's cell is the lowest on the page
        before = list(db.scan())
        inserts_before = taken[1]
        try:
            with db.transaction():
                leaf = db._tree.pool.peek(db._tree.meta.root)
                assert leaf.content_start == leaf.offsets[19]
                db.delete(lowest)
                assert leaf.content_start > leaf.cow_floor
                db.put(b"key100", b"w" * 30)
                assert taken[1] == inserts_before + 1  # by the C path, not a fallback
                assert db.get(b"key100") == b"w" * 30 and db.get(lowest) is None
                raise Rollback
        except Rollback:
            pass
        assert list(db.scan()) == before
    with Database.open(tmp_path / "t.db") as db:
        assert list(db.scan()) == before


def test_what_the_c_path_does_not_take_it_leaves_untouched(tmp_path):
    """A replace, a leaf with no room in its gap and a page not in the pool give None, and the
    pages are as they were."""
    with Database.open(tmp_path / "t.db", page_size=1024, cache_bytes=8 * 1024) as db:
        for number in range(400):
            db.put(b"k%04d" % number, b"x" * 20)
        tree, pool = db._tree, db._tree.pool
        resident, root, depth = pool._resident, tree.meta.root, tree.meta.depth
        images = {page_no: frame.image() for page_no, frame in resident.items()}
        gets = pool.gets
        assert insert_in_gap(resident, pool.mark_dirty, root, depth, b"k0399", b"y") is None  # present
        assert insert_in_gap(resident, pool.mark_dirty, root, depth, b"k0399a", b"y" * 900) is None  # no room
        assert insert_in_gap({}, pool.mark_dirty, root, depth, b"k0399a", b"y") is None  # nothing resident
        assert insert_in_gap(resident, pool.mark_dirty, root, depth, "text", b"y") is None  # not bytes
        assert insert_in_gap(resident, pool.mark_dirty, root, depth + 1, b"k0399a", b"y") is None  # wrong depth
        assert {page_no: frame.image() for page_no, frame in resident.items()} == images
        assert pool.gets == gets
        met = insert_in_gap(resident, pool.mark_dirty, root, depth, b"k0399a", b"y")
        assert met is not None and len(met) == depth and met[0].page_no == root and met[-1].is_leaf
        assert b"k0399a" in met[-1].keys


def test_insert_in_gap_refuses_bad_operands_clearly():
    with pytest.raises(TypeError, match="takes 6 arguments"):
        insert_in_gap({}, print, 1, 1, b"k")
    with pytest.raises(TypeError, match="resident must be the pool's dict"):
        insert_in_gap([], print, 1, 1, b"k", b"v")


def test_a_child_pointer_to_the_header_page_is_named_as_damage(tmp_path):
    """The header page is always in the pool and is no tree page: a descent led there by a damaged
    pointer must end in the StorageError the Python path gives, not in an AttributeError."""
    with Database.open(damaged_root(tmp_path, "header")) as db:
        with pytest.raises(StorageError, match="page 0 is not an interior page.*the file is damaged"):
            db.put(b"k00001a", b"v")  # the Python path: the root was not decoded yet, it decodes it
        assert db._tree.pool.peek(db._tree.meta.root)._keys is not None  # so the next put is C's to try
        with pytest.raises(StorageError, match="page 0 is not an interior page.*the file is damaged"):
            db.put(b"k00001a", b"v")
