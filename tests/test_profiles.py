"""Profiles: the shipped YAML files, `--set` overrides, and the errors a user sees for bad input."""

from __future__ import annotations

import copy
import math
import json
import pickle
import re

import pytest

from pagelab.sweep import knobs
from pagelab.common.errors import UsageError
from pagelab.mysql.config import ServerSettings
from pagelab.mysql.pagesize import PAGE_SIZES
from pagelab.common.paths import PROFILES_DIR
from pagelab.sweep.knobs import KNOBS, KNOBS_BY_NAME
from pagelab.sweep.profiles import Profile, available_profiles, describe, load_profile, profile_from_dict, profile_help

SHIPPED = ["course", "full", "pool", "quick", "smoke"]
MIB = 1 << 20


def usage_error(name_or_path, *overrides) -> str:
    with pytest.raises(UsageError) as caught:
        load_profile(name_or_path, list(overrides))
    return str(caught.value)


# --- the shipped profiles -----------------------------------------------------------------------------


def test_the_shipped_profiles():
    assert available_profiles() == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profile_loads_and_says_what_it_is_for(name):
    profile = load_profile(name)
    assert isinstance(profile, Profile) and profile.name == name
    assert set(profile.values) == {knob.name for knob in KNOBS}
    # Each file opens with comments: what it is for and how long it takes.
    assert profile.description.startswith(f"{name}:")
    assert "Takes about" in profile.description
    # Every key in the file is a knob (an unknown key would have raised), and it round-trips.
    assert profile_from_dict(json.loads(json.dumps(profile.to_dict()))) == profile


def test_smoke_is_small_enough_for_ci():
    smoke = load_profile("smoke")
    assert smoke.page_sizes == (4096, 16384)
    assert (smoke.warehouses, smoke.connections, smoke.repeats) == (1, 2, 1)
    assert (smoke.rampup_s, smoke.measure_s, smoke.interval_s, smoke.sample_interval_s) == (3, 9, 3, 3)
    assert smoke.buffer_pool_bytes(None) == 32 * MIB and smoke.redo_log == 64 * MIB


def test_quick_fits_ten_minutes_with_the_fixtures_pool():
    quick = load_profile("quick")
    assert quick.page_size_labels == ["4k", "8k", "16k"]
    assert quick.buffer_pool_bytes(None) == 64 * MIB
    # enough runs for a 95% order-statistic interval of the median that leaves out the extremes
    # (9: x(2)..x(8)), which also lets the rank test behind a verdict pass with runs out of order
    assert quick.repeats >= 9 and quick.rampup_s == "auto"
    longest = len(quick.units()) * (quick.max_rampup_s + quick.measure_s)
    assert longest <= 9 * 60, "even with every ramp-up capped, the runs must leave a minute for restarts and the PDF"


def test_course_is_seed_002s_setup():
    course = load_profile("course")
    assert course.page_size_labels == ["4k", "8k", "16k"]
    assert (course.warehouses, course.connections, course.rampup_s, course.interval_s) == (7, 8, "auto", 10)
    # verdicts: at least 5 runs per page size of 90-120 s steady state, in rounds; the seed's picture
    # over time: one 1200 s run per page size after them
    assert course.repeats >= 5 and 90 <= course.measure_s <= 120
    assert course.over_time_s == 1200
    units = course.units()
    assert sum(u["role"] == "over_time" for u in units) == 3
    verdict_runs = 3 * course.repeats
    assert [u["role"] for u in units[:verdict_runs]] == ["verdict"] * verdict_runs
    measured = sum(course.measure_s if u["role"] == "verdict" else course.over_time_s for u in units)
    # the quiet 12-round sweep of 2026-11-29 spent 33.7 s a run besides measuring (restore, restart,
    # ramp-up, record; `pagelab plan` reads it from each run's phases.csv), 51 s on the loads and 9 s on
    # the report; the 7-round design ran about 2 minutes over the planner's arithmetic (1.82 h planned,
    # 111 min 25 s measured), so what is planned must leave 6 minutes of the 2 hours: 1.9 h
    assert measured + 34 * len(units) + 60 <= 114 * 60, "course must fit in 2 hours on this machine"
    # what the seed's server had: its status output shows 256 MiB at every page size
    assert str(course.buffer_pool) == "256M"
    # the course guide's my.cnf where MariaDB has it; its 2 x 100M redo files as one of 200M
    assert course.flush_method == "O_DIRECT" and course.redo_log == 200 * MIB
    assert dict(course.server_options) == {"innodb_flush_log_at_trx_commit": "0", "innodb_flush_neighbors": "0",
                                           "innodb_log_buffer_size": "32M"}


