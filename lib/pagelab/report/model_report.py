"""The report's words for how the verdicts were reached, generated from what the evidence used:
which method judged which metric's pairs (each pair row's `method`: TpmC's two-level model,
pagelab.evidence.model, or the node as a random effect, pagelab.evidence.node_model, where they
apply; else the ratio of medians with a bootstrap interval and an exact rank test), the words read
off an interval, the declared primary comparison and the level of each interval, then the model's
variance components and how much of each over-time run counted."""

from __future__ import annotations

import math

from pagelab.evidence.block_weights import PRECISION
from pagelab.evidence.components import COMPONENTS_WORDS, GROUP_A_WORDS, LAG1_ALPHA
from pagelab.evidence.families import PRIMARY
from pagelab.evidence.intervals import CONFIDENCE, MIN_ROUNDS_FOR_PAIRED
from pagelab.evidence.model import FLOOR_QUANTILE, MIN_BLOCKS_FOR_MODEL, MODEL_METHOD
from pagelab.evidence.node_model import NODE_BLOCKS_METHOD, NODE_MODEL_METHOD, split_rounds
from pagelab.evidence.runs import METRICS, equivalence_of, model_data
from pagelab.evidence.wording import BOOTSTRAP_WORDS, floor_note

# How a pair was judged, from its row's `method` (what pagelab.evidence wrote when it judged it).
MODEL, NODE, NODE_BLOCKS, SIGNED_RANK, RANK_SUM, NO_INTERVAL, NO_VALUES = (
    "two-level model", "node model", "node blocks", "signed rank", "rank sum", "no interval", "no values")
# The metrics as a sentence names them.
METRIC_WORDS = {"tpmc": "TpmC", "read_iops": "read IOPS", "write_iops": "write IOPS", "hit_ratio": "the hit ratio",
                "new_order_p95_ms": "New-Order p95"}
KIND_WORDS = {MODEL: "by the two-level model (t interval)",
              NODE: "by a mixed model with the node as a random effect (t interval)",
              NODE_BLOCKS: "by the nodes as fixed blocks (t interval)",
              SIGNED_RANK: "by the ratio of medians with a bootstrap interval and the exact Wilcoxon signed-rank test",
              RANK_SUM: "by the ratio of medians with a bootstrap interval and the exact Mann-Whitney test",
              NO_INTERVAL: "not at all (one run on a side: no interval)",
              NO_VALUES: "not at all (no values on a side)"}
# Why a whole metric's pairs have no verdict, as the sentence after the methods says it.
UNJUDGED_WORDS = {NO_INTERVAL: "one run on a side, so no interval and no verdict",
                  NO_VALUES: "no values on a side in this bundle, so no verdict"}


def kind_of(row: dict) -> str:
    """Which method judged a pair row, from its `method` and, without one, why it has none."""
    method = str(row.get("method") or "")
    if method.startswith(MODEL_METHOD):
        return MODEL
    if method.startswith(NODE_BLOCKS_METHOD):
        return NODE_BLOCKS
    if method.startswith(NODE_MODEL_METHOD):
        return NODE
    if "Wilcoxon" in method:
        return SIGNED_RANK
    if "Mann-Whitney" in method:
        return RANK_SUM
    change = row.get("change_pct")
    return NO_VALUES if change is None or (isinstance(change, float) and math.isnan(change)) else NO_INTERVAL


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _metric_clause(metric: str, rows: list[dict]) -> tuple[str, str]:
    """(who, how): "3 pairs", "by the two-level model (t interval)"; pairs judged differently are named."""
    kinds = [kind_of(row) for row in rows]
    if len(set(kinds)) == 1:
        count = f"{len(rows)} pair{'s' if len(rows) != 1 else ''}"
        return count, KIND_WORDS[kinds[0]]
    parts = []
    for kind in dict.fromkeys(kinds):
        pairs = [f"{row['a']} vs {row['b']}" for row, k in zip(rows, kinds) if k == kind]
        parts.append(f"{_listed(pairs)} {KIND_WORDS[kind]}")
    return "pairs", ", ".join(parts)


