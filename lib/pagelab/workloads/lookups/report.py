"""The RethinkDB post's lookups, presented: measured node fill, the block-size model extended with it, plots.
"""


from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pagelab.workloads.lookups.build import build_tree, prototype_capacity
from pagelab.common.errors import UsageError
from pagelab.models.blocksize import (
    DEFAULT_VALUE_BYTES,
    SEED_KEY_BYTES,
    model_row,
)
from pagelab.common.units import format_size, kib

def fill_table(
    page_sizes: Sequence[int],
    n_keys: int = 100_000,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    seed: int = 1,
    order: str = "random",
    steps: int = 1,
):
    """In-memory builds per page size: depth, leaf pages, leaf and interior fill, as a DataFrame.

    Random inserts into an empty tree fill it in waves: leaves born together fill and split
    together, so the fill rises and falls with the key count, with a period of one doubling of
    the keys and an amplitude that grows with the page size (measured on the prototype: at 4k the
    leaf fill stays at 0.69-0.70 from 200k to 400k keys; at 64k it runs from 0.58 to 0.83 and
    back). One key count can therefore catch a large page at a crest or a trough. With `steps`
    > 1 the tree is built at n_keys x 2^(i/steps) for i < steps, one doubling sampled evenly, and
    leaf_fill is the mean (leaf_fill_min / _max the range); `steps` times the build time."""
    import pandas as pd

    if steps < 1:
        raise UsageError(f"steps must be >= 1, got {steps}")
    counts = [round(n_keys * 2 ** (step / steps)) for step in range(steps)]
    rows = []
    for page_size in sorted(page_sizes):
        builds = [build_tree(None, page_size, count, key_bytes, value_bytes, seed, order) for count in counts]
        leaf = [built.leaf_cell_fill for built in builds]
        interior = [built.interior_cell_fill for built in builds if built.interior_cell_fill is not None]
        rows.append({
            "block_kb": kib(page_size),
            "block_size_bytes": page_size,
            "keys": n_keys if steps == 1 else f"{counts[0]:,}..{counts[-1]:,}",
            "leaf_capacity": prototype_capacity.leaf_cells(page_size, key_bytes, value_bytes),
            "interior_capacity": prototype_capacity.interior_cells(page_size, key_bytes),
            "depth": builds[0].depth,
            "leaf_pages": builds[0].leaf_pages,
            "leaf_fill": sum(leaf) / len(leaf),
            "leaf_fill_min": min(leaf),
            "leaf_fill_max": max(leaf),
            "interior_fill": sum(interior) / len(interior) if interior else math.nan,
            "byte_fill": sum(built.fill for built in builds) / len(builds),
            "inserts_per_s": sum(built.n_keys for built in builds) / sum(built.build_s for built in builds),
        })  # fmt: skip
    return pd.DataFrame(rows)


def extended_model_table(
    device_profile: Any,
    fills: Mapping[int, float] | float,
    n_keys: float,
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    cache_sizes: Sequence[int] = (0,),
    layout: Any = prototype_capacity,
):
    """The model per block size and cache budget, each block size with its own fill (`fills`:
    {page size: fill} as measured, or one fill for all). Long format: one row per (cache, block
    size), blocksize.TABLE_COLUMNS plus cache_bytes and fill."""
    import pandas as pd

    from pagelab.models.blocksize import iops_by_block_size

    rows = []
    for cache in cache_sizes:
        for size, iops in sorted(iops_by_block_size(device_profile).items()):
            fill = fills if isinstance(fills, (int, float)) else fills.get(size)
            if fill is None or (isinstance(fill, float) and math.isnan(fill)):
                continue
            row = model_row(size, iops, n_keys, key_bytes, value_bytes, cache, float(fill), layout)
            rows.append({"cache_bytes": int(cache), "fill": float(fill), **row})
    return pd.DataFrame(rows)


def plot_iops(profile, ax=None):
    """fio IOPS (and mean latency) per block size, as the RethinkDB post's first figure."""
    import matplotlib.pyplot as plt

    frame = profile.to_frame()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(frame["block_kb"], frame["iops"], marker="o", label="IOPS")
    ax.set_xscale("log", base=2)
    ax.set_xticks(frame["block_kb"], [f"{kb:g}k" for kb in frame["block_kb"]])
    ax.set_xlabel("block size")
    ax.set_ylabel("random reads / s (QD1, direct)")
    ax.set_ylim(bottom=0)
    ax.set_title(profile.model)
    ax.grid(alpha=0.3)
    return ax


def plot_model(extended, seed=None, ax=None):
    """Lookups/s per block size, one line per cache budget (the extended model), and the post's
    own curve for comparison when given."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
    for cache, group in extended.groupby("cache_bytes"):
        finite = group[group["queries_per_s"].map(lambda v: v == v and math.isfinite(v))]
        label = f"cache {format_size(int(cache))}" if cache else "no cache"
        ax.plot(finite["block_kb"], finite["queries_per_s"], marker="o", label=label)
    if seed is not None:
        ax.plot(seed["block_kb"], seed["queries_per_s"], marker="s", linestyle="--", color="grey",
                label="the RethinkDB post (its SSD, full nodes, no cache)")  # fmt: skip
    ax.set_xscale("log", base=2)
    ticks = sorted(extended["block_kb"].unique())
    ax.set_xticks(ticks, [f"{kb:g}k" for kb in ticks])
    ax.set_xlabel("block (page) size")
    ax.set_ylabel("point lookups / s (model)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return ax