@pytest.mark.parametrize("option, message", [
    ("innodb_buffer_pool_instances=8", "innodb_buffer_pool_instances is not applicable: MariaDB has ignored it since 10.5"),
    ("innodb_log_files_in_group=2", "MariaDB since 10.5 writes one redo log file"),
    ("innodb_flush_neigbors=0", "innodb_flush_neigbors is not a setting of this server"),
])
def test_a_server_setting_the_server_lacks_is_refused_with_the_reason(option, message):
    with pytest.raises(UsageError) as refused:
        load_profile("smoke", [f"server_options.{option}"])
    assert message in str(refused.value) and str(refused.value).startswith("server_options: ")


def test_full_runs_every_page_size_nine_times():
    full = load_profile("full")
    assert full.page_size_labels == ["4k", "8k", "16k", "32k", "64k"]
    assert full.repeats == 9 and len(full.units()) == 45
    # Round by round: the first round covers every page size before any size runs twice.
    assert sorted(unit["page_size"] for unit in full.units()[:5]) == sorted(full.page_sizes)


def _floor_of_exact_tests(rounds: int, pairs: int) -> float:
    """Worked by hand from the exact null distributions, not by the code under test: all rounds
    (signed-rank, from 6 rounds on) or all runs (rank-sum, below 6) of one side ahead, the smallest
    two-sided p, times the pairs (Holm's first step, which all equal p-values share)."""
    p_value = 2 / 2 ** rounds if rounds >= 6 else 2 / math.comb(2 * rounds, rounds)
    return min(1.0, pairs * p_value)


@pytest.mark.parametrize("name", [n for n in available_profiles() if n != "smoke"])
def test_every_profile_with_rounds_has_room_for_a_verdict(name):
    """A profile that promises verdicts must be able to give one: an exact rank test has a floor,
    and a family of pairs multiplies it (full had 5 rounds for 10 pairs: 0.079, never a verdict)."""
    profile = load_profile(name)
    pairs = math.comb(len(profile.page_sizes), 2)
    assert _floor_of_exact_tests(profile.repeats, pairs) < 0.05, (name, profile.repeats, pairs)
    assert profile.verdict_floor_note() is None


@pytest.mark.parametrize("sets, rounds_named", [
    (["page_sizes=4k,8k,16k,32k,64k", "repeats=5"], 9),
    (["page_sizes=4k,8k,16k", "repeats=6"], 7),  # the paired test's floor is higher than 5 rounds' unpaired one
    (["page_sizes=4k,8k,16k,32k", "repeats=7"], 8),
])
def test_a_profile_that_can_give_no_verdict_is_told_how_many_rounds_can(sets, rounds_named):
    profile = load_profile("quick", sets)
    pairs = math.comb(len(profile.page_sizes), 2)
    assert _floor_of_exact_tests(profile.repeats, pairs) >= 0.05
    assert _floor_of_exact_tests(rounds_named, pairs) < 0.05
    note = profile.verdict_floor_note()
    assert note and f"--set repeats={rounds_named}" in note
    assert f"{_floor_of_exact_tests(profile.repeats, pairs):.3f}" in note


