"""The Week 4 lab's claims, each checked against a sweep for the report's Discussion.

The lab's claims, in the lab's own order:

    read_request   the average read request equals the page size
    iops_fall      IOPS falls slightly as the page size grows
    hit_ratio      the hit ratio starts near 990/1000 and settles near 993
    best_8k        TpmC 3,518 -> 3,898 -> 3,758 at 4k/8k/16k, so 8k is best
    similar        transaction throughput is similar no matter the page size

Each is checked only where the sweep ran the lab's configuration (pagelab.report.seed_configuration;
elsewhere "not checked here", with the differences), and no claim is said to hold unless the
verdicts of pagelab.evidence support it. Apart from the rest of the report because the claims and
their tolerances change with the lab's text, not with the bundle's layout or the Method's words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pandas as pd

from pagelab.evidence.intervals import EQUIVALENT, NOT_RESOLVED
from pagelab.evidence.runs import equivalence_of
from pagelab.evidence.wording import and_listed
from pagelab.report.lab_report import ReportData, listed_pair, over_time_block_pairs, pair_of, pair_text
from pagelab.report.figures import SEED_CHECKPOINTS_S as LAB_CHECKPOINTS_S
from pagelab.report.lab_hit_ratio import (HIT_RATIO_FALL_SECTION, growth_against_lab, lab_hit_checkpoints,
                                          lab_hit_readings, lab_hit_status, why_it_fell)
from pagelab.report.read_requests import read_request_findings
from pagelab.report.seed_configuration import (CHECKING_PROFILE, CONFIGURATION_DEPENDENCE, OVER_TIME_MEASURE_S,
                                               POOL_SHARE_TOLERANCE_PCT, SEED_CONNECTIONS, SEED_MEASURE_S,
                                               SEED_WAREHOUSES, STEADY_MEASURE_S, differences_from_seed,
                                               recorded_configuration)

HOLDS, DOES_NOT_HOLD, NOT_RESOLVED_HERE = "holds", "does not hold", "not resolved here"
# A claim about the lab's configuration, where this sweep's configuration is another.
NOT_CHECKED = "not checked here"
VERDICT_WORDS = (HOLDS, DOES_NOT_HOLD, NOT_RESOLVED_HERE, NOT_CHECKED)
# "The average read request equals the page size": within this share of it.
REQUEST_SIZE_TOLERANCE = 0.10
# The lab's hit ratio: "starts near 990, settles near 993" (per 1000); near = within this.
HIT_RATIO_NEAR = 3.0
# When the lines above and the configuration's were drawn, said wherever they are (the report, the runbook).
TOLERANCES_WHEN = ("They were drawn while this project's own sweeps were run and read, not declared before any "
                   "data, so they are not a pre-registration: to judge the lab's claims on lines fixed in advance, "
                   "write your own down before your sweep.")
SEED_HIT_START, SEED_HIT_END = 990.0, 993.0


@dataclass(frozen=True)
class Claim:
    key: str
    statement: str
    verdict: str
    evidence: str
    where: str
    # for a claim not checked here, why, as the Summary and Conclusion say it
    why_unchecked: str = ""
    runs: str = ""  # which runs it was checked on, as the Discussion says it
    # what the Summary and Conclusion say beside the verdict where it rests on one run per page size
    # (no interval), so a verdict quoted from them keeps its caveat
    caveat: str = ""


# The caveat of a claim's verdict resting on one run per page size, as the Summary and Conclusion give it.
ONE_RUN_CAVEAT = "from one run per page size, with no interval: another run could read otherwise"


def _margin_contrast(data: ReportData) -> str:
    """The hit-ratio claim's line beside the pairs' margin δ, which on a ratio near 1000 per 1000 is about
    ten times wider: two margins for two questions, said where the narrower is used."""
    from pagelab.evidence.runs import equivalence_of

    evidence = getattr(data, "evidence", None)  # a stand-in with the hit-ratio tables alone has no pairs
    if evidence is None:
        return ""
    delta = equivalence_of(evidence)
    return (f"; not the pairs' margin δ, ±{delta:g}%, about ±{10 * delta:.0f} per 1000 on this ratio, which asks "
            "whether two page sizes differ, not where one page size's ratio lies")


def _over_time_set(data: ReportData) -> str:
    """'over_time_s=0 (set for this sweep)' when a --set turned the over-time runs off, else ''."""
    sets = [o for o in (data.profile.get("overrides") or []) if o.split("=", 1)[0].strip() == "over_time_s"]
    return f"{sets[-1].replace(' ', '')} (set for this sweep)" if sets else ""


def _not_checked(statement_claim: Claim, differences: list[str], data: ReportData | None = None,
                 over_time: bool = False) -> Claim:
    """The claim as not checked here, and why: for a claim about the lab's runs watched over time in a
    sweep with no over-time runs, that they were not run (and the --set that turned them off), not that
    the verdict runs' configuration is another; else how the configuration differs from the lab's."""
    steady = differences_from_seed(recorded_configuration(data), False) if data is not None else differences
    if over_time and data is not None and not data.has_over_time_runs and not steady:
        # the verdict runs are the lab's configuration; only the over-time runs, which watch it, are missing
        measured = recorded_configuration(data).measured_s
        knob = _over_time_set(data)
        planned = int(data.profile.get("over_time_s") or 0)
        # a sweep that planned them but was stopped before they ran (the README's deadline advice) is not
        # one that turned them off
        why = (f"none of the over-time runs finished (the sweep planned {planned} s runs; `pagelab sweep --resume` "
               "runs them)" if planned else
               "the over-time runs were not run" + (f": {knob}" if knob else " (over_time_s was 0)"))
        evidence = (f"{why}. The claim is about the lab's {SEED_MEASURE_S} s runs watched "
                    f"to {OVER_TIME_MEASURE_S} s, which only the over-time runs measure; the verdict runs measure "
                    f"{measured:.0f} s after their ramp-up, too short to show it. "
                    + ("" if planned else
                       f"The `{CHECKING_PROFILE}` profile as shipped runs them and checks it" if knob else
                       "A sweep with over_time_s set to the lab's 1200 s checks it")).rstrip()
        return Claim(statement_claim.key, statement_claim.statement, NOT_CHECKED, evidence, statement_claim.where, why)
    why = f"this sweep's configuration differs from the lab's ({'; '.join(differences)})"
    return Claim(statement_claim.key, statement_claim.statement, NOT_CHECKED,
                 f"{why}. The `{CHECKING_PROFILE}` profile runs the lab's configuration and "
                 "checks it", statement_claim.where, why)


def claims(data: ReportData) -> list[Claim]:
    """The Week 4 lab's claims, each checked against this sweep where its configuration is the lab's
    (see the module comment and CONFIGURATION_DEPENDENCE)."""
    checked = []
    for check in (_read_request, _iops_fall, _hit_ratio, _best_8k, _similar):
        claim = check(data)
        needs = CONFIGURATION_DEPENDENCE[claim.key]
        over_time = needs == "over time"
        differences = differences_from_seed(recorded_configuration(data, over_time), over_time) if needs else []
        checked.append(_not_checked(claim, differences, data, over_time) if differences
                       else replace(claim, runs=_runs_checked(data, over_time, claim.key in TPMC_CLAIMS,
                                                              TPMC_CLAIM_PAIRS.get(claim.key))))
    return checked


# The claims judged on TpmC's pairs, whose lines may count the over-time runs' block beside the rounds,
# and the pairs each rests on (None: every pair): "8k is best" on 8k's two pairs alone.
TPMC_CLAIM_PAIRS = {"best_8k": frozenset({"8k vs 4k", "16k vs 8k", "8k vs 16k"}), "similar": None}
TPMC_CLAIMS = frozenset(TPMC_CLAIM_PAIRS)


def _runs_checked(data: ReportData, over_time: bool, on_tpmc: bool = False, pairs_used=None) -> str:
    """'checked on the 21 verdict runs (7 rounds)', or the over-time runs for a claim over time; a claim
    on TpmC's pairs names the over-time runs' block too where the two-level model counted it in the
    pairs the claim rests on (`pairs_used`, every pair when None)."""
    if over_time and data.has_over_time_runs:
        count = len(data.over_time["summary"])
        return f"checked on the {count} over-time run{'s' if count != 1 else ''}, one per page size"
    runs = data.evidence.runs
    if runs.empty:
        return ""
    rounds = int(runs["block"].nunique()) if "block" in runs else 0
    counted, pairs = over_time_block_pairs(data)
    if pairs_used is not None:
        counted = [pair for pair in counted if pair in pairs_used]
        pairs = min(pairs, len(pairs_used))
    if on_tpmc and data.has_over_time_runs and counted:
        count = len(data.over_time["summary"])
        if len(counted) < pairs:  # some pairs' runs shared too few seconds (pagelab.evidence.model.shared_window)
            return (f"checked on the {len(runs)} verdict runs ({rounds} rounds) and, for {and_listed(counted)}, the "
                    "over-time runs' block")
        return (f"checked on the {len(runs)} verdict runs ({rounds} rounds) and the {count} over-time "
                f"run{'s' if count != 1 else ''}, one block more")
    return f"checked on the {len(runs)} verdict runs ({rounds} rounds)"


def tolerances_sentence(data: ReportData) -> str:
    """The tolerances within which a configuration counts as the lab's (seed_configuration), with this
    sweep's recorded values: which it met, and which not."""
    found = recorded_configuration(data)
    low, high = POOL_SHARE_TOLERANCE_PCT
    parts = []
    if found.warehouses is not None:
        parts.append(f"{found.warehouses} warehouses (the lab's {SEED_WAREHOUSES})")
    if found.connections is not None:
        parts.append(f"{found.connections} connections (the lab's {SEED_CONNECTIONS})")
    if found.pool_share_pct is not None:
        parts.append(f"a pool of {found.pool_text or f'{found.pool_share_pct:.0f}% of the data'} (the line: "
                     f"{low:g}–{high:g}% of the data, from the lab's stated 30% to what its server's real 256 MiB "
                     "pool is of the data loaded here)")
    if found.measured_s is not None:
        parts.append(f"{found.measured_s:.0f} s measured (the line: at least {STEADY_MEASURE_S} s after the ramp-up "
                     "ended, what `course` measures: shorter runs weigh the first, faster seconds after the ramp-up "
                     "more)")
    if data.has_over_time_runs:
        long_runs = recorded_configuration(data, True)
        if long_runs.measured_s is not None:
            parts.append(f"over-time runs of {long_runs.measured_s:.0f} s measured (the line: at least "
                         f"{OVER_TIME_MEASURE_S} s, the lab's last checkpoint)")
    if not parts:
        return ""
    missed = differences_from_seed(found, False)
    head = ("This sweep met the tolerances within which a configuration counts as the lab's: " if not missed else
            "The tolerances within which a configuration counts as the lab's, and this sweep's values: ")
    return (head + "; ".join(parts) + (f" (not met: {'; '.join(missed)})" if missed else "") + ". These lines, and "
            f"each claim's own below (a request within {REQUEST_SIZE_TOLERANCE:.0%} of the page, a hit ratio within "
            f"{HIT_RATIO_NEAR:g} per 1000), are pagelab's, not the lab's, which states none; each is given with its "
            f"reason. {TOLERANCES_WHEN}")


