"""The buffer pool: a fixed budget of page frames in memory, replaced the way InnoDB replaces them.

The budget is in bytes, so the same budget holds four times fewer 16 KiB pages than 4 KiB ones;
that trade is what a page-size experiment is about. This module is the pool's bookkeeping: which
pages are resident, fetching and pinning them, writing and removing the page the policy evicts,
and the pages of the open transaction. Beside it:

    frames.py       the page objects, each carrying its own frame fields (Frame, RawPage)
    lru.py          the replacement policy, InnoDB's LRU with midpoint insertion (drawn there),
                    mixed into BufferPool
    poolfigures.py  the counters and InnoDB's BUFFER POOL AND MEMORY printout, mixed in too

Dirty pages and transactions. With `no_steal=True` (the Database's setting) the pool never writes
a page changed by the open transaction to the page file: those pages stay in memory until the
transaction ends, so the page file never holds uncommitted data and a rollback only has to
forget pages. To make that possible the pool keeps, for each page the transaction touches, the
page's image as it was before (when it held committed changes not yet in the page file) or a note
that the file's copy is current. A transaction that changes more pages than the pool has frames
fails with BufferPoolFullError, which names the fix. After commit the pages are dirty but
committed: eviction may write them in place, because the journal already holds their images.

Interrupts. Ctrl-C raises KeyboardInterrupt wherever Python next looks for signals: on entering
a Python function and after a builtin call returns (such as an OrderedDict's popitem), never
between two plain stores. So each change to the lists (here and in lru.py) is written as stores
between such points (a page is taken out of one list and put in the other with `del` and `[]=`,
not with popitem), and a new page is listed in the transaction before it becomes resident: an
interrupted put leaves lists that agree and pages that the rollback finds
(tests/storage/test_interrupt.py interrupts a transaction at every such point).

A cold lookup's steps here (fetch's for a page found, _remove's for a page evicted) and lru.py's
also run in C, in _cellsearch.replay: a change to them must be made in both (lru.py, "Two copies
of the replacement rules").
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from pagelab.common.errors import UsageError
from pagelab.storage.errors import BufferPoolFullError
from pagelab.storage.frames import Frame, RawPage
from pagelab.storage.lru import OLD_BLOCKS_PCT, OLD_BLOCKS_TIME_MS, YOUNG_REFRESH_FRACTION, MidpointLRU
from pagelab.storage.poolfigures import PoolFigures

try:
    from pagelab.storage._cellsearch import replay
except ImportError as missing:  # pragma: no cover - only on a checkout that was never installed
    raise ImportError(
        f"{missing}: the storage prototype's C piece is not built; run `make setup` (or `pip install -e .`) "
        "from the repository root, which compiles lib/pagelab/storage/_cellsearch.c"
    ) from None

MIN_FRAMES = 8  # a root-to-leaf path plus the pages one split creates, with room for the LRU to work


class PageFileLike(Protocol):
    page_size: int

    def read_page(self, page_no: int) -> bytes: ...
    def count_read(self) -> None: ...
    def write_page(self, page_no: int, data: bytes) -> None: ...
    def sync(self) -> None: ...
    def counters(self) -> dict[str, int]: ...


class BufferPool(MidpointLRU, PoolFigures):
    """`cache_bytes // page_size` frames over a page file, with InnoDB's midpoint LRU (lru.py).

    fetch(page_no)      the page, read from the file on a miss (one counted get; not pinned)
    pin / unpin         keep a page in memory across other fetches
    add_new(frame)      a page that did not exist before (counted "created"), dirty
    mark_dirty(frame)   call before changing a fetched page
    """

    def __init__(
        self,
        pagefile: PageFileLike,
        cache_bytes: int,
        *,
        decode: Callable[[int, bytes], Frame] | None = None,
        no_steal: bool = False,
        old_blocks_pct: int = OLD_BLOCKS_PCT,
        old_blocks_time_ms: float = OLD_BLOCKS_TIME_MS,
        clock: Callable[[], float] = time.monotonic,
    ):
        page_size = pagefile.page_size
        frames = self.check_settings(page_size, cache_bytes, old_blocks_pct, old_blocks_time_ms)
        self.pagefile = pagefile
        self.page_size = page_size
        self.capacity = frames
        self.no_steal = no_steal
        self.old_blocks_pct = old_blocks_pct
        self.old_blocks_time_s = old_blocks_time_ms / 1000.0
        self._clock = clock
        self._decode = decode or RawPage
        self._resident: dict[int, Frame] = {}
        # Each sublist runs from its tail (first item) to its head (last item), so that adding at
        # the head is a plain assignment and the eviction scan starts at the front.
        self._young: OrderedDict[int, Frame] = OrderedDict()
        self._old: OrderedDict[int, Frame] = OrderedDict()
        self._dirty: dict[int, Frame] = {}
        self._txn_pages: list[Frame] = []
        self._young_refresh_after = max(1, frames * (100 - old_blocks_pct) // (100 * YOUNG_REFRESH_FRACTION))
        self.gets = 0
        self.misses = 0
        self.made_young = 0
        self.not_young = 0
        self.evictions = 0
        self.pages_created = 0
        self.pages_written = 0
        self._last_printout = self._snapshot()

    @staticmethod
    def check_settings(page_size: int, cache_bytes: object, old_blocks_pct: object, old_blocks_time_ms: object) -> int:
        """The number of frames these settings give, or a UsageError naming the bad one and its range.
        (Database.open calls it before it creates or opens any file.)"""
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int):
            raise UsageError(f"cache_bytes must be a whole number of bytes, got {cache_bytes!r}")
        frames = cache_bytes // page_size
        if frames < MIN_FRAMES:
            raise UsageError(
                f"cache_bytes={cache_bytes} holds {max(frames, 0)} pages of {page_size} bytes; the buffer pool needs at "
                f"least {MIN_FRAMES} (cache_bytes >= {MIN_FRAMES * page_size} at this page size)"
            )
        if isinstance(old_blocks_pct, bool) or not isinstance(old_blocks_pct, int) or not 5 <= old_blocks_pct <= 95:
            raise UsageError(f"old_blocks_pct must be a whole number from 5 to 95 (InnoDB's range), got {old_blocks_pct!r}")
        if (isinstance(old_blocks_time_ms, bool) or not isinstance(old_blocks_time_ms, (int, float))
                or not 0 <= old_blocks_time_ms < float("inf")):
            raise UsageError(f"old_blocks_time_ms must be a number of milliseconds >= 0 (InnoDB's default: "
                             f"{OLD_BLOCKS_TIME_MS}), got {old_blocks_time_ms!r}")
        return frames

    # -- fetching ---------------------------------------------------------------------------------

    def fetch(self, page_no: int) -> Frame:
        """The page (one logical read); a miss reads it from the file (one physical read).

        Not pinned: a later fetch may evict it unless it is pinned, dirty in the open transaction
        (no-steal), or no longer needed."""
        self.gets += 1
        frame = self._resident.get(page_no)
        if frame is None:
            return self._read_in(page_no)
        # lru.py's rules for a hit, written out here because a hit is the hot path of every lookup
        if self.evictions:  # before the first eviction a hit moves nothing (InnoDB's rule, lru.py)
            if frame.old:
                self._touch_old(frame)
            elif self.evictions - frame.young_clock >= self._young_refresh_after:
                self._young.move_to_end(page_no)
                frame.young_clock = self.evictions
        return frame

    def pin(self, page_no: int) -> Frame:
        """fetch() that keeps the page in memory until unpin()."""
        frame = self.fetch(page_no)
        frame.pins += 1
        return frame

    def unpin(self, frame: Frame) -> None:
        if frame.pins <= 0:
            raise UsageError(f"page {frame.page_no} is not pinned")
        frame.pins -= 1

    def peek(self, page_no: int) -> Frame:
        """The page without counting a get or moving it in the LRU; a non-resident page is read
        (a counted page-file read) but not cached. For statistics walks that must not disturb
        what they measure."""
        frame = self._resident.get(page_no)
        if frame is not None:
            return frame
        return self._decode(page_no, self.pagefile.read_page(page_no))

    def is_resident(self, page_no: int) -> bool:
        return page_no in self._resident

    def replay(self, visits: list) -> None:
        """Count and cache what BTree.get's C descent did, in its order: a page object is a page it
        found here (a fetch), a (page_no, image) pair a page it read from the file (a miss). The
        descent reads and searches without returning to Python between two reads; the pool's
        bookkeeping for the whole lookup happens here, after its last read, with the same counts,
        LRU moves and evictions as fetching the pages one by one would give. It runs in C
        (`_cellsearch.replay`, which says why): fetch's steps for a page found, and _make_room,
        the page file's count_read, decode and _admit for a page read, on this pool's lists."""
        replay(self, visits)

    def count_hits(self, frames: list[Frame]) -> None:
        """Count fetches of these resident pages, in order, after the fact: BTree.put's C path met
        them without fetching. A hit reads no file and evicts nothing, so this gives the figures
        and LRU moves fetching them would have; before the first eviction a hit is only a count."""
        if self.evictions:
            for frame in frames:
                self.fetch(frame.page_no)
        else:
            self.gets += len(frames)

    def _read_in(self, page_no: int) -> Frame:
        self._make_room()
        return self._admit(self._decode(page_no, self.pagefile.read_page(page_no)))

    # -- eviction (lru.py chooses the page) -------------------------------------------------------

    def _pool_full_error(self) -> BufferPoolFullError:
        pinned = sum(1 for frame in self._resident.values() if frame.pins)
        return BufferPoolFullError(
            f"the buffer pool's {self.capacity} frames of {self.page_size} bytes are all in use: "
            f"{len(self._txn_pages)} pages changed by the open transaction, {pinned} pinned. Give the database "
            f"more cache_bytes (now {self.capacity * self.page_size}) or commit smaller transactions"
        )

    def _remove(self, frame: Frame) -> None:
        page_no = frame.page_no
        del self._resident[page_no]
        del (self._old if frame.old else self._young)[page_no]
        self._dirty.pop(page_no, None)

    def _write(self, frame: Frame) -> None:
        self.pagefile.write_page(frame.page_no, frame.image())
        self.pages_written += 1
        frame.dirty = False
        self._dirty.pop(frame.page_no, None)

    # -- changes ----------------------------------------------------------------------------------

    def add_new(self, frame: Frame) -> Frame:
        """Put a newly allocated page (not in the file yet) in the pool, dirty."""
        if frame.page_no in self._resident:
            raise UsageError(f"page {frame.page_no} is already in the buffer pool")
        self._make_room()
        if self.no_steal:  # first, so that a rollback finds the page wherever an interrupt lands
            frame.before = None
            frame.in_txn = True
            self._txn_pages.append(frame)
        self._insert_at_midpoint(frame)
        frame.dirty = True
        self._dirty[frame.page_no] = frame
        self.pages_created += 1
        self.gets += 1  # InnoDB counts the get that creates a page
        return frame

    def mark_dirty(self, frame: Frame) -> None:
        """Call before changing a page. With no_steal, the first call in a transaction keeps the
        page's committed image for rollback and holds the page in memory until the transaction ends."""
        if self.no_steal and not frame.in_txn:
            frame.before = frame.snapshot() if frame.dirty else None
            frame.in_txn = True
            self._txn_pages.append(frame)
        if not frame.dirty:
            frame.dirty = True
            self._dirty[frame.page_no] = frame

    def transaction_pages(self) -> list[Frame]:
        """The pages the open transaction changed, in the order it first changed them."""
        return list(self._txn_pages)

    def end_transaction(self) -> None:
        """The transaction's pages are committed (the journal holds them): they may leave memory now."""
        for frame in self._txn_pages:
            frame.in_txn = False
            if frame.before is not None:
                frame.before = None
                frame.release_snapshot()
        self._txn_pages.clear()

    def rollback(self) -> None:
        """Forget the open transaction's changes: restore kept images, drop pages the file holds."""
        for frame in self._txn_pages:
            before, frame.before = frame.before, None
            if before is None:  # the file's copy is the committed one (or the page is new)
                if self._resident.get(frame.page_no) is frame:  # (a new page interrupted in add_new may not be)
                    self._remove(frame)
                continue
            if frame.restore(before):
                frame.in_txn = False
                continue
            restored = self._decode(frame.page_no, before)
            for slot in Frame.__slots__:
                setattr(restored, slot, getattr(frame, slot))
            restored.in_txn = False
            self._resident[frame.page_no] = restored
            (self._old if frame.old else self._young)[frame.page_no] = restored  # same place in the list
            self._dirty[frame.page_no] = restored
        self._txn_pages.clear()
        self._rebalance()

    def flush_dirty(self) -> int:
        """Write every committed dirty page to the page file, in page order (checkpoint); returns the count.

        The caller syncs the page file."""
        written = 0
        for page_no in sorted(self._dirty):
            frame = self._dirty[page_no]
            if not frame.in_txn:
                self._write(frame)
                written += 1
        return written

    @property
    def dirty_pages(self) -> int:
        return len(self._dirty)

