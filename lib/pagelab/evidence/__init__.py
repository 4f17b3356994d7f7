"""What a sweep's runs support: medians with intervals, comparisons with verdicts, and the rules
that decide when a run is warm and when it has measured enough.

    intervals.py  statistics of a handful of runs (median intervals, ratio intervals, verdicts)
    steady.py     MSER-5 warm-up truncation and batch-means intervals within one run
    tables.py     a bundle's runs as tables of evidence, and two bundles compared
"""
