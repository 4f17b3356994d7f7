r"""A B+tree of byte keys and byte values over slotted pages (node format: slotted.py).

                                  +----------------------+
                       root       | k20 | k50 |  (right) |    interior page: separators and
                                  +--/-----|-------\-----+    children; child i holds keys
                                   /       |        \         in [key i-1, key i)
             +-----------------+  +-----------------+  +-----------------+
   leaves    | k01 k07 k12 k19 |->| k20 k31 k44     |->| k50 k51 k77 k90 |->0   (key, value) cells,
             +-----------------+  +-----------------+  +-----------------+      chained left to right

All entries live in the leaves; interior pages only route. Keys are compared as bytes (memcmp
order, shorter first on a tie), so callers who want numeric order encode big-endian.

Insert. Descend to the leaf, insert the cell; if it does not fit, split the leaf: the cells
(with the new one) are divided where the bytes balance, the right half goes to a new page, and
the first key of the right half is added to the parent as the separator. A full parent splits
the same way, the middle key moving up instead of being copied; a root split makes a new root,
and the tree grows one level. Splits are the only way the tree grows, so every leaf is at the
same depth and the depth is about log_fanout(entries).

Appends. Splitting in the middle leaves pages half full, which for keys inserted in ascending
order would be forever: the left halves never receive another key. So when a key goes past the
end of the last leaf, the split moves only the new key to the new page (SQLite's "quick
balance", Voron's sequential split), and the parents on the right edge split near their end in
the same spirit. Ascending inserts then fill pages almost completely, as in Voron's sequential
test (the Voron post); random inserts settle near the classic ln 2 ~ 69% fill.

Delete. The cell is removed from its leaf and nothing else happens: pages are never merged or
freed. A leaf may become empty (scans step over it); its key range stays and later inserts
into that range fill it again. So the fill factor falls with deletes and recovers with inserts
into the same ranges, and the depth never shrinks. stats() reports the fill per level so the
effect can be seen; rebuilding into a new database restores a compact tree.

The tree keeps no page references between calls: every page is fetched from the buffer pool by
number, so the pool's counters see every logical read, and a page can be evicted whenever no
operation is in flight. Point lookups (get) descend in C instead, reading the pages the pool
lacks straight from the file, and then tell the pool what they did (BufferPool.replay), which
counts and caches exactly as fetching would have; _cellsearch.c says why. A put of a new key
whose cell fits in its leaf's free gap, most puts, is done in C too (insert_in_gap), and the
pool counts the pages it met afterwards (BufferPool.count_hits); every other put takes the
Python path below. Within an operation, a page is marked dirty (mark_dirty) before it is
changed and before anything else is fetched; a page dirty in the open transaction stays in
memory (the pool's no-steal rule), and pages are pinned across a split in case the pool runs
without that rule.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate, repeat
from operator import add

from pagelab.storage.bufferpool import BufferPool
from pagelab.storage.errors import BufferPoolFullError, EntryTooLargeError, StorageError
from pagelab.storage.header import TreeMeta
from pagelab.storage.nodes import InteriorPage, LeafPage
from pagelab.storage.pagefile import PAGE_SIZE_LABELS
from pagelab.storage.slotted import SLOT_SIZE, TreePage, max_key_bytes, max_value_bytes, usable_bytes
from pagelab.storage._cellsearch import descend, insert_in_gap, replay  # after bufferpool, whose import says how to build it if missing

INTERIOR_CELL_OVERHEAD = SLOT_SIZE + 6  # slot + child page + key length


class BTree:
    """The tree over a buffer pool; `meta` (root, page count, depth, key count) is shared with
    the Database, which saves it in the header page at commit and restores it on rollback."""

    def __init__(self, pool: BufferPool, meta: TreeMeta):
        self.pool = pool
        self.meta = meta
        self.page_size = pool.page_size
        self.max_key_bytes = max_key_bytes(self.page_size)
        self.max_value_bytes = max_value_bytes(self.page_size)
        self.version = 0  # bumped by every change, so a scan knows when to re-find its place
        self._mark_dirty = pool.mark_dirty  # handed to insert_in_gap on every put

    @staticmethod
    def create_root(page_size: int, page_no: int) -> LeafPage:
        """The empty leaf a new tree starts with."""
        return LeafPage(page_no, page_size)

    # -- checks -----------------------------------------------------------------------------------

    def check_entry(self, key: bytes, value: bytes | None = None) -> None:
        """EntryTooLargeError naming the limit and the page size, before anything changes."""
        label = PAGE_SIZE_LABELS[self.page_size]
        if len(key) > self.max_key_bytes:
            raise EntryTooLargeError(
                f"key of {len(key)} bytes is over the {self.max_key_bytes}-byte limit for {label} pages "
                f"(a quarter of the page, so every interior page holds at least 4 keys); "
                "use shorter keys or a larger page size"
            )
        if value is not None and len(value) > self.max_value_bytes:
            raise EntryTooLargeError(
                f"value of {len(value)} bytes is over the {self.max_value_bytes}-byte limit for {label} pages "
                "(every leaf holds at least 2 entries; there are no overflow pages); "
                "use smaller values or a larger page size"
            )

    # -- reads ------------------------------------------------------------------------------------

    def get(self, key: bytes) -> bytes | None:
        pool = self.pool
        pagefile = pool.pagefile
        found = descend(pagefile.fd, pagefile.read_buffer, pool._resident, self.meta.root, self.meta.depth, key)
        if found is not None:  # the usual case; see _cellsearch.c for why the descent is in C
            value, visits = found
            replay(pool, visits)  # BufferPool.replay, called without its Python frame
            return value
        # A page the C descent could not take: one of the in-memory backend's evicted pages, a
        # failed read, or damage. The same descent in Python fetches it, or names the problem.
        page = self._leaf_for(key)
        index = page.find(key)
        return None if index < 0 else page.value_at(index)

    def _leaf_for(self, key: bytes | None) -> LeafPage:
        """The leaf whose range holds `key` (None: the first leaf), depth - 1 interior pages down."""
        fetch = self.pool.fetch
        page = fetch(self.meta.root)
        for _ in range(self.meta.depth - 1):
            if page.__class__ is not InteriorPage:
                raise self._off_the_path(page, "an interior page")
            page = fetch(page.children[0] if key is None else page.child_for(key))
        if page.__class__ is not LeafPage:
            raise self._off_the_path(page, "a leaf")
        return page

    def _off_the_path(self, page: object, expected: str) -> StorageError:
        """A descent met a page that cannot be where it is: a child pointer to the header page or
        to the wrong level, or a cycle (all leaves are depth - 1 levels below the root)."""
        return StorageError(f"page {page.page_no} is not {expected}, yet the tree's pointers lead a descent there "
                            f"(depth {self.meta.depth}); the file is damaged")

    def scan(self, start: bytes | None = None, end: bytes | None = None, *, end_inclusive: bool = False,
             before_next_leaf: Callable[[], None] | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs with start <= key < end (key <= end if end_inclusive), in key order.

        None means unbounded. The scan reads one leaf at a time and yields copies, so the tree may
        change between items: the scan then finds its place again from the root and goes on after
        the last key it yielded. Each key is yielded at most once, in order; keys put or deleted
        during the scan may or may not be seen. `before_next_leaf` runs each time the scan comes
        back for another leaf, and may raise to end it (the Database's check that it is still open)."""
        leaf = self._leaf_for(start)
        index = 0 if start is None else bisect_left(leaf.keys, start)
        start_yielded = False  # True once `start` is a key already yielded (resume after it)
        link_hops = 0  # leaves reached by links since the scan last found its place from the root
        while True:
            keys = leaf.keys
            if end is None:
                stop = len(keys)
            else:
                stop = bisect_right(keys, end) if end_inclusive else bisect_left(keys, end)
            batch = [(keys[i], leaf.value_at(i)) for i in range(index, stop)]
            finished = stop < len(keys) or leaf.link == 0
            next_leaf, version = leaf.link, self.version
            yield from batch
            if finished:
                return
            if before_next_leaf is not None:
                before_next_leaf()
            if batch:
                start, start_yielded = batch[-1][0], True
            if self.version == version:
                leaf, index = self.pool.fetch(next_leaf), 0
                link_hops += 1
                if leaf.__class__ is not LeafPage or link_hops > self.meta.page_count:  # a link cycle, unless damaged otherwise
                    raise StorageError(f"a leaf links to page {next_leaf}, which is not the next leaf in key order "
                                       "(not a leaf, or a cycle); the file is damaged")
            else:  # changed while we were away: find our place again
                link_hops = 0
                leaf = self._leaf_for(start)
                if start is None:
                    index = 0
                else:
                    index = (bisect_right if start_yielded else bisect_left)(leaf.keys, start)

    # -- changes ----------------------------------------------------------------------------------

    def put(self, key: bytes, value: bytes) -> bool:
        """Insert or replace; True if the key is new."""
        if len(key) > self.max_key_bytes or len(value) > self.max_value_bytes:
            self.check_entry(key, value)
        pool = self.pool
        meta = self.meta
        met = insert_in_gap(pool._resident, self._mark_dirty, meta.root, meta.depth, key, value)
        if met is not None:  # the usual case, a new key that fits in its leaf: see _cellsearch.c
            pool.count_hits(met)
            self.version += 1
            meta.key_count += 1
            return True
        fetch = pool.fetch
        page = fetch(meta.root)
        # _leaf_for's loop, except that it decodes the interior pages it passes (slotted.py,
        # "Decoding is lazy"): insert_in_gap takes only decoded pages, so after a reopen the first
        # puts through each page come here and leave it ready for the C path. The path is not
        # recorded, as only a split needs it (_path_to).
        for _ in range(meta.depth - 1):
            if page.__class__ is not InteriorPage:
                raise self._off_the_path(page, "an interior page")
            keys = page._keys
            if keys is None:
                keys = page.keys
            page = fetch(page._children[bisect_right(keys, key)])
        if page.__class__ is not LeafPage:
            raise self._off_the_path(page, "a leaf")
        keys = page._keys
        if keys is None:
            keys = page.keys
        index = bisect_left(keys, key)
        self.version += 1
        if not page.in_txn:  # already in the transaction: mark_dirty would have nothing to do
            pool.mark_dirty(page)
        if index < len(keys) and keys[index] == key:
            if page.replace_value_at(index, value):
                return False
            page.delete_at(index)  # the new value does not fit beside the others: reinsert with a split
            new = False
        else:
            new = True
        if not page.insert_at(index, key, value):
            try:
                self._split_leaf(page, index, key, value)
            except BufferPoolFullError as error:
                raise self._explain_full_pool(error) from None
        if new:
            self.meta.key_count += 1
        return new

    def delete(self, key: bytes) -> bool:
        """Remove the key; False if it was not there. Pages are not merged (see module doc)."""
        page = self._leaf_for(key)
        keys = page.keys
        index = bisect_left(keys, key)
        if index == len(keys) or keys[index] != key:
            return False
        self.version += 1
        self.pool.mark_dirty(page)
        page.delete_at(index)
        self.meta.key_count -= 1
        return True

    def _allocate(self) -> int:
        page_no = self.meta.page_count
        self.meta.page_count += 1
        return page_no

    def _split_leaf(self, leaf: LeafPage, index: int, key: bytes, value: bytes) -> None:
        sizes = leaf.cell_sizes()
        keys = leaf.keys[:]
        appending = index == len(keys) and leaf.link == 0
        cell = leaf.make_cell(key, value)
        keys.insert(index, key)
        sizes.insert(index, len(cell))
        if appending:
            middle = len(keys) - 1  # the new key alone on the new page: the old one stays full
        else:
            middle = _balanced_split(sizes, usable_bytes(self.page_size), per_cell=SLOT_SIZE)
        leaf.pins += 1
        try:
            path = self._path_to(key)
            right = LeafPage.with_layout(self._allocate(), self.page_size, keys[middle:],
                                         leaf.lay_out(index, cell, middle, len(keys)), leaf.link)
            self.pool.add_new(right)
            leaf.load_layout(keys[:middle], leaf.lay_out(index, cell, 0, middle), right.page_no)
        finally:
            leaf.pins -= 1
        self._insert_separator(path, leaf.page_no, keys[middle], right.page_no)

    def _explain_full_pool(self, error: BufferPoolFullError) -> BufferPoolFullError:
        """The pool filled up during a split. If one put alone can change more pages than the pool
        holds, smaller transactions cannot help: say what can."""
        # a split at every level changes each page on the path and its new sibling (2 x depth),
        # adds a new root, and the commit changes the header page
        frames_needed = 2 * self.meta.depth + 2
        if self.pool.capacity >= frames_needed:
            return error
        return BufferPoolFullError(
            f"one put into this tree (depth {self.meta.depth}) can split a page at every level and change up to "
            f"{frames_needed} pages in one transaction, but the buffer pool holds {self.pool.capacity}: open the "
            f"database with cache_bytes >= {frames_needed * self.page_size} (or larger pages, which make the tree "
            "shallower)"
        )

    def _path_to(self, key: bytes) -> list[tuple[int, int, bool]]:
        """The interior pages from the root down to `key`'s leaf: (page, child index taken, was it
        the rightmost child). Only a split needs it, so put() does not record it on the way down.
        A page still in the pool is looked at with pool.peek, which neither counts a get nor
        moves it in the LRU: the descent just did both. A small pool may have evicted it since
        (the descent read other pages after it); then it is fetched, a read the pool counts and
        keeps, so the split's parent is not read twice."""
        pool = self.pool
        path = []
        page_no = self.meta.root
        while True:
            page = pool.peek(page_no) if pool.is_resident(page_no) else pool.fetch(page_no)
            if page.is_leaf:
                return path
            keys = page.keys
            index = bisect_right(keys, key)
            path.append((page_no, index, index == len(keys)))
            page_no = page.children[index]

    def _insert_separator(self, path: list[tuple[int, int, bool]], left_no: int, separator: bytes,
                          right_no: int) -> None:
        """Tell the parent of `left_no` that it split at `separator` into itself and `right_no`."""
        pool = self.pool
        if not path:  # the root split: a new root above the two halves
            root = InteriorPage(self._allocate(), self.page_size)
            root.rebuild([separator], [left_no, right_no])
            pool.add_new(root)
            self.meta.root = root.page_no
            self.meta.depth += 1
            return
        parent_no, index, took_rightmost = path.pop()
        parent = pool.fetch(parent_no)
        parent.pins += 1  # and -= 1 below, in place: a call to unpin could be interrupted before it ran
        try:
            pool.mark_dirty(parent)
            if parent.insert_separator(index, separator, right_no):
                return
            keys = list(parent.keys)
            children = list(parent.children)
            keys.insert(index, separator)
            children.insert(index + 1, right_no)
            on_right_edge = took_rightmost and all(rightmost for _, _, rightmost in path)
            if on_right_edge:
                middle = len(keys) - 2  # keep the parent nearly full; the new page gets the last key
            else:
                middle = _balanced_split(list(map(len, keys)), usable_bytes(self.page_size),
                                         per_cell=INTERIOR_CELL_OVERHEAD, promote=True)
            right = InteriorPage(self._allocate(), self.page_size)
            right.rebuild(keys[middle + 1 :], children[middle + 1 :])
            pool.add_new(right)
            parent.rebuild(keys[:middle], children[: middle + 1])
        finally:
            parent.pins -= 1
        self._insert_separator(path, parent_no, keys[middle], right.page_no)

    # -- statistics -------------------------------------------------------------------------------

    def stats(self) -> dict:
        """Depth, pages and fill per level (root = level 0), as LMDB's mdb_stat and SQLite's dbstat
        show them. Pages are read with pool.peek, so the walk neither counts as gets nor
        reorders the LRU (pages not in the pool are read from the file, uncached)."""
        usable = usable_bytes(self.page_size)
        levels = []
        level_pages = [self.meta.root]
        empty_leaves = 0
        while level_pages:
            used = cells = 0
            next_level: list[int] = []
            is_leaf = False
            for page_no in level_pages:
                page = self.pool.peek(page_no)
                used += page.used_bytes
                cells += len(page.keys)
                is_leaf = page.is_leaf
                if is_leaf:
                    empty_leaves += not page.keys
                else:
                    next_level.extend(page.children)
            levels.append({
                "level": len(levels),
                "kind": "leaf" if is_leaf else "interior",
                "pages": len(level_pages),
                "cells": cells,
                "used_bytes": used,
                "usable_bytes": usable * len(level_pages),
                "fill": used / (usable * len(level_pages)),
            })
            level_pages = next_level
        used_total = sum(level["used_bytes"] for level in levels)
        usable_total = sum(level["usable_bytes"] for level in levels)
        leaf_level = levels[-1]
        return {
            "page_size": self.page_size,
            "depth": len(levels),
            "keys": self.meta.key_count,
            "pages": sum(level["pages"] for level in levels),
            "leaf_pages": leaf_level["pages"],
            "interior_pages": sum(level["pages"] for level in levels[:-1]),
            "empty_leaf_pages": empty_leaves,
            "pages_per_level": [level["pages"] for level in levels],
            "fill": used_total / usable_total,
            "leaf_fill": leaf_level["fill"],
            "levels": levels,
            "max_key_bytes": self.max_key_bytes,
            "max_value_bytes": self.max_value_bytes,
        }

    def check(self) -> None:
        """Verify the tree's invariants (for tests): keys sorted and inside their parent's bounds,
        every leaf at the same depth, the leaf chain in key order, the key count right."""
        leaves: list[int] = []
        count = self._check_page(self.meta.root, None, None, 1, leaves)
        if count != self.meta.key_count:
            raise StorageError(f"the tree holds {count} keys, the header says {self.meta.key_count}")
        for left, right in zip(leaves, leaves[1:]):
            if self.pool.peek(left).link != right:
                raise StorageError(f"leaf {left} links to {self.pool.peek(left).link}, expected {right}")
        if leaves and self.pool.peek(leaves[-1]).link != 0:
            raise StorageError(f"the last leaf {leaves[-1]} links to {self.pool.peek(leaves[-1]).link}")

    def _check_page(self, page_no: int, low: bytes | None, high: bytes | None, level: int, leaves: list[int]) -> int:
        page: TreePage = self.pool.peek(page_no)
        keys = page.keys
        if any(a >= b for a, b in zip(keys, keys[1:])):
            raise StorageError(f"page {page_no}: keys out of order")
        if keys and ((low is not None and keys[0] < low) or (high is not None and keys[-1] >= high)):
            raise StorageError(f"page {page_no}: keys outside the parent's range")
        if page.is_leaf:
            if level != self.meta.depth:
                raise StorageError(f"leaf {page_no} at depth {level}, the tree's depth is {self.meta.depth}")
            leaves.append(page_no)
            return len(keys)
        bounds = [low, *keys, high]
        return sum(
            self._check_page(child, bounds[i], bounds[i + 1], level + 1, leaves)
            for i, child in enumerate(page.children)
        )


