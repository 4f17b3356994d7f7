"""The database: files, reopening, transactions, the journal and recovery, counters."""

from __future__ import annotations

import os

import pytest

from pagelab.common.errors import UsageError
from pagelab.storage import BufferPoolFullError, Database, StorageError
from pagelab.storage.journal import HEADER_SIZE, RECORD_HEADER_SIZE


def fill(db: Database, count: int, prefix: bytes = b"k", value: bytes = b"v" * 40) -> None:
    with db.transaction():
        for i in range(count):
            db.put(prefix + b"%05d" % i, value)


def test_a_database_keeps_its_data_across_close_and_open(tmp_path):
    path = tmp_path / "kv.db"
    with Database.open(path, page_size=4096, cache_bytes=1 << 20) as db:
        fill(db, 3000)
        db.delete(b"k00007")
    assert path.stat().st_size % 4096 == 0
    assert not (tmp_path / "kv.db-journal").stat().st_size > 32  # checkpointed at close
    with Database.open(path) as db:  # page_size None: the file's own
        assert db.page_size == 4096 and len(db) == 2999
        assert db.get(b"k00042") == b"v" * 40 and db.get(b"k00007") is None
        db.check()


def test_a_new_database_has_8k_pages_by_default(tmp_path):
    with Database.open(tmp_path / "d.db") as db:
        assert db.page_size == 8192
    with Database.open() as db:
        assert db.page_size == 8192 and db.path is None


def test_opening_with_another_page_size_is_refused_clearly(tmp_path):
    path = tmp_path / "kv.db"
    Database.open(path, page_size=16384).close()
    with pytest.raises(UsageError, match=r"created with 16384-byte pages.*page_size=4096.*fixed when a database is created"):
        Database.open(path, page_size=4096)
    Database.open(path, page_size="16k").close()


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(4000))
    with pytest.raises(StorageError, match="not a pagelab database"):
        Database.open(path)


def test_commit_rollback_and_exceptions(tmp_path):
    db = Database.open(tmp_path / "t.db", page_size=1024)
    with db.transaction():
        db.put(b"a", b"1")
        db.put(b"b", b"2")
    with pytest.raises(RuntimeError):
        with db.transaction():
            db.put(b"a", b"changed")
            raise RuntimeError("boom")
    assert db.get(b"a") == b"1"
    with pytest.raises(ValueError):
        with db.transaction():
            for i in range(500):  # enough to split pages and grow the tree, all rolled back
                db.put(b"x%04d" % i, b"y" * 50)
            raise ValueError
    assert list(db.scan()) == [(b"a", b"1"), (b"b", b"2")]
    assert db.stats()["depth"] == 1
    db.check()
    db.close()


def test_transactions_do_not_nest():
    db = Database.open()
    with db.transaction():
        with pytest.raises(UsageError, match="do not nest"):
            with db.transaction():
                pass


def test_a_transaction_whose_operation_failed_is_rolled_back_even_if_the_error_was_caught():
    db = Database.open(page_size=1024, cache_bytes=8 * 1024)
    db.put(b"keep", b"1")
    with pytest.raises(UsageError, match="rolled back because an operation in it failed"):
        with db.transaction():
            try:
                for i in range(2000):  # more pages than 8 frames can hold: the pool gives up
                    db.put(b"%05d" % i, b"z" * 100)
            except BufferPoolFullError:
                pass
            with pytest.raises(UsageError, match="earlier operation in this transaction failed"):
                db.put(b"more", b"x")
    assert list(db.scan()) == [(b"keep", b"1")]
    db.check()
    db.put(b"after", b"2")  # usable again
    assert len(db) == 2


def test_keys_and_values_must_be_bytes():
    db = Database.open()
    with pytest.raises(UsageError, match=r"key must be bytes, got str \(encode it"):
        db.put("text", b"v")
    db.put(bytearray(b"k"), memoryview(b"v"))
    assert db.get(b"k") == b"v"

    class Tagged(bytes):
        pass

    db.put(Tagged(b"t"), Tagged(b"w"))
    assert db.get(Tagged(b"t")) == b"w" and [key.__class__ for key, _ in db.scan()] == [bytes, bytes]


