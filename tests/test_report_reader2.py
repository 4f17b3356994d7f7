"""A second fresh reader's gaps in a course report, each closed by the report saying it from the bundle's
own records: the blocks counted as the rounds and the over-time runs' block, and how that block is
formed and weighted; a floor estimate at its bound and the page size whose within-run noise stands out;
how "no settings changed" was found for a bundle from before the record; which commit to cite; the
methods named and cited; the margin on a per-1000 metric; which page size's read request fails the
claim; which runs each claim was checked on. Expected figures are computed here from the records the
test writes (bundles from bench/synthetic.py, via tests.test_report_words)."""

from __future__ import annotations

import json
import math

import numpy as np

from bench.synthetic import SyntheticDesign
from tests.test_report_words import DESIGN, bundle, load

OVER_TIME = SyntheticDesign(rounds=DESIGN.rounds, effects=DESIGN.effects, within_a=DESIGN.within_a,
                            between_f=DESIGN.between_f, over_time_s=1200)


def _over_time_data(tmp_path):
    return load(bundle(tmp_path, profile={"over_time_s": 1200}, design=OVER_TIME))


# --- 4. 7 or 8: the blocks are the rounds and the over-time runs' block ------------------------------------


def test_the_blocks_are_counted_as_the_rounds_and_the_over_time_runs_block_wherever_they_are_counted(tmp_path):
    from pagelab.evidence.wording import unresolved_advice
    from pagelab.report.model_details import model_sentences
    from pagelab.report.model_report import methods_explained

    data = _over_time_data(tmp_path)
    rounds = OVER_TIME.rounds
    said = f"{rounds + 1} blocks (the {rounds} rounds and the over-time runs' block)"
    rows = data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records")
    assert rows
    for row in rows:
        assert f"two-level model, {said}, t on {rounds} df" in row["method"], row["method"]
        advice = unresolved_advice({**row, "detectable_pct": 22.0, "runs_for_equivalence": math.nan})
        assert advice.startswith(f"these {said} resolve effects of about ±22.0%"), advice
        assert f"these {rounds + 1} rounds" not in advice
    text = model_sentences(data)
    # how the block is formed and weighted, as pagelab.evidence.model does it
    assert f"one more block beside the {rounds} rounds" in text, text
    assert "each block, this one included, counts once in the mean of the log-ratios" in text, text
    assert "a_A/T_A + a_B/T_B" in text
    assert "one more round" not in text
    assert "the blocks less one" in methods_explained(data)


def test_without_over_time_runs_the_blocks_are_the_rounds_as_before(tmp_path):
    from pagelab.evidence.wording import unresolved_advice

    data = load(bundle(tmp_path))
    row = data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records")[0]
    assert row["method"] == f"two-level model, {DESIGN.rounds} blocks, t on {DESIGN.rounds - 1} df"
    advice = unresolved_advice({**row, "detectable_pct": 9.0, "runs_for_equivalence": math.nan})
    assert advice.startswith(f"these {DESIGN.rounds} rounds resolve effects of about ±9.0%"), advice


# --- 3. √f = 0.0% defined; the page size whose within-run noise stands out named ----------------------------


def test_a_floor_at_its_lower_bound_is_said_to_be_one():
    from pagelab.evidence.components import Estimate
    from pagelab.report.model_details import floor_text

    assert floor_text(Estimate(0.0, 0.0, 0.004, 6)) == ("√f = 0.0% (the estimate at its lower bound, 0: the runs "
                                                         "varied no more than their within-run part explains)")
    assert floor_text(Estimate(0.0025, 0.001, 0.01, 6)) == f"√f = {100 * math.sqrt(0.0025):.1f}%"


