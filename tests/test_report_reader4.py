"""A fourth fresh reader's gaps in a course report, each closed where the report's words are made:
a TpmC effect of the other sign than the medians' ratio explained on page 1 where both are printed,
and the report's precision figures (the achieved half-width, the verdict line's "resolve effects of
about ±R%", the planner's half-width and detectable effect) each said for what it is. Expected
figures are recomputed here from the records the test writes (bundles from bench/synthetic.py, via
tests.test_report_words) and from pagelab.evidence.planner, which the report quotes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tests.test_report_words import bundle, load


def test_the_summary_explains_an_effect_of_the_other_sign_than_the_medians(tmp_path):
    from pagelab.evidence.wording import pct_text
    from pagelab.report.answer import sign_note
    from pagelab.report.lab_report import listed_pair

    data = load(bundle(tmp_path))
    effect = listed_pair(data, "tpmc", "16k", "4k")
    a, b = effect["a"], effect["b"]
    # medians pointing the other way from the pair's effect, and then the same way
    against = 1.1 if effect["change_pct"] < 0 else 0.9
    rows = pd.DataFrame({"page_size": [b, "8k", a], "median": [1000.0, 1200.0, 1000.0 * against]})
    note = sign_note(data, rows)
    ratio = 100 * (against - 1)
    assert (f"{a} vs {b} is {pct_text(effect['change_pct'])} while {a}'s median is {pct_text(ratio)} against {b}'s"
            in note), note
    assert "a median ranks each page size's verdict runs on their own" in note, note
    assert "the effect is the comparison, the medians only describe each page size" in note, note
    along = pd.DataFrame({"page_size": [b, "8k", a], "median": [1000.0, 1200.0, 1000.0 / against]})
    assert sign_note(data, along) == ""


def test_the_precision_paragraph_says_which_figure_is_which(tmp_path):
    from pagelab.evidence import planner
    from pagelab.evidence.runs import components_of
    from pagelab.report.lab_report import pair_of
    from pagelab.report.precision import precision_markdown

    data = load(bundle(tmp_path, profile={"planned_within_a": 3200, "planned_floor_pct": 1.0}))
    text = precision_markdown(data)
    row = pair_of(data, "tpmc", "16k", "4k")
    half = (row["high_pct"] - row["low_pct"]) / 2
    pair = components_of(data.evidence).pair("16k", "4k")
    design = planner.design(pair.within_a.value, max(pair.between_f.value, 0.0), planner.Costs(0.0, 0.0, 1), 7, 100.0,
                            0.05, -math.log(0.95))
    # half the ends' distance is in points, never a ± (every ± in the paragraph is a ratio's distance from 1)
    assert f"half of that {half:.1f} points (points, not a ratio's distance" in text, text
    # the one figure to quote opens the paragraph, before every other figure
    lead = text.split("\n")[0]
    assert (f"**The figure to quote is ±{row['detectable_pct']:.1f}%**, the verdict line's \"resolve effects of "
            f"about\": ±{row['detectable_pct']:.1f}% is the smallest true effect that interval's standard error would "
            "call with 80% power") in lead, lead
    assert (f"For this design the planner's half-width is ±{design.half_width_pct:.1f}% and its 80%-power detectable "
            f"effect {design.detectable_pct:.1f}%, from the variance the components give on average") in text, text
    # compared on the ratio scale the planner uses: the log interval's half-width, back to a ratio
    ratio_half = 100 * (np.exp((np.log(1 + row["high_pct"] / 100) - np.log(1 + row["low_pct"] / 100)) / 2) - 1)
    said = ("about the same" if round(design.half_width_pct, 1) == round(ratio_half, 1) else
            "wider than this sweep's" if design.half_width_pct > ratio_half else "narrower than this sweep's")
    assert f"The planner's half-width is on the ratio scale (on that scale this sweep's interval is ±{ratio_half:.1f}%" in text, text
    assert f"; the planner's half-width is {said}" in text, text
    # every ± of the paragraph is a ratio's distance from 1: the points figure is never written with one
    assert f"±{half:.1f}%" not in text or round(half, 1) == round(ratio_half, 1), text


def test_the_hit_ratio_claim_says_which_end_is_not_near_and_which_samples_it_read():
    from types import SimpleNamespace

    from pagelab.report.claims import DOES_NOT_HOLD, _hit_ratio

    # one run per page size: 4k starts near the lab's 990 and ends far from its 993; 16k is far from the
    # lab's 16k run (993, 993) at both ends
    samples = [("4k", 10.0, 989.0), ("4k", 1200.0, 981.0), ("16k", 9.0, 985.0), ("16k", 1199.0, 974.0)]
    innodb = pd.DataFrame([{"page_size": size, "repeat": 1, "t_s": t, "hit_rate": rate} for size, t, rate in samples])
    data = SimpleNamespace(over_time={"innodb": innodb}, tables={"innodb": innodb}, page_sizes=["4k", "16k"],
                           has_over_time_runs=False)
    claim = _hit_ratio(data)
    assert claim.verdict == DOES_NOT_HOLD
    assert ("4k: 989 → 981 against the lab's 990 → 993 (end not near); 16k: 985 → 974 against the lab's 993 → 993 "
            "(start and end not near)") in claim.evidence, claim.evidence
    # read where the lab read it: the samples nearest 100 s and 1100 s (here the only ones, at 9-10 and 1199-1200 s)
    assert ("the samples nearest its first and last checkpoints, 100 s and 1,100 s, here at 9–10 s and 1199–1200 s of "
            "the measurement") in claim.evidence, claim.evidence


def test_a_tested_line_not_resolved_prints_its_tests_p(tmp_path):
    from pagelab.evidence.wording import unresolved_advice, verdict_line

    row = {"metric": "tpmc", "a": "16k", "b": "4k", "runs_a": 7, "runs_b": 7, "change_pct": 4.7, "low_pct": -9.4,
           "high_pct": 21.0, "confidence_pct": 95.0, "verdict": "not resolved", "p_value": 0.48, "p_adjusted": 0.48,
           "family_size": 1, "equivalence_pct": 3.0, "paired": True, "detectable_pct": 22.0,
           "runs_for_equivalence": 500, "method": "two-level model, 7 blocks, t on 6 df", "role": "primary"}
    assert f"not resolved (p 0.48; {unresolved_advice(row)})" in verdict_line(row), verdict_line(row)
    family = dict(row, family_size=2, p_adjusted=0.3, role="")
    assert "not resolved (p 0.3, Holm; these 7 rounds" in verdict_line(family), verdict_line(family)


def test_the_knob_table_gives_the_analysis_knobs_a_bundle_predates(tmp_path):
    from pagelab.report.appendix import knob_table
    from pagelab.sweep.profiles import load_profile

    shipped = load_profile("course").to_dict()
    table = knob_table(load(bundle(tmp_path, document={"profile_name": "course"})))
    values = dict(zip(table["Knob"], table["Value"]))
    assert values["block_weights"].startswith("equal (not recorded: this bundle predates the knob"), values
    assert values["planned_within_a"].startswith(f"{shipped['planned_within_a']:g} (not recorded"), values
    assert "as this pagelab ships the course profile" in values["planned_floor_pct"], values
    # a bundle that recorded them: its own values, once, without the note
    recorded = knob_table(load(bundle(tmp_path / "r", profile={"block_weights": "precision", "planned_within_a": 3200,
                                                               "planned_floor_pct": 1.6})))
    values = dict(zip(recorded["Knob"], recorded["Value"]))
    assert values["block_weights"] == "precision" and list(recorded["Knob"]).count("block_weights") == 1, values


def test_the_buffer_pool_knobs_help_gives_the_labs_text_and_its_real_pool_as_the_course_profile_runs():
    from pagelab.sweep.knobs import KNOBS_BY_NAME
    from pagelab.sweep.profiles import load_profile

    text = KNOBS_BY_NAME["buffer_pool"].help
    pool = str(load_profile("course").to_dict()["buffer_pool"])
    assert pool in ("256M", "256MiB", str(256 * 2**20)), pool  # what the help's "256 MiB" stands for
    assert "the Week 4 lab's text says 30%, its server really had 256 MiB, which the course profile runs" in text, text


def test_the_request_size_table_shows_the_two_decimals_the_10_percent_line_is_judged_on():
    import json

    from tests.conftest import REPO_ROOT

    cells = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    [source] = ["".join(c["source"]) for c in cells if "Read request (KiB)" in "".join(c["source"])]
    assert '"read_kb": ("Read request (KiB)", 2)' in source and '"write_kb": ("Write request (KiB)", 2)' in source


def test_the_db_size_row_counts_warehouses_in_the_plural(tmp_path):
    from pagelab.report.setup_tables import benchmark_setup

    table = benchmark_setup(load(bundle(tmp_path, profile={"warehouses": 7}))).set_index("Setting")
    assert table.loc["DB size", "This sweep"].endswith("(7 warehouses)"), table.loc["DB size"]
    one = benchmark_setup(load(bundle(tmp_path / "one", profile={"warehouses": 1}))).set_index("Setting")
    assert one.loc["DB size", "This sweep"].endswith("(1 warehouse)"), one.loc["DB size"]


def test_the_labs_checkpoint_table_says_its_interval_is_an_inference_where_it_sits_beside_ours():
    import json

    from tests.conftest import REPO_ROOT

    cells = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    [source] = ["".join(c["source"]) for c in cells if "week4_lab_intervals.csv" in "".join(c["source"])]
    assert "an inference: set beside the table of this" in source and "compare only as far as it holds" in source


def test_the_checkpoint_table_says_it_reads_the_whole_measurement_warm_up_included():
    import json

    from tests.conftest import REPO_ROOT

    cells = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    [source] = ["".join(c["source"]) for c in cells if "figures.checkpoint_table(" in "".join(c["source"])]
    assert "whole measurement, as the lab read them" in source
    # the MSER-5 cut is named only where there is one: in a sweep with over-time runs
    assert (", the warm-up MSER-5 cut from an over-time run's TpmC in the Method included\" if data.has_over_time_runs "
            "else \"\"") in source, source
    assert "enter no verdict" in source


def test_the_docs_floor_quantile_and_power_are_the_codes():
    import re

    from pagelab.evidence import planner
    from pagelab.evidence.model import FLOOR_QUANTILE
    from tests.conftest import REPO_ROOT

    readme = re.sub(r"\s+", " ", (REPO_ROOT / "README.md").read_text())
    glossary = re.sub(r"\s+", " ", (REPO_ROOT / "runbooks" / "glossary.md").read_text())
    quote = readme[readme.index("**Which precision figure to quote.**"):readme.index("**Effect and medians can differ")]
    assert f"bounded below only by the {100 * FLOOR_QUANTILE:g}% quantile" in quote, quote
    assert f"with {100 * planner.DEFAULT_POWER:.0f}% power" in quote, quote
    assert f"never below the {100 * FLOOR_QUANTILE:g}% quantile of what the runs' within-run noise" in glossary
