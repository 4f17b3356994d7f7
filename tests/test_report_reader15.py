"""A fifteenth fresh reader's gaps in a course report, each closed where the words are made: which
runs the verdicts rest on (TpmC's count the over-time runs as one block more; the other metrics' and
the medians do not), where to read why a long run's hit ratio falls, one word for one item, and the
terms the glossary lacked. Expected words come from the shipped course sweep's own lines
(tests/fixtures/captured/course-2026-11-29-shipped) or from the code the glossary describes."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import SHIPPED

GLOSSARY = REPO_ROOT / "runbooks" / "glossary.md"


def plain(text: str) -> str:
    """Markdown's words on one line: line breaks and runs of spaces as one space."""
    return re.sub(r"\s+", " ", text)


def _shipped():
    from pagelab.report.lab_report import load

    return load(SHIPPED)


def test_the_report_says_tpmcs_verdicts_count_the_over_time_runs_where_its_lines_do():
    from pagelab.evidence.model import OVER_TIME_BLOCK_WORDS
    from pagelab.report.seed_configuration import over_time_sentence

    data = _shipped()
    tpmc = data.pairs[data.pairs["metric"] == "tpmc"].set_index(["a", "b"])["method"]
    # the shipped sweep's 8k over-time run drifted, so it counted its first 90 s, which 4k's and 16k's
    # (their 200 and 300 s warm-ups cut) do not share: only 16k vs 4k has the over-time runs' block
    assert OVER_TIME_BLOCK_WORDS in tpmc["16k", "4k"], tpmc
    assert OVER_TIME_BLOCK_WORDS not in tpmc["8k", "4k"] and OVER_TIME_BLOCK_WORDS not in tpmc["16k", "8k"], tpmc
    text = plain(over_time_sentence(data))
    assert ("TpmC's verdict of 16k vs 4k counts their over-time runs too, as one block more, with what of each run "
            "passed MSER-5 and the drift test, each pair's two runs over the seconds both counted") in text, text
    assert "in the other pairs the two runs shared less than a verdict run's length of what counted" in text, text
    assert "every other metric's verdicts, come from the runs in rounds above" in text, text
    # every pair with the block: the sentence counts the runs
    data.pairs["method"] = [str(m).replace("8 blocks, t", f"9 blocks (the 8 rounds {OVER_TIME_BLOCK_WORDS}, t")
                            for m in data.pairs["method"]]
    assert "TpmC's verdicts count the 3 over-time runs too, as one block more" in plain(over_time_sentence(data))
    assert "The verdicts, medians and intervals come from the runs in rounds above" not in text, text
    assert "(s)" not in text, text
    # lines that did not count the block (older bundles, a drifting run): the sentence says the rounds alone
    data.pairs["method"] = [str(m).replace(OVER_TIME_BLOCK_WORDS, ")") for m in data.pairs["method"]]
    text = plain(over_time_sentence(data))
    assert "come from the runs in rounds above, not from the 3 over-time runs" in text, text


def test_the_claims_on_tpmc_name_the_over_time_block_they_rest_on():
    from pagelab.report.claims import TPMC_CLAIMS, claims

    found = {claim.key: claim for claim in claims(_shipped())}
    # only 16k vs 4k's runs shared enough seconds to be a block (the test above): "throughput is similar"
    # rests on every pair, so it names it; "8k is best" on 8k's two pairs, which have no such block
    assert TPMC_CLAIMS == {"similar", "best_8k"}
    assert found["similar"].runs.endswith("and, for 16k vs 4k, the over-time runs' block"), found["similar"].runs
    assert found["best_8k"].runs == "checked on the 24 verdict runs (8 rounds)", found["best_8k"].runs
    # the hit ratio over time rests on the over-time runs alone, as before
    assert found["hit_ratio"].runs == "checked on the 3 over-time runs, one per page size", found["hit_ratio"].runs


