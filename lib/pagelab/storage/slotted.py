"""Slotted pages: the B+tree's node format, leaf and interior, for any page size from 1 to 64 KiB.

This module is the format and what every tree page keeps of it (TreePage: header fields, slot
array, free space, compaction, the image written to the file, rollback snapshots); nodes.py holds
the two kinds of page, the operations the tree makes on each, and an image decoded into one.

Every tree page is laid out the same way; offsets are from the start of the page, integers are
little-endian:

      0      1      2      4              8              12             16
      +------+------+------+--------------+--------------+--------------+
      | type | (0)  | cell | content      | fragmented   | link         |  page header, 16 bytes
      |  u8  |  u8  | count| start  u32   | bytes  u32   | page no. u32 |
      |      |      | u16  |              |              |              |
      +------+------+------+--------------+--------------+--------------+
   16 | slot 0 | slot 1 | slot 2 | ...  -->                              |  slot array: u16 offset
      +--------+--------+--------+                                      |  of each cell, in key
      |                                                                 |  order; grows toward
      |                       free space                                |  the end of the page
      |                                                                 |
      |                      +---------+---------+------------+---------+
      |                  <-- | cell 2  | (freed) | cell 0     | cell 1  |  cell content: grows
      +----------------------+---------+---------+------------+---------+  toward the start
                             ^ content start                  page_size ^

    leaf cell:      +------------+--------------+-----------+-------------+
                    | key length | value length | key bytes | value bytes |
                    | u16        | u16          |           |             |
                    +------------+--------------+-----------+-------------+
    interior cell:  +------------+------------+-----------+
                    | child page | key length | key bytes |
                    | u32        | u16        |           |
                    +------------+------------+-----------+

type        1 = leaf, 2 = interior (page 0, the header page, has its own layout in header.py)
cell count  cells on the page (u16: a 64 KiB page holds at most 65520 / 8 cells)
content     offset of the lowest cell byte; page_size when the page is empty (u32, since a
 start      64 KiB page's end, 65536, does not fit in u16)
fragmented  bytes of deleted cells still inside the content area; compaction reclaims them
link        leaf: the next leaf in key order (0 = none; page 0 is never a tree page)
            interior: the rightmost child, which holds the keys >= the last cell's key

In an interior page, the child of cell i holds the keys k with key[i-1] <= k < key[i]; the
rightmost child holds k >= key[n-1]. A slot is u16 because a cell always starts at least 6
bytes before the page end, so its offset is below 65536 even on 64 KiB pages.

Size limits. A page must keep enough cells for the tree to work: an interior page splits into
two non-empty halves plus a promoted key only if it holds at least 4 cells (SQLite's rule), and
a leaf splits into two pages that each fit only if any cell is at most half the usable space.
So, with usable = page_size - 16:

    max key   = usable // 4 - 8                      (4 interior cells of slot 2 + cell header 6)
    max value = usable // 2 - 6 - max key            (2 leaf cells of slot 2 + header 4 + key + value)

which gives 244 / 254 bytes at 1 KiB, 1012 / 1022 at 4 KiB, 4084 / 4094 at 16 KiB and 16372 /
16382 at 64 KiB. There are no overflow pages: a larger key or value is refused.

In memory a page keeps, beside its bytes, an array of its cell offsets and, once something
needs them, the decoded list of its keys (for bisect; interior pages also a list of their
children). The cell bytes are written as cells change; the header and slot array are written
from those lists when the page's image is taken (`image()`), so an insert costs one bisect, one
slice assignment and two list inserts.

Damage. Tree pages carry no checksum (InnoDB's do; here it would cost a crc32 of every page on
every cold read, the path the lookup bench times against fio). What is checked instead is what would
otherwise make a damaged page fail inside struct or quietly return short bytes: a header whose
slot array and content start cannot fit the page, and any cell whose lengths run past the page
end, each reported as StorageError("page N: ... the file is damaged"). Bytes changed inside a
key or value are not detected.

Decoding is lazy. A page read from the file only has its slot array unpacked; lookups
(nodes.py's `child_for`, `find`, `value_at`) binary-search the raw cells through the slot
array, reading about log2(cells) keys instead of all of them. Keys and children are decoded the first time
anything asks for `keys` or `children`, which every change does; a page that is only searched
is never decoded. The raw search is in C (_cellsearch.c, which says why, and which also holds
BTree.get's whole descent): 0.3-0.4 µs per search of a 4-16 KiB interior page with warm CPU
caches, about what a bisect over the decoded keys costs, while a full decode costs ~0.8 µs per
cell (80 µs for a 4 KiB interior page of 32-byte keys, 240 µs at 16 KiB). A cold point lookup
therefore costs the device's page reads plus a search per page, and the pool's bookkeeping once.

Rollback snapshots are copy-on-write. The first change to a dirty page in a transaction needs
the page's committed state kept for rollback; copying the whole page each time cost a fifth of
a random insert's time. A snapshot instead keeps, in the page's own `_saved_*` fields, a
reference to the page's bytes, a copy of the slot array and the header fields (no lists: a
rollback leaves the keys to be decoded again, and a snapshot allocates nothing the garbage
collector has to track), and sets the page's `cow_floor` to its content start: every committed
cell lies at or above it. A new cell written below the floor (into the free gap, the common
insert) leaves the snapshot intact; any write that reaches above it (a value changed in place,
a child pointer, a cell in reclaimed space) first gives the page its own copy of the bytes, and
so does image(), which writes the header and slot array into them. Splits and compaction build
new bytes anyway.
"""

