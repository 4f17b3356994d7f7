"""The seed's claims are checked only where a sweep's recorded configuration is the seed's.

The bundles here are made from real captured tables: the Week 4 lab report's own iostat, InnoDB status and TpmC
(data/reference/, transcribed from its text), one run per page size, with the configuration each
bundle records written into its summaries and sweep.json: once as the seed's (7 warehouses, a
256 MiB (268 MB) pool of 700 MB, 8 connections, 1200 s) and once as `quick`'s (1 warehouse, 64 MiB (67 MB) of
93 MB, 4 connections, 9 s)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pagelab.common.paths import PROJECT_ROOT
from pagelab.report.answer import conclusion_markdown
from pagelab.report.claims import DOES_NOT_HOLD, HOLDS, NOT_CHECKED, NOT_RESOLVED_HERE, claims
from pagelab.report.lab_report import load

REFERENCE = PROJECT_ROOT / "data" / "reference"
MIB = 1 << 20
SEED_CONFIGURATION = {"warehouses": 7, "connections": 8, "measure_s": 1200, "db_bytes": 700_000_000,
                      "buffer_pool_bytes": 256 * MIB}
QUICK_CONFIGURATION = {"warehouses": 1, "connections": 4, "measure_s": 9, "db_bytes": 93 * MIB,
                       "buffer_pool_bytes": 64 * MIB}


def seed_bundle(directory: Path, configuration: dict) -> Path:
    """A bundle of the Week 4 lab report's captured tables, recording `configuration`."""
    directory.mkdir(parents=True)
    tpmc = pd.read_csv(REFERENCE / "week4_lab_tpmc.csv")
    iostat = pd.read_csv(REFERENCE / "week4_lab_iostat.csv")
    innodb = pd.read_csv(REFERENCE / "week4_lab_innodb.csv")
    runs = []
    for row in tpmc.itertuples():
        name = f"{row.page_size}-r1"
        run_dir = directory / name
        run_dir.mkdir()
        mine = iostat[iostat["page_size"] == row.page_size].drop(columns=["page_size", "page_size_bytes", "device"])
        mine.assign(wareq_kb=float("nan")).to_csv(run_dir / "iostat.csv", index=False)
        innodb[innodb["page_size"] == row.page_size].drop(columns=["page_size", "page_size_bytes"]).to_csv(
            run_dir / "innodb.csv", index=False)
        (run_dir / "summary.json").write_text(json.dumps(
            {"tpmc": row.tpmc, "page_size_bytes": row.page_size_bytes, "repeat": 1, **configuration}))
        runs.append({"name": name, "page_size": row.page_size, "page_size_bytes": row.page_size_bytes, "repeat": 1,
                     "status": "done"})
    profile = {"page_sizes": list(tpmc["page_size_bytes"]), "repeats": 1,
               "warehouses": configuration["warehouses"], "connections": configuration["connections"],
               "measure_s": configuration["measure_s"]}
    (directory / "sweep.json").write_text(json.dumps({"sweep_id": directory.name, "profile": profile,
                                                       "runs": runs, "machine": {}}))
    return directory


@pytest.fixture
def seed_configuration(tmp_path):
    return {claim.key: claim for claim in claims(load(seed_bundle(tmp_path / "seed", SEED_CONFIGURATION)))}


@pytest.fixture
def quick_configuration(tmp_path):
    return {claim.key: claim for claim in claims(load(seed_bundle(tmp_path / "quick", QUICK_CONFIGURATION)))}


def test_a_sweep_of_another_configuration_does_not_check_the_seeds_claims(quick_configuration):
    for key in ("iops_fall", "hit_ratio", "best_8k", "similar"):
        claim = quick_configuration[key]
        assert claim.verdict == NOT_CHECKED, key
        assert "1 warehouse against 7" in claim.evidence
        assert "pool 64 MiB (69% of the data loaded) against the lab's 30%" in claim.evidence
        assert "4 connections against 8" in claim.evidence
        assert "`course` profile" in claim.evidence
    assert "9 s measured against 1200 s" in quick_configuration["hit_ratio"].evidence
    assert "9 s measured against at least 90 s" in quick_configuration["similar"].evidence


def test_the_seeds_configuration_gets_verdicts(seed_configuration):
    for key, claim in seed_configuration.items():
        assert claim.verdict in (HOLDS, DOES_NOT_HOLD, NOT_RESOLVED_HERE), (key, claim.evidence)
    # The seed's own hit ratio: 990 at 100 s, 993 from 400 s on, at every page size.
    assert seed_configuration["hit_ratio"].verdict == HOLDS


def test_the_request_size_claim_is_checked_in_both(seed_configuration, quick_configuration):
    # The seed's reads are 4.00, 8.00 and 16.00 kB: its claim holds on its own tables whatever is recorded.
    assert seed_configuration["read_request"].verdict == HOLDS
    assert quick_configuration["read_request"].verdict == HOLDS


