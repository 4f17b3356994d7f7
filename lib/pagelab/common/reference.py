"""The references' published numbers, transcribed into data/reference/<seed>_<what>.csv (its README
says from where), read as pandas tables: the one reader of those files."""

from __future__ import annotations

# The five documents pagelab reproduces, each cited once here by what it is (author, title, venue,
# year, as far as the document gives them); the report, the CLI's help and the README's References
# (tests/test_plain_words.py compares them) say the same. Their numbers' files keep the project's
# own numbering (seed002_*.csv and so on), which no reader needs.
CITATIONS = {
    "week4_lab": 'Hyuksoo Yeo, "Week#4 Effect of page size on performance", lab report for the SWE3033 course '
                 "(Sungkyunkwan University), Fall 2021",
    "orientdb": 'Andrii Lomakin, "[OEP 9] Use 16k pages for next versions of OrientDB by default", OrientDB '
                "enhancement proposal, 2016",
    "sqlite": '"Experiment 053: Page size 8192", the resqlite library\'s experiment log (SQLite page_size 4096 '
              "against 8192), 2026-04-15",
    "rethinkdb": 'RethinkDB, "Rethinking B-tree block sizes on SSDs", RethinkDB blog, October 2009',
    "voron": 'Oren Eini (Ayende Rahien), "The cost of random writes", on the Voron storage engine, Ayende @ Rahien '
             "blog",
}

from pagelab.common.errors import UsageError
from pagelab.common.paths import REFERENCE_DIR


def reference_table(name: str, missing_ok: bool = False):
    """data/reference/`name` as a DataFrame; a missing file is a UsageError naming it, or an empty
    table with `missing_ok`."""
    import pandas as pd

    path = REFERENCE_DIR / name
    if not path.exists():
        if missing_ok:
            return pd.DataFrame()
        raise UsageError(f"the seed's table is missing: expected {path}")
    return pd.read_csv(path)