def test_the_precision_paragraph_names_the_page_size_and_run_whose_within_run_noise_is_far_above_the_others(tmp_path):
    from pagelab.evidence.components import within_component
    from pagelab.evidence.runs import components_of
    from pagelab.report.precision import FAR_ABOVE, precision_markdown

    directory = bundle(tmp_path, profile={"planned_within_a": 3200, "planned_floor_pct": 1.6})
    noisy = "4k-r3"
    path = directory / noisy / "tpcc_intervals.csv"
    lines = path.read_text().splitlines()
    # every other interval a tenth of its count, the others twice theirs: a run far noisier within itself
    rows = [line.split(",") for line in lines[1:]]
    path.write_text(lines[0] + "\n" + "".join(f"{t},{int(int(c) * (2 if i % 2 else 0.1))}\n"
                                              for i, (t, c) in enumerate(rows)))
    data = load(directory)
    components = components_of(data.evidence)
    within = {s.page_size: s.within_a.value for s in components.sizes}
    others = {size: a for size, a in within.items() if size != "4k"}
    assert within["4k"] > FAR_ABOVE * max(others.values())  # the construction did what it should
    text = precision_markdown(data)
    listed = ", ".join(f"{1e4 * a:,.0f} at {size}" for size, a in others.items())
    assert (f"4k's within-run a, {1e4 * within['4k']:,.0f} %²·s, is far above the other page sizes' ({listed})"
            in text), text
    run_a = {run.run: within_component([run])[0].value for run in data.evidence.series if run.page_size == "4k"}
    assert max(run_a, key=run_a.get) == noisy
    assert f"most in {noisy} (a = {1e4 * run_a[noisy]:,.0f} %²·s on its own)" in text, text
    assert "looks at each run's TpmC, not at its noise within, so it need not name such a run" in text
    # a sweep whose page sizes are alike says nothing of the kind
    assert "is far above the other page sizes'" not in precision_markdown(load(bundle(tmp_path / "calm")))


# --- 7. "None" said with how it was found, for a bundle from before the record ------------------------------


def test_no_settings_changed_says_how_it_was_found_for_a_bundle_from_before_the_record(tmp_path):
    from pagelab.report.setup_tables import changed_settings_markdown
    from pagelab.sweep.profiles import load_profile

    shipped = load_profile("course").to_dict()
    knobs = {name: shipped[name] for name in ("repeats", "measure_s", "interval_s", "over_time_s")}
    data = load(bundle(tmp_path, profile=knobs, document={"profile_name": "course"}))
    assert "changed_knobs" not in data.record.document
    text = changed_settings_markdown(data)
    assert ("None found by comparing the knobs sweep.json recorded with the `course` profile as this pagelab ships "
            "it (this bundle predates recording the changed knobs; no `--set` was given)") in text, text
    # a knob the shipped file has another value of is named, not hidden under "None"
    other = load(bundle(tmp_path / "other", profile={**knobs, "repeats": knobs["repeats"] + 1},
                        document={"profile_name": "course"}))
    text = changed_settings_markdown(other)
    assert "None" not in text.split(".**")[1].split(".")[0], text
    assert f"`repeats`: {knobs['repeats']} in the profile, {knobs['repeats'] + 1} used" in text, text
    # a bundle that recorded the changed knobs (none): the plain None
    recorded = load(bundle(tmp_path / "recorded", document={"changed_knobs": {}}))
    assert "**Settings changed for this sweep.** None: it ran the" in changed_settings_markdown(recorded)


# --- 1. which commit to cite --------------------------------------------------------------------------------


def test_the_references_give_the_reports_full_commit_and_which_to_cite():
    from pagelab.report.references import references

    machine = {"git_sha": "a" * 40, "git_dirty": False}
    last = references(machine, rendering=("c" * 40, True))[-1]
    assert f"this report was made by 0.1.0+gccccccc.dirty (commit {'c' * 40}, with local changes)" in last, last
    assert "Cite the sweep's commit for what ran" in last and "the report's for what judged" in last, last
    same = references(machine, rendering=("a" * 40, False))[-1]
    assert "The same commit made this report: cite it for both what ran and what judged." in same, same


# --- 9. the methods named and cited; TOST's α ----------------------------------------------------------------


