"""A nineteenth fresh reader's gaps in a course report (the shipped course sweep,
tests/fixtures/captured/course-2026-11-29-shipped): the disk's read speed a bundle made before the
knob has not, what "90 s measured" after the ramp-up is, the variance components' notes the Method
left out, where "−0.25 without correlation" comes from, the device's read requests against InnoDB's,
and an over-time run numbered where a page size has one. Expected values are read from the fixture's
files or written here by hand, never computed by the code under test."""

from __future__ import annotations

import json

from tests.test_measured_figures import SHIPPED


def _shipped():
    from pagelab.report.lab_report import load

    return load(SHIPPED)


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- 1. the disk's read speed of a bundle made before the knob --------------------------------------------------


def test_a_bundle_made_before_the_disk_knob_says_why_its_disk_was_not_measured_and_how_to_now():
    from pagelab.cli import advise
    from pagelab.report.appendix import knob_table
    from pagelab.report.setup_tables import system_setup_notes

    # the shipped bundle predates the knob: no record of it, and no host's disk record
    document = json.loads((SHIPPED / "sweep.json").read_text())
    assert "disk_profile" not in document["profile"] and not (SHIPPED / "hosts").exists()
    data = _shipped()
    text = system_setup_notes(data)
    assert ("so this report cannot say what kind of disk it is. The data disk's random reads were not measured: this "
            "sweep was made before pagelab measured them (the knob disk_profile, which sweeps made since take before "
            "their first run).") in text, text
    command = "pagelab advise --keys 1e9 --key-bytes 32 --device DIR"
    assert f"`{command}`, DIR a directory on the disk the runs used, measures them now" in text, text
    # the command it names is one pagelab takes, with those options
    import argparse

    parser = argparse.ArgumentParser()
    advise.register(parser.add_subparsers())
    parsed = parser.parse_args(command.split()[1:])
    assert (parsed.keys, parsed.key_bytes, parsed.device) == ("1e9", "32", "DIR")
    # the Appendix's knob table names the knob the bundle predates, not silently leaves it out
    values = dict(zip(*(knob_table(data)[column] for column in ("Knob", "Value"))))
    assert values["disk_profile"] == ("not recorded: this bundle predates the knob; its data disk's read speed was not "
                                      "measured, as the Setup says under Table 1"), values


# --- 3 and 4. the components' notes in the Method, where "−0.25" comes from, and a lower bound against the plan --


CAPTURED_NOTES = json.loads((SHIPPED / "components.json").read_text())["notes"]  # what the sweep's stats noted


def test_the_lag1_note_says_where_its_value_without_correlation_comes_from():
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import components_of

    # 90 s verdict runs in 10 s intervals, batches of 2 intervals: 4 whole batch means a run, so -1/4
    profile = json.loads((SHIPPED / "sweep.json").read_text())["profile"]
    assert profile["measure_s"] // (2 * profile["interval_s"]) == 4
    assert "lag-1 +0.11 against \u22120.25 without correlation, p 0.022" in CAPTURED_NOTES[0]  # the figure it explains
    notes = components_of(read_runs(SHIPPED)).notes
    assert notes[0] == ("4k: its verdict runs' batch means of up to 2 intervals stay correlated (lag-1 +0.11 against "
                        "\u22120.25 without correlation: uncorrelated batch means centred on their own run's mean have "
                        "lag-1 \u22121/k, k a run's batch means, here \u22121/4 (Marriott & Pope 1954); p 0.022) and "
                        "the runs are too short for longer batches: their part of the within-run a is a lower bound")


def test_the_methods_components_carry_the_notes_stats_prints_and_the_plan_comparison_says_a_is_a_lower_bound():
    from pagelab.report.model_details import model_sentences
    from pagelab.report.precision import precision_markdown

    data = _shipped()
    method = model_sentences(data)
    components = method[method.index("**Variance components.**"):method.index("**The over-time block.**")]
    assert "What `pagelab stats` notes under these components:" in components, components
    # the two Bartlett notes as the sweep's own stats wrote them but for "a's interval" (it read as the verdict's),
    # the lag-1 note in its new words
    for note in CAPTURED_NOTES[1:]:
        assert "and its interval is narrower" in note
        assert f"- {note.replace('and its interval is narrower', 'and a' + chr(39) + 's interval is narrower')}." in components, note
    assert "here \u22121/4 (Marriott & Pope 1954); p 0.022)" in components
    assert "their part of the within-run a is a lower bound." in components
    # the precision paragraph's a (16k 457 + 4k 578) against the profile's planned 1,773: not above it, and a lower
    # bound because 4k's verdict runs' a is one
    precision = _flat(precision_markdown(data))
    assert ("its within-run a was not (1,035 against 1,773 %²·s), and 1,035 is a lower bound (4k's verdict runs' "
            "batch means stay correlated: the Method's notes on the components), so the runs' true a may be "
            "larger") in precision, precision


# --- 5. the device's read requests against InnoDB's, as the numbers show them ------------------------------------


def test_the_method_says_the_device_completed_about_as_many_reads_as_innodb_with_each_page_sizes_figure():
    from pagelab.report.method import load_record_sentence

    text = _flat(load_record_sentence(_shipped()))
    # Section 4.2's figures, as the reader read them: 3,362 against 3,367 a second at 4k is -0.15%
    assert ("the data device completed about as many read requests as InnoDB issued (within 1% either way: "
            "4k \u22120.15%, 8k \u22120.062%, 16k +0.090%; Section 4.2)") in text, text
    assert "no more read requests" not in text


# --- 6. no run number where a page size has one over-time run ------------------------------------------------------


