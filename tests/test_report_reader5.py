"""A fifth fresh reader's gaps in a course report and the docs, each closed where the words are made:
what of an over-time run counts when its drift is detected (one rule, said in the same words by the
report's Method, the runbooks and course.yaml), a slope the drift test did not call said as "drift not
detected", never "no drift". Expected figures come from the records the test writes (bundles from
bench/synthetic.py, via tests.test_report_words) or from the code the report quotes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _plain(path: Path) -> str:
    """A doc's text with comment marks and line breaks folded, so a sentence wrapped over lines matches."""
    text = path.read_text()
    text = re.sub(r"^\s*#\s?", "", text, flags=re.M)
    return re.sub(r"\s+", " ", text)


def test_the_over_time_rule_is_said_in_the_same_words_everywhere():
    from pagelab.evidence.wording import OVER_TIME_RULE

    for doc in ("runbooks/slurm.md", "runbooks/tpcc-page-size.md", "runbooks/profiles/course.yaml"):
        text = _plain(ROOT / doc)
        assert OVER_TIME_RULE in text, doc
        # the rule before, which the model never followed: a drifting run still counts, only shorter
        assert "only if they pass" not in text and "when they pass" not in text, doc


def test_the_over_time_rule_is_the_models():
    """The rule's words against what pagelab.evidence.model.over_time_use does: a run with a strong
    slope still enters, cut to a verdict run's length; a flat one enters whole."""
    import numpy as np

    from pagelab.evidence.model import RunSeries, over_time_use

    seconds = (10.0,) * 120
    flat = RunSeries("4k-over-time", "4k", 8, tuple(1000.0 + 5 * np.cos(np.arange(120))), seconds, "over_time")
    part, use = over_time_use(flat, 100.0)
    assert part is not None and use.counted_s == use.measured_s - use.cut_s
    assert use.why.endswith("all of it counts") and "drift not detected" in use.why
    assert "no drift" not in use.why
    rising = RunSeries("16k-over-time", "16k", 8, tuple(1000.0 * np.exp(0.0005 * np.arange(120))), seconds,
                       "over_time")
    part, use = over_time_use(rising, 100.0)
    assert part is not None and use.counted_s == 100.0, use
    assert use.why.startswith(f"MSER-5 cut") and "drift detected" in use.why
    assert "only its first 100 s count" in use.why


def test_the_reports_method_says_the_rule_and_drift_not_detected():
    """The Method's over-time sentences (pagelab.report.model_report) on two runs the drift test judged
    apart: the rule in the docs' words, each run's slope as found, never "no drift"."""
    from types import SimpleNamespace

    import pandas as pd

    from pagelab.evidence.wording import OVER_TIME_RULE
    from pagelab.report.model_details import over_time_block_sentences

    uses = _judged_over_time_runs()
    data = SimpleNamespace(evidence=SimpleNamespace(runs=pd.DataFrame({"block": [1, 2, 3]})))
    data.page_sizes = ["4k", "16k"]
    text = over_time_block_sentences(data, SimpleNamespace(weights="equal", over_time=uses, long_runs=None))
    assert OVER_TIME_RULE in text, text
    assert "no drift" not in text, text
    flat, rising = uses
    assert f"4k-over-time counted {flat.counted_s:g} s of 1200 s (MSER-5 cut" in text and "drift not detected" in text
    assert "16k-over-time counted 100 s of 1200 s (MSER-5 cut nothing; the rest drifts, drift detected (" in text, text
    assert "only its first 100 s count" in text, text


def _judged_over_time_runs():
    """Two over-time runs as pagelab.evidence.model.over_time_use judges them: 4k's flat (drift not
    detected), 16k's rising 0.3% a minute (drift detected, cut to a verdict run's 100 s)."""
    import numpy as np

    from pagelab.evidence.model import RunSeries, over_time_use

    seconds = (10.0,) * 120
    flat = RunSeries("4k-over-time", "4k", 8, tuple(1000.0 + 5 * np.cos(np.arange(120))), seconds, "over_time")
    rising = RunSeries("16k-over-time", "16k", 8, tuple(1000.0 * np.exp(0.0005 * np.arange(120))), seconds,
                       "over_time")
    return [over_time_use(flat, 100.0)[1], over_time_use(rising, 100.0)[1]]


