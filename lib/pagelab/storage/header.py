"""The header page (page 0): what a database file is and where its tree starts.

      0                8          12         16         20         24         28         32
      +----------------+----------+----------+----------+----------+----------+----------+
      | magic          | format   | page     | page     | root     | tree     | (0)      |
      | "pagelab\\0"    | version  | size     | count    | page     | depth    |          |
      | 8 bytes        | u32      | u32      | u32      | u32      | u32      | u32      |
      +----------------+----------+----------+----------+----------+----------+----------+
     32 | key count u64       | last transaction id u64 | crc32 of bytes 0..48  u32 | zeros to page end
      +---------------------+-------------------------+---------------------------+----------

magic            tells a pagelab database from any other file at a glance (and to `file`/`xxd`)
format version   bumped when any page layout changes; an unknown version is refused
page size        fixed when the file is created; opening with another size is refused
page count       pages in use, header included; the next new page gets this number
root page        the B+tree's root (a leaf while the tree fits in one page)
tree depth       levels from root to leaf, 1 for a lone leaf (kept so counters need no walk)
key count        entries in the tree (kept so len() needs no walk)
last transaction the id of the last committed transaction, so ids keep rising across restarts
crc32            catches a header damaged outside the journal's protection

The header changes with every transaction that changes the tree (at least the transaction id),
so it travels through the journal like any page: each committed transaction writes one header
image besides its tree pages, as Voron writes one transaction header page.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from pagelab.storage.errors import StorageError
from pagelab.storage.frames import Frame

MAGIC = b"pagelab\x00"
FORMAT_VERSION = 1
HEADER_PAGE_NO = 0
_FIELDS = struct.Struct("<8sIIIIIIQQ")  # magic .. last transaction id: 48 bytes
_CRC = struct.Struct("<I")
HEADER_BYTES = _FIELDS.size + _CRC.size  # 52: the part of page 0 that is read before the page size is known


@dataclass
class TreeMeta:
    """The header page's mutable fields, as the tree and the database keep them in memory."""

    page_count: int
    root: int
    depth: int
    key_count: int
    last_txn_id: int

    def copy(self) -> TreeMeta:
        return TreeMeta(self.page_count, self.root, self.depth, self.key_count, self.last_txn_id)


class HeaderPage(Frame):
    """Page 0 in the buffer pool."""

    __slots__ = ("page_size", "meta")

    def __init__(self, page_size: int, meta: TreeMeta):
        super().__init__(HEADER_PAGE_NO)
        self.page_size = page_size
        self.meta = meta

    def image(self) -> bytes:
        meta = self.meta
        fields = _FIELDS.pack(
            MAGIC, FORMAT_VERSION, self.page_size, meta.page_count, meta.root, meta.depth, 0, meta.key_count, meta.last_txn_id
        )
        head = fields + _CRC.pack(zlib.crc32(fields))
        return head + bytes(self.page_size - len(head))

    @classmethod
    def from_image(cls, image: bytes, where: str = "page 0") -> HeaderPage:
        page_size, meta = read_header(image, where)
        if len(image) != page_size:
            raise StorageError(f"{where}: header page of {len(image)} bytes, its header says {page_size}")
        return cls(page_size, meta)


def read_header(data: bytes, where: str) -> tuple[int, TreeMeta]:
    """(page size, fields) from the first HEADER_BYTES of a database file; StorageError if it is not one."""
    if len(data) < HEADER_BYTES or data[:8] != MAGIC:
        raise StorageError(f"{where} is not a pagelab database (no 'pagelab' magic at its start)")
    magic, version, page_size, page_count, root, depth, _, key_count, last_txn_id = _FIELDS.unpack_from(data, 0)
    (crc,) = _CRC.unpack_from(data, _FIELDS.size)
    if crc != zlib.crc32(data[: _FIELDS.size]):
        raise StorageError(f"{where}: the header page's checksum does not match; the file is damaged")
    if version != FORMAT_VERSION:
        raise StorageError(f"{where} has format version {version}; this pagelab reads version {FORMAT_VERSION}")
    return page_size, TreeMeta(page_count, root, depth, key_count, last_txn_id)