from __future__ import annotations

import struct
import sys
from array import array
from typing import ClassVar

from pagelab.storage.errors import StorageError
from pagelab.storage.frames import Frame

# (bufferpool's import of _cellsearch, which the package's __init__ runs first, says how to build it if missing)
from pagelab.storage._cellsearch import cell_sizes, lay_out_cells

LEAF = 1
INTERIOR = 2

HEADER = struct.Struct("<BBHIII")
HEADER_SIZE = HEADER.size  # 16
SLOT_SIZE = 2
LEAF_CELL_HEADER = struct.Struct("<HH")  # key length, value length
INTERIOR_CELL_HEADER = struct.Struct("<IH")  # child page, key length
MIN_INTERIOR_CELLS = 4  # two non-empty halves and one key to promote, after a split
MIN_LEAF_CELLS = 2  # any overfull leaf splits into two pages that both fit
BIG_ENDIAN = sys.byteorder == "big"  # the slot array is little-endian on the page, native in memory


def usable_bytes(page_size: int) -> int:
    """Bytes of a tree page available to slots and cells."""
    return page_size - HEADER_SIZE


def max_key_bytes(page_size: int) -> int:
    """The longest key a page of this size accepts (see the module docstring for the rule)."""
    return usable_bytes(page_size) // MIN_INTERIOR_CELLS - SLOT_SIZE - INTERIOR_CELL_HEADER.size


def max_value_bytes(page_size: int) -> int:
    """The longest value a page of this size accepts alongside a key of maximal length."""
    per_cell = usable_bytes(page_size) // MIN_LEAF_CELLS
    return per_cell - SLOT_SIZE - LEAF_CELL_HEADER.size - max_key_bytes(page_size)


def slot_array(values=()) -> array:
    """Cell offsets in memory: an array of u16, so the slot array's bytes are one copy away."""
    return array("H", values)


def _slots_bytes(offsets: array) -> bytes:
    if BIG_ENDIAN:
        offsets = array("H", offsets)
        offsets.byteswap()
    return offsets.tobytes()


