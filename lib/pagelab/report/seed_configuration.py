"""What the Week 4 lab ran with, and what a sweep ran with, as its report states them.

- The lab's configuration (its "Benchmark setup" table, and its pool as its server had it) with
  the tolerances within which a sweep's recorded configuration counts as the lab's, and which of
  the lab's claims depend on it (pagelab.report.claims.claims checks a claim only there).
- The course guide's my.cnf (data/reference/course_server_settings.csv) beside the sweep's own,
  and the settings that do not carry over to MariaDB.
- The sentences of the Method about the memory budget and about over-time runs, and why this
  sweep's TpmC level is so far from the lab's (`level_note`: the pool's share of the data decides it).

Each function takes the report's `ReportData` (pagelab.report.lab_report.load).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pagelab.common.units import size_text


# --- the lab's configuration, which most of its claims are about ------------------------------------
#
# A claim about throughput, IOPS or the hit ratio holds for a configuration: the share of the data
# in memory, the load, the time watched. It is checked only in a sweep whose recorded configuration
# matches the lab's within these tolerances; elsewhere it is "not checked here", with the
# differences. The lab's values: its "Benchmark setup" table (7 warehouses, 8 connections, 1200 s),
# and its pool as its server had it (256 MiB, which is 268 MB: 36-40% of the 673-753 MB that 7 warehouses
# load here, by page size, measured 2026-11-28; its text says 210 MB, 30% of its ~700 MB).
SEED_WAREHOUSES = 7
SEED_CONNECTIONS = 8
SEED_POOL_SHARE_PCT = 30.0
# 25-40%: the stated 30% and the 36-40% its server's 268 MB pool is of the data loaded here
# (673-753 MB at 7 warehouses, depending on the page size). Judged on pool_share_pct, the pool over
# the largest database the page sizes loaded (4k's), as the docs say.
POOL_SHARE_TOLERANCE_PCT = (25.0, 40.0)
SEED_MEASURE_S = 1200
# A claim about a trend over time ("starts near ..., settles near ...") needs the lab's last
# checkpoint, 1100 s, inside the measured run.
OVER_TIME_MEASURE_S = 1100
# A claim about throughput needs runs that measure at least this long after their ramp-up ended (what the
# course profile's verdict runs measure after the auto ramp-up). Not a steady state shown: in the 100 s runs
# of the 12-round sweep the first 40 s ran 2.6-4.1% faster than the last 60 s (12 rounds of 2026-11-29; the
# TPC-C runbook, "Is a short run the same measurement?"), and over-time runs begun after the same ramp-up
# rule had MSER-5 cut up to 300 s more (the shipped sweep); a much shorter run weighs that start more.
STEADY_MEASURE_S = 90
# The runbook's section that measured a run's start, by its title, and what it found, for the report's words.
SHORT_RUN_SECTION = "Is a short run the same measurement?"
SHORT_RUN_FINDING = "a run's first 40 s after its ramp-up 2.6–4.1% faster than its last 60 s, in 100 s runs"
# Server settings the course guide leaves at their defaults but that count pages, not bytes, so that
# one value means another amount of memory at each page size: the Setup table shows them too.
PAGE_COUNTED_SETTINGS = ("innodb_lru_scan_depth",)
# The profile that runs the lab's configuration.
CHECKING_PROFILE = "course"


@dataclass(frozen=True)
class Configuration:
    """What a sweep ran with, as its runs recorded it."""

    warehouses: int | None
    connections: int | None
    pool_share_pct: float | None  # pool bytes over loaded database bytes
    measured_s: float | None  # the shortest measured run
    pool_text: str | None = None  # as the report says it (pool_share_text)


def pool_share_pct(pools: list, db: list) -> float | None:
    """The pool as a share of the largest loaded database, the one a percentage pool is resolved
    against: every table and sentence that gives the pool's share of the data gives this one."""
    return 100 * max(pools) / max(db) if pools and db else None


def _pool_and_data(summary: pd.DataFrame) -> pd.DataFrame | None:
    """Each page size's median buffer_pool_bytes and db_bytes over its runs (summary.json), or None
    when the runs did not record both."""
    if summary.empty or not {"buffer_pool_bytes", "db_bytes", "page_size"} <= set(summary):
        return None
    recorded = summary.dropna(subset=["buffer_pool_bytes", "db_bytes"])
    if recorded.empty:
        return None
    return recorded.groupby("page_size")[["buffer_pool_bytes", "db_bytes"]].median()


def pool_shares(summary: pd.DataFrame) -> pd.Series | None:
    """The pool's share of the data each page size loaded, in % (each page size's medians over its
    runs), or None when the runs did not record both."""
    per_size = _pool_and_data(summary)
    return None if per_size is None else 100 * per_size["buffer_pool_bytes"] / per_size["db_bytes"]


