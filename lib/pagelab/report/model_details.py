"""The report's words for the models' details where they judged: the rounds on more than one node
(the node model), or the two-level model's variance components (each page size's within-run a and
the runs it pools, the floor f), the floor's rule and which pairs it set, how the blocks were
weighed (equal, or by precision), and how much of each over-time run counted. The Method's other
words (which method judged which metric, the verdict words, the families) are
pagelab.report.model_report's."""

from __future__ import annotations

import math

import pandas as pd

from pagelab.evidence.block_weights import PRECISION
from pagelab.evidence.components import LAG1_ALPHA
from pagelab.evidence.components_text import COMPONENTS_WORDS, GROUP_A_WORDS
from pagelab.evidence.model import FLOOR_QUANTILE, MIN_BLOCKS_FOR_MODEL, MODEL_METHOD, OVER_TIME_BLOCK
from pagelab.evidence.node_model import split_rounds
from pagelab.evidence.runs import model_data
from pagelab.evidence.wording import and_listed

def model_sentences(data) -> str:
    """The models' details where they judged: the rounds on more than one node, or the two-level
    model's variance components and what of the over-time runs counted."""
    split = split_rounds(data.evidence.runs)
    if split:
        return (f"\n\n**The node model.** Round{'s' if len(split) > 1 else ''} {', '.join(map(str, split))} ran on "
                "more than one node, so "
                "no round pairs the runs alike: TpmC's pairs are judged from every run of the two page sizes, "
                "unpaired, by a mixed model of log TpmC with the node as a random intercept (REML, statsmodels "
                "MixedLM; Pinheiro & Bates 2000), its t interval on the runs less one per node less one.")
    found = model_data(data.evidence)
    if found is None:
        return ""
    if found.weights == PRECISION:
        return "".join([precision_sentences(found, data), *_components_and_over_time(found, data)])
    parts = ["\n\n**The two-level model's lower bound.** The two-level model needs every run's interval series and "
             f"{MIN_BLOCKS_FOR_MODEL} or more blocks shared (the rounds, and the over-time runs' block where both page sizes have one): a run's log TpmC varies as a/T + f, a the within-run "
             "part (batch means of its interval series) and f the between-run floor, and the variance of the mean "
             "log-ratio is bounded below by what the runs' own noise allows: where the rounds' sample variance of the "
             f"log-ratio falls below the {100 * FLOOR_QUANTILE:g}% quantile it would have from the within-run part "
             "alone (f = 0), that quantile is used. This lower bound is pagelab's own rule, not a published method "
             f"(bench/bench_evidence_model.py measures its coverage); {_floor_use(found, data)}. The t interval is on "
             "the blocks less one, a whole number: the effect is the mean of one log-ratio per block, and for that "
             "contrast Satterthwaite's approximation (Satterthwaite 1946) gives exactly the blocks less one, as the "
             "paired t does; the fractional degrees of freedom elsewhere in a report (the A/A check's "
             "Welch–Satterthwaite) are those of another contrast, two halves' effects against each other."]
    return "".join([*parts, *_components_and_over_time(found, data)])


def _components_and_over_time(found, data) -> list[str]:
    parts = []
    sizes = [s for s in found.components.sizes if s.batches and math.isfinite(s.within_a.value)]
    if sizes:
        pooled = _pooled_runs(data, sizes)
        each = [f"{s.page_size} a = {1e4 * s.within_a.value:,.0f} %²·s{pooled.get(s.page_size, '')}"
                + (f", {floor_text(s.between_f)}" if math.isfinite(s.between_f.value) else "") for s in sizes]
        # the notes `pagelab stats` prints under the components (one source: components.notes), so a
        # reader of the report learns, as a reader of stats does, which a is a lower bound or pools unlike groups
        notes = found.components.notes
        said = ("\n\nWhat `pagelab stats` notes under these components:\n\n" + "\n".join(f"- {note}." for note in notes)
                if notes else "")
        parts.append(f"\n\n**Variance components.** {COMPONENTS_WORDS} {LAG1_WORDS} {POOL_WORDS} Per page size: "
                     + "; ".join(each) + ". " + GROUP_A_WORDS + said)
    if found.over_time:
        parts.append(over_time_block_sentences(data, found))
    return parts


