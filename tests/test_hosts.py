"""The host as a factor: what each run records about its host, and the per-host medians and the
line that says when hosts differ more than page sizes do."""

from __future__ import annotations

import platform
import socket

import pandas as pd

from pagelab.evidence.runs import RunTable
from pagelab.evidence.hosts import host_lines, host_spread, host_table
from pagelab.machine.hosts import host_record


def table(rows: list[tuple[str, str, float]]) -> RunTable:
    """A bundle's run table from (page size, host, TpmC) rows; the other metrics are left empty."""
    frame = pd.DataFrame([{"run": f"{size}-r{i}", "page_size": size, "page_size_bytes": 1024 * int(size[:-1]),
                           "repeat": i, "host": host, "tpmc": tpmc, "read_iops": float("nan"),
                           "write_iops": float("nan"), "hit_ratio": float("nan"), "new_order_p95_ms": float("nan")}
                          for i, (size, host, tpmc) in enumerate(rows, start=1)])
    return RunTable(frame, [], {}, ["4k", "16k"])


def test_a_host_record_describes_this_machine(tmp_path):
    record = host_record(tmp_path, None)
    assert record["hostname"] == socket.gethostname()
    assert record["kernel"] == platform.release()
    assert record["cpu_model"] and record["cores"] >= 1 and record["disk"]
    assert record["noise"] is None


def test_hosts_that_differ_more_than_page_sizes_are_called_out():
    runs = table([("4k", "node1", 1000), ("4k", "node1", 1010), ("4k", "node2", 1500), ("4k", "node2", 1490),
                  ("16k", "node1", 1020), ("16k", "node1", 1030), ("16k", "node2", 1520), ("16k", "node2", 1510)])
    found = host_spread(runs)
    assert found["hosts"] == ["node1", "node2"] and found["larger"]
    assert found["page_effect_pct"] < found["host_spread_pct"]
    per_host = host_table(runs)
    tpmc = per_host[per_host["metric"] == "tpmc"].set_index(["page_size", "host"])["median"]
    assert tpmc[("4k", "node1")] == 1005 and tpmc[("16k", "node2")] == 1515
    text = "\n".join(host_lines(runs))
    assert "The runs ran on 2 machines (host names node1, node2)." in text
    assert "4k on node1: 1,005 (2 runs)" in text
    assert "is larger than the page-size effect" in text and "Compare page sizes within one host" in text


def test_hosts_that_differ_cancel_out_when_each_round_ran_on_one():
    rows = [("4k", "node1", 1000), ("16k", "node1", 1020), ("4k", "node2", 1500), ("16k", "node2", 1520)] * 2
    runs = table(rows)
    runs.runs["repeat"] = [1, 1, 2, 2, 3, 3, 4, 4]
    text = "\n".join(host_lines(runs))
    assert "the hosts differ more than the page sizes do. Each round ran on one host and is compared within it" in text
    runs.runs["repeat"] = [1, 2, 1, 2, 3, 4, 3, 4]  # each round on both hosts
    assert "Compare page sizes within one host" in "\n".join(host_lines(runs))


def test_hosts_that_agree_leave_the_page_size_effect_standing():
    runs = table([("4k", "node1", 1000), ("4k", "node2", 1010), ("16k", "node1", 1500), ("16k", "node2", 1490)])
    found = host_spread(runs)
    assert not found["larger"] and found["host_spread_pct"] < found["page_effect_pct"]
    assert "is smaller than the page-size effect" in host_lines(runs)[-1]


def test_one_host_is_named_and_hosts_without_a_shared_page_size_cannot_be_compared():
    assert host_lines(table([("4k", "vm", 1000), ("16k", "vm", 1100)])) == ["All runs ran on one machine (host name vm)."]
    assert host_lines(table([("4k", "unrecorded", 1000), ("16k", "unrecorded", 1100)])) == []
    apart = host_lines(table([("4k", "node1", 1000), ("16k", "node2", 1100)]))
    assert apart[-1].startswith("No page size ran on two hosts")


def test_one_page_size_gives_an_empty_pair_table_with_its_columns():
    """A sweep of one page size has nothing to compare; the report reads the pair table by its
    columns all the same (it once failed with KeyError 'metric')."""
    from pagelab.evidence.pairs import PAIR_COLUMNS, pairwise_table

    runs = table([("4k", "node1", 1000), ("4k", "node1", 1010)])
    one_size = RunTable(runs.runs, [], {}, ["4k"])
    pairs = pairwise_table(one_size)
    assert pairs.empty and tuple(pairs.columns) == PAIR_COLUMNS
    assert pairs[pairs["metric"] == "tpmc"].empty
