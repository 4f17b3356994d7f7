"""The RethinkDB post checked against a real B-tree: time cold point lookups on a tree that
pagelab.workloads.lookups.build built, beside the device and the model.

A lookup's measurement and its diagnostics (the pread rate of the same file, the decode cost, fio
beside it) are taken in one pass over the same database and share its cold state, so they live
here together, with the check the notebook and the bench run (build, then measure, per page size).

See the package's docstring (pagelab.workloads.lookups) for what is measured and why.
"""


from __future__ import annotations

import math
import mmap
import os
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.common.units import kib, page_size_label
from pagelab.models.blocksize import (
    DEFAULT_VALUE_BYTES,
    SEED_KEY_BYTES,
    model_row,
)
from pagelab.storage import Database
from pagelab.storage.bufferpool import MIN_FRAMES
from pagelab.storage.nodes import decode_tree_page
from pagelab.workloads.lookups.build import BuiltTree, build_tree, key_for, load_sidecar, prototype_capacity

# The goal: measured cold lookups/s >= 0.8 x (fio QD1 IOPS / hops).
GOAL_RATIO = 0.8

DEFAULT_LOOKUPS = 5_000
DEFAULT_LOOKUP_SEED = 2
# Reads of the same-moment device baseline and pages sampled for the decode cost.
PREAD_SAMPLE_READS = 2_000
DECODE_SAMPLE_PAGES = 200


# --------------------------------------------------------------------------------------------
# Measuring lookups


@dataclass
class LookupResult:
    """Cold random point lookups on one prototype database (see the module docstring)."""

    path: str
    page_size: int
    n_keys: int
    key_bytes: int
    value_bytes: int
    depth: int
    fill: float | None  # the model's fill (leaf cell fill) from the build, when known
    n_lookups: int
    cache_bytes: int
    cache_pages: int
    direct_io: bool
    seconds: float
    cpu_seconds: float  # process CPU time (user + system) during the lookups
    lookups_per_s: float
    page_reads: int  # page-file reads during the lookups
    reads_per_lookup: float
    gets_per_lookup: float  # buffer-pool gets: the pages a lookup visits (= depth)
    missing: int  # lookups that found nothing (0 unless key_bytes is wrong)
    device_iops: float | None  # fio QD1 random-read IOPS at this page size
    device: str | None  # the profile the IOPS came from
    predicted_lookups_per_s: float | None  # device_iops / reads_per_lookup
    ratio: float | None  # lookups_per_s / predicted_lookups_per_s: the goal, >= 0.8
    model_levels: int | None
    model_hops: float | None  # log-model hops with the prototype's capacity and fill, no cache
    model_uncached_hops: float | None  # the same with cache_bytes kept as the top of the tree
    model_lookups_per_s: float | None  # device_iops / model_uncached_hops
    ratio_to_model: float | None
    pread_iops: float | None = None  # same-moment O_DIRECT preads of this file from Python
    pread_ratio: float | None = None  # lookups_per_s / (pread_iops / reads_per_lookup)
    decode_us_per_page: float | None = None  # CPU to decode one page image
    fio_beside_iops: float | None = None  # fio QD1 reads of this file before, between and after the lookups: the mean
    fio_beside_ratio: float | None = None  # lookups_per_s / (fio_beside_iops / reads_per_lookup)
    fio_runs: list[float] | None = None  # the IOPS of each fio run beside the lookups, in order
    fio_round_ratios: list[float] | None = None  # with fio_rounds > 1: each slice's ratio to the fio runs either side

    @property
    def cpu_us_per_lookup(self) -> float:
        return self.cpu_seconds / self.n_lookups * 1e6

    @property
    def us_per_lookup(self) -> float:
        return self.seconds / self.n_lookups * 1e6

    @property
    def meets_goal(self) -> bool | None:
        return None if self.ratio is None else self.ratio >= GOAL_RATIO

    def render(self) -> str:
        """The result in words, one line and up to two indented ones, for the notebook and the bench."""
        verdict = "meets" if self.meets_goal else "misses"
        lines = [f"{page_size_label(self.page_size)}: {self.lookups_per_s:,.0f} lookups/s = {self.ratio:.3f} x (fio "
                 f"{self.device_iops:,.0f} IOPS / {self.reads_per_lookup:.2f} reads per lookup) -> {verdict} the goal "
                 f">= {GOAL_RATIO}; {self.us_per_lookup:,.0f} µs per lookup, {self.cpu_us_per_lookup:,.0f} µs of it CPU"]
        if self.fio_beside_ratio is not None:
            beside = "meets" if self.fio_beside_ratio >= GOAL_RATIO else "misses"
            lines.append(f"    against fio on the same file in the same minutes ({self.fio_beside_iops:,.0f} IOPS): "
                         f"{self.fio_beside_ratio:.3f} x -> {beside} the goal")
        if self.fio_round_ratios:
            lines.append(f"    each of {len(self.fio_round_ratios)} slices against the fio runs either side of it: "
                         f"{min(self.fio_round_ratios):.2f} to {max(self.fio_round_ratios):.2f}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "us_per_lookup": self.us_per_lookup, "cpu_us_per_lookup": self.cpu_us_per_lookup,
                "meets_goal": self.meets_goal}  # fmt: skip


