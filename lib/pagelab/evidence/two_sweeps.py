"""Two sweeps compared, by three questions in this order (`pagelab compare`):

1. did the page-size effects change: `effect_table` / `effect_lines`, each pair's effect in both
   and their difference in log points (pagelab.evidence.families.effect_differences): for TpmC,
   where both sweeps' runs kept interval series, the difference of the two-level model's estimates
   (a Welch t interval, pagelab.evidence.model.EffectGap), else the bootstrap; each line names it;
2. did the whole level move, and alike for every page size: `compare_bundles` / `shift_lines`, a
   uniform shift only when every pair's effect agrees within the margin, else an interaction;
3. which knobs differ: `knob_differences`.
"""

from __future__ import annotations

import math
from itertools import combinations

import pandas as pd

from pagelab.evidence.families import AGREE, DIFFER, EffectDifference, compare_family, effect_differences
from pagelab.evidence.intervals import DEFAULT_RESOLVE_PCT, FASTER, NOT_RESOLVED, SLOWER, log_spread
from pagelab.evidence.runs import (METRICS, METRICS_BY_NAME, RunTable, _values, _values_by_block, equivalence_of,
                                   model_data)
from pagelab.evidence.pairs import comparison_row, model_effect
from pagelab.evidence.wording import interval_text, pct_text, verdict_line


# --- two bundles -----------------------------------------------------------------------------------

# Knobs that differ between two bundles without changing what is measured.
NEUTRAL_KNOBS = {"repeats", "tpcc_mysql_dir", "description", "profile", "source", "overrides", "equivalence_pct",
                 "stall_s",  # stall_s: when a hung run is given up, not what a run measures
                 "disk_profile"}  # a record of the disk beside the runs (pagelab.sweep.knobs.RECORD_KNOBS)


def knob_differences(a: dict, b: dict) -> list[str]:
    """Knobs set differently in two bundles' profiles, as 'name: A vs B'."""
    names = sorted((set(a) | set(b)) - NEUTRAL_KNOBS)
    return [f"{name}: {a.get(name)!r} vs {b.get(name)!r}" for name in names if a.get(name) != b.get(name)]


def compare_bundles(a: RunTable, b: RunTable, label_a: str, label_b: str,
                    resolve_pct: float = DEFAULT_RESOLVE_PCT, equivalence_pct: float | None = None) -> pd.DataFrame:
    """Per page size both bundles have and per metric: bundle A against bundle B, the page sizes of
    a metric one family. equivalence_pct: A's unless given."""
    delta = equivalence_of(a) if equivalence_pct is None else equivalence_pct
    rows = []
    common = [size for size in a.page_order if size in b.page_order]
    for metric in METRICS:
        spread = log_spread([_values(t.runs, size, metric.name) for t in (a, b) for size in common])
        # Two sweeps share no rounds: their runs are compared unpaired.
        found = compare_family([(_values(a.runs, size, metric.name), _values(b.runs, size, metric.name))
                                for size in common], spread=spread, resolve_pct=resolve_pct, equivalence_pct=delta)
        for size, comparison in zip(common, found):
            row = comparison_row(comparison, f"{label_a} {size}", f"{label_b} {size}", metric)
            rows.append({"page_size": size, **row})
    return pd.DataFrame(rows)


EFFECT_COLUMNS = ("metric", "a", "b", "effect_a_pct", "effect_b_pct", "difference_pts", "low_pts", "high_pts",
                  "confidence_pct", "word", "equivalence_pct", "family_size", "p_value", "p_adjusted", "method")


def effect_table(a: RunTable, b: RunTable, equivalence_pct: float | None = None) -> pd.DataFrame:
    """Question 1 of two bundles: per metric and pair of page sizes both have, the page-size effect
    in each and their difference in log points with its interval (`effect_differences`, the pairs
    of a metric one family), and the word: agree, differ or not resolved. TpmC's pairs that the
    two-level model estimates in both sweeps are compared by its estimates (a Welch t-test)."""
    delta = equivalence_of(a) if equivalence_pct is None else equivalence_pct
    common = [size for size in a.page_order if size in b.page_order]
    pairs = list(combinations(common, 2))
    data = {"a": model_data(a), "b": model_data(b)}
    rows = []
    for metric in METRICS:
        by_size = {(label, size): _values_by_block(t.runs, size, metric.name)
                   for label, t in (("a", a), ("b", b)) for size in common}
        models = [(model_effect(data["a"], second, first), model_effect(data["b"], second, first))
                  if metric.name == "tpmc" else (None, None) for first, second in pairs]
        found = effect_differences([((by_size["a", second], by_size["a", first]),
                                     (by_size["b", second], by_size["b", first])) for first, second in pairs],
                                   equivalence_pct=delta, models=models)
        rows += effect_rows(metric.name, pairs, found, delta)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def effect_rows(metric: str, pairs: list[tuple[str, str]], found: list[EffectDifference], delta: float) -> list[dict]:
    """Rows of EFFECT_COLUMNS, one per (earlier, later) pair of a family of effect differences."""
    m = sum(not math.isnan(d.low) for d in found)
    return [{"metric": metric, "a": second, "b": first, "effect_a_pct": d.first_pct, "effect_b_pct": d.second_pct,
             "difference_pts": d.difference, "low_pts": d.low, "high_pts": d.high,
             "confidence_pct": 100 * d.confidence, "word": d.word, "equivalence_pct": delta, "family_size": m,
             "p_value": d.p_value, "p_adjusted": d.p_adjusted, "method": d.method}
            for (first, second), d in zip(pairs, found)]