def precision_sentences(found, data) -> str:
    """How the blocks were weighed when the sweep declared `block_weights: precision`
    (pagelab.evidence.block_weights), and how much the over-time block weighed in each TpmC pair."""
    from pagelab.evidence.model import pair_effect

    within = {size.page_size: size for size in found.components.sizes}
    tpmc = data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records") if not data.pairs.empty else []
    shares = []
    for row in tpmc:
        sides = found.sides(row["a"], row["b"])
        if not (sides and all(sides) and row["a"] in within and row["b"] in within):
            continue
        effect = pair_effect(*sides, within[row["a"]], within[row["b"]], PRECISION)
        if effect is not None and effect.over_time_share is not None:
            shares.append(f"{row['a']} vs {row['b']} {100 * effect.over_time_share:.0f}% (1/{effect.blocks} would be "
                          f"{100 / effect.blocks:.0f}%)")
    weighed = (f" The over-time block's share of the weight: {'; '.join(shares)}." if shares else
               " No over-time block counted here, so the blocks weighed alike as far as their runs' lengths did.")
    return (f"\n\n**The two-level model, blocks weighed by precision.** The two-level model needs every run's "
            f"interval series and {MIN_BLOCKS_FOR_MODEL} or more blocks shared (the rounds, and the over-time runs' block where both page sizes have one): a run's log TpmC varies as a/T + f, a the within-run part (batch means of its interval series) "
            "and f the between-run floor. This sweep declared, before its runs, that TpmC's blocks are weighed by "
            "their precision (`block_weights: precision`): the blocks' log-ratios d_b, each with its within-run "
            "variance w_b = a_A/T_A + a_B/T_B, are combined as a random-effects meta-analysis (statsmodels "
            "combine_effects), each block weighed by 1/(w_b + f_U), f_U the one-sided 95% upper confidence bound "
            "of f from the Q-profile (Viechtbauer 2007), so a long block counts for more only as far as the rounds "
            "can rule out a between-run floor that would make it no better than a round; the variance of the weighted mean is "
            "the Hartung-Knapp-Sidik-Jonkman estimate (Hartung & Knapp 2001; Sidik & Jonkman 2002), at least the "
            f"{100 * FLOOR_QUANTILE:g}% quantile the within-run part alone would give, and the t interval is on the "
            "blocks less one. With blocks alike this is the equal-weight model. Weighing by an upper bound of f is "
            "pagelab's own rule, not a published method (bench/bench_block_weights.py measures its coverage)."
            + weighed)


def over_time_block_sentences(data, found) -> str:
    """How the over-time runs' block is formed and weighted, as pagelab.evidence.model does it
    (`over_time_use`, `pair_effect`), and what of each over-time run counted."""
    from pagelab.evidence.model import DRIFT_ALPHA
    from pagelab.evidence.steady import BATCHES
    from pagelab.evidence.wording import OVER_TIME_RULE, SHARED_WINDOW_RULE, shared_window_words

    runs = data.evidence.runs
    rounds = int(runs["block"].nunique()) if not runs.empty and "block" in runs else 0
    sizes = list(data.page_sizes)
    windows = [words for i, earlier in enumerate(sizes) for later in sizes[i + 1:]
               if (words := shared_window_words(found.long_runs, later, earlier))]
    return (f"\n\n**The over-time block.** The over-time runs form one more block beside the {rounds} rounds: one "
            "run per page size after the rounds, in an order drawn from the random seed as a round's is. In it each "
            "page size's log TpmC is that of the part of its over-time run that counts (below), and "
            f"{SHARED_WINDOW_RULE}; "
            + ("its weight is its precision's, as said above. " if found.weights == PRECISION else
               "each block, this one included, counts once in the mean of the log-ratios (the effect) "
               "and in their sample variance, and the parts' lengths enter only the block's within-run part "
               "a_A/T_A + a_B/T_B, which sets the lower bound above (weighting the block by its smaller within-run variance "
               "would let it dominate exactly when f is least known; a sweep may declare `block_weights: precision` "
               "instead). ")
            + "What of each over-time run counts: MSER-5 "
            "(White 1997) cuts its warm-up: the start whose removal leaves the rest's mean the smallest standard "
            "error, whatever made that start differ (the pool still filling, or a slow stretch after the ramp-up "
            "ended, so the cut may reach past the ramp-up); then the drift test: a least-squares line through the "
            "log of its "
            f"{BATCHES} batch means against time, its slope tested two-sided at {100 * DRIFT_ALPHA:g}% (the t-test of "
            f"a regression slope, on {BATCHES - 2} df, the batch means less 2, scipy.stats.linregress; Jain 1991, "
            f"ch. 14). So {OVER_TIME_RULE}; a slope the test does not call is said as drift not detected. "
            + "; ".join(f"{u.run} counted {u.counted_s:g} s of {u.measured_s:g} s ({u.why})"
                        for u in found.over_time)
            + (". Over the seconds both counted: " + "; ".join(windows) if windows else "")
            + ".")