def test_the_drift_and_lag1_tests_are_named_and_cited_and_tosts_alpha_is_stated(tmp_path):
    from pagelab.evidence.steady import BATCHES
    from pagelab.report.model_details import model_sentences
    from pagelab.report.model_report import words_sentence
    from pagelab.report.references import references

    data = _over_time_data(tmp_path)
    text = model_sentences(data)
    assert (f"the drift test: a least-squares line through the log of its {BATCHES} batch means against time, its "
            f"slope tested two-sided at 5% (the t-test of a regression slope, on {BATCHES - 2} df, the batch means less 2, "
            "scipy.stats.linregress; Jain 1991, ch. 14)") in text, text
    assert "a one-sided lag-1 autocorrelation test at 5% (Law 2015, ch. 9.5" in text, text
    cited = " ".join(references({}))
    for work in ("R. Jain, \"The Art of Computer Systems Performance Analysis\"", "A. M. Law, \"Simulation Modeling "
                 "and Analysis\"", "F. H. C. Marriott, J. A. Pope", "M. S. Bartlett"):
        assert work in cited, work
    levels = sorted({float(v) for v in data.pairs["confidence_pct"].dropna()})
    words = words_sentence(data)
    for level in levels:
        assert f"α = {(100 - level) / 2:.4g}% for a {level:.4g}% interval" in words, words


# --- 10. one relative margin; the hit ratio's in per-1000; a bootstrap interval ending at its estimate -------


def test_the_margin_is_one_relative_delta_and_its_size_on_the_hit_ratio_is_given_in_per_1000(tmp_path):
    import pandas as pd

    from pagelab.report.model_report import margin_sentence

    data = load(bundle(tmp_path))
    medians = pd.Series({"4k": 989.0, "8k": 991.5, "16k": 993.0})
    per_size = data.per_size[data.per_size["metric"] != "hit_ratio"]
    rows = pd.DataFrame([{"metric": "hit_ratio", "page_size": k, "median": v, "runs": 7} for k, v in medians.items()])
    data.per_size = pd.concat([per_size, rows], ignore_index=True)
    text = margin_sentence(data)
    delta = 3.0
    assert f"the same relative ±{delta:g}% for every metric" in text, text
    assert (f"for the hit ratio, whose medians here are {medians.min():.0f}–{medians.max():.0f} per 1000, ±{delta:g}% "
            f"is about ±{delta / 100 * medians.median():.0f} per 1000") in text, text


def test_a_bootstrap_interval_that_ends_at_its_estimate_is_explained():
    import pandas as pd

    from pagelab.report.model_report import bootstrap_end_sentence

    rows = pd.DataFrame([{"metric": "hit_ratio", "a": "16k", "b": "4k", "change_pct": -0.44, "low_pct": -0.49,
                          "high_pct": -0.44, "method": "exact Wilcoxon signed-rank, 7 rounds"},
                         {"metric": "tpmc", "a": "8k", "b": "4k", "change_pct": 1.0, "low_pct": -2.0,
                          "high_pct": 3.0, "method": "exact Wilcoxon signed-rank, 7 rounds"}])
    text = bootstrap_end_sentence(rows)
    assert "16k vs 4k (hit ratio)" in text and "8k vs 4k" not in text, text
    assert "the resampling distribution is discrete" in text
    assert bootstrap_end_sentence(rows.iloc[1:]) == ""


# --- 5. the read request: which page size fails, the threshold, the data device ------------------------------


def test_the_read_request_claim_names_the_page_size_that_fails_its_threshold_and_the_data_device():
    from pagelab.report.claims import failing_request_text, data_device_text

    import pandas as pd

    sizes = pd.DataFrame([{"page_size": "4k", "page_kb": 4.0, "read_kb": 4.41},
                          {"page_size": "8k", "page_kb": 8.0, "read_kb": 8.2}])
    from pagelab.evidence.wording import pct_text

    text = failing_request_text(sizes, 0.10)
    above = pct_text(100 * (4.41 / 4 - 1))
    assert text == (f"it is not within 10% of the page at 4k: 4.41 KiB is {above} against its 4 KiB page (within "
                    f"10% is {4 * 0.9:.2f}–{4 * 1.1:.2f} KiB)"), text
    device = {"disk": "vda", "driver": "virtio_blk", "fstype": "ext4", "mount_point": "/"}
    assert data_device_text({"data_device": device}) == ("the data device, as the machine record has it: vda "
                                                         "(virtio_blk), ext4 mounted on /, the system disk")
    assert data_device_text({}) == ""


