"""BTree.get's descent in C (_cellsearch.descend) against the same descent in Python.

The C descent reads and searches every page of a lookup before the pool is told (BufferPool.replay);
these tests hold it to giving the answers, the counts and the pool state the Python path gives,
on trees built here with real files, and to leaving every irregular page to the Python path."""

from __future__ import annotations

import random

import pytest

from pagelab.storage import Database, StorageError, btree
from pagelab.storage._cellsearch import descend

from .damaged import damaged_root

POOL_STATE = ("gets", "misses", "made_young", "not_young", "evictions")


def _python_path_only(monkeypatch) -> None:
    monkeypatch.setattr(btree, "descend", lambda *operands: None)


def _build(path, page_size: int, count: int, seed: int = 7) -> dict[bytes, bytes]:
    picker = random.Random(seed)
    model = {}
    with Database.open(path, page_size=page_size) as db:
        with db.transaction():
            for _ in range(count):
                key, value = picker.randbytes(picker.randint(1, 40)), picker.randbytes(picker.randint(0, 60))
                db.put(key, value)
                model[key] = value
    return model


def _lookups(db: Database, probes: list[bytes]) -> tuple[list, dict, list, list]:
    answers = [db.get(probe) for probe in probes]
    pool = db._tree.pool
    state = {name: getattr(pool, name) for name in POOL_STATE}
    return answers, state, [db.counters()["file_reads"]], [list(pool._old), list(pool._young)]


@pytest.mark.parametrize("page_size", [1024, 4096])
@pytest.mark.parametrize("old_blocks_time_ms", [0, 1000])
def test_the_c_descent_gives_the_python_paths_answers_counts_and_lru(tmp_path, monkeypatch, page_size, old_blocks_time_ms):
    """old_blocks_time_ms=0 makes a re-read page young at once, so made_young and the LRU order
    are exercised as well as misses and evictions."""
    model = _build(tmp_path / "t.db", page_size, 4 * page_size)  # three levels at either size
    picker = random.Random(11)
    keys = sorted(model)
    probes = [picker.choice(keys) if picker.random() < 0.8 else picker.randbytes(5) for _ in range(3000)]
    results = []
    for c_descent in (True, False):
        if not c_descent:
            _python_path_only(monkeypatch)
        with Database.open(tmp_path / "t.db", cache_bytes=12 * page_size, direct_io=False,
                           old_blocks_time_ms=old_blocks_time_ms) as db:  # fmt: skip
            assert db.counters()["tree_depth"] >= 3
            results.append(_lookups(db, probes))
    (c_answers, c_state, c_reads, c_lru), (answers, state, reads, lru) = results
    assert c_answers == answers == [model.get(probe) for probe in probes]
    assert c_state == state and c_reads == reads and c_lru == lru
    assert state["evictions"] > 1000 and state["made_young"] > (0 if old_blocks_time_ms == 0 else -1)


def test_the_c_descent_reads_pages_changed_by_an_open_transaction(tmp_path):
    """Resident pages that a transaction changed keep their header and slot array in Python
    objects until image(); the C descent must search them as they are, not as the file has them."""
    model = _build(tmp_path / "t.db", 4096, 3000)
    picker = random.Random(5)
    with Database.open(tmp_path / "t.db", cache_bytes=1 << 20) as db:
        with db.transaction():
            for _ in range(1500):
                key = picker.choice(sorted(model)) if picker.random() < 0.3 else picker.randbytes(9)
                if picker.random() < 0.2:
                    db.delete(key)
                    model.pop(key, None)
                else:
                    model[key] = picker.randbytes(picker.randint(0, 80))
                    db.put(key, model[key])
            pool = db._tree.pool
            assert any(frame.in_txn for frame in pool._resident.values())
            for key in [*model, b"absent", b""]:
                found = descend(-1, bytearray(0), pool._resident, db._tree.meta.root, db._tree.meta.depth, key)
                assert found is not None and found[0] == model.get(key)  # every page resident: no fallback
                assert db.get(key) == model.get(key)


def test_a_cold_lookup_is_one_descent_whose_reads_are_counted_once(tmp_path):
    """The fast path is really taken on a file database (a regression that always fell back would
    pass the comparison above), and each page it read becomes exactly one counted read and miss."""
    _build(tmp_path / "t.db", 4096, 3000)
    with Database.open(tmp_path / "t.db", cache_bytes=8 * 4096, direct_io=True) as db:
        pool, pagefile = db._tree.pool, db._tree.pool.pagefile
        found = descend(pagefile.fd, pagefile.read_buffer, pool._resident, db._tree.meta.root, db._tree.meta.depth,
                        b"no such key")
        assert found is not None
        value, visits = found
        read = [visit for visit in visits if isinstance(visit, tuple)]
        assert value is None and len(read) == db.counters()["tree_depth"]  # a cold pool: every level from the file
        assert all(len(image) == 4096 for _, image in read)
        before = db.counters()
        pool.replay(visits)
        after = db.counters()
        assert after["file_reads"] - before["file_reads"] == len(read) == after["pool_misses"] - before["pool_misses"]
        assert all(pool.is_resident(page_no) for page_no, _ in read)