def test_stats_help_says_tpmcs_method_and_the_primary_first():
    """`pagelab stats --help` read from the top: TpmC's two-level model is named before the ratio of
    medians, and the primary-first order before any family adjustment, so a reader who stops halfway
    has neither wrong."""
    import subprocess
    import sys

    text = " ".join(subprocess.run([sys.executable, "-m", "pagelab", "stats", "--help"], capture_output=True,
                                   text=True, check=True).stdout.split())
    text = text.replace("- ", "-")  # argparse wraps at hyphens
    model, medians = text.index("TpmC's pairs are judged by a two-level model"), text.index("ratio of medians")
    primary, holm = text.index("is tested first, alone, at the full level"), text.index("Holm-adjusted")
    assert model < medians and primary < holm, text
    assert "The other metrics' pairs (and TpmC's without series) are a ratio of medians" in text, text


def test_the_read_request_claim_prints_the_digits_that_decide_it():
    """A mean request near the 10% line is printed so the printed value and the printed line read as the
    claim is judged: 4.44 KiB against 'within 10% is 3.60–4.40 KiB', never 4.4 against 4.4."""
    import pandas as pd

    from pagelab.report.claims import decisive_kb, failing_request_text

    for value in (4.44, 4.404, 4.4004, 4.396, 3.596, 4.0):
        shown = float(decisive_kb(value, 4.0, 0.10))
        assert (shown > 4.4) == (value > 4.4) and (shown < 3.6) == (value < 3.6), (value, shown)
    assert decisive_kb(4.44, 4.0, 0.10) == "4.44" and decisive_kb(4.404, 4.0, 0.10) == "4.404"
    text = failing_request_text(pd.DataFrame([{"page_size": "4k", "page_kb": 4.0, "read_kb": 4.404}]), 0.10)
    assert "4k: 4.404 KiB is" in text and "(within 10% is 3.60–4.40 KiB)" in text, text


def test_a_verdict_on_one_run_per_page_size_keeps_its_caveat_in_the_summary_and_conclusion(tmp_path):
    """The seed's configuration (tests.test_claims: one run per page size) checked: its hit-ratio and
    read-request verdicts rest on one run each, so the Summary and Conclusion (both
    answer.conclusion_markdown) say so beside the claim, as the Discussion does."""
    from pagelab.report.answer import conclusion_markdown
    from pagelab.report.claims import ONE_RUN_CAVEAT, claims
    from pagelab.report.lab_report import load
    from tests.test_claims import SEED_CONFIGURATION, seed_bundle

    data = load(seed_bundle(tmp_path / "seed", SEED_CONFIGURATION))
    found = claims(data)
    hit = next(c for c in found if c.key == "hit_ratio")
    assert hit.caveat == ONE_RUN_CAVEAT, hit
    text = conclusion_markdown(data, found)
    # listed under a label that says it rests on one run per page size, not among the verdicts with
    # an interval (three readers read "these do not hold here" followed by the caveat as firm)
    item = next(line for line in text.splitlines() if f"\u201c{hit.statement.rstrip('.')}\u201d" in line)
    assert "on this sweep's one run per page size, with no interval (another run could read otherwise):" in item, item
    assert not item.startswith(("- these hold here:", "- these do not hold here:")), item


def test_a_noisy_page_size_is_said_to_widen_only_the_pairs_the_floor_set():
    """The precision paragraph's sentence on a page size far noisier within its runs
    (precision.noise_reach_text): a enters a pair's variance only through the floor
    (pagelab.evidence.model), so where the floor set no pair's variance the intervals rest on the blocks'
    own spread, and only the planner's figures carry that noise."""
    from pagelab.report.precision import noise_reach_text

    none = {("8k", "4k"): (False, 0.05), ("16k", "4k"): (False, 0.049), ("16k", "8k"): (True, 0.03)}
    text = noise_reach_text("4k", none)
    assert "the lower bound set the variance of no pair with 4k here" in text, text
    assert "8k vs 4k and 16k vs 4k rest on the blocks' own spread, not on that noise" in text, text
    assert "widen" not in text and "planner's figures" in text, text
    some = {("8k", "4k"): (True, 0.05), ("16k", "4k"): (False, 0.049)}
    text = noise_reach_text("4k", some)
    assert "it widened 8k vs 4k; 16k vs 4k rests on the blocks' own spread" in text, text
    troubleshooting = _plain(ROOT / "runbooks/troubleshooting.md")
    assert "widens every pair" not in troubleshooting
    assert "it widens a pair's interval only where the model's lower bound set that pair's variance" in troubleshooting