def _read_request(data: ReportData) -> Claim:
    """Holds where, at every page size, the median run's mean read request and its order-statistic
    interval lie within REQUEST_SIZE_TOLERANCE of the page; does not hold where at some page size the
    whole interval lies outside it; else the runs disagree across the line and it is not resolved here.
    A sweep with one run per page size has no interval and is judged on its one mean (Table 4's)."""
    from pagelab.report.figures import request_sizes
    from pagelab.report.read_requests import request_intervals

    iostat = data.tables["iostat"]
    sizes = request_sizes(iostat[iostat["t_s"] >= 0] if not iostat.empty else iostat)
    statement = "The average read request equals the page size."
    if sizes.empty or sizes["read_kb"].isna().all():
        return Claim("read_request", statement, NOT_RESOLVED_HERE, "no iostat samples were taken", "Table 4")
    ratios = sizes["read_kb"] / sizes["page_kb"]
    within = (ratios - 1).abs() <= REQUEST_SIZE_TOLERANCE
    text = ", ".join(f"{row.page_size}: {decisive_kb(row.read_kb, row.page_kb, REQUEST_SIZE_TOLERANCE)} KiB"
                     for row in sizes.itertuples())
    intervals = request_intervals(data)
    pages = dict(zip(sizes["page_size"], sizes["page_kb"]))
    if intervals and set(intervals) >= set(pages):
        low_line = {size: pages[size] * (1 - REQUEST_SIZE_TOLERANCE) for size in pages}
        high_line = {size: pages[size] * (1 + REQUEST_SIZE_TOLERANCE) for size in pages}
        inside = all(low_line[s] <= intervals[s].low and intervals[s].high <= high_line[s] for s in pages)
        outside = [s for s in pages if intervals[s].low > high_line[s] or intervals[s].high < low_line[s]]
        verdict = HOLDS if inside else DOES_NOT_HOLD if outside else NOT_RESOLVED_HERE
        crossing = [s for s in pages if s not in outside and not (low_line[s] <= intervals[s].low
                                                                   and intervals[s].high <= high_line[s])]
        per_run = "; ".join(f"{s} {intervals[s].median:.2f} KiB [{intervals[s].low:.2f}, {intervals[s].high:.2f}] "
                            f"({100 * intervals[s].confidence:.1f}%)" for s in pages)
        uncertainty = (f"; each run's own mean, per page size the median run with its order-statistic interval (the "
                       f"claim's uncertainty: the runs are its replicates): {per_run}; the claim holds where every "
                       f"interval lies within {REQUEST_SIZE_TOLERANCE:.0%} of the page and does not where one lies "
                       "wholly outside")
        if verdict == NOT_RESOLVED_HERE:
            uncertainty += (f"; at {', '.join(crossing)} the interval crosses the {REQUEST_SIZE_TOLERANCE:.0%} line "
                            f"({', '.join(f'{high_line[s]:.2f} KiB' for s in crossing)}): some runs read about a page "
                            "a request and some more, so the runs cannot decide")
        failing = failing_request_text(sizes, REQUEST_SIZE_TOLERANCE) if not within.all() else ""
    else:
        verdict = HOLDS if within.all() else DOES_NOT_HOLD
        uncertainty = "; one run per page size, so no interval: the verdict rests on each page size's one mean"
        failing = failing_request_text(sizes, REQUEST_SIZE_TOLERANCE) if verdict == DOES_NOT_HOLD else ""
    # where it does not hold (or the runs disagree), which page size and against what threshold, then
    # what the bundle recorded of why (block-layer merges, InnoDB's read-ahead, other I/O) and the device
    found = read_request_findings(data) if not within.all() else ""
    why = f". {found.rstrip('.')}" if found else ""
    device = data_device_text(data.record.document.get("machine") or {})
    single = not (intervals and set(intervals) >= set(pages))
    return Claim("read_request", statement, verdict,
                 f"mean read request per page size, every verdict run's requests together (Table 4), {text} (the "
                 f"claim's line: within {REQUEST_SIZE_TOLERANCE:.0%} of the page size, pagelab's: were one read in "
                 f"{1 / REQUEST_SIZE_TOLERANCE:.0f} to fetch a second page, the mean would be {REQUEST_SIZE_TOLERANCE:.0%} "
                 "above the page)" + (f"; {failing}" if failing
                                                                                          else "")
                 + uncertainty + why + (f". Read from {device}" if device else ""), "Figure 4, Table 4",
                 caveat=ONE_RUN_CAVEAT if single else "")


