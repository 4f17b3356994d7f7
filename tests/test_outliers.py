"""The slow-disk flag (pagelab.evidence.outliers): a run whose TpmC stands far below its page size's
others is named, with what to look at; sound sweeps are flagged no more often than the rule's 5%.
Light: tables of runs, no server (the matrix's slow-disk cell makes such a run for real)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pagelab.evidence.outliers import OUTLIER_ALPHA, outlier_lines, slow_outliers


def _sweep(rng: np.random.Generator, rounds: int, sizes=("4k", "8k", "16k"), spread: float = 0.03) -> pd.DataFrame:
    base = {"4k": 900.0, "8k": 1000.0, "16k": 1100.0}
    rows = [{"run": f"{size}-r{r}", "page_size": size, "tpmc": base[size] * float(np.exp(rng.normal(0, spread)))}
            for r in range(1, rounds + 1) for size in sizes]
    return pd.DataFrame(rows)


def test_a_run_on_a_slow_disk_is_flagged_and_no_other():
    runs = _sweep(np.random.default_rng(7), rounds=9)
    # 500 ms on every write and flush from the first second of a 2 s measurement: the matrix's slow-disk
    # run made 1,050 TpmC where its page size's runs made about 3,200 (and 4k's 5,400-6,700)
    runs.loc[runs["run"] == "8k-r4", "tpmc"] /= 3
    flagged = slow_outliers(runs)
    assert list(flagged["run"]) == ["8k-r4"], flagged
    line = outlier_lines(runs)[0]
    assert line.startswith("8k-r4 stands far below 8k's other runs") and "iostat.csv" in line, line


def test_with_two_runs_a_page_size_the_lower_of_a_pair_far_apart_is_flagged():
    runs = _sweep(np.random.default_rng(3), rounds=2, spread=0.02)
    runs.loc[runs["run"] == "8k-r1", "tpmc"] /= 3
    assert list(slow_outliers(runs)["run"]) == ["8k-r1"]


def test_a_run_far_above_the_others_is_not_a_slow_disk():
    runs = _sweep(np.random.default_rng(7), rounds=9)
    runs.loc[runs["run"] == "8k-r4", "tpmc"] *= 3
    assert slow_outliers(runs).empty


def test_too_few_runs_flag_nothing():
    runs = pd.DataFrame([{"run": "4k-r1", "page_size": "4k", "tpmc": 1000.0},
                         {"run": "4k-r2", "page_size": "4k", "tpmc": 10.0}])
    assert slow_outliers(runs).empty and outlier_lines(runs) == []


def test_sound_sweeps_are_flagged_at_most_at_the_rules_rate():
    rng = np.random.default_rng(2026)
    sweeps = 100
    flagged = sum(not slow_outliers(_sweep(rng, rounds=9)).empty for _ in range(sweeps))
    # Bonferroni holds the family's two-sided error at 5%; one side of it is flagged
    assert flagged / sweeps <= OUTLIER_ALPHA, f"{flagged} of {sweeps} sound sweeps had a run flagged"
