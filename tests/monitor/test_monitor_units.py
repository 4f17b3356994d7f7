"""The monitor's parts that need no server: clock, interval rule, schedule, hit ratio, tables."""

from __future__ import annotations

import csv
import math
import threading
import time
from types import SimpleNamespace

import pytest

from pagelab.common.errors import UsageError
from pagelab.monitor import (
    Monitor,
    RunClock,
    Schedule,
    counter_hit_rate_per_1000,
    hit_ratio_rows,
    validate_interval,
)
from pagelab.monitor.iostat import IostatSampler
from pagelab.monitor.query_sampler import QuerySampler
from pagelab.monitor.schedule import LATE_SLOT_FRACTION
from pagelab.monitor.sidecar import SidecarWriter, fill_t_s
from pagelab.monitor.tables import iostat_rows, write_tidy_tables
from pagelab.mysql.client import ConnectionSpec

# --- clock ------------------------------------------------------------------------------------


def test_t_s_is_unknown_until_the_measurement_start_is_marked():
    clock = RunClock()
    assert clock.t_s() is None and not clock.measurement_start_marked
    assert clock.clock_s() >= 0


def test_t_s_is_negative_during_ramp_up_and_positive_after():
    now = time.monotonic()
    clock = RunClock(now + 5)  # measurement starts after a 5 s ramp-up
    assert clock.t_s(now) == pytest.approx(-5)
    assert clock.t_s(now + 7.5) == pytest.approx(2.5)
    # now: between the clock reads on either side of it, however long a busy machine pauses this one
    before = time.monotonic()
    t_s = clock.t_s()
    after = time.monotonic()
    assert before - (now + 5) <= t_s <= after - (now + 5) and t_s < 0


def test_the_measurement_start_can_be_marked_after_sampling_began():
    clock = RunClock()
    sampled_at = time.monotonic()
    clock_s = clock.clock_s(sampled_at)
    marked = clock.mark_measurement_start(at=sampled_at + 2)
    assert marked == sampled_at + 2
    assert clock.t_s(sampled_at) == pytest.approx(-2)
    assert clock.t_s_of_clock_s(clock_s) == pytest.approx(-2)
    assert clock.measure_start_epoch == pytest.approx(clock.epoch_at(sampled_at) + 2)


def test_marking_twice_is_refused():
    clock = RunClock()
    clock.mark_measurement_start()
    with pytest.raises(UsageError, match="already marked"):
        clock.mark_measurement_start()


def test_epoch_follows_the_monotonic_clock():
    before = time.time()
    clock = RunClock()
    after = time.time()
    origin = clock.origin_monotonic
    assert before <= clock.epoch_at(origin) <= after  # the wall clock read when the clock was made
    assert clock.epoch_at(origin + 10) - clock.epoch_at(origin) == pytest.approx(10, abs=1e-6)
    assert clock.epoch_at(origin + 10) == pytest.approx(clock.origin_epoch + 10, abs=1e-6)
    assert clock.to_dict()["measurement_start_marked"] is False


# --- interval ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [(1, 1), (10, 10), (10.0, 10), (3600, 3600)])
def test_whole_seconds_from_one_up_are_valid_intervals(value, expected):
    assert validate_interval(value) == expected
    assert isinstance(validate_interval(value), int)


@pytest.mark.parametrize("value", [0, -1, 0.5, 1.5, True, "10", None, math.nan, math.inf])
def test_other_intervals_are_refused_naming_the_knob(value):
    with pytest.raises(UsageError, match=r"monitor interval \(interval_s\).*whole number of seconds, at least 1"):
        validate_interval(value)


def test_samplers_and_the_monitor_validate_their_interval(tmp_path):
    with pytest.raises(UsageError, match="interval_s"):
        IostatSampler(None, 0.5, tmp_path / "iostat.json", RunClock())
    with pytest.raises(UsageError, match="interval_s"):
        Monitor(ConnectionSpec(socket="/nonexistent.sock"), tmp_path, interval_s=0)


# --- schedule ---------------------------------------------------------------------------------


def test_slots_are_on_the_grid_not_after_the_work():
    schedule = Schedule(anchor_monotonic=100.0, interval_s=10)
    assert schedule.due(3) == 130.0
    assert schedule.next_slot(2, now=125.0) == 3  # on time
    assert schedule.next_slot(2, now=133.0) == 3  # a little late: still taken
    assert schedule.next_slot(2, now=137.0) == 4  # missed by more than half: skipped
    assert schedule.next_slot(2, now=161.0) == 6