def decisive_kb(value: float, page_kb: float, tolerance: float) -> str:
    """A mean request in KiB with the digits that decide it against its page's line (within `tolerance`
    of `page_kb`): two decimals, more while the rounded value would sit on the other side of (or on) a
    line printed with as many, so a reader comparing the printed figures reads the verdict the report gives
    (4.44 against 4.40, 4.404 against 4.400, never 4.4 against 4.4)."""
    lines = (page_kb * (1 - tolerance), page_kb * (1 + tolerance))
    for decimals in range(2, 7):
        shown = round(value, decimals)
        if all((shown > round(line, decimals)) == (value > line) and (shown < round(line, decimals)) == (value < line)
               for line in lines):
            break
    return f"{value:.{decimals}f}"


def failing_request_text(sizes: pd.DataFrame, tolerance: float) -> str:
    """'it is not within 10% of the page at 4k: 4.41 KiB is +10% against its 4 KiB page (within 10% is
    3.60–4.40 KiB)': each page size whose mean read request misses the claim's threshold, with two
    decimals, as a request on the threshold's edge needs them; '' where none does."""
    from pagelab.evidence.wording import pct_text

    parts = [f"{row.page_size}: {decisive_kb(row.read_kb, row.page_kb, tolerance)} KiB is {pct_text(100 * (row.read_kb / row.page_kb - 1))} against "
             f"its {row.page_kb:g} KiB page (within {tolerance:.0%} is {row.page_kb * (1 - tolerance):.2f}–"
             f"{row.page_kb * (1 + tolerance):.2f} KiB)"
             for row in sizes.itertuples() if not math.isnan(row.read_kb) and abs(row.read_kb / row.page_kb - 1) > tolerance]
    return f"it is not within {tolerance:.0%} of the page at " + "; at ".join(parts) if parts else ""


