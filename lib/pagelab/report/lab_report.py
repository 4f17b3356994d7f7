"""The words and tables of a sweep's lab report, generated from its bundle.

The Week 4 lab is itself a lab report (Introduction, Methods, Experimental Setup, Results, Conclusion,
References); the report notebook (notebooks/tpcc_page_size_report.ipynb) follows that outline
and takes every sentence that depends on the data from here, so the text cannot disagree with
the numbers. The verdicts come from pagelab.evidence: no sentence calls a difference real unless
the runs support it. The notes and the appendix are in pagelab.report.appendix.

The lab's claims checked in the Discussion, in the lab's own order:

    read_request   the average read request equals the page size
    iops_fall      IOPS falls slightly as the page size grows
    hit_ratio      the hit ratio starts near 990/1000 and settles near 993
    best_8k        TpmC 3,518 -> 3,898 -> 3,758 at 4k/8k/16k, so 8k is best
    similar        transaction throughput is similar no matter the page size

Each is checked only where the sweep ran the lab's configuration (pagelab.report.seed_configuration;
elsewhere "not checked here", with the differences); a sweep with a second factor answers with the
page-size effect across it (pagelab.report.grid_report).
"""

from __future__ import annotations

import math
from functools import partial
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pagelab.evidence.families import NOT_TESTED
from pagelab.evidence.intervals import EQUIVALENT, NOT_RESOLVED, verdict_text
from pagelab.evidence.runs import RunTable, equivalence_of
from pagelab.evidence.medians import page_size_table
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.wording import interval_text, number_text, pct_text, unresolved_advice
from pagelab.bundle import ROUND_ORDER_DRAWN, SweepRecord, load_tables, read_runs
from pagelab.common.reference import CITATIONS
from pagelab.common.units import size_text
from pagelab.report.grid_report import (PERCONA_DIRECTION, grid_answer, grid_factor,  # noqa: F401 (the notebook's)
                                        levels_text, pool_level_labels)
from pagelab.report.read_requests import read_request_findings
from pagelab.report.seed_configuration import (  # noqa: F401 (the notebook's)
    CHECKING_PROFILE, CONFIGURATION_DEPENDENCE, differences_from_seed, memory_budget_sentence,
    not_applicable_sentence, over_time_sentence, pool_share_pct, recorded_configuration, server_setting_rows,
)

HOLDS, DOES_NOT_HOLD, NOT_RESOLVED_HERE = "holds", "does not hold", "not resolved here"
# A claim about the lab's configuration, where this sweep's configuration is another.
NOT_CHECKED = "not checked here"
VERDICT_WORDS = (HOLDS, DOES_NOT_HOLD, NOT_RESOLVED_HERE, NOT_CHECKED)
# "The average read request equals the page size": within this share of it.
REQUEST_SIZE_TOLERANCE = 0.10
# The lab's hit ratio: "starts near 990, settles near 993" (per 1000); near = within this.
HIT_RATIO_NEAR = 3.0
SEED_HIT_START, SEED_HIT_END = 990.0, 993.0
# Text cells are cut here: one long value (optimizer_switch) would shrink a whole table to fit.
TEXT_CELL_CHARS = 48
# A run shorter than this measures start-up, not a page size: the report says so on page 1.
SHORTEST_MEANINGFUL_MEASURE_S = 60

