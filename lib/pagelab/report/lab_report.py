"""The data a sweep's lab report is made from: its bundle read once (`load`), the pairs of page sizes
as the verdict lines give them, and a table as a reader wants it (`present`).

The Week 4 lab is itself a lab report (Introduction, Methods, Experimental Setup, Results, Conclusion,
References); the report notebook (notebooks/tpcc_page_size_report.ipynb) follows that outline and takes
every sentence that depends on the data from the modules beside this one, so the text cannot disagree
with the numbers: the answer and the Conclusion (`answer`), the lab's claims checked in the Discussion
(`claims`), the Method (`method`), the Setup's tables (`setup_tables`), the hosts and nodes (`host_report`),
the References and Glossary (`references`), the notes and appendix (`appendix`). They all read the
`ReportData` made here, so this module changes only when what a bundle holds changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from pagelab.bundle import SweepRecord, load_tables, read_runs
from pagelab.evidence.families import NOT_TESTED
from pagelab.evidence.runs import RunTable
from pagelab.evidence.medians import page_size_table
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.wording import number_text

@dataclass
class ReportData:
    sweep_dir: Path
    record: SweepRecord
    tables: dict  # the verdict runs' tidy tables (pagelab.bundle.load_tables)
    evidence: RunTable
    per_size: pd.DataFrame
    pairs: pd.DataFrame
    # The tables the figures over time are drawn from: the over-time runs' (knob over_time_s), or,
    # in a sweep without them, the verdict runs' own.
    over_time: dict | None = None
    # {host: its data disk's random-read record} (pagelab.machine.disk_speed, knob disk_profile);
    # {} for a bundle made without it.
    disk_profiles: dict = field(default_factory=dict)

    @property
    def has_over_time_runs(self) -> bool:
        return self.over_time is not self.tables

    @property
    def profile(self) -> dict:
        return self.record.document["profile"]

    @property
    def profile_name(self) -> str:
        """The profile the sweep was made from (sweep.json's profile_name; older bundles kept it in the
        profile), '' when neither says."""
        return str(self.record.document.get("profile_name") or self.profile.get("profile") or "")

    @property
    def page_sizes(self) -> list[str]:
        return self.evidence.page_order


def load(sweep_dir: str | Path) -> ReportData:
    """Everything the report shows, from sweep.json read once."""
    from pagelab.evidence.grid import grid_factors
    from pagelab.evidence.pairs import PAIR_COLUMNS
    from pagelab.machine.disk_speed import read_records

    record = SweepRecord.load(sweep_dir)
    evidence = read_runs(record)
    # A grid's page sizes are compared within each level of its other factor (report.grid_report);
    # pooled over the levels, round by round, they would pair runs of different pools.
    pairs = pd.DataFrame(columns=PAIR_COLUMNS) if grid_factors(evidence) else pairwise_table(evidence)
    every = load_tables(record)
    tables = {name: _with_role(frame, "verdict") for name, frame in every.items()}
    long_runs = {name: _with_role(frame, "over_time") for name, frame in every.items()}
    over_time = long_runs if not long_runs["summary"].empty else tables
    return ReportData(Path(sweep_dir), record, tables, evidence, page_size_table(evidence), pairs, over_time,
                      disk_profiles=read_records(sweep_dir))


def _with_role(frame: pd.DataFrame, role: str) -> pd.DataFrame:
    """The rows of runs of one role (a bundle made before roles has only verdict runs)."""
    if frame.empty or "role" not in frame:
        return frame if role == "verdict" else frame.iloc[0:0]
    return frame[frame["role"] == role].reset_index(drop=True)


# A text cell's word longer than this (optimizer_switch, a full commit) may break anywhere, so that it
# cannot widen its table past the page and shrink the whole table to fit.
LONGEST_WORD = 40


# --- tables as a reader wants them --------------------------------------------------------------------


def present(frame: pd.DataFrame, columns: dict[str, tuple[str, int | None]], caption: str | None = None):
    """`frame` with only `columns` ({name: (header with unit, decimals or None for text)}), no
    index, thousands separators, fixed decimals; a pandas Styler, which the notebook shows as HTML.
    Text cells are shown whole (a full commit, which a citation needs, a knob's reason, the course's
    "not set by the course guide (its server's default)"), wrapped anywhere if need be: a value longer
    than a line with no space in it (optimizer_switch) would otherwise shrink the whole table to fit."""
    shown = frame[[name for name in columns if name in frame]].rename(
        columns={name: header for name, (header, _) in columns.items()})
    texts = [header for name, (header, decimals) in columns.items() if decimals is None and name in frame]
    formats = {header: partial(number_text, decimals=decimals) for name, (header, decimals) in columns.items()
               if decimals is not None and name in frame}
    styler = shown.style.hide(axis="index").format(formats, na_rep="—")
    if texts:
        styler = styler.set_properties(subset=texts, **{"text-align": "left", "white-space": "normal"})
        # only a cell with a word too long for a column breaks inside words: breaking anywhere in every
        # cell lets the browser squeeze a column of short settings into broken words
        styler = styler.map(lambda v: "overflow-wrap: anywhere" if isinstance(v, str) and
                            max(map(len, v.split()), default=0) > LONGEST_WORD else "", subset=texts)
    if caption:
        styler = styler.set_caption(caption)
    return styler


# --- the pairs of page sizes, as the verdict lines give them -------------------------------------------


def tpmc_rows(data: ReportData) -> pd.DataFrame:
    return data.per_size[(data.per_size["metric"] == "tpmc") & (data.per_size["runs"] > 0)]


def pair_of(data: ReportData, metric: str, a: str, b: str) -> dict | None:
    """The comparison of a against b, whichever order the table holds them in (ratios inverted)."""
    rows = data.pairs[(data.pairs["metric"] == metric)]
    for row in rows.to_dict("records"):
        if (row["a"], row["b"]) == (a, b):
            return row
        if (row["a"], row["b"]) == (b, a):
            flipped = dict(row, a=a, b=b)
            for key in ("change_pct", "low_pct", "high_pct"):
                flipped[key] = 100 * (1 / (1 + row[key] / 100) - 1) if not math.isnan(row[key]) else math.nan
            flipped["low_pct"], flipped["high_pct"] = flipped["high_pct"], flipped["low_pct"]
            words = {"faster": "slower", "slower": "faster", "higher": "lower", "lower": "higher"}
            flipped["verdict"] = words.get(row["verdict"], row["verdict"])
            return flipped
    return None


def listed_pair(data: ReportData, metric: str, x: str, y: str) -> dict | None:
    """The pair of x and y as the pairs table and verdict lines hold it ("16k vs 8k", whichever order
    x and y come in): every sentence quotes a pair in this one orientation, so one pair has one effect."""
    rows = data.pairs[data.pairs["metric"] == metric]
    for row in rows.to_dict("records"):
        if {row["a"], row["b"]} == {x, y}:
            return row
    return None


def over_time_block_pairs(data: ReportData) -> tuple[list[str], int]:
    """The TpmC pairs whose lines counted the over-time runs as one block more ('16k vs 4k'; the
    two-level model does where the pair's two runs share a verdict run's length of what passed MSER-5
    and the drift test), primary first, and how many TpmC pairs there are: their methods say so."""
    from pagelab.evidence.model import OVER_TIME_BLOCK_WORDS

    tpmc = data.pairs[data.pairs["metric"] == "tpmc"] if "metric" in data.pairs else data.pairs
    if tpmc.empty:
        return [], 0
    from pagelab.evidence.wording import primary_first

    rows = primary_first(tpmc)
    return [f"{row['a']} vs {row['b']}" for row in rows if OVER_TIME_BLOCK_WORDS in str(row.get("method"))], len(rows)


def over_time_block_counted(data: ReportData) -> bool:
    """Whether any of TpmC's lines counted the over-time runs as one block more (`over_time_block_pairs`)."""
    return bool(over_time_block_pairs(data)[0])


