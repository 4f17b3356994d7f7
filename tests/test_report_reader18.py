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


# The 21 variables the reader found under "Not set by pagelab" in the shipped sweep's Appendix.
UNSET = ("aria_checkpoint_interval aria_log_dir_path aria_recover_options back_log ft_stopword_file host_cache_size "
         "innodb_buffer_pool_size_auto_min innodb_io_capacity_max innodb_log_file_mmap innodb_log_group_home_dir "
         "innodb_log_write_ahead_size innodb_open_files innodb_undo_directory optimizer_switch optimizer_trace "
         "report_port server_uid slave_load_tmpdir slave_parallel_mode thread_cache_size wsrep_data_home_dir").split()


def test_each_appendix_variable_says_where_its_value_comes_from():
    import pandas as pd

    from pagelab.report.appendix import my_cnf_names
    from pagelab.report.variable_sources import MY_CNF, SOURCE_COLUMN, UNATTRIBUTED, with_sources

    values = pd.read_csv(SHIPPED / "4k-r1" / "variables.csv", dtype=str).set_index("variable_name")["value"]
    set_here = my_cnf_names(_shipped())
    # the run's my.cnf, read here: what pagelab set
    assert {"datadir", "tmpdir", "port", "max_connections", "innodb_page_size"} <= set_here
    assert not set_here & set(UNSET), set_here & set(UNSET)
    table = pd.DataFrame({"Variable": UNSET + ["max_connections", "datadir", "some_future_variable"]})
    source = with_sources(table, set_here).set_index("Variable")[SOURCE_COLUMN]
    assert source["max_connections"] == source["datadir"] == MY_CNF
    assert source["some_future_variable"] == UNATTRIBUTED == "not set by pagelab; the server's or the package's"
    # every one of the 21 is attributed, none to pagelab's my.cnf
    assert not [name for name in UNSET if source[name] in (MY_CNF, UNATTRIBUTED)], source[UNSET]
    # those that follow a setting my.cnf makes name it; the formulas agree with the run's own numbers
    for name, setting in (("aria_log_dir_path", "datadir"), ("wsrep_data_home_dir", "datadir"),
                          ("slave_load_tmpdir", "tmpdir"), ("report_port", "port"), ("server_uid", "port"),
                          ("back_log", "max_connections"), ("host_cache_size", "max_connections"),
                          ("thread_cache_size", "max_connections")):
        assert source[name].startswith(f"the server, from pagelab's my.cnf's {setting}:"), (name, source[name])
    connections = int(values["max_connections"])
    assert connections == 200
    assert "50 + max_connections / 5" in source["back_log"] and int(values["back_log"]) == 50 + connections // 5 == 90
    assert "128 + max_connections" in source["host_cache_size"] and int(values["host_cache_size"]) == 128 + 200
    assert "twice it, at least 2000" in source["innodb_io_capacity_max"]
    assert int(values["innodb_io_capacity_max"]) == max(2000, 2 * int(values["innodb_io_capacity"])) == 2000
    assert source["innodb_open_files"].startswith("the server, from table_open_cache, not set by pagelab")
    assert values["innodb_open_files"] == values["table_open_cache"] == "2000"
    assert values["report_port"] == values["port"]
    # the redo log's write size is the storage's, not the page size's (4096 at a 4k page here, and at 16k)
    assert values["innodb_log_write_ahead_size"] == "4096" and "not from the page size" in source["innodb_log_write_ahead_size"]


def test_the_appendix_says_no_value_comes_from_the_packages_option_files():
    import pandas as pd

    from pagelab.report.appendix import unset_variables_markdown

    data = _shipped()
    table = pd.DataFrame({"Variable": ["back_log", "max_connections"], "Value": ["90", "200"],
                          "Server default": ["80", "151"]})
    text = unset_variables_markdown(data, table)
    assert "The column \"Where it comes from\" says which" in text, text
    assert "pagelab starts the server with `--defaults-file=` its my.cnf, which makes it read no other option file" in text
    # as pagelab.mysql.instance starts it
    assert 'f"--defaults-file={self.paths.my_cnf}"]' in (REPO_ROOT / "lib/pagelab/mysql/instance.py").read_text()


def test_the_runbooks_over_time_figures_are_table_9s():
    """The runbook's "Why an over-time run's reads rise" gives the over-time runs' read IOPS and hit
    ratio at 100 s and 1,100 s, as the report's Table 9 reads them (a reader found the runbook's first
    and last samples disagreeing with the table): the table's extremes at those checkpoints, for the
    shipped sweep, are the runbook's figures, written here as Table 9 printed them."""
    import re as regex

    from pagelab.report.figures import checkpoint_monitors

    over_time = _shipped().over_time
    table = checkpoint_monitors(over_time["tpcc_intervals"], over_time["iostat"], over_time["innodb"])
    at = {seconds: table[table["t_s"].round(-2) == seconds] for seconds in (100, 1100)}
    spans = [f"{round(at[s]['read_iops'].min()):,}-{round(at[s]['read_iops'].max()):,}" for s in (100, 1100)]
    hits = [f"{at[s]['hit_rate'].min():.0f}-{at[s]['hit_rate'].max():.0f}" for s in (100, 1100)]
    assert spans == ["3,063-3,715", "5,087-5,618"] and hits == ["983-988", "971-978"], (spans, hits)
    runbook = regex.sub(r"\s+", " ", (REPO_ROOT / "runbooks" / "tpcc-page-size.md").read_text())
    part = runbook[runbook.index("#### Why an over-time run's reads rise"):]
    assert (f"read IOPS rose from {spans[0]} to {spans[1]} a second and the hit ratio fell from {hits[0]} to "
            f"{hits[1]} per 1000") in part, part[:400]