def test_the_precision_paragraph_says_why_a_pairs_floor_is_below_its_page_sizes(tmp_path):
    """A page size's √f (the Method) and the pair's (the precision paragraph) differ: the paragraph says
    that what moved a whole round cancels in the pair."""
    from pagelab.report.precision import PAIR_FLOOR_WORDS, precision_markdown
    from tests.test_report_words import bundle, load

    import math

    from bench.synthetic import SyntheticDesign
    from pagelab.evidence.runs import components_of

    # over-time runs quieter within than the verdict runs, as course-full's were: a page size's a over
    # all its runs then differs from its verdict runs' a, which the pair's a is made of
    design = SyntheticDesign(rounds=7, effects=(0.0, 0.0, math.log(0.95)), within_a=0.32, between_f=0.0,
                             over_time_s=1200, over_time_within_a=0.04)
    data = load(bundle(tmp_path, profile={"over_time_s": 1200}, design=design))
    text = precision_markdown(data)
    assert "is in the Method), and between-run floor " in text and ". " + PAIR_FLOOR_WORDS in text, text
    assert "cancels in the pair's round-by-round log-ratio" in PAIR_FLOOR_WORDS
    # the pair's a said with its two parts, the page sizes' verdict runs' a, which add up to it (a reader
    # of a 6th pass could not get the pair's a from the Method's pooled a per page size)
    found = re.search(r"within-run a = ([\d,]+) %²·s, the sum of the two page sizes' verdict runs' a \((\d+k) ([\d,]+) "
                      r"\+ (\d+k) ([\d,]+):", text)
    assert found, text
    components = components_of(data.evidence)
    for size, value in ((found.group(2), found.group(3)), (found.group(4), found.group(5))):
        assert value == f"{1e4 * components.size(size).role_a('verdict').value:,.0f}", (size, value)
    total = int(found.group(3).replace(",", "")) + int(found.group(5).replace(",", ""))
    assert abs(total - int(found.group(1).replace(",", ""))) <= 1, found.group(0)


def test_every_table_prints_its_text_cells_whole_wrapped_where_need_be():
    """A citation needs the full commit, a knob's reason cut at a cell's width reads as nothing, and Table
    2's "not set by the course guide (its server's default)" was cut to "not set by the course guide…":
    every text cell is shown whole, wrapped anywhere if it must be, so that one long value with no space
    (optimizer_switch) cannot shrink its table."""
    import pandas as pd

    from pagelab.report.lab_report import present

    commit = "0.1.0+gf86a9d2 (commit " + "f86a9d2218b4806002a520fe6a319afc4c6eb395" + ")" + " x" * 60
    switch = ",".join(f"flag_{n}=on" for n in range(40))  # no space to break at
    frame = pd.DataFrame({"Component": ["pagelab", "optimizer_switch"], "Version": [commit, switch]})
    columns = {"Component": ("Component", None), "Version": ("Version", None)}
    html = present(frame, columns).to_html()
    assert commit in html and switch in html
    assert "white-space: normal" in html, html
    # the long word alone may break anywhere: short settings keep their words whole
    assert html.count("overflow-wrap: anywhere") == 1, html


def test_every_source_the_report_cites_by_author_is_in_citation_cff_and_the_readme():
    """The report's References (pagelab.report.references) and CITATION.cff's references agree on the
    blog posts and reports it cites by author: Tkachenko 2016, cited by the Introduction, is in both."""
    import yaml

    from pagelab.report.references import REFERENCES

    cited = yaml.safe_load((ROOT / "CITATION.cff").read_text())["references"]
    readme = (ROOT / "README.md").read_text()
    for family, url in (("Tkachenko", "small-innodb_page_size-performance-boost-ssd"),):
        assert any(family in reference and url in reference for reference in REFERENCES), family
        assert any(url in str(entry.get("url")) and any(a.get("family-names") == family for a in entry["authors"])
                   for entry in cited), family
        assert family in readme.split("### References")[1].split("\n## ")[0], family


