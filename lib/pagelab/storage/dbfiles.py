"""The database's files: what a new one holds, created whole or not at all; an opened one's length
checked; and the pool's decoder, which turns a page read from the file into its page object.

    path              the page file (pagefile.py): page 0 the header page (header.py), page 1 the
                      first root, an empty leaf, in a new database; the tree's pages after them
    path + "-journal" the journal beside it (journal.py; JOURNAL_SUFFIX), replayed at every open

A new database is written into a temporary file, synced, and renamed over `path`, so a crash
leaves either no database or a whole one; a journal left from an older database of that name is
removed first, or the next open would replay it into the new one. Database.open (database.py)
does the opening, recovery first.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.storage.btree import BTree
from pagelab.storage.errors import StorageError
from pagelab.storage.frames import Frame
from pagelab.storage.header import HEADER_PAGE_NO, HeaderPage, TreeMeta
from pagelab.storage.nodes import InteriorPage, LeafPage, decode_tree_page_in_python
from pagelab.storage._cellsearch import decode_page  # after bufferpool, whose import says how to build it if missing

JOURNAL_SUFFIX = "-journal"
FIRST_ROOT_PAGE = 1


def _decode_header_or_damaged_page(page_no: int, image: bytes) -> Frame:
    if page_no == HEADER_PAGE_NO:
        return HeaderPage.from_image(image)
    return decode_tree_page_in_python(page_no, image)  # names what is wrong with the page


# The pool's decode: tree pages in C, the header page and whatever C does not take in Python.
decode_database_page = partial(decode_page, LeafPage, InteriorPage, _decode_header_or_damaged_page, HEADER_PAGE_NO)


def check_file_length(path: Path, page_size: int, meta: TreeMeta) -> None:
    """After recovery every page the header counts is whole in the file: each was written by a
    checkpoint (which syncs before the journal starts over) or replayed from the journal. A
    shorter file lost its end after it was written (a partial copy, a full disk while copying)."""
    expected = meta.page_count * page_size
    actual = path.stat().st_size
    if actual < expected:
        raise StorageError(
            f"{path} is {actual} bytes but its header counts {meta.page_count} pages of {page_size} bytes "
            f"({expected} bytes): the file has lost its end (a partial copy?); restore it from where it came from"
        )


def new_meta() -> TreeMeta:
    return TreeMeta(page_count=FIRST_ROOT_PAGE + 1, root=FIRST_ROOT_PAGE, depth=1, key_count=0, last_txn_id=0)


def create_file(path: Path, journal_path: Path, page_size: int) -> None:
    """Write a new database (header page and an empty root leaf) so it appears whole or not at all:
    into a temporary file, synced, then renamed over `path`. A journal left from an older
    database of that name is removed first, or the next open would replay it into this one."""
    if not path.parent.is_dir():
        raise UsageError(f"cannot create {path}: the directory {path.parent} does not exist")
    journal_path.unlink(missing_ok=True)
    temporary = path.with_name(path.name + ".creating")
    meta = new_meta()
    with open(temporary, "wb") as handle:
        handle.write(HeaderPage(page_size, meta).image())
        handle.write(BTree.create_root(page_size, FIRST_ROOT_PAGE).image())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    if not path.exists():
        raise StorageError(f"{path} vanished right after it was created")