# How a, the within-run part, is measured (pagelab.evidence.components.within_component, lag1_test).
LAG1_WORDS = ("a comes from batch means. Each run's intervals are grouped into batches of 1, 2, 4, ... intervals, and "
              "the batch size is the smallest whose batch means pass a one-sided lag-1 autocorrelation test at "
              f"{100 * LAG1_ALPHA:g}% (Law 2015, ch. 9.5). The test sets the batch means' lag-1 autocorrelation against "
              "its expected value for a series centred on its own mean (Marriott & Pope 1954), in units of its "
              "standard error 1/√N (Bartlett 1946), where N is the number of batch means tested at that size: the "
              "intervals of the group's runs (below) over the batch size.")


# How a page size's a is formed from its runs (pagelab.evidence.components.within_component).
POOL_WORDS = ("A page size's a pools its runs in groups of alike runs, each group with its own batch size: its verdict "
              "runs together, and each over-time run's counted part on its own. Within a group the batch means' "
              "variance about each run's own mean is pooled over the runs with 2 or more batches; the groups' a are "
              "then pooled by their degrees of freedom (each run's batches less one), so no one long run sets the "
              "batch size for the rest.")


def _pooled_runs(data, sizes) -> dict[str, str]:
    """{page size: ' (batches of 2 intervals, 20 s, from 7 verdict runs, 28 degrees of freedom; of 32
    intervals, 320 s, from 4k-over-time, 2 degrees of freedom: 30 in all)'}: which runs a page size's a
    rests on, as pagelab.evidence.components recorded its groups."""
    def dof_text(dof: float) -> str:
        return f"{dof:g} degree{'s' if dof != 1 else ''} of freedom"

    said = {}
    for size in sizes:
        groups = [g for g in size.groups if g.batches]
        if not groups:
            continue
        parts = []
        for group in groups:
            m = group.lag1.batch_intervals
            whose = f"{len(group.runs)} verdict runs" if len(group.runs) > 1 else group.runs[0]
            parts.append(f"{'batches' if not parts else ''} of {m} interval{'s' if m != 1 else ''}, "
                         f"{group.lag1.batch_s:g} s, from {whose}, {dof_text(group.within_a.dof)}")
        total = f": {size.within_a.dof:g} in all" if len(parts) > 1 else ""
        said[size.page_size] = f" ({'; '.join(parts).strip()}{total})"
    return said


def floor_text(estimate) -> str:
    """'√f = 5.0%', or, where the estimate was cut at 0 (the rounds varied no more than the within-run
    part explains: pagelab.evidence.components.floor_component), '√f = 0.0% (the estimate at its lower
    bound, ...)', so a reader does not take 0.0% for a measured spread of none."""
    if estimate.value <= 0:
        return ("√f = 0.0% (the estimate at its lower bound, 0: the runs varied no more than their within-run part "
                "explains)")
    return f"√f = {100 * math.sqrt(estimate.value):.1f}%"


def floored_pairs(found, data) -> dict[tuple[str, str], tuple[bool, float]]:
    """Each TpmC pair the model judged, (a, b) -> (whether the floor set its variance, its standard error
    of the mean log-ratio), recomputed from the same blocks and components as the verdicts
    (pagelab.evidence.model.pair_effect): the Method and the precision paragraph say it from here."""
    from pagelab.evidence.model import pair_effect

    within = {size.page_size: size for size in found.components.sizes}
    tpmc = data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records") if not data.pairs.empty else []
    tpmc = [row for row in tpmc if str(row.get("method") or "").startswith(MODEL_METHOD)]
    found_pairs = {}
    for row in tpmc:
        sides = found.sides(row["a"], row["b"])
        effect = pair_effect(*sides, within[row["a"]], within[row["b"]], found.weights) if sides and all(sides) \
            and row["a"] in within and row["b"] in within else None
        if effect is not None:
            found_pairs[(row["a"], row["b"])] = (bool(effect.floored), float(effect.se))
    return found_pairs


def _floor_use(found, data) -> str:
    """Whether the floor set the variance of each TpmC pair of this bundle (`floored_pairs`)."""
    used, not_used = [], []
    for (a, b), (floored, se) in floored_pairs(found, data).items():
        (used if floored else not_used).append((f"{a} vs {b}", se))
    if not used and not not_used:
        return "no pair here was judged by the model"

    def named(pairs) -> str:
        return and_listed([name for name, _ in pairs])

    def errors(pairs) -> str:  # on the log scale, as the model works; about a ratio's % for a small one
        return " and ".join(f"{se:.4f}" for _, se in pairs) + " (log scale: 0.01 is about 1%)"

    # each pair's standard error of the mean log-ratio and where it came from, so pairs whose errors
    # agree to three digits are not read as one figure copied (the floor's, or the blocks' own by chance)
    own = (f"their standard error of the mean log-ratio {errors(not_used)}, from the blocks' own sample variance"
           if len(not_used) > 1 else
           f"its standard error of the mean log-ratio {errors(not_used)}, from its blocks' own sample variance")
    if not used:
        return f"in this bundle it set the variance of no pair (each pair's rounds varied more: {named(not_used)}; {own})"
    floored = (f"{'their' if len(used) > 1 else 'its'} standard error of the mean log-ratio {errors(used)}, from "
               "the lower bound")
    near = ""
    if not_used and all(abs(se / used[0][1] - 1) < 0.01 for _, se in not_used):
        near = "; the two kinds agree within 1% here by chance, which is why the lines' half-widths nearly match"
    return (f"in this bundle it set the variance of {named(used)} ({floored})"
            + (f", not of {named(not_used)} ({own}{near})" if not_used else ""))