def pool_share_text(summary: pd.DataFrame) -> str | None:
    """The buffer pool as the report gives it, everywhere in one way: its size and its share of the
    data each page size loaded (a range where the page sizes differ), from the runs' own records
    (summary.json's buffer_pool_bytes and db_bytes, each page size's median over its runs), e.g.
    "256 MiB (36–40% of the data loaded)". None when the runs did not record both."""
    per_size = _pool_and_data(summary)
    if per_size is None:
        return None
    shares = 100 * per_size["buffer_pool_bytes"] / per_size["db_bytes"]
    pools = sorted({size_text(value) for value in per_size["buffer_pool_bytes"]})
    low, high = round(shares.min()), round(shares.max())
    share = f"{low}%" if low == high else f"{low}–{high}%"
    pool = pools[0] if len(pools) == 1 else f"{size_text(per_size['buffer_pool_bytes'].min())}–" \
                                            f"{size_text(per_size['buffer_pool_bytes'].max())}"
    return f"{pool} ({share} of the data loaded)"


def loaded_text(summary: pd.DataFrame) -> str:
    """The data each page size loaded (summary.json's db_bytes, each page size's median over its
    runs): one size, or the range where the page sizes differ, as pool_share_text's shares are of."""
    per_size = summary.dropna(subset=["db_bytes"]).groupby("page_size")["db_bytes"].median()
    low, high = size_text(per_size.min()), size_text(per_size.max())
    return low if low == high else f"{low}–{high}"


def seed_pool_pages() -> dict[str, tuple[int, int]]:
    """The pool the lab's server had, by page size, from its own SHOW ENGINE INNODB STATUS excerpts
    (data/reference/week4_lab_innodb.csv: "Buffer pool size" in pages): {page size: (pages, bytes)}.
    The one place the report takes the lab's real pool from; {} without the file."""
    from pagelab.report.figures import read_reference

    status = read_reference("week4_lab_innodb.csv")
    if status.empty:
        return {}
    status = status.dropna(subset=["pool_pages"])
    first = status.groupby("page_size", sort=False)[["pool_pages", "page_size_bytes"]].first()
    return {size: (int(row.pool_pages), int(row.pool_pages * row.page_size_bytes)) for size, row in first.iterrows()}


# The lab's pool in its own words (its Benchmark setup table), quoted once, said as the lab's.
def seed_pool_quote(value: str) -> str:
    return f"\u201c{value}\u201d (the lab's words)"


def recorded_configuration(data, over_time: bool = False) -> Configuration:
    """What the verdict runs ran with, or with `over_time` the runs the figures over time come from."""
    summary = (data.over_time or data.tables)["summary"] if over_time else data.tables["summary"]

    def values(column: str) -> list:
        return [] if summary.empty or column not in summary else list(summary[column].dropna())

    warehouses, connections, measured = values("warehouses"), values("connections"), values("measure_s")
    share = pool_share_pct(values("buffer_pool_bytes"), values("db_bytes"))
    return Configuration(int(max(warehouses)) if warehouses else None,
                         int(max(connections)) if connections else None, share,
                         float(min(measured)) if measured else None, pool_share_text(summary))


def differences_from_seed(found: Configuration, over_time: bool) -> list[str]:
    """How this configuration differs from the lab's, as a reader would say it; empty if it matches."""
    differences = []
    if found.warehouses != SEED_WAREHOUSES:
        plural = "s" if found.warehouses != 1 else ""
        differences.append(f"{found.warehouses} warehouse{plural} against {SEED_WAREHOUSES}")
    low, high = POOL_SHARE_TOLERANCE_PCT
    if found.pool_share_pct is None or not low <= found.pool_share_pct <= high:
        shown = "unrecorded" if found.pool_share_pct is None else (found.pool_text or f"{found.pool_share_pct:.0f}%")
        differences.append(f"pool {shown} against the lab's {SEED_POOL_SHARE_PCT:.0f}%")
    if found.connections != SEED_CONNECTIONS:
        differences.append(f"{found.connections} connections against {SEED_CONNECTIONS}")
    needed = OVER_TIME_MEASURE_S if over_time else STEADY_MEASURE_S
    if found.measured_s is None or found.measured_s < needed:
        shown = "unrecorded" if found.measured_s is None else f"{found.measured_s:.0f} s"
        differences.append(f"{shown} measured against {SEED_MEASURE_S} s" if over_time else
                           f"{shown} measured against at least {STEADY_MEASURE_S} s")
    return differences


# Which claims depend on the configuration, and whether they need a run long enough to show time.
CONFIGURATION_DEPENDENCE = {"read_request": None, "iops_fall": "steady", "hit_ratio": "over time",
                            "best_8k": "steady", "similar": "steady"}



