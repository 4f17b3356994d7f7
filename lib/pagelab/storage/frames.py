"""Frames: the page objects the buffer pool holds, each carrying the pool's bookkeeping itself.

There is no separate frame table to look up: a page object is its own frame, which keeps a cache
hit to one dict lookup and a few attribute reads. The pool's `decode` turns a page image read
from the file into the caller's page object (the B-tree's slotted pages, slotted.py and nodes.py;
the header page, header.py), a subclass of Frame; without one, pages are `RawPage`s holding a
bytearray. What each field means, and how a page type keeps what a rollback restores, is in
Frame's docstring; the pool that sets the fields is bufferpool.py.
"""

from __future__ import annotations


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
