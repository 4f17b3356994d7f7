"""The report's words for how the verdicts were reached, generated from what the evidence used:
which method judged which metric's pairs (each pair row's `method`: TpmC's two-level model,
pagelab.evidence.model, or the node as a random effect, pagelab.evidence.node_model, where they
apply; else the ratio of medians with a bootstrap interval and an exact rank test), the words read
off an interval, the declared primary comparison and the level of each interval, then the model's
variance components and how much of each over-time run counted."""

from __future__ import annotations

import math

from pagelab.evidence.families import PRIMARY
from pagelab.evidence.intervals import CONFIDENCE, MIN_ROUNDS_FOR_PAIRED
from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL, MODEL_METHOD
from pagelab.evidence.node_model import NODE_BLOCKS_METHOD, NODE_MODEL_METHOD
from pagelab.evidence.runs import METRICS, equivalence_of, model_data
from pagelab.evidence.wording import BOOTSTRAP_WORDS, and_listed, floor_note
from pagelab.report.model_details import model_sentences

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


def _metric_clause(metric: str, rows: list[dict]) -> tuple[str, str]:
    """(who, how): "3 pairs", "by the two-level model (t interval)"; pairs judged differently are named."""
    kinds = [kind_of(row) for row in rows]
    if len(set(kinds)) == 1:
        count = f"{len(rows)} pair{'s' if len(rows) != 1 else ''}"
        return count, KIND_WORDS[kinds[0]]
    parts = []
    for kind in dict.fromkeys(kinds):
        pairs = [f"{row['a']} vs {row['b']}" for row, k in zip(rows, kinds) if k == kind]
        parts.append(f"{and_listed(pairs)} {KIND_WORDS[kind]}")
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
            parts.append(f"the {count} each of {and_listed(metrics)} {how}")
    if parts:  # the verb once, in the first clause
        first, _, how = parts[0].partition(" by ")
        parts[0] = f"{first} were judged by {how}" if how else parts[0]
    sentences = [f"In this bundle {'; '.join(parts)}."] if parts else []
    for kind, metrics in unjudged.items():
        listed = and_listed(metrics)
        sentences.append(f"{listed[0].upper()}{listed[1:]} {'has' if len(metrics) == 1 else 'have'} "
                         f"{UNJUDGED_WORDS[kind]}.")
    return " ".join(sentences)


def _tpmc_not_modelled_why(data) -> str:
    """Why TpmC's pairs, or some, fell to the rank tests (the two-level model needs every run's
    interval series and MIN_BLOCKS_FOR_MODEL shared blocks)."""
    found = model_data(data.evidence)
    if found is None:
        return "this bundle's runs kept no interval series"
    if any(value is None for value in found.by_size.values()):
        return "a run kept no interval series"
    return f"fewer than {MIN_BLOCKS_FOR_MODEL} blocks were shared (the rounds, and the over-time runs' block)"