# --- 6. which runs each claim was checked on, and the tolerances this sweep met -------------------------------


def test_the_discussion_says_which_runs_each_claim_used_and_which_tolerances_the_sweep_met(tmp_path):
    from pagelab.report.claims import claims, discussion_markdown, tolerances_sentence
    from pagelab.report.figures import checkpoint_run_header

    data = load(bundle(tmp_path, summary={"measure_s": 100}))
    found = claims(data)
    text = discussion_markdown(found)
    runs = len(data.evidence.runs)
    assert f"checked on the {runs} verdict runs ({DESIGN.rounds} rounds)" in text, text
    said = tolerances_sentence(data)
    assert "7 warehouses (the lab's 7)" in said and "8 connections (the lab's 8)" in said, said
    assert "100 s measured (the line: at least 90 s after the ramp-up ended" in said, said
    # every line is said to be pagelab's, with its reason, not the lab's
    assert "are pagelab's, not the lab's" in said and "from the lab's stated 30%" in said, said
    # and when they were drawn, the same words in the report and the runbook
    from pagelab.report.claims import TOLERANCES_WHEN

    assert TOLERANCES_WHEN in said and "not a pre-registration" in TOLERANCES_WHEN, said
    from tests.conftest import REPO_ROOT

    runbook = " ".join((REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text().split())
    assert TOLERANCES_WHEN in runbook
    # the synthetic runs have no iostat: the IOPS pairs are TpmC's rows renamed, enough for the words
    import pandas as pd

    from pagelab.report.claims import _iops_fall

    tpmc = data.pairs[data.pairs["metric"] == "tpmc"]
    kept = data.pairs[~data.pairs["metric"].isin(["read_iops", "write_iops"])]
    data.pairs = pd.concat([kept, tpmc.assign(metric="read_iops"), tpmc.assign(metric="write_iops")],
                           ignore_index=True)
    iops = _iops_fall(data)
    assert "judged on read IOPS because the claim rests on reads" in iops.evidence, iops.evidence
    assert "judged on the two ends of the trend the claim describes, the largest page size against the smallest" in iops.evidence
    assert "; write IOPS, which flushing and the redo log drive" in iops.evidence, iops.evidence
    assert checkpoint_run_header(data) == "Round"
    assert checkpoint_run_header(_over_time_data(tmp_path / "o")) == "Over-time run"


# --- 2. the precision paragraph's spread has its label and unit ------------------------------------------------


def test_the_precision_paragraphs_measured_spread_has_its_label_and_unit(tmp_path):
    from pagelab.evidence.runs import components_of
    from pagelab.report.precision import precision_markdown

    data = load(bundle(tmp_path, profile={"planned_within_a": 3200, "planned_floor_pct": 1.0}))
    pair = components_of(data.evidence).pair("16k", "4k")
    measured = 100 * math.sqrt(pair.within_a.value / 100 + pair.between_f.value)
    text = precision_markdown(data)
    assert (f"So a round's log-ratio spreads √(a/T + f) = {measured:.1f}% at T = 100 s (what `pagelab stats` prints as "
            "\"a round's log-ratio spreads\")") in text, text
    assert f"against this sweep's {measured:.1f}% (its components, above)" in text, text  # said once, pointed to


# --- 12. minor ones ----------------------------------------------------------------------------------------------


def test_the_self_checks_pair_halves_give_their_intervals(tmp_path):
    from pagelab.evidence.self_checks import pair_halves_table
    from pagelab.evidence.wording import pct_text
    from pagelab.report.self_check import self_check_markdown

    data = load(bundle(tmp_path))
    text = self_check_markdown(data.evidence)
    tested = pair_halves_table(data.evidence).dropna(subset=["low_pts"])
    assert not tested.empty
    for row in tested.to_dict("records"):
        said = (f"{row['a']} vs {row['b']} {pct_text(row['difference_pts'], ' points')} "
                f"[{pct_text(row['low_pts'], ' points')}, {pct_text(row['high_pts'], ' points')}]")
        assert said in text, (said, text)
        dof = row["method"].split("Welch-Satterthwaite t on ")[1].split(" df")[0]  # and its df, as Welch's
        assert float(dof) > 0 and f"{said} (t on {dof} df)" in text, (dof, text)


def test_the_request_size_figure_draws_markers_only_between_the_page_sizes():
    import pandas as pd

    from pagelab.report.figures import request_size_vs_page_size

    iostat = pd.DataFrame([{"t_s": 10, "page_size": s, "page_size_bytes": b, "r_s": 100.0, "w_s": 50.0,
                            "rareq_kb": b / 1024, "wareq_kb": 2 * b / 1024}
                           for s, b in (("4k", 4096), ("8k", 8192), ("16k", 16384))])
    figure = request_size_vs_page_size(iostat)
    measured = [line for line in figure.axes[0].get_lines() if line.get_label().endswith("request (rareq-sz)")
                or line.get_label().endswith("request (wareq-sz)")]
    assert len(measured) == 2
    assert all(line.get_linestyle() == "None" for line in measured), [line.get_linestyle() for line in measured]


def test_table_7s_caption_sits_directly_above_its_table():
    from tests.conftest import REPO_ROOT

    notebook = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())
    cell = next("".join(c["source"]) for c in notebook["cells"] if "New-Order p95 per page size" in "".join(c["source"]))
    caption, table, lines = (cell.index("New-Order p95 per page size"), cell.index("present(latency"),
                             cell.index("pair_lines_markdown(data, (\"new_order_p95_ms\",))"))
    assert caption < table < lines, cell