def test_the_checkpoint_tables_number_no_run_where_each_page_size_has_one_over_time_run():
    import pandas as pd

    from pagelab.report.figures import checkpoint_run_column, checkpoint_run_note
    from tests.conftest import REPO_ROOT

    roles = [(run["page_size"], run.get("role")) for run in json.loads((SHIPPED / "sweep.json").read_text())["runs"]]
    assert sorted(size for size, role in roles if role == "over_time") == ["16k", "4k", "8k"]  # one each
    data = _shipped()
    assert checkpoint_run_column(data) == {}
    assert checkpoint_run_note(data) == "Each page size's rows read its one over-time run, run after the rounds."
    # the report's two checkpoint tables take their run column from there, and name none of their own
    cells = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    [source] = ["".join(c["source"]) for c in cells if "figures.checkpoint_table(" in "".join(c["source"])]
    assert source.count("**figures.checkpoint_run_column(data)") == 2 and '"repeat"' not in source, source
    # a page size with a second over-time run: the column is back, numbered
    intervals = data.over_time["tpcc_intervals"]
    second = intervals[intervals["page_size"] == "4k"].assign(repeat=intervals["repeat"].max() + 1)
    data.over_time = {**data.over_time, "tpcc_intervals": pd.concat([intervals, second], ignore_index=True)}
    assert checkpoint_run_column(data) == {"repeat": ("Over-time run", 0)}
    assert checkpoint_run_note(data).startswith("The Over-time run column numbers each page size's over-time runs")


# --- 2. what the verdict runs' 90 s are ----------------------------------------------------------------------------


def test_the_method_says_the_90_s_follow_the_ramp_up_and_what_the_over_time_runs_mser5_cut():
    from pagelab.report.method import method_markdown
    from pagelab.report.seed_configuration import measured_line_note
    from tests.conftest import REPO_ROOT

    data = _shipped()
    method = _flat(method_markdown(data))
    assert "ramp-up until steady state" not in method
    assert ("then 90 s measured from its end. Those 90 s are the seconds after each verdict run's ramp-up ended, which "
            "is what the Discussion's line of at least 90 s compares; they are not a steady state shown to hold "
            "through them.") in method, method
    # what MSER-5 cut from the over-time runs, as the Method's over-time block gives each (p. 6 of the reader's PDF:
    # 4k 200 s, 8k nothing, 16k 300 s)
    assert ("Over-time runs that began after the same ramp-up rule had MSER-5 on their own TpmC cut 200 s (4k), "
            "nothing (8k) and 300 s (16k) as warm-up") in method, method
    assert "so a verdict run's 90 s may include a slower or faster stretch right after its ramp-up" in method
    # the runbook section it cites exists under that title and found what the sentence says
    runbook = (REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text()
    assert "\n#### Is a short run the same measurement?\n" in runbook
    assert "The first 40 s run 2.6-4.1% faster than the rest" in " ".join(runbook.split())
    assert ("the TPC-C runbook's \u201cIs a short run the same measurement?\u201d measured a run's first 40 s after its "
            "ramp-up 2.6\u20134.1% faster than its last 60 s") in method
    # the Discussion's line says what its seconds are; the glossary's words for it no longer say steady state
    assert measured_line_note(data) == (" The line's 90 s are seconds after a verdict run's ramp-up ended, not a steady "
                                        "state shown: the Method says what the over-time runs' own MSER-5 cut after "
                                        "the same ramp-up rule.")
    glossary = " ".join((REPO_ROOT / "runbooks" / "glossary.md").read_text().split())
    assert "runs measuring at least 90 s after their ramp-up" in glossary and "of steady state" not in glossary


def test_readme_says_what_a_bundle_made_before_the_disk_knob_reports():
    from pagelab.report.setup_tables import BEFORE_THE_KNOB
    from tests.conftest import REPO_ROOT

    readme = " ".join((REPO_ROOT / "README.md").read_text().split())
    quoted = "not measured: this sweep was made before pagelab measured them"
    assert f'"{quoted}"' in readme and quoted in BEFORE_THE_KNOB  # the README quotes the report's own words
    assert "`pagelab advise --keys 1e9 --key-bytes 32 --device DIR`" in readme
    assert "`pagelab advise --keys 1e9 --key-bytes 32 --device DIR`" in BEFORE_THE_KNOB


def test_the_lag1_note_of_runs_with_unlike_batch_counts_says_how_minus_1_over_k_is_averaged():
    import math

    from pagelab.evidence.components import RunSeries, variance_components

    # 6 runs of 12 and 6 of 16 intervals, their log rates a straight line: batch means stay correlated at 1, 2 and 4
    # intervals, and 8 leaves too few to test. By hand at 4 intervals, centred batch means (-1, 0, 1) and
    # (-1.5, -0.5, 0.5, 1.5) in units of the step: lag-1 6 x 1.25 / (6 x 2 + 6 x 5) = 0.18, and without correlation
    # (6 x -2/3 + 6 x -3/4) / (6 x 2 + 6 x 3) = -0.28, the runs' -1/k weighted by k - 1
    runs = [RunSeries(f"4k-r{r}", "4k", f"r{r}", tuple(1000 * math.exp(0.01 * i) for i in range(n)), (10.0,) * n,
                      "verdict") for r, n in enumerate([12] * 6 + [16] * 6)]
    [note] = variance_components(runs, ("4k",)).notes
    assert ("batch means of up to 4 intervals stay correlated (lag-1 +0.18 against \u22120.28 without correlation: "
            "uncorrelated batch means centred on their own run's mean have lag-1 \u22121/k, k a run's batch means, "
            "averaged over the runs weighted by k \u2212 1 (Marriott & Pope 1954); p ") in note, note
