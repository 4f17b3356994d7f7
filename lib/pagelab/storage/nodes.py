"""Leaf and interior pages: the two kinds of tree page, the operations the B+tree makes on each,
and a page image read from the file decoded into one.

The format both share (header, slot array, cells, size limits, lazy decoding, copy-on-write
rollback snapshots) is drawn at the top of slotted.py, whose TreePage keeps it; what differs
by kind is here:

    LeafPage          (key, value) cells; the header's link is the next leaf. find, value_at,
                      insert_at, replace_value_at, delete_at, and a split's halves (load_layout,
                      with_layout)
    InteriorPage      (child, key) cells; the header's link is the rightmost child. child_for,
                      insert_separator, rebuild
    decode_tree_page  an image into a LeafPage or an InteriorPage by the header's type byte, in C,
                      with decode_tree_page_in_python for what C does not take (damage, odd types)
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_left, bisect_right
from functools import partial

from pagelab.storage.errors import StorageError
from pagelab.storage.frames import Frame
from pagelab.storage.slotted import (
    BIG_ENDIAN,
    HEADER,
    HEADER_SIZE,
    INTERIOR,
    INTERIOR_CELL_HEADER,
    LEAF,
    LEAF_CELL_HEADER,
    SLOT_SIZE,
    TreePage,
    slot_array,
)

from pagelab.storage._cellsearch import decode_page, interior_child, leaf_find

_SLOTS_START_PLUS_ONE = HEADER_SIZE + SLOT_SIZE  # where the slot array ends once one more slot is added
_pack_leaf_cell_header = LEAF_CELL_HEADER.pack
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")


class LeafPage(TreePage):
    """A leaf: (key, value) cells in key order and the page number of the next leaf."""

    __slots__ = ("link",)
    page_type = LEAF
    is_leaf = True

    def __init__(self, page_no: int, page_size: int):
        super().__init__(page_no, page_size)
        self.link = 0

    def _restore_link(self, link: int) -> None:
        self.link = link

    def _decode(self) -> None:
        data = self.data
        unpack = LEAF_CELL_HEADER.unpack_from
        page_size = self.page_size
        keys = []
        try:
            for offset in self.offsets:
                key_length, value_length = unpack(data, offset)
                end = offset + 4 + key_length
                if end + value_length > page_size:
                    raise ValueError(f"the cell at offset {offset} runs past the page end")
                keys.append(bytes(data[offset + 4 : end]))
        except (ValueError, struct.error) as error:  # struct.error: a slot past the page end
            raise self._damaged(error) from None
        self._keys = keys

    def _cell_size(self, index: int) -> int:
        key_length, value_length = LEAF_CELL_HEADER.unpack_from(self.data, self.offsets[index])
        return 4 + key_length + value_length

    @staticmethod
    def make_cell(key: bytes, value: bytes) -> bytes:
        return LEAF_CELL_HEADER.pack(len(key), len(value)) + key + value

    def load_layout(self, keys: list[bytes], layout: tuple[bytearray, bytes, int], link: int) -> None:
        """Replace the whole content with these keys' cells, laid out by lay_out: each half of a split."""
        self.take_layout(layout)
        self._keys = keys
        self.link = link

    @classmethod
    def with_layout(cls, page_no: int, page_size: int, keys: list[bytes], layout: tuple[bytearray, bytes, int],
                    link: int) -> LeafPage:
        """A new leaf holding these keys' cells, laid out by lay_out: the right half of a split."""
        page = cls.__new__(cls)
        Frame.__init__(page, page_no)
        page.page_size = page_size
        page.load_layout(keys, layout, link)
        return page

    def value_at(self, index: int) -> bytes:
        offset = self.offsets[index]
        key_length, value_length = LEAF_CELL_HEADER.unpack_from(self.data, offset)
        start = offset + 4 + key_length
        if start + value_length > self.page_size:  # a slice would quietly come back short
            raise self._damaged(ValueError(f"the value of the cell at offset {offset} runs past the page end"))
        return bytes(self.data[start : start + value_length])

    def values(self) -> list[bytes]:
        return [self.value_at(index) for index in range(len(self.offsets))]

    def find(self, key: bytes) -> int:
        """Index of `key`, or -1; on a page not yet decoded, without decoding it."""
        keys = self._keys
        if keys is not None:
            index = bisect_left(keys, key)
            return index if index < len(keys) and keys[index] == key else -1
        try:
            return leaf_find(self.data, self.offsets, key)  # binary search over the raw cells, in C
        except ValueError as error:
            raise self._damaged(error) from None

    def insert_at(self, index: int, key: bytes, value: bytes) -> bool:
        """Put a new cell at `index` (key order is the caller's promise); False if it does not fit."""
        key_length = len(key)
        value_length = len(value)
        end = self.content_start
        start = end - 4 - key_length - value_length
        offsets = self.offsets
        if start < _SLOTS_START_PLUS_ONE + len(offsets) * SLOT_SIZE:  # not in the gap: compact, or no room
            start = self._room_for(end - start)
            if start < 0:
                return False
            end = self.content_start
            offsets = self.offsets  # compaction made a new array
        if end > self.cow_floor:
            self._unshare()
        self.data[start:end] = _pack_leaf_cell_header(key_length, value_length) + key + value
        self.content_start = start
        keys = self._keys
        (self.keys if keys is None else keys).insert(index, key)
        offsets.insert(index, start)
        return True

    def replace_value_at(self, index: int, value: bytes) -> bool:
        """Change the value at `index`: in place if the length is unchanged, else as a new cell;
        False (page unchanged) if the new cell does not fit."""
        offset = self.offsets[index]
        key = self.keys[index]
        (old_length,) = _U16.unpack_from(self.data, offset + 2)
        if old_length == len(value):
            start = offset + 4 + len(key)
            if start + old_length > self.cow_floor:
                self._unshare()
            self.data[start : start + old_length] = value
            return True
        if self.free_bytes + 4 + len(key) + old_length < 4 + len(key) + len(value) + SLOT_SIZE:
            return False
        self.delete_at(index)
        if not self.insert_at(index, key, value):  # cannot happen: checked above
            raise StorageError(f"page {self.page_no}: replacing a value lost its cell")
        return True

    def delete_at(self, index: int) -> None:
        self._free_cell(index)
        del self.keys[index]
        del self.offsets[index]


