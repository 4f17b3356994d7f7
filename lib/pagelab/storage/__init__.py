"""pagelab's storage prototype: a small, counted B+tree database whose page size is a parameter.

    from pagelab.storage import Database
    with Database.open("kv.db", page_size=4096, cache_bytes=1 << 20) as db:
        with db.transaction():
            db.put(b"key", b"value")
        db.get(b"key"); list(db.scan(b"a", b"z")); db.stats(); db.counters_frame()

One thing per module: pagefile (pages on disk or in memory); frames (a page object's pool
bookkeeping), bufferpool (the pool: resident pages, pins, writes, the open transaction's pages),
lru (its replacement policy, InnoDB's midpoint LRU), poolfigures (its counters and InnoDB's
printout); slotted (the node format), nodes (leaf and interior pages, an image decoded into
one), btree (the tree), header (page 0), journal (write-ahead page images, recovery); database
(the API tying them together), dbfiles (its files, created whole or not at all), heldsignals
(Ctrl-C held during a commit), dbfigures (its counters and statistics). Each page layout is
drawn at the top of the module that owns it.
"""

from pagelab.storage.btree import BTree
from pagelab.storage.bufferpool import BufferPool
from pagelab.storage.database import DEFAULT_CACHE_BYTES, DEFAULT_PAGE_SIZE, Database
from pagelab.storage.errors import BufferPoolFullError, EntryTooLargeError, JournalSyncError, StorageError
from pagelab.storage.frames import Frame, RawPage
from pagelab.storage.header import HeaderPage, TreeMeta
from pagelab.storage.journal import Journal, RecoveryReport
from pagelab.storage.nodes import InteriorPage, LeafPage
from pagelab.storage.pagefile import PAGE_SIZES, MemoryPageFile, PageFile, check_page_size
from pagelab.storage.slotted import max_key_bytes, max_value_bytes

__all__ = [
    "BTree",
    "BufferPool",
    "BufferPoolFullError",
    "DEFAULT_CACHE_BYTES",
    "DEFAULT_PAGE_SIZE",
    "Database",
    "EntryTooLargeError",
    "JournalSyncError",
    "Frame",
    "HeaderPage",
    "InteriorPage",
    "Journal",
    "LeafPage",
    "MemoryPageFile",
    "PAGE_SIZES",
    "PageFile",
    "RawPage",
    "RecoveryReport",
    "StorageError",
    "TreeMeta",
    "check_page_size",
    "max_key_bytes",
    "max_value_bytes",
]
