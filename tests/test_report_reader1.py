"""A fresh reader's gaps in a course report, each closed by the report saying it from the bundle's own
records: the title page's dates, profile and commits; the lab's claims a --set left unchecked; one
orientation per pair; a verdict inside the margin; the first-round check's floor; the model's floor
and its reference; what the family holds at 5%; the precision paragraph's design as run. Expected
figures are computed here from the records the test writes (bundles from bench/synthetic.py)."""

from __future__ import annotations

import json
import math

from tests.test_report_words import bundle, load


def _record(directory):
    from pagelab.bundle import SweepRecord

    return SweepRecord.load(directory)


def test_title_page_gives_the_sweeps_dates_its_set_and_both_commits(tmp_path):
    from pagelab.sweep.orchestrator import title_rows

    directory = bundle(tmp_path, profile={"overrides": ["over_time_s=0"], "description": "synthetic: about 2 hours"},
                       document={"machine": {"git_sha": "a" * 40, "git_dirty": False}})
    record = _record(directory)
    rows = dict(title_rows(record, rendering=("b" * 40, False)))
    # the bundle's runs: 21 of 150 s from 22:00:00, the last ending 20 x 150 + 140 s later
    last = 20 * 150 + 140
    assert rows["Sweep ran"] == f"2026-11-28 22:00 to {22 + last // 3600}:{last % 3600 // 60:02d} UTC (the date to cite)"
    assert "Date" not in rows and rows["Report made"]
    assert rows["Profile"] == "synthetic, with over_time_s=0 (set for this sweep)"
    assert "about 2 hours" not in rows["Profile"]
    assert rows["pagelab (sweep)"].startswith("0.1.0+gaaaaaaa (commit " + "a" * 40)
    assert rows["pagelab (report)"].startswith("0.1.0+gbbbbbbb ")
    # made by the same commit: one row, as before
    same = dict(title_rows(record, rendering=("a" * 40, False)))
    assert "pagelab (report)" not in same and same["pagelab"].startswith("0.1.0+gaaaaaaa")
