"""A third fresh reader's gaps in a course report, each closed where the report's words are made:
how a page size's within-run a is formed from its runs and which runs it rests on; each TpmC pair's
standard error and whether the floor or its own blocks set it; how a rank-tested line's "resolve
effects of about ±R%" and "N rounds would show equivalence" are computed; every work in the
References cited where it is used. Expected figures are recomputed here from the records the test
writes (bundles from bench/synthetic.py, via tests.test_report_words)."""

from __future__ import annotations

import math

from bench.synthetic import SyntheticDesign
from tests.test_report_words import DESIGN, bundle, load

OVER_TIME = SyntheticDesign(rounds=DESIGN.rounds, effects=DESIGN.effects, within_a=DESIGN.within_a,
                            between_f=DESIGN.between_f, over_time_s=1200)


def test_each_page_sizes_within_run_a_says_its_batch_size_and_the_runs_it_rests_on(tmp_path):
    """Each group of alike runs (the verdict runs; each over-time run's counted part) has its own batch
    size, and a pools the groups by degrees of freedom: recomputed here with numpy from the counted
    series at each group's batch size, so every verdict run counts whatever the over-time run needs."""
    import numpy as np

    from pagelab.evidence.model import counted_series
    from pagelab.evidence.runs import model_data
    from pagelab.report.model_details import model_sentences

    data = load(bundle(tmp_path, profile={"over_time_s": 1200}, design=OVER_TIME))
    text = model_sentences(data)
    assert "A page size's a pools its runs in groups of alike runs, each group with its own batch size" in text, text
    counted, _ = counted_series(data.evidence.series)
    for size in model_data(data.evidence).components.sizes:
        runs = [r for r in counted if r.page_size == size.page_size]
        expected = [[r for r in runs if r.role == "verdict"]] + [[r] for r in runs if r.role != "verdict"]
        assert [set(g.runs) for g in size.groups] == [{r.run for r in group} for group in expected], size.groups
        squares = dof = 0.0
        weighted = 0.0
        for group, found in zip(expected, size.groups):
            m = found.lag1.batch_intervals
            g_squares = g_dof = 0.0
            for run in group:
                k = len(run.rates) // m
                work = (np.array(run.rates) * np.array(run.seconds))[: k * m].reshape(k, m).sum(axis=1)
                logs = np.log(work / np.array(run.seconds)[: k * m].reshape(k, m).sum(axis=1))
                g_squares += float(((logs - logs.mean()) ** 2).sum())
                g_dof += k - 1
            weighted += g_squares / g_dof * m * float(np.median(group[0].seconds)) * g_dof
            dof += g_dof
            whose = f"{len(group)} verdict runs" if len(group) > 1 else group[0].run
            assert f"of {m} interval{'s' if m != 1 else ''}, {found.lag1.batch_s:g} s, from {whose}, {g_dof:g} degree" \
                in text, (size.page_size, whose, text)
        assert math.isclose(size.within_a.value, weighted / dof, rel_tol=1e-9), (size.page_size, weighted / dof)
        assert f"{size.page_size} a = {1e4 * size.within_a.value:,.0f} %²·s (batches of" in text, text


def test_each_tpmc_pair_gives_its_standard_error_and_whether_the_floor_set_it(tmp_path):
    from pagelab.evidence.model import pair_effect
    from pagelab.evidence.runs import model_data
    from pagelab.report.model_details import model_sentences

    data = load(bundle(tmp_path, profile={"over_time_s": 1200}, design=OVER_TIME))
    text = model_sentences(data)
    found = model_data(data.evidence)
    within = {s.page_size: s for s in found.components.sizes}  # each block its group's a
    for row in data.pairs[data.pairs["metric"] == "tpmc"].to_dict("records"):
        effect = pair_effect(found.by_size[row["a"]], found.by_size[row["b"]], within[row["a"]], within[row["b"]])
        assert f"{effect.se:.4f}" in text, (row["a"], row["b"], effect.se, text)
    assert "(log scale: 0.01 is about 1%)" in text, text  # a bare 0.0284 has no unit
    assert "standard error of the mean log-ratio" in text and (
        "from the lower bound" in text or "from the blocks' own sample variance" in text
        or "from its blocks' own sample variance" in text), text