def over_time_sentence(data) -> str:
    """Where the verdicts and where the figures over time come from, when they are different runs."""
    if not data.has_over_time_runs:
        return ""
    long_runs = data.over_time["summary"]
    seconds = sorted({round(v) for v in long_runs["measure_s"].dropna()}) if "measure_s" in long_runs else []
    count = len(long_runs)
    runs = f"{count} over-time run{'s' if count != 1 else ''}"
    return (f"\n\nTwo kinds of runs. {_verdicts_from(data, runs)} The figures over time (IOPS, hit ratio, New-Order "
            f"response time) and the lab's checkpoints come from the {runs}, one per page size after the rounds, each "
            f"measuring {', '.join(f'{v} s' for v in seconds) or 'longer'}, as the lab's did.")


def _verdicts_from(data, runs: str) -> str:
    """Which runs the verdicts rest on: the rounds, and for TpmC's pairs the over-time runs' block where
    the two-level model counted it (their windows that passed MSER-5 and the drift test)."""
    from pagelab.evidence.wording import and_listed
    from pagelab.report.lab_report import over_time_block_pairs

    counted, pairs = over_time_block_pairs(data)
    if not counted:
        return (f"The verdicts, medians and intervals come from the runs in rounds above, not from the {runs}.")
    rest = ("The medians and intervals of each page size, and every other metric's verdicts, come from the runs in "
            "rounds above; ")
    how = ("with what of each run passed MSER-5 and the drift test, each pair's two runs over the seconds both "
           "counted (the two-level model, below)")
    if len(counted) == pairs:
        return rest + f"TpmC's verdicts count the {runs} too, as one block more, {how}."
    return (rest + f"TpmC's verdict{'s' if len(counted) > 1 else ''} of {and_listed(counted)} count{'' if len(counted) > 1 else 's'} "
            f"their over-time runs too, as one block more, {how}; in the other pairs the two runs shared less than "
            "a verdict run's length of what counted, so their verdicts rest on the rounds.")


def memory_budget_sentence(data) -> str:
    """How a pool given as a percentage became bytes: once per sweep, the same for every page size."""
    budgets = data.record.document.get("memory_budget") or {}
    if not budgets:
        return ""
    parts = []
    for warehouses, budget in sorted(budgets.items(), key=lambda item: int(item[0])):
        loaded = "; ".join(f"{size} {size_text(n)}" for size, n in budget["loaded_db_bytes"].items())
        parts.append(f"at {warehouses} warehouse{'s' if warehouses != 1 else ''} the loaded databases were {loaded}, so the reference was "
                     f"{budget['reference_page_size']}'s {size_text(budget['reference_db_bytes'])}")
    seed = sorted({size_text(n) for _, n in seed_pool_pages().values()})
    had = (f" (as the lab's server had: its status output shows {seed[0]} at every page size)"
           if len(seed) == 1 else "")
    return (f" The buffer pool, given as a percentage, was resolved once for the sweep against "
            f"{next(iter(budgets.values()))['rule']}, so every page size had the same bytes{had}: "
            + "; ".join(parts) + ".")


def server_setting_rows(data) -> list[dict]:
    """The course guide's my.cnf settings (the lab's lab ran with them) beside this sweep's: the
    profile's server_options and flush_method, else the server's default as the run recorded it."""
    from pagelab.report.figures import read_reference

    guide = read_reference("course_server_settings.csv")
    if guide.empty:
        return []
    profile = data.profile
    options = {name.replace("-", "_").lower(): value for name, value in (profile.get("server_options") or {}).items()}
    options["innodb_flush_method"] = profile.get("flush_method")
    options["innodb_log_file_size"] = f"{profile.get('redo_log')} (one file)"
    recorded = _first_run_variables(data)
    rows = []
    for row in guide.fillna("").itertuples():
        if row.key in options:
            ours = str(options[row.key])
        elif row.note.startswith("not applicable"):
            ours = "not applicable on MariaDB"
        else:
            ours = f"{recorded.get(row.key, '—')} (server default)"
        rows.append({"Setting": row.key, "This sweep": ours, "Week 4 lab": f"{row.value} (course guide)"})
    for name in PAGE_COUNTED_SETTINGS:  # not in the guide, but counted in pages: part of the page-size effect
        if name not in options and name in recorded:
            rows.append({"Setting": name, "This sweep": f"{recorded[name]} (server default)",
                         "Week 4 lab": "not set by the course guide (its server's default)"})
    return rows