def which_method_sentence(data) -> str:
    """'In this bundle TpmC's 3 pairs were judged by the two-level model (t interval); the 3 pairs each
    of read IOPS, ... by the ratio of medians ...', from the rows' `method`; metrics judged alike are
    named together, and metrics with no verdict at all said apart."""
    groups: dict[tuple[str, str], list[str]] = {}
    unjudged: dict[str, list[str]] = {}
    for metric in METRICS:
        rows = data.pairs[data.pairs["metric"] == metric.name].to_dict("records")
        kinds = {kind_of(row) for row in rows}
        if len(kinds) == 1 and kinds <= set(UNJUDGED_WORDS):
            unjudged.setdefault(kinds.pop(), []).append(METRIC_WORDS[metric.name])
        elif rows:
            groups.setdefault(_metric_clause(metric.name, rows), []).append(METRIC_WORDS[metric.name])
    parts = []
    for (count, how), metrics in groups.items():
        if count == "pairs":  # judged pair by pair: one clause per metric
            parts += [f"{metric}'s pairs {how}" for metric in metrics]
        elif len(metrics) == 1:
            parts.append(f"{metrics[0]}'s {count} {how}")
        else:
            parts.append(f"the {count} each of {_listed(metrics)} {how}")
    if parts:  # the verb once, in the first clause
        first, _, how = parts[0].partition(" by ")
        parts[0] = f"{first} were judged by {how}" if how else parts[0]
    sentences = [f"In this bundle {'; '.join(parts)}."] if parts else []
    for kind, metrics in unjudged.items():
        listed = _listed(metrics)
        sentences.append(f"{listed[0].upper()}{listed[1:]} {'has' if len(metrics) == 1 else 'have'} "
                         f"{UNJUDGED_WORDS[kind]}.")
    return " ".join(sentences)


def _tpmc_not_modelled_why(data) -> str:
    """Why TpmC's pairs, or some, fell to the rank tests (the two-level model needs every run's
    interval series and MIN_BLOCKS_FOR_MODEL shared rounds)."""
    found = model_data(data.evidence)
    if found is None:
        return "this bundle's runs kept no interval series"
    if any(value is None for value in found.by_size.values()):
        return "a run kept no interval series"
    return f"fewer than {MIN_BLOCKS_FOR_MODEL} rounds were shared"


def methods_explained(data) -> str:
    """What each method used in this bundle does, once each, with the rounds it had."""
    rows = data.pairs.to_dict("records")
    kinds = {kind_of(row) for row in rows}
    parts = []
    if MODEL in kinds:
        parts.append("The two-level model takes each block's log-ratio of the pair's TpmC (a block is a round, whose "
                     "runs share the machine's minute, or the over-time runs' block, below); the effect is the mean of "
                     "those log-ratios, with a t interval on the blocks less one and the matching t-test: the two-stage "
                     "analysis of a mixed model (Giesbrecht & Burns 1985), which with blocks alike is the paired t of "
                     "Jain 1991, ch. 13.4, here with a floor from the within-run part.")
    if NODE_BLOCKS in kinds:  # the mixed model itself is described with the rounds that needed it, below
        parts.append("Where the mixed model's fit was singular, the nodes were fixed blocks (least squares) "
                     "instead, as the line says.")
    if kinds & {SIGNED_RANK, RANK_SUM}:
        paired = sorted({int(row["runs_a"]) for row in rows if kind_of(row) == SIGNED_RANK})
        ways = []
        if paired:
            rounds = f"{paired[0]}" if len(paired) == 1 else f"{paired[0]}-{paired[-1]}"
            ways.append(f"the signed-rank test (Wilcoxon 1945) compares round by round, over the {rounds} rounds both "
                        f"page sizes finished, and the bootstrap resamples the rounds whole, as the runs of a round "
                        f"share the machine's minute")
        if RANK_SUM in kinds:
            ways.append(f"the Mann-Whitney test (Mann & Whitney 1947) compares run by run, where fewer than {MIN_ROUNDS_FOR_PAIRED} "
                        f"rounds were shared, and the bootstrap resamples each side's runs on their own")
        parts.append("The ratio of medians is called faster or slower only if its rank test agrees; "
                     + "; ".join(ways) + f". Each bootstrap interval is {BOOTSTRAP_WORDS}, the percentile interval "
                     "of Efron & Tibshirani 1993, so the same bundle always gives the same interval."
                     + bootstrap_end_sentence(data.pairs) + " " + RANK_PRECISION_WORDS
                     + (" Run by run (Mann-Whitney) the same is computed from the runs' log spread, on the runs less "
                        "two." if RANK_SUM in kinds else ""))
    tpmc = [kind_of(row) for row in rows if row["metric"] == "tpmc"]
    ranked = [kind in (SIGNED_RANK, RANK_SUM) for kind in tpmc]
    if any(ranked):
        which = "TpmC was" if all(ranked) else "TpmC's other pairs were"
        parts.append(f"{which} not judged by the two-level model because {_tpmc_not_modelled_why(data)}.")
    return " ".join(parts)