@pytest.mark.parametrize(("where", "named"), [(0, "its header is impossible"), (300, "past the (page )?end")])
def test_a_damaged_page_met_by_a_lookup_is_named_by_the_python_path(tmp_path, where, named):
    """The C descent gives up on a page it cannot trust; the lookup must still end in the error
    that names the page, never in a wrong value or a bare ValueError."""
    path = tmp_path / "garbage.db"
    with Database.open(path, page_size=4096) as db:
        for number in range(3000):
            db.put(b"k%05d" % number, b"x" * 40)
    keys = [b"k%05d" % number for number in range(3000)]
    with open(path, "r+b") as handle:
        handle.seek(5 * 4096 + where)
        handle.write(random.Random(3).randbytes(500))
    with Database.open(path, cache_bytes=8 * 4096) as db:
        pagefile = db._tree.pool.pagefile
        damaged_seen = 0
        for key in keys:
            if descend(pagefile.fd, pagefile.read_buffer, {}, db._tree.meta.root, db._tree.meta.depth, key) is None:
                damaged_seen += 1
                with pytest.raises(StorageError, match=f"page 5: .*{named}.*the file is damaged"):
                    db.get(key)
        assert damaged_seen > 0


def test_an_in_memory_database_that_evicted_pages_falls_back_and_stays_right():
    picker = random.Random(2)
    db = Database.open(page_size=1024, cache_bytes=8 * 1024)
    model = {}
    for _ in range(3000):
        key = picker.randbytes(8)
        model[key] = picker.randbytes(20)
        db.put(key, model[key])
    assert db.counters()["pool_evictions"] > 0
    for key in [*model, b"missing"]:
        assert db.get(key) == model.get(key)
    assert db.counters()["file_reads"] == db.counters()["pool_misses"]


def test_descend_refuses_bad_operands_clearly():
    with pytest.raises(TypeError, match="takes 6 arguments"):
        descend(-1, bytearray(0), {}, 1, b"k")
    with pytest.raises(TypeError, match="resident must be the pool's dict"):
        descend(-1, bytearray(0), [], 1, 1, b"k")
    with pytest.raises(ValueError, match="fd must be a file descriptor"):
        descend(-7, bytearray(0), {}, 1, 1, b"k")
    with pytest.raises(ValueError, match="depth must be 1 or more"):
        descend(-1, bytearray(0), {}, 1, 0, b"k")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("child", ["root", "header", "leaf"])
def test_child_pointers_that_lead_nowhere_are_named_not_followed_forever(tmp_path, child):
    """A cycle used to send every descent round it forever (the C one gave up after 64 levels, the
    Python one had no bound); a pointer to the header page ended in an AttributeError; a leaf one
    level too high was taken for the key's leaf, and a put would have written into it."""
    path = damaged_root(tmp_path, child)
    with Database.open(path, cache_bytes=16 * 1024) as db:
        for operation in (lambda: db.get(b"k00001"), lambda: db.put(b"k00001", b"y"), lambda: db.delete(b"k00002"),
                          lambda: list(db.scan())):  # fmt: skip
            with pytest.raises(StorageError, match=r"page \d+ is not (a leaf|an interior page).*the file is damaged"):
                operation()


@pytest.mark.timeout(60)
def test_a_leaf_link_cycle_ends_a_scan_with_the_damage_named(tmp_path):
    import struct

    path = tmp_path / "looped.db"
    with Database.open(path, page_size=4096) as db:
        for number in range(3000):
            db.put(b"k%05d" % number, b"x" * 40)
        first_leaf = db._tree._leaf_for(None).page_no
    with open(path, "r+b") as handle:
        handle.seek(first_leaf * 4096 + 12)
        handle.write(struct.pack("<I", first_leaf))  # the first leaf links to itself
    with Database.open(path) as db:
        with pytest.raises(StorageError, match="a leaf links to page .* not the next leaf .*the file is damaged"):
            list(db.scan())


def test_a_lookup_refused_for_a_full_pool_counts_no_read_on_either_path(tmp_path, monkeypatch):
    """No-steal: with every frame changed by the open transaction, a lookup that needs a page
    from the file fails before reading it (fetch makes room first); the replay of a C descent,
    which has already read it, must leave the same counts."""
    from pagelab.storage import BufferPoolFullError

    _build(tmp_path / "t.db", 4096, 16000)
    outcomes = []
    for c_descent in (True, False):
        if not c_descent:
            _python_path_only(monkeypatch)
        with Database.open(tmp_path / "t.db", cache_bytes=8 * 4096) as db:
            pool = db._tree.pool
            with pytest.raises(BufferPoolFullError):
                with db.transaction():
                    page_no = 1
                    while len(pool._resident) < pool.capacity:
                        pool.fetch(page_no)
                        page_no += 1
                    for frame in list(pool._resident.values()):  # every frame a page the transaction changed
                        pool.mark_dirty(frame)
                    before = (pool.gets, pool.misses, db.counters()["file_reads"])
                    try:
                        db.get(b"\xff" * 8)  # the rightmost leaf: not among the pages fetched above
                    finally:
                        outcomes.append(tuple(now - then for now, then in
                                              zip((pool.gets, pool.misses, db.counters()["file_reads"]), before)))  # fmt: skip
    assert outcomes[0] == outcomes[1] and outcomes[1][2] == 0