REFERENCES = [
    CITATIONS["week4_lab"] + "; the course's labs: https://github.com/meeeejin/SWE3033-F2021 (week-4).",
    "Percona-Lab, tpcc-mysql: https://github.com/Percona-Lab/tpcc-mysql (the driver whose statements, "
    "transaction boundaries and log format pagelab's default driver mode reproduces).",
    "V. Tkachenko, \"Small innodb_page_size as a performance boost for SSD\", Percona blog, 2016-08-10: "
    "https://www.percona.com/blog/2016/08/10/small-innodb_page_size-performance-boost-ssd/ (tpcc-mysql, 4k against "
    "16k pages at buffer pools from 5 GiB up, on three SSDs).",
    "Transaction Processing Performance Council, TPC Benchmark C Standard Specification, revision 5.11 "
    "(2010): https://www.tpc.org/tpcc/",
    "A. Maricq, D. Duplyakin, I. Jimenez, C. Maltzahn, R. Stutsman, R. Ricci, \"Taming Performance "
    "Variability\", OSDI 2018.",
    "T. Hoefler, R. Belli, \"Scientific Benchmarking of Parallel Computing Systems\", SC 2015.",
    "K. P. White Jr., \"An effective truncation heuristic for bias reduction in simulation output\", "
    "Simulation 69(6), 1997 (MSER).",
    "B. Efron, R. J. Tibshirani, \"An Introduction to the Bootstrap\", Chapman & Hall, 1993 (the percentile "
    "interval of a ratio of medians).",
    "H. B. Mann, D. R. Whitney, \"On a test of whether one of two random variables is stochastically larger "
    "than the other\", Annals of Mathematical Statistics 18(1), 1947 (runs compared one by one).",
    "F. Wilcoxon, \"Individual comparisons by ranking methods\", Biometrics Bulletin 1(6), 1945 (the "
    "signed-rank test: rounds compared pair by pair).",
    "S. Holm, \"A simple sequentially rejective multiple test procedure\", Scandinavian Journal of Statistics "
    "6(2), 1979 (the p-values of a family of pairs, adjusted with statsmodels' multipletests).",
    "O. J. Dunn, \"Multiple comparisons among means\", Journal of the American Statistical Association 56, 1961 "
    "(the Bonferroni-adjusted level of a family's intervals).",
    "D. J. Schuirmann, \"A comparison of the two one-sided tests procedure and the power approach for assessing "
    "the equivalence of average bioavailability\", Journal of Pharmacokinetics and Biopharmaceutics 15(6), 1987 "
    "(equivalence within a stated margin).",
    "T. Kalibera, R. Jones, \"Rigorous Benchmarking in Reasonable Time\", ISMM 2013 (effect sizes with "
    "their intervals first).",
    "P. H. Westfall, S. S. Young, \"Resampling-Based Multiple Testing\", Wiley 1993 (the max-T permutation test "
    "of the sweep's A/A check).",
    "B. L. Welch, \"The generalization of 'Student's' problem when several different population variances are "
    "involved\", Biometrika 34, 1947 (the degrees of freedom of the difference of two estimates of the two-level "
    "model: the A/A check of the pair effects, and two sweeps compared).",
    "F. G. Giesbrecht, J. C. Burns, \"Two-stage analysis based on a mixed model: large-sample asymptotic theory "
    "and small-sample simulation results\", Biometrics 41(2), 1985 (TpmC's two-level model: the rounds' mean "
    "log-ratio with a t interval on the rounds less one).",
    "W. Maurer, L. A. Hothorn, W. Lehmacher, \"Multiple comparisons in drug clinical trials and preclinical "
    "assays: a-priori ordered hypotheses\", 1995; P. H. Westfall, A. Krishen, \"Optimally weighted, fixed "
    "sequence and gatekeeper multiple testing procedures\", Journal of Statistical Planning and Inference 99, "
    "2001 (the declared primary comparison tested first, the other pairs only after it).",
    "K. K. G. Lan, D. L. DeMets, \"Discrete sequential boundaries for clinical trials\", Biometrika 70(3), 1983 "
    "(the group-sequential boundary of a sweep given more rounds).",
    "R. D. Cook, S. Weisberg, \"Residuals and Influence in Regression\", Chapman and Hall 1982 (the outlier test "
    "that names a run far below its page size's others, as a slow disk leaves one).",
]


def recorded_version(machine: dict) -> str:
    """The pagelab version a bundle was made with, from the commit its machine record names."""
    from pagelab.machine.system import version_naming

    sha, dirty = machine.get("git_sha"), machine.get("git_dirty")
    if not sha:
        return version_naming(sha, dirty) + " (commit not recorded)"
    return version_naming(sha, dirty) + f" (commit {sha}" + (", with local changes)" if dirty else ")")


