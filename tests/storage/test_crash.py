"""Crash recovery: a child committing transactions is killed (SIGKILL) at random moments; after
recovery every reported commit is present, every present transaction is whole, and nothing
beyond the one in flight exists. bench/bench_storage_crash.py runs the same trial 100+ times."""

from __future__ import annotations

import random

import pytest

from pagelab.storage.crashtest import check_database, crash_trial

TRIALS = 5


@pytest.mark.parametrize("page_size", [1024, 4096])
def test_killed_writers_lose_nothing_committed_and_leave_nothing_partial(tmp_path, page_size):
    path = tmp_path / "crash.db"
    rng = random.Random(page_size)
    reported = -1
    progressed = False
    for trial in range(TRIALS):
        result = crash_trial(path, trial, reported, page_size=page_size, cache_bytes=48 * page_size,
                             max_delay_s=1.0, rng=rng)
        assert result.problems == [], f"trial {trial} (killed after {result.delay_s:.2f} s): {result.problems}"
        progressed |= result.present > reported
        reported = max(reported, result.present)
    assert progressed, "no trial got as far as committing a transaction; the kills came too early"


def test_the_checker_notices_a_missing_commit_and_a_partial_transaction(tmp_path):
    """The check itself must be able to fail: a reported transaction that is absent, and a
    transaction's keys without its marker."""
    from pagelab.storage import Database
    from pagelab.storage.crashtest import tx_key, tx_value

    path = tmp_path / "fake.db"
    with Database.open(path, page_size=1024) as db:
        db.put(tx_key(5, 0), tx_value(5, 0))  # keys of transaction 5, no marker, no 'last'
    present, problems, _ = check_database(path, reported=2)
    assert present == -1
    assert any("reported committed" in problem for problem in problems)
    assert any("no marker" in problem for problem in problems)


def test_a_child_killed_before_it_created_the_database_leaves_none_behind(tmp_path):
    """The checker must not create the database itself (it would pick another page size)."""
    path = tmp_path / "never.db"
    assert check_database(path, reported=-1) == (-1, [], 0)
    assert not path.exists()
    assert check_database(path, reported=3)[1] == ["transaction 3 was reported committed but the database does not exist"]
