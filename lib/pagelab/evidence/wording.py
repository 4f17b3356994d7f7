"""The words of the evidence: how an effect, an interval, a verdict and a family of pairs read,
whether on a terminal, in a report or in a notebook. One formatter for each (an effect in percent
is always `pct_text`), so every place says the same thing the same way; the numbers come from
pagelab.evidence.pairs and pagelab.evidence.medians.
"""

from __future__ import annotations

from itertools import combinations

import math

import pandas as pd

from pagelab.evidence.families import NOT_TESTED, PRIMARY, family_confidence, holm, smallest_p, verdict_room
from pagelab.evidence.intervals import (BOOTSTRAP_SEED, CONFIDENCE, DEFAULT_RESOLVE_PCT, EQUIVALENT,
                                        MAX_REPEATS_ESTIMATE, MIN_RUNS_FOR_VERDICT, NOT_RESOLVED, RESAMPLES,
                                        verdict_text)
from pagelab.evidence.block_weights import PRECISION_WORDS
from pagelab.evidence.model import MODEL_METHOD, OVER_TIME_BLOCK_WORDS, blocks_text
from pagelab.evidence.node_model import NODE_BLOCKS_METHOD, NODE_METHODS
from pagelab.evidence.numbers import effect_decimals, missing as _missing, signed_text, zero_unsigned
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.runs import METRICS_BY_NAME, Metric, RunTable

# How every bootstrap interval of a ratio of medians was drawn (pagelab.evidence.intervals.percentile_bounds),
# said wherever such an interval is: the same bundle always gives the same interval, and a reader can redo it.
BOOTSTRAP_WORDS = (f"a percentile bootstrap of {RESAMPLES:,} resamples from random seed {BOOTSTRAP_SEED} "
                   "(scipy.stats.bootstrap)")