# How a rank-tested line's "resolve effects of about ±R%" and "N rounds would show equivalence" are
# computed (pagelab.evidence.intervals.detectable_pct, runs_for_equivalence): a rank test has no
# standard error to ask, so the figures are those of the t interval at the spread the runs showed.
RANK_PRECISION_WORDS = (
    "On these lines \"resolve effects of about ±R%\" is the paired t's minimum detectable effect at the spread the "
    "rounds showed (Bloom 1995): (t(1 − α/2) + t(0.8)) on the rounds less one, times the standard deviation of the "
    "rounds' log-ratios over √(rounds), made a %; and \"N rounds would show equivalence\" is the fewest rounds whose "
    "t interval would lie inside ±δ with 80% power when the page sizes are alike (Chow, Shao & Wang 2008), counted "
    "up to 200 (\"more than 200\" past it). Both are figures for a mean: the medians' bootstrap interval resolves "
    "somewhat less than they say.")


def words_sentence(data) -> str:
    """How the word of a line is read off its interval, with the level of each one-sided test of the
    equivalence (TOST: an interval at level 1 - 2α inside ±δ is both tests at α, Schuirmann 1987)."""
    rows = data.pairs.to_dict("records") if not data.pairs.empty else []
    levels = sorted({float(row["confidence_pct"]) for row in rows
                     if not math.isnan(float(row.get("confidence_pct") or math.nan))})
    alphas = "; ".join(f"α = {(100 - level) / 2:.4g}% for a {level:.4g}% interval" for level in levels) or \
        f"α = {100 * (1 - CONFIDENCE) / 2:.4g}% for a {100 * CONFIDENCE:.4g}% interval"
    return (f"Each line gives the effect, its interval with the interval's level (CI: confidence interval), and a "
            f"word read off that interval: faster or slower when it lies wholly on one side of 0 and the pair's "
            f"test, after the correction below, agrees; equivalent within ±{equivalence_of(data.evidence):g}% (the "
            f"sweep's equivalence margin δ, `equivalence_pct`) when it lies inside ±δ, which is the two one-sided "
            f"tests (Schuirmann 1987), each at half of what the interval leaves out ({alphas}): the interval lies inside "
            f"±δ exactly when both one-sided tests reject, so an equivalence is claimed at the line's own level, with "
            f"the same family correction as a direction; else not resolved, "
            f"with the smallest effect the runs resolve and the runs δ would need. {margin_sentence(data)}")


def margin_sentence(data) -> str:
    """That δ is one relative margin for every metric, and what it is on the hit ratio, a per-1000
    figure near 1000, in its own units (its medians here times δ)."""
    delta = equivalence_of(data.evidence)
    text = (f"The margin is the same relative ±{delta:g}% for every metric (of TpmC, of IOPS, of the p95 and of the "
            "hit ratio alike)")
    per_size = data.per_size
    hits = per_size[(per_size["metric"] == "hit_ratio")]["median"].dropna() if not per_size.empty else []
    if len(hits):
        text += (f"; for the hit ratio, whose medians here are {hits.min():.0f}–{hits.max():.0f} per 1000, "
                 f"±{delta:g}% is about ±{delta / 100 * float(hits.median()):.0f} per 1000, so a hit-ratio line "
                 "inside the margin says less than it would of TpmC")
    return text + "."


