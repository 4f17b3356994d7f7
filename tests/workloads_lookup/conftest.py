"""Small prototype trees on disk, built once per session: the lookup tests read them cold."""

from __future__ import annotations

import pytest

from pagelab.machine.devices import o_direct_works
from pagelab.workloads.lookups.build import build_tree

# (page size, keys, key bytes): each tree is three levels deep with more interior pages than the
# smallest buffer pool (8 pages) can keep, so a tiny cache leaves most interior reads to the device.
# At 16k, 32-byte keys would need ~10^6 keys for that; 200-byte keys get there with 60k.
TREES = {
    "4k": (4096, 100_000, 32),
    "16k": (16384, 20_000, 32),
    "16k-wide": (16384, 60_000, 200),
}


@pytest.fixture(scope="session")
def tree_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("lookup-trees")
    works, reason = o_direct_works(directory)
    if not works:  # required, as `pagelab doctor` says: cold reads through the page cache are not cold
        pytest.fail(f"O_DIRECT is refused under {directory}: {reason}. These tests need a filesystem that "
                    f"accepts O_DIRECT (ext4, xfs); point pytest's --basetemp at one.", pytrace=False)
    return directory


@pytest.fixture(scope="session")
def built_trees(tree_dir):
    """name -> BuiltTree, for every tree in TREES (random insert order, seed 1)."""
    return {
        name: build_tree(tree_dir / f"{name}.db", page_size, n_keys, key_bytes=key_bytes, value_bytes=8)
        for name, (page_size, n_keys, key_bytes) in TREES.items()
    }
