"""The RethinkDB post's B-tree block-size model, as pure functions, and the post's table to compare with.

The RethinkDB post (RethinkDB, "Rethinking B-tree block sizes on SSDs") answers "which block size gives the
most random point queries per second?" with three lines of arithmetic:

    b     = keys per node            = block size / 32 bytes per key
    hops  = log_b(N)                 the depth of the tree: node reads per point query
    q/s   = IOPS(block size) / hops  with IOPS measured per block size, at one read in flight

For N = 10^9 its table peaks at 4 KiB (885 q/s). Its own edit names what the model leaves out:
nodes are not full after random inserts, and a cache keeps the top of the tree in memory. Both
are here as parameters:

- `fill`: the average fraction of a node in use. Random inserts into a B-tree leave nodes about
  ln 2 = 69% full (Yao, "On random 2-3 trees", 1978); `RANDOM_INSERT_FILL`. The notebook plugs
  in the storage prototype's measured fill instead.
- `cache_bytes`: a page cache that keeps whole levels from the root down. How many levels it
  holds, and what that saves, is in `cached_level_fractions` and `uncached_hops`.

Keys per node can come from the analytic `NodeLayout` below (a slotted page like the storage
prototype's: header, slot array, cells) or from anything with the same two methods, e.g. the
prototype's own capacity once it is final::

    class PrototypeLayout:
        def leaf_cells(self, page_size, key_bytes, value_bytes): ...
        def interior_cells(self, page_size, key_bytes): ...

    model_table(profile, layout=PrototypeLayout(), fill=measured_fill)

The functions do not round. The post printed hops to two decimals and queries per second as
whole numbers computed from those rounded hops (4579 / 5.98 = 765.7, printed 765); see the tests.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pagelab.common.units import kib
from pagelab.common.errors import UsageError
from pagelab.common.reference import reference_table

if TYPE_CHECKING:  # tables are made by reference_table; only the annotations name pandas
    import pandas as pd


# --------------------------------------------------------------------------------------------
# Constants, each with its reason

# The post's question: a database of one billion rows with 32-byte keys.
SEED_N_KEYS = 10**9
SEED_KEY_BYTES = 32
SEED_TABLE = "rethinkdb_block_size.csv"  # in data/reference/

# A row's value in the advisor's default question (pagelab advise): a 64-bit integer.
DEFAULT_VALUE_BYTES = 8

# A slotted page starts with a header: page type, cell count, where the cell content starts,
# fragmented bytes, and a link (next leaf / rightmost child). 16 bytes, as in the storage
# prototype's pages (storage/slotted.py); SQLite's b-tree page header is 8 or 12.
PAGE_HEADER_BYTES = 16
# Each cell has an entry in the slot array: a 16-bit offset, enough for any page up to 64 KiB.
SLOT_BYTES = 2
# Keys and values are variable-length, so a cell stores their lengths; 16 bits each suffice
# because no key or value is larger than a 64 KiB page.
LENGTH_BYTES = 2
# A leaf cell: slot + key length + value length, then the key and the value.
LEAF_CELL_OVERHEAD_BYTES = SLOT_BYTES + 2 * LENGTH_BYTES
# An interior cell: slot + key length, then the child pointer and the key.
INTERIOR_CELL_OVERHEAD_BYTES = SLOT_BYTES + LENGTH_BYTES
# A child pointer is a 32-bit page number: 2^32 pages are 4 TiB even at 1 KiB pages.
CHILD_POINTER_BYTES = 4

# Expected node fill after random inserts: ln 2 (Yao 1978), the "69%" of B-tree folklore.
RANDOM_INSERT_FILL = math.log(2)

# Below these a page size cannot hold the data at all. A full leaf splits into two pages that
# must both fit, so it needs room for two entries (InnoDB's rule too: two records per page). An
# interior node splits into two non-empty halves plus the key it promotes, so it needs at least
# three; four, SQLite's rule and the storage prototype's, also leaves each half a choice of key.
MIN_LEAF_CELLS = 2
MIN_INTERIOR_CELLS = 4

TABLE_COLUMNS = (
    "block_kb", "block_size_bytes", "iops", "keys_per_node", "leaf_keys", "levels", "hops",
    "cached_levels", "uncached_hops", "queries_per_s",
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# Keys per node


def keys_per_node(
    page_size: int,
    key_bytes: int,
    value_bytes: int = CHILD_POINTER_BYTES,
    overhead_bytes: int = INTERIOR_CELL_OVERHEAD_BYTES,
    fill: float = 1.0,
    *,
    page_header_bytes: int = PAGE_HEADER_BYTES,
    capacity: Callable[[int, int, int], int] | None = None,
) -> float:
    """The average number of keys in one node: the cells a full page holds, times `fill`.

    A full page holds (page_size - page_header_bytes) // (key_bytes + value_bytes + overhead_bytes)
    cells, or `capacity(page_size, key_bytes, value_bytes)` when a real page format says so. The
    defaults describe an interior node, whose "value" is a child pointer; for a leaf pass the
    row's value size and `LEAF_CELL_OVERHEAD_BYTES`. The post's own count is
    keys_per_node(1024, 32, 0, 0, page_header_bytes=0) = 32.
    """
    _check_fill(fill)
    if capacity is not None:
        cells = capacity(page_size, key_bytes, value_bytes)
    else:
        if min(page_size, key_bytes) < 1 or min(value_bytes, overhead_bytes, page_header_bytes) < 0:
            raise UsageError(
                "page, key and value sizes must be positive (value and overheads may be 0), got "
                f"page {page_size}, key {key_bytes}, value {value_bytes}, overhead {overhead_bytes}, "
                f"header {page_header_bytes}"
            )
        cells = max(0, page_size - page_header_bytes) // (key_bytes + value_bytes + overhead_bytes)
    return cells * fill


class NodeCapacity(Protocol):
    """How many cells fit in one full page; `model_table` takes any object with these methods."""

    def leaf_cells(self, page_size: int, key_bytes: int, value_bytes: int) -> int: ...

    def interior_cells(self, page_size: int, key_bytes: int) -> int: ...


@dataclass(frozen=True)
class NodeLayout:
    """An analytic slotted-page format: a header, then cells of key, value and fixed overhead."""

    page_header_bytes: int = PAGE_HEADER_BYTES
    leaf_cell_overhead_bytes: int = LEAF_CELL_OVERHEAD_BYTES
    interior_cell_overhead_bytes: int = INTERIOR_CELL_OVERHEAD_BYTES
    child_pointer_bytes: int = CHILD_POINTER_BYTES

    def leaf_cells(self, page_size: int, key_bytes: int, value_bytes: int) -> int:
        return int(keys_per_node(page_size, key_bytes, value_bytes, self.leaf_cell_overhead_bytes,
                                 page_header_bytes=self.page_header_bytes))  # fmt: skip

    def interior_cells(self, page_size: int, key_bytes: int) -> int:
        return int(keys_per_node(page_size, key_bytes, self.child_pointer_bytes, self.interior_cell_overhead_bytes,
                                 page_header_bytes=self.page_header_bytes))  # fmt: skip


DEFAULT_LAYOUT = NodeLayout()
# The post counts 32 bytes per key and nothing else: no header, no slots, no child pointers
# (ask it for value_bytes=0 and key_bytes=32).
SEED_LAYOUT = NodeLayout(page_header_bytes=0, leaf_cell_overhead_bytes=0, interior_cell_overhead_bytes=0,
                         child_pointer_bytes=0)  # fmt: skip


# --------------------------------------------------------------------------------------------
# Depth


def hops(n_keys: float, fanout: float, leaf_keys: float | None = None) -> float:
    """Node reads per point query, continuous: log_b(N), the RethinkDB post's formula, with b = `fanout`.

    When leaves hold a different number of keys than interior nodes have children (a B+tree
    whose values are larger or smaller than a child pointer), `leaf_keys` separates them:
    1 + log_b(N / leaf_keys), one leaf read plus the interior levels above the N / leaf_keys
    leaves. With leaf_keys == fanout this is log_b(N) again. Never below 0; a tree of one node
    gives less than 1 hop here although a lookup reads that node, which `levels` counts.
    """
    _check_tree(n_keys, fanout, leaf_keys)
    if leaf_keys is None:
        return math.log(n_keys) / math.log(fanout)
    return max(0.0, 1 + math.log(n_keys / leaf_keys) / math.log(fanout))


def level_sizes(n_keys: float, fanout: float, leaf_keys: float | None = None) -> list[int]:
    """Nodes on each level of the real tree, root first: ceil(N / leaf_keys) leaves, then each
    level above has ceil(nodes below / fanout), up to a single root."""
    _check_tree(n_keys, fanout, leaf_keys)
    nodes = math.ceil(n_keys / (leaf_keys if leaf_keys is not None else fanout))
    sizes = [nodes]
    while nodes > 1:
        nodes = math.ceil(nodes / fanout)
        sizes.append(nodes)
    return sizes[::-1]


def levels(n_keys: float, fanout: float, leaf_keys: float | None = None) -> int:
    """The real tree's depth: the whole number of nodes a lookup reads with nothing cached."""
    return len(level_sizes(n_keys, fanout, leaf_keys))