def test_the_journal_counts_pages_and_bytes_per_transaction():
    db = Database.open(page_size=4096)
    db.put(b"one", b"1")  # autocommit: the leaf and the header page
    fill(db, 1000)
    with db.transaction():
        pass  # nothing changed: nothing journaled
    log = db.transaction_log_frame()
    assert list(log.columns) == ["txn_id", "pages", "bytes"]
    assert list(log["txn_id"]) == [1, 2]
    assert log["pages"][0] == 2
    assert log["pages"][1] == db.stats()["pages"] + 1  # every tree page was new, plus the header
    assert list(log["bytes"]) == [p * (4096 + RECORD_HEADER_SIZE) + RECORD_HEADER_SIZE for p in log["pages"]]
    counters = db.counters()
    assert counters["journal_transactions"] == 2 and counters["journal_pages_written"] == log["pages"].sum()
    frame = db.counters_frame()
    assert len(frame) == 1 and frame["page_size_bytes"][0] == 4096 and frame["backend"][0] == "memory"


def test_close_without_checkpoint_leaves_the_journal_for_recovery(tmp_path):
    path = tmp_path / "r.db"
    db = Database.open(path, page_size=1024, cache_bytes=64 << 10)
    for i in range(50):
        db.put(b"k%03d" % i, b"v" * 30)
    db.close(checkpoint=False)
    reopened = Database.open(path)
    assert reopened.recovery.transactions > 0
    assert len(reopened) == 50 and reopened.get(b"k049") == b"v" * 30
    reopened.check()
    reopened.close()


def committed_then_torn(tmp_path, damage) -> Database:
    """Commit 'a' then 'b' (two transactions), leave the journal, damage its tail, reopen."""
    path = tmp_path / "j.db"
    db = Database.open(path, page_size=1024, checkpoint_pages=10_000)
    db.put(b"a", b"1")
    db.put(b"b", b"2")
    db.close(checkpoint=False)
    journal = tmp_path / "j.db-journal"
    damage(journal)
    return Database.open(path)


def test_recovery_drops_a_torn_last_transaction(tmp_path):
    def cut_inside_the_last_commit_record(journal):
        os.truncate(journal, journal.stat().st_size - 5)

    db = committed_then_torn(tmp_path, cut_inside_the_last_commit_record)
    assert db.recovery.transactions == 1 and db.recovery.dropped_bytes > 0
    assert db.get(b"a") == b"1" and db.get(b"b") is None
    db.check()
    db.close()


def test_recovery_drops_a_transaction_with_a_damaged_page_image(tmp_path):
    def flip_a_byte_in_the_second_transaction(journal):
        data = bytearray(journal.read_bytes())
        first_txn = 2 * (RECORD_HEADER_SIZE + 1024) + RECORD_HEADER_SIZE  # leaf + header + commit
        data[HEADER_SIZE + first_txn + RECORD_HEADER_SIZE + 500] ^= 0xFF
        journal.write_bytes(bytes(data))

    db = committed_then_torn(tmp_path, flip_a_byte_in_the_second_transaction)
    assert db.recovery.transactions == 1
    assert db.get(b"a") == b"1" and db.get(b"b") is None
    db.close()


def test_records_of_an_older_journal_generation_are_never_replayed(tmp_path):
    """A truncate that did not reach the disk can leave old records after new ones; their salt
    tells them apart."""
    path = tmp_path / "s.db"
    journal = tmp_path / "s.db-journal"
    db = Database.open(path, page_size=1024)
    db.put(b"k", b"old")
    db.close(checkpoint=False)
    old_generation = journal.read_bytes()
    db = Database.open(path)  # recovery, then a new journal under a new salt
    db.put(b"k", b"new")
    db.close(checkpoint=False)
    journal.write_bytes(journal.read_bytes() + old_generation[HEADER_SIZE:])
    db = Database.open(path)
    assert db.recovery.transactions == 1
    assert db.get(b"k") == b"new"
    db.close()


