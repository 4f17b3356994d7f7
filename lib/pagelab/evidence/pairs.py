"""Each pair of page sizes compared, per metric: the table of effects, intervals, p-values and
verdicts that every report, `pagelab stats` and the notebooks read. A sweep's pairs of one metric
are one family (pagelab.evidence.families: Holm-adjusted p-values, Bonferroni-adjusted intervals),
and the margin of "equivalent" is the bundle's `equivalence_pct`. TpmC's pairs are judged by the
two-level model (pagelab.evidence.model) or, when a round spans nodes, with the node as a random
effect (pagelab.evidence.node_model); the other metrics by the rank tests. Two bundles are compared
in pagelab.evidence.two_sweeps. The words for these rows are in pagelab.evidence.wording.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

import pandas as pd

from pagelab.evidence.families import compare_family, primary_pair
from pagelab.evidence.intervals import DEFAULT_RESOLVE_PCT, Comparison, log_spread
from pagelab.evidence.model import pair_effect
from pagelab.evidence.node_model import node_effect, split_rounds
from pagelab.evidence.runs import METRICS, Metric, ModelData, RunTable, _values_by_block, equivalence_of, model_data


# paired: compared round by round (pagelab.evidence.intervals), and then runs_a and runs_b count the
# rounds in which both page sizes finished. confidence_pct: the interval's level (Bonferroni-adjusted
# over family_size pairs); p_value the rank test's, p_adjusted Holm's over the family; detectable_pct the
# minimum detectable effect; runs_for_equivalence the runs a side equivalence_pct would need.
PAIR_COLUMNS = ("metric", "a", "b", "runs_a", "runs_b", "change_pct", "low_pct", "high_pct", "confidence_pct",
                "verdict", "p_value", "p_adjusted", "family_size", "equivalence_pct", "detectable_pct",
                "runs_for_equivalence", "repeats_needed", "resolve_pct", "paired", "method", "role", "test_alone")


def comparison_row(comparison: Comparison, label_a: str, label_b: str, metric: Metric) -> dict:
    return {"metric": metric.name, "a": label_a, "b": label_b, "runs_a": comparison.n_a, "runs_b": comparison.n_b,
            "change_pct": comparison.change_pct, "low_pct": comparison.low_pct, "high_pct": comparison.high_pct,
            "confidence_pct": 100 * comparison.confidence,
            "verdict": comparison.words(metric.higher, metric.lower), "p_value": comparison.p_value,
            "p_adjusted": comparison.p_adjusted, "family_size": comparison.family_size,
            "equivalence_pct": comparison.equivalence_pct, "detectable_pct": comparison.detectable_pct,
            "runs_for_equivalence": comparison.runs_for_equivalence, "repeats_needed": comparison.repeats_needed,
            "resolve_pct": comparison.resolve_pct, "paired": comparison.paired, "method": comparison.method,
            "role": comparison.role, "test_alone": comparison.test_alone}


def primary_index(table: RunTable, pairs: Sequence[tuple[str, str]]) -> int | None:
    """The index in `pairs` ((earlier, later) page sizes) of the bundle's declared primary
    comparison (its profile's `primary`, either way round), or None."""
    declared = primary_pair(table.profile.get("primary") or "")
    if declared is None:
        return None
    return next((i for i, pair in enumerate(pairs) if set(pair) == set(declared)), None)


def pairwise_table(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT,
                   equivalence_pct: float | None = None, metrics: Sequence[Metric] = METRICS) -> pd.DataFrame:
    """Each later page size against each earlier one (8k vs 4k, 16k vs 4k, 16k vs 8k), per metric
    (every metric unless given), round by round where enough rounds finished on both sides; the
    pairs of a metric judged as one family (`compare_family`). Unpaired, the runs needed come from
    the spread pooled over all page sizes of the bundle. equivalence_pct: the bundle's own unless
    given."""
    delta = equivalence_of(table) if equivalence_pct is None else equivalence_pct
    rows = []
    pairs = list(combinations(table.page_order, 2))
    primary = primary_index(table, pairs)
    split = split_rounds(table.runs)
    data = model_data(table) if any(metric.name == "tpmc" for metric in metrics) and not split else None
    for metric in metrics:
        by_size = {size: _values_by_block(table.runs, size, metric.name) for size in table.page_order}
        spread = log_spread([list(values.values()) for values in by_size.values()])
        models = [_tpmc_model(table, data, split, second, first) if metric.name == "tpmc" else None
                  for first, second in pairs]
        found = compare_family([(by_size[second], by_size[first]) for first, second in pairs], spread=spread,
                               resolve_pct=resolve_pct, confidence=table.confidence, equivalence_pct=delta,
                               models=models, primary=primary)
        rows += [comparison_row(comparison, second, first, metric)
                 for (first, second), comparison in zip(pairs, found)]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)  # the columns even with one page size and no pair


def _tpmc_model(table: RunTable, data: ModelData | None, split: list[int], a: str, b: str):
    """TpmC's model of a against b, or None where the rank tests judge. With a round on more than
    one node (`split`), the node as a random effect over all runs (pagelab.evidence.node_model);
    else the two-level model (pagelab.evidence.model), unless the runs kept no series, a run kept
    none, or too few blocks are shared."""
    if split:
        return node_effect(table.runs, "tpmc", a, b)
    return model_effect(data, a, b)


def model_effect(data: ModelData | None, a: str, b: str):
    """The two-level model's estimate of a against b, or None where the rank tests judge: no
    series, a run without one, or too few blocks."""
    sides = data.sides(a, b) if data is not None else None
    if sides is None:
        return None
    within = {size.page_size: size for size in data.components.sizes}
    return pair_effect(*sides, within[a], within[b], data.weights)