# --------------------------------------------------------------------------------------------
# Cache


def cached_level_fractions(level_nodes: Sequence[int], page_size: int, cache_bytes: float) -> list[float]:
    """The fraction of each level's nodes that a cache of `cache_bytes` holds, root first.

    The post assumes an optimal cache; for uniform point lookups the optimal pages to keep are
    the top of the tree, because every lookup passes through the root and only one in
    `nodes on the level` through a given node below. So the budget fills levels from the root:
    whole levels while they fit (nodes x page size each), then a part of the next one. A part
    holding fraction f of a level's nodes serves a fraction f of the lookups at that level.
    """
    if cache_bytes < 0:
        raise UsageError(f"the cache budget must not be negative, got {cache_bytes}")
    budget = float(cache_bytes)
    fractions = []
    for nodes in level_nodes:
        level_bytes = nodes * page_size
        held = min(1.0, budget / level_bytes) if level_bytes else 1.0
        budget -= held * level_bytes
        fractions.append(held)
    return fractions


def cached_levels(level_nodes: Sequence[int], page_size: int, cache_bytes: float) -> float:
    """Levels the cache holds, counted from the root: whole levels plus the fraction of the next."""
    return sum(cached_level_fractions(level_nodes, page_size, cache_bytes))


def uncached_hops(hops: float, level_nodes: Sequence[int], page_size: int, cache_bytes: float) -> float:
    """Device reads per point query when the top of the tree is cached: hops minus the cached hops.

    Every cached level saves one read, except the root's level: the continuous log_b(N) counts a
    partly filled root as only the fractional part of a hop, r = hops - (levels - 1), so caching
    it saves r. Then

        uncached = hops - (r x cached fraction of the root level + sum of the other levels' fractions)

    which is `hops` with no cache (the post's number), exactly the real tree's expected reads
    per lookup (levels - cached levels) once the root is cached, never below the fraction of
    lookups whose leaf is not cached (a lookup that misses its leaf reads at least that), and 0
    when the whole tree fits. It is the "max(hops - cached levels, leaf fraction)" rule with the
    root weighed as the continuous formula weighs it.
    """
    fractions = cached_level_fractions(level_nodes, page_size, cache_bytes)
    if not fractions:
        return max(0.0, hops)
    root_weight = min(1.0, max(0.0, hops - (len(fractions) - 1)))
    saved = root_weight * fractions[0] + sum(fractions[1:])
    # A tree smaller than one full node has hops < 1, but a lookup still reads its leaf unless
    # the leaf is cached (without this floor, 100 keys and no cache came out at 0.84 reads).
    return max(1.0 - fractions[-1], hops - saved)


