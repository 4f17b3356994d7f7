"""Builds the storage prototype's trees for the RethinkDB post's lookups, and reads their shape:
depth, pages per level, and the node fill the model's NodeCapacity (`prototype_capacity`, from the
prototype's own page layout) needs.

A tree built on disk keeps a sidecar (``<file>.build.json``) with its arguments and shape, so a
later build with the same arguments reuses it (`build_tree(..., reuse=True)`) and a measurement
knows its key and value sizes (pagelab.workloads.lookups.run). See the package's docstring
(pagelab.workloads.lookups) for the keys, the values and the orders.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.common.units import MIB, page_size_label
from pagelab.models.blocksize import DEFAULT_VALUE_BYTES, SEED_KEY_BYTES
from pagelab.storage import Database
from pagelab.storage.bufferpool import MIN_FRAMES
from pagelab.storage.dbfiles import JOURNAL_SUFFIX
from pagelab.storage.slotted import (
    INTERIOR_CELL_HEADER,
    LEAF_CELL_HEADER,
    SLOT_SIZE,
    max_key_bytes,
    max_value_bytes,
    usable_bytes,
)

# Inserts per transaction while building. A transaction keeps every page it changes in the pool
# (the prototype's no-steal rule), so the build pool is sized to hold the whole tree; batches of
# 100k keep the number of commits (each writes its pages to the journal) small without making
# one transaction hold everything. Measured: 1e6 keys at 4k build at ~52k keys/s with batches
# of 100k and with one transaction of 1e6 alike.
DEFAULT_BATCH_KEYS = 100_000
# Pessimistic fill for sizing the build pool (a random-insert tree settles near 69%).
_SIZING_FILL = 0.5
_BUILD_POOL_MARGIN_BYTES = 64 * MIB

SIDECAR_SUFFIX = ".build.json"

# Bytes a cell costs beside its key (and value), from the prototype's page layout (slotted.py):
# its slot, then the leaf cell's key and value lengths, or the interior cell's child page and key length.
LEAF_CELL_OVERHEAD = SLOT_SIZE + LEAF_CELL_HEADER.size  # 2 + 4
INTERIOR_CELL_OVERHEAD = SLOT_SIZE + INTERIOR_CELL_HEADER.size  # 2 + 6
ORDERS = ("random", "sequential")


# --------------------------------------------------------------------------------------------
# Keys and values


def key_for(number: int, key_bytes: int = SEED_KEY_BYTES) -> bytes:
    """Key `number`: a big-endian integer of `key_bytes` bytes (key order = numeric order)."""
    return number.to_bytes(key_bytes, "big")


def value_for(number: int, value_bytes: int = DEFAULT_VALUE_BYTES) -> bytes:
    return (number % (1 << (8 * value_bytes))).to_bytes(value_bytes, "big") if value_bytes else b""


def _check_sizes(n_keys: int, key_bytes: int, value_bytes: int, page_size: int) -> None:
    if not (isinstance(n_keys, int) and n_keys >= 1):
        raise UsageError(f"n_keys must be a whole number >= 1, got {n_keys!r}")
    if key_bytes < 1 or (n_keys - 1).bit_length() > 8 * key_bytes:
        raise UsageError(f"{key_bytes}-byte keys cannot number {n_keys:,} distinct keys; use longer keys")
    if value_bytes < 0:
        raise UsageError(f"value_bytes must be >= 0, got {value_bytes}")
    if key_bytes > max_key_bytes(page_size) or value_bytes > max_value_bytes(page_size):
        raise UsageError(
            f"{key_bytes}-byte keys with {value_bytes}-byte values do not fit the prototype's {page_size}-byte "
            f"pages (limits {max_key_bytes(page_size)} / {max_value_bytes(page_size)} bytes)"
        )


# --------------------------------------------------------------------------------------------
# The model's NodeCapacity, from the prototype's page layout


@dataclass(frozen=True)
class PrototypeCapacity:
    """Cells per full page of the storage prototype (pagelab.storage.slotted), for the model.

    A leaf cell costs a 2-byte slot + 4 bytes of key and value lengths + key + value; an interior
    cell a 2-byte slot + a 4-byte child page + a 2-byte key length + key; a page gives
    page_size - 16 header bytes to slots and cells. These are the storage package's own constants
    (slotted.usable_bytes, SLOT_SIZE, LEAF_CELL_HEADER, INTERIOR_CELL_HEADER), so the count follows
    the layout if it changes. A key or value over the prototype's limits for the page size gives
    0 cells (the model then marks the page "too small").

    An interior page with c cells has c + 1 children (the rightmost child is in the page header);
    like the model's analytic `NodeLayout`, this returns c, which undercounts the fanout by one
    (under 1% from 4 KiB up). With 32-byte keys and 8-byte values this equals `NodeLayout()`."""

    def leaf_cells(self, page_size: int, key_bytes: int, value_bytes: int) -> int:
        if key_bytes > max_key_bytes(page_size) or value_bytes > max_value_bytes(page_size):
            return 0
        return usable_bytes(page_size) // (LEAF_CELL_OVERHEAD + key_bytes + value_bytes)

    def interior_cells(self, page_size: int, key_bytes: int) -> int:
        if key_bytes > max_key_bytes(page_size):
            return 0
        return usable_bytes(page_size) // (INTERIOR_CELL_OVERHEAD + key_bytes)


prototype_capacity = PrototypeCapacity()


# --------------------------------------------------------------------------------------------
# Building


@dataclass
class BuiltTree:
    """A prototype database built by `build_tree`, and its shape.

    fill            bytes in use / usable bytes over all pages (the prototype's stats()["fill"])
    leaf_fill       the same for the leaf level
    leaf_cell_fill  cells per leaf / cells a full leaf holds: the model's `fill` (its keys per
                    node times fill); equal to leaf_fill up to the rounding of whole cells
    interior_cell_fill  the same for the interior levels below the root (None without any)
    """

    path: str | None
    page_size: int
    n_keys: int
    key_bytes: int
    value_bytes: int
    order: str
    seed: int
    depth: int
    pages_per_level: list[int]
    pages: int
    leaf_pages: int
    fill: float
    leaf_fill: float
    leaf_cell_fill: float
    interior_cell_fill: float | None
    file_bytes: int | None
    build_s: float
    inserts_per_s: float
    batch_keys: int
    levels: list[dict[str, Any]] = field(default_factory=list)
    reused: bool = False

    @property
    def model_fill(self) -> float:
        """The fill to give the model: the leaves' cell fill (leaves are nearly all the pages)."""
        return self.leaf_cell_fill

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_tree(
    path: str | os.PathLike | None,
    page_size: int,
    n_keys: int,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    seed: int = 1,
    order: str = "random",
    *,
    batch_keys: int = DEFAULT_BATCH_KEYS,
    cache_bytes: int | None = None,
    reuse: bool = False,
    progress: bool = False,
) -> BuiltTree:
    """Build a prototype database of `n_keys` keys at `path` (None: in memory) and return its shape.

    Any database already at `path` is replaced, unless `reuse` is true and the file's sidecar
    (`path` + ".build.json") says it was built with the same arguments: then nothing is built
    and the recorded shape is returned. Keys go in `order` ("random": a permutation seeded by
    `seed`; "sequential": ascending) in transactions of `batch_keys`. The build pool holds the
    whole tree (default: sized from the key count) and the journal is not fsynced at commit
    (synchronous=False; a crash during a build means building again); the page file is synced by
    the final checkpoint and `os.sync()` runs at the end so no write-back overlaps what follows.
    """
    n_keys = int(n_keys)
    _check_sizes(n_keys, key_bytes, value_bytes, page_size)
    if order not in ORDERS:
        raise UsageError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if batch_keys < 1:
        raise UsageError(f"batch_keys must be >= 1, got {batch_keys}")
    if path is not None:
        path = Path(path)
        if reuse:
            found = load_sidecar(path)
            wanted = dict(page_size=page_size, n_keys=n_keys, key_bytes=key_bytes, value_bytes=value_bytes,
                          seed=seed, order=order)  # fmt: skip
            if found is not None and all(found.get(name) == value for name, value in wanted.items()):
                found["reused"] = True
                return BuiltTree(**found)
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, _journal_path(path), _sidecar_path(path)):
            stale.unlink(missing_ok=True)

    if cache_bytes is None:
        cache_bytes = build_cache_bytes(page_size, n_keys, key_bytes, value_bytes)
    numbers: Iterable[int]
    if order == "random":
        numbers = list(range(n_keys))
        random.Random(seed).shuffle(numbers)
    else:
        numbers = range(n_keys)

    bar = None
    if progress:
        from pagelab.common.progress import progress_bar

        bar = progress_bar(n_keys, f"build {page_size_label(page_size)}", "key")
    started = time.perf_counter()
    db = Database.open(path, page_size=page_size, cache_bytes=cache_bytes, synchronous=False)
    try:
        put = db.put
        for start in range(0, n_keys, batch_keys):
            batch = numbers[start : start + batch_keys]
            with db.transaction():
                for number in batch:
                    put(key_for(number, key_bytes), value_for(number, value_bytes))
            if bar is not None:
                bar.update(len(batch))
        stats = db.stats()
    finally:
        db.close()
        if bar is not None:
            bar.close()
    if path is not None:
        os.sync()
    seconds = time.perf_counter() - started

    built = BuiltTree(
        path=None if path is None else str(path),
        page_size=page_size,
        n_keys=n_keys,
        key_bytes=key_bytes,
        value_bytes=value_bytes,
        order=order,
        seed=seed,
        depth=stats["depth"],
        pages_per_level=list(stats["pages_per_level"]),
        pages=stats["pages"],
        leaf_pages=stats["leaf_pages"],
        fill=stats["fill"],
        leaf_fill=stats["leaf_fill"],
        leaf_cell_fill=cell_fill(stats, key_bytes, value_bytes, "leaf"),
        interior_cell_fill=cell_fill(stats, key_bytes, value_bytes, "interior"),
        file_bytes=None if path is None else path.stat().st_size,
        build_s=seconds,
        inserts_per_s=n_keys / seconds if seconds > 0 else math.inf,
        batch_keys=batch_keys,
        levels=[dict(level) for level in stats["levels"]],
    )
    if path is not None:
        _sidecar_path(path).write_text(json.dumps(built.to_dict(), indent=1) + "\n")
    return built