class InteriorPage(TreePage):
    """An interior page: (key, child) cells and a rightmost child.

    `children` has one more entry than `keys`: children[i] for i < n is cell i's child, and
    children[n] is the rightmost child (the header's link)."""

    __slots__ = ("_children",)
    page_type = INTERIOR
    is_leaf = False

    def __init__(self, page_no: int, page_size: int):
        super().__init__(page_no, page_size)
        self._children: list[int] | None = [0]

    def _restore_link(self, link: int) -> None:
        # _decode reads the rightmost child from the header's link field; the header bytes are
        # no cell's, so writing them leaves the restored cells as they were
        _U32.pack_into(self.data, 12, link)
        self._children = None

    def _decode(self) -> None:
        data = self.data
        unpack = INTERIOR_CELL_HEADER.unpack_from
        page_size = self.page_size
        keys = []
        children = []
        try:
            for offset in self.offsets:
                child, key_length = unpack(data, offset)
                if offset + 6 + key_length > page_size:
                    raise ValueError(f"the cell at offset {offset} runs past the page end")
                children.append(child)
                keys.append(bytes(data[offset + 6 : offset + 6 + key_length]))
        except (ValueError, struct.error) as error:  # struct.error: a slot past the page end
            raise self._damaged(error) from None
        children.append(_U32.unpack_from(data, 12)[0])  # the header's link: the rightmost child
        self._keys = keys
        self._children = children

    @property
    def children(self) -> list[int]:
        children = self._children
        if children is None:
            self._decode()
            children = self._children
        return children

    @children.setter
    def children(self, children: list[int]) -> None:
        self._children = children

    @property  # type: ignore[override]
    def link(self) -> int:
        return self.children[-1]

    def child_for(self, key: bytes) -> int:
        """The child page whose range holds `key`; on a page not yet decoded, without decoding it."""
        keys = self._keys
        if keys is not None:
            return self._children[bisect_right(keys, key)]
        try:
            return interior_child(self.data, self.offsets, key)  # binary search over the raw cells, in C
        except ValueError as error:
            raise self._damaged(error) from None

    def _cell_size(self, index: int) -> int:
        return 6 + _U16.unpack_from(self.data, self.offsets[index] + 4)[0]

    def compact(self) -> None:
        self.children  # noqa: B018 - an undecoded page keeps its rightmost child in the header bytes, which compaction rewrites
        super().compact()

    def insert_separator(self, index: int, key: bytes, right_child: int) -> bool:
        """After children[index] split into itself and `right_child` at `key`: add the cell.

        False (page unchanged) if it does not fit."""
        size = 6 + len(key)
        start = self._room_for(size)
        if start < 0:
            return False
        left_child = self.children[index]
        if self.cow_floor < self.page_size:  # this writes a cell and may change another's child pointer
            self._unshare()
        self.data[start : start + size] = INTERIOR_CELL_HEADER.pack(left_child, len(key)) + key
        self.content_start = start
        self.keys.insert(index, key)
        self.offsets.insert(index, start)
        self.children.insert(index + 1, right_child)
        if index + 1 < len(self.keys):  # the next cell's child pointer is now the new right page
            _U32.pack_into(self.data, self.offsets[index + 1], right_child)
        return True

    def rebuild(self, keys: list[bytes], children: list[int]) -> None:
        """Replace the whole content: len(children) == len(keys) + 1, the last being the rightmost."""
        data = self.data = bytearray(self.page_size)
        end = self.page_size
        offsets = slot_array()
        pack = INTERIOR_CELL_HEADER.pack
        for key, child in zip(keys, children):
            size = 6 + len(key)
            end -= size
            data[end : end + size] = pack(child, len(key)) + key
            offsets.append(end)
        if end < HEADER_SIZE + SLOT_SIZE * len(keys):
            raise StorageError(f"page {self.page_no}: {len(keys)} cells do not fit in a {self.page_size}-byte page")
        self._keys = list(keys)
        self._children = list(children)
        self.offsets = offsets
        self.content_start = end
        self.fragmented = 0
        self.cow_floor = self.page_size