# --------------------------------------------------------------------------------------------
# Throughput


def queries_per_second(iops: float, hops: float) -> float:
    """Point queries per second when each hop is one device read at the measured IOPS: IOPS / hops.
    With no hop left to the device (the whole tree cached) the device does not limit: infinity."""
    if iops < 0 or hops < 0:
        raise UsageError(f"IOPS and hops must not be negative, got {iops} and {hops}")
    return math.inf if hops == 0 else iops / hops


def model_row(
    block_size_bytes: int,
    iops: float,
    n_keys: float = SEED_N_KEYS,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    cache_bytes: float = 0,
    fill: float = 1.0,
    layout: NodeCapacity = DEFAULT_LAYOUT,
) -> dict[str, Any]:
    """The model for one block size, as a row of `model_table` (NaN where the page is too small
    for the keys and values: fewer than `MIN_LEAF_CELLS` or `MIN_INTERIOR_CELLS` cells fit)."""
    _check_fill(fill)
    leaf_cells = layout.leaf_cells(block_size_bytes, key_bytes, value_bytes)
    interior_cells = layout.interior_cells(block_size_bytes, key_bytes)
    fanout, leaf_keys = interior_cells * fill, leaf_cells * fill
    row: dict[str, Any] = {
        "block_kb": kib(block_size_bytes),
        "block_size_bytes": block_size_bytes,
        "iops": iops,
        "keys_per_node": fanout,
        "leaf_keys": leaf_keys,
    }
    if leaf_cells < MIN_LEAF_CELLS or interior_cells < MIN_INTERIOR_CELLS or fanout <= 1:
        return {**row, **dict.fromkeys(TABLE_COLUMNS[5:], math.nan)}
    # The post's uniform model (every node holds b keys) when leaves and interior nodes agree;
    # passing leaf_keys only when they differ keeps hops bit-identical to log_b(N) otherwise.
    leaf_argument = None if leaf_keys == fanout else leaf_keys
    depth_continuous = hops(n_keys, fanout, leaf_argument)
    level_nodes = level_sizes(n_keys, fanout, leaf_argument)
    remaining = uncached_hops(depth_continuous, level_nodes, block_size_bytes, cache_bytes)
    return {
        **row,
        "levels": len(level_nodes),
        "hops": depth_continuous,
        "cached_levels": cached_levels(level_nodes, block_size_bytes, cache_bytes),
        "uncached_hops": remaining,
        "queries_per_s": queries_per_second(iops, remaining),
    }