def data_device_text(machine: dict) -> str:
    """'the data device, as the machine record has it: vda (virtio_blk), ext4 mounted on /, the system
    disk', from sweep.json's machine record; '' when it names none."""
    device = machine.get("data_device") or {}
    name = device.get("disk") or device.get("device")
    if not name:
        return ""
    text = f"the data device, as the machine record has it: {name}" + (f" ({device['driver']})" if device.get("driver")
                                                                       else "")
    if device.get("fstype") and device.get("mount_point"):
        text += f", {device['fstype']} mounted on {device['mount_point']}"
    return text + (", the system disk" if device.get("mount_point") == "/" else "")


def _iops_fall(data: ReportData) -> Claim:
    statement = "IOPS falls slightly as the page size grows."
    first, last = data.page_sizes[0], data.page_sizes[-1]
    row = pair_of(data, "read_iops", last, first)
    if row is None or math.isnan(row["change_pct"]):
        return Claim("iops_fall", statement, NOT_RESOLVED_HERE, "no read IOPS on one side", "Figure 3")
    verdict = {"lower": HOLDS, "higher": DOES_NOT_HOLD, EQUIVALENT: DOES_NOT_HOLD}.get(row["verdict"], NOT_RESOLVED_HERE)
    writes = listed_pair(data, "write_iops", last, first)
    beside = (f"; write IOPS, which flushing and the redo log drive rather than the page size's reads, is beside it: "
              f"{pair_text(writes)}" if writes is not None and not math.isnan(writes["change_pct"]) else "")
    check, agrees = _innodb_reads_check(data, last, first, row)
    if not agrees and verdict != NOT_RESOLVED_HERE:
        # the device's count and InnoDB's own disagree: what else read the disk may have made the verdict
        device_says = verdict
        verdict = NOT_RESOLVED_HERE
        check += ("; the two counts disagree, so the runs cannot decide: not resolved here, though the device's "
                  f"count alone would say the claim {'holds' if device_says == HOLDS else 'does not hold'}")
    return Claim("iops_fall", statement, verdict,
                 f"read IOPS {pair_text(listed_pair(data, 'read_iops', last, first))}, judged on read IOPS because "
                 "the claim rests on reads: a larger page holds more rows, so the same misses need fewer reads; "
                 f"judged on the two ends of the trend the claim describes, the largest page size against the "
                 f"smallest ({last} vs {first}), the pairs between them given in Section 4.2 but not part of the rule"
                 f"{beside}{check}", "Figure 3")