def methods_explained(data) -> str:
    """What each method used in this bundle does, once each, with the rounds it had: a paragraph for
    the two-level model and one for the rank tests, each opening with its name in bold."""
    rows = data.pairs.to_dict("records")
    kinds = {kind_of(row) for row in rows}
    model, ranks = [], []
    if MODEL in kinds:
        model.append("The two-level model takes each block's log-ratio of the pair's TpmC (a block is a round, whose "
                     "runs ran back to back on one machine, within minutes of each other, or the over-time runs' block, below); the effect is the mean of "
                     "those log-ratios, with a t interval on the blocks less one and the matching t-test: the two-stage "
                     "analysis of a mixed model (Giesbrecht & Burns 1985), which with blocks alike is the paired t of "
                     "Jain 1991, ch. 13.4, here with a lower bound from the within-run part. On its lines \"these N blocks "
                     "resolve effects of about ±R%\" is the minimum detectable effect at 80% power (Bloom 1995): "
                     "(t(1 − α/2) + t(0.8)) on the blocks less one, times the standard error of the mean log-ratio "
                     "(the model's, below), made a %; t(p) is the p quantile of Student's t distribution.")
    if NODE_BLOCKS in kinds:  # the mixed model itself is described with the rounds that needed it, below
        model.append("Where the mixed model's fit was singular, the nodes were fixed blocks (least squares) "
                     "instead, as the line says.")
    if kinds & {SIGNED_RANK, RANK_SUM}:
        paired = sorted({int(row["runs_a"]) for row in rows if kind_of(row) == SIGNED_RANK})
        ways = []
        if paired:
            rounds = f"{paired[0]}" if len(paired) == 1 else f"{paired[0]}-{paired[-1]}"
            ways.append(f"the signed-rank test (Wilcoxon 1945) compares round by round, over the {rounds} rounds both "
                        f"page sizes finished, and the bootstrap resamples the rounds whole, as the runs of a round "
                        f"ran back to back on one machine, within minutes of each other")
        if RANK_SUM in kinds:
            ways.append(f"the Mann-Whitney test (Mann & Whitney 1947) compares run by run, where fewer than {MIN_ROUNDS_FOR_PAIRED} "
                        f"rounds were shared, and the bootstrap resamples each side's runs on their own")
        ranks.append("The ratio of medians is called faster or slower only if its rank test agrees; "
                     + "; ".join(ways) + f". Each bootstrap interval is {BOOTSTRAP_WORDS}, the percentile interval "
                     "of Efron & Tibshirani 1993, so the same bundle always gives the same interval."
                     + bootstrap_end_sentence(data.pairs) + " " + RANK_PRECISION_WORDS
                     + (" Run by run (Mann-Whitney) the same is computed from the runs' log spread, on the runs less "
                        "two." if RANK_SUM in kinds else ""))
    tpmc = [kind_of(row) for row in rows if row["metric"] == "tpmc"]
    ranked = [kind in (SIGNED_RANK, RANK_SUM) for kind in tpmc]
    if any(ranked):
        which = "TpmC was" if all(ranked) else "TpmC's other pairs were"
        ranks.append(f"{which} not judged by the two-level model because {_tpmc_not_modelled_why(data)}.")
    return "\n\n".join(f"**{lead}** " + " ".join(parts) for lead, parts in
                       (("The two-level model.", model), ("The ratio of medians and the rank tests.", ranks)) if parts)