def and_listed(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

def number_text(value: float, decimals: int) -> str:
    """'26,705', '988.8', '—' for no value: a number as every table shows it."""
    if _missing(value):
        return "—"
    return zero_unsigned(f"{value:,.{decimals}f}")


def pct_text(pct: float, unit: str = "%", decimals: int | None = None) -> str:
    """'+9.5%', '−4.1%', '−0.045%', '0.0%': a change in percent as every verdict, report sentence,
    figure and table prints it, the one formatter of an effect: signed, with a true minus sign, no
    sign when it rounds to zero, and one decimal or as many as two significant digits need, at most
    three (pagelab.evidence.numbers.effect_decimals); `decimals` fixes them instead, for a table
    copying another's style. '—' for no value."""
    text = signed_text(pct, decimals)
    return text if text == "—" else text + unit


def interval_text(low: float, high: float, confidence_pct: float | None, unit: str = "%") -> str:
    """'[+4.1%, +15.0%] (98.33% CI)': an interval with its own level, so a line read alone says it
    (a family's pairs are at the Bonferroni level, a declared primary at the full one); no level
    when the row has none recorded."""
    level = "" if _missing(confidence_pct) else f" ({float(confidence_pct):.4g}% CI)"
    return f"[{pct_text(low, unit)}, {pct_text(high, unit)}]{level}"


# The words added to a direction whose interval also lies inside the margin ±δ: the direction is the
# verdict (the test rejected no effect; the interval shows which way), and the line says the effect is
# smaller than the margin too, so a reader sees both (runbooks/glossary.md, "verdict").
INSIDE_MARGIN = "by less than the ±{delta:g}% margin"


def verdict_words(row: dict) -> str:
    """'lower, by less than the ±3% margin', 'equivalent within ±3%', 'faster': the pair's verdict
    word (pagelab.evidence.intervals.verdict_text), with INSIDE_MARGIN where a direction's interval
    also lies inside ±δ, the rule of pagelab.evidence.intervals.judged that the direction wins."""
    word = verdict_text(row["verdict"], row["equivalence_pct"])
    delta = row["equivalence_pct"]
    if (row["verdict"] not in (EQUIVALENT, NOT_RESOLVED) and not _missing(row.get("low_pct"))
            and not _missing(row.get("high_pct")) and -delta <= row["low_pct"] and row["high_pct"] <= delta):
        word += ", " + INSIDE_MARGIN.format(delta=delta)
    return word


def _runs_text(n, what: str = "runs a side") -> str:
    return f"more than {MAX_REPEATS_ESTIMATE} {what}" if n > MAX_REPEATS_ESTIMATE else f"about {int(n)} {what}"


def unresolved_advice(row: dict) -> str:
    """Why a pair is not resolved, in numbers: the smallest effect these runs resolve, and the runs
    the margin would need."""
    delta = row["equivalence_pct"]
    what = "rounds" if row.get("paired") else "runs a side"
    parts = []
    if not _missing(row.get("detectable_pct")):
        runs = int(row["runs_a"]) if row.get("paired") else f"{int(row['runs_a'])}+{int(row['runs_b'])}"
        # the model's blocks: the rounds and, where it counted, the over-time runs' block (not a round)
        counted = (blocks_text(int(row["runs_a"]), True) if OVER_TIME_BLOCK_WORDS in str(row.get("method") or "")
                   else f"{runs} {'rounds' if row.get('paired') else 'runs'}")
        parts.append(f"these {counted} resolve effects of about "
                     f"±{row['detectable_pct']:.{effect_decimals(row['detectable_pct'])}f}%")  # an effect's digits
    if not _missing(row.get("runs_for_equivalence")):
        parts.append(f"{_runs_text(row['runs_for_equivalence'], what)} would show equivalence within ±{delta:g}%")
    if not parts:
        parts.append(f"{MIN_RUNS_FOR_VERDICT} or more runs a side can give a verdict, and show how many "
                     f"equivalence within ±{delta:g}% needs")
    return "; ".join(parts)


# A test that rejected, on a line still not resolved: a call needs the interval and the test to agree.
TEST_ALONE_WORDS = {"interval": ": the test alone would call it, but the interval reaches across no change, and a "
                                "call needs both",
                    "direction": ": the test alone would call it, but it points the other way from the interval, and a "
                                 "call needs both to agree"}


def verdict_line(row: dict, metric: Metric | None = None, adjustment: str = "Holm") -> str:
    """'8k vs 4k: TpmC +9.5% [+4.1%, +15.0%] (98.33% CI), faster (p 0.004, Holm)': the effect and
    its interval with the interval's level first, then the word from the interval and the margin;
    when not resolved, why in numbers. `adjustment` names how a family's p-values were adjusted."""
    metric = metric or METRICS_BY_NAME[row["metric"]]
    head = f"{row['a']} vs {row['b']}: {metric.label}"
    if math.isnan(row["change_pct"]):
        return f"{head}: no finished runs on one side"
    word = verdict_words(row)
    if math.isnan(row["low_pct"]):
        why = ("one run on a side" if min(row["runs_a"], row["runs_b"]) < 2
               else "some resampled medians are 0 (no ratio)")
        return f"{head} {pct_text(row['change_pct'])}, {why}, no interval: {word} ({unresolved_advice(row)})"
    interval = interval_text(row["low_pct"], row["high_pct"], row.get("confidence_pct"))
    if row.get("role") == NOT_TESTED:
        # one word for it, as the Summary says it; in the metric's own words: IOPS, the hit ratio and
        # the p95 are called higher or lower
        return (f"{head} {pct_text(row['change_pct'])} {interval}, not tested (the primary comparison was not called "
                f"{metric.higher} or {metric.lower}, and the others are tested only after it, so this line claims "
                f"nothing even where its interval leaves out 0%; {unresolved_advice(row)})" + _method_text(row))
    text = f"{head} {pct_text(row['change_pct'])} {interval}, {word}"
    if row["verdict"] == NOT_RESOLVED:
        # the test's p too, so a line not resolved can be reported with its test as a called one is
        tested = "" if _missing(row.get("p_adjusted")) else (
            f"p {row['p_adjusted']:.2g}{', ' + adjustment if row.get('family_size', 1) > 1 else ''}"
            f"{TEST_ALONE_WORDS.get(row.get('test_alone') or '', '')}; ")
        text += f" ({tested}{unresolved_advice(row)})"
    elif row["verdict"] != EQUIVALENT and not _missing(row.get("p_adjusted")):
        text += f" (p {row['p_adjusted']:.2g}{', ' + adjustment if row.get('family_size', 1) > 1 else ''})"
    return text + _method_text(row)


def _method_text(row: dict) -> str:
    """'; primary, declared before the sweep; two-level model, 8 blocks, t on 7.0 df'."""
    parts = ["primary, declared before the sweep"] if row.get("role") == PRIMARY else []
    parts += [row["method"]] if row.get("method") else []
    return f"; {'; '.join(parts)}" if parts else ""


def family_note(frame: pd.DataFrame) -> str:
    """How a family's lines were judged: the estimate and its interval (ratio of medians with a
    bootstrap interval, the two-level model's t interval, or, when some round ran on more than one
    node, the t interval of the mixed model with the node as a random effect), the level and why,
    the p-value correction or the fixed sequence after a declared primary, the margin."""
    rows = frame.to_dict("records")
    if not rows:
        return "no pairs"
    delta = rows[0]["equivalence_pct"]
    modelled = [row for row in rows if _t_tested(row)]
    if modelled and len(modelled) == len(rows):
        what = ("every run unpaired (some round ran on more than one node) in a mixed model with the node as a random "
                "effect" if any(str(row["method"]).startswith(NODE_METHODS) for row in rows)
                else "the blocks' log-ratios weighed by their precision, as a % (a weighted geometric mean of the "
                     "blocks' ratios; each line gives the over-time block's share of the weight)"
                if any(PRECISION_WORDS in str(row["method"]) for row in rows)
                else "mean of the blocks' log-ratios (the rounds' and, where a pair has one, the over-time block's), "
                     "as a % (the geometric mean of the blocks' ratios)")
        if any(str(row["method"]).startswith(NODE_BLOCKS_METHOD) for row in rows):
            what += " (where its fit was singular, the nodes as fixed blocks: each line says which)"
        interval, tests = "t interval", "t-test p-values"
    elif modelled:
        what, interval, tests = ("the model's estimate or ratio of medians (each line says which)",
                                 "t or bootstrap interval", "p-values")
    else:
        what, interval, tests = "ratio of medians", "bootstrap interval", "rank-test p-values"

    def level_of(part: list[dict], m: int) -> float:
        # the rows' own level: lower than 95% for the looks of a sweep extended by more rounds
        levels = [float(row["confidence_pct"]) for row in part if not _missing(row.get("confidence_pct"))]
        return min(levels) if levels else 100 * family_confidence(m)

    primary = [row for row in rows if row.get("role") == PRIMARY]
    if primary:
        others = [row for row in rows if row.get("role") != PRIMARY]
        m = max(int(row["family_size"]) for row in others) if others else 0
        rest = (f"; the other {m} pairs only after it, {level_of(others, m):.4g}% {interval}s, Bonferroni, "
                f"{tests} Holm-adjusted (a fixed sequence)" if m > 1 else
                "; the other pair only after it (a fixed sequence)" if m == 1 else "")
        family = (f"the primary comparison {primary[0]['a']} vs {primary[0]['b']}, declared before the sweep, tested first, "
                  f"at {level_of(primary, 1):.4g}% {interval}{rest}")
    else:
        m = max(int(row["family_size"]) for row in rows)
        family = (f"{level_of(rows, m):.4g}% {interval}, Bonferroni for a family of {m} pairs; {tests} "
                  f"Holm-adjusted" if m > 1 else f"{level_of(rows, m):.4g}% {interval}")
    bootstrapped = any(not _t_tested(row) and not _missing(row.get("low_pct")) for row in rows)
    resampled = f"; each bootstrap interval is {BOOTSTRAP_WORDS}" if bootstrapped else ""
    return f"{what}, {family}{resampled}; equivalent = the interval within ±{delta:g}%"


def _t_tested(row: dict) -> bool:
    """Whether a pair was judged by a model's t-test (the two-level model, or the node as a random
    effect) rather than by the rank tests."""
    return str(row.get("method") or "").startswith((MODEL_METHOD, *NODE_METHODS))


def floor_note(frame: pd.DataFrame) -> str | None:
    """Said when a family's runs leave no room for "faster" or "slower" at all: Holm rejects nothing
    unless the smallest p times the pairs is under alpha, and each pair's exact rank test has a
    floor for the runs it had (pagelab.evidence.families.smallest_p: by rounds when compared round
    by round, else by the runs on each side, which failed runs make unequal). None when some pair
    has room, or with one run a side (its lines say there is no interval)."""
    rows = [row for row in frame.to_dict("records") if min(int(row["runs_a"]), int(row["runs_b"])) >= 2]
    if not rows or any(_t_tested(row) for row in rows):
        return None  # a model's t-test has no floor: a large enough effect is always called
    m = max(int(row["family_size"]) for row in rows)
    floors = [smallest_p(int(row["runs_a"]), int(row["runs_b"]), bool(row["paired"])) for row in rows]
    primary = [f for f, row in zip(floors, rows) if row.get("role") == PRIMARY]
    # each pair at its floor, Holm as judged; after a declared primary, the primary alone opens the rest
    floor = primary[0] if primary else min(holm(floors + [1.0] * (m - len(floors)), CONFIDENCE))
    if floor < 1 - CONFIDENCE:
        return None
    sides = {(int(row["runs_a"]), int(row["runs_b"])) for row in rows}
    n = min(a for a, _ in sides)
    complete = sides == {(n, n)}  # no run failed on any side
    if complete:
        runs = f"{n} rounds" if all(row["paired"] for row in rows) else f"{n} runs a side"
    else:
        runs = "the runs that finished"
    enough = verdict_room(n, m) if complete else None
    remedy = f"; {enough} rounds could" if enough else ""
    over = f" after Holm's adjustment over {m} pairs" if m > 1 else ""
    return (f"with {runs} the exact rank tests cannot reach p < {1 - CONFIDENCE:g}{over} (the smallest "
            f"possible is {floor:.3f}): no pair here can be called faster or slower, however large its effect{remedy}")


def family_text(frame: pd.DataFrame, what: str = "page sizes compared") -> str:
    """The head of a family's lines: what they compare, then `family_note`."""
    return f"{what} ({family_note(frame)}):" if not frame.empty else f"{what}:"


def primary_first(rows: pd.DataFrame) -> list[dict]:
    """A family's pair rows as its lines list them: the declared primary comparison first (it is tested
    first, and the others' lines depend on it), the rest in the table's order."""
    records = rows.to_dict("records")
    return sorted(records, key=lambda row: row.get("role") != PRIMARY)


def verdict_lines(table: RunTable, metric: str = "tpmc", resolve_pct: float = DEFAULT_RESOLVE_PCT) -> list[str]:
    pairs = pairwise_table(table, resolve_pct)
    return [verdict_line(row) for row in primary_first(pairs[pairs["metric"] == metric])]


# What of an over-time run TpmC's model counts (pagelab.evidence.model.over_time_use), said in these
# words by the report's Method, runbooks/slurm.md, runbooks/tpcc-page-size.md and course.yaml's
# comments (tests/test_report_reader5.py checks each): a run that fails the drift check still counts,
# only shorter, so the block is there whatever the check finds.
OVER_TIME_RULE = ("the over-time runs always count as one more block; after MSER-5 cuts each run's warm-up, "
                  "a run whose drift the drift test does not detect counts in full, and a run whose drift it "
                  "detects counts only its first window of the verdict runs' length")


def over_time_text(uses, long_runs=None, page_order=()) -> list[str]:
    """`pagelab stats`' lines on how much of each over-time run counted, and why, in the words of
    pagelab.evidence.model.over_time_use, then over which seconds each pair compares them
    (`shared_window_words`; the report's Method says the same)."""
    if not uses:
        return []
    lines = ["Over-time runs in the model (one more block):"] + [
        f"  {use.run}: {use.counted_s:g} s of {use.measured_s:g} s counted ({use.why})" for use in uses]
    said = [shared_window_words(long_runs, later, earlier) for earlier, later in combinations(page_order, 2)]
    said = [words for words in said if words]
    if said:
        lines.append(f"  {SHARED_WINDOW_RULE[0].upper()}{SHARED_WINDOW_RULE[1:]}:")
        lines += [f"    {words}" for words in said]
    return lines


# How a pair takes the over-time runs (pagelab.evidence.model.shared_window), said wherever their
# counted parts are: the stats lines above and the report's Method.
SHARED_WINDOW_RULE = ("each pair compares its two over-time runs over the seconds both counted, so that its block's "
                      "log-ratio is of the same seconds on both sides (a long run's rate falls as the database grows); "
                      "a pair whose runs share less than a verdict run's length has no over-time block, and its blocks "
                      "are its rounds")


def shared_window_words(long_runs, a: str, b: str) -> str:
    """'16k vs 4k: 300-1200 s of each (900 s)', or why the pair has no over-time block; '' where a side
    ran no over-time run that counted (pagelab.evidence.model.OverTimeRuns)."""
    if long_runs is None or a not in long_runs.uses or b not in long_runs.uses:
        return ""
    window = long_runs.window(a, b)
    if window is not None:
        return f"{a} vs {b}: {window[0]:g}-{window[1]:g} s of each ({window[1] - window[0]:g} s)"
    kept = " and ".join(f"{size} {long_runs.uses[size].cut_s:g}-{long_runs.uses[size].cut_s + long_runs.uses[size].counted_s:g} s"
                        for size in (a, b))
    return (f"{a} vs {b}: no over-time block (they counted {kept}, less than a verdict run's "
            f"{long_runs.verdict_s:g} s in common)")
