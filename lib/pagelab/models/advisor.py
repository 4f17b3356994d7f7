"""The page-size advisor: the RethinkDB post's promise, "measure the hardware and suggest the page size".

`advise` runs the block-size model (`pagelab.models.blocksize`) over a measured device profile
for one question (how many keys, how large, how much cache) and recommends the page size with
the most point lookups per second. Page sizes whose rates are within `TIE_TOLERANCE` of the best
count as a tie, and the smallest of them wins: a smaller page writes fewer bytes for each changed
row (less write amplification, the Voron post), so when reads do not decide, writes should.

`run_advise` is `pagelab advise --keys N --key-bytes K --value-bytes V --cache BYTES
[--device PATH]`: it reuses the cached fio profile of the disk under PATH (or measures it, about
40 s) and advises. `Advice.render()` is what the command prints; `Advice.to_dict()` is JSON-able.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.models.blocksize import DEFAULT_LAYOUT, RANDOM_INSERT_FILL, NodeCapacity, model_table
from pagelab.common.paths import CACHE_DIR, DATA_DIR
from pagelab.common.units import KIB, size_text, parse_size
from pagelab.machine.device_profile import DeviceProfile
from pagelab.machine.fio import DEFAULT_BLOCK_SIZES, PROFILE_MAX_AGE_DAYS, load_or_measure

# Rates closer than this count as a tie, which the smaller page wins. A 2% lead is below what
# the model itself can tell apart (an analytic node capacity and an average fill move its numbers
# by more) and below the run-to-run spread of 5 s fio runs: on this project's shared virtual disk
# two runs of the same block size differed by 4% to 60% (bench/bench_fio.py --repeat shows it
# for any disk). A spread that large no tolerance can absorb: measure again when the disk is quiet.
TIE_TOLERANCE = 0.02



@dataclass
class Advice:
    """A recommended page size, the model table behind it, and the question it answers."""

    n_keys: float
    key_bytes: int
    value_bytes: int
    cache_bytes: float
    fill: float
    table: Any  # pandas DataFrame, blocksize.TABLE_COLUMNS plus lat_p99_us when known
    recommended_page_size: int
    reason: str
    device: str  # one line describing the profile the IOPS came from
    tie_tolerance: float = TIE_TOLERANCE
    notes: list[str] = field(default_factory=list)

    @property
    def recommended_row(self) -> dict[str, Any]:
        table = self.table
        return table[table["block_size_bytes"] == self.recommended_page_size].iloc[0].to_dict()

    def render(self) -> str:
        """An aligned text table of the model per page size, then the recommendation line."""
        lines = [
            f"Page-size advice for {self.n_keys:,.0f} keys of {self.key_bytes} B with {self.value_bytes}-byte "
            f"values, {_cache_label(self.cache_bytes)}, nodes {self.fill:.0%} full",
            f"Device: {self.device}",
            "",
        ]
        header = ("", "page", "IOPS", "p99 µs", "keys/node", "keys/leaf", "levels", "hops",
                  "cached levels", "uncached hops", "lookups/s")  # fmt: skip
        body = [self._cells(row) for row in self.table.to_dict("records")]
        widths = [max(len(str(cells[i])) for cells in [header, *body]) for i in range(len(header))]
        for cells in [header, *body]:
            first, second, *numbers = cells
            text = f"{first:<{widths[0]}} {second:<{widths[1]}}"
            text += "".join(f"  {cell:>{width}}" for cell, width in zip(numbers, widths[2:]))
            lines.append(text.rstrip())
        lines.append("")
        lines += [f"note: {note}" for note in self.notes]
        lines.append(f"Recommended page size: {size_text(self.recommended_page_size)}. {self.reason}")
        return "\n".join(lines)

    def _cells(self, row: dict[str, Any]) -> tuple[str, ...]:
        marker = "*" if row["block_size_bytes"] == self.recommended_page_size else ""
        page = size_text(row["block_size_bytes"])
        common = (marker, page, _number(row["iops"], "{:,.0f}"), _number(row.get("lat_p99_us"), "{:,.0f}"),
                  _number(row["keys_per_node"], "{:,.1f}"), _number(row["leaf_keys"], "{:,.1f}"))  # fmt: skip
        if _missing(row["hops"]):
            return (*common, "", "", "", "", "page too small")
        rate = "no reads" if math.isinf(row["queries_per_s"]) else f"{row['queries_per_s']:,.0f}"
        return (*common, f"{int(row['levels'])}", f"{row['hops']:.2f}", f"{row['cached_levels']:.2f}",
                f"{row['uncached_hops']:.2f}", rate)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the question, the device, the table (NaN and infinity as null), the answer."""
        records = [{key: _json_number(value) for key, value in row.items()} for row in self.table.to_dict("records")]
        return {
            "question": {
                "n_keys": self.n_keys,
                "key_bytes": self.key_bytes,
                "value_bytes": self.value_bytes,
                "cache_bytes": self.cache_bytes,
                "fill": self.fill,
            },
            "device": self.device,
            "table": records,
            "recommended_page_size_bytes": self.recommended_page_size,
            "recommended_page_kb": self.recommended_page_size / KIB,
            "reason": self.reason,
            "tie_tolerance": self.tie_tolerance,
            "notes": list(self.notes),
        }


