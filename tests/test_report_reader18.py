"""An eighteenth fresh reader's gaps in a course report (the shipped course sweep,
tests/fixtures/captured/course-2026-11-29-shipped): works the glossary names but the References
lacked, words for the machine's kernel and CPU, Figure 4's reference line and axis, where the
Appendix's server variables come from, and the runbook's over-time figures read where Table 9 reads
them. Expected values are read from the fixture's files or written here by hand, never computed by
the code under test."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import SHIPPED

GLOSSARY = REPO_ROOT / "runbooks" / "glossary.md"
UNUSED = "this report's verdicts did not use it"


def _shipped():
    from pagelab.report.lab_report import load

    return load(SHIPPED)


def test_every_work_the_glossary_names_is_in_the_references_marked_where_unused():
    from pagelab.report.references import methods_used, references

    data = _shipped()
    listed = references({}, used=methods_used(data))
    text = GLOSSARY.read_text()
    # every "Author YEAR" / "Author & Author YEAR" the glossary gives has a reference by that author, that year
    cited = re.findall(r"([A-Z][\w-]+)(?: (?:&|and) ([A-Z][\w-]+))?,? ((?:19|20)\d\d)\b", text)
    assert ("Paule", "Mandel", "1982") in cited, cited
    for first, second, year in cited:
        found = [ref for ref in listed if first in ref and (not second or second in ref) and year in ref]
        assert found, (first, second, year)
    # the glossary's Fisher's method: Fisher's book, with the edition that added the combined test
    assert "**Fisher's method**" in text
    fisher = [ref for ref in listed if ref.startswith("R. A. Fisher")]
    assert len(fisher) == 1 and "Statistical Methods for Research Workers" in fisher[0] and "1932" in fisher[0]
    paule = [ref for ref in listed if ref.startswith("R. C. Paule")]
    assert len(paule) == 1 and "Journal of Research of the National Bureau of Standards 87(5)" in paule[0]
    # neither is used by the shipped sweep's verdicts, nor by a bundle that declares precision weights
    assert UNUSED in fisher[0] and UNUSED in paule[0]
    data.profile["block_weights"] = "precision"
    listed = references({}, used=methods_used(data))
    assert all(UNUSED in ref for ref in listed if ref.startswith(("R. A. Fisher", "R. C. Paule"))), listed
    assert not any("Viechtbauer" in ref and UNUSED in ref for ref in listed)


def test_table_1_says_the_kernel_and_cpu_are_as_the_machine_reports_them():
    import json

    from pagelab.report.setup_tables import system_setup_notes

    # the shipped sweep's host record: uname's release and /proc/cpuinfo's model name, as recorded
    host = json.loads((SHIPPED / "4k-r1" / "host.json").read_text())
    assert (host["kernel"], host["cpu_model"]) == ("6.18.44-fc-v657", "AMD EPYC"), host
    text = system_setup_notes(_shipped())
    assert ("The kernel is named by its release string as the machine reports it (uname -r), \u201c6.18.44-fc-v657\u201d: "
            "Linux 6.18.44, with \u201c-fc-v657\u201d the label its builder gave it, which the machine does not "
            "explain.") in text, text
    assert ("The CPU is named as this machine's /proc/cpuinfo names it (its \u201cmodel name\u201d), \u201cAMD EPYC\u201d, "
            "whole: the machine gives no model number.") in text, text