def glossary_markdown() -> str:
    """The glossary's entries (runbooks/glossary.md, where they are written once), for the report's
    Glossary; its links, which lead nowhere in a PDF, become their words."""
    import re

    from pagelab.common.paths import GLOSSARY

    text = GLOSSARY.read_text()
    entries = text[text.index("\n- **") + 1:]
    return ("The words this report uses with a precise meaning, as pagelab's glossary (runbooks/glossary.md) "
            "defines them:\n\n" + re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", entries))


def references(machine: dict) -> list[str]:
    """The report's References: the works it reproduces and relies on, and the pagelab that made it."""
    return [*REFERENCES, f"pagelab {recorded_version(machine)}: reproducible experiments on how a database's page "
                         "size changes its performance, MIT License. No public release, DOI or repository address: the "
                         "commit identifies the code; its CITATION.cff says how to cite it."]


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

    @property
    def has_over_time_runs(self) -> bool:
        return self.over_time is not self.tables

    @property
    def profile(self) -> dict:
        return self.record.document["profile"]

    @property
    def page_sizes(self) -> list[str]:
        return self.evidence.page_order


def load(sweep_dir: str | Path) -> ReportData:
    """Everything the report shows, from sweep.json read once."""
    from pagelab.evidence.grid import grid_factors
    from pagelab.evidence.pairs import PAIR_COLUMNS

    record = SweepRecord.load(sweep_dir)
    evidence = read_runs(record)
    # A grid's page sizes are compared within each level of its other factor (report.grid_report);
    # pooled over the levels, round by round, they would pair runs of different pools.
    pairs = pd.DataFrame(columns=PAIR_COLUMNS) if grid_factors(evidence) else pairwise_table(evidence)
    every = load_tables(record)
    tables = {name: _with_role(frame, "verdict") for name, frame in every.items()}
    long_runs = {name: _with_role(frame, "over_time") for name, frame in every.items()}
    over_time = long_runs if not long_runs["summary"].empty else tables
    return ReportData(Path(sweep_dir), record, tables, evidence, page_size_table(evidence), pairs, over_time)


def _with_role(frame: pd.DataFrame, role: str) -> pd.DataFrame:
    """The rows of runs of one role (a bundle made before roles has only verdict runs)."""
    if frame.empty or "role" not in frame:
        return frame if role == "verdict" else frame.iloc[0:0]
    return frame[frame["role"] == role].reset_index(drop=True)


# --- tables as a reader wants them --------------------------------------------------------------------


def present(frame: pd.DataFrame, columns: dict[str, tuple[str, int | None]], caption: str | None = None):
    """`frame` with only `columns` ({name: (header with unit, decimals or None for text)}), no
    index, thousands separators, fixed decimals; a pandas Styler, which the notebook shows as HTML."""
    shown = frame[[name for name in columns if name in frame]].rename(
        columns={name: header for name, (header, _) in columns.items()})
    texts = [header for name, (header, decimals) in columns.items() if decimals is None and name in frame]
    for header in texts:  # a value longer than a line (optimizer_switch) would shrink the whole table
        shown[header] = shown[header].map(lambda v: v if not isinstance(v, str) or len(v) <= TEXT_CELL_CHARS
                                          else v[:TEXT_CELL_CHARS - 1] + "…")
    formats = {header: partial(number_text, decimals=decimals) for name, (header, decimals) in columns.items()
               if decimals is not None and name in frame}
    styler = shown.style.hide(axis="index").format(formats, na_rep="—")
    if texts:
        styler = styler.set_properties(subset=texts, **{"text-align": "left"})
    if caption:
        styler = styler.set_caption(caption)
    return styler


# --- what was found ----------------------------------------------------------------------------------


def _tpmc_rows(data: ReportData) -> pd.DataFrame:
    return data.per_size[(data.per_size["metric"] == "tpmc") & (data.per_size["runs"] > 0)]


def _pair(data: ReportData, metric: str, a: str, b: str) -> dict | None:
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


def is_chain_check(data: ReportData) -> bool:
    measured = data.profile.get("measure_s")
    return data.record.document.get("profile_name") == "smoke" or (
        isinstance(measured, int) and measured < SHORTEST_MEANINGFUL_MEASURE_S and data.profile.get("repeats", 1) < 2)


def _word(row: dict) -> str:
    """The pair's word as its verdict line gives it: 'not tested' for a pair after a primary
    comparison that was not called, not the 'not resolved' its verdict column holds."""
    if row.get("role") == NOT_TESTED:
        return "not tested"
    return verdict_text(row["verdict"], row["equivalence_pct"])


def answer(data: ReportData) -> str:
    """One sentence: which page size is best here, and is that a real difference."""
    rows = _tpmc_rows(data)
    if rows.empty:
        return "No run finished, so this sweep cannot say which page size is best."
    if grid_factor(data):
        return grid_answer(data)
    best = rows.loc[rows["median"].idxmax()]
    others = [size for size in data.page_sizes if size != best["page_size"] and size in set(rows["page_size"])]
    if not others:
        return f"Only {best['page_size']} has finished runs ({best['median']:,.0f} TpmC): nothing to compare."
    # Each other page size against the best, the direction of the verdict lines ("16k vs 4k: -30.6%").
    comparisons = [_pair(data, "tpmc", other, best["page_size"]) for other in others]
    parts = []
    for other, row in zip(others, comparisons):
        if row is None:
            continue
        interval = "" if math.isnan(row["low_pct"]) else " " + interval_text(row["low_pct"], row["high_pct"],
                                                                             row.get("confidence_pct"))
        parts.append(f"{other} {pct_text(row['change_pct'])}{interval}, {_word(row)}")
    real = all(row is not None and row["verdict"] == "slower" for row in comparisons)
    runs = int(best["runs"])
    head = _primary_sentence(data) + (f"{best['page_size']} had the highest median TpmC ({best['median']:,.0f}, {runs} run"
            f"{'s' if runs != 1 else ''} per page size); against it, {'; '.join(parts)}. ")
    if real:
        return head + f"The data support {best['page_size']} as the fastest page size on this machine."
    if runs < 4:
        return head + ("With fewer than 4 runs per page size no difference can be told from noise; "
                       "this ranking is not a finding.")
    untested = [other for other, row in zip(others, comparisons) if row is not None and row.get("role") == NOT_TESTED]
    why_untested = (f"{best['page_size']} against {' and '.join(untested)} was not tested, as the primary comparison "
                    "was not called faster or slower") if untested else ""
    unresolved = [(other, row) for other, row in zip(others, comparisons)
                  if row is not None and row["verdict"] == NOT_RESOLVED and row.get("role") != NOT_TESTED]
    if unresolved:
        other, row = unresolved[0]
        return head + (f"Whether {best['page_size']} is ahead of {other} is not resolved: {unresolved_advice(row)}"
                       f"{'; ' + why_untested if why_untested else ''}.")
    if untested:
        return head + f"{why_untested[0].upper()}{why_untested[1:]}: this sweep makes no claim that it is the fastest."
    return head + "Not every other page size is slower, so no single page size is the fastest here."


def _primary_sentence(data: ReportData) -> str:
    """The comparison declared before the sweep, first, as its verdict line gives it: it is the
    question the sweep was for, and the other pairs' words depend on it. Empty when none was declared."""
    from pagelab.evidence.families import primary_pair

    declared = primary_pair(str(data.profile.get("primary") or ""))
    row = _pair(data, "tpmc", *declared) if declared else None
    if row is None or math.isnan(row["change_pct"]):
        return ""
    interval = "" if math.isnan(row["low_pct"]) else " " + interval_text(row["low_pct"], row["high_pct"],
                                                                         row.get("confidence_pct"))
    return (f"The comparison declared before the sweep, {declared[0]} vs {declared[1]}: TpmC "
            f"{pct_text(row['change_pct'])}{interval}, {_word(row)}. ")


@dataclass(frozen=True)
class Claim:
    key: str
    statement: str
    verdict: str
    evidence: str
    where: str


def _not_checked(statement_claim: Claim, differences: list[str]) -> Claim:
    return Claim(statement_claim.key, statement_claim.statement, NOT_CHECKED,
                 f"this sweep's configuration is not the lab's: {'; '.join(differences)}. The "
                 f"`{CHECKING_PROFILE}` profile runs the lab's configuration and checks it", statement_claim.where)


def claims(data: ReportData) -> list[Claim]:
    """The Week 4 lab's claims, each checked against this sweep where its configuration is the lab's
    (see the module comment and CONFIGURATION_DEPENDENCE)."""
    checked = []
    for check in (_read_request, _iops_fall, _hit_ratio, _best_8k, _similar):
        claim = check(data)
        needs = CONFIGURATION_DEPENDENCE[claim.key]
        over_time = needs == "over time"
        differences = differences_from_seed(recorded_configuration(data, over_time), over_time) if needs else []
        checked.append(_not_checked(claim, differences) if differences else claim)
    return checked


def _read_request(data: ReportData) -> Claim:
    from pagelab.report.figures import request_sizes

    iostat = data.tables["iostat"]
    sizes = request_sizes(iostat[iostat["t_s"] >= 0] if not iostat.empty else iostat)
    statement = "The average read request equals the page size."
    if sizes.empty or sizes["read_kb"].isna().all():
        return Claim("read_request", statement, NOT_RESOLVED_HERE, "no iostat samples were taken", "Table 4")
    ratios = sizes["read_kb"] / sizes["page_kb"]
    within = (ratios - 1).abs() <= REQUEST_SIZE_TOLERANCE
    text = ", ".join(f"{row.page_size}: {row.read_kb:.1f} KiB" for row in sizes.itertuples())
    verdict = HOLDS if within.all() else DOES_NOT_HOLD
    # where it does not hold, what the bundle recorded of why (block-layer merges, InnoDB's read-ahead)
    found = read_request_findings(data) if verdict == DOES_NOT_HOLD else ""
    why = f". {found.rstrip('.')}" if found else ""
    return Claim("read_request", statement, verdict,
                 f"mean read request per page size {text} (the claim holds where it is within "
                 f"{REQUEST_SIZE_TOLERANCE:.0%} of the page size){why}", "Figure 4, Table 4")


def _iops_fall(data: ReportData) -> Claim:
    statement = "IOPS falls slightly as the page size grows."
    first, last = data.page_sizes[0], data.page_sizes[-1]
    row = _pair(data, "read_iops", last, first)
    if row is None or math.isnan(row["change_pct"]):
        return Claim("iops_fall", statement, NOT_RESOLVED_HERE, "no read IOPS on one side", "Figure 3")
    verdict = {"lower": HOLDS, "higher": DOES_NOT_HOLD, EQUIVALENT: DOES_NOT_HOLD}.get(row["verdict"], NOT_RESOLVED_HERE)
    interval = "" if math.isnan(row["low_pct"]) else " " + interval_text(row["low_pct"], row["high_pct"],
                                                                         row.get("confidence_pct"))
    return Claim("iops_fall", statement, verdict,
                 f"read IOPS {last} against {first}: {pct_text(row['change_pct'])}{interval}, "
                 f"{_word(row)}", "Figure 3")


def _hit_ratio(data: ReportData) -> Claim:
    statement = "The buffer-pool hit ratio starts near 990/1000 and settles near 993."
    innodb = (data.over_time or data.tables)["innodb"]
    if innodb.empty or "hit_rate" not in innodb or innodb["hit_rate"].dropna().empty:
        return Claim("hit_ratio", statement, NOT_RESOLVED_HERE, "no InnoDB status samples with a hit rate", "Figure 5")
    measured = innodb.dropna(subset=["hit_rate"])
    measured = measured[measured["t_s"] >= 0]
    parts, near = [], True
    for size in data.page_sizes:
        series = measured[measured["page_size"] == size].sort_values("t_s")
        if series.empty:
            continue
        start = series.groupby("repeat")["hit_rate"].first().median()
        end = series.groupby("repeat")["hit_rate"].last().median()
        close = abs(start - SEED_HIT_START) <= HIT_RATIO_NEAR and abs(end - SEED_HIT_END) <= HIT_RATIO_NEAR
        parts.append(f"{size}: {start:.0f} → {end:.0f}{'' if close else ' (not near)'}")
        near &= close
    verdict = HOLDS if near else DOES_NOT_HOLD
    return Claim("hit_ratio", statement, verdict,
                 f"first and last measured hit rate per 1000, median over repeats: {'; '.join(parts)} "
                 f"(near = within {HIT_RATIO_NEAR:g})", "Figure 5")


def _best_8k(data: ReportData) -> Claim:
    statement = "TpmC goes 3,518 → 3,898 → 3,758 at 4k / 8k / 16k, so 8k is best."
    if "8k" not in data.page_sizes:
        return Claim("best_8k", statement, NOT_RESOLVED_HERE, "this sweep has no 8k runs", "Figure 1")
    rows = [(other, _pair(data, "tpmc", "8k", other)) for other in ("4k", "16k") if other in data.page_sizes]
    verdicts = [row["verdict"] for _, row in rows if row is not None]
    if verdicts and all(v == "faster" for v in verdicts):
        verdict = HOLDS
    elif any(v == "slower" for v in verdicts):
        verdict = DOES_NOT_HOLD
    else:
        verdict = NOT_RESOLVED_HERE
    text = "; ".join(f"8k against {other}: {pct_text(row['change_pct'])}, {_word(row)}"
                     for other, row in rows if row)
    return Claim("best_8k", statement, verdict, text, "Figure 1")


def _similar(data: ReportData) -> Claim:
    """Holds when every pair of page sizes is equivalent within the bundle's margin (the interval
    inside ±equivalence_pct); does not hold when a pair is resolved faster or slower; else the runs
    cannot decide, and the runs the margin would need are said."""
    statement = "Transaction throughput is similar no matter the page size."
    rows = data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records")
    if not rows:
        return Claim("similar", statement, NOT_RESOLVED_HERE, "fewer than two page sizes finished", "Figure 1")
    delta = equivalence_of(data.evidence)
    apart = [r for r in rows if r["verdict"] in ("faster", "slower")]
    if all(r["verdict"] == EQUIVALENT for r in rows):
        verdict = HOLDS
    elif apart:
        verdict = DOES_NOT_HOLD
    else:
        verdict = NOT_RESOLVED_HERE
    text = "; ".join(f"{r['a']}/{r['b']} {pct_text(r['change_pct'])}, {_word(r)}"
                     for r in rows)
    needed = [r["runs_for_equivalence"] for r in rows if r["verdict"] == NOT_RESOLVED
              and r["runs_for_equivalence"] is not None and not pd.isna(r["runs_for_equivalence"])]
    more = (f"; equivalence within ±{delta:g}% for every pair would need about {int(max(needed))} runs a side "
            "(rounds when paired)" if needed and verdict == NOT_RESOLVED_HERE else "")
    return Claim("similar", statement, verdict,
                 f"TpmC ratios {text}; similar = every pair equivalent within ±{delta:g}% (the interval inside "
                 f"the margin){more}", "Figure 1")


def discussion_markdown(found: list[Claim]) -> str:
    lines = []
    for number, claim in enumerate(found, start=1):
        lines.append(f"{number}. *\"{claim.statement}\"* — **{claim.verdict}**. {claim.evidence[0].upper()}"
                     f"{claim.evidence[1:]} ({claim.where}).")
    return "\n".join(lines)


def conclusion_markdown(data: ReportData, found: list[Claim]) -> str:
    held = [c for c in found if c.verdict == HOLDS]
    failed = [c for c in found if c.verdict == DOES_NOT_HOLD]
    open_ = [c for c in found if c.verdict == NOT_RESOLVED_HERE]
    unchecked = [c for c in found if c.verdict == NOT_CHECKED]
    text = [answer(data)]
    def listed(group: list[Claim]) -> str:
        return ", ".join(f"\u201c{c.statement.rstrip('.')}\u201d" for c in group)

    parts = [f"{label} {listed(group)}" for label, group in
             (("these hold here:", held), ("these do not hold here:", failed), ("these the runs cannot decide:", open_),
              (f"these are about the lab's configuration, which this sweep did not run as the `{CHECKING_PROFILE}` "
               "profile does (the Discussion says how it differs):", unchecked))
             if group]
    text.append("Of the Week 4 lab's five observations, " + "; ".join(parts) + ".")
    return " ".join(text)


# --- method and set-up ------------------------------------------------------------------------------


def _summary_values(data: ReportData, column: str) -> list:
    summary = data.tables["summary"]
    return [] if summary.empty or column not in summary else list(summary[column].dropna())


def method_markdown(data: ReportData) -> str:
    profile = data.profile
    db = _summary_values(data, "db_bytes")
    pools = _summary_values(data, "buffer_pool_bytes")
    pool_text = str(profile.get("buffer_pool"))
    summary = data.tables["summary"]
    if isinstance(profile.get("buffer_pool"), list) and "level_buffer_pool" in summary:
        # a grid over the pool: each level's bytes, the same for every page size
        levels = summary.groupby("level_buffer_pool", sort=False)["buffer_pool_bytes"].median()
        shown = [f"{level} ({size_text(levels[level])})" for level in profile["buffer_pool"] if level in levels]
        pool_text = (", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else "".join(shown)) + \
            ", one level of the grid per run"
    elif db and pools:
        pool_text = f"{size_text(max(pools))} ({pool_share_pct(pools, db):.0f}% of the largest loaded database)"
    if profile.get("rampup_s") == "auto":
        # runs from before a pool still filling could take the ramp-up past the cap record no ceiling
        ceilings = _summary_values(data, "rampup_ceiling_s")
        extension = f", or {max(ceilings):g} s while the pool was still filling" if ceilings else ""
        rampup = (f"ramp-up until steady state (the buffer pool no longer filling, and MSER-5 finding the rows "
                  f"written and pages read per second level; at most {profile.get('max_rampup_s')} s{extension})")
        taken = _summary_values(data, "rampup_s")
        if taken:
            shortest, longest = round(min(taken)), round(max(taken))
            rampup += (f", which took {shortest}-{longest} s" if shortest != longest
                       else f", which took {shortest} s in every run")
            ended = summary["rampup_ended_by"].value_counts() if "rampup_ended_by" in summary else pd.Series(dtype=int)
            past_cap = int(ended.get("filled", 0) + ended.get("ceiling", 0))
            if past_cap:
                rampup += (f"; in {past_cap} of {len(taken)} runs the pool was still filling at the cap, and the "
                           f"ramp-up went on until it stopped" + (f" ({int(ended['ceiling'])} reached twice the cap)"
                                                              if ended.get("ceiling", 0) else ""))
            elif shortest >= profile.get("max_rampup_s", float("inf")):
                rampup += " (the cap ended every ramp-up)"
    else:
        rampup = f"{profile.get('rampup_s')} s of ramp-up"
    if profile.get("measure_s") == "auto":
        measure = (f"measurement until the 95% batch-means interval of TpmC was within {profile.get('target_ci_pct')}% "
                   f"(at most {profile.get('max_measure_s')} s)")
    else:
        measure = f"{profile.get('measure_s')} s measured"
    sizes = ", ".join(data.page_sizes)
    repeats = profile.get("repeats", 1)
    noise = ""
    if data.evidence.noise:
        from pagelab.evidence.stats_text import noise_lines

        noise = (" Before the runs the machine's own noise was measured (`pagelab sweep --noise`): "
                 + "; ".join(noise_lines(data.evidence.noise)) + ".")
    from pagelab.evidence.hosts import host_lines

    found_hosts = host_lines(data.evidence)
    hosts = found_hosts[0].split(" Median ")[0] if found_hosts else ""  # which hosts; Table "per host" has the rest
    # Bundles from before every run restored the snapshot and flushed the kernel's writes lack the record.
    restored = ("Each measured run, the first included, restored that snapshot, had the kernel's pending writes "
                "flushed, " if "writeback_dirty_bytes" in summary else
                "Each measured run after a page size's first restored that snapshot (the first ran on the datadir "
                "the load left), ")
    random_seed = profile.get("random_seed", profile.get("seed"))  # `seed` in bundles before its rename
    return (
        f"Each page size ({sizes}) got its own MariaDB instance, initialised with that `innodb_page_size` and "
        f"loaded with {profile.get('warehouses')} TPC-C warehouse(s) from random seed {random_seed}, so every page "
        f"size holds the same rows. After the load the datadir was snapshotted. {restored}restarted the server "
        f"with a buffer pool of {pool_text} and `innodb_flush_method="
        f"{profile.get('flush_method')}`, and ran {profile.get('connections')} connections of the "
        f"`{profile.get('driver_mode')}` driver mode (tpcc-mysql's statements, transaction boundaries and mix) "
        f"{transport_text(profile)} with {rampup}, then {measure}. `iostat`, `SHOW ENGINE INNODB STATUS` and `SHOW "
        f"GLOBAL STATUS` were sampled every {profile.get('sample_interval_s')} s.{memory_budget_sentence(data)}"
        f"{not_applicable_sentence()} "
        + (f"There were {repeats} runs per page size, in rounds of one run per page size, "
           + (f"each round in an order drawn afresh from random seed {random_seed} (the figure of TpmC in run order "
              "shows it), so a slow drift of the machine falls on every page size and a position in the round on none "
              "systematically. " if _rounds_shuffled(data) else
              f"each round in the page sizes' order ({sizes}; this sweep predates the drawn order), so a slow drift of "
              "the machine falls on every page size. ") if repeats > 1 else
           "There was one run per page size, so no difference between page sizes can be told from noise. ") +
        "Per page size the report gives the median of the runs with an order-statistic interval; how each pair of "
        f"page sizes was judged follows below.{noise}" + (f" {hosts}" if hosts else ""))


def _rounds_shuffled(data: ReportData) -> bool:
    """Whether the sweep drew its rounds' orders from its seed (pagelab.bundle.ROUND_ORDER_DRAWN)."""
    return data.record.document.get("round_order") == ROUND_ORDER_DRAWN


def transport_text(profile: dict) -> str:
    """How the driver reached the server, for the Method; a bundle from before the knob says so."""
    transport = profile.get("transport")
    if transport == "socket":
        return "over the instance's unix socket"
    if transport == "tcp":
        return "over TCP to 127.0.0.1 (as tpcc-mysql is documented)"
    return "(the transport was not recorded: this bundle predates the knob)"


def per_host_tpmc(data: ReportData) -> pd.DataFrame:
    """TpmC per page size and host (pagelab.evidence.hosts.host_table); empty with one host."""
    from pagelab.evidence.hosts import host_table

    if data.evidence.runs.empty or data.evidence.runs["host"].nunique() < 2:
        return pd.DataFrame()
    rows = host_table(data.evidence)
    return rows[(rows["metric"] == "tpmc") & (rows["runs"] > 0)]


def nodes_markdown(data: ReportData) -> str:
    """The node section of a sweep spread over nodes (pagelab.evidence.nodes); "" on one node."""
    from pagelab.evidence.nodes import node_lines, node_summary

    summary = node_summary(data.evidence)
    lines = node_lines(summary)
    if not lines:
        return ""
    first, rest = lines[0], lines[1:]
    body = "\n".join(f"- {line.strip()}" if line.startswith("  ") and not line.startswith("    ")
                     else f"    - {line.strip()}" if line.startswith("    ") else f"\n{line}\n" for line in rest)
    design = ("Some round ran on more than one node, so its runs shared no node's minute: the runs are compared "
              "unpaired, and a node's speed is taken out by the node as a random effect (see below)."
              if summary["split_rounds"] else
              "Each round ran on one node, and its runs are compared within it, so a node's speed cancels out of "
              "the comparisons.")
    return f"**What the nodes did.** {design} {first}\n\n{body}"


def host_verdict(data: ReportData) -> str:
    """Whether the hosts differ more than the page sizes do, in one sentence (host_lines' last)."""
    from pagelab.evidence.hosts import host_lines

    lines = host_lines(data.evidence)
    return lines[-1].strip() if len(lines) > 1 else ""


def benchmark_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "Benchmark setup" table, ours beside the lab's."""
    from pagelab.report.figures import read_reference

    profile = data.profile
    db = _summary_values(data, "db_bytes")
    pools = _summary_values(data, "buffer_pool_bytes")
    ours = {
        "DB size": f"{size_text(sum(db) / len(db))} ({profile.get('warehouses')} warehouse)" if db else "—",
        "Buffer Pool Size": (f"{size_text(max(pools))} ({pool_share_pct(pools, db):.0f}% of the largest loaded database)"
                             if pools and db and not isinstance(profile.get("buffer_pool"), list)
                             else levels_text(profile.get("buffer_pool"), pool_level_labels(data))),
        "Benchmark Tool": f"pagelab, driver mode {profile.get('driver_mode')}",
        "Runtime": (f"{profile.get('measure_s')} s" if profile.get("measure_s") != "auto" else "auto") +
                   f" × {profile.get('repeats')} run(s) per page size" +
                   (f", then {profile.get('over_time_s')} s once" if profile.get("over_time_s") else ""),  # fits a cell
        "Connections": str(profile.get("connections")),
    }
    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "Benchmark setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    rows = [{"Setting": key, "This sweep": value, "Week 4 lab": seed.get(key, "—")} for key, value in ours.items()]
    return pd.DataFrame(rows + server_setting_rows(data))


def system_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "System setup" table, this machine beside the lab's."""
    from pagelab.machine.system import system_setup_table
    from pagelab.report.figures import read_reference

    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "System setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    return pd.DataFrame([{"Type": key, "This machine": value, "Week 4 lab": seed.get(key, "—")}
                         for key, value in system_setup_table(data.record.document["machine"])])