def _innodb_reads_check(data: ReportData, last: str, first: str, row: dict) -> tuple[str, bool]:
    """The same pair on InnoDB's own read requests a second (Innodb_data_reads), which no other process
    on the disk adds to, at the device's line's level, and whether its verdict is the device's
    ('', True without the counters)."""
    from pagelab.evidence.intervals import judged, measure
    from pagelab.evidence.wording import interval_text, pct_text
    from pagelab.report.read_requests import innodb_read_rates

    rates = innodb_read_rates(data)
    if last not in rates or first not in rates:
        return "", True
    level = float(row.get("confidence_pct") or 95.0) / 100
    found = measure(rates[last], rates[first], confidence=level, equivalence_pct=float(row["equivalence_pct"]))
    if math.isnan(found.low):
        return "", True
    found = judged(found, found.p_value, level)
    word = found.words("higher", "lower")
    agrees = word == row["verdict"]
    return (f". iostat counts the whole device, other processes' requests included (Section 4.2); on InnoDB's own read "
            f"requests a second (`Innodb_data_reads`, which nothing else adds to), {last} vs {first} "
            f"{pct_text(100 * (found.ratio - 1))} {interval_text(100 * (found.low - 1), 100 * (found.high - 1), 100 * level)}, "
            f"{word} ({found.method}; a check of this claim alone, not one of the Method's families: judged as read "
            "IOPS is, at the device line's level, with no correction of its own, as it can only take a verdict away: "
            "where the two counts disagree the claim is not resolved here)"
            + (": the same verdict" if agrees else ""), agrees)


