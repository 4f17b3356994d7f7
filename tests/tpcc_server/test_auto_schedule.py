"""`auto` ramp-up and measurement against real MariaDB: where the rules cut, and what they record."""

from __future__ import annotations

import csv
import json

import pytest

from pagelab.common.errors import UsageError
from pagelab.mysql.client import ConnectionSpec
from pagelab.parse import parse_tpcc_log
from pagelab.sweep.profiles import load_profile
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions
from pagelab.tpcc.schedule import FILLING_CEILING, FILLING_SHARE, POOL_SETTLE_S, POOL_SETTLE_SHARE, WarmupWatch
from tests.conftest import restored_instance
from tests.tpcc_server.conftest import SETTINGS

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def auto_run(loaded, tmp_path_factory):
    """One run with both rules auto, on a cold pool restored from the snapshot: a ramp-up until
    steady, then a measurement until TpmC is precise to 40%. Its ramp-up and its measurement are
    checked by a test each; one run rather than two, as each rule's test needs the other's phase
    anyway (a ramp-up before a measurement, a measurement after a ramp-up)."""
    out = tmp_path_factory.mktemp("auto-run")
    with restored_instance(out / "spare", "4k", SETTINGS, loaded[2]) as instance:
        spec = ConnectionSpec.for_instance(instance, tcp=True)
        options = RunOptions(warehouses=1, connections=4, max_rampup_s=90, rampup_auto=True, max_measure_s=120,
                             measure_auto=True, target_ci_pct=40, interval_s=1, seed=3)
        return run(spec, options, out_dir=out / "run", echo=None), out / "run"


def test_auto_rampup_starts_measuring_only_once_the_pool_has_settled(auto_run):
    result, out = auto_run
    rampup = result.summary["rampup"]
    assert rampup["rule"] == "auto" and rampup["ended_by"] in ("steady", "cap", "filled")
    with open(out / "rampup_series.csv") as handle:
        series = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    assert len(series) >= 20 and series[-1]["t_s"] <= rampup["seconds"] + 0.5
    assert all(row["rows_per_s"] > 0 for row in series[1:])
    if rampup["ended_by"] == "steady":
        # the last POOL_SETTLE_S before the cut: the pool's data pages no longer growing
        window = [row for row in series if row["t_s"] >= series[-1]["t_s"] - POOL_SETTLE_S]
        assert window[-1]["pages_data"] - window[0]["pages_data"] < POOL_SETTLE_SHARE * window[-1]["pages_total"]
        assert 0 <= rampup["mser5_cut_s"] <= rampup["seconds"] / 2 + 2
        assert rampup["seconds"] >= 20  # MSER-5 needs 4 batches of 5 one-second samples
    assert result.summary["rampup_s"] == rampup["seconds"]
    log = (out / "tpcc.log").read_text()
    assert "# pagelab: ramp-up until steady" in log
    assert parse_tpcc_log(log).meta["tpmc"] == pytest.approx(result.tpmc, rel=1e-3)


def test_a_cold_pool_larger_than_the_data_is_not_measured_while_it_fills(loaded, tmp_path):
    # a 256 MB pool over about 100 MB of data, just started: empty, and filling with every read
    with restored_instance(tmp_path / "cold", "4k", {**SETTINGS, "buffer_pool_bytes": "256M"}, loaded[2]) as instance:
        spec = ConnectionSpec.for_instance(instance, tcp=True)
        options = RunOptions(warehouses=1, connections=4, max_rampup_s=4, rampup_auto=True, measure_s=1, interval_s=1,
                             seed=6)
        result = run(spec, options, out_dir=tmp_path / "run", echo=None)
    rampup = result.summary["rampup"]
    assert rampup["ended_by"] in ("filled", "ceiling") and rampup["seconds"] > 4.5
    with open(tmp_path / "run" / "rampup_series.csv") as handle:
        series = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    # The samples the rule judged at the cap: up to the first at or past it (a sample comes about a
    # second after the one before, later on a busy machine), and the three growths before it.
    first_past_cap = next(index for index, row in enumerate(series) if row["t_s"] >= 4)
    at_cap = series[:first_past_cap + 1][-4:]
    assert all(b["pages_data"] - a["pages_data"] >= FILLING_SHARE * b["pages_total"] for a, b in zip(at_cap, at_cap[1:]))
    # ... and the ramp-up went on no further than the first sample at or past the ceiling
    assert all(row["t_s"] < FILLING_CEILING * 4 for row in series[:-1]), "the ramp-up went on past the ceiling"
    assert series[-1]["t_s"] <= rampup["seconds"]
    # a fixed measurement after an auto ramp-up: its own seconds, whenever the ramp-up ended
    assert result.summary["measure_s"] == 1 and len(result.intervals) == 1