def block_table(data, first: str, second: str) -> pd.DataFrame:
    """The two-level model's blocks for `first` vs `second` (TpmC), one row each, so that a reader can
    rebuild the effect and its standard error: each side's mean TpmC over what of its run counted
    (exp of the model's log mean rate) and seconds, the block's log-ratio d in log points (100 x),
    and its within-run variance w = a_A/T_A + a_B/T_B in %² (pagelab.evidence.model.pair_effect).
    Empty where the model did not judge the pair (too few blocks, or a verdict line by another method)."""
    import numpy as np

    from pagelab.evidence.model import block_terms
    from pagelab.evidence.runs import model_data

    found = model_data(data.evidence)
    sides = found.sides(first, second) if found is not None else None
    if not (sides and all(sides)):
        return pd.DataFrame()
    within = {size.page_size: size for size in found.components.sizes}
    a, b = sides  # the over-time block over the seconds both runs counted, as the model takes it

    def in_order(name: str) -> tuple:  # round 2 before round 10, the over-time block last
        number = name.rsplit(" ", 1)[-1]
        return (name == OVER_TIME_BLOCK, int(number) if number.isdigit() else 0, name)

    blocks = sorted(set(a) & set(b), key=in_order)
    tpmc = data.pairs[data.pairs["metric"] == "tpmc"] if not data.pairs.empty else data.pairs
    judged = [row for row in tpmc.to_dict("records") if {row["a"], row["b"]} == {first, second}
              and str(row.get("method") or "").startswith(MODEL_METHOD)]
    if len(blocks) < MIN_BLOCKS_FOR_MODEL or not judged:
        return pd.DataFrame()
    d, w = block_terms(a, b, within[first], within[second], blocks)  # the model's own terms
    rows = [{"Block": block, f"{first} TpmC": float(np.exp(a[block][0])), f"{first} s": a[block][1],
             f"{second} TpmC": float(np.exp(b[block][0])), f"{second} s": b[block][1],
             "d_b (log points)": 100 * d_b, "w_b (%²)": 1e4 * w_b} for block, d_b, w_b in zip(blocks, d, w)]
    return pd.DataFrame(rows)


def block_table_text(frame: pd.DataFrame, first: str, second: str) -> str:
    """The sentence under block_table: how the effect and its standard error come from its rows."""
    if frame.empty:
        return ""
    import numpy as np

    d = frame["d_b (log points)"].to_numpy()
    n = len(d)
    from pagelab.evidence.numbers import signed_text

    return (f"The effect of {first} vs {second} is the mean of the {n} blocks' log-ratios d_b (the table's log-ratio column), {signed_text(d.mean(), 2)} "
            f"log points, that is {signed_text(100 * (np.exp(d.mean() / 100) - 1), 1)}%; its standard error is √(s²/{n}), "
            f"s² the log-ratios' sample variance ({d.var(ddof=1):.1f} %²), unless the lower bound (the mean w_b, the table's within-run variance, × the "
            f"{100 * FLOOR_QUANTILE:g}% quantile of χ² on {n - 1} degrees of freedom ÷ {n - 1}) is larger, as the "
            "Method says. The TpmC columns are each side's mean over what of its run counted (in the over-time block, the seconds "
            "both runs counted), so their printed "
            "log-ratio matches d_b up to rounding. Where the sweep declared precision weights, the blocks are "
            "weighed as the Method says, not alike.")


def block_columns(first: str, second: str) -> dict[str, tuple[str, int | None]]:
    """block_table's columns as lab_report.present shows them: header with unit, decimals."""
    return {"Block": ("Block", None), f"{first} TpmC": (f"{first} TpmC", 0), f"{first} s": (f"{first} s counted", 0),
            f"{second} TpmC": (f"{second} TpmC", 0), f"{second} s": (f"{second} s counted", 0),
            "d_b (log points)": ("Log-ratio (log points)", 2), "w_b (%²)": ("Within-run variance (%²)", 2)}
