"""The buffer pool: budget in bytes, InnoDB's midpoint LRU, no-steal transactions, InnoDB's printout."""

from __future__ import annotations

import pytest

from pagelab.common.errors import UsageError
from pagelab.parse import parse_innodb_status
from pagelab.storage import BufferPool, BufferPoolFullError, MemoryPageFile

PAGE = 1024


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def page_file(pages: int = 400) -> MemoryPageFile:
    """A memory page file whose page n is filled with the byte n % 256."""
    file = MemoryPageFile(PAGE)
    for page_no in range(pages):
        file.write_page(page_no, bytes([page_no % 256]) * PAGE)
    return file


def pool_of(frames: int, clock: FakeClock | None = None, **options) -> BufferPool:
    return BufferPool(page_file(), frames * PAGE, clock=clock or FakeClock(), **options)


def test_the_budget_is_bytes_so_bigger_pages_mean_fewer_frames():
    file_4k, file_16k = MemoryPageFile(4096), MemoryPageFile(16384)
    assert BufferPool(file_4k, 1 << 20).capacity == 256
    assert BufferPool(file_16k, 1 << 20).capacity == 64


def test_a_budget_below_eight_frames_is_refused_with_the_numbers():
    with pytest.raises(UsageError, match=r"holds 7 pages of 1024 bytes; .* at least 8 \(cache_bytes >= 8192"):
        BufferPool(MemoryPageFile(PAGE), 7 * PAGE)


def test_gets_and_misses_are_logical_and_physical_reads():
    pool = pool_of(10)
    for page_no in (1, 2, 1, 1, 3):
        assert pool.fetch(page_no).data == bytes([page_no]) * PAGE
    counts = pool.counters()
    assert (counts["gets"], counts["misses"]) == (5, 3)
    assert pool.pagefile.counters()["reads"] == 3 + 0  # misses are the page file's reads


def test_new_pages_enter_at_the_midpoint_and_the_old_sublist_is_37_percent():
    pool = pool_of(100)
    for page_no in range(100):
        pool.fetch(page_no)
    counts = pool.counters()
    assert counts["database_pages"] == 100 and counts["free_pages"] == 0
    assert counts["old_pages"] == 37
    # before the first eviction nothing is moved or counted (InnoDB's warm-up rule)
    assert counts["made_young"] == counts["not_young"] == 0


def test_a_page_is_made_young_only_when_touched_again_after_old_blocks_time():
    clock = FakeClock()
    pool = pool_of(20, clock)
    for page_no in range(100, 130):  # fill and start evicting
        pool.fetch(page_no)
    not_young = pool.not_young
    pool.fetch(7)  # read: the first access, counted not young
    assert (pool.made_young, pool.not_young - not_young) == (0, 1)
    clock.now += 0.5
    pool.fetch(7)  # again within innodb_old_blocks_time: stays old
    assert (pool.made_young, pool.not_young - not_young) == (0, 2)
    clock.now += 0.5  # now 1000 ms after the first access
    pool.fetch(7)
    assert (pool.made_young, pool.not_young - not_young) == (1, 2)
    assert not pool._resident[7].old


def test_old_blocks_time_zero_makes_the_second_touch_young():
    clock = FakeClock()
    pool = pool_of(20, clock, old_blocks_time_ms=0)
    for page_no in range(100, 130):
        pool.fetch(page_no)
    pool.fetch(7)
    pool.fetch(7)
    assert pool.made_young == 1


def test_a_scan_of_pages_read_once_does_not_evict_the_hot_pages():
    clock = FakeClock()
    pool = pool_of(20, clock)
    for page_no in range(200, 230):  # warm up past the first eviction
        pool.fetch(page_no)
    hot = range(5)
    for page_no in hot:
        pool.fetch(page_no)
    clock.now += 2  # later than old_blocks_time: the next touch makes them young
    for page_no in hot:
        pool.fetch(page_no)
    assert pool.made_young == 5
    misses_before = pool.misses
    for page_no in range(300, 400):  # a scan: each page read, then touched again at once
        pool.fetch(page_no)
        pool.fetch(page_no)
    assert pool.misses - misses_before == 100
    assert all(pool.is_resident(page_no) for page_no in hot)
    for page_no in hot:
        pool.fetch(page_no)
    assert pool.misses - misses_before == 100  # the hot set is still cached: no further reads


def test_plain_lru_insertion_would_have_lost_the_hot_set():
    """The contrast: with every page entering young (old sublist 5%, time 0), the scan's second
    touch makes each scanned page young and the hot pages fall off the end."""
    clock = FakeClock()
    pool = pool_of(20, clock, old_blocks_pct=5, old_blocks_time_ms=0)
    for page_no in range(200, 230):
        pool.fetch(page_no)
    for page_no in range(5):
        pool.fetch(page_no)
        pool.fetch(page_no)
    for page_no in range(300, 400):
        pool.fetch(page_no)
        pool.fetch(page_no)
    assert not any(pool.is_resident(page_no) for page_no in range(5))


