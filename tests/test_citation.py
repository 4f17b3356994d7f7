"""How pagelab is cited: LICENSE matches pyproject.toml, CITATION.cff is valid against the Citation
File Format's own schema (kept in tests/fixtures/citation-file-format/, so the check needs no
network) and names pyproject's version and license, and the version names its commit: `pagelab
--version` prints it, a bundle's report gives it on its title page and lists pagelab among its
References."""

from __future__ import annotations

import json
import re
import subprocess

import jsonschema
import yaml

from pagelab import __version__
from pagelab.machine.system import git_revision, version_naming
from tests.conftest import REPO_ROOT

# [project]'s version and license (tomllib is Python 3.11's; pagelab supports 3.10)
PYPROJECT = dict(re.findall(r'^(version|license) = "([^"]+)"$', (REPO_ROOT / "pyproject.toml").read_text(), re.M))
CITATION = REPO_ROOT / "CITATION.cff"
SCHEMAS = REPO_ROOT / "tests" / "fixtures" / "citation-file-format"


def test_the_license_file_is_the_one_pyproject_names():
    assert PYPROJECT["license"] == "MIT"
    text = (REPO_ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_citation_cff_is_valid_and_agrees_with_pyproject():
    citation = yaml.safe_load(CITATION.read_text())
    schema = json.loads((SCHEMAS / f"schema-{citation['cff-version']}.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    # dates are YAML dates; the schema wants the ISO text CFF files carry
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(json.loads(json.dumps(citation, default=str))),
                    key=str)
    assert not errors, "\n".join(f"{list(error.path)}: {error.message}" for error in errors)
    assert (citation["version"], citation["license"]) == (PYPROJECT["version"], PYPROJECT["license"])
    assert __version__ == PYPROJECT["version"]


def test_the_authors_are_the_unnamed_maintainers_as_the_readme_says():
    """The project names no person: CITATION.cff's author is an entity, the README's example cites
    it by that name, and its Citing section says who that is."""
    citation = yaml.safe_load(CITATION.read_text())
    assert citation["authors"] == [{"name": "The pagelab authors"}], citation["authors"]
    readme = re.sub(r"\s+", " ", (REPO_ROOT / "README.md").read_text())
    citing = readme[readme.index("## Citing"):readme.index("## Architecture")]
    assert f"> {citation['authors'][0]['name']}, *{citation['title'].split(':')[0]}:" in citing
    assert "means the project's maintainers, unnamed" in citing
    assert "maintainers, who are not named" in re.sub(r"\s+", " ", citation["message"])


def test_the_schema_check_catches_a_broken_citation():
    schema = json.loads((SCHEMAS / "schema-1.2.0.json").read_text())
    broken = yaml.safe_load(CITATION.read_text())
    del broken["authors"]
    broken["licence"] = "MIT"  # misspelt: not a CFF key
    messages = {error.message for error in jsonschema.Draft7Validator(schema).iter_errors(broken)}
    assert "'authors' is a required property" in messages
    assert any("'licence' was unexpected" in message for message in messages), messages


def test_the_version_names_the_commit():
    assert version_naming("0123456789abcdef", False) == f"{__version__}+g0123456"
    assert version_naming("0123456789abcdef", True) == f"{__version__}+g0123456.dirty"
    assert version_naming(None, None) == __version__


def test_pagelab_version_prints_this_checkouts_commit():
    def git(*args):
        return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=True).stdout

    head = git("rev-parse", "--short=7", "HEAD").strip()
    dirty = bool(git("status", "--porcelain", "--untracked-files=no").strip())
    shown = subprocess.run([str(REPO_ROOT / ".venv" / "bin" / "pagelab"), "--version"], capture_output=True,
                           text=True, check=True).stdout
    assert shown == f"pagelab {__version__}+g{head}{'.dirty' if dirty else ''}\n"


def test_without_git_metadata_the_version_is_the_version_number_alone(tmp_path):
    """An sdist or an installed copy has no .git: the version is pyproject's version number alone."""
    assert git_revision(tmp_path) == (None, None)
    assert version_naming(*git_revision(tmp_path)) == __version__


def test_the_report_names_its_pagelab_version():
    from pagelab.report.references import recorded_version, references

    machine = {"git_sha": "0123456789abcdef0123", "git_dirty": True}
    assert recorded_version(machine) == f"{__version__}+g0123456.dirty (commit 0123456789abcdef0123, with local changes)"
    assert references(machine)[-1].startswith(f"pagelab {__version__}+g0123456.dirty")
    assert recorded_version({}) == f"{__version__} (commit not recorded)"


def test_the_reports_references_cite_the_methods_its_verdicts_come_from():
    """The Method names the two-level model, the fixed sequence after a primary and the boundary of
    added rounds; a reader citing the method finds each among the References."""
    from pagelab.report.references import references

    text = " ".join(references({}))
    for author in ("Giesbrecht", "Maurer, L. A. Hothorn, W. Lehmacher", "Westfall, A. Krishen", "Lan, D. L. DeMets"):
        assert author in text, author


def test_citation_cff_references_every_source_the_readme_asks_to_cite():
    """The README's References (each source's quoted title) and the lab's driver and benchmark are in
    CITATION.cff's references, so a BibTeX made from it carries them."""
    titles = {reference["title"] for reference in yaml.safe_load(CITATION.read_text())["references"]}
    readme = (REPO_ROOT / "README.md").read_text()
    listed = readme[readme.index("### References"):readme.index("## Installing")]
    asked = [re.search(r'"([^"]+)"', line).group(1) for line in listed.splitlines() if line.startswith("- ")]
    assert len(asked) == 5, asked
    missing = [title for title in asked + ["tpcc-mysql"] if title not in titles]
    assert not missing, missing
    assert any(title.startswith("TPC Benchmark C Standard Specification") for title in titles), titles


def test_citation_cff_and_the_readme_agree_that_no_release_has_been_made():
    """README's Citing says no release has been made and the version names the commit; CITATION.cff's
    message must not call the version number a release."""
    citation = yaml.safe_load(CITATION.read_text())
    message = re.sub(r"\s+", " ", citation["message"])
    readme = re.sub(r"\s+", " ", (REPO_ROOT / "README.md").read_text())
    citing = readme[readme.index("## Citing"):readme.index("## Architecture")]
    assert "(no release has been made)" in citing and "no release tag" in citing
    assert "no release has been made" in message and "no release tag" in message, message
    assert "the release" not in message.replace("no release has been made", ""), message


def test_the_abstract_and_the_readme_claim_intervals_only_for_comparisons_over_rounds():
    """The hit ratio over time is checked from one run per page size, with no interval (the report's
    claims.ONE_RUN_CAVEAT): CITATION.cff's abstract and the README's opening promise an interval and a
    verdict for each comparison of page sizes over the rounds, not "for every difference"."""
    from pagelab.report.claims import ONE_RUN_CAVEAT

    abstract = re.sub(r"\s+", " ", yaml.safe_load(CITATION.read_text())["abstract"])
    readme = re.sub(r"\s+", " ", (REPO_ROOT / "README.md").read_text())
    opening = readme[:readme.index("## Two commands")]
    for text in (abstract, opening):
        assert "every difference" not in text
        assert "an interval and a verdict for every comparison of two page sizes over" in text
    assert "one run per page size, with no interval" in ONE_RUN_CAVEAT
    assert "read from one long run per page size, with no interval" in opening