def test_the_rounds_needed_are_put_on_a_cluster_and_the_over_time_blocks_length_explained():
    """The precision paragraph's rounds for a 5% effect: the `--set repeats` and `--slurm-max-running` they
    mean (rounds ≥ 2 × the nodes at once, runbooks/slurm.md), and 'a block of T s on each side' as the
    harmonic mean of what the two over-time runs counted (pagelab.evidence.runs.over_time_kept)."""
    from types import SimpleNamespace

    from pagelab.report.precision import cluster_text, harmonic_text

    text = cluster_text(65, 1)
    assert "65 verdict rounds and the over-time block" in text
    assert "--set repeats=65 --executor slurm --scratch DIR --slurm-max-running 32" in text, text
    assert "at most 32 nodes at once, so the rounds outnumber them two to one: a node takes 2 on average" in text, text
    # a reader found the report's figure and the README's pooled one differ: the report says what its figure rests on
    assert ("This figure rests on this one sweep's components: on this machine several sweeps' pooled (`pagelab plan "
            "--from A --from B`) give a steadier one; on a cluster, run a short pilot there first and read the rounds "
            "from its `pagelab stats`") in text, text
    kept = SimpleNamespace(seconds=(100.0, 1200.0), length_s=2 / (1 / 100 + 1 / 1200))
    assert round(kept.length_s) == 185
    assert "the harmonic mean of the 100 and 1200 s its two runs counted weighed by the two sides' a" in \
        harmonic_text(kept)
    slurm = _plain(ROOT / "runbooks/slurm.md")
    assert "rounds ≥ 2K" in slurm, "the rule the paragraph cites"