def model_table(
    device_profile_or_iops_by_size: Any,
    n_keys: float = SEED_N_KEYS,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    cache_bytes: float = 0,
    fill: float = 1.0,
    layout: NodeCapacity = DEFAULT_LAYOUT,
):
    """The model for every measured block size, as a pandas DataFrame with `TABLE_COLUMNS`.

    The first argument is a `DeviceProfile` (pagelab.machine.device_profile), a mapping {block size in
    bytes: IOPS}, or a DataFrame with block_size_bytes and iops columns (such as `seed_table()`).
    queries_per_s is IOPS / uncached_hops, which with no cache is the post's IOPS / hops.
    """
    import pandas as pd

    _check_question(n_keys, key_bytes, value_bytes, cache_bytes)
    iops_by_size = iops_by_block_size(device_profile_or_iops_by_size)
    rows = [
        model_row(size, iops, n_keys, key_bytes, value_bytes, cache_bytes, fill, layout)
        for size, iops in sorted(iops_by_size.items())
    ]
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def iops_by_block_size(source: Any) -> dict[int, float]:
    """{block size in bytes: IOPS} from a DeviceProfile, a mapping, or a DataFrame."""
    if hasattr(source, "iops_by_block_size"):
        mapping = source.iops_by_block_size()
    elif hasattr(source, "columns") and {"block_size_bytes", "iops"} <= set(source.columns):
        mapping = dict(zip(source["block_size_bytes"], source["iops"]))
    elif isinstance(source, Mapping):
        mapping = dict(source)
    else:
        raise UsageError(
            "expected a DeviceProfile, a {block size: IOPS} mapping or a DataFrame with "
            f"block_size_bytes and iops columns, got {type(source).__name__}"
        )
    if not mapping:
        raise UsageError("no block sizes to model: the device profile is empty")
    return {int(size): float(iops) for size, iops in mapping.items()}


# --------------------------------------------------------------------------------------------
# The post's table


def seed_table():
    """The RethinkDB post's published table: block_kb, block_size_bytes, keys_per_block, iops, hops, queries_per_s."""
    return reference_table(SEED_TABLE)


def recompute_seed_table(seed=None):
    """The post's table recomputed by this module from the post's own IOPS and assumptions
    (N = 10^9, 32 bytes per key and nothing else, full nodes, no cache)."""
    seed = seed_table() if seed is None else seed
    return model_table(seed, n_keys=SEED_N_KEYS, key_bytes=SEED_KEY_BYTES, value_bytes=0, layout=SEED_LAYOUT)