def measure_point_lookups(
    path: str | os.PathLike,
    page_size: int,
    n_lookups: int = DEFAULT_LOOKUPS,
    cache_bytes: int | None = None,
    direct_io: bool = True,
    seed: int = DEFAULT_LOOKUP_SEED,
    *,
    device_profile: Any = None,
    key_bytes: int | None = None,
    value_bytes: int | None = None,
    fill: float | None = None,
    baseline: bool = True,
    pool_options: Mapping[str, Any] | None = None,
    fio_beside_s: float = 0,
    fio_rounds: int = 1,
) -> LookupResult:
    """Time `n_lookups` random gets on the database at `path`, opened afresh (cold pool).

    cache_bytes     the buffer pool; None: the prototype's minimum, MIN_FRAMES (8) pages
    direct_io       O_DIRECT on the page file, so misses go to the device (the OS cache is out)
    device_profile  a fio DeviceProfile or {page size: IOPS}; None: the cached profile of the disk
                    under `path` (`load_or_measure`, which measures, ~1 min, if none is cached)
    key_bytes, value_bytes, fill   default to what `build_tree` recorded beside the file
    baseline        also measure `pread_iops` and `decode_us_per_page` (about half a second)
    pool_options    more Database.open options for the buffer pool, e.g. {"old_blocks_time_ms": 0}:
                    InnoDB's default (1000 ms) keeps a page touched again within a second of its
                    first read in the old sublist, so in a run of a few seconds interior pages can
                    still be evicted by passing leaves; 0 promotes any page touched twice
    fio_beside_s    if > 0, fio reads this very file (QD1, O_DIRECT, read-only) for this many
                    seconds just before and just after the lookups: the device as the lookups
                    found it, since a shared virtual disk drifts between a cached profile and now
    fio_rounds      with fio_beside_s: split the lookups into this many slices with a fio run
                    between each two, so each slice is set beside the device of its own seconds
                    (the disk's latency moves by ±10 µs per read from one minute to the next);
                    fio_round_ratios holds each slice against the mean of the fio runs either side
    """
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no database at {path}; build one with build_tree first")
    if n_lookups < 1:
        raise UsageError(f"n_lookups must be >= 1, got {n_lookups}")
    if isinstance(fio_rounds, bool) or not isinstance(fio_rounds, int) or not 1 <= fio_rounds <= n_lookups:
        raise UsageError(f"fio_rounds must be a whole number from 1 to n_lookups ({n_lookups}), got {fio_rounds!r}")
    recorded = load_sidecar(path) or {}
    key_bytes = key_bytes or recorded.get("key_bytes") or SEED_KEY_BYTES
    value_bytes = value_bytes if value_bytes is not None else recorded.get("value_bytes", DEFAULT_VALUE_BYTES)
    fill = fill if fill is not None else recorded.get("leaf_cell_fill")
    if cache_bytes is None:
        cache_bytes = MIN_FRAMES * page_size

    fio_runs: list[float] = []
    if fio_beside_s > 0:
        from pagelab.machine.fio import file_read_iops

        def fio_now() -> None:
            fio_runs.append(file_read_iops(path, page_size, fio_beside_s).iops)

        fio_now()
    else:
        fio_rounds = 1  # nothing to interleave
    pread_iops = decode_us = None
    if baseline:
        pread_iops = raw_read_iops(path, page_size, min(PREAD_SAMPLE_READS, n_lookups), seed=seed + 1)
        decode_us = decode_cost_us(path, page_size, seed=seed + 2)

    db = Database.open(path, page_size=page_size, cache_bytes=cache_bytes, direct_io=direct_io, **(pool_options or {}))
    try:
        n_keys = len(db)
        if n_keys < 1:
            raise UsageError(f"{path} holds no keys")
        picker = random.Random(seed)
        keys = [key_for(picker.randrange(n_keys), key_bytes) for _ in range(n_lookups)]
        before = db.counters()
        get = db.get
        missing = 0
        seconds = cpu_seconds = 0.0
        slices = []  # (lookups, seconds, page reads) of each round
        for round_no in range(fio_rounds):
            round_keys = keys[round_no * n_lookups // fio_rounds : (round_no + 1) * n_lookups // fio_rounds]
            reads_before = db.counters()["file_reads"] if fio_rounds > 1 else 0
            cpu_started = time.process_time()
            started = time.perf_counter()
            for key in round_keys:
                if get(key) is None:
                    missing += 1
            round_seconds = time.perf_counter() - started
            cpu_seconds += time.process_time() - cpu_started
            seconds += round_seconds
            if fio_rounds > 1:
                slices.append((len(round_keys), round_seconds, db.counters()["file_reads"] - reads_before))
                fio_now()
        after = db.counters()
    finally:
        db.close(checkpoint=False)
    if missing:
        raise UsageError(
            f"{missing} of {n_lookups} lookups found nothing in {path}: it was not built with "
            f"{key_bytes}-byte keys by build_tree (pass key_bytes)"
        )

    if fio_runs and fio_rounds == 1:
        fio_now()
    fio_beside = sum(fio_runs) / len(fio_runs) if fio_runs else None
    round_ratios = [
        reads / seconds_of_round / ((fio_runs[index] + fio_runs[index + 1]) / 2)  # lookups/s x reads/lookup / IOPS
        for index, (_, seconds_of_round, reads) in enumerate(slices)
    ] or None
    page_reads = after["file_reads"] - before["file_reads"]
    reads_per_lookup = page_reads / n_lookups
    lookups_per_s = n_lookups / seconds
    iops, device = _device_iops(device_profile, path, page_size)
    predicted = iops / reads_per_lookup if iops and reads_per_lookup else None

    model: dict[str, Any] = {}
    if iops:
        model = model_row(page_size, iops, n_keys, key_bytes, value_bytes, cache_bytes, fill or 1.0,
                          layout=prototype_capacity)  # fmt: skip
    model_uncached = model.get("uncached_hops")
    model_rate = model.get("queries_per_s")
    return LookupResult(
        path=str(path),
        page_size=page_size,
        n_keys=n_keys,
        key_bytes=key_bytes,
        value_bytes=value_bytes,
        depth=after["tree_depth"],
        fill=fill,
        n_lookups=n_lookups,
        cache_bytes=cache_bytes,
        cache_pages=cache_bytes // page_size,
        direct_io=direct_io,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        lookups_per_s=lookups_per_s,
        page_reads=page_reads,
        reads_per_lookup=reads_per_lookup,
        gets_per_lookup=(after["pool_gets"] - before["pool_gets"]) / n_lookups,
        missing=missing,
        device_iops=iops,
        device=device,
        predicted_lookups_per_s=predicted,
        ratio=lookups_per_s / predicted if predicted else None,
        model_levels=model.get("levels"),
        model_hops=model.get("hops"),
        model_uncached_hops=model_uncached,
        model_lookups_per_s=model_rate if model_rate and math.isfinite(model_rate) else None,
        ratio_to_model=lookups_per_s / model_rate if model_rate and math.isfinite(model_rate) else None,
        pread_iops=pread_iops,
        pread_ratio=lookups_per_s * reads_per_lookup / pread_iops if pread_iops and reads_per_lookup else None,
        decode_us_per_page=decode_us,
        fio_beside_iops=fio_beside,
        fio_beside_ratio=lookups_per_s * reads_per_lookup / fio_beside if fio_beside and reads_per_lookup else None,
        fio_runs=fio_runs or None,
        fio_round_ratios=round_ratios,
    )


def raw_read_iops(path: str | os.PathLike, page_size: int, n_reads: int = PREAD_SAMPLE_READS, seed: int = 3,
                  direct_io: bool = True) -> float:
    """Random whole-page preads of the file from Python (O_DIRECT, one aligned buffer, QD1),
    per second: the device through the same call the prototype makes, without the prototype."""
    flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECT if direct_io else 0)
    fd = os.open(path, flags)
    buffer = mmap.mmap(-1, page_size)
    try:
        pages = os.fstat(fd).st_size // page_size
        if pages < 1:
            raise UsageError(f"{path} holds no whole {page_size}-byte page")
        picker = random.Random(seed)
        offsets = [picker.randrange(pages) * page_size for _ in range(n_reads)]
        preadv = os.preadv
        buffers = [buffer]
        started = time.perf_counter()
        for offset in offsets:
            preadv(fd, buffers, offset)
        return n_reads / (time.perf_counter() - started)
    finally:
        buffer.close()
        os.close(fd)