def bootstrap_end_sentence(pairs) -> str:
    """Why a percentile-bootstrap interval can end at its estimate, naming the lines where one does
    ('' where none does): with few rounds the resampled ratios take few values (the resampling
    distribution is discrete), so a percentile can fall on the estimate itself."""
    from pagelab.evidence.wording import pct_text

    ends = []
    for row in pairs.to_dict("records") if not pairs.empty else []:
        if kind_of(row) not in (SIGNED_RANK, RANK_SUM) or math.isnan(float(row.get("low_pct", math.nan))):
            continue
        effect = pct_text(row["change_pct"])
        if effect in (pct_text(row["low_pct"]), pct_text(row["high_pct"])):
            ends.append(f"{row['a']} vs {row['b']} ({METRIC_WORDS.get(row['metric'], row['metric']).removeprefix('the ')})")
    if not ends:
        return ""
    return (f" An interval may end at its estimate, as {_listed(ends)} does: with few rounds the resampled ratios "
            "take few distinct values (the resampling distribution is discrete), so a percentile can fall on the "
            "estimate itself; the interval is still the bootstrap's, not a sign of no spread.")


def _levels(rows: list[dict]) -> str:
    """'97.5%', or '97.5% or 98.33%' where metrics had different numbers of pairs with an interval;
    the levels of the rows that have an interval."""
    levels = sorted({round(float(row["confidence_pct"]), 4) for row in rows if kind_of(row) not in
                     (NO_VALUES, NO_INTERVAL) and not math.isnan(float(row["confidence_pct"]))})
    return " or ".join(f"{level:.4g}%" for level in levels) if levels else f"{100 * CONFIDENCE:g}%"


def family_sentence(data) -> str:
    """The order in which the pairs were tested and the level of each interval, from the rows'
    roles, family sizes and levels; with the note when the rank tests leave no room for a verdict.
    A bundle's record (when `data` has one) says when the primary comparison was declared."""
    pairs = data.pairs
    tpmc = pairs[pairs["metric"] == "tpmc"]
    floor = floor_note(tpmc) if not tpmc.empty else None
    floor = f" Note: {floor}." if floor else ""
    rows = pairs.to_dict("records")
    if not rows:
        return ""
    alpha = f"{100 * (1 - CONFIDENCE):g}%"
    if all(kind_of(row) in UNJUDGED_WORDS for row in rows):
        return f"No pair has an interval, so none was tested.{floor}"
    primary = [row for row in rows if row.get("role") == PRIMARY]
    others = [row for row in rows if row.get("role") != PRIMARY]
    m = max((int(row["family_size"]) for row in others), default=0)
    family = (f"intervals at {_levels(others)} (Bonferroni for {m} pairs, Dunn 1961) and p-values Holm-adjusted (statsmodels' "
              f"multipletests)")
    if primary:
        record = getattr(data, "record", None)
        declared = (record.document.get("primary") or {}) if record is not None else {}
        when = (f" (sweep.json recorded it when the bundle was made, {declared['declared']}, and it cannot change "
                f"afterwards)" if declared.get("declared") else "")
        rest = (f"the other {m} pairs only if it was called faster or slower, then as a family of their own: {family}"
                if m > 1 else "the other pair only if it was called faster or slower")
        return (f"The primary comparison, {primary[0]['a']} vs {primary[0]['b']}, was declared in the profile before "
                f"any run{when}. In each metric it was tested first, alone, with a {_levels(primary)} interval; "
                f"{rest}. This fixed sequence (Maurer, Hothorn & Lehmacher 1995; Westfall & Krishen 2001) holds each "
                f"metric's pairs together at {alpha}.{_across(pairs, alpha)}{floor}")
    if m <= 1:
        return f"With one pair per metric there is no family to correct for: the interval is at {_levels(rows)}.{floor}"
    return (f"The {m} pairs of page sizes of one metric form a family: {family}, so the family together is held at "
            f"{alpha}.{_across(pairs, alpha)}{floor}")


def _across(pairs, alpha: str) -> str:
    """That the error is held within each metric's family only ('' with one metric)."""
    metrics = pairs["metric"].nunique()
    return (f" The error is controlled within each metric's family, not across the {metrics} metrics: over all "
            f"their lines together the chance of some false call is larger than {alpha}." if metrics > 1 else "")