class TreePage(Frame):
    """What leaf and interior pages share: header fields, slot bookkeeping, free space, image."""

    __slots__ = ("data", "_keys", "offsets", "content_start", "fragmented", "page_size", "cow_floor",
                 "_saved_data", "_saved_offsets", "_saved_content_start", "_saved_fragmented", "_saved_link")
    page_type: ClassVar[int]
    is_leaf: ClassVar[bool]
    link: int  # the header's link field (see the layout); each kind keeps it its own way

    def __init__(self, page_no: int, page_size: int):
        super().__init__(page_no)
        self.page_size = page_size
        self.data = bytearray(page_size)
        self._keys: list[bytes] | None = []
        self.offsets = slot_array()
        self.content_start = page_size
        self.fragmented = 0
        self.cow_floor = page_size  # no snapshot shares `data` (see "copy-on-write" above)

    @property
    def keys(self) -> list[bytes]:
        """The page's keys in order, decoded from the cells on first use."""
        keys = self._keys
        if keys is None:
            self._decode()
            keys = self._keys
        return keys

    @keys.setter
    def keys(self, keys: list[bytes]) -> None:
        self._keys = keys

    def _decode(self) -> None:
        """Fill the decoded lists from the cells (see "Decoding is lazy" above)."""
        raise NotImplementedError

    def _cell_size(self, index: int) -> int:
        raise NotImplementedError

    def image(self) -> bytes:
        if self.cow_floor < self.page_size:
            self._unshare()  # the header and slot array are written into the bytes just below
        data = self.data
        count = len(self.offsets)
        HEADER.pack_into(data, 0, self.page_type, 0, count, self.content_start, self.fragmented, self.link)
        data[HEADER_SIZE : HEADER_SIZE + SLOT_SIZE * count] = _slots_bytes(self.offsets)
        return bytes(data)

    # -- rollback snapshots (copy-on-write, see the module docstring) -----------------------------

    def snapshot(self) -> bool:
        # Kept in the page's own fields rather than returned as a tuple: a tuple per page first
        # changed in a transaction was most of what the garbage collector had to track in an
        # insert run. The pool only needs to know that there is something to restore.
        self.cow_floor = self.content_start
        self._saved_data = self.data
        self._saved_offsets = self.offsets.tobytes()  # bytes, unlike an array, are not tracked by the GC
        self._saved_content_start = self.content_start
        self._saved_fragmented = self.fragmented
        self._saved_link = self.link
        return True

    def restore(self, snapshot: object) -> bool:
        self.data = self._saved_data
        self.offsets = offsets = slot_array()
        offsets.frombytes(self._saved_offsets)
        self.content_start, self.fragmented = self._saved_content_start, self._saved_fragmented
        self._keys = None  # decoded again from the restored cells when next needed
        self._restore_link(self._saved_link)
        self.release_snapshot()
        return True

    def release_snapshot(self) -> None:
        self.cow_floor = self.page_size
        self._saved_data = self._saved_offsets = None  # the old bytes may be freed now

    def _unshare(self) -> None:
        """Give the page its own copy of its bytes, leaving the snapshot's untouched."""
        self.data = bytearray(self.data)
        self.cow_floor = self.page_size

    def _restore_link(self, link: int) -> None:
        raise NotImplementedError

    def _damaged(self, error: ValueError) -> StorageError:
        return StorageError(f"page {self.page_no}: {error}; the file is damaged")

    @property
    def free_bytes(self) -> int:
        """Bytes a new slot and cell could use, counting what compaction would reclaim."""
        return self.content_start - HEADER_SIZE - SLOT_SIZE * len(self.offsets) + self.fragmented

    @property
    def used_bytes(self) -> int:
        """Slots plus live cells: the numerator of the fill factor (usable_bytes is the denominator)."""
        return usable_bytes(self.page_size) - self.free_bytes

    def _room_for(self, cell_size: int) -> int:
        """Offset where a new cell of this size goes (compacting first if that makes room), or -1."""
        slots_end = HEADER_SIZE + SLOT_SIZE * (len(self.offsets) + 1)
        start = self.content_start - cell_size
        if start >= slots_end:
            return start
        if start + self.fragmented < slots_end:
            return -1
        self.compact()
        return self.content_start - cell_size

    def _free_cell(self, index: int) -> None:
        offset = self.offsets[index]
        size = self._cell_size(index)
        if offset == self.content_start:
            self.content_start += size  # the lowest cell: the free gap simply grows
        else:
            self.fragmented += size

    def cell_sizes(self) -> list[int]:
        """Each cell's size in bytes (header and payload), in key order."""
        try:
            return cell_sizes(self.data, self.offsets, self.is_leaf)
        except ValueError as error:
            raise self._damaged(error) from None

    def lay_out(self, insert_at: int, new_cell: bytes, first: int, stop: int) -> tuple[bytearray, bytes, int]:
        """Cells first..stop-1 of this page's cells in key order, with `new_cell` put in at position
        `insert_at` (-1 for none), laid contiguously at the end of a fresh page: what a split gives
        each half and what compaction gives the page (take_layout installs it). In C, as the one
        pass over every cell's bytes a split makes."""
        try:
            return lay_out_cells(self.data, self.offsets, self.is_leaf, insert_at, new_cell, first, stop)
        except ValueError as error:
            raise self._damaged(error) from None
        except OverflowError as error:
            raise StorageError(f"page {self.page_no}: {error}") from None

    def take_layout(self, layout: tuple[bytearray, bytes, int]) -> None:
        """Make the page's content a layout from lay_out: new bytes, so no snapshot shares them."""
        self.data, slots, self.content_start = layout
        offsets = self.offsets = slot_array()
        offsets.frombytes(slots)
        self.fragmented = 0
        self.cow_floor = self.page_size

    def compact(self) -> None:
        """Rewrite the cells contiguously at the page end (in key order), reclaiming freed bytes."""
        self.take_layout(self.lay_out(-1, b"", 0, len(self.offsets)))