def _hit_ratio(data: ReportData) -> Claim:
    statement = "The buffer-pool hit ratio starts near 990/1000 and settles near 993."
    innodb = (data.over_time or data.tables)["innodb"]
    if innodb.empty or "hit_rate" not in innodb or innodb["hit_rate"].dropna().empty:
        return Claim("hit_ratio", statement, NOT_RESOLVED_HERE, "no InnoDB status samples with a hit rate", "Figure 5")
    measured = innodb.dropna(subset=["hit_rate"])
    measured = measured[measured["t_s"] >= 0]
    lab_status = lab_hit_status()
    lab = lab_hit_checkpoints(lab_status)
    parts, near, runs, times, fell = [], True, 0, [], []
    for size in data.page_sizes:
        series = measured[measured["page_size"] == size].sort_values("t_s")
        if series.empty:
            continue
        # read where the lab read it: the samples nearest its first and last checkpoints (100 s, 1100 s)
        first = series.groupby("repeat").apply(lambda run: run.iloc[(run["t_s"] - LAB_CHECKPOINTS_S[0]).abs().argmin()])
        last = series.groupby("repeat").apply(lambda run: run.iloc[(run["t_s"] - LAB_CHECKPOINTS_S[-1]).abs().argmin()])
        start, end = first["hit_rate"].median(), last["hit_rate"].median()
        runs = max(runs, int(series["repeat"].nunique()))
        times.append((first["t_s"].median(), last["t_s"].median()))
        # against the lab's own reading of this page size at the same checkpoint (its statement's 990 -> 993
        # is its 4k run's; its 8k and 16k read 993 from the first checkpoint on)
        lab_start, lab_end = lab.get(size, (SEED_HIT_START, SEED_HIT_END))
        close = abs(start - lab_start) <= HIT_RATIO_NEAR and abs(end - lab_end) <= HIT_RATIO_NEAR
        far = [name for name, gap in (("start", start - lab_start), ("end", end - lab_end))
               if abs(gap) > HIT_RATIO_NEAR]
        parts.append(f"{size}: {start:.0f} → {end:.0f} against the lab's {lab_start:.0f} → {lab_end:.0f}"
                     f"{' (' + ' and '.join(far) + ' not near)' if far else ''}")
        if start - end > HIT_RATIO_NEAR:
            fell.append(size)
        near &= close
    verdict = HOLDS if near else DOES_NOT_HOLD
    which = "of each page size's one run" if runs == 1 else "median over each page size's runs"
    # one run per page size has no interval: said, so "does not hold" is not read as a tested verdict
    single = ("; one run per page size, so there is no interval: each figure is one run's sample at a checkpoint, "
              "and another run could read otherwise" if runs == 1 else "")
    # which measure and which samples: the lab's checkpoints, and MSER-5's warm-up cut (which only the
    # TpmC model uses) not applied, as the lab read the ratio from its first checkpoint
    def seconds(values) -> str:
        low, high = f"{min(values):.0f}", f"{max(values):.0f}"
        return low if low == high else f"{low}–{high}"

    when = (f" (SHOW ENGINE INNODB STATUS's \"Buffer pool hit rate\", read where the lab read it: the samples "
            f"nearest its first and last checkpoints, {LAB_CHECKPOINTS_S[0]} s and {LAB_CHECKPOINTS_S[-1]:,} s, here at "
            f"{seconds([t for t, _ in times])} s and {seconds([t for _, t in times])} s of the measurement; {lab_hit_readings(lab_status)}; the "
            "warm-up MSER-5 cut from TpmC is not applied, as the lab read the ratio from its first checkpoint)") if times else ""
    return Claim("hit_ratio", statement, verdict,
                 f"hit rate per 1000 at the lab's first and last checkpoints, {which}{when}: {'; '.join(parts)} "
                 f"(near = within {HIT_RATIO_NEAR:g} per 1000, pagelab's line: the lab's two figures are 3 apart, so a "
                 "wider line could not tell where the ratio starts from where it settles"
                 f"{_margin_contrast(data)})"
                 f"{single}{why_it_fell(fell)}{growth_against_lab(data)}", "Figure 5",
                 caveat=ONE_RUN_CAVEAT if runs == 1 else "")



