"""The answer of a sweep with a second factor beside the page size (pagelab.evidence.grid), in the
report's words: the page-size effect at each level, whether it changes with the factor, and, for
a pool grid of 4k and 16k, Percona's published direction beside this sweep's as a shape."""

from __future__ import annotations

import math

from pagelab.common.units import size_text
from pagelab.evidence.grid import FACTOR_WORDS, effect_change, effect_change_sentence, effect_table, grid_factors
from pagelab.evidence.wording import interval_text, pct_text
from pagelab.report.seed_configuration import pool_share_pct


def grid_factor(data) -> str | None:
    """The second factor of a grid sweep (the first, if it has two), else None."""
    factors = grid_factors(data.evidence)
    return factors[0] if factors else None


# Percona's tpcc-mysql runs of 4k against 16k pages (2016): the direction, not the numbers.
PERCONA_DIRECTION = ("Percona's tpcc-mysql runs of 4k against 16k pages (2016, SATA and NVMe SSDs) found 4k ahead "
                     "by 1.55-3.3x, more so the smaller the buffer pool: the 16k vs 4k effect negative, and larger "
                     "the smaller the pool.")


def grid_answer(data) -> str:
    """The grid's answer: the page-size effect at each level and whether it changes with the factor."""
    factor = grid_factor(data)
    effects = effect_table(data.evidence, factor)
    parts = [f"{FACTOR_WORDS.get(factor, factor)} {row['level']}: {pct_text(row['change_pct'])}"
             + ("" if math.isnan(row["low_pct"]) else " " + interval_text(row["low_pct"], row["high_pct"],
                                                                         row.get("confidence_pct")))
             + f" ({row['verdict']})" for row in effects.to_dict("records")]
    a, b = (effects.iloc[0]["a"], effects.iloc[0]["b"]) if not effects.empty else ("", "")
    text = f"The {a} vs {b} TpmC effect at each level — " + "; ".join(parts) + ". " if parts else ""
    text += effect_change_sentence(data.evidence, factor)
    if factor == "buffer_pool" and {a, b} == {"16k", "4k"}:
        change = effect_change(data.evidence, factor)
        text += " " + PERCONA_DIRECTION
        if change is not None:
            # levels run from the smallest pool to the largest in the pool profile's order
            same = change.first_pct < 0 and change.first_pct < change.last_pct
            text += (" This sweep's shape is the same: 16k behind, more so at the smaller pool." if same else
                     " This sweep's shape is not that one (compare Figure: effect across the pool).")
    return text


def levels_text(value, labels: dict[str, str]) -> str:
    """A knob's value in a table cell: a grid's levels as "40M (19%), 80M (38%)", not a Python list."""
    if isinstance(value, list):
        return ", ".join(labels.get(str(level), str(level)) for level in value)
    return str(value)


def pool_level_labels(data) -> dict[str, str]:
    """A pool grid's levels as a reader writes them, each with its share of the data (the largest
    loaded database, as `pool_share_pct`): {"40M": "40M (19%)", "30%": "30% (52M)"}; {} without a
    pool grid or before a run recorded its pool."""
    summary = data.tables["summary"]
    levels = data.profile.get("buffer_pool")
    db = [v for v in summary.get("db_bytes", []) if v == v]
    if not isinstance(levels, list) or "level_buffer_pool" not in summary:
        return {}
    measured = summary.groupby("level_buffer_pool", sort=False)["buffer_pool_bytes"].median()
    labels = {}
    for level in map(str, levels):
        if level not in measured:
            labels[level] = level
        elif level.endswith("%"):  # the share is the level itself; its bytes say what it came to
            labels[level] = f"{level} ({size_text(measured[level])})"
        else:
            share = pool_share_pct([measured[level]], db)
            labels[level] = f"{level} ({share:.0f}%)" if share is not None else level
    return labels