def build_cache_bytes(page_size: int, n_keys: int, key_bytes: int, value_bytes: int) -> int:
    """A build pool that holds the whole tree even at 50% fill (the prototype's no-steal rule
    keeps a transaction's pages in memory; a pool smaller than the tree also makes the build
    read pages back)."""
    leaf_keys = max(1.0, prototype_capacity.leaf_cells(page_size, key_bytes, value_bytes) * _SIZING_FILL)
    pages = n_keys / leaf_keys * 1.1 + MIN_FRAMES  # + interior pages, a tenth is generous
    return int(pages * page_size) + _BUILD_POOL_MARGIN_BYTES


def cell_fill(stats: Mapping[str, Any], key_bytes: int, value_bytes: int, level: str = "leaf") -> float | None:
    """Cells in use / cells the pages could hold, from a prototype `stats()` dict.

    level "leaf": the leaf level. "interior": the interior levels below the root (the root is
    whatever is left over, not a random-insert node; None when the tree has no such level).
    "tree": leaves and interior levels below the root together."""
    page_size = stats["page_size"]
    levels = stats["levels"]
    leaf_capacity = prototype_capacity.leaf_cells(page_size, key_bytes, value_bytes)
    interior_capacity = prototype_capacity.interior_cells(page_size, key_bytes)
    leaf = levels[-1]
    middle = levels[1:-1]
    if level == "leaf":
        return leaf["cells"] / (leaf["pages"] * leaf_capacity)
    if level == "interior":
        if not middle:
            return None
        return sum(lv["cells"] for lv in middle) / (sum(lv["pages"] for lv in middle) * interior_capacity)
    if level == "tree":
        cells = leaf["cells"] + sum(lv["cells"] for lv in middle)
        capacity = leaf["pages"] * leaf_capacity + sum(lv["pages"] for lv in middle) * interior_capacity
        return cells / capacity
    raise UsageError(f"level must be leaf, interior or tree, got {level!r}")


def measured_fill(
    page_size: int,
    n_keys: int = 100_000,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    seed: int = 1,
    order: str = "random",
    level: str = "leaf",
) -> float | None:
    """The prototype's node fill after inserting `n_keys` keys in `order`, built in memory (the
    same tree as on disk, without the disk): the `fill` the model's extension takes.

    level: "leaf" (the default, the model's fill), "interior" or "tree" (see `cell_fill`)."""
    built = build_tree(None, page_size, n_keys, key_bytes, value_bytes, seed, order)
    if level == "leaf":
        return built.leaf_cell_fill
    if level == "interior":
        return built.interior_cell_fill
    return cell_fill({"page_size": page_size, "levels": built.levels}, key_bytes, value_bytes, level)


def _journal_path(path: Path) -> Path:
    return path.with_name(path.name + JOURNAL_SUFFIX)


def _sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def load_sidecar(path: Path) -> dict[str, Any] | None:
    """What build_tree recorded beside the database at `path`, if that record is there and is of
    this very file (the file's size matches); else None."""
    sidecar = _sidecar_path(Path(path))
    if not sidecar.exists() or not Path(path).exists():
        return None
    try:
        data = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("file_bytes") == Path(path).stat().st_size else None