def _first_run_variables(data) -> dict[str, str]:
    runs = [e for e in data.record.runs if e["status"] == "done"]
    path = data.sweep_dir / runs[0]["name"] / "variables.csv" if runs else None
    if path is None or not path.exists():
        return {}
    variables = pd.read_csv(path, dtype=str, keep_default_na=False)
    return dict(zip(variables["variable_name"].str.lower(), variables["value"]))


def not_applicable_sentence() -> str:
    """The course guide's settings MariaDB lacks, for the Method."""
    from pagelab.report.figures import read_reference

    guide = read_reference("course_server_settings.csv").fillna("")
    notes = [f"`{row.key}={row.value}`: {row.note}" for row in guide.itertuples() if row.note]
    if not notes:
        return ""
    return (" Of the course guide's server settings (its table \"Benchmark setup\"), these do not carry over to MariaDB "
            "as written: " + "; ".join(notes) + ".")



def level_note(table: pd.DataFrame, shares: pd.Series | None) -> str:
    """Why this sweep's TpmC is so far from the lab's (Table "the lab's TpmC and IOPS beside this
    sweep's"): with most of the data on disk (`shares`, the pool's share of the data each page size
    loaded, seed_configuration.pool_shares, all under 50%), throughput follows what the disk serves,
    and the two disks served very different request rates. The ratios are read from the same table;
    '' where a side is missing."""
    def ratio_range(ours: str, lab: str) -> tuple[float, float] | None:
        if not {ours, lab} <= set(table.columns):
            return None
        ratio = (table[ours] / table[lab]).replace([float("inf")], float("nan")).dropna()
        return (float(ratio.min()), float(ratio.max())) if not ratio.empty else None

    def said(span: tuple[float, float], digits: int) -> str:
        low, high = (f"{value:.{digits}f}" for value in span)
        return f"{low}×" if low == high else f"{low}–{high}×"

    tpmc = ratio_range("tpmc_ours", "tpmc_seed")
    if tpmc is None:
        return ""
    reads = ratio_range("read_iops_ours", "read_iops_seed")
    on_disk = shares is not None and not shares.empty and float(shares.max()) < 50
    outside = ""
    if on_disk:  # as the pool's shares are given (Table 2's 36-40%): one figure, or the page sizes' range
        low, high = round(100 - float(shares.max())), round(100 - float(shares.min()))
        outside = f"{low}%" if low == high else f"{low}–{high}%"
    return (f" This sweep's TpmC is {said(tpmc, 1)} the lab's"
            + (f", and its data device completed {said(reads, 0)} the lab's read requests a second" if reads else "")
            + (f": with {outside} of the data outside the pool (by page size), every page size waits on the disk, so "
               "the level is each machine's disk" if on_disk else ": the level is each machine's")
            + ", and only the shape (which page size is ahead, and by how much) carries over.")


def measured_seconds_sentence(data, measured_s: float) -> str:
    """What the verdict runs' `measured_s` seconds after an auto ramp-up are, for the Method: the seconds
    after the ramp-up ended (which the Discussion's line of at least STEADY_MEASURE_S s compares), not a
    steady state shown to hold through them, with what the over-time runs' own MSER-5 cut
    (pagelab.evidence.model.over_time_use) where the sweep ran them."""
    from pagelab.evidence.runs import model_data

    found = model_data(data.evidence)
    uses = {use.page_size: use for use in (found.over_time if found is not None else ())}
    cuts = [f"{f'{uses[size].cut_s:g} s' if uses[size].cut_s else 'nothing'} ({size})"
            for size in data.page_sizes if size in uses]
    cut = (" Over-time runs that began after the same ramp-up rule had MSER-5 on their own TpmC cut "
           + (", ".join(cuts[:-1]) + " and " + cuts[-1] if len(cuts) > 1 else "".join(cuts))
           + " as warm-up (the over-time block, below), so" if any(use.cut_s for use in uses.values()) else " So")
    return (f" Those {measured_s:g} s are the seconds after each verdict run's ramp-up ended, which is what the Discussion's "
            f"line of at least {STEADY_MEASURE_S} s compares; they are not a steady state shown to hold through them."
            f"{cut} a verdict run's {measured_s:g} s may include a slower or faster stretch right after its ramp-up "
            f"(the TPC-C runbook's \u201c{SHORT_RUN_SECTION}\u201d measured {SHORT_RUN_FINDING}).")


def measured_line_note(data) -> str:
    """For the Discussion, after the tolerances: what the line's seconds are, pointing to the Method; '' where
    the sweep's runs did not follow an auto ramp-up."""
    if data.profile.get("rampup_s") != "auto":
        return ""
    return (f" The line's {STEADY_MEASURE_S} s are seconds after a verdict run's ramp-up ended, not a steady state "
            "shown: the Method says what the over-time runs' own MSER-5 cut after the same ramp-up rule.")
