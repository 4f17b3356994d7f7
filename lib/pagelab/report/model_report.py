"""The report's words for how the verdicts were reached: the declared primary comparison, the
two-level model and its variance components, and how much of each over-time run counted
(pagelab.evidence.model), or that an older bundle's runs kept no series and the rank tests judged,
or that a round ran on more than one node and the node was a random effect
(pagelab.evidence.node_model)."""

from __future__ import annotations

import math

from pagelab.evidence.intervals import CONFIDENCE
from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL
from pagelab.evidence.node_model import split_rounds
from pagelab.evidence.tables import model_data


def primary_sentence(data) -> str:
    """Which comparison was primary, and that it was declared before the sweep ran."""
    declared = data.record.document.get("primary") or {}
    comparison = declared.get("comparison")
    if not comparison:
        return ""
    alpha = f"{100 * (1 - CONFIDENCE):g}%"
    return (f" The primary comparison, {comparison}, was declared in the profile before any run: sweep.json recorded "
            f"it when the bundle was made ({declared.get('declared', 'at its creation')}), and it cannot change "
            f"afterwards. It is tested first, alone, at the full {alpha}; the other pairs are tested only if it is "
            f"called faster or slower, then as a Holm family of their own (a fixed sequence: Maurer, Hothorn & "
            f"Lehmacher 1995; Westfall & Krishen 2001), so the family's error stays at {alpha}.")


def model_sentences(data) -> str:
    """How TpmC's pairs were judged, with the variance components, and what of the over-time runs counted."""
    split = split_rounds(data.evidence.runs)
    if split:
        return (f" Round{'s' if len(split) > 1 else ''} {', '.join(map(str, split))} ran on more than one node, so "
                "no round pairs the runs alike: TpmC's pairs are judged from every run of the two page sizes, "
                "unpaired, by a mixed model of log TpmC with the node as a random intercept (REML, statsmodels "
                "MixedLM; Pinheiro & Bates 2000), its t interval on the runs less one per node less one. The other "
                "metrics keep the exact rank tests; each line names its method.")
    found = model_data(data.evidence)
    if found is None:
        return (" This bundle's runs kept no interval series, so every pair is judged by the exact rank tests "
                "(Wilcoxon signed-rank round by round, or Mann-Whitney run by run), as each line says.")
    parts = [f" TpmC's pairs are judged by a two-level model where every run kept its interval series and "
             f"{MIN_BLOCKS_FOR_MODEL} or more rounds are shared: a run's log TpmC varies as a/T + f, a the "
             f"within-run part (batch means of its interval series) and f the between-run floor; the effect is "
             f"the mean of the rounds' log-ratios with a t interval on the rounds less one, its variance floored by "
             f"what the runs' own noise allows. The other metrics, and pairs "
             f"without series, keep the exact rank tests; each line names its method."]
    sizes = [s for s in found.components.sizes if s.batches and math.isfinite(s.within_a.value)]
    if sizes:
        parts.append(" Components: " + "; ".join(
            f"{s.page_size} a = {1e4 * s.within_a.value:,.0f} %²·s, √f = "
            f"{100 * math.sqrt(max(s.between_f.value, 0.0)):.1f}%" if math.isfinite(s.between_f.value)
            else f"{s.page_size} a = {1e4 * s.within_a.value:,.0f} %²·s" for s in sizes) + ".")
    if found.over_time:
        parts.append(" The over-time runs are one more round (their order drawn from the random seed, as a round's is): "
                     + "; ".join(f"{u.run} counted {u.counted_s:g} s of {u.measured_s:g} s ({u.why})"
                                 for u in found.over_time) + ".")
    return "".join(parts)


def method_markdown(data) -> str:
    """The Method's paragraph on the evidence: the primary comparison, then the model."""
    text = (primary_sentence(data) + model_sentences(data)).strip()
    return f"\n\n{text}" if text else ""