def advise(
    n_keys: float,
    key_bytes: int,
    value_bytes: int,
    cache_bytes: float,
    device_profile: DeviceProfile | Any,
    fill: float = RANDOM_INSERT_FILL,
    *,
    layout: NodeCapacity = DEFAULT_LAYOUT,
    tie_tolerance: float = TIE_TOLERANCE,
) -> Advice:
    """The page size with the most point lookups per second under the model, ties to the smaller.

    `device_profile` is a DeviceProfile or a {block size in bytes: IOPS} mapping. Deterministic:
    the same profile and question give the same advice.
    """
    if not (0 <= tie_tolerance < 1):
        raise UsageError(f"the tie tolerance must be a fraction in [0, 1), got {tie_tolerance!r}")
    table = model_table(device_profile, n_keys, key_bytes, value_bytes, cache_bytes, fill, layout)
    if isinstance(device_profile, DeviceProfile):
        p99 = {result.block_size_bytes: result.lat_p99_us for result in device_profile.results}
        table.insert(table.columns.get_loc("iops") + 1, "lat_p99_us", table["block_size_bytes"].map(p99))
        device = device_profile.describe()
    else:
        device = "IOPS given by the caller"

    feasible = table[table["queries_per_s"].notna()]
    notes = []
    too_small = table.loc[table["queries_per_s"].isna(), "block_size_bytes"].tolist()
    if too_small:
        notes.append(
            f"{', '.join(size_text(size) for size in too_small)} cannot hold these keys and values "
            "(too few entries per page for a B-tree to split) and are left out"
        )
    if feasible.empty:
        raise UsageError(
            f"no measured page size ({', '.join(size_text(size) for size in too_small)}) can hold "
            f"{key_bytes}-byte keys with {value_bytes}-byte values; use smaller keys and values (a database "
            "keeps values this large outside the tree, in overflow pages or blobs, which this model does not cover)"
        )
    best_rate = feasible["queries_per_s"].max()
    threshold = best_rate if math.isinf(best_rate) else best_rate * (1 - tie_tolerance)
    chosen = feasible[feasible["queries_per_s"] >= threshold].sort_values("block_size_bytes").iloc[0]
    fastest = feasible.sort_values(["queries_per_s", "block_size_bytes"], ascending=[False, True]).iloc[0]
    reason = _reason(chosen, fastest, feasible, tie_tolerance, cache_bytes)
    prototype_note = _prototype_limit_note(int(chosen["block_size_bytes"]), key_bytes, value_bytes)
    if prototype_note:
        notes.append(prototype_note)
    return Advice(
        n_keys=n_keys, key_bytes=key_bytes, value_bytes=value_bytes, cache_bytes=cache_bytes, fill=fill,
        table=table, recommended_page_size=int(chosen["block_size_bytes"]), reason=reason, device=device,
        tie_tolerance=tie_tolerance, notes=notes,
    )  # fmt: skip


def run_advise(
    keys: float | int | str,
    key_bytes: int | str,
    value_bytes: int | str,
    cache: int | str,
    device_path: str | os.PathLike | None = None,
    refresh: bool = False,
    *,
    fill: float = RANDOM_INSERT_FILL,
    progress: bool = True,
    cache_dir: str | os.PathLike = CACHE_DIR,
    max_age_days: float = PROFILE_MAX_AGE_DAYS,
) -> Advice:
    """`pagelab advise`: the device profile of `device_path` (default data/), from the cache or
    measured now, then `advise`. Arguments may be the command line's strings ("1e9", "1G").
    Everything is checked before fio runs."""
    n_keys = _count(keys, "--keys")
    key_size = _whole_bytes(key_bytes, "--key-bytes", minimum=1)
    value_size = _whole_bytes(value_bytes, "--value-bytes", minimum=0)
    cache_bytes = parse_size(cache, "--cache")
    directory = DATA_DIR if device_path is None else device_path
    if not os.path.isdir(directory):
        raise UsageError(f"--device must be a directory on the disk to measure, got {os.fspath(directory)!r}")
    # The question must be answerable (valid, and some page size holds the entries) before the
    # device is measured for it; placeholder IOPS are enough for that.
    advise(n_keys, key_size, value_size, cache_bytes, dict.fromkeys(DEFAULT_BLOCK_SIZES, 1.0), fill)
    profile = load_or_measure(directory, max_age_days, refresh, cache_dir=cache_dir, progress=progress)
    return advise(n_keys, key_size, value_size, cache_bytes, profile, fill)