def looks_sentence(data) -> str:
    """Whether the sweep declared `max_rounds` (room for more rounds, `--add-rounds`), and its looks:
    each with the boundary it was tested at, or the one look at the full level of a sweep made to be
    analysed once. A reader cannot otherwise tell a fixed design from one still growing."""
    looks = data.evidence.looks
    if looks is None:
        return ""
    declared = int(data.profile.get("max_rounds") or 0)
    if not looks.sequential:
        look = looks.looks[-1]
        when = f" ({look.time})" if look.time else ""
        room = (f"`max_rounds` was declared as {declared}, the rounds it ran, so no rounds can be added"
                if declared else
                "`max_rounds` was not declared for this sweep (0), so it was made to be analysed once and "
                "`--add-rounds` cannot give it more rounds")
        return (f" {room}: one look, after {look.rounds} round{'s' if look.rounds != 1 else ''}{when}, tested at the full "
                f"{100 * looks.alpha:.2g}% (no group-sequential boundary; a sweep declared with room for more rounds "
                "would be tested at one, Lan & DeMets 1983).")
    each = "; ".join(f"look {look.look} after {look.rounds} rounds{f' ({look.time})' if look.time else ''}, "
                     f"|z| ≥ {c:.3f}" for look, c in zip(looks.looks, looks.boundaries()))
    return (f" The sweep was made for at most {looks.max_rounds} rounds (`max_rounds`) and may be analysed after "
            f"each addition of rounds, so each look is tested at a Lan-DeMets O'Brien-Fleming-type boundary that "
            f"spreads the 5% over the looks: {each}. These verdicts are this look's: the pairs' family is held at "
            f"{100 * data.evidence.confidence:.4g}% here.")


def model_sentences(data) -> str:
    """The models' details where they judged: the rounds on more than one node, or the two-level
    model's variance components and what of the over-time runs counted."""
    split = split_rounds(data.evidence.runs)
    if split:
        return (f" Round{'s' if len(split) > 1 else ''} {', '.join(map(str, split))} ran on more than one node, so "
                "no round pairs the runs alike: TpmC's pairs are judged from every run of the two page sizes, "
                "unpaired, by a mixed model of log TpmC with the node as a random intercept (REML, statsmodels "
                "MixedLM; Pinheiro & Bates 2000), its t interval on the runs less one per node less one.")
    found = model_data(data.evidence)
    if found is None:
        return ""
    if found.weights == PRECISION:
        return "".join([precision_sentences(found, data), *_components_and_over_time(found, data)])
    parts = [f" The two-level model needs every run's interval series and {MIN_BLOCKS_FOR_MODEL} or more shared "
             f"rounds: a run's log TpmC varies as a/T + f, a the within-run part (batch means of its interval "
             f"series) and f the between-run floor, and the variance of the mean log-ratio is floored by what the "
             f"runs' own noise allows: where the rounds' sample variance of the log-ratio falls below the "
             f"{100 * FLOOR_QUANTILE:g}% quantile it would have from the within-run part alone (f = 0), that quantile "
             f"is used. This floor is pagelab's own rule, not a published method (bench/bench_evidence_model.py "
             f"measures its coverage); {_floor_use(found, data)}. The t interval is on the blocks less one, the degrees "
             f"of freedom Satterthwaite's approximation gives this contrast (Satterthwaite 1946)."]
    return "".join([*parts, *_components_and_over_time(found, data)])