def effect_lines(effects: pd.DataFrame, label_a: str, label_b: str, metric: str = "tpmc") -> list[str]:
    """'16k vs 4k: −8.9% in qa, −9.7% in qt; difference +0.9 points [−6.1, +8.4] (98.33% CI), effects agree
    within ±3 points'."""
    rows = effects[effects["metric"] == metric].to_dict("records") if not effects.empty else []
    lines = []
    words = {AGREE: "effects agree within ±{delta:g} points", DIFFER: "effects differ",
             NOT_RESOLVED: "not resolved (neither within ±{delta:g} points nor clear of 0)"}
    for row in rows:
        head = (f"{row['a']} vs {row['b']}: {pct_text(row['effect_a_pct'])} in {label_a}, "
                f"{pct_text(row['effect_b_pct'])} in {label_b}")
        if math.isnan(row["difference_pts"]):
            lines.append(f"{head}: no finished runs on a side")
            continue
        word = words[row["word"]].format(delta=row["equivalence_pct"])
        interval = ("no interval (one run on a side, or resampled medians of 0)" if math.isnan(row["low_pts"])
                    else interval_text(row["low_pts"], row["high_pts"], row.get("confidence_pct"), ""))
        tested = (f" (p {row['p_adjusted']:.2g}{', Holm' if row['family_size'] > 1 else ''})"
                  if row["word"] == DIFFER and not math.isnan(row["p_adjusted"]) else "")
        lines.append(f"{head}; difference {pct_text(row['difference_pts'], ' points')} {interval}, {word}{tested}; "
                     f"{row['method']}")
    return lines


def shift_lines(frame: pd.DataFrame, effects: pd.DataFrame, label_a: str, label_b: str,
                metric: str = "tpmc") -> list[str]:
    """Question 2 of two bundles: each page size's level A against B (`compare_bundles`), then
    whether they moved alike. A uniform shift only when every pair's effect agrees within delta
    (question 1; the same statement, see pagelab.evidence.families); when one differs, an
    interaction; else undecided."""
    label = METRICS_BY_NAME[metric].label
    rows = frame[frame["metric"] == metric].to_dict("records") if not frame.empty else []
    lines = [verdict_line(row) for row in rows]
    changes = sorted(row["change_pct"] for row in rows if not math.isnan(row["change_pct"]))
    words = list(effects.loc[effects["metric"] == metric, "word"]) if not effects.empty else []
    if len(changes) < 2 or not words:
        return lines
    span = f"{pct_text(changes[0])} to {pct_text(changes[-1])}"
    moved = any(row["verdict"] in (FASTER, SLOWER, METRICS_BY_NAME[metric].higher, METRICS_BY_NAME[metric].lower)
                for row in rows)
    delta = effects["equivalence_pct"].iloc[0]
    if all(word == AGREE for word in words):
        if moved:
            lines.append(f"Every page size's {label} moved alike ({span} in {label_a} against {label_b}, within "
                         f"±{delta:g} points of each other): a uniform shift of the whole machine or setup, which "
                         "leaves the page-size effects of question 1 alone.")
        else:
            lines.append(f"The page sizes moved alike within ±{delta:g} points ({span}), and no page size's level "
                         "moved by a resolved amount.")
    elif DIFFER in words:
        lines.append(f"The page sizes moved by different amounts ({span}): the page size interacts with what "
                     "differs between the two sweeps, and the change in its effect (question 1) is the finding.")
    else:
        lines.append(f"The page sizes moved by {span}; whether alike is not resolved (question 1), so no "
                     "single shift of the level is claimed.")
    return lines
