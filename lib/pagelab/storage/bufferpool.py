"""The buffer pool: a fixed budget of page frames in memory, replaced the way InnoDB replaces them.

The budget is in bytes, so the same budget holds four times fewer 16 KiB pages than 4 KiB ones;
that trade is what a page-size experiment is about. The replacement list is InnoDB's LRU with
midpoint insertion:

       head                        midpoint                               tail
        |                             |                                     |
        v      young sublist (63%)    v       old sublist (37%)             v
      +----+----+----+----+----+----+----+----+----+----+----+----+----+----+
      |    |    |    |    |    |    | new|    |    |    |    |    |    | out|
      +----+----+----+----+----+----+----+----+----+----+----+----+----+----+
        ^                             ^                                   |
        | made young: an old page     | a page read from the file          +-> evicted (written
        | touched again, at least     | enters here, just behind the head      first if dirty)
        | old_blocks_time after its   | of the old sublist (InnoDB's
        | first access                | LRU_old), not at the head of the list

A page read once (a scan) enters at the midpoint and leaves from the tail without ever passing
the pages in the young sublist, so a scan cannot flush the hot set out of the cache. A page is
moved to the young head only if it is touched again after `old_blocks_time_ms` (InnoDB's
innodb_old_blocks_time, default 1000 ms): the second touch of a scan, within milliseconds of the
first, does not count as a sign of heat. Touches that leave a page old are counted "not young",
moves "made young", exactly the figures InnoDB prints. Two more InnoDB rules are kept because
they shape those figures: nothing is moved or counted until the first eviction (a pool still
filling up has nothing to protect; the pages read while it fills mostly end up young as the
midpoint moves past them), and a young page is moved back to the head only when it has
drifted into the older quarter of the young sublist (measured, as InnoDB does, by evictions since
it was last put at the head), so hits on the hottest pages cost no list surgery.

Page objects carry the pool's bookkeeping themselves (`Frame`): there is no separate frame table
to look up, which keeps a cache hit to one dict lookup and a few attribute reads. `decode`
turns a page image read from the file into the caller's page object (the B-tree's slotted pages);
without one, pages are `RawPage`s holding a bytearray.

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
between two plain stores. So each change to the lists below is written as stores between such
points (a page is taken out of one list and put in the other with `del` and `[]=`, not with
popitem), and a new page is listed in the transaction before it becomes resident: an interrupted
put leaves lists that agree and pages that the rollback finds (tests/storage/test_interrupt.py
interrupts a transaction at every such point).

Two copies of the replacement rules. After a cold lookup's last read the pool's steps for the
pages it met (fetch's for a page found; _make_room, _admit, _insert_at_midpoint, _rebalance,
_evict and _remove for a page read) run in C, in _cellsearch.replay, which acts on this pool's
own lists and fields: the Python here was a tenth of a cold lookup (_cellsearch.c says how that
was measured). A change to those rules must be made in both; tests/storage/test_descend.py
compares lookups through the C steps with the same lookups fetched page by page here, counts,
evictions, written pages and list order.
"""

from __future__ import annotations

import datetime
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from pagelab.common.errors import UsageError
from pagelab.storage.errors import BufferPoolFullError

try:
    from pagelab.storage._cellsearch import replay
except ImportError as missing:  # pragma: no cover - only on a checkout that was never installed
    raise ImportError(
        f"{missing}: the storage prototype's C piece is not built; run `make setup` (or `pip install -e .`) "
        "from the repository root, which compiles lib/pagelab/storage/_cellsearch.c"
    ) from None

MIN_FRAMES = 8  # a root-to-leaf path plus the pages one split creates, with room for the LRU to work
OLD_BLOCKS_PCT = 37  # innodb_old_blocks_pct's default: the old sublist is 3/8 of the LRU
OLD_BLOCKS_TIME_MS = 1000  # innodb_old_blocks_time's default since MySQL 5.6 / MariaDB 10.0
YOUNG_REFRESH_FRACTION = 4  # InnoDB re-heads a young page once it is in the older 1/4 of the young sublist


class PageFileLike(Protocol):
    page_size: int

    def read_page(self, page_no: int) -> bytes: ...
    def count_read(self) -> None: ...
    def write_page(self, page_no: int, data: bytes) -> None: ...
    def sync(self) -> None: ...
    def counters(self) -> dict[str, int]: ...