# --------------------------------------------------------------------------------------------
# The one sentence of why


def _reason(chosen, fastest, feasible, tie_tolerance: float, cache_bytes: float) -> str:
    page = size_text(chosen["block_size_bytes"])
    if math.isinf(chosen["queries_per_s"]):
        return (
            f"At {page} the whole tree fits in the {size_text(cache_bytes)} cache, so lookups never wait for "
            f"the device; it is the smallest page size for which that holds, and smaller pages write fewer bytes "
            "per change."
        )
    if chosen["block_size_bytes"] != fastest["block_size_bytes"]:
        return (
            f"It does {chosen['queries_per_s']:,.0f} lookups/s, within {tie_tolerance:.0%} of the fastest, "
            f"{size_text(fastest['block_size_bytes'])} at {fastest['queries_per_s']:,.0f}/s, and the smaller "
            "page writes fewer bytes for each changed row (less write amplification)."
        )
    if len(feasible) == 1:
        return "It is the only measured page size that can hold these keys and values."
    sizes = feasible.sort_values("block_size_bytes").reset_index(drop=True)
    position = sizes.index[sizes["block_size_bytes"] == chosen["block_size_bytes"]][0]
    neighbours = [sizes.iloc[i] for i in (position + 1, position - 1) if 0 <= i < len(sizes)]
    comparisons = "; ".join(_comparison(chosen, other) for other in neighbours)
    return f"It gives the most lookups per second ({chosen['queries_per_s']:,.0f}/s): {comparisons}."


def _comparison(chosen, other) -> str:
    """Like "16 KiB pages would need 25% fewer hops (4.90 -> 3.69) but get 18% fewer IOPS"."""
    hop_change = other["uncached_hops"] / chosen["uncached_hops"] - 1 if chosen["uncached_hops"] else 0.0
    iops_change = other["iops"] / chosen["iops"] - 1
    hop_words = f"need {abs(hop_change):.0%} {'fewer' if hop_change < 0 else 'more'} hops"
    hop_words += f" ({chosen['uncached_hops']:.2f} -> {other['uncached_hops']:.2f})"
    iops_words = f"get {abs(iops_change):.0%} {'fewer' if iops_change < 0 else 'more'} IOPS"
    joiner = "but" if hop_change < 0 or iops_change > 0 else "and"  # "but" when one of the two helps
    return f"{size_text(other['block_size_bytes'])} pages would {hop_words} {joiner} {iops_words}"


# --------------------------------------------------------------------------------------------
# Formatting and argument helpers


def _prototype_limit_note(page_size: int, key_bytes: int, value_bytes: int) -> str | None:
    """The model sizes nodes as any B-tree's; pagelab's own storage prototype has no overflow pages,
    so it refuses entries a page of the recommended size would hold only with them."""
    from pagelab.storage.pagefile import PAGE_SIZES
    from pagelab.storage.slotted import max_key_bytes, max_value_bytes

    def holds(size: int) -> bool:
        return key_bytes <= max_key_bytes(size) and value_bytes <= max_value_bytes(size)

    if page_size not in PAGE_SIZES or holds(page_size):
        return None
    larger = [size for size in PAGE_SIZES if size > page_size and holds(size)]
    where = f"it holds them from {size_text(larger[0])} pages" if larger else "it holds them at no page size"
    return (f"pagelab's storage prototype (no overflow pages) refuses these entries at {size_text(page_size)} "
            f"pages, where it takes keys up to {max_key_bytes(page_size)} B and values up to "
            f"{max_value_bytes(page_size)} B; {where}")


def _cache_label(cache_bytes: float) -> str:
    return "no cache" if cache_bytes == 0 else f"a {size_text(cache_bytes)} cache"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Any, pattern: str) -> str:
    return "" if _missing(value) else pattern.format(value)


def _json_number(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars from the DataFrame
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _count(value: float | int | str, option: str) -> float:
    try:
        number = float(str(value).replace("_", "").replace(",", ""))
    except ValueError:
        raise UsageError(f"{option} must be a number of keys such as 1000000 or 1e9, got {value!r}") from None
    if not (math.isfinite(number) and number >= 1):
        raise UsageError(f"{option} must be at least 1, got {value!r}")
    if number != int(number):
        raise UsageError(f"{option} must be a whole number of keys, got {value!r}")
    return number


def _whole_bytes(value: int | str, option: str, minimum: int) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise UsageError(f"{option} must be a whole number of bytes, got {value!r}") from None
    if number < minimum:
        raise UsageError(f"{option} must be at least {minimum}, got {number}")
    return number
