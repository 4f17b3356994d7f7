"""The report's one-sentence answer (its Summary and Conclusion) says what the verdict lines say:
a pair after a primary comparison that was not called is "not tested", not "not resolved".
The bundle is a synthetic sweep from bench/synthetic.py with known effects."""

from __future__ import annotations

import math

import numpy as np

from bench.synthetic import SyntheticDesign, sweep, write_bundle
from pagelab.evidence.families import NOT_TESTED, PRIMARY

# 8k truly 30% ahead of both; 16k and 4k alike, so the primary (16k vs 4k) is not called.
EIGHT_K_AHEAD = SyntheticDesign(rounds=7, effects=(0.0, math.log(1.3), 0.0))


def test_the_answer_names_the_pairs_after_an_uncalled_primary_not_tested(tmp_path):
    from pagelab.report.answer import answer
    from pagelab.report.lab_report import load
    from pagelab.report.model_report import family_sentence

    write_bundle(sweep(EIGHT_K_AHEAD, np.random.default_rng(7)), tmp_path / "b", profile={"primary": "16k vs 4k"})
    data = load(tmp_path / "b")
    tpmc = {(row["a"], row["b"]): row for row in data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records")}
    assert tpmc["16k", "4k"]["role"] == PRIMARY and tpmc["16k", "4k"]["verdict"] == "not resolved", tpmc["16k", "4k"]
    assert tpmc["8k", "4k"]["role"] == NOT_TESTED and tpmc["16k", "8k"]["role"] == NOT_TESTED
    text = answer(data)
    # the question the sweep was declared for comes first, at the full 95%
    assert text.startswith("The comparison declared before the sweep, 16k vs 4k: TpmC "), text
    assert text.count("(95% CI), not resolved. ") == 1 and ", not resolved" not in text.split(". ", 1)[1], text
    assert "8k had the highest median TpmC" in text, text
    # each interval with its own level: the two pairs after the primary at Bonferroni's 97.5%
    assert text.count("(97.5% CI), not tested") == 2, text
    assert "8k against 4k and 16k was not tested, as the primary comparison was not called faster or slower" in text
    assert "makes no claim that it is the fastest" in text
    # the Method's family sentence counts the pairs after the primary as the family, not all three
    assert "the other 2 pairs only if it was called faster or slower, then as a family of their own: intervals at " \
           "97.5% (Bonferroni for 2 pairs, Dunn 1961)" in family_sentence(data), family_sentence(data)


def test_the_discussion_calls_the_pairs_after_an_uncalled_primary_not_tested(tmp_path):
    from pagelab.report.claims import _best_8k, _similar
    from pagelab.report.lab_report import load

    write_bundle(sweep(EIGHT_K_AHEAD, np.random.default_rng(7)), tmp_path / "b", profile={"primary": "16k vs 4k"})
    data = load(tmp_path / "b")
    # the lab's "8k is best" and "similar" claims, as checked where the configuration is the lab's,
    # quote the pairs as their verdict lines give them
    found = {claim.key: claim for claim in (_best_8k(data), _similar(data))}
    for key in ("best_8k", "similar"):
        assert "not tested" in found[key].evidence, found[key]
    assert "8k vs 4k +" in found["best_8k"].evidence and "not resolved" not in found["best_8k"].evidence


def test_the_report_gives_each_metric_its_pairs_as_stats_prints_them(tmp_path):
    from pagelab.evidence.wording import verdict_lines
    from pagelab.report.lab_report import load
    from pagelab.report.model_report import pair_lines_markdown

    write_bundle(sweep(EIGHT_K_AHEAD, np.random.default_rng(7)), tmp_path / "b", profile={"primary": "16k vs 4k"})
    data = load(tmp_path / "b")
    metrics = tuple(sorted(set(data.pairs["metric"])))
    text = pair_lines_markdown(data, metrics)
    for metric in metrics:
        lines = verdict_lines(data.evidence, metric)  # what `pagelab stats` prints
        assert lines and all(f"- {line}" in text for line in lines), (metric, text)
    assert text.count("each pair of page sizes (") == len(metrics)
    assert pair_lines_markdown(data, ("no_such_metric",)) == ""