def _best_8k(data: ReportData) -> Claim:
    statement = "TpmC goes 3,518 → 3,898 → 3,758 at 4k / 8k / 16k, so 8k is best."
    if "8k" not in data.page_sizes:
        return Claim("best_8k", statement, NOT_RESOLVED_HERE, "this sweep has no 8k runs", "Figure 1")
    rows = [(other, pair_of(data, "tpmc", "8k", other)) for other in ("4k", "16k") if other in data.page_sizes]
    verdicts = [row["verdict"] for _, row in rows if row is not None]
    if verdicts and all(v == "faster" for v in verdicts):
        verdict = HOLDS
    elif any(v == "slower" for v in verdicts):
        verdict = DOES_NOT_HOLD
    else:
        verdict = NOT_RESOLVED_HERE
    # quoted as the pairs table holds each pair (one orientation everywhere), with its interval
    text = "; ".join(pair_text(listed_pair(data, "tpmc", "8k", other)) for other, row in rows if row)
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
    text = "; ".join(pair_text(r) for r in rows)
    needed = [r["runs_for_equivalence"] for r in rows if r["verdict"] == NOT_RESOLVED
              and r["runs_for_equivalence"] is not None and not pd.isna(r["runs_for_equivalence"])]
    paired = all(r.get("paired") for r in rows if r["verdict"] == NOT_RESOLVED)
    more = (f"; equivalence within ±{delta:g}% for every pair would need {_count_text(max(needed))} "
            f"{'rounds' if paired else 'runs a side'}" if needed and verdict == NOT_RESOLVED_HERE else "")
    return Claim("similar", statement, verdict,
                 f"TpmC ratios {text}; similar = every pair equivalent within ±{delta:g}% (the interval inside "
                 f"the margin){more}", "Figure 1")


def _count_text(n) -> str:
    """'about 171', or 'more than 200' where the estimate stopped counting (as the pair lines say it,
    pagelab.evidence.wording: runs_for_equivalence returns one more than it counts to)."""
    from pagelab.evidence.intervals import MAX_REPEATS_ESTIMATE

    return f"more than {MAX_REPEATS_ESTIMATE}" if n > MAX_REPEATS_ESTIMATE else f"about {int(n)}"


def discussion_markdown(found: list[Claim]) -> str:
    lines = []
    for number, claim in enumerate(found, start=1):
        lines.append(f"{number}. *\"{claim.statement}\"* — **{claim.verdict}**. {claim.evidence[0].upper()}"
                     f"{claim.evidence[1:]} ({claim.where}{'; ' + claim.runs if claim.runs else ''}).")
    return "\n".join(lines)