def test_a_rank_tested_lines_resolve_and_rounds_figures_are_explained_and_cited(tmp_path):
    from pagelab.report.model_report import methods_explained
    from pagelab.report.references import REFERENCES
    from tests.test_evidence_words import _bundle

    data = _bundle(tmp_path / "b")  # read and write IOPS judged by the signed-rank test
    text = methods_explained(data)
    assert "\"resolve effects of about ±R%\" is the paired t's minimum detectable effect" in text, text
    assert "(Bloom 1995)" in text and "(Chow, Shao & Wang 2008)" in text, text
    assert "Efron & Tibshirani 1993" in text, text
    cited = " ".join(REFERENCES)
    assert "Bloom" in cited and "Chow" in cited and "Efron" in cited, cited


def test_report_help_lists_the_reports_sections_in_their_order():
    """`pagelab report --help` names the report's sections; the notebook's "## " headings are the
    sections the report has (Summary and Glossary included), in order."""
    import json
    import re

    from pagelab.cli import build_parser
    from tests.conftest import REPO_ROOT

    notebook = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())
    source = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
    headings = [re.sub(r"^\d+ ", "", h).lower() for h in re.findall(r'(?<!#)## (?:\d+ )?([A-Z][a-z]+)', source)
                if h not in ("Effect",)]
    headings = list(dict.fromkeys(h for h in headings))
    parser = build_parser()
    report = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == "report")[1]
    listed = re.search(r"lab report \(([^)]*)\)", " ".join(report.description.split())).group(1).lower()
    positions = [listed.find(heading) for heading in headings]
    assert all(p >= 0 for p in positions), (headings, listed)
    assert positions == sorted(positions), (headings, listed)


def test_a_moved_bundles_title_page_gives_its_sweep_id_and_the_directory_it_was_read_from(tmp_path):
    """The reports/ copy is named after the directory; the title page's Bundle after sweep.json's sweep
    id. A bundle copied elsewhere shows both, saying which to quote."""
    import json

    from pagelab.bundle import SweepRecord
    from pagelab.sweep.report_step import bundle_name

    directory = bundle(tmp_path / "first")
    sweep_id = json.loads((directory / "sweep.json").read_text())["sweep_id"]
    assert bundle_name(SweepRecord.load(directory)) == sweep_id
    moved = directory.rename(tmp_path / "reader-copy")
    assert bundle_name(SweepRecord.load(moved)) == \
        f"{sweep_id} (the sweep id, to quote; this report was made from a copy in reader-copy/)"


def test_the_appendix_lists_every_knob_and_the_reports_own_versions(tmp_path):
    """Gap: the report had no full knob table, and its Versions named only the sweep's environment,
    without statsmodels, which computes Holm and the outlier test."""
    from pagelab.report.appendix import ANALYSIS_KNOBS, NOT_KNOBS, RECORD_KNOB_MISSING, knob_table, report_versions

    data = load(bundle(tmp_path))
    table = knob_table(data)
    shown = set(table["Knob"].str.split(":").str[0])
    # the recorded knobs, and the analysis's knobs a bundle predates with the values the report used
    assert shown == ({name for name in data.profile if name not in NOT_KNOBS} | set(ANALYSIS_KNOBS)
                     | {name for name in RECORD_KNOB_MISSING if name not in data.profile}), shown
    for name, value in data.profile.items():
        if isinstance(value, dict):
            for key in value:
                assert f"{name}: {key}" in set(table["Knob"]), (name, key)
    versions = dict(report_versions().itertuples(index=False))
    assert {"pagelab (this report)", "Python", "scipy", "statsmodels", "numpy", "pandas"} <= set(versions), versions
    import statsmodels

    assert versions["statsmodels"] == statsmodels.__version__