class Frame:
    """A page in the pool. Subclasses add the page's contents and `image()`.

    page_no      where the page lives in the page file
    pins         callers holding it in memory (never evicted while > 0)
    dirty        differs from the page file's copy
    in_txn       changed by the open transaction (never written in place, never evicted)
    old          in the old sublist
    accessed_at  clock time of its first access since it entered the pool (when it entered)
    young_clock  the pool's eviction count when it was last put at the young head
    before       while in_txn: what rollback restores (snapshot()), or None when the page file's
                 copy is the committed one (or the page is new)
    """

    __slots__ = ("page_no", "pins", "dirty", "in_txn", "old", "accessed_at", "young_clock", "before")

    def __init__(self, page_no: int):
        self.page_no = page_no
        self.pins = 0
        self.dirty = False
        self.in_txn = False
        self.old = True
        self.accessed_at = 0.0
        self.young_clock = 0
        self.before: object = None

    def image(self) -> bytes:
        """The page as it is to be written to the file: exactly page_size bytes."""
        raise NotImplementedError

    def snapshot(self) -> object:
        """What a rollback needs to put the page back as it is now. By default its image, which
        rollback decodes into a new frame; a page type can keep something cheaper (see
        TreePage.snapshot) and restore it in place with restore()."""
        return self.image()

    def restore(self, snapshot: object) -> bool:
        """Put the page back as snapshot() saw it, in place; False if this page type cannot (the
        pool then decodes the snapshot as an image)."""
        return False

    def release_snapshot(self) -> None:
        """The transaction that took a snapshot has ended: it will not be restored."""


class RawPage(Frame):
    """A page as plain bytes: what the pool holds when no decoder is given."""

    __slots__ = ("data",)

    def __init__(self, page_no: int, data: bytes):
        super().__init__(page_no)
        self.data = bytearray(data)

    def image(self) -> bytes:
        return bytes(self.data)


