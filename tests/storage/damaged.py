"""Damaged database files for the storage tests: real files, bent where a descent would go."""

from __future__ import annotations

import struct

from pagelab.storage import Database


def damaged_root(tmp_path, child: str):
    """A 3,000-key tree at 1k pages, three levels, whose root's child pointers all lead to `child`:
    "root" (a cycle), "header" (page 0) or "leaf" (a leaf one level too high)."""
    path = tmp_path / "bent.db"
    with Database.open(path, page_size=1024) as db:
        for number in range(3000):
            db.put(b"k%05d" % number, b"x" * 40)
        root = db._tree.meta.root
        assert db._tree.meta.depth == 3
        first_leaf = db._tree._leaf_for(None).page_no
    with open(path, "r+b") as handle:
        handle.seek(root * 1024)
        page = bytearray(handle.read(1024))
        target = {"root": root, "header": 0, "leaf": first_leaf}[child]
        for index in range(struct.unpack_from("<H", page, 2)[0]):
            struct.pack_into("<I", page, struct.unpack_from("<H", page, 16 + 2 * index)[0], target)
        struct.pack_into("<I", page, 12, target)  # the rightmost child too
        handle.seek(root * 1024)
        handle.write(page)
    return path