def test_the_similar_claim_says_more_than_200_as_the_pair_lines_do(tmp_path):
    """Gap: every TpmC line said "more than 200 rounds would show equivalence", the Discussion "about 201
    runs a side": the capped count printed as an estimate. Both say it alike now."""
    import pandas as pd

    from pagelab.evidence.intervals import MAX_REPEATS_ESTIMATE, NOT_RESOLVED
    from pagelab.evidence.wording import unresolved_advice
    from pagelab.report.claims import _similar

    data = load(bundle(tmp_path))
    tpmc = data.pairs["metric"] == "tpmc"
    data.pairs.loc[tpmc, "verdict"] = NOT_RESOLVED
    data.pairs.loc[tpmc, "runs_for_equivalence"] = MAX_REPEATS_ESTIMATE + 1
    claim = _similar(data)
    assert f"would need more than {MAX_REPEATS_ESTIMATE} rounds" in claim.evidence, claim.evidence
    assert f"about {MAX_REPEATS_ESTIMATE + 1}" not in claim.evidence
    row = data.pairs[tpmc].iloc[0].to_dict()
    assert f"more than {MAX_REPEATS_ESTIMATE} rounds would show equivalence" in unresolved_advice(row)
    data.pairs.loc[tpmc, "runs_for_equivalence"] = 57
    assert "would need about 57 rounds" in _similar(data).evidence
    assert isinstance(data.pairs, pd.DataFrame)


# How the report's text cites each work of its References (the reference's first author, or its name).
CITED_AS = {"Week#4": "Week 4 lab", "tpcc-mysql": "tpcc-mysql", "Tkachenko": "Tkachenko 2016", "TPC Benchmark": "TPC",
            "Maricq": "Maricq et al. 2018", "Hoefler": "Hoefler & Belli 2015", "Conover": "Conover",
            "White Jr.": "White 1997", "Efron": "Efron & Tibshirani 1993", "Mann, D. R.": "Mann & Whitney 1947",
            "Wilcoxon": "Wilcoxon 1945", "Holm": "Holm", "Dunn": "Dunn 1961", "Schuirmann": "Schuirmann 1987",
            "Kalibera": "Kalibera & Jones 2013", "Westfall, S. S.": "Westfall & Young", "Welch": "Welch",
            "Satterthwaite": "Satterthwaite 1946", "Giesbrecht": "Giesbrecht & Burns 1985",
            "Maurer": "Maurer, Hothorn & Lehmacher 1995", "Lan, D. L.": "Lan & DeMets 1983", "Jain": "Jain 1991",
            "Law,": "Law 2015", "Marriott": "Marriott & Pope 1954", "Bartlett": "Bartlett 1946",
            "Cook": "Cook & Weisberg 1982", "Bloom": "Bloom 1995", "Chow": "Chow, Shao & Wang 2008",
            "Viechtbauer": "Viechtbauer 2007", "Hartung": "Hartung & Knapp 2001"}


def test_every_work_in_the_references_is_cited_in_the_reports_text():
    """Gap: References listed works the text never cited (Tkachenko, Efron & Tibshirani, Giesbrecht &
    Burns). Each reference is matched by one way of citing it, and that citation is in the text the
    report is made of (the notebook, the modules that write its paragraphs, the glossary it prints)."""
    from pagelab.report.references import REFERENCES
    from tests.conftest import REPO_ROOT

    for reference in REFERENCES:
        assert sum(key in reference for key in CITED_AS) >= 1, f"no citation known for {reference[:60]!r}"
    report = REPO_ROOT / "lib" / "pagelab" / "report"
    sources = [REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb", REPO_ROOT / "runbooks" / "glossary.md",
               *[path for path in report.glob("*.py") if path.name != "references.py"],
               *(REPO_ROOT / "lib" / "pagelab" / "evidence").glob("*.py")]
    text = " ".join(" ".join(path.read_text().split()) for path in sources).replace('" "', "")
    for key, cited in CITED_AS.items():
        assert cited in text, f"{cited!r} ({key}) is in the References but cited nowhere in the report's text"


def test_the_auto_min_meaning_states_the_servers_own_default_of_the_pools_maximum():
    """The Appendix says why innodb_buffer_pool_size_auto_min reads 8 TiB: not set (0 in --help), the
    server takes innodb_buffer_pool_size_max's default. The figures it states are the installed
    server's own (`mariadbd --no-defaults --help --verbose`)."""
    from pagelab.report.appendix import server_defaults
    from pagelab.report.labels import SERVER_SETTING_MEANINGS

    defaults = server_defaults()
    meaning = SERVER_SETTING_MEANINGS["innodb_buffer_pool_size_auto_min"]
    assert defaults["innodb_buffer_pool_size_auto_min"] == "0" and "not set (0 in the server's --help)" in meaning
    maximum = int(defaults["innodb_buffer_pool_size_max"])
    assert f"{maximum:,} bytes" in meaning and f"{maximum / 2 ** 40:g} TiB" in meaning, (maximum, meaning)
