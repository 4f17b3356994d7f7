"""A twentieth fresh reader's gaps in a course report (the shipped course sweep,
tests/fixtures/captured/course-2026-11-29-shipped): Bartlett's test of equal variances named in the
components' notes but not in the References, the over-time runs' TpmC in the hit-ratio claim without
its window, a note whose "its interval" read as the verdict's, and knobs the Appendix's table named
without saying what they set. Expected values are read from the fixture's files or written here by
hand, never computed by the code under test."""

from __future__ import annotations

import json

from tests.test_measured_figures import SHIPPED

BARTLETT_1937 = ("M. S. Bartlett, \"Properties of sufficiency and statistical tests\", Proceedings of the Royal Society "
                 "of London A 160, 1937, pp. 268-282")


def _shipped():
    from pagelab.report.lab_report import load

    return load(SHIPPED)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_test_of_equal_variances_the_notes_name_is_in_the_references_marked_where_unused():
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of
    from pagelab.report.references import methods_used, references

    # the shipped sweep's notes print Bartlett's test (4k p 0.0021, 16k p 0.012, as its stats wrote them)
    captured = json.loads((SHIPPED / "components.json").read_text())["notes"]
    assert sum("Bartlett's test p" in note for note in captured) == 2, captured
    notes = components_of(read_runs(SHIPPED)).notes
    assert sum("Bartlett's test p" in note for note in notes) == 2, notes
    listed = references({}, used=methods_used(_shipped()))
    cited = [text for text in listed if text.startswith(BARTLETT_1937)]
    assert len(cited) == 1 and "did not use it" not in cited[0] and "uses it" not in cited[0], cited
    # the 1946 paper on autocorrelation stays, a separate work
    assert any(text.startswith("M. S. Bartlett, \"On the theoretical specification") for text in listed)
    # a bundle whose notes print no such test: listed, and marked so
    listed = references({}, used=set())
    cited = [text for text in listed if text.startswith(BARTLETT_1937)]
    assert len(cited) == 1 and cited[0].endswith(
        "no page size's groups of runs were found to differ in a here, so no note of this report uses it)."), cited


def test_the_groups_note_says_whose_interval_is_too_narrow():
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    notes = [note for note in components_of(read_runs(SHIPPED)).notes if "Bartlett's test" in note]
    assert len(notes) == 2, notes
    for note in notes:
        assert note.endswith("a pools them as one, and a's interval is narrower than the groups' spread warrants"), note


def test_the_hit_ratio_claims_tpmc_says_it_is_each_runs_whole_measurement():
    import pandas as pd

    from pagelab.report.lab_hit_ratio import growth_against_lab
    from tests.conftest import REPO_ROOT

    lab = pd.read_csv(REPO_ROOT / "data" / "reference" / "week4_lab_tpmc.csv").set_index("page_size")["tpmc"]
    summaries = {size: json.loads((SHIPPED / f"{size}-over-time" / "summary.json").read_text())
                 for size in ("4k", "8k", "16k")}
    assert {s["measure_s"] for s in summaries.values()} == {1200}
    # the reader's figures: 4k 24,690 and 16k 21,922 (the block table's 24,316 and 20,872 are over 300-1200 s)
    assert (round(summaries["4k"]["tpmc"]), round(summaries["16k"]["tpmc"])) == (24690, 21922)
    text = _flat(growth_against_lab(_shipped()))
    each = "; ".join(f"{size} {s['tpmc']:,.0f} against {lab[size]:,.0f}" for size, s in summaries.items())
    assert f"(each run's TpmC over its whole 1200 s measurement: {each})" in text, text
