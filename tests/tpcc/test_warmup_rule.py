"""The auto ramp-up's cap and a pool still filling (pagelab.tpcc.schedule.WarmupWatch), fed one
status sample a second as the driver feeds it, with series whose answer is known by construction."""

from __future__ import annotations

import pytest

from pagelab.tpcc.schedule import FILLING_CEILING, WarmupWatch

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