def test_the_conclusion_names_what_was_not_checked(tmp_path):
    data = load(seed_bundle(tmp_path / "quick", QUICK_CONFIGURATION))
    text = conclusion_markdown(data, claims(data))
    assert ("not checked here, as this sweep's configuration differs from the lab's (1 warehouse against 7; pool 64 MiB "
            "(69% of the data loaded) against the lab's 30%; 4 connections against 8; 9 s measured against at least "
            "90 s): \u201cIOPS falls slightly") in text
    # it rests on one run per page size, so it is listed apart from verdicts with an interval
    once = "this holds here on this sweep's one run per page size, with no interval (another run could read otherwise): "
    assert once + "\u201cThe average read request equals the page size\u201d" in text, text
    # each verdict an item of its own: the reasons' semicolons must not run a claim not checked
    # into the ones that hold
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert any(line.startswith("- " + once) for line in items), text
    assert all("not checked here" not in line for line in items if line.startswith("- these hold here on")), items


def test_the_setup_table_puts_the_course_guides_settings_beside_the_sweeps(tmp_path):
    from pagelab.report.setup_tables import benchmark_setup
    from pagelab.sweep.profiles import load_profile

    bundle = seed_bundle(tmp_path / "course", SEED_CONFIGURATION)
    record = json.loads((bundle / "sweep.json").read_text())
    record["profile"] = load_profile("course").to_dict()
    (bundle / "sweep.json").write_text(json.dumps(record))
    table = benchmark_setup(load(bundle)).set_index("Setting")
    assert table.loc["innodb_flush_log_at_trx_commit", "This sweep"] == "0"
    assert table.loc["innodb_flush_log_at_trx_commit", "Week 4 lab"] == "0 (course guide)"
    assert table.loc["innodb_buffer_pool_instances", "This sweep"] == "not applicable on MariaDB"
    assert table.loc["innodb_log_file_size", "This sweep"] == "200M (one file)"
    course = load_profile("course")
    runtime = table.loc["Runtime", "This sweep"]
    assert f"{course.repeats} runs per page size" in runtime and "1200 s" in runtime


def test_a_claim_over_time_needs_a_run_long_enough_to_show_time(tmp_path):
    # The seed's configuration measured 100 s a run, as course's verdict runs, without over-time runs.
    found = {c.key: c for c in claims(load(seed_bundle(tmp_path / "short", {**SEED_CONFIGURATION, "measure_s": 100})))}
    assert found["hit_ratio"].verdict == NOT_CHECKED
    # the verdict runs are the lab's configuration: what is missing is the over-time runs, said as such
    assert found["hit_ratio"].evidence.startswith("the over-time runs were not run (over_time_s was 0). ")
    assert "the verdict runs measure 100 s after their ramp-up" in found["hit_ratio"].evidence
    assert "not the lab's" not in found["hit_ratio"].evidence and "differs" not in found["hit_ratio"].evidence
    for key in ("iops_fall", "best_8k", "similar"):
        assert found[key].verdict != NOT_CHECKED, key


def _auto_rampup_bundle(directory: Path, per_run: dict) -> Path:
    """A seed bundle whose runs recorded `per_run` in their summaries, under an auto ramp-up capped at 8 s."""
    bundle = seed_bundle(directory, {**QUICK_CONFIGURATION, **per_run})
    record = json.loads((bundle / "sweep.json").read_text())
    record["profile"].update(rampup_s="auto", max_rampup_s=8)
    (bundle / "sweep.json").write_text(json.dumps(record))
    return bundle


def test_the_method_says_what_the_runs_recorded_of_their_ramp_up_and_writes(tmp_path):
    from pagelab.report.method import method_markdown

    filled = method_markdown(load(_auto_rampup_bundle(tmp_path / "new", {
        "rampup_s": 16.0, "rampup": {"ended_by": "ceiling", "ceiling_s": 16.0},
        "writeback_before_start": {"dirty_bytes_before": 4 * MIB}})))
    assert "at most 8 s, or 16 s while the pool was still filling" in filled
    assert "in 3 of 3 runs the pool was still filling at the cap" in filled and "(3 reached twice the cap)" in filled
    assert "Each measured run, the first included, restored that snapshot, had the kernel's pending writes" in filled
    # a bundle from before both: no ceiling recorded, no writes flushed, the first run on the loaded datadir
    old = method_markdown(load(_auto_rampup_bundle(tmp_path / "old", {"rampup_s": 8.0, "rampup": {"ended_by": "cap"}})))
    assert "at most 8 s)" in old and "still filling" not in old and "(the cap ended every ramp-up)" in old
    assert "the first ran on the datadir the load left" in old and "pending writes" not in old
