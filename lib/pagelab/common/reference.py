"""The references' published numbers, transcribed into data/reference/*.csv (its README says from
where), read as pandas tables: the one reader of those files."""

from __future__ import annotations

# The five documents pagelab reproduces, each cited once here by what it is (author, title, venue,
# date, public address), as far as the document or its public page gives them; a field neither
# gives is said to be missing rather than guessed. The report, the CLI's help and the README's
# References (tests/test_plain_words.py compares them) say the same. Their numbers' files are named
# after the document too (week4_lab_*.csv, orientdb_ycsb.csv and so on).
CITATIONS = {
    "week4_lab": 'Hyuksoo Yeo, "Week#4 Effect of page size on performance", lab report for the course SWE3033 '
                 "Database Project (Sungkyunkwan University), Fall 2021 (the report is undated; the term is that of "
                 "the course guide it cites)",
    "orientdb": 'Andrii Lomakin, "[OEP 9] Use 16k pages for next versions of OrientDB by default", OrientDB '
                "enhancement proposal, September 2016, github.com/orientechnologies/orientdb-labs/issues/9",
    "sqlite": '"Experiment 053: Page size 8192", an experiment log of the resqlite library (SQLite page_size 4096 '
              "against 8192), 2026-04-15 (the log names no author and no public address)",
    "rethinkdb": 'RethinkDB, "Rethinking B-tree block sizes on SSDs", RethinkDB blog (no author named), October 2009, '
                 "rethinkdb.com/blog/rethinking-b-tree-block-sizes-on-ssds",
    "voron": 'Oren Eini (Ayende Rahien), "The cost of random writes", on the Voron storage engine, Ayende @ Rahien '
             "blog, ayende.com/blog/164870 (year not stated in the post; its follow-up is in the blog's December "
             "2013 archive)",
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
        raise UsageError(f"the reference's published table is missing: expected {path}; it is tracked in git, "
                         f"so restore it with: git checkout -- data/reference/{name}")
    return pd.read_csv(path)