def test_a_stale_journal_is_not_replayed_into_a_new_database(tmp_path):
    path = tmp_path / "n.db"
    db = Database.open(path, page_size=1024)
    db.put(b"ghost", b"1")
    db.close(checkpoint=False)
    path.unlink()  # the database is deleted, its journal stays behind
    db = Database.open(path, page_size=1024)
    assert len(db) == 0 and db.get(b"ghost") is None
    db.close()


def test_checkpoints_run_by_themselves_and_empty_the_journal(tmp_path):
    db = Database.open(tmp_path / "c.db", page_size=1024, checkpoint_pages=20)
    for i in range(100):
        db.put(b"k%03d" % i, b"v")
    counters = db.counters()
    assert counters["checkpoints"] >= 5
    assert counters["journal_pages_since_reset"] < 20
    assert counters["file_writes"] > 0 and counters["file_syncs"] >= counters["checkpoints"]
    with pytest.raises(UsageError, match="inside a transaction"):
        with db.transaction():
            db.checkpoint()
    db.close()


def test_direct_io_database_end_to_end(tmp_path):
    path = tmp_path / "direct.db"
    with Database.open(path, page_size=4096, cache_bytes=1 << 20, direct_io=True) as db:
        fill(db, 2000)
        assert db.counters()["backend"] == "file+O_DIRECT"
    with Database.open(path, cache_bytes=32 << 10, direct_io=True) as db:
        assert sum(1 for _ in db.scan()) == 2000
        assert db.counters()["file_reads"] >= db.stats()["leaf_pages"]


def test_a_small_cache_reads_and_writes_pages_and_stays_correct(tmp_path):
    with Database.open(tmp_path / "small.db", page_size=1024, cache_bytes=32 * 1024, checkpoint_pages=50) as db:
        for start in range(0, 3000, 10):
            with db.transaction():
                for i in range(start, start + 10):
                    db.put(b"%05d" % ((i * 7919) % 3000), b"w" * 20)
        counters = db.counters()
        assert counters["pool_evictions"] > 0 and counters["pool_misses"] > 0
        db.check()
        assert len(db) == 3000


def test_the_innodb_status_of_a_database_parses():
    from pagelab.parse import parse_innodb_status

    db = Database.open(page_size=1024, cache_bytes=16 * 1024)
    fill(db, 10)
    row = parse_innodb_status(db.innodb_status_text()).rows[0]
    assert row["pool_pages"] == 16 and row["pages_created"] == db.counters()["pool_pages_created"]


def test_a_torn_header_page_is_restored_from_the_journal(tmp_path):
    """A power cut while page 0 was written in place can leave it torn; its last committed image
    is in the journal, which also tells the page size needed to read it."""
    path = tmp_path / "torn.db"
    db = Database.open(path, page_size=2048, checkpoint_pages=10_000)
    db.put(b"k", b"v")
    db._pool.flush_dirty()  # as an eviction would: page 0 written in place, the journal kept
    db.close(checkpoint=False)
    with open(path, "r+b") as handle:
        handle.seek(20)
        handle.write(b"\xff" * 8)  # damage the root and depth fields: the checksum no longer matches
    db = Database.open(path)
    assert db.page_size == 2048 and db.get(b"k") == b"v"
    db.close()


