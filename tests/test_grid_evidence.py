"""The page-size effect across a grid's second factor (pagelab.evidence.grid), on run tables laid
out as read_runs lays out a grid: one row per run with its `level_buffer_pool`."""

from __future__ import annotations

import pandas as pd

from pagelab.evidence.grid import effect_change, effect_change_sentence, effect_table, grid_factors
from pagelab.evidence.runs import RunTable

# TpmC of 6 rounds per cell, spread like quick's runs (a few percent).
SPREAD = [0.97, 1.02, 0.99, 1.03, 1.00, 0.98]


def grid_table(effects: dict[str, float]) -> RunTable:
    """4k at 10,000 TpmC; 16k at 10,000 x (1 + effect) at each pool level; each run off by its own
    share of SPREAD (16k's in another order than 4k's, so a round does not move both alike)."""
    rows = []
    for level, effect in effects.items():
        for round_, (wobble_4k, wobble_16k) in enumerate(zip(SPREAD, reversed(SPREAD)), start=1):
            for size, base, wobble in (("4k", 10_000, wobble_4k), ("16k", 10_000 * (1 + effect), wobble_16k)):
                rows.append({"run": f"{size}-{level}-r{round_}", "page_size": size, "repeat": round_,
                             "level_buffer_pool": level, "tpmc": base * wobble, "read_iops": 100.0,
                             "write_iops": 100.0, "hit_ratio": 990.0, "new_order_p95_ms": 10.0})
    return RunTable(pd.DataFrame(rows), [], {"buffer_pool": list(effects)}, ["4k", "16k"])


def test_an_effect_that_shrinks_with_the_pool_is_said_to_change():
    table = grid_table({"10%": -0.30, "50%": -0.15, "100%": 0.0})
    assert grid_factors(table) == ["buffer_pool"]
    effects = effect_table(table, "buffer_pool")
    assert list(effects["level"]) == ["10%", "50%", "100%"]
    assert effects.iloc[0]["change_pct"] < -25 and abs(effects.iloc[-1]["change_pct"]) < 5
    change = effect_change(table, "buffer_pool")
    # log(1.0) - log(0.7) = 0.357: 35.7 log points
    assert 30 < change.difference < 40 and change.low > 0
    sentence = effect_change_sentence(table, "buffer_pool")
    assert "so the page-size effect changes with the buffer pool" in sentence


def test_the_same_effect_at_every_level_is_not_called_a_change():
    table = grid_table({"10%": -0.10, "100%": -0.10})
    change = effect_change(table, "buffer_pool")
    assert change.low < 0 < change.high
    assert change.low < 0 < change.high
    sentence = effect_change_sentence(table, "buffer_pool")
    assert "changes with" not in sentence
    assert ("cannot tell that the effect depends on the buffer pool" in sentence
            or "the page-size effect is the same at both levels of the buffer pool" in sentence)