def test_waiting_for_a_slot_returns_early_when_stopped():
    schedule = Schedule(anchor_monotonic=time.monotonic(), interval_s=3600)  # slot 1 is an hour away
    stop = threading.Event()
    returned = []
    waiter = threading.Thread(target=lambda: returned.append(schedule.wait_for(1, stop)), daemon=True)
    waiter.start()
    stop.set()
    waiter.join(timeout=60)  # a deadline for a hang, far below the hour a wait without the stop takes
    assert returned == [True], "the wait did not end when stopped"


class _RecordingSampler(QuerySampler):
    """A database sampler without a database: it records which slot it took at which instant."""

    name = "recording"

    def _connect(self) -> None:
        self.taken: list[tuple[int, float]] = []

    def _close_connection(self) -> None:
        pass

    def _open_outputs(self) -> None:
        pass

    def _take_sample(self, cursor, seq: int, slot: int, at: float) -> None:
        self.taken.append((slot, at))
        if slot >= 5:
            self.request_stop()

    def _close_outputs(self) -> None:
        pass


def test_a_thread_woken_too_late_for_its_slot_skips_it(monkeypatch):
    """A busy machine can keep the sampler's thread off the CPU past its slot: the slot is then
    skipped and counted, so no sample is taken more than LATE_SLOT_FRACTION of an interval late."""
    from pagelab.monitor import query_sampler, schedule

    now = [100.0]  # a clock the test moves, so no test second is spent waiting
    fake_time = SimpleNamespace(monotonic=lambda: now[0], time=lambda: now[0], thread_time=time.thread_time)
    monkeypatch.setattr(query_sampler, "time", fake_time)
    monkeypatch.setattr(schedule, "time", fake_time)
    wake_late_s = {2: 0.7}  # slot 2's wake comes 0.7 intervals late; the others 0.1

    def wait_for(self, slot, stop):
        now[0] = max(now[0], self.due(slot) + wake_late_s.get(slot, 0.1) * self.interval_s)
        return stop.is_set()

    monkeypatch.setattr(Schedule, "wait_for", wait_for)
    sampler = _RecordingSampler(ConnectionSpec(host="127.0.0.1", port=3306), 1, RunClock())
    sampler.start(anchor_monotonic=100.0)
    assert sampler.join(timeout=60), "the sampler did not stop"  # a deadline for a hang
    assert [slot for slot, _ in sampler.taken] == [0, 1, 3, 4, 5]
    assert sampler.status.skipped_slots == 1
    assert all(at - (100.0 + slot) <= LATE_SLOT_FRACTION for slot, at in sampler.taken)


# --- hit ratio --------------------------------------------------------------------------------


def test_counter_hit_rate():
    assert counter_hit_rate_per_1000(1000, 10) == 990.0
    assert counter_hit_rate_per_1000(0, 0) is None  # no page requests: no rate, not 0 or 1000
    assert counter_hit_rate_per_1000(-5, 0) is None  # counters went backwards (a restart)


def test_hit_ratio_rows_pair_status_and_counters_by_slot():
    status = [
        {"slot": 0, "t_s": -2.0, "hit_rate": 700, "averages_window_s": 30},
        {"slot": 1, "t_s": -1.0, "hit_rate": 950, "averages_window_s": 1},
        {"slot": 2, "t_s": 0.0, "hit_rate": None, "averages_window_s": 1},  # "No buffer pool page gets"
    ]
    counters = [
        {"slot": "0", "t_s": "-2.0", "clock_s": "1.0", "Innodb_buffer_pool_read_requests": "1000",
         "Innodb_buffer_pool_reads": "100", "Innodb_pages_read": "120"},
        {"slot": "1", "t_s": "-1.0", "clock_s": "2.0", "Innodb_buffer_pool_read_requests": "3000",
         "Innodb_buffer_pool_reads": "200", "Innodb_pages_read": "230"},
        {"slot": "2", "t_s": "0.0", "clock_s": "3.0", "Innodb_buffer_pool_read_requests": "3000",
         "Innodb_buffer_pool_reads": "200", "Innodb_pages_read": "230"},
    ]
    rows = hit_ratio_rows(status, counters)
    assert [row["slot"] for row in rows] == [0, 1, 2]
    first, second, third = rows
    assert first["status_hit_rate_per_1000"] == 700 and first["counter_hit_rate_per_1000"] is None
    assert second["counter_hit_rate_per_1000"] == 950.0
    assert second["read_requests_delta"] == 2000 and second["reads_delta"] == 100 and second["pages_read_delta"] == 110
    assert second["difference_per_1000"] == 0.0 and second["counter_window_s"] == 1.0
    assert third["status_hit_rate_per_1000"] is None and third["counter_hit_rate_per_1000"] is None


# --- sidecars and tables ----------------------------------------------------------------------


