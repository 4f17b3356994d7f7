"""A fresh reader's gaps in a course report, each closed by the report saying it from the bundle's own
records: the title page's dates, profile and commits; the lab's claims a --set left unchecked; one
orientation per pair; a verdict inside the margin; the first-round check's floor; the model's floor
and its reference; what the family holds at 5%; the precision paragraph's design as run. Expected
figures are computed here from the records the test writes (bundles from bench/synthetic.py)."""

from __future__ import annotations

import json
import math

from tests.test_report_words import bundle, load


def _record(directory):
    from pagelab.bundle import SweepRecord

    return SweepRecord.load(directory)


def test_title_page_gives_the_sweeps_dates_its_set_and_both_commits(tmp_path):
    from pagelab.sweep.report_step import title_rows

    directory = bundle(tmp_path, profile={"overrides": ["over_time_s=0"], "description": "synthetic: about 2 hours"},
                       document={"machine": {"git_sha": "a" * 40, "git_dirty": False}})
    record = _record(directory)
    rows = dict(title_rows(record, rendering=("b" * 40, False)))
    # the bundle's runs: 21 of 150 s from 22:00:00, the last ending 20 x 150 + 140 s later
    last = 20 * 150 + 140
    assert rows["Sweep ran"] == f"2026-11-28 22:00 to {22 + last // 3600}:{last % 3600 // 60:02d} UTC (the date to cite)"
    import time
    assert "Date" not in rows and rows["Report made"] == time.strftime("%Y-%m-%d", time.gmtime())
    assert rows["Profile"] == "synthetic, with over_time_s=0 (set for this sweep)"
    assert "about 2 hours" not in rows["Profile"]
    assert rows["pagelab (sweep)"].startswith("0.1.0+gaaaaaaa (commit " + "a" * 40)
    assert rows["pagelab (report)"].startswith("0.1.0+gbbbbbbb ")
    # made by the same commit: one row, as before
    same = dict(title_rows(record, rendering=("a" * 40, False)))
    assert "pagelab (report)" not in same and same["pagelab"].startswith("0.1.0+gaaaaaaa")


def test_a_set_that_turned_the_over_time_runs_off_is_named_as_why_a_claim_is_not_checked(tmp_path):
    from pagelab.report.answer import conclusion_markdown
    from pagelab.report.claims import NOT_CHECKED, claims, discussion_markdown

    data = load(bundle(tmp_path, profile={"overrides": ["over_time_s=0"]}, summary={"measure_s": 100}))
    found = {claim.key: claim for claim in claims(data)}
    assert found["hit_ratio"].verdict == NOT_CHECKED
    # the verdict runs are the lab's configuration (7 warehouses, 8 connections, 256 MiB of 640-800 MiB, 100 s)
    assert all(found[key].verdict != NOT_CHECKED for key in ("iops_fall", "best_8k", "similar"))
    why = "the over-time runs were not run: over_time_s=0 (set for this sweep)"
    assert found["hit_ratio"].why_unchecked == why
    conclusion = conclusion_markdown(data, list(found.values()))
    assert f"not checked here, as {why}: \u201cThe buffer-pool hit ratio starts near 990/1000" in conclusion
    discussion = discussion_markdown(list(found.values()))
    assert "not the lab's" not in discussion + conclusion and "did not run as" not in conclusion
    assert "the verdict runs measure 100 s after their ramp-up" in discussion


def test_every_sentence_quotes_a_pair_in_the_pairs_tables_orientation_with_its_interval(tmp_path):
    from pagelab.evidence.wording import pct_text
    from pagelab.report.answer import conclusion_markdown
    from pagelab.report.claims import claims, discussion_markdown

    data = load(bundle(tmp_path, summary={"measure_s": 100}))
    found = claims(data)
    text = conclusion_markdown(data, found) + "\n" + discussion_markdown(found)
    for row in data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records"):
        listed = f"{row['a']} vs {row['b']} {pct_text(row['change_pct'])} [{pct_text(row['low_pct'])}, "
        assert listed in text, listed
        # the reverse ratio, 1/(1+x) - 1, is nowhere, in either order of the names
        flipped = pct_text(100 * (1 / (1 + row["change_pct"] / 100) - 1))
        assert f"{row['b']} vs {row['a']}" not in text and f" {flipped} " not in text, (row["a"], row["b"], flipped)
    assert " against 4k:" not in text and " against 16k:" not in text