def test_a_profile_can_be_given_by_path():
    assert load_profile(PROFILES_DIR / "smoke.yaml") == load_profile("smoke")
    assert load_profile(str(PROFILES_DIR / "smoke.yaml")).name == "smoke"


# --- overrides ----------------------------------------------------------------------------------------


def test_overrides_replace_profile_values():
    # quick declares a primary comparison of 16k: other page sizes need their own (or none)
    profile = load_profile("quick", ["page_sizes=4k,64k", "buffer_pool=30%", "measure_s=30", "primary=64k vs 4k"])
    assert profile.page_sizes == (4096, 65536)
    assert profile.measure_s == 30
    assert str(profile.buffer_pool) == "30%"
    assert profile.primary == "64k vs 4k"
    assert profile.overrides == ("page_sizes=4k,64k", "buffer_pool=30%", "measure_s=30", "primary=64k vs 4k")
    import yaml

    written = yaml.safe_load((PROFILES_DIR / "quick.yaml").read_text())["measure_s"]
    assert written != 30 and load_profile("quick").measure_s == written, "the profile file itself is untouched"


def test_later_overrides_win_and_values_are_normalised():
    profile = load_profile("smoke", ["repeats=2", "repeats=3", "flush_method=fsync", "page_sizes=16K 8k"])
    assert profile.repeats == 3
    assert profile.flush_method == "fsync"
    assert profile.page_sizes == (16384, 8192), "the order given is the order run"


def test_server_options_from_yaml_and_from_set(tmp_path):
    path = tmp_path / "tuned.yaml"
    path.write_text("page_sizes: [8k]\nserver_options:\n  innodb_io_capacity: 2000\n  innodb_adaptive_hash_index: off\n")
    profile = load_profile(path, ["server_options.innodb_io_capacity=4000", "server_options.innodb_doublewrite=0"])
    assert dict(profile.server_options) == {
        "innodb_adaptive_hash_index": "OFF", "innodb_doublewrite": "0", "innodb_io_capacity": "4000"}
    replaced = load_profile(path, ["server_options=innodb_io_capacity=100"])
    assert dict(replaced.server_options) == {"innodb_io_capacity": "100"}


def test_the_tpcc_mysql_driver_with_its_build(tmp_path):
    profile = load_profile("smoke", ["driver_mode=tpcc-mysql", f"tpcc_mysql_dir={tmp_path}"])
    assert profile.driver_mode == "tpcc-mysql" and profile.tpcc_mysql_dir == str(tmp_path)
    assert profile.loader == "pagelab", "tpcc-mysql's driver may run on pagelab's load"
    assert load_profile("smoke", ["loader=tpcc-mysql", f"tpcc_mysql_dir={tmp_path}"]).driver_mode == "statements"


def test_statements_is_the_default_mode_and_pagelab_reads_as_procedures():
    assert load_profile("quick").driver_mode == "statements"
    assert load_profile("smoke", ["driver_mode=pagelab"]).driver_mode == "procedures"


def test_a_bundle_written_before_the_modes_reads_back():
    old = {k: v for k, v in load_profile("smoke").to_dict().items() if k not in ("driver_mode", "loader")}
    assert profile_from_dict({**old, "driver": "pagelab"}).driver_mode == "procedures"
    legacy_external = profile_from_dict({**old, "driver": "tpcc-mysql", "tpcc_mysql_dir": "/"})
    assert (legacy_external.driver_mode, legacy_external.loader) == ("tpcc-mysql", "tpcc-mysql")


# --- bad input: one UsageError naming the knob and what it allows --------------------------------------