# How a rank-tested line's "resolve effects of about ±R%" and "N rounds would show equivalence" are
# computed (pagelab.evidence.intervals.detectable_pct, runs_for_equivalence): a rank test has no
# standard error to ask, so the figures are those of the t interval at the spread the runs showed.
RANK_PRECISION_WORDS = (
    "On these lines \"resolve effects of about ±R%\" is the paired t's minimum detectable effect at the spread the "
    "rounds showed (Bloom 1995): (t(1 − α/2) + t(0.8)) on the rounds less one (t(p) the p quantile of Student's t "
    "distribution), times the standard deviation of the "
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
    return (f" An interval may end at its estimate, as {and_listed(ends)} does: with few rounds the resampled ratios "
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
                f"any run{when}.{primary_history(record, primary[0])} In each metric it was tested first, alone, with a {_levels(primary)} interval; "
                f"{rest}. This fixed sequence (Maurer, Hothorn & Lehmacher 1995; Westfall & Krishen 2001) holds each "
                f"metric's pairs together at {alpha}.{_across(pairs, alpha)}{floor}")
    if m <= 1:
        return f"With one pair per metric there is no family to correct for: the interval is at {_levels(rows)}.{floor}"
    return (f"The {m} pairs of page sizes of one metric form a family: {family}, so the family together is held at "
            f"{alpha}.{_across(pairs, alpha)}{floor}")


# Shipped profiles that declare 16k vs 4k, and how that pair came to be chosen (the README's "The
# headline finding" says it at length): after a sweep of this project had left it not resolved.
PRIMARY_CHOSEN = ("{profile}'s 16k vs 4k was chosen by pagelab's authors on 2026-11-28, after a sweep of this "
                  "project on 2026-11-27 had left it the one pair not resolved (it is the lab's two extremes); the "
                  "project's earlier sweeps of the same question are not corrected for here (README, \"The headline "
                  "finding\").")
SHIPPED_WITH_PRIMARY = ("course", "quick", "pool")


def primary_history(record, row: dict) -> str:
    """' course's 16k vs 4k was chosen ...' for a bundle of a shipped profile declaring that pair: a
    reader citing one report learns that the pair was chosen after an earlier sweep; '' otherwise."""
    name = str((record.document.get("profile_name") if record is not None else "") or "")
    if name not in SHIPPED_WITH_PRIMARY or {row["a"], row["b"]} != {"16k", "4k"}:
        return ""
    return " " + PRIMARY_CHOSEN.format(profile=f"`{name}`")


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
        # a look's time is when it was declared (the sweep made, or rounds added), before its rounds ran
        when = f" (declared {look.time}, before its rounds ran)" if look.time else ""
        room = (f"`max_rounds` was declared as {declared}, the rounds it ran, so no rounds can be added"
                if declared else
                "`max_rounds` was not declared for this sweep (0), so it was made to be analysed once and "
                "`--add-rounds` cannot give it more rounds")
        return (f" {room}: one look, after {look.rounds} round{'s' if look.rounds != 1 else ''}{when}, tested at the full "
                f"{100 * looks.alpha:.2g}% (no group-sequential boundary; a sweep declared with room for more rounds "
                "would be tested at one, Lan & DeMets 1983).")
    each = "; ".join(f"look {look.look} after {look.rounds} rounds{f' (declared {look.time})' if look.time else ''}, "
                     f"|z| ≥ {c:.3f}" for look, c in zip(looks.looks, looks.boundaries()))
    return (f" The sweep was made for at most {looks.max_rounds} rounds (`max_rounds`) and may be analysed after "
            f"each addition of rounds, so each look is tested at a Lan-DeMets O'Brien-Fleming-type boundary that "
            f"spreads the 5% over the looks: {each}. These verdicts are this look's: the pairs' family is held at "
            f"{100 * data.evidence.confidence:.4g}% here.")


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
                f"effect {and_listed([KIND_WORDS[kind] for kind in kinds]) if kinds else 'not at all (no pairs)'}; the "
                f"Summary and the table of the effects at each level give each interval's level."
                + (f" Each bootstrap interval is {BOOTSTRAP_WORDS}." if set(kinds) & {SIGNED_RANK, RANK_SUM} else "")
                + f" {glossary}")
    paragraphs = [f"**How the pairs of page sizes were judged.** {which_method_sentence(data)}",
                  methods_explained(data),
                  f"**The words on each line.** {words_sentence(data)}",
                  f"**The order of the tests and their levels.** {family_sentence(data)}{looks_sentence(data)}"]
    text = "\n\n".join(part for part in paragraphs if part)
    return f"\n\n{text}{model_sentences(data)}\n\n{glossary}"


def pair_lines_markdown(data, metrics: tuple[str, ...]) -> str:
    """Each of `metrics`' families of page-size pairs as `pagelab stats` prints them: the family's
    note, then a verdict line per pair (empty for a metric with no pairs, as in a grid)."""
    from pagelab.evidence.runs import METRICS_BY_NAME
    from pagelab.evidence.wording import family_note, primary_first, verdict_line

    parts = []
    for name in metrics:
        rows = data.pairs[data.pairs["metric"] == name]
        if rows.empty:
            continue
        metric = METRICS_BY_NAME[name]
        parts.append(f"{metric.label}, each pair of page sizes ({family_note(rows)}):\n\n"
                     + "\n".join(f"- {verdict_line(row, metric)}" for row in primary_first(rows)))
    return "\n\n".join(parts)
