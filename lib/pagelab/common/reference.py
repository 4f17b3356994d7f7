"""The references' published numbers, transcribed into data/reference/<seed>_<what>.csv (its README
says from where), read as pandas tables: the one reader of those files."""

from __future__ import annotations

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
