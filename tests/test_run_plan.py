"""Every knob reaches the run: the profile is the one description of a run, read in one place."""

from __future__ import annotations

import pytest

from pagelab.sweep.experiment import run_plan
from pagelab.sweep.knobs import KNOBS_BY_NAME, PLANNING_KNOBS
from pagelab.sweep.profiles import load_profile
from pagelab.sweep.run_unit import run_parameters

DB_BYTES = 110 << 20


@pytest.fixture
def build_dirs(tmp_path):
    first, second = tmp_path / "tpcc-mysql-a", tmp_path / "tpcc-mysql-b"
    first.mkdir()
    second.mkdir()
    return first, second


def alternatives(second_build) -> dict[str, str]:
    """A valid value other than the smoke profile's, for every knob."""
    return {
        "page_sizes": "4k,8k", "repeats": "2", "warehouses": "2", "connections": "8", "rampup_s": "20",
        "measure_s": "30", "interval_s": "1", "sample_interval_s": "1", "buffer_pool": "48M",
        "flush_method": "fsync", "redo_log": "128M", "max_connections": "300", "random_seed": "2",
        "driver_mode": "procedures", "nurand": "spec", "spec_pacing": "true", "response_limits": "new_order=1000",
        "loader": "tpcc-mysql", "tpcc_mysql_dir": str(second_build),
        "server_options": "innodb_io_capacity=500", "max_rampup_s": "120", "max_measure_s": "600",
        "target_ci_pct": "3", "over_time_s": "30", "equivalence_pct": "5", "transport": "socket", "stall_s": "5",
        "max_rounds": "3", "primary": "16k vs 4k", "cpu_placement": "split",
        "planned_within_a": "3200", "planned_floor_pct": "1.6", "block_weights": "precision",
        "disk_profile": "true",
    }


def plans(profile) -> list:
    return [run_plan(profile, unit["page_size"], unit["repeat"], DB_BYTES, unit["cell"], unit["role"])
            for unit in profile.units()]


def test_every_knob_has_an_alternative_here(build_dirs):
    assert set(alternatives(build_dirs[1])) == set(KNOBS_BY_NAME), "a new knob needs a value in this test"


# Knobs of the analysis, not of the runs: they change what the report says of the runs, not the runs
# (max_rounds: the level each look is tested at; rounds added later are runs of the same plan;
# primary: which comparison is tested first; block_weights: how TpmC's blocks are weighed; the planning
# knobs: what the design assumed, which the report sets beside what the runs measured).
ANALYSIS_KNOBS = {"equivalence_pct", "max_rounds", "primary", "block_weights", *PLANNING_KNOBS}
# disk_profile: the disk's read speed is measured once per host before any run (pagelab.sweep.run_unit),
# a record of the machine beside the runs, not a setting of one; tests/test_disk_speed.py tests it.
HOST_RECORD_KNOBS = {"disk_profile"}


@pytest.mark.parametrize("knob", sorted(set(KNOBS_BY_NAME) - ANALYSIS_KNOBS - HOST_RECORD_KNOBS))
def test_changing_a_knob_changes_the_plan_of_the_runs(knob, build_dirs):
    base = load_profile("smoke", [f"tpcc_mysql_dir={build_dirs[0]}"])
    changed = load_profile("smoke", [f"tpcc_mysql_dir={build_dirs[0]}", f"{knob}={alternatives(build_dirs[1])[knob]}"])
    assert changed.values[knob] != base.values[knob]
    assert plans(changed) != plans(base), f"the runs do not receive the knob {knob}"


def test_the_run_notebook_gets_the_profile_whole():
    profile = load_profile("smoke")
    parameters = run_parameters(profile.to_dict(), "data/runs/x", 16384, 2)
    assert parameters["profile"] == profile.to_dict()
    assert (parameters["page_size"], parameters["repeat"]) == (16384, 2)


def test_a_pool_in_percent_waits_for_the_loaded_size():
    profile = load_profile("quick", ["buffer_pool=30%"])
    assert run_plan(profile, "8k", 1, None).server_settings is None
    assert run_plan(profile, "8k", 1, DB_BYTES).server_settings.buffer_pool_bytes == 33 << 20
    assert run_plan(load_profile("quick"), "8k", 1, None).server_settings.buffer_pool_bytes == 64 << 20


def test_an_over_time_run_measures_over_time_s_after_the_rounds():
    profile = load_profile("smoke", ["repeats=2", "over_time_s=40"])
    units = profile.units()
    assert [(u["role"], u["round"]) for u in units[-2:]] == [("over_time", 3), ("over_time", 3)]
    assert all(u["role"] == "verdict" for u in units[:-2])
    long_run = run_plan(profile, units[-1]["page_size"], 1, DB_BYTES, units[-1]["cell"], units[-1]["role"])
    assert long_run.run_options.measure_s == 40 and long_run.name == "16k-over-time"
    assert run_plan(profile, "16k", 1, DB_BYTES).run_options.measure_s == 9