@pytest.mark.parametrize("path_kind", ["memory", "file"])
def test_a_rollback_restores_pages_changed_every_way_a_page_can_change(tmp_path, path_kind):
    """Rollback snapshots share the page bytes copy-on-write (slotted.py): each kind of write,
    in the gap, over a freed cell, a value in place, a child pointer, a split, must leave the
    committed state intact for the rollback."""
    path = None if path_kind == "memory" else tmp_path / "cow.db"
    db = Database.open(path, page_size=1024, cache_bytes=64 * 1024)
    committed = {b"k%03d" % n: bytes([n % 251]) * 20 for n in range(0, 200, 2)}
    with db.transaction():
        for key, value in committed.items():
            db.put(key, value)
    lowest_cell_key = max(committed)  # cells are laid out from the page end: the last key inserted sits lowest
    with pytest.raises(RuntimeError):
        with db.transaction():
            db.delete(lowest_cell_key)  # frees the cell at the content start...
            db.put(lowest_cell_key[:-1] + b"x", b"\xee" * 20)  # ...which this one overwrites
            db.put(b"k010", b"\xdd" * 20)  # a value changed in place (same length)
            db.put(b"k011", b"\xcc" * 5)  # a new cell in the gap
            for n in range(1, 200, 2):  # splits, and new child pointers in interior pages
                db.put(b"k%03d" % n, b"\xbb" * 20)
            raise RuntimeError("roll back")
    db.check()
    assert dict(db.scan()) == committed
    with db.transaction():  # and the pages still take changes after the rollback
        db.put(b"k011", b"\x01")
    assert db.get(b"k011") == b"\x01" and db.get(b"k010") == committed[b"k010"]
    db.check()
    db.close()


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"page_size": 65536, "cache_bytes": 256 * 1024}, "cache_bytes=262144 holds 4 pages"),
        ({"cache_bytes": "lots"}, "cache_bytes must be a size"),
        ({"cache_bytes": None}, "cache_bytes must be a size"),
        ({"cache_bytes": -1}, "cache_bytes must not be negative"),
        ({"old_blocks_pct": 1}, "old_blocks_pct must be a whole number from 5 to 95"),
        ({"old_blocks_time_ms": -5}, "old_blocks_time_ms must be a number of milliseconds >= 0"),
        ({"checkpoint_pages": "5"}, "checkpoint_pages must be a whole number >= 1"),
        ({"page_size": 0}, "page size must be a power of two"),
    ],
)
def test_bad_settings_are_refused_before_any_file_is_created(tmp_path, settings, named):
    path = tmp_path / "new.db"
    with pytest.raises(UsageError, match=named):
        Database.open(path, **settings)
    assert sorted(tmp_path.iterdir()) == []


def test_a_refused_open_of_an_existing_database_leaves_no_file_open(tmp_path):
    path = tmp_path / "old.db"
    Database.open(path, page_size=65536).close()
    open_before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        with pytest.raises(UsageError, match="holds 4 pages"):
            Database.open(path, cache_bytes=256 * 1024)
    assert len(os.listdir("/proc/self/fd")) == open_before
    with Database.open(path, cache_bytes="1M") as db:  # sizes as people write them
        assert db.cache_bytes == 1 << 20


def test_a_directory_or_a_path_with_in_memory_is_refused_clearly(tmp_path):
    with pytest.raises(UsageError, match="is a directory; give the database's file name"):
        Database.open(tmp_path)
    with pytest.raises(UsageError, match="give one or the other"):
        Database.open(tmp_path / "x.db", in_memory=True)


def test_a_closed_database_says_so_for_every_operation(tmp_path):
    db = Database.open(tmp_path / "closed.db", page_size=4096)
    for number in range(200):
        db.put(b"key-%04d" % number, b"v" * 50)
    rows = db.scan()
    next(rows)
    db.close()
    for operation in (db.checkpoint, db.stats, db.check, lambda: db.get(b"key-0001"),
                      lambda: db.put(b"a", b"b"), db.scan, lambda: list(rows)):
        with pytest.raises(UsageError, match="closed"):
            operation()


def test_closing_inside_a_transaction_is_not_mistaken_for_a_commit(tmp_path):
    path = tmp_path / "inside.db"
    db = Database.open(path, page_size=4096)
    db.put(b"kept", b"1")
    with pytest.raises(UsageError, match="closed inside the transaction, which rolled it back"):
        with db.transaction():
            db.put(b"lost", b"2")
            db.close()
    with Database.open(path) as again:
        assert again.get(b"kept") == b"1" and again.get(b"lost") is None