def test_descend_refuses_a_root_or_a_buffer_that_cannot_be_right(tmp_path):
    with pytest.raises(ValueError, match="root must be a page number"):
        descend(-1, bytearray(0), {}, -1, 1, b"k")
    with open(tmp_path / "f", "wb") as handle:
        handle.write(b"\x01" * 8192)
    with open(tmp_path / "f", "rb") as handle:
        with pytest.raises(ValueError, match="read buffer must be one page, 1024 to 65536 bytes, not 4"):
            descend(handle.fileno(), bytearray(4), {}, 1, 1, b"k")
        assert descend(handle.fileno(), bytearray(1024), {}, 1 << 40, 1, b"k") is None  # past any file: the Python path says so


def test_lookups_that_evict_committed_dirty_pages_write_them_as_the_python_path_does(tmp_path, monkeypatch):
    """After a commit the changed pages are dirty in the pool (the journal holds them); a lookup
    that must evict one writes it to the page file first. The C replay calls the pool's _write
    for it: the same pages written, the same counts and lists, the same file, as the Python path."""
    model = _build(tmp_path / "base.db", 1024, 3000)
    picker = random.Random(4)
    changes = {key: picker.randbytes(30) for key in picker.sample(sorted(model), 200)}
    probes = [picker.choice(sorted(model)) for _ in range(2000)]
    results = []
    for c_descent in (True, False):
        path = tmp_path / f"{c_descent}.db"
        path.write_bytes((tmp_path / "base.db").read_bytes())
        if not c_descent:
            _python_path_only(monkeypatch)
        with Database.open(path, cache_bytes=40 * 1024, direct_io=False, checkpoint_pages=10_000) as db:
            for key, value in changes.items():  # a transaction each: committed, dirty, not yet written
                db.put(key, value)
            pool = db._tree.pool
            dirty_before = len(pool._dirty)
            written_before = pool.pages_written
            answers, state, reads, lru = _lookups(db, probes)
            results.append((answers, state, reads, lru, pool.pages_written - written_before, db.counters()["file_writes"],
                            dirty_before, len(pool._dirty), sorted(pool._dirty)))  # fmt: skip
            db.close(checkpoint=False)
        results[-1] += (path.read_bytes(),)
    c_result, python_result = results
    assert c_result == python_result
    assert c_result[0] == [{**model, **changes}[probe] for probe in probes]
    assert c_result[4] > 10 and c_result[6] > c_result[7]  # the lookups did write dirty pages out


def test_a_replay_with_every_frame_held_raises_the_pools_own_error():
    from pagelab.storage.bufferpool import BufferPool
    from pagelab.storage.errors import BufferPoolFullError
    from pagelab.storage.pagefile import MemoryPageFile

    pagefile = MemoryPageFile(1024)
    for page_no in range(10):
        pagefile.write_page(page_no, bytes(1024))
    pool = BufferPool(pagefile, 8 * 1024)
    for page_no in range(8):
        pool.pin(page_no)  # RawPages: the pool's decode when none is given
    before = (pool.gets, pool.misses, list(pool._old), list(pool._young))
    with pytest.raises(BufferPoolFullError, match="the buffer pool's 8 frames of 1024 bytes are all in use: .* 8 pinned"):
        pool.replay([(9, bytearray(1024))])
    assert pool.misses == before[1] and (list(pool._old), list(pool._young)) == (before[2], before[3])
    assert pool.gets == before[0] + 1  # counted before room was sought, as fetch counts it


def test_a_replay_keeps_each_visit_alive_while_its_callbacks_run():
    """replay calls back into Python (count_read, decode, writing a page out) between taking a
    visit from the list and decoding its image; a callback that empties the list must not free
    the image under it (found by review: a use-after-free that crashed the process)."""
    from pagelab.storage.bufferpool import BufferPool
    from pagelab.storage.pagefile import MemoryPageFile

    for _ in range(50):
        pagefile = MemoryPageFile(1024)
        pool = BufferPool(pagefile, 8 * 1024)
        visits = [(9, bytearray(b"x" * 1024))]
        counted = pagefile.count_read

        def count_read_and_drop_the_visits():
            counted()
            visits.clear()
            [bytearray(1024) for _ in range(3)]  # reuse the freed memory, if it was freed

        pagefile.count_read = count_read_and_drop_the_visits
        pool.replay(visits)
        assert pool._resident[9].data == b"x" * 1024
        assert pagefile.counters()["reads"] == 1