def _balanced_split(sizes: list[int], usable: int, *, per_cell: int = 0, promote: bool = False) -> int:
    """Where to split cells of these sizes so both pages fit and their bytes are closest to equal.

    Each cell also costs `per_cell` bytes (its slot). Leaves (promote=False) split into
    cells[:m] and cells[m:]. Interior pages (promote=True) keep cells[:m], move cell m up to the
    parent and give cells[m+1:] to the new page. The size limits of slotted.py guarantee a split
    point exists."""
    prefix = list(accumulate(map(add, sizes, repeat(per_cell))))  # prefix[i] = bytes of cells[:i+1]
    total = prefix[-1]
    count = len(sizes)
    last = count - 2 if promote else count - 1  # the right page must get at least one cell
    near = bisect_left(prefix, total // 2)  # the balance point lies between `near` and `near + 1` cells
    best = _closest_fit(prefix, sizes, usable, per_cell, promote, (near, near + 1, near - 1, near + 2), last)
    if best < 0:  # lopsided sizes: look everywhere
        best = _closest_fit(prefix, sizes, usable, per_cell, promote, range(1, last + 1), last)
    if best < 0:
        raise StorageError(f"no split of {count} cells ({total} bytes) fits two {usable}-byte pages")
    return best


def _closest_fit(prefix: list[int], sizes: list[int], usable: int, per_cell: int, promote: bool,
                 candidates, last: int) -> int:
    """The candidate split point whose two pages both fit and differ least in bytes (the first
    such, in cell order, on a tie); -1 if none fits."""
    total = prefix[-1]
    best, best_gap = -1, usable + 1
    for middle in candidates:
        if not 1 <= middle <= last:
            continue
        left = prefix[middle - 1]
        right = total - left - (per_cell + sizes[middle] if promote else 0)
        if left <= usable and right <= usable:
            gap = abs(left - right)
            if gap < best_gap or (gap == best_gap and middle < best):
                best, best_gap = middle, gap
    return best