def test_a_pool_too_small_for_one_put_in_a_deep_tree_names_the_cache_it_needs():
    """8 frames hold a split up to the root of a 3-level tree (2 x 3 + 2 pages), not of a 4-level one;
    maximal keys give 1k pages a fanout of about 5, so the tree reaches depth 4 within a few hundred puts."""
    db = Database.open(page_size=1024, cache_bytes=8 * 1024)
    filler = b"k" * (db.max_key_bytes - 6)
    with pytest.raises(BufferPoolFullError) as refused:
        for number in range(5000):
            db.put(b"%06d" % number + filler, b"")
    assert db.stats()["depth"] == 4
    assert "depth 4" in str(refused.value) and "cache_bytes >= 10240" in str(refused.value)
    assert "smaller transactions" not in str(refused.value)
    db.check()  # the failed put was rolled back whole
    with Database.open(page_size=1024, cache_bytes=10 * 1024) as roomy:
        for number in range(number + 1):
            roomy.put(b"%06d" % number + filler, b"")
        roomy.check()


def test_reads_inside_a_transaction_whose_operation_failed_are_refused():
    db = Database.open(page_size=1024, cache_bytes=8 * 1024)
    for number in range(300):
        db.put(b"committed-%05d" % number, b"c" * 60)
    with pytest.raises(UsageError, match="rolled back because an operation in it failed"):
        with db.transaction():
            with pytest.raises(BufferPoolFullError):
                for number in range(10_000):  # more pages than the pool has frames
                    db.put(b"new-%05d" % number, b"z" * 60)
            for read in (lambda: db.get(b"committed-00001"), db.scan):
                with pytest.raises(UsageError, match="reads inside it are refused"):
                    read()
    assert db.get(b"committed-00001") == b"c" * 60 and db.get(b"new-00000") is None


def test_every_page_read_from_the_file_is_a_counted_pool_miss():
    """Splits look up the path to the leaf again; in a small pool those pages may be gone by
    then, and they are fetched (a counted miss) rather than read around the pool."""
    import random

    picker = random.Random(1)
    db = Database.open(page_size=1024, cache_bytes=8 * 1024)
    for _ in range(5000):
        db.put(picker.randbytes(8), b"v" * 20)
    counters = db.counters()
    assert counters["pool_evictions"] > 0 and counters["tree_depth"] >= 3
    assert counters["file_reads"] == counters["pool_misses"]


@pytest.mark.parametrize("lost", [100, "half"])
def test_a_page_file_that_lost_its_end_is_refused_at_open(tmp_path, lost):
    path = tmp_path / "cut.db"
    with Database.open(path, page_size=4096) as db:
        for number in range(3000):
            db.put(b"k%05d" % number, b"x" * 40)
    size = path.stat().st_size
    os.truncate(path, size - 100 if lost == 100 else size // 2)
    with pytest.raises(StorageError, match=r"cut\.db is \d+ bytes but its header counts \d+ pages .* has lost its end"):
        Database.open(path)


@pytest.mark.parametrize(("where", "named"), [(0, "its header is impossible"), (300, "runs past the page end")])
def test_garbage_in_a_page_is_named_not_returned(tmp_path, where, named):
    """No page checksums (slotted.py, "Damage"), but a page whose header or cell lengths are impossible is
    reported as damaged, naming the page, instead of failing inside struct or returning short values."""
    import random

    path = tmp_path / "garbage.db"
    with Database.open(path, page_size=4096) as db:
        for number in range(3000):
            db.put(b"k%05d" % number, b"x" * 40)
    with open(path, "r+b") as handle:
        handle.seek(5 * 4096 + where)
        handle.write(random.Random(3).randbytes(500))
    with Database.open(path) as db:
        with pytest.raises(StorageError, match=f"page 5: .*{named}.*the file is damaged"):
            list(db.scan())