@pytest.mark.parametrize("override, expected", [
    ("page_sizes=12k", "page_sizes: 12k is not allowed; allowed: 4k 8k 16k 32k 64k"),
    ("page_sizes=4k,4k", "page_sizes: 4k is given twice"),
    ("page_sizes=", "page_sizes: no page size given; allowed: 4k 8k 16k 32k 64k"),
    ("repeats=0", "repeats: 0 is out of range; allowed: an integer >= 1"),
    ("repeats=two", "repeats: 'two' is not an integer; allowed: an integer >= 1"),
    ("warehouses=0", "warehouses: 0 is out of range; allowed: an integer >= 1"),
    ("rampup_s=-1", "rampup_s: -1 is out of range; allowed: an integer >= 0"),
    ("measure_s=2.5", "measure_s: '2.5' is not an integer; allowed: an integer >= 1"),
    ("buffer_pool=150%", "buffer_pool: 150% is out of range; allowed: a size such as 64M or 1G"),
    ("buffer_pool=0%", "buffer_pool: 0% is out of range; allowed:"),
    ("buffer_pool=lots", "buffer_pool: 'lots' is neither a size nor a percentage; allowed:"),
    ("buffer_pool=1M", "buffer_pool: 1M is too small; allowed: a size such as 64M or 1G (at least 5M"),
    ("buffer_pool=100000000", "buffer_pool: 100000000 is not a whole number of MiB"),
    ("flush_method=O_DIRCT", "flush_method: O_DIRCT is not allowed; allowed: O_DIRECT fsync"),
    ("driver_mode=sysbench", "driver_mode: sysbench is not allowed; allowed: statements procedures tpcc-mysql"),
    ("loader=sysbench", "loader: sysbench is not allowed; allowed: pagelab tpcc-mysql"),
    ("transport=pipe", "transport: pipe is not allowed; allowed: tcp socket"),
    ("stall_s=0", "stall_s: 0 is out of range; allowed: an integer >= 1"),
    ("redo_log=big", "redo_log: 'big' is not a size; allowed: a size such as 64M or 1G, at least 1M"),
    ("random_seed=-3", "random_seed: -3 is out of range; allowed: an integer >= 0"),
    ("server_options.innodb_buffer_pool_size=1G", "server_options: innodb_buffer_pool_size has its own knob; "
                                                  "set buffer_pool instead"),
    ("server_options.datadir=/tmp", "server_options: server option 'datadir' is managed by pagelab"),
])
def test_a_bad_value_names_the_knob_and_what_is_allowed(override, expected):
    assert expected in usage_error("quick", override)


def test_interval_longer_than_the_measurement():
    message = usage_error("quick", "measure_s=30", "interval_s=60")
    assert message.startswith("interval_s: 60 is longer than measure_s (30)")
    assert "allowed: 1 to measure_s" in message
    assert "sample_interval_s: 40 is longer" in usage_error("quick", "measure_s=30", "sample_interval_s=40")


def test_a_pool_too_small_for_64k_pages_is_refused_and_a_percentage_is_raised_to_it():
    """MariaDB 10.11 refuses to start at innodb_page_size=65536 with a pool below 21 MiB (its own
    error), although 6M passes the 5 MiB floor of the smaller pages."""
    message = usage_error("smoke", "page_sizes=4k,64k", "buffer_pool=6M")
    assert message.startswith("buffer_pool: 6M is below the 21M InnoDB needs at 64k pages; give at least 21M")
    assert load_profile("smoke", ["page_sizes=4k,16k", "buffer_pool=6M"]).buffer_pool_bytes(None) == 6 << 20
    assert load_profile("smoke", ["page_sizes=4k,64k", "buffer_pool=21M"]).buffer_pool_bytes(None) == 21 << 20
    one_percent = load_profile("smoke", ["page_sizes=4k,64k", "buffer_pool=1%"])
    assert one_percent.buffer_pool_bytes(200 << 20, 65536) == 21 << 20
    assert one_percent.buffer_pool_bytes(200 << 20, 4096) == 5 << 20


def test_too_few_server_connections_for_the_driver():
    message = usage_error("course", "max_connections=10")
    assert "max_connections: 10 is too few for 8 driver connections" in message
    assert f"allowed: at least {8 + knobs.PAGELAB_OWN_CONNECTIONS}" in message


