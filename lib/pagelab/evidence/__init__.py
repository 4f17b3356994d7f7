"""What a sweep's runs support: medians with intervals, comparisons with verdicts, and the rules
that decide when a run is warm and when it has measured enough.

    intervals.py  statistics of a handful of runs (median intervals, ratio intervals, one pair's
                  verdict: faster / slower / equivalent within ±delta / not resolved)
    families.py   pairs judged as a family (Holm, Bonferroni), and the difference of two effects
    steady.py     MSER-5 warm-up truncation and batch-means intervals within one run
    components.py the within-run and between-run variance components, from the runs' interval series
    model.py      a pair judged from both components (the two-level model), and what of an over-time run counts
    block_weights.py the model's blocks weighed by their precision (the declared block_weights: precision)
    node_model.py a pair judged with the node as a random effect, when some round's runs span nodes
    nodes.py      what the nodes of a multi-node sweep did
    covariate.py  a pair's effect adjusted by a probe measured before each run (CUPED)
    outliers.py   runs far below their page size's others
    self_checks.py the sweep checked against itself (A/A halves, the first round)
    grid.py       a second factor beside the page size: the effect at each level, and whether it changes
    planner.py    a design (rounds, run length) chosen from measured variance components
    sequential.py group-sequential boundaries for a sweep looked at more than once
    runs.py       a bundle's runs as one table (values per run and metric, blocks, hosts, series)
    medians.py    each page size's median with its order-statistic interval, as a table and lines
    pairs.py      each pair of page sizes compared per metric, as a table
    wording.py    how effects, intervals, verdicts and families read, everywhere they are shown
    numbers.py    how a signed number reads (true minus, no sign at zero, an effect's digits): wording's
                  primitive, which the components and the model print with too
    hosts.py      per-host medians, and whether hosts differ more than page sizes
    stats_text.py what `pagelab stats` prints for one bundle
    two_sweeps.py two bundles compared: effects changed, level moved, knobs differ

The verdict rules are used through these names, so every comparison the project makes (the TPC-C
sweep, `pagelab compare`, the other experiments' reports) means the same thing.
"""

# The names below are loaded when first asked for (PEP 562): importing a submodule for a constant
# (the knobs' default margin, the CLI's help) then does not load statsmodels and scipy.stats.
_EXPORTS = {"families": ("AGREE", "DIFFER", "EffectDifference", "compare_family", "effect_difference",
                         "effect_differences", "holm"),
            "intervals": ("DEFAULT_EQUIVALENCE_PCT", "EQUIVALENT", "FASTER", "NOT_RESOLVED", "SLOWER", "Comparison",
                          "compare", "compare_rounds", "verdict_text")}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    import importlib

    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
