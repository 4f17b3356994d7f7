"""Short YCSB runs on the storage prototype and on a real MariaDB instance: YCSB's text, written
per phase, parses back to the same numbers as the tidy table; the run records what it did."""

from __future__ import annotations

import json

import pandas as pd

from pagelab.common.units import page_size_label
from pagelab.parse import parse_ycsb
from pagelab.workloads.ycsb import WORKLOADS, auto_cache_bytes, estimated_data_bytes, read_results
from pagelab.mysql.pagesize import MIN_BUFFER_POOL_BY_PAGE_SIZE as MIN_BUFFER_POOL
from tests.conftest import pagelab_here, servers_under
from tests.workloads_ycsb.conftest import SMALL
from tests.workloads_ycsb.test_output_and_parse import assert_parses_back

PHASES = ["load", "mixed_50_50", "read_mostly_95_5", "read_only", "read_modify_write_50_50", "read_latest_95_5"]
FILES = ["load.txt", "workloada.txt", "workloadb.txt", "workloadc.txt", "workloadf.txt", "workloadd.txt"]


def check_run(run, backend: str, page_sizes: list[int]) -> None:
    frame = run.frame
    assert run.meta["status"] == "complete" and run.meta["seed"] == SMALL["seed"]
    assert set(frame["backend"]) == {backend} and set(frame["seed"]) == {SMALL["seed"]}
    assert sorted(set(frame["page_size_bytes"])) == sorted(page_sizes)
    for page_size in page_sizes:
        directory = run.out_dir / f"{backend}-{page_size_label(page_size)}"
        rows = frame[frame["page_size_bytes"] == page_size]
        assert list(dict.fromkeys(rows["workload"])) == PHASES  # the load, then a b c f d
        for phase, name in zip(PHASES, FILES):
            text = (directory / name).read_text()
            assert text.startswith("[OVERALL], RunTime(ms), ")
            parsed = parse_ycsb(text)
            assert parsed.warnings == [] and parsed.meta["runs"] == 1
            assert_parses_back(rows[rows["workload"] == phase], parsed.to_frame())
            assert text == run.texts[(backend, page_size, phase)]
        overall = rows[rows["operation"] == "OVERALL"].set_index("workload")
        assert overall.loc["load", "operations"] == SMALL["records"]
        assert (overall.drop(index="load")["operations"] == SMALL["operations"]).all()
        ops = rows.set_index(["workload", "operation"])
        # every operation came back OK, and the mixes are the workloads'
        assert (rows.loc[rows["operation"] != "OVERALL", "return_not_found"].isna()).all()
        assert ops.loc[("read_only", "READ"), "return_ok"] == SMALL["operations"]
        assert 0.35 < ops.loc[("mixed_50_50", "UPDATE"), "operations"] / SMALL["operations"] < 0.65
        assert ops.loc[("read_mostly_95_5", "UPDATE"), "operations"] / SMALL["operations"] < 0.12
        assert 0 < ops.loc[("read_latest_95_5", "INSERT"), "operations"] < 0.12 * SMALL["operations"]
        rmw = ops.loc[("read_modify_write_50_50", "READ-MODIFY-WRITE"), "operations"]
        assert ops.loc[("read_modify_write_50_50", "UPDATE"), "operations"] == rmw
        assert ops.loc[("read_modify_write_50_50", "READ"), "operations"] == SMALL["operations"]
        assert (rows.loc[rows["operation"] != "OVERALL", "p99_latency_us"] >= rows.loc[
            rows["operation"] != "OVERALL", "p95_latency_us"]).all()
    # the CSV on disk is the frame
    on_disk = read_results(run.out_dir)
    assert len(on_disk) == len(frame)
    meta = json.loads((run.out_dir / "ycsb.json").read_text())
    assert meta["status"] == "complete" and meta["options"]["seed"] == SMALL["seed"]
    assert all(phase["status"] == "done" for entry in meta["runs"].values() for phase in entry["phases"].values())


def test_a_short_run_on_the_prototype(prototype_run):
    check_run(prototype_run, "prototype", [4096, 16384])
    assert set(prototype_run.frame["client"]) == {"in-process"}
    # the databases are removed at the end unless keep_data
    assert not list(prototype_run.out_dir.rglob("usertable.db*"))
    entry = prototype_run.meta["runs"]["prototype-4k"]
    assert entry["direct_io"] and entry["tree_depth"] >= 2 and entry["db_bytes"] > 0


def test_a_short_run_on_a_real_mariadb_instance(innodb_run):
    check_run(innodb_run, "innodb", [16384])
    frame = innodb_run.frame
    assert set(frame["client"]) == {"c-extension"}  # the workers load mysql-connector's C extension
    assert set(frame["threads"]) == {2} and set(frame["parallelism"]) == {"processes"}
    entry = innodb_run.meta["runs"]["innodb-16k"]
    assert entry["server"]["innodb_page_size"] == 16384
    assert entry["server"]["innodb_flush_method"] == "O_DIRECT"
    assert entry["server"]["innodb_buffer_pool_size"] == MIN_BUFFER_POOL[16384]
    assert entry["db_bytes"] > 0 and entry["restarted"] is True
    load = frame[(frame["workload"] == "load") & (frame["operation"] == "OVERALL")]
    assert (load["pages_written"] > 0).all()
    # no server is left behind, and its datadir is gone (the logs stay)
    server_dir = innodb_run.out_dir / "innodb-16k" / "server"
    assert not servers_under(server_dir)
    assert (server_dir / "mysqld.err").exists() and not (server_dir / "data").exists()
    assert "password" not in (innodb_run.out_dir / "ycsb.json").read_text().lower()


def test_the_same_seed_makes_the_same_operations(prototype_run, tmp_path):
    from pagelab.workloads.ycsb import run_ycsb

    again = run_ycsb("prototype", page_sizes=("4k",), threads=1, out_dir=tmp_path / "again", **SMALL)
    counted = ["workload", "operation", "operations", "return_ok"]
    first = prototype_run.frame[prototype_run.frame["page_size_bytes"] == 4096][counted].reset_index(drop=True)
    assert again.frame[counted].equals(first)


def test_pagelab_parse_reads_our_files(innodb_run):
    path = innodb_run.out_dir / "innodb-16k" / "workloada.txt"
    done = pagelab_here("parse", "ycsb", path)
    assert done.returncode == 0, done.stderr
    from io import StringIO

    table = pd.read_csv(StringIO(done.stdout))
    ours = innodb_run.frame[innodb_run.frame["workload"] == WORKLOADS["a"].name]
    assert list(table["operation"]) == list(ours["operation"])
    assert table["p99_latency_us"].tolist()[1:] == ours["p99_latency_us"].tolist()[1:]


def test_the_default_buffer_pool_is_well_below_the_data():
    data = estimated_data_bytes(100_000)
    assert 120e6 < data < 200e6  # ~1.1 KB per record at ~69% fill
    pool = auto_cache_bytes(data, [16384, 65536])
    assert MIN_BUFFER_POOL[65536] <= pool <= 0.2 * data
    assert auto_cache_bytes(estimated_data_bytes(500), [65536]) == MIN_BUFFER_POOL[65536]