def test_the_tpcc_mysql_driver_needs_a_build_directory(tmp_path):
    assert "tpcc_mysql_dir: driver_mode tpcc-mysql needs the directory" in usage_error("smoke", "driver_mode=tpcc-mysql")
    assert "tpcc_mysql_dir: loader tpcc-mysql needs the directory" in usage_error("smoke", "loader=tpcc-mysql")
    missing = tmp_path / "nowhere"
    assert f"tpcc_mysql_dir: {missing} is not a directory" in usage_error(
        "smoke", "driver_mode=tpcc-mysql", f"tpcc_mysql_dir={missing}")


def test_an_unknown_knob_lists_the_known_ones():
    message = usage_error("quick", "foo=1")
    assert message.startswith("foo: unknown knob in --set foo=1; known knobs: page_sizes repeats")
    assert all(knob.name in message for knob in KNOBS)


def test_a_set_without_equals_is_explained():
    assert "--set takes knob=value, got 'measure_s'" in usage_error("quick", "measure_s")


def test_every_problem_is_reported_at_once():
    message = usage_error("quick", "page_sizes=12k", "repeats=0", "foo=1")
    assert "3 problems" in message
    for knob in ("page_sizes:", "repeats:", "foo:"):
        assert knob in message


def test_an_unknown_profile_name_lists_the_profiles():
    message = usage_error("quik")
    assert "'quik' is not a profile; allowed: course full pool quick smoke" in message


def test_a_missing_profile_file(tmp_path):
    assert f"no file at {tmp_path / 'gone.yaml'}" in usage_error(tmp_path / "gone.yaml")


