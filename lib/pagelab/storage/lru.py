"""The buffer pool's replacement policy: InnoDB's LRU with midpoint insertion.

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

Two copies of the replacement rules. After a cold lookup's last read the pool's steps for the
pages it met (fetch's for a page found; _make_room, _admit, _insert_at_midpoint, _rebalance,
_evict and _remove for a page read) run in C, in _cellsearch.replay, which acts on the pool's
own lists and fields: the Python steps were a tenth of a cold lookup (_cellsearch.c says how that
was measured). A change to those rules must be made in both; tests/storage/test_descend.py
compares lookups through the C steps with the same lookups fetched page by page in Python,
counts, evictions, written pages and list order.

MidpointLRU is mixed into BufferPool (bufferpool.py), which owns what it works on: `_resident`
(page number -> frame), the sublists `_young` and `_old` (each running from its tail, the first
item, to its head, the last), the settings `capacity`, `old_blocks_pct`, `old_blocks_time_s` and
`_clock`, the counters `misses`, `made_young`, `not_young` and `evictions`, and `_write`,
`_remove` and `_pool_full_error` for the page it evicts. A hit's steps are in BufferPool.fetch
itself, the hot path of every lookup; this module is the rest of the policy. Its list changes
follow the pool's rule for interrupts (bufferpool.py, "Interrupts").
"""

from __future__ import annotations

from pagelab.storage.frames import Frame

OLD_BLOCKS_PCT = 37  # innodb_old_blocks_pct's default: the old sublist is 3/8 of the LRU
OLD_BLOCKS_TIME_MS = 1000  # innodb_old_blocks_time's default since MySQL 5.6 / MariaDB 10.0
YOUNG_REFRESH_FRACTION = 4  # InnoDB re-heads a young page once it is in the older 1/4 of the young sublist


class MidpointLRU:
    """Where a page enters the LRU, when it is made young, and which page is evicted (see the module doc)."""

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
            del young[page_no]  # from here to the end of the step, no interrupt can land (bufferpool.py)
            frame.old = True
            old[page_no] = frame

    def _old_head_to_young_tail(self) -> None:
        """Move the midpoint one page toward the tail: the old head becomes the young tail."""
        old, young = self._old, self._young
        page_no = next(reversed(old))
        frame = old[page_no]
        del old[page_no]  # from here to the end, no interrupt can land (bufferpool.py)
        frame.old = False
        young[page_no] = frame
        young.move_to_end(page_no, last=False)

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