def decode_tree_page_in_python(page_no: int, image: bytes | bytearray) -> TreePage:
    """The page object for a tree page's image, by the type byte in its header.

    A bytearray becomes the page's own bytes (not copied: the page file hands each read's buffer
    over). Only the header and the slot array are read (slotted.py, "Decoding is lazy"); the
    page's own fields are set here rather than by TreePage.__init__, which would allocate an
    empty page first (a test checks that a decoded page has every field a new one has).

    `decode_tree_page` below does the same in C for every image it can take (the common case is
    a page just read by a cold lookup, whose decode ran with the caches cold: _cellsearch.c) and
    hands this function the rest, so the errors that name a damaged page are raised here."""
    page_type, _, count, content_start, fragmented, link = HEADER.unpack_from(image, 0)
    page_size = len(image)
    if not HEADER_SIZE + SLOT_SIZE * count <= content_start <= page_size or fragmented > page_size:
        raise StorageError(f"page {page_no}: its header is impossible ({count} slots, cells from byte "
                           f"{content_start}, {fragmented} bytes free in holes, in a {page_size}-byte page); "
                           "the file is damaged")
    if page_type == LEAF:
        page = LeafPage.__new__(LeafPage)
        page.link = link
    elif page_type == INTERIOR:
        page = InteriorPage.__new__(InteriorPage)
        page._children = None  # the rightmost child stays in the header's link field until decoded
    else:
        raise StorageError(f"page {page_no} is not a tree page (type byte {page_type}); the file is damaged")
    Frame.__init__(page, page_no)
    page.page_size = page_size
    page.data = data = image if image.__class__ is bytearray else bytearray(image)
    page.content_start = content_start
    page.fragmented = fragmented
    page.offsets = offsets = array("H")
    offsets.frombytes(data[HEADER_SIZE : HEADER_SIZE + SLOT_SIZE * count])
    if BIG_ENDIAN:
        offsets.byteswap()
    page._keys = None
    page.cow_floor = page_size
    return page


# decode_tree_page(page_no, image) -> TreePage: decode_tree_page_in_python's result, decoded in C
# (which calls decode_tree_page_in_python for any image it does not take: damage, odd types).
decode_tree_page = partial(decode_page, LeafPage, InteriorPage, decode_tree_page_in_python, None)