def test_auto_measurement_stops_at_the_target_and_counts_only_what_it_measured(auto_run):
    result, out = auto_run
    measurement = result.summary["measurement"]
    assert measurement["ended_by"] == "target" and measurement["ci_pct"] <= 40
    # the rule needs 20 intervals (10 batches of 2), and a 40% target is met at the first chance
    assert measurement["seconds"] == result.summary["measure_s"] == len(result.intervals) == 20
    # none of the ramp-up's transactions counted: TpmC is the measured intervals' New-Orders alone
    new_orders = sum(row["new_order"] for row in result.intervals)
    assert result.tpmc == pytest.approx(new_orders * 60 / 20, rel=1e-6)
    assert json.loads((out / "summary.json").read_text())["measurement"]["ended_by"] == "target"


def test_an_unreachable_target_ends_at_the_cap_and_says_so(spare_loaded_instance, tmp_path):
    # 3 intervals, fewer than the 20 the rule needs to judge any target: only the cap can end it
    spec = ConnectionSpec.for_instance(spare_loaded_instance, tcp=True)
    options = RunOptions(warehouses=1, connections=2, rampup_s=0, max_measure_s=3, measure_auto=True,
                         target_ci_pct=0.001, interval_s=1, seed=5)
    result = run(spec, options, out_dir=tmp_path, echo=None)
    assert result.summary["measurement"]["ended_by"] == "cap"
    assert result.summary["measure_s"] == 3 and len(result.intervals) == 3


@pytest.mark.parametrize("overrides, message", [
    (["target_ci_pct=0"], "target_ci_pct: 0 is out of range"),
    (["measure_s=auto", "max_measure_s=5", "interval_s=10"], "interval_s: 10 is longer than max_measure_s \\(5\\)"),
    (["rampup_s=auto", "driver_mode=tpcc-mysql", "tpcc_mysql_dir=/tmp"], "rampup_s: auto needs one of pagelab's"),
    (["rampup_s=soon"], "rampup_s: 'soon' is not an integer; allowed: an integer >= 0, or auto"),
])
def test_bad_auto_knobs_are_refused_before_anything_starts(overrides, message):
    with pytest.raises(UsageError, match=message):
        load_profile("smoke", overrides)


def test_auto_knobs_reach_the_driver():
    options = load_profile("smoke", ["rampup_s=auto", "max_rampup_s=77", "measure_s=auto", "max_measure_s=300",
                                     "target_ci_pct=2.5"]).run_options()
    # the longest ramp-up is twice the cap: a pool still filling at the cap may go on that long
    assert (options.rampup_auto, options.max_rampup_s, options.longest_rampup_s, options.measure_auto,
            options.longest_measure_s, options.target_ci_pct) == (True, 77, 154, True, 300, 2.5)


# --- the cap and a pool still filling, fed one status sample a second as the driver feeds it, with
# series whose answer is known by construction (no server) ---

CAP_S = 8


def status(second: int, pages_data: int, total: int) -> dict[str, int]:
    # a steady work rate, so that only the pool decides
    return {"Handler_write": 1_000 * second, "Innodb_buffer_pool_reads": 500 * second,
            "Innodb_buffer_pool_pages_data": pages_data, "Innodb_buffer_pool_pages_free": total - pages_data,
            "Innodb_buffer_pool_pages_total": total}


def ended_at(pages_data_at, total: int = 6_084) -> tuple[int, str]:
    """The second at which the watch starts the measurement, and why."""
    watch = WarmupWatch(CAP_S)
    for second in range(0, 100):
        if watch.add(float(second), 0.0, status(second, pages_data_at(second), total)):
            return second, watch.ended_by
    raise AssertionError("the ramp-up never ended")


def test_a_full_pool_ends_at_the_cap():
    # a pool at its free-list reserve: data pages wobble up and down a little every second
    assert ended_at(lambda s: 5_000 + (150 if s % 2 else 0)) == (CAP_S, "cap")


def test_a_pool_still_filling_at_the_cap_goes_on_until_it_stops():
    # a cold pool larger than the data: 400 pages a second (6.6% of it) until second 12, then full
    assert ended_at(lambda s: 400 * min(s, 12)) == (13, "filled")


def test_a_pool_that_never_stops_filling_ends_at_twice_the_cap():
    assert ended_at(lambda s: 50 * s) == (int(FILLING_CEILING * CAP_S), "ceiling")


def test_growth_below_the_share_is_not_filling():
    # 20 pages a second of a 6,084-page pool is 0.33%: the tail of the data being touched, not a cold pool
    assert ended_at(lambda s: 20 * s) == (CAP_S, "cap")


@pytest.mark.parametrize("wobble", [(0, 200, 400, 300), (0, 200, 150, 350)])
def test_one_second_without_growth_is_not_filling(wobble):
    # up, up, then down (or up, down, up): the last three seconds did not each grow
    values = {CAP_S - 3 + i: 5_000 + w for i, w in enumerate(wobble)}
    assert ended_at(lambda s: values.get(s, 5_000)) == (CAP_S, "cap")