def test_t_s_is_filled_in_once_the_measurement_start_is_known(tmp_path):
    clock = RunClock()
    writer = SidecarWriter(tmp_path / "index.csv", ["seq", "t_s", "clock_s"])
    writer.write({"seq": 1, "t_s": None, "clock_s": 1.0})
    writer.write({"seq": 2, "t_s": None, "clock_s": 3.5})
    writer.close()
    assert fill_t_s(tmp_path / "index.csv", clock) == 0  # unknown yet: left alone
    clock.mark_measurement_start(at=clock.origin_monotonic + 3)
    assert fill_t_s(tmp_path / "index.csv", clock) == 2
    rows = list(csv.DictReader(open(tmp_path / "index.csv")))
    assert [float(row["t_s"]) for row in rows] == [-2.0, 0.5]


def test_an_unknown_device_is_refused_before_anything_starts(tmp_path):
    with pytest.raises(UsageError, match="not a block device"):
        IostatSampler("no-such-disk0", 1, tmp_path / "iostat.json", RunClock())
    with pytest.raises(UsageError, match="not a block device"):
        Monitor(ConnectionSpec(socket="/nonexistent.sock"), tmp_path, device="../vda")


def test_a_directory_with_a_capture_is_not_reused(tmp_path):
    (tmp_path / "monitor_status.json").write_text("{}")
    monitor = Monitor(ConnectionSpec(socket="/nonexistent.sock"), tmp_path, interval_s=1)
    with pytest.raises(UsageError, match="already holds a monitor capture"):
        monitor.start()


def test_the_monitor_needs_an_instance_or_a_connection_spec(tmp_path):
    with pytest.raises(UsageError, match="Instance or a ConnectionSpec"):
        Monitor("localhost:3306", tmp_path)


IOSTAT_CUT_OFF = """{"sysstat": {
\t"hosts": [
\t\t{
\t\t\t"nodename": "vm", "sysname": "Linux", "release": "6.1", "machine": "x86_64", "number-of-cpus": 2,
\t\t\t"date": "2026-11-21",
\t\t\t"statistics": [
\t\t\t\t{
\t\t\t\t\t"timestamp": "2026-11-21T14:37:24+0000",
\t\t\t\t\t"disk": [
\t\t\t\t\t\t{"disk_device": "vda", "r/s": 173.00, "w/s": 2763.00, "rkB/s": 796.00, "wkB/s": 12120.00, "r_await": 0.15, "w_await": 0.11, "rareq-sz": 4.60, "wareq-sz": 4.39, "aqu-sz": 0.41, "util": 21.20}
\t\t\t\t\t]
\t\t\t\t},
\t\t\t\t{
\t\t\t\t\t"timestamp": "2026-11-21T14:37:25+0000",
\t\t\t\t\t"disk": [
\t\t\t\t\t\t{"disk_device": "vda", "r/s": 169.00, "w/s": 2182.00, "rkB/s": 776.00, "wkB/s": 10192.00, "r_await": 0.15, "w_await": 0.13, "rareq-sz": 4.59, "wareq-sz": 4.67, "aqu-sz": 0.36, "util": 21.20}
\t\t\t\t\t]
\t\t\t\t}
"""


def test_iostat_json_cut_off_by_a_kill_still_gives_rows_on_the_runs_clock(tmp_path):
    (tmp_path / "iostat.json").write_text(IOSTAT_CUT_OFF)
    (tmp_path / "iostat_times.csv").write_text("sample,t_s,epoch,clock_s\n0,-1.0,1795270000.0,2.0\n1,0.0,1795270001.0,3.0\n")
    rows, warnings = iostat_rows(tmp_path)
    assert [(row["t_s"], row["device"], row["r_s"]) for row in rows] == [(-1.0, "vda", 173.0), (0.0, "vda", 169.0)]
    assert any("not complete" in message for message in warnings)
    assert list(rows[0])[:12] == ["t_s", "device", "r_s", "w_s", "rkb_s", "wkb_s", "rareq_kb", "wareq_kb",
                                  "r_await_ms", "w_await_ms", "aqu_sz", "util_pct"]


def test_tables_from_an_empty_capture_have_headers_and_warnings(tmp_path):
    (tmp_path / "iostat.json").write_text('{"sysstat": {\n\t"hosts": [\n')  # stopped before the first report
    report = write_tidy_tables(tmp_path)
    assert {name: table["rows"] for name, table in report.items()} == {"iostat.csv": 0, "innodb.csv": 0, "hit_ratio.csv": 0}
    assert report["iostat.csv"]["warnings"] and report["innodb.csv"]["warnings"]
    assert (tmp_path / "innodb.csv").read_text().startswith("t_s,pool_pages,free_pages")
    assert (tmp_path / "iostat.csv").read_text().startswith("t_s,device,r_s")
