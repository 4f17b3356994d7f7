"""The report's answer, on page 1 and in the Conclusion: which page size is best here and whether
that is a real difference, the declared primary comparison first, and which of the lab's claims hold.

Apart from the claims (pagelab.report.claims) because this is the one sentence a reader quotes: it
changes with how verdicts are worded (pagelab.evidence), not with the lab's claims.
"""

from __future__ import annotations

import math

from pagelab.evidence.families import NOT_TESTED
from pagelab.evidence.intervals import NOT_RESOLVED
from pagelab.evidence.wording import pct_text, unresolved_advice
from pagelab.report.claims import DOES_NOT_HOLD, HOLDS, NOT_CHECKED, NOT_RESOLVED_HERE, ONE_RUN_CAVEAT, Claim
from pagelab.report.grid_report import grid_answer, grid_factor
from pagelab.report.lab_report import ReportData, listed_pair, pair_of, pair_text, tpmc_rows

# A run shorter than this measures start-up, not a page size: the report says so on page 1.
SHORTEST_MEANINGFUL_MEASURE_S = 60


def is_chain_check(data: ReportData) -> bool:
    measured = data.profile.get("measure_s")
    return data.record.document.get("profile_name") == "smoke" or (
        isinstance(measured, int) and measured < SHORTEST_MEANINGFUL_MEASURE_S and data.profile.get("repeats", 1) < 2)


def answer(data: ReportData) -> str:
    """One sentence: which page size is best here, and is that a real difference."""
    rows = tpmc_rows(data)
    if rows.empty:
        return "No run finished, so this sweep cannot say which page size is best."
    if grid_factor(data):
        return grid_answer(data)
    best = rows.loc[rows["median"].idxmax()]
    others = [size for size in data.page_sizes if size != best["page_size"] and size in set(rows["page_size"])]
    if not others:
        return f"Only {best['page_size']} has finished runs ({best['median']:,.0f} TpmC): nothing to compare."
    # Each other page size against the best, the direction of the verdict lines ("16k vs 4k: -30.6%").
    comparisons = [pair_of(data, "tpmc", other, best["page_size"]) for other in others]
    # each pair quoted as the pairs table holds it, so a pair has one effect everywhere in the report
    parts = [pair_text(listed_pair(data, "tpmc", other, best["page_size"]))
             for other, row in zip(others, comparisons) if row is not None]
    real = all(row is not None and row["verdict"] == "slower" for row in comparisons)
    runs = int(best["runs"])
    head = _primary_sentence(data) + (f"{best['page_size']} had the highest median TpmC ({best['median']:,.0f}, {runs} run"
            f"{'s' if runs != 1 else ''} per page size); its pairs, as the verdict lines under Figure 1 give them: {'; '.join(parts)}. ")
    head += sign_note(data, rows)
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


def sign_note(data: ReportData, rows) -> str:
    """Where a TpmC pair quoted on page 1 has an effect of the other sign than its medians' ratio, why
    (the two are different quantities); '' where every quoted pair's effect agrees with its medians."""
    from pagelab.evidence.families import primary_pair
    from pagelab.evidence.model import MODEL_METHOD, OVER_TIME_BLOCK_WORDS

    median = dict(zip(rows["page_size"], rows["median"]))
    best = max(median, key=median.get)
    quoted = [primary_pair(str(data.profile.get("primary") or ""))] + [(size, best) for size in median if size != best]
    seen, against, over_time = set(), [], False
    for pair in quoted:
        row = listed_pair(data, "tpmc", *pair) if pair else None
        if row is None or frozenset(pair) in seen or math.isnan(row["change_pct"]):
            continue
        seen.add(frozenset(pair))
        if not str(row.get("method") or "").startswith(MODEL_METHOD) or not (row["a"] in median and row["b"] in median):
            continue
        ratio = 100 * (median[row["a"]] / median[row["b"]] - 1)
        if ratio * row["change_pct"] < 0:
            over_time = over_time or OVER_TIME_BLOCK_WORDS in str(row.get("method"))
            against.append(f"{row['a']} vs {row['b']} is {pct_text(row['change_pct'])} while {row['a']}'s median is "
                           f"{pct_text(ratio)} against {row['b']}'s")
    if not against:
        return ""
    return (f"The medians and the pairs need not agree in sign, and here they do not ({'; '.join(against)}): a "
            "median ranks each page size's verdict runs on their own, so a slow round moves it, while a pair's effect "
            "is the mean of its blocks' log-ratios, each round's runs compared with each other so that what moved the "
            "whole round cancels" + (", and the over-time runs' block, which no median holds, counted as one block "
                                     "more" if over_time else "") +
            "; the effect is the comparison, the medians only describe each page size. ")


