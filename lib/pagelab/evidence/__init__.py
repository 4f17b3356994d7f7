"""What a sweep's runs support: medians with intervals, comparisons with verdicts, and the rules
that decide when a run is warm and when it has measured enough.

    intervals.py  statistics of a handful of runs (median intervals, ratio intervals, one pair's
                  verdict: faster / slower / equivalent within ±delta / not resolved)
    families.py   pairs judged as a family (Holm, Bonferroni), and the difference of two effects
    steady.py     MSER-5 warm-up truncation and batch-means intervals within one run
    components.py the within-run and between-run variance components, from the runs' interval series
    model.py      a pair judged from both components (the two-level model), and what of an over-time run counts
    tables.py     a bundle's runs as tables of evidence
    two_sweeps.py two bundles compared: effects changed, level moved, knobs differ

The verdict rules are used through these names, so every comparison the project makes (the TPC-C
sweep, `pagelab compare`, the other experiments' reports) means the same thing.
"""

from pagelab.evidence.families import (AGREE, DIFFER, EffectDifference, compare_family, effect_difference,
                                       effect_differences, holm)
from pagelab.evidence.intervals import (DEFAULT_EQUIVALENCE_PCT, EQUIVALENT, FASTER, NOT_RESOLVED, SLOWER,
                                        Comparison, compare, compare_rounds, verdict_text)

__all__ = ["AGREE", "DIFFER", "DEFAULT_EQUIVALENCE_PCT", "EQUIVALENT", "FASTER", "NOT_RESOLVED", "SLOWER",
           "Comparison", "EffectDifference", "compare", "compare_family", "compare_rounds", "effect_difference",
           "effect_differences", "holm", "verdict_text"]