def decode_cost_us(path: str | os.PathLike, page_size: int, n_pages: int = DECODE_SAMPLE_PAGES, seed: int = 4) -> float:
    """Microseconds of CPU to decode one page image (`nodes.decode_tree_page`), over a random
    sample of the file's tree pages (read through the OS cache: only the decode is timed)."""
    picker = random.Random(seed)
    with open(path, "rb", buffering=0) as handle:
        pages = os.fstat(handle.fileno()).st_size // page_size
        if pages < 2:
            raise UsageError(f"{path} holds no tree page")
        numbers = [picker.randrange(1, pages) for _ in range(min(n_pages, pages - 1))]
        images = [(number, os.pread(handle.fileno(), page_size, number * page_size)) for number in numbers]
    started = time.process_time()
    for number, image in images:
        decode_tree_page(number, image)
    return (time.process_time() - started) / len(images) * 1e6


def _device_iops(device_profile: Any, path: Path, page_size: int) -> tuple[float | None, str | None]:
    if device_profile is None:
        from pagelab.machine.fio import load_or_measure

        device_profile = load_or_measure(path.parent, progress=False)
    if hasattr(device_profile, "iops_by_block_size"):
        iops = device_profile.iops_by_block_size().get(page_size)
        return iops, device_profile.describe()
    if isinstance(device_profile, Mapping):
        iops = device_profile.get(page_size)
        return (None if iops is None else float(iops)), "IOPS given by the caller"
    raise UsageError(
        f"device_profile must be a DeviceProfile or a {{page size: IOPS}} mapping, got {type(device_profile).__name__}"
    )