def test_figure_1s_caption_says_its_dots_are_the_verdict_runs():
    """Figure 1 draws data.tables' summary, the verdict runs only (the over-time runs are data.over_time):
    its caption says so, as Figure 2's does."""
    import json

    cells = json.loads((ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    source = "".join("".join(cell["source"]) for cell in cells)
    assert "figures.tpmc_by_page_size(summary, " in source
    assert "each dot one verdict run of this sweep (the over-time runs are not drawn)" in source
    assert "each dot one run of this sweep" not in source


def test_the_glossary_defines_the_terms_a_fifth_reader_found_unglossed():
    glossary = (ROOT / "runbooks" / "glossary.md").read_text()
    for term in ("drift test / drift not detected", "as precise as a block of T s on each side",
                 "max-T permutation test", "Welch–Satterthwaite", "studentized residual"):
        assert f"- **{term}**: " in glossary, term
    # the harmonic mean the glossary gives, as pagelab.evidence.runs.over_time_kept computes it
    assert round(2 / (1 / 100 + 1 / 1200)) == 185 and "(with equal a, 100 and 1200 s give 185 s)" in glossary


def test_pagelab_stats_says_drift_not_detected_too():
    """`pagelab stats` prints the over-time runs' lines in the Method's words (wording.over_time_text)."""
    from pagelab.evidence.wording import over_time_text

    flat, _ = _judged_over_time_runs()
    lines = over_time_text([flat])
    assert lines[1].startswith(f"  4k-over-time: {flat.counted_s:g} s of 1200 s counted (MSER-5 cut"), lines
    assert "drift not detected over the rest (" in lines[1] and lines[1].endswith("all of it counts)"), lines
    source = (ROOT / "lib" / "pagelab" / "evidence" / "stats_text.py").read_text()
    assert "over_time_text(data.over_time, data.long_runs, table.page_order)" in source and "over_time_lines" not in source


def test_the_hit_ratio_claims_line_is_set_beside_the_pairs_margin(tmp_path):
    """Two hit-ratio margins, contrasted where the narrower is used: the claim's 3 per 1000 and the pairs'
    δ (the bundle's equivalence_pct), about ten times wider on a ratio near 1000."""
    from pagelab.evidence.runs import equivalence_of
    from pagelab.report.claims import claims
    from pagelab.report.lab_report import load
    from tests.test_claims import SEED_CONFIGURATION, seed_bundle

    data = load(seed_bundle(tmp_path / "seed", SEED_CONFIGURATION))
    delta = equivalence_of(data.evidence)
    hit = next(c for c in claims(data) if c.key == "hit_ratio")
    assert (f"near = within 3 per 1000" in hit.evidence
            and f"not the pairs' margin δ, ±{delta:g}%, about ±{10 * delta:.0f} per 1000 on this ratio" in hit.evidence), \
        hit.evidence


def test_the_precision_paragraph_of_a_called_pair_says_to_quote_its_interval():
    """A pair called slower prints no "resolve effects of about" on its line, so the paragraph does not
    call that figure the one to quote (seen on a 12-round course report, where 16k vs 4k was called);
    and a floor whose printed figure equals the planned one is 'about the same', not 'larger'."""
    from pagelab.evidence import planner
    from pagelab.report.precision import _which_component, quoted_figure

    called = {"verdict": "slower", "low_pct": -11.0, "high_pct": -3.2, "detectable_pct": 6.0}
    text = quoted_figure(called)
    assert "this pair was called, so the figure to quote is its interval" in text, text
    assert "it is the figure to quote" not in text, text
    open_ = dict(called, verdict="not resolved", low_pct=-9.0, high_pct=4.8)
    assert "**The figure to quote is ±6.0%**, the verdict line's \"resolve effects of about\"" in quoted_figure(open_)
    said = _which_component(0.1182, 0.00318, 0.2721, 0.056 ** 2)
    assert "its floor √f was about the same (5.6% against 5.6%)" in said and "was larger" not in said, said


def test_noisier_than_planned_is_said_only_where_a_planned_component_is_outside_the_sweeps_interval():
    """The shipped sweep's floor, √f 7.5% [4.3%, 16.4%], holds the planned 5.6%: a larger spread than
    planned is then no evidence that the machine was noisier, and the paragraph says it cannot say so."""
    from types import SimpleNamespace

    from pagelab.evidence.components import Estimate
    from pagelab.report.precision import plan_verdict

    pair = SimpleNamespace(rounds=8, between_f=Estimate(0.075 ** 2, 0.043 ** 2, 0.164 ** 2, 7),
                           within_a=Estimate(0.1035, 0.06, 0.2, 100))
    held = plan_verdict(True, pair, 0.1773, 0.056 ** 2)
    assert "cannot say the machine was noisier than the design assumed" in held, held
    assert "its floor's interval [4.3%, 16.4%] holds the planned 5.6%" in held, held
    beyond = plan_verdict(True, pair, 0.1773, 0.03 ** 2)  # a plan of 3.0%, below the interval's 4.3%
    assert beyond.startswith("the machine was noisier than the design assumed, beyond"), beyond
    # the shipped sweep's a, 1,035 %²·s, has an interval below the planned 1,773: smaller, so no evidence of more noise
    below = SimpleNamespace(rounds=8, between_f=pair.between_f, within_a=Estimate(0.1035, 0.08, 0.14, 100))
    assert "cannot say" in plan_verdict(True, below, 0.1773, 0.056 ** 2)
    assert plan_verdict(False, pair, 0.1773, 0.03 ** 2) == "the machine was no noisier than the design assumed"


def test_the_over_time_blocks_length_is_the_seconds_both_runs_counted():
    """The shipped sweep's precision paragraph prices the over-time block at the seconds its pair's two
    runs both counted: 16k cut 300 s of warm-up and 4k 200 s, so 300-1200 s, 900 s of each (as
    `pagelab stats` says of the fixture), in plain words, not as a harmonic mean of unequal lengths
    (a reader found 'as precise as a block of 964 s on each side' jargon)."""
    from pagelab.report.lab_report import load
    from pagelab.report.precision import precision_markdown

    text = " ".join(precision_markdown(load(ROOT / "tests/fixtures/captured/course-2026-11-29-shipped")).split())
    assert "with the over-time block counting 900 s of each of its two runs, the seconds both counted" in text, text
    assert "harmonic mean" not in text, text


def test_the_primary_pairs_blocks_rebuild_its_effect_and_standard_error():
    """The Appendix's table of the primary pair's blocks (the shipped sweep): the mean of its d_b is the
    effect the verdict line prints, and √(max(s², lower bound)/n) from its d_b and w_b is the standard
    error the Method gives (pagelab.report.model_details.floored_pairs, the model's own)."""
    import json

    import numpy as np
    import scipy.stats

    from pagelab.report.lab_report import load, pair_of
    from pagelab.report.model_details import block_table, block_table_text, floored_pairs
    from pagelab.evidence.runs import model_data

    data = load(ROOT / "tests/fixtures/captured/course-2026-11-29-shipped")
    table = block_table(data, "16k", "4k")
    assert list(table["Block"]) == [f"round {k}" for k in range(1, 9)] + ["over-time"], table
    d, w = table["d_b (log points)"].to_numpy() / 100, table["w_b (%²)"].to_numpy() / 1e4
    row = pair_of(data, "tpmc", "16k", "4k")
    assert abs(100 * np.expm1(d.mean()) - row["change_pct"]) < 0.01, (d.mean(), row["change_pct"])
    n = len(d)
    bound = w.mean() * scipy.stats.chi2.ppf(0.05, n - 1) / (n - 1)
    se = np.sqrt(max(d.var(ddof=1), bound) / n)
    _, model_se = floored_pairs(model_data(data.evidence), data)[("16k", "4k")]
    assert abs(se - model_se) < 1e-9, (se, model_se)
    # the over-time block's seconds are those both runs counted: 16k cut 300 s of warm-up, 4k 200 s, so
    # 300-1200 s of each (the stats lines of the fixture say so too)
    over = table.set_index("Block").loc["over-time"]
    assert (over["16k s"], over["4k s"]) == (900.0, 900.0)
    text = block_table_text(table, "16k", "4k")
    assert "the mean of the 9 blocks' log-ratios d_b (the table's log-ratio column), −3.16 log points, that is −3.1%" in text, text
    # shown under words a reader knows, no internal names (tests/notebook_checks.internal_labels)
    from pagelab.report.model_details import block_columns
    from tests.notebook_checks import internal_labels

    assert not internal_labels([header for header, _ in block_columns("16k", "4k").values()])
    cells = json.loads((ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    assert any("model_details.block_table(data" in "".join(cell["source"]) for cell in cells)


def test_the_rounds_a_5pct_effect_needs_come_with_the_power_one_round_short():
    """'22 rounds' could read as 21 from rounded components: the paragraph gives the power at both, the
    planner's own, so that 80% visibly falls between them."""
    import re

    from pagelab.report.lab_report import load
    from pagelab.report.precision import precision_markdown

    text = " ".join(precision_markdown(load(ROOT / "tests/fixtures/captured/course-2026-11-29-shipped")).split())
    found = re.search(r"would need (\d+) rounds × 90 s for 80% power \((\d+) give ([\d.]+)%, (\d+) give ([\d.]+)%;", text)
    assert found, text
    needed, short, short_power, again, power = found.groups()
    assert int(short) == int(needed) - 1 and again == needed, found.group(0)
    assert float(short_power) < 80 <= float(power), found.group(0)


def test_each_page_sizes_components_give_each_groups_own_a():
    """The Method and `pagelab stats` give each page size's pooled a; a block takes its group's a, not the
    pooled one, so each group's a is printed beside its batches (reader 14 could get the verdict runs' a
    only by back-solving)."""
    from pagelab.evidence.components_text import components_lines
    from pagelab.evidence.runs import components_of
    from pagelab.report.lab_report import load

    data = load(ROOT / "tests/fixtures/captured/course-2026-11-29-shipped")
    components = components_of(data.evidence)
    lines = "\n".join(components_lines(components))
    for size in ("4k", "8k", "16k"):
        side = components.size(size)
        verdict, over_time = (1e4 * side.role_a(role).value for role in ("verdict", "over_time"))
        assert f"from 8 verdict runs, a = {verdict:,.0f}, lag-1" in lines, (size, lines)
        assert f"from {size}-over-time, a = {over_time:,.0f}, lag-1" in lines, (size, lines)


def test_no_blocks_table_where_the_model_did_not_judge_the_pair(tmp_path):
    """A smoke sweep's one run a side has no model verdict: its Appendix printed a one-row blocks table with
    a sample variance of nan on 0 degrees of freedom. Where the model did not judge the pair, no table."""
    from bench.synthetic import SyntheticDesign
    from pagelab.report.model_details import block_table
    from tests.test_report_words import bundle, load

    one = load(bundle(tmp_path, design=SyntheticDesign(rounds=1, effects=(0.0, 0.0, 0.0), within_a=0.3,
                                                       between_f=0.0025)))
    assert block_table(one, "16k", "4k").empty
    assert not block_table(load(bundle(tmp_path / "seven")), "16k", "4k").empty