def pair_text(row: dict, names: bool = True) -> str:
    """'16k vs 8k −6.2% [−12.3%, +0.39%] (97.5% CI), not tested': a pair as its verdict line gives it
    (without `names`, from the effect on)."""
    from pagelab.evidence.wording import interval_text, pct_text

    interval = "" if math.isnan(row["low_pct"]) else " " + interval_text(row["low_pct"], row["high_pct"],
                                                                         row.get("confidence_pct"))
    effect = f"{pct_text(row['change_pct'])}{interval}, {pair_word(row)}"
    return f"{row['a']} vs {row['b']} {effect}" if names else effect


def pair_word(row: dict) -> str:
    """The pair's word as its verdict line gives it: 'not tested' for a pair after a primary
    comparison that was not called, not the 'not resolved' its verdict column holds."""
    if row.get("role") == NOT_TESTED:
        return "not tested"
    from pagelab.evidence.wording import verdict_words

    return verdict_words(row)


def summary_values(data: ReportData, column: str) -> list:
    summary = data.tables["summary"]
    return [] if summary.empty or column not in summary else list(summary[column].dropna())


def shipped_profile_values(name: str, knobs: list[str]) -> dict | None:
    """The knobs' values in the profile file of that name as this pagelab ships it (None when there is
    none), for a bundle from before sweep.json recorded them (its `changed_knobs`, its planned_* knobs)."""
    import yaml

    from pagelab.common.paths import PROFILES_DIR

    path = PROFILES_DIR / f"{name}.yaml"
    if not name or not path.is_file():
        return None
    raw = yaml.safe_load(path.read_text()) or {}
    return {knob: raw[knob] for knob in knobs if knob in raw}
