"""What a reader meets is in plain words and said once: the references are named by what they are
(never by the project's numbering, which stays in data/reference/'s file names), the headline
finding is stated in one place that the rest links to, and every link between the documents leads
to a file and a heading that exist."""

from __future__ import annotations

import argparse
import re

from tests.conftest import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md"))]
USER_TEXT = [*DOCUMENTS, *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml")),
             *sorted((REPO_ROOT / "notebooks").glob("*.ipynb")),
             # the benches' docstrings are their --help and their lines what they print; setup.py's say what it builds
             *sorted((REPO_ROOT / "bench").glob("*.py")), REPO_ROOT / "setup.py"]
# "seed 002", "seed-002", or "seed004" as a word (a flag, a label): the references are named by what
# they are (week4_lab_tpmc.csv, tests/fixtures/sources/week4-lab-report.txt), never by a number.
NUMBERING = re.compile(r"\bseeds? 00\d|\bseed-?00\d\b", re.IGNORECASE)
# The headline, in the words of the one place that states it (README.md, "The headline finding"; its figures
# are checked against the bundle by tests/test_measured_figures.py), and the older analysis's, history, said
# once in the TPC-C runbook's record and never in the README's headline.
HEADLINE_INTERVAL = "−2.3% [−9.0%, +4.8%]"
OLDER_INTERVAL = "−5.1% [−13.8%, +2.7%]"


def _all_help(parser: argparse.ArgumentParser) -> str:
    text = parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            text += "".join(_all_help(sub) for sub in action.choices.values())
    return text


def test_no_reference_is_called_by_its_number():
    from pagelab.cli import build_parser
    from pagelab.report.references import REFERENCES
    from pagelab.sweep.report_step import DEFAULT_REPORT_TITLE

    found = [f"{path.relative_to(REPO_ROOT)}: {match.group(0)}" for path in USER_TEXT
             for match in NUMBERING.finditer(path.read_text())]
    texts = {"pagelab's --help": _all_help(build_parser()), "the report's title": DEFAULT_REPORT_TITLE,
             "the report's references": " ".join(REFERENCES)}
    found += [f"{where}: {match.group(0)}" for where, text in texts.items() for match in NUMBERING.finditer(text)]
    assert not found, found


def test_the_headline_is_stated_once_and_linked_elsewhere():
    where = [path.name for path in DOCUMENTS for _ in range(path.read_text().count(HEADLINE_INTERVAL))]
    # the README states it in full once; the TPC-C runbook and course.yaml quote it with its date and command,
    # each quote checked against the bundle (tests/test_measured_figures.py)
    assert where.count("README.md") == 1, f"the 16k vs 4k interval is stated in {where or 'no document'}"
    older = [path.name for path in DOCUMENTS for _ in range(path.read_text().count(OLDER_INTERVAL))]
    assert older == ["tpcc-page-size.md"], f"the older analysis's interval is stated in {older or 'no document'}"
    headline = (REPO_ROOT / "README.md").read_text().split("### The headline finding")[1].split("\n## ")[0]
    assert "**The finding: " in headline and "**History: the older analysis.**" in headline
    assert headline.index("**The finding: ") < headline.index("**History")
    # the finding's own verdicts are tabled first; an older analysis's verdicts are not tabled after it
    older = headline[headline.index("**The course design of 2026-11-28, measured**"):]
    assert "*faster*" not in older and "*slower*" not in older, "an older verdict tabled under the headline"
    runbook = (REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text()
    assert "../README.md#the-headline-finding" in runbook


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")


def test_every_link_between_the_documents_leads_somewhere():
    broken = []
    for path in DOCUMENTS:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md":
                headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", linked.read_text(), re.M)}
                if anchor not in headings:
                    broken.append(f"{path.name}: {target} (no such heading)")
    assert not broken, broken


def test_the_readme_cites_each_reference_as_the_report_and_help_do():
    from pagelab.common.reference import CITATIONS

    readme = " ".join((REPO_ROOT / "README.md").read_text().split())
    references = readme[readme.index("### References"):readme.index("## Installing")]
    missing = [name for name, citation in CITATIONS.items() if citation not in references]
    assert not missing, f"README's References lack pagelab.common.reference.CITATIONS' {missing}"


def test_each_notebook_opens_with_its_references_citation():
    import json

    from pagelab.common.reference import CITATIONS

    cited = {"tpcc_page_size_run": "week4_lab", "tpcc_page_size_report": "week4_lab", "ycsb_page_size": "orientdb",
             "sqlite_page_size": "sqlite", "btree_block_size_model": "rethinkdb", "random_write_cost": "voron"}
    notebooks = {path.stem for path in (REPO_ROOT / "notebooks").glob("*.ipynb")}
    assert notebooks == set(cited), "say which reference each notebook reproduces"
    for name, key in cited.items():
        cells = json.loads((REPO_ROOT / "notebooks" / f"{name}.ipynb").read_text())["cells"]
        assert CITATIONS[key] in "".join(cells[0]["source"]), f"{name}'s opening cell does not cite {key} as it is cited"


def test_a_table_is_shown_under_words_and_keeps_its_columns():
    """What a notebook shows (pagelab.report.labels): words with units for the tidy tables' names,
    the reference's numbers named by what the reference is; the table itself is not renamed."""
    import pandas as pd

    from pagelab.report.labels import label, plain

    assert label("seed_hops", "the post") == "hops, the post"
    assert label("throughput_ops_s") == "throughput (ops/s)"
    assert label("ci_low_ms") == "interval low (ms)"
    assert label("seed") == "random seed"
    assert label("Voron (the post) random") == "Voron (the post) random"
    table = pd.DataFrame({"block_kb": [4], "seed_queries_per_s": [3780.0]}).set_index("block_kb")
    shown = plain(table, "the post")
    assert list(shown.columns) == ["queries/s, the post"] and shown.index.name == "block (KiB)"
    assert list(table.columns) == ["seed_queries_per_s"] and table.index.name == "block_kb"
    record = pd.Series({"page_size_bytes": 4096, "tpmc": 1.0}, name="4k-r1").to_frame()
    assert list(plain(record).index) == ["page size (bytes)", "TpmC"]