def test_dirty_pages_are_written_when_evicted_without_no_steal():
    pool = pool_of(8)
    for page_no in range(10, 30):  # past the warm-up, so page 1 enters the old sublist and ages out
        pool.fetch(page_no)
    page = pool.fetch(1)
    pool.mark_dirty(page)
    page.data[:5] = b"hello"
    for page_no in range(30, 50):
        pool.fetch(page_no)
    assert not pool.is_resident(1)
    assert pool.pages_written == 1
    assert pool.fetch(1).data[:5] == b"hello"


def test_no_steal_keeps_transaction_pages_in_memory_until_they_are_committed():
    # old_blocks_time 0 and two touches per page: every page turns young, so the LRU cycles
    # through young pages too and anything that may leave memory does
    pool = pool_of(8, no_steal=True, old_blocks_time_ms=0)
    changed = []
    for page_no in range(4):
        page = pool.fetch(page_no)
        pool.mark_dirty(page)
        page.data[0] = 0xEE
        changed.append(page_no)
    for page_no in range(10, 40):
        pool.fetch(page_no)
        pool.fetch(page_no)
    assert all(pool.is_resident(page_no) for page_no in changed)
    assert pool.pages_written == 0  # nothing uncommitted reached the file
    pool.end_transaction()
    for page_no in range(40, 60):
        pool.fetch(page_no)
        pool.fetch(page_no)
    assert pool.pages_written == 4  # committed: now they may be written and evicted
    assert not any(pool.is_resident(page_no) for page_no in changed)


def test_a_transaction_larger_than_the_pool_fails_naming_the_fix():
    pool = pool_of(8, no_steal=True)
    with pytest.raises(BufferPoolFullError, match="more cache_bytes .* or commit smaller transactions"):
        for page_no in range(20):
            pool.mark_dirty(pool.fetch(page_no))


def test_rollback_restores_committed_images_and_forgets_clean_pages():
    pool = pool_of(16, no_steal=True)
    committed = pool.fetch(1)
    pool.mark_dirty(committed)
    committed.data[:3] = b"one"
    pool.end_transaction()  # page 1: committed, dirty, not in the file yet
    for page_no in (1, 2):
        page = pool.fetch(page_no)
        pool.mark_dirty(page)
        page.data[:3] = b"bad"
    pool.rollback()
    assert pool.fetch(1).data[:3] == b"one" and pool.fetch(1).dirty
    assert pool.fetch(2).data[:3] == bytes([2]) * 3  # re-read from the file


def test_pinned_pages_stay_and_unpinning_twice_is_an_error():
    pool = pool_of(8)
    page = pool.pin(3)
    for page_no in range(10, 40):
        pool.fetch(page_no)
    assert pool.is_resident(3)
    pool.unpin(page)
    with pytest.raises(UsageError, match="not pinned"):
        pool.unpin(page)


def test_the_innodb_printout_reads_back_with_pagelabs_parser():
    clock = FakeClock()
    pool = pool_of(50, clock)
    pool.innodb_status_text()  # start an interval
    for page_no in range(80):
        pool.fetch(page_no)
    clock.now += 2
    for page_no in range(70, 80):  # the newest pages, in the old sublist: touched again, made young
        pool.mark_dirty(pool.fetch(page_no))
    clock.now += 8
    text = pool.innodb_status_text()
    result = parse_innodb_status(text)
    assert result.warnings == []
    row = result.rows[0]
    counts = pool.counters()
    assert row["pool_pages"] == 50
    assert row["free_pages"] == 0
    assert row["database_pages"] == 50
    assert row["old_pages"] == counts["old_pages"] == 50 * 37 // 100
    assert row["dirty_pages"] == 10
    assert row["pages_made_young"] == pool.made_young == 10
    assert row["pages_not_young"] == pool.not_young
    assert row["pages_read"] == 80 and row["pages_created"] == 0 and row["pages_written"] == 0
    gets, misses = 90, 80
    assert row["hit_rate"] == int(1000 * (1 - misses / gets))
    assert row["young_rate"] == int(1000 * pool.made_young / gets)
    assert row["not_young_rate"] == int(1000 * pool.not_young / gets)
    assert row["reads_s"] == pytest.approx(80 / 10.001, abs=0.01)
    assert row["averages_window_s"] == 10
    assert row["lru_len"] == 50


def test_a_printout_without_gets_since_the_last_one_says_so():
    pool = pool_of(10)
    pool.fetch(1)
    pool.innodb_status_text()
    text = pool.innodb_status_text()
    assert "No buffer pool page gets since the last printout" in text
    row = parse_innodb_status(text).rows[0]
    assert row["hit_rate"] is None and row["pages_read"] == 1