# --------------------------------------------------------------------------------------------
# The notebook's and the bench's check: build, then measure, per page size


def lookup_check(
    page_sizes: Sequence[int] = (4096, 16384),
    n_keys: int = 1_000_000,
    n_lookups: int = DEFAULT_LOOKUPS,
    directory: str | os.PathLike = "data/runs/btree_block_size",
    key_bytes: int = SEED_KEY_BYTES,
    value_bytes: int = DEFAULT_VALUE_BYTES,
    cache_bytes: int | None = None,
    device_profile: Any = None,
    seed: int = 1,
    *,
    reuse: bool = False,
    progress: bool = False,
    fio_beside_s: float = 0,
    fio_rounds: int = 1,
):
    """For each page size: build `n_keys` keys in random order at directory/lookups-<size>.db
    (or reuse it), then measure cold lookups. Returns (table, builds, results): a DataFrame with
    one row per page size, and the `BuiltTree`s and `LookupResult`s behind it.

    All trees are built before any is measured, so no build's write-back overlaps a measurement."""
    directory = Path(directory)
    n_keys = int(n_keys)
    builds = [
        build_tree(directory / f"lookups-{page_size_label(page_size)}.db", page_size, n_keys, key_bytes, value_bytes,
                   seed, reuse=reuse, progress=progress)  # fmt: skip
        for page_size in page_sizes
    ]
    results = [
        measure_point_lookups(built.path, built.page_size, n_lookups, cache_bytes, True, seed + 1,
                              device_profile=device_profile, fio_beside_s=fio_beside_s, fio_rounds=fio_rounds)  # fmt: skip
        for built in builds
    ]
    return lookup_frame(builds, results), builds, results


def _spread(name: str, values: Sequence[float] | None) -> dict[str, float | None]:
    """{name_min, name_median, name_max} of the values (None for each when there are none)."""
    if not values:
        return {f"{name}_min": None, f"{name}_median": None, f"{name}_max": None}
    return {f"{name}_min": min(values), f"{name}_median": statistics.median(values), f"{name}_max": max(values)}


def lookup_frame(builds: Sequence[BuiltTree], results: Sequence[LookupResult]):
    """One row per measurement, the columns the notebook and the bench print."""
    import pandas as pd

    rows = []
    for built, result in zip(builds, results):
        rows.append({
            "page_kb": kib(result.page_size),
            "keys": result.n_keys,
            "depth": result.depth,
            "pages_per_level": "/".join(str(n) for n in built.pages_per_level),
            "leaf_fill": built.leaf_cell_fill,
            "build_s": built.build_s,
            "cache_pages": result.cache_pages,
            "lookups_per_s": result.lookups_per_s,
            "us_per_lookup": result.us_per_lookup,
            "cpu_us_per_lookup": result.cpu_us_per_lookup,
            "reads_per_lookup": result.reads_per_lookup,
            "fio_iops": result.device_iops,
            "iops_per_reads": result.predicted_lookups_per_s,
            "ratio": result.ratio,
            "model_hops": result.model_hops,
            "model_uncached_hops": result.model_uncached_hops,
            "iops_per_model_hops": result.model_lookups_per_s,
            "ratio_to_model": result.ratio_to_model,
            "pread_iops_now": result.pread_iops,
            "ratio_to_pread_now": result.pread_ratio,
            "decode_us_per_page": result.decode_us_per_page,
            "fio_beside_iops": result.fio_beside_iops,
            "ratio_to_fio_beside": result.fio_beside_ratio,
            **_spread("fio_round_ratio", result.fio_round_ratios),
            "meets_goal": result.meets_goal,
        })  # fmt: skip
    return pd.DataFrame(rows)