def test_the_method_says_when_the_machines_own_noise_was_not_measured(tmp_path):
    from pagelab.report.method import method_markdown

    data = load(bundle(tmp_path))
    assert data.evidence.noise is None  # the synthetic sweep measured none
    assert ("The machine's own noise was not measured before the runs (`pagelab sweep --noise` measures it)"
            in method_markdown(data))


def test_the_checkpoints_give_tpmc_iops_and_the_hit_ratio_as_the_lab_read_them():
    import pandas as pd

    from pagelab.report.figures import checkpoint_monitors

    base = {"page_size": "4k", "page_size_bytes": 4096, "repeat": 1}
    intervals = pd.DataFrame([{**base, "t_s": t, "new_order": 100 + t} for t in range(10, 1210, 10)])
    iostat = pd.DataFrame([{**base, "t_s": t, "r_s": 2.0 * t, "w_s": 3.0 * t} for t in range(-20, 1200, 30)])
    innodb = pd.DataFrame([{**base, "t_s": t, "hit_rate": 900 + t / 100} for t in range(-15, 1200, 15)])
    table = checkpoint_monitors(intervals, iostat, innodb).set_index("t_s")
    assert list(table.index) == [100, 400, 800, 1100]
    for checkpoint in (100, 400, 800, 1100):
        io_t = min(range(10, 1200, 30), key=lambda t: abs(t - checkpoint))  # iostat at 10, 40, ...: nearest
        hit_t = min(range(0, 1200, 15), key=lambda t: abs(t - checkpoint))
        row = table.loc[checkpoint]
        assert row["tpmc"] == (100 + checkpoint) * 60 / 10
        assert (row["read_iops"], row["write_iops"]) == (2.0 * io_t, 3.0 * io_t)
        assert row["hit_rate"] == 900 + hit_t / 100