def test_a_yaml_with_an_unknown_key(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text("page_sizes: [4k, 16k]\nmeasure_seconds: 30\n")
    message = usage_error(path)
    assert message.startswith("measure_seconds: unknown knob in profile typo.yaml; known knobs:")
    assert "measure_s" in message


@pytest.mark.parametrize("content, expected", [
    ("- 4k\n- 16k\n", "must be a mapping of knob: value"),
    ("page_sizes: [4k\n", "not valid YAML"),
    ("page_sizes: [4k, 12k]\n", "page_sizes: 12k is not allowed; allowed: 4k 8k 16k 32k 64k"),
    ("repeats: yes\n", "repeats: True is not an integer"),
    ("buffer_pool: 30\n", "buffer_pool: 30 is too small"),  # 30 bytes: the % forgotten
    ("measure_s: 30.0\n", "measure_s: 30.0 is not an integer"),
])
def test_a_bad_yaml_file(tmp_path, content, expected):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    assert expected in usage_error(path)


def test_an_empty_yaml_file_gives_the_defaults(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing set\n")
    profile = load_profile(path)
    assert all(profile[knob.name] == knob.default for knob in KNOBS)
    assert profile.description == "nothing set"


# --- the buffer pool ----------------------------------------------------------------------------------


def test_thirty_percent_of_the_seeds_700_mb_is_its_210_mb():
    full = load_profile("full")
    assert full.buffer_pool_bytes(700 * MIB) == 210 * MIB


def test_a_percentage_is_rounded_to_whole_mib_and_floored_at_5_mib():
    profile = load_profile("quick", ["buffer_pool=30%"])
    resolved = profile.buffer_pool_bytes(123_456_789)
    assert resolved % MIB == 0 and abs(resolved - 0.3 * 123_456_789) <= MIB / 2
    # Every page size divides the pool, so pool bytes / page size is InnoDB's page count.
    assert all(resolved % size == 0 for size in PAGE_SIZES)
    assert profile.buffer_pool_bytes(1 * MIB) == 5 * MIB


def test_a_percentage_needs_the_loaded_size():
    with pytest.raises(UsageError, match="buffer_pool: 30% of the loaded database needs the database's size"):
        load_profile("full").buffer_pool_bytes(None)


def test_fixed_bytes_ignore_the_database_size():
    assert load_profile("quick").buffer_pool_bytes(10_000 * MIB) == 64 * MIB


def test_the_knob_reads_a_buffer_pool_as_written():
    assert KNOBS_BY_NAME["buffer_pool"].parse("30%").resolve(700 * MIB) == 210 * MIB
    assert KNOBS_BY_NAME["buffer_pool"].parse("64M").resolve(None) == 64 * MIB


def test_server_settings_for_a_measured_run():
    settings = load_profile("full", ["server_options.innodb_io_capacity=2000"]).server_settings(700 * MIB)
    assert isinstance(settings, ServerSettings)
    assert settings.buffer_pool_bytes == 210 * MIB and settings.flush_method == "O_DIRECT"
    assert settings.redo_log_bytes == 256 * MIB and settings.extra == {"innodb_io_capacity": "2000"}


# --- the profile object -------------------------------------------------------------------------------


def test_to_dict_is_json_for_sweep_json():
    data = json.loads(json.dumps(load_profile("quick", ["measure_s=30"]).to_dict()))
    assert data["profile"] == "quick" and data["overrides"] == ["measure_s=30"]
    assert data["page_sizes"] == [4096, 8192, 16384]
    assert data["buffer_pool"] == "64M" and data["redo_log"] == "256M" and data["measure_s"] == 30
    assert data["server_options"] == {}


def test_a_profile_is_frozen_and_survives_copy_and_pickle():
    profile = load_profile("smoke")
    with pytest.raises(Exception):
        profile.name = "other"
    with pytest.raises(TypeError):
        profile.values["repeats"] = 5
    assert pickle.loads(pickle.dumps(profile)) == profile
    assert copy.deepcopy(profile) == profile


def test_an_unknown_attribute_names_the_knobs():
    with pytest.raises(AttributeError, match="known knobs: page_sizes"):
        load_profile("smoke").measure_seconds


def test_profile_from_dict_validates_again():
    data = load_profile("smoke").to_dict()
    data["repeats"] = 0
    with pytest.raises(UsageError, match="repeats: 0 is out of range"):
        profile_from_dict(data)


# --- generated help and description ------------------------------------------------------------------


def test_profile_help_mentions_every_knob_with_default_allowed_and_unit():
    text = profile_help()
    for knob in KNOBS:
        assert f"  {knob.name} " in text
        assert knob.allowed.split()[0] in text
    assert "4k,8k,16k" in text and "30%" in text and "O_DIRECT" in text
    assert "--set KNOB=VALUE" in text
    for name in ("course", "full", "pool", "quick", "smoke"):  # each with what it is for, in its own words
        assert re.search(rf"^  {name} +\S", text, re.M), name


def test_the_help_tables_column_is_what_pagelab_sweep_runs():
    """The knob table's value column is the default profile's (what `pagelab sweep` runs without
    --profile), and a knob whose built-in value differs says so under 'otherwise'."""
    from pagelab.sweep.profiles import DEFAULT_PROFILE

    lines = profile_help().splitlines()
    header = next(line for line in lines if line.split()[:1] == ["knob"])
    assert header.split()[1] == DEFAULT_PROFILE
    default = load_profile(DEFAULT_PROFILE)
    for knob in KNOBS:
        row = next(line for line in lines if line.startswith(f"  {knob.name} "))
        assert row.split(None, 1)[1].startswith(knob.text(default.values[knob.name])), row
    assert default.repeats != KNOBS_BY_NAME["repeats"].default  # so the table has an 'otherwise' to show
    repeats_block = profile_help().split("  repeats ")[1].split("  warehouses ")[0]
    assert f"otherwise: {KNOBS_BY_NAME['repeats'].default}" in repeats_block


def test_every_knob_declares_default_unit_and_help():
    for knob in KNOBS:
        assert knob.help.endswith(".") and knob.label and knob.allowed
        assert knob.parse(knob.jsonable(knob.default)) == knob.default
        assert knob.summary() == f"{knob.help} (default {knob.text(knob.default)}; allowed: {knob.allowed})"


def test_describe_gives_the_title_page_rows():
    rows = dict(describe(load_profile("full"), db_bytes=700 * MIB))
    assert rows["Profile"] == "full"
    assert rows["Page sizes"] == "4k 8k 16k 32k 64k"
    assert rows["Measured time"] == "1200 s"
    assert rows["Buffer pool"] == "30% of the loaded database (210.0 MiB of 700.0 MiB)"
    assert "tpcc-mysql build" not in rows, "only shown when that driver runs"
    with_set = dict(describe(load_profile("quick", ["measure_s=30"])))
    assert with_set["Profile"] == "quick (--set measure_s=30)"


def test_course_pool_is_what_the_seeds_server_had_by_its_own_status_output():
    import pandas as pd

    from pagelab.common.paths import PROJECT_ROOT

    innodb = pd.read_csv(PROJECT_ROOT / "data" / "reference" / "week4_lab_innodb.csv").dropna(subset=["pool_pages"])
    pools = set(innodb["pool_pages"] * innodb["page_size_bytes"])
    assert set(innodb["page_size"]) == {"4k", "8k", "16k"}
    assert pools == {load_profile("course").buffer_pool_bytes(None)}


# --- one list syntax, and a renamed knob ---------------------------------------------------------------

# A value of two items for every knob that takes a list; a knob that comes to take one fails
# test_every_list_knob_takes_both_forms until it is given here.
TWO_ITEMS = {"page_sizes": ("4k", "16k"), "warehouses": ("1", "2"), "buffer_pool": ("24M", "48M")}


def test_every_list_knob_takes_both_forms():
    from pagelab.sweep.knob_types import Levels
    from pagelab.sweep.server_knob_types import PageSizeList

    list_knobs = {knob.name for knob in KNOBS if isinstance(knob.kind, (Levels, PageSizeList))}
    assert list_knobs == set(TWO_ITEMS), "give every list knob a two-item value in TWO_ITEMS"
    for name, (first, second) in TWO_ITEMS.items():
        knob = KNOBS_BY_NAME[name]
        as_yaml = knob.parse([first, second])
        assert knob.parse(f"{first},{second}") == as_yaml == knob.parse(f"[{first},{second}]"), name
        assert knob.parse(f"[{first}, {second}]") == as_yaml, name
        assert knob.parse(first) == knob.parse(f"[{first}]"), name  # a list of one is that value
    profile = load_profile("smoke", ["buffer_pool=24M,48M"])
    assert profile.to_dict()["buffer_pool"] == ["24M", "48M"]


def test_the_list_syntax_is_said_once_in_the_help():
    from pagelab.sweep.knob_types import LIST_SYNTAX

    assert profile_help().count(LIST_SYNTAX) == 1
    assert "[a, b" not in profile_help()  # no second way of saying it


def test_the_old_name_of_random_seed_is_read_with_a_note(tmp_path):
    old_profile = tmp_path / "old.yaml"
    old_profile.write_text("page_sizes: [4k, 16k]\nseed: 5\n")
    profile = load_profile(old_profile)
    assert profile.random_seed == 5 and "seed" not in profile.to_dict()
    assert profile.notes == ("seed is now called random_seed; profile old.yaml was read with random_seed "
                             "(rename it there to drop this note)",)
    assert load_profile("smoke", ["seed=4"]).random_seed == 4
    assert "--set seed=4 was read with random_seed" in load_profile("smoke", ["seed=4"]).notes[0]
    assert load_profile("smoke").notes == ()
    # a bundle's sweep.json from before the rename resumes with its seed
    recorded = load_profile("smoke").to_dict()
    recorded["seed"] = recorded.pop("random_seed") + 6
    assert profile_from_dict(recorded).random_seed == 7
    old_profile.write_text("seed: 5\nrandom_seed: 6\n")
    assert "seed: profile old.yaml gives both seed and random_seed" in usage_error(old_profile)