def _primary_sentence(data: ReportData) -> str:
    """The comparison declared before the sweep, first, as its verdict line gives it: it is the
    question the sweep was for, and the other pairs' words depend on it. Empty when none was declared."""
    from pagelab.evidence.families import primary_pair

    declared = primary_pair(str(data.profile.get("primary") or ""))
    row = listed_pair(data, "tpmc", *declared) if declared else None
    if row is None or math.isnan(row["change_pct"]):
        return ""
    return f"The comparison declared before the sweep, {row['a']} vs {row['b']}: TpmC {pair_text(row, names=False)}. "


def conclusion_markdown(data: ReportData, found: list[Claim]) -> str:
    # a claim read from one run per page size has no interval: its verdict is listed apart, its
    # label saying so, where a caveat after it read as firm as the verdicts with intervals
    single = [c for c in found if c.caveat == ONE_RUN_CAVEAT]
    held = [c for c in found if c.verdict == HOLDS and c not in single]
    failed = [c for c in found if c.verdict == DOES_NOT_HOLD and c not in single]
    open_ = [c for c in found if c.verdict == NOT_RESOLVED_HERE]
    unchecked = [c for c in found if c.verdict == NOT_CHECKED]
    held_once = [c for c in single if c.verdict == HOLDS]
    failed_once = [c for c in single if c.verdict == DOES_NOT_HOLD]
    text = [answer(data)]
    def listed(group: list[Claim]) -> str:
        return ", ".join(f"\u201c{c.statement.rstrip('.')}\u201d" + (f" ({c.caveat})" if c.caveat and c not in single
                                                                         else "") for c in group)

    # the glossary's verdict words, with what they rest on, not a word of their own
    once = "on this sweep's one run per page size, with no interval (another run could read otherwise):"
    def these(group: list[Claim], plural: str, single: str) -> str:
        return plural if len(group) > 1 else single

    parts = [f"{label} {listed(group)}" for label, group in
             ((these(held, "these hold here:", "this holds here:"), held),
              (these(failed, "these do not hold here:", "this does not hold here:"), failed),
              (these(held_once, f"these hold here {once}", f"this holds here {once}"), held_once),
              (these(failed_once, f"these do not hold here {once}", f"this does not hold here {once}"), failed_once),
              (these(open_, "these the runs cannot decide:", "this the runs cannot decide:"), open_))
             if group]
    # not checked here, each reason once with its claims (the Discussion gives the whole of it)
    reasons = dict.fromkeys(c.why_unchecked for c in unchecked)
    parts += [f"not checked here, as {why or 'this sweep did not run the lab configuration it is about'}: "
              f"{listed([c for c in unchecked if c.why_unchecked == why])}" for why in reasons]
    # one item per verdict: the reasons carry semicolons of their own, so a sentence joined by
    # semicolons read as if a claim not checked held
    from pagelab.report.method import driver_caveat

    text.append(driver_caveat(data.profile).strip())
    return " ".join(t for t in text if t) + "\n\nOf the Week 4 lab's five observations:\n\n" + "\n".join(f"- {part}." for part in parts)