def test_a_direction_inside_the_margin_says_both_and_the_glossary_states_the_rule():
    from pagelab.common.paths import GLOSSARY
    from pagelab.evidence.wording import verdict_line

    # the course bundle's hit ratio, 16k vs 4k: -0.045% [-0.052%, -0.035%], called lower, inside ±3%
    row = {"a": "16k", "b": "4k", "metric": "hit_ratio", "change_pct": -0.045, "low_pct": -0.052,
           "high_pct": -0.035, "confidence_pct": 95.0, "verdict": "lower", "equivalence_pct": 3.0,
           "p_adjusted": 0.016, "family_size": 1, "runs_a": 7, "runs_b": 7, "paired": True}
    assert ", lower, by less than the ±3% margin (p 0.016)" in verdict_line(row)
    # an interval reaching past the margin: the direction alone
    wide = verdict_line({**row, "low_pct": -3.5, "change_pct": -2.0})
    assert ", lower (p 0.016)" in wide and "margin" not in wide
    entry = next(line for line in GLOSSARY.read_text().splitlines() if line.startswith("- **verdict**"))
    assert "one side of 0 and also inside ±δ, the direction is the verdict" in entry
    assert "*lower, by less than the ±3% margin*" in entry


def test_the_first_round_check_says_when_its_smallest_p_cannot_reach_5_percent(tmp_path):
    from pagelab.evidence.self_checks import first_round_p
    from pagelab.report.self_check import self_check_markdown

    data = load(bundle(tmp_path))
    text = self_check_markdown(data.evidence)
    rounds = 7  # the bundle's design; a rank over 7 rounds is at least 1/7
    assert f"the smallest p this check can give is 1/{rounds} = {1 / rounds:.3g}, above 5%" in text
    assert first_round_p(data.evidence) >= 1 / rounds
    # how the page sizes' ranks make one p: the rounds' scores, and round 1's rank among them
    from pagelab.evidence.self_checks import round_scores

    scores = round_scores(data.evidence)
    rank = int((scores <= scores.loc[1]).sum())
    assert (f"round 1's score ranks {rank} of {rounds} from the lowest, and p is that rank over {rounds}" in text), text
    assert "so that several sweeps' can be combined (Fisher's method" in text, text
    # with 20 rounds 1/20 = 0.05 is not above 5%: nothing said
    from bench.synthetic import SyntheticDesign
    many = load(bundle(tmp_path / "many", design=SyntheticDesign(rounds=20, effects=(0.0, 0.0, 0.0), within_a=0.30,
                                                                  between_f=0.0025)))
    assert "smallest p this check can give" not in self_check_markdown(many.evidence)


def test_the_method_says_the_floor_is_pagelabs_whether_it_bound_each_pair_and_cites_satterthwaite(tmp_path):
    import numpy as np
    from scipy import stats

    from pagelab.evidence.runs import model_data
    from pagelab.report.model_details import model_sentences
    from pagelab.report.references import references

    data = load(bundle(tmp_path))
    found = model_data(data.evidence)
    within = {size.page_size: size.within_a.value for size in found.components.sizes}
    bound, free = [], []
    for row in data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records"):
        a, b = found.by_size[row["a"]], found.by_size[row["b"]]
        blocks = sorted(set(a) & set(b))
        d = np.array([a[k][0] - b[k][0] for k in blocks])
        w = np.array([within[row["a"]] / a[k][1] + within[row["b"]] / b[k][1] for k in blocks])
        n = len(blocks)
        floor = w.mean() * stats.chi2.ppf(0.05, n - 1) / (n - 1)
        (bound if d.var(ddof=1) < floor else free).append(f"{row['a']} vs {row['b']}")
    text = model_sentences(data)
    assert "This lower bound is pagelab's own rule, not a published method" in text
    for name in bound:
        assert name in text.split("set the variance of ")[1].split(", not of")[0].split(" (each")[0], (name, text)
    if not bound:
        assert "it set the variance of no pair" in text
    assert "(Satterthwaite 1946)" in text
    assert any(ref.startswith("F. E. Satterthwaite") and "1946" in ref for ref in references({}))


def test_the_method_says_the_error_is_held_within_each_metric_not_across(tmp_path):
    from pagelab.report.model_report import family_sentence

    data = load(bundle(tmp_path))
    metrics = data.pairs["metric"].nunique()
    assert metrics > 1
    assert (f"The error is controlled within each metric's family, not across the {metrics} metrics"
            in family_sentence(data))


def test_the_precision_paragraph_gives_the_design_as_run_the_planners_half_width_and_which_component_grew(tmp_path):
    from pagelab.evidence.runs import components_of
    from pagelab.report.precision import precision_markdown

    # planned a = 3,200 %²·s and √f = 1.0%: the bundle's floor (√0.0025 = 5%) is far above it
    data = load(bundle(tmp_path, profile={"planned_within_a": 3200, "planned_floor_pct": 1.0}))
    text = precision_markdown(data)
    assert "**Against the plan** (planning figures): the design as run, 7 rounds × 100 s without the over-time runs' block (over_time_s was 0)" in text, text
    assert "for an expected half-width of about ±" in text
    assert "(the planner's, from these planned components: not this sweep's achieved interval, given above)" in text
    pair = components_of(data.evidence).pair("16k", "4k")
    a, f = pair.within_a.value, pair.between_f.value
    assert f"its floor √f was larger ({100 * math.sqrt(f):.1f}% against 1.0%)" in text, text
    grew = "larger" if a > 0.32 else "not"
    assert f"its within-run a was {grew} ({1e4 * a:,.0f} against 3,200 %²·s)" in text, text