def test_a_hit_ratio_that_fell_points_to_the_runbooks_account_of_why():
    from pagelab.report.claims import HIT_RATIO_FALL_SECTION, claims

    assert f"#### {HIT_RATIO_FALL_SECTION}" in (REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text()
    hit = {claim.key: claim for claim in claims(_shipped())}["hit_ratio"]
    # the shipped runs' first and last samples, read here from the claim's own figures: each fell
    falls = re.findall(r"(\d+k): (\d+) → (\d+)", hit.evidence)
    assert len(falls) == 3 and all(int(start) > int(end) + 3 for _, start, end in falls), hit.evidence
    assert f"the ratio fell over the run at 4k, 8k, 16k" in hit.evidence, hit.evidence
    assert HIT_RATIO_FALL_SECTION in hit.evidence, hit.evidence


def test_one_observation_is_this_not_these():
    from dataclasses import replace

    from pagelab.report.answer import conclusion_markdown
    from pagelab.report.claims import DOES_NOT_HOLD, HOLDS, NOT_RESOLVED_HERE, claims

    data = _shipped()
    found = [replace(claim, verdict=NOT_RESOLVED_HERE, caveat="") for claim in claims(data)]
    one = [replace(found[0], verdict=HOLDS), replace(found[1], verdict=DOES_NOT_HOLD)] + found[2:]
    text = plain(conclusion_markdown(data, one))
    assert "this holds here:" in text and "this does not hold here:" in text, text
    assert "these hold here:" not in text and "these do not hold here:" not in text, text
    two = [replace(claim, verdict=HOLDS) for claim in found[:2]] + found[2:]
    text = plain(conclusion_markdown(data, two))
    assert "these hold here:" in text and "this holds here:" not in text, text


def test_the_reports_words_a_reader_could_not_parse_are_gone():
    from pagelab.report.method import method_markdown
    from pagelab.report.model_report import methods_explained

    data = _shipped()
    text = plain(method_markdown(data) + methods_explained(data))
    for unclear in ("machine's minute", "excludes no change", "warehouse(s)", "run(s)", "as the runbook does"):
        assert unclear not in text, unclear


def test_the_glossary_defines_what_the_fifteenth_reader_found_unglossed():
    from pagelab.machine.system import version_naming

    text = GLOSSARY.read_text()
    for term in ("**p-value**", "**power**", "**Bonferroni**", "**percentile bootstrap**",
                 "**the floor's χ² interval, cut at 0**", "**steal**", "**version**"):
        assert re.search(r"^- " + re.escape(term), text, re.M), term
    # the version's form as the glossary gives it, against what pagelab prints
    sha = "66f0a959" + "0" * 32
    assert version_naming(sha, False).endswith("+g66f0a95"), version_naming(sha, False)
    assert version_naming(sha, True).endswith("+g66f0a95.dirty"), version_naming(sha, True)
    assert "`0.1.0+g66f0a95`" in text and "`.dirty`" in text
    assert "not resolved or not tested, or two counts of one thing disagree" in text


def test_the_references_mark_the_methods_this_bundle_did_not_use():
    from pagelab.report.model_report import RANK_SUM, kind_of
    from pagelab.report.references import METHOD_REFERENCES, methods_used, references

    data = _shipped()
    # the shipped sweep: every pair paired (no Mann-Whitney), blocks weighed alike: neither method used
    assert not any(kind_of(row) == RANK_SUM for row in data.pairs.to_dict("records"))
    assert str(data.profile.get("block_weights") or "equal") != "precision"
    listed = references({}, used=methods_used(data))
    marked = [text for text in listed if "this report's verdicts did not use it" in text]
    # all but Bartlett 1937, whose test a note of the shipped sweep's components prints (test_report_reader20);
    # CUPED's paper is the sixth, named in the glossary and never used
    assert len(marked) == sum(len(texts) for texts in METHOD_REFERENCES.values()) - 1 == 6, marked
    assert any(text.startswith("H. B. Mann") for text in marked) and any("Viechtbauer" in text for text in marked)
    # a bundle that declared precision weights uses them: those two are not marked
    data.profile["block_weights"] = "precision"
    listed = references({}, used=methods_used(data))
    assert not any("Viechtbauer" in text and "did not use it" in text for text in listed), listed
    # Maurer, Hothorn & Lehmacher's chapter has its book
    assert any("Maurer" in text and "Biometrie in der chemisch-pharmazeutischen Industrie 6" in text for text in listed)


def test_a_count_that_repeats_at_two_checkpoints_is_said_to_be_two_intervals():
    """The shipped sweep's 16k over-time run counted 3,131 New-Orders in its intervals ending at 800 s
    and at 1,100 s (its tpcc_intervals.csv, read here): Table 9's TpmC repeats, and two readers took it
    for one sample read twice. The caption says they are two intervals, with their p95s."""
    import pandas as pd

    from pagelab.report.figures import checkpoint_table, same_count_note

    raw = pd.read_csv(SHIPPED / "16k-over-time" / "tpcc_intervals.csv").set_index("t_s")
    assert raw.loc[800, "new_order"] == raw.loc[1100, "new_order"] == 3131
    assert raw.loc[800, "new_order_p95_ms"] != raw.loc[1100, "new_order_p95_ms"]
    table = checkpoint_table(_shipped().over_time["tpcc_intervals"])
    note = same_count_note(table)
    assert (f"16k's intervals at 800 s and 1,100 s counted the same 3,131 New-Orders, so the same TpmC: they are "
            f"different intervals, as their New-Order p95 shows ({raw.loc[800, 'new_order_p95_ms']:.1f} and "
            f"{raw.loc[1100, 'new_order_p95_ms']:.1f} ms)") in note, note
    assert "4k" not in note and "8k" not in note, note  # their counts do not repeat
    assert same_count_note(table[table["page_size"] != "16k"]) == ""