class BufferPool:
    """`cache_bytes // page_size` frames over a page file, with InnoDB's midpoint LRU (see module doc).

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
        if self.evictions:  # before the first eviction a hit moves nothing (InnoDB's rule, above)
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

    def _admit(self, frame: Frame) -> Frame:
        """A page just read from the file (a miss) into the room made for it."""
        self.misses += 1
        self._insert_at_midpoint(frame)
        if self.evictions:
            self.not_young += 1  # InnoDB counts the access that read the page: too soon to make it young
        return frame

    def _touch_old(self, frame: Frame) -> None:
        if self._clock() - frame.accessed_at >= self.old_blocks_time_s:
            self._make_young(frame)
        else:
            self.not_young += 1

    def _make_young(self, frame: Frame) -> None:
        del self._old[frame.page_no]
        frame.old = False
        frame.young_clock = self.evictions
        self._young[frame.page_no] = frame
        self.made_young += 1
        self._rebalance()

    def _insert_at_midpoint(self, frame: Frame) -> None:
        page_no = frame.page_no
        frame.old = True
        frame.young_clock = self.evictions
        frame.accessed_at = self._clock()  # every page enters the pool because it is being accessed
        resident = self._resident
        old = self._old
        old_target = (len(resident) + 1) * self.old_blocks_pct // 100  # with the page entering
        if old and len(old) >= old_target:
            # InnoDB inserts a new page just behind the old head; when that makes the old
            # sublist too long, the midpoint moves past the former head, which turns young.
            # The new page itself stays old, as it must for a scan to pass through unpromoted.
            self._old_head_to_young_tail()
        resident[page_no] = frame
        old[page_no] = frame
        if len(old) != old_target:
            self._rebalance()

    def _rebalance(self) -> None:
        """Move the midpoint so the old sublist is old_blocks_pct of the LRU (InnoDB's LRU_old_len)."""
        target = len(self._resident) * self.old_blocks_pct // 100
        old, young = self._old, self._young
        while len(old) > target:
            self._old_head_to_young_tail()
        while len(old) < target and young:  # the young tail becomes the old head
            page_no = next(iter(young))
            frame = young[page_no]
            del young[page_no]  # from here to the end of the step, no interrupt can land (module doc)
            frame.old = True
            old[page_no] = frame

    def _old_head_to_young_tail(self) -> None:
        """Move the midpoint one page toward the tail: the old head becomes the young tail."""
        old, young = self._old, self._young
        page_no = next(reversed(old))
        frame = old[page_no]
        del old[page_no]  # from here to the end, no interrupt can land (module doc)
        frame.old = False
        young[page_no] = frame
        young.move_to_end(page_no, last=False)

    # -- eviction ---------------------------------------------------------------------------------

    def _make_room(self) -> None:
        if len(self._resident) >= self.capacity:
            self._evict()

    def _evict(self) -> None:
        """Evict the page nearest the tail that is neither pinned nor changed by the open
        transaction (the common case is the old tail itself, found in one step)."""
        for sublist in (self._old, self._young):
            for frame in sublist.values():  # tail first
                if not frame.pins and not frame.in_txn:
                    if frame.dirty:
                        self._write(frame)
                    self._remove(frame)  # the loop ends here, so changing the list is safe
                    self.evictions += 1
                    return
        raise self._pool_full_error()

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

    # -- counters and InnoDB's printout ----------------------------------------------------------

    def _snapshot(self) -> dict[str, float]:
        return {
            "time": self._clock(),
            "gets": self.gets,
            "misses": self.misses,
            "made_young": self.made_young,
            "not_young": self.not_young,
            "pages_created": self.pages_created,
            "pages_written": self.pages_written,
        }

    def counters(self) -> dict[str, float]:
        """Totals since the pool was made, plus its current shape."""
        return {
            "pages": self.capacity,
            "free_pages": self.capacity - len(self._resident),
            "database_pages": len(self._resident),
            "old_pages": len(self._old),
            "dirty_pages": len(self._dirty),
            "gets": self.gets,
            "misses": self.misses,
            "hit_ratio": 1 - self.misses / self.gets if self.gets else None,
            "made_young": self.made_young,
            "not_young": self.not_young,
            "evictions": self.evictions,
            "pages_created": self.pages_created,
            "pages_written": self.pages_written,
        }

    def innodb_status_text(self) -> str:
        """The pool's state as InnoDB prints its BUFFER POOL AND MEMORY section, framed like a
        whole `SHOW ENGINE INNODB STATUS` so pagelab's parser reads it unchanged.

        Rates are over the time since the previous call (as InnoDB's are since its previous
        printout), and the call starts a new interval."""
        now = self._snapshot()
        last, self._last_printout = self._last_printout, now
        elapsed = 0.001 + (now["time"] - last["time"])  # InnoDB adds 1 ms so the rate never divides by zero
        delta = {name: now[name] - last[name] for name in now}
        lru_len = len(self._resident)
        free = self.capacity - lru_len
        lines = [
            "=====================================",
            f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} 0x0 INNODB MONITOR OUTPUT",
            "=====================================",
            f"Per second averages calculated from the last {max(1, round(elapsed))} seconds",
            "----------------------",
            "BUFFER POOL AND MEMORY",
            "----------------------",
            f"Total large memory allocated {self.capacity * self.page_size}",
            "Dictionary memory allocated 0",
            f"Buffer pool size   {self.capacity}",
            f"Free buffers       {free}",
            f"Database pages     {lru_len}",
            f"Old database pages {len(self._old)}",
            f"Modified db pages  {len(self._dirty)}",
            f"Percent of dirty pages(LRU & free pages): {100 * len(self._dirty) / self.capacity:.3f}",
            "Pending reads 0",
            "Pending writes: LRU 0, flush list 0",
            f"Pages made young {self.made_young}, not young {self.not_young}",
            f"{delta['made_young'] / elapsed:.2f} youngs/s, {delta['not_young'] / elapsed:.2f} non-youngs/s",
            f"Pages read {self.misses}, created {self.pages_created}, written {self.pages_written}",
            f"{delta['misses'] / elapsed:.2f} reads/s, {delta['pages_created'] / elapsed:.2f} creates/s, "
            f"{delta['pages_written'] / elapsed:.2f} writes/s",
        ]
        gets = delta["gets"]
        if gets:
            miss_ratio = min(1.0, delta["misses"] / gets)
            lines.append(
                f"Buffer pool hit rate {int(1000 * (1 - miss_ratio))} / 1000, "
                f"young-making rate {int(1000 * delta['made_young'] / gets)} / 1000 "
                f"not {int(1000 * delta['not_young'] / gets)} / 1000"
            )
        else:
            lines.append("No buffer pool page gets since the last printout")
        lines += [
            "Pages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s",
            f"LRU len: {lru_len}, unzip_LRU len: 0",
            "----------------------------",
            "END OF INNODB MONITOR OUTPUT",
            "============================",
        ]
        return "\n".join(lines) + "\n"
