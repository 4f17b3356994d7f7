"""The report's Method says, for its own bundle, which metric's pairs were judged by which method
and at what level: generated from the pair rows' `method`, so it changes with the evidence. The
bundles are synthetic sweeps from bench/synthetic.py (7 rounds, 16k vs 4k declared primary), given
each run an iostat.csv so that the IOPS have values to compare."""

from __future__ import annotations

import math

import numpy as np

from bench.synthetic import SyntheticDesign, sweep, write_bundle

DESIGN = SyntheticDesign(rounds=7, effects=(0.0, math.log(1.05), -0.05))


def _bundle(directory, with_series: bool):
    write_bundle(sweep(DESIGN, np.random.default_rng(7)), directory, profile={"primary": "16k vs 4k"},
                 with_series=with_series)
    rng = np.random.default_rng(1)
    for run in sorted(path for path in directory.iterdir() if path.is_dir()):
        (run / "iostat.csv").write_text("t_s,r_s,w_s\n" + "".join(
            f"{t},{rng.normal(500, 20):.1f},{rng.normal(300, 10):.1f}\n" for t in range(0, 50, 10)))
    from pagelab.report.lab_report import load

    return load(directory)


def _judged(text: str) -> str:
    return text[text.index("**How the pairs of page sizes were judged.**"):]


def test_the_method_says_tpmc_was_judged_by_the_model_and_the_iops_by_the_rank_tests(tmp_path):
    from pagelab.report.method import method_markdown
    from pagelab.report.model_report import method_markdown as judged_markdown

    data = _bundle(tmp_path / "b", with_series=True)
    methods = {(row["metric"], row["method"].split(",")[0]) for row in data.pairs.to_dict("records") if row["method"]}
    assert methods == {("tpmc", "two-level model"), ("read_iops", "exact Wilcoxon signed-rank"),
                       ("write_iops", "exact Wilcoxon signed-rank")}, methods
    text = _judged(judged_markdown(data))
    assert ("In this bundle TpmC's 3 pairs were judged by the two-level model (t interval); the 3 pairs each of read "
            "IOPS and write IOPS by the ratio of medians with a bootstrap interval and the exact Wilcoxon signed-rank "
            "test.") in text, text
    assert "The hit ratio and New-Order p95 have no values on a side in this bundle, so no verdict." in text
    assert "over the 7 rounds both page sizes finished" in text and "Mann-Whitney" not in text
    assert ("The primary comparison, 16k vs 4k, was declared in the profile before any run" in text
            and "In each metric it was tested first, alone, with a 95% interval; the other 2 pairs only if it was "
                "called faster or slower, then as a family of their own: intervals at 97.5% (Bonferroni for 2 pairs, Dunn 1961)"
            in text), text
    assert "not judged by the two-level model" not in text
    # the set-up paragraph no longer says how pairs are judged: one place says it, for this bundle
    setup = method_markdown(data)
    assert "bootstrap" not in setup and "how each pair of page sizes was judged follows below" in setup, setup


def test_the_method_says_why_tpmc_fell_to_the_rank_tests_when_the_runs_kept_no_series(tmp_path):
    from pagelab.report.model_report import method_markdown

    data = _bundle(tmp_path / "old", with_series=False)
    assert set(data.pairs[data.pairs["metric"] == "tpmc"]["method"]) == {"exact Wilcoxon signed-rank, 7 rounds"}
    text = _judged(method_markdown(data))
    assert ("In this bundle the 3 pairs each of TpmC, read IOPS and write IOPS were judged by the ratio of medians "
            "with a bootstrap interval and the exact Wilcoxon signed-rank test.") in text, text
    assert "TpmC was not judged by the two-level model because this bundle's runs kept no interval series." in text
    assert "two-level model (t interval)" not in text and "t interval on the rounds" not in text


def test_without_a_primary_the_method_gives_the_familys_bonferroni_level(tmp_path):
    from pagelab.report.lab_report import load
    from pagelab.report.model_report import method_markdown

    write_bundle(sweep(DESIGN, np.random.default_rng(7)), tmp_path / "b")
    text = method_markdown(load(tmp_path / "b"))
    assert ("The 3 pairs of page sizes of one metric form a family: intervals at 98.33% (Bonferroni for 3 pairs, Dunn 1961) and "
            "p-values Holm-adjusted") in text, text
    assert "primary" not in text


def test_with_one_run_a_side_the_method_says_no_pair_was_judged(tmp_path):
    from pagelab.report.lab_report import load
    from pagelab.report.model_report import method_markdown

    write_bundle(sweep(SyntheticDesign(rounds=1), np.random.default_rng(7)), tmp_path / "b")
    text = _judged(method_markdown(load(tmp_path / "b")))
    assert "TpmC has one run on a side, so no interval and no verdict." in text, text
    assert "No pair has an interval, so none was tested." in text and "were judged by" not in text
