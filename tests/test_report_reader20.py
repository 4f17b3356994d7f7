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


def test_the_knob_table_says_what_each_knob_sets_from_its_declared_help():
    from pagelab.report.appendix import knob_table
    from pagelab.sweep.knobs import KNOBS_BY_NAME, what_it_sets

    assert list(knob_table(_shipped()).columns) == ["Knob", "Value"]  # without the knobs' words, as before
    table = knob_table(_shipped(), what_it_sets)
    sets = dict(zip(table["Knob"], table["What it sets"]))
    # the knobs the reader could not read, in the words `pagelab sweep --help` gives them first (written out here)
    assert sets["spec_pacing"] == ("Keying and think times of TPC-C clause 5.2.5.7 between transactions; off, as in "
                                   "tpcc-mysql, so terminals run back to back.")
    assert sets["target_ci_pct"] == ("With measure_s auto: stop once the 95% interval of TpmC within the run is this "
                                     "close, in percent.")
    assert sets["max_measure_s"] == "The longest an auto measurement may take (the Week 4 lab measured 1200 s)."
    assert sets["nurand"].startswith("Where the skewed draws of customers and items get their constant C: tpcc-mysql")
    assert sets["nurand"].endswith("or spec (one C for the run, TPC-C clause 2.1.6: a narrower hot set).")
    assert sets["cpu_placement"].startswith("shared: the server and the driver may each run on every CPU")
    assert "split: the server on one CPU" in sets["cpu_placement"]  # a list of values' meanings is kept whole
    # a knob of several settings says it once, on its first row
    limits = [knob for knob in table["Knob"] if knob.startswith("response_limits: ")]
    assert len(limits) == 5 and sets[limits[0]].startswith("Limits of the \"90% within\" check in the log, per kind")
    assert all(sets[knob] == "" for knob in limits[1:])
    # a first sentence that is only a value's meaning takes the next; a long one ends at its first clause
    assert sets["over_time_s"].startswith("0: none. Else one more run per page size after the rounds")
    assert sets["rampup_s"] == "Seconds of load before measuring starts, not counted (tpcc-mysql -r)."
    # every declared knob the table names says something, and from its own help
    for knob, text in sets.items():
        name = knob.split(":")[0]
        if name in KNOBS_BY_NAME and text:
            assert text.rstrip(".") in " ".join(KNOBS_BY_NAME[name].help.split()), (knob, text)
        assert text or knob in limits[1:] or knob.startswith("server_options: ") or name not in KNOBS_BY_NAME, knob


def test_the_glossary_defines_cuped_t_star_and_o_and_the_report_prints_them():
    from pagelab.report.references import glossary_markdown, methods_used, references
    from tests.conftest import REPO_ROOT

    text = (REPO_ROOT / "runbooks" / "glossary.md").read_text()
    def entry(term: str) -> str:
        lines = [line for line in text.splitlines() if line.startswith(f"- **{term}**")]
        assert len(lines) == 1, (term, lines)
        return lines[0]

    cuped, t_star, o = entry("CUPED"), entry(r"T\*"), entry("o")
    # CUPED: what it is, its paper, and that pagelab measured it and does not use it (the runbook's section)
    assert "Deng, Xu, Kohavi & Walker 2013" in cuped and "covariate measured before the treatment" in cuped
    assert "pagelab measured it" in cuped and "does not use it" in cuped
    assert "#cuped-checked-why-the-verdicts-take-no-covariate" in cuped
    assert "#### CUPED checked: why the verdicts take no covariate" in (REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text()
    # T* is Kalibera & Jones's √(a·o/f): at the README's a 1,773 %²·s, √f 5.62%, o 33.7 s, √(0.1773 · 33.7 / 0.0562²) = 44 s
    assert "Kalibera & Jones 2013" in t_star and "T* = √(a·o/f)" in t_star and "44 s" in t_star
    assert "T* = √(a·o/f) is 44 s" in (REPO_ROOT / "README.md").read_text()
    assert all(word in o for word in ("restore", "restart", "ramp up", "record", "beyond the seconds it measures"))
    # the report prints the glossary whole (its links become words), and cites Deng et al., marked unused
    printed = glossary_markdown()
    assert "**CUPED** (Deng, Xu, Kohavi & Walker 2013)" in printed and r"**T\*** (Kalibera & Jones 2013" in printed
    assert "(runbook)" in printed.split("**CUPED**")[1].split("\n")[0]
    listed = references({}, used=methods_used(_shipped()))
    deng = [ref for ref in listed if ref.startswith("A. Deng, Y. Xu, R. Kohavi, T. Walker")]
    assert len(deng) == 1 and "WSDM 2013" in deng[0] and "this report's verdicts did not use it" in deng[0], deng


def test_the_readme_says_the_whole_bundle_is_published_nowhere_else_and_what_the_kept_copy_leaves_out():
    from tests.conftest import REPO_ROOT

    readme = _flat((REPO_ROOT / "README.md").read_text())
    assert ("The fixture keeps 1.5 MB of the bundle's 10.7 MB, and the whole bundle is not published anywhere else: "
            "no release, archive or data repository holds it, so this fixture is its record. It holds every file "
            "`pagelab stats` and `pagelab report` read, byte for byte as captured; what it leaves out, neither "
            "reads:") in readme, "README's 'The design `course` ships, measured'"
    # what it says is left out is not in the fixture, for any run; what the analysis reads of a verdict run is
    runs = [path for path in SHIPPED.iterdir() if path.is_dir()]
    assert len(runs) == 27, runs
    for left_out in ("innodb", "run.ipynb", "iostat.json", "mysqld.err", "tpcc.log"):
        assert f"`{left_out}" in readme
        assert not any((run / left_out).exists() for run in runs), left_out
    for kept in ("summary.json", "tpcc_intervals.csv", "innodb.csv", "iostat.csv", "hit_ratio.csv"):
        assert all((run / kept).is_file() for run in runs), kept