def test_tpmcs_family_note_names_the_effect_as_the_glossary_does(tmp_path):
    from pagelab.common.paths import GLOSSARY
    from pagelab.evidence.wording import family_note

    data = load(bundle(tmp_path))
    note = family_note(data.pairs[data.pairs["metric"] == "tpmc"])
    # the effect averages the blocks, the over-time block among them where a pair has one (a reader saw
    # "rounds'" where the report's lines count 9 blocks)
    assert note.startswith("mean of the blocks' log-ratios (the rounds' and, where a pair has one, the over-time "
                           "block's), as a % (the geometric mean of the blocks' ratios)"), note
    assert "mean of the blocks' log-ratios" in GLOSSARY.read_text()


def test_the_pagelab_reference_names_the_commit_that_made_the_report_where_it_differs():
    from pagelab.report.references import references

    machine = {"git_sha": "a" * 40, "git_dirty": False}
    last = references(machine, rendering=("c" * 40, True))[-1]
    assert last.startswith("pagelab 0.1.0+gaaaaaaa (commit " + "a" * 40)
    assert "The sweep ran with this commit; this report was made by 0.1.0+gccccccc.dirty (commit " in last
    assert "report was made by" not in references(machine, rendering=("a" * 40, False))[-1]


def test_the_method_names_each_pair_whose_variance_the_floor_set_when_the_rounds_agree_too_well(tmp_path):
    """Rounds whose log-ratios are the same in every round (each run's series rescaled to one total
    per page size) while each run's own series stays noisy: the rounds' sample variance (~0) is far
    below the 5% chi-square quantile of what the within-run part alone gives, so the floor binds
    for every pair, and the Method says it set each pair's variance."""
    import numpy as np

    from pagelab.report.model_details import model_sentences

    directory = bundle(tmp_path)
    record = json.loads((directory / "sweep.json").read_text())
    totals: dict[str, list[float]] = {}
    series = {}
    for entry in record["runs"]:
        lines = (directory / entry["name"] / "tpcc_intervals.csv").read_text().splitlines()[1:]
        ends, counts = zip(*((float(t), float(c)) for t, c in (line.split(",") for line in lines)))
        series[entry["name"]] = (np.array(ends), np.array(counts))
        totals.setdefault(entry["page_size"], []).append(sum(counts))
    for entry in record["runs"]:
        ends, counts = series[entry["name"]]
        # one total per page size, the within-run shape kept: log TpmC is the same in every round
        scaled = np.rint(counts * np.mean(totals[entry["page_size"]]) / counts.sum())
        (directory / entry["name"] / "tpcc_intervals.csv").write_text(
            "t_s,new_order\n" + "".join(f"{end:g},{int(count)}\n" for end, count in zip(ends, scaled)))
        path = directory / entry["name"] / "summary.json"
        summary = json.loads(path.read_text())
        summary["tpmc"] = float(scaled.sum() / ends[-1] * 60)
        path.write_text(json.dumps(summary))
    data = load(directory)
    text = " ".join(model_sentences(data).split())
    pairs = [f"{row['a']} vs {row['b']}" for row in data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records")]
    assert len(pairs) == 3, pairs
    said = text.split("in this bundle it set the variance of ")[1].split(". The t interval")[0]
    assert "no pair" not in said and ", not of" not in said, text
    for pair in pairs:
        assert pair in said, (pair, text)


def test_a_shipped_profiles_primary_says_when_and_why_it_was_chosen(tmp_path):
    """A reader citing one report learns that `course`'s 16k vs 4k was chosen after an earlier sweep left
    it not resolved (the README's "The headline finding"); a bundle of no shipped profile says nothing of it."""
    from pagelab.report.model_report import PRIMARY_CHOSEN, family_sentence
    from tests.conftest import REPO_ROOT

    shipped = load(REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-29-shipped")
    text = family_sentence(shipped)
    assert PRIMARY_CHOSEN.format(profile="`course`") in text, text
    assert "2026-11-27" in PRIMARY_CHOSEN and "not corrected for" in PRIMARY_CHOSEN
    readme = " ".join((REPO_ROOT / "README.md").read_text().split())
    assert "16k vs 4k became the declared primary comparison on 2026-11-28, after the 2026-11-27 sweep" in readme
    assert "chosen by pagelab's authors" not in family_sentence(load(bundle(tmp_path)))  # a profile of its own