def seed_comparison(ours, seed=None):
    """Our model table and the post's, side by side per block size (seed_ columns are the post's)."""
    seed = seed_table() if seed is None else seed
    renamed = seed.rename(columns={
        "keys_per_block": "seed_keys_per_node", "iops": "seed_iops", "hops": "seed_hops",
        "queries_per_s": "seed_queries_per_s",
    })  # fmt: skip
    ours_columns = ["block_size_bytes", "iops", "keys_per_node", "hops", "uncached_hops", "queries_per_s"]
    merged = renamed.drop(columns=["block_kb"]).merge(ours[ours_columns], on="block_size_bytes", how="outer")
    merged.insert(0, "block_kb", [kib(int(size)) for size in merged["block_size_bytes"]])
    order = [
        "block_kb", "block_size_bytes", "seed_keys_per_node", "keys_per_node", "seed_iops", "iops",
        "seed_hops", "hops", "uncached_hops", "seed_queries_per_s", "queries_per_s",
    ]  # fmt: skip
    return merged[order].sort_values("block_size_bytes").reset_index(drop=True)


def findings(comparison: pd.DataFrame) -> str:
    """The notebook's opening paragraph: the block size the RethinkDB post's model picks on this disk, beside
    the one it picked on the post's SSD (`comparison` is `seed_comparison`'s table)."""
    ours = comparison.dropna(subset=["queries_per_s"])
    best = ours.loc[ours["queries_per_s"].idxmax()]
    seed = comparison.dropna(subset=["seed_queries_per_s"])
    seed_best = seed.loc[seed["seed_queries_per_s"].idxmax()]
    return (f"The RethinkDB post's model (point lookups per second = random-read IOPS at the block size ÷ B-tree hops, "
            f"nothing cached) picks {best['block_kb']:g} KiB blocks on this disk: {best['queries_per_s']:,.0f} "
            f"lookups/s from {best['iops']:,.0f} IOPS and {best['hops']:.1f} hops. On the post's SSD it picked "
            f"{seed_best['block_kb']:g} KiB ({seed_best['seed_queries_per_s']:,.0f} lookups/s). These are one fio "
            "measurement per block size and the model's arithmetic, not repeated timings; sections 3 and 4 "
            "extend the model with node fill and a cache and check it against real lookups on the prototype.")


# --------------------------------------------------------------------------------------------
# Checks


def _check_fill(fill: float) -> None:
    if not (isinstance(fill, numbers.Real) and 0 < fill <= 1):
        raise UsageError(f"node fill must be a fraction in (0, 1], got {fill!r}")


def _check_tree(n_keys: float, fanout: float, leaf_keys: float | None) -> None:
    if not (math.isfinite(n_keys) and n_keys >= 1):
        raise UsageError(f"the number of keys must be at least 1, got {n_keys!r}")
    if not (math.isfinite(fanout) and fanout > 1):
        raise UsageError(f"a B-tree's fanout must be more than 1 key per node, got {fanout!r}")
    if leaf_keys is not None and not (math.isfinite(leaf_keys) and leaf_keys > 0):
        raise UsageError(f"keys per leaf must be positive, got {leaf_keys!r}")


def _check_question(n_keys: float, key_bytes: int, value_bytes: int, cache_bytes: float) -> None:
    if not (isinstance(n_keys, numbers.Real) and math.isfinite(n_keys) and n_keys >= 1):
        raise UsageError(f"the number of keys must be at least 1, got {n_keys!r}")
    if not (isinstance(key_bytes, numbers.Integral) and key_bytes >= 1):
        raise UsageError(f"key size must be a whole number of bytes >= 1, got {key_bytes!r}")
    if not (isinstance(value_bytes, numbers.Integral) and value_bytes >= 0):
        raise UsageError(f"value size must be a whole number of bytes >= 0, got {value_bytes!r}")
    if not (isinstance(cache_bytes, numbers.Real) and math.isfinite(cache_bytes) and cache_bytes >= 0):
        raise UsageError(f"the cache budget must be a number of bytes >= 0, got {cache_bytes!r}")