def _components_and_over_time(found, data) -> list[str]:
    parts = []
    sizes = [s for s in found.components.sizes if s.batches and math.isfinite(s.within_a.value)]
    if sizes:
        pooled = _pooled_runs(data, sizes)
        parts.append(f" Components ({LAG1_WORDS}; {POOL_WORDS}): " + "; ".join(
            f"{s.page_size} a = {1e4 * s.within_a.value:,.0f} %²·s{pooled.get(s.page_size, '')}, "
            f"{floor_text(s.between_f)}"
            if math.isfinite(s.between_f.value)
            else f"{s.page_size} a = {1e4 * s.within_a.value:,.0f} %²·s{pooled.get(s.page_size, '')}" for s in sizes)
                     + ". " + COMPONENTS_WORDS + " " + GROUP_A_WORDS)
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
        a, b = found.by_size.get(row["a"]), found.by_size.get(row["b"])
        if not (a and b and row["a"] in within and row["b"] in within):
            continue
        effect = pair_effect(a, b, within[row["a"]], within[row["b"]], PRECISION)
        if effect is not None and effect.over_time_share is not None:
            shares.append(f"{row['a']} vs {row['b']} {100 * effect.over_time_share:.0f}% (1/{effect.blocks} would be "
                          f"{100 / effect.blocks:.0f}%)")
    weighed = (f" The over-time block's share of the weight: {'; '.join(shares)}." if shares else
               " No over-time block counted here, so the blocks weighed alike as far as their runs' lengths did.")
    return (f" The two-level model needs every run's interval series and {MIN_BLOCKS_FOR_MODEL} or more shared "
            "rounds: a run's log TpmC varies as a/T + f, a the within-run part (batch means of its interval series) "
            "and f the between-run floor. This sweep declared, before its runs, that TpmC's blocks are weighed by "
            "their precision (`block_weights: precision`): the blocks' log-ratios d_b, each with its within-run "
            "variance w_b = a_A/T_A + a_B/T_B, are combined as a random-effects meta-analysis (statsmodels "
            "combine_effects), each block weighed by 1/(w_b + f_U), f_U the one-sided 95% upper confidence bound "
            "of f from the Q-profile (Viechtbauer 2007), so a long block counts for more only as far as the rounds "
            "can rule out a floor that would make it no better than a round; the variance of the weighted mean is "
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
    from pagelab.evidence.wording import OVER_TIME_RULE

    runs = data.evidence.runs
    rounds = int(runs["block"].nunique()) if not runs.empty and "block" in runs else 0
    return (f" The over-time runs form one more block beside the {rounds} rounds: one run per page size after the "
            "rounds, in an order drawn from the random seed as a round's is. In it each page size's log TpmC is that "
            "of the part of its over-time run that counts (below), so the block's log-ratio may compare parts of "
            "unequal length; "
            + ("its weight is its precision's, as said above. " if found.weights == PRECISION else
               "each block, this one included, counts once in the mean of the log-ratios (the effect) "
               "and in their sample variance, and the parts' lengths enter only the block's within-run part "
               "a_A/T_A + a_B/T_B, which sets the floor above (weighting the block by its smaller within-run variance "
               "would let it dominate exactly when f is least known; a sweep may declare `block_weights: precision` "
               "instead). ")
            + "What of each over-time run counts: MSER-5 "
            f"(White 1997) cuts its warm-up, then the drift test: a least-squares line through the log of its "
            f"{BATCHES} batch means against time, its slope tested two-sided at {100 * DRIFT_ALPHA:g}% (the t-test of "
            f"a regression slope, on {BATCHES - 2} df, the batch means less 2, scipy.stats.linregress; Jain 1991, "
            f"ch. 14). So {OVER_TIME_RULE}; a slope the test does not call is said as drift not detected. "
            + "; ".join(f"{u.run} counted {u.counted_s:g} s of {u.measured_s:g} s ({u.why})"
                        for u in found.over_time)
            + ".")


# How a, the within-run part, is measured (pagelab.evidence.components.within_component, lag1_test).
LAG1_WORDS = (f"a from batch means: each run's intervals grouped into batches of 1, 2, 4, ... intervals, the smallest "
              f"size whose batch means pass a one-sided lag-1 autocorrelation test at {100 * LAG1_ALPHA:g}% (Law 2015, "
              "ch. 9.5; the expected value of a centred series' autocorrelation after Marriott & Pope 1954, its "
              "standard error 1/√N after Bartlett 1946, N the batch means tested at that size: the group's runs' "
              "intervals over the batch size, the groups as below)")


# How a page size's a is formed from its runs (pagelab.evidence.components.within_component).
POOL_WORDS = ("a page size's a pools its runs in groups of alike runs, each with its own batch size: its verdict "
              "runs together, and each over-time run's counted part on its own; within a group the batch means' "
              "variance about each run's own mean is pooled over the runs with 2 or more batches, and the groups' a "
              "are pooled by their degrees of freedom (each run's batches less one), so no one long run sets the "
              "batch size for the rest")


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
        a, b = found.by_size.get(row["a"]), found.by_size.get(row["b"])
        effect = pair_effect(a, b, within[row["a"]], within[row["b"]], found.weights) if a and b and row["a"] in within \
            and row["b"] in within else None
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
        return _listed([name for name, _ in pairs])

    def errors(pairs) -> str:
        return " and ".join(f"{se:.4f}" for _, se in pairs)

    # each pair's standard error of the mean log-ratio and where it came from, so pairs whose errors
    # agree to three digits are not read as one figure copied (the floor's, or the blocks' own by chance)
    own = (f"their standard error of the mean log-ratio {errors(not_used)}, from the blocks' own sample variance"
           if len(not_used) > 1 else
           f"its standard error of the mean log-ratio {errors(not_used)}, from its blocks' own sample variance")
    if not used:
        return f"in this bundle it set the variance of no pair (each pair's rounds varied more: {named(not_used)}; {own})"
    floored = (f"{'their' if len(used) > 1 else 'its'} standard error of the mean log-ratio {errors(used)}, from "
               "the floor")
    near = ""
    if not_used and all(abs(se / used[0][1] - 1) < 0.01 for _, se in not_used):
        near = "; the two kinds agree within 1% here by chance, which is why the lines' half-widths nearly match"
    return (f"in this bundle it set the variance of {named(used)} ({floored})"
            + (f", not of {named(not_used)} ({own}{near})" if not_used else ""))


def method_markdown(data) -> str:
    """The Method's paragraph on the evidence: which method judged which metric's pairs and what
    each does, the words, the primary and the levels, then the models' details."""
    glossary = ("These words (median interval, effect, CI, margin δ, Holm, round, block, A/A) are defined in the "
                "Glossary at the end.")
    if data.pairs.empty:
        from pagelab.report.grid_report import grid_factor

        factor = grid_factor(data) if len(data.evidence.page_order) > 1 else None
        if factor is None:
            return f"\n\nWith one page size there is no pair to judge. {glossary}"
        from pagelab.evidence.grid import FACTOR_WORDS, effect_table

        kinds = list(dict.fromkeys(kind_of(row) for row in effect_table(data.evidence, factor).to_dict("records")))
        return (f"\n\n**How the pairs of page sizes were judged.** Within each level of the "
                f"{FACTOR_WORDS.get(factor, factor)} the page sizes are judged as in a sweep of their own, TpmC's "
                f"effect {_listed([KIND_WORDS[kind] for kind in kinds]) if kinds else 'not at all (no pairs)'}; the "
                f"Summary and the table of the effects at each level give each interval's level."
                + (f" Each bootstrap interval is {BOOTSTRAP_WORDS}." if set(kinds) & {SIGNED_RANK, RANK_SUM} else "")
                + f" {glossary}")
    text = " ".join(part for part in (which_method_sentence(data), methods_explained(data), words_sentence(data))
                    if part)
    text += " " + family_sentence(data) + looks_sentence(data) + model_sentences(data)
    return f"\n\n**How the pairs of page sizes were judged.** {text} {glossary}"


def pair_lines_markdown(data, metrics: tuple[str, ...]) -> str:
    """Each of `metrics`' families of page-size pairs as `pagelab stats` prints them: the family's
    note, then a verdict line per pair (empty for a metric with no pairs, as in a grid)."""
    from pagelab.evidence.runs import METRICS_BY_NAME
    from pagelab.evidence.wording import family_note, verdict_line

    parts = []
    for name in metrics:
        rows = data.pairs[data.pairs["metric"] == name]
        if rows.empty:
            continue
        metric = METRICS_BY_NAME[name]
        parts.append(f"{metric.label}, each pair of page sizes ({family_note(rows)}):\n\n"
                     + "\n".join(f"- {verdict_line(row, metric)}" for row in rows.to_dict("records")))
    return "\n\n".join(parts)
