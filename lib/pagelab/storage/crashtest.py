"""Crash trials: a child process commits transactions until it is killed with SIGKILL at a random
moment; the database is then reopened (recovery) and checked against what the child reported.

The workload makes every transaction's effect checkable. Transaction i:

    puts    tx-<i>-000 .. tx-<i>-<n_i - 1>   values that encode (i, j), of varied lengths
    puts    marker-<i>                       value n_i
    puts    last                             value i
    deletes tx-<i-3>-000                     (when i >= 3), so replay must also get deletes right

n_i varies from 1 to 40, so transactions touch from a couple of pages to dozens, split pages and
sometimes grow the tree. The child prints "<i>\\n" (one write, flushed) after commit returns.
The cache is small and checkpoints frequent, so kills land during eviction writes and
checkpoints too, and each trial starts by recovering from the previous kill, so kills land
during recovery as well.

What is checked after each kill (`check_database`), with R = the highest id the child reported:

    reported committed => present   every marker up to R is there, with all its keys and values
    present => complete (atomic)    every transaction with a marker has all its keys, correctly
                                    valued, and no key exists for a transaction without one
    nothing uncommitted             the markers are exactly 0..M with M in {R, R + 1}: only the
                                    transaction in flight at the kill may be present unreported
                                    (its commit record reached the journal before the kill)
    order                           `last` equals M, and tx-<i>-000 is gone exactly for i <= M - 3
    structure                       the tree's invariants hold (Database.check)

Run a trial from code with `crash_trial`, or the child alone with
`python -m pagelab.storage.crashtest child PATH PAGE_SIZE CACHE_BYTES`.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from pagelab.common.units import KIB
from pagelab.storage.database import Database

DELETE_LAG = 3  # transaction i deletes the first key of transaction i - DELETE_LAG
CHECKPOINT_PAGES = 64  # frequent checkpoints, so some kills land inside one


def keys_in(txn: int) -> int:
    return 1 + (txn * 7) % 40


def tx_key(txn: int, index: int) -> bytes:
    return b"tx-%06d-%03d" % (txn, index)


def tx_value(txn: int, index: int) -> bytes:
    stamp = b"%d:%d;" % (txn, index)
    return (stamp * 40)[: 8 + (txn * 13 + index * 7) % 180]


def marker_key(txn: int) -> bytes:
    return b"marker-%06d" % txn


def run_child(path: str, page_size: int, cache_bytes: int) -> None:
    """Commit transactions forever, reporting each id on stdout after its commit returns."""
    db = Database.open(path, page_size=page_size, cache_bytes=cache_bytes, checkpoint_pages=CHECKPOINT_PAGES)
    last = db.get(b"last")
    txn = int(last) + 1 if last is not None else 0
    out = sys.stdout.buffer
    while True:
        with db.transaction():
            for index in range(keys_in(txn)):
                db.put(tx_key(txn, index), tx_value(txn, index))
            db.put(marker_key(txn), b"%d" % keys_in(txn))
            db.put(b"last", b"%d" % txn)
            if txn >= DELETE_LAG:
                db.delete(tx_key(txn - DELETE_LAG, 0))
        out.write(b"%d\n" % txn)
        out.flush()
        txn += 1


def check_database(path: str | os.PathLike, reported: int, page_size: int | None = None) -> tuple[int, list[str], int]:
    """(M, problems, transactions replayed by recovery) after opening the database;
    `reported` is the highest id any child reported (-1: none). A child killed before it created
    the database leaves none: that is only a problem if it reported a commit."""
    problems: list[str] = []
    if not os.path.exists(path):
        if reported >= 0:
            problems.append(f"transaction {reported} was reported committed but the database does not exist")
        return -1, problems, 0
    db = Database.open(path, page_size=page_size)
    try:
        try:
            db.check()
        except Exception as error:  # the report names it; the other checks may still say more
            problems.append(f"tree damaged: {error}")
        markers = {int(key[len(b"marker-"):]): value for key, value in db.scan(b"marker-", b"marker.")}
        present = max(markers, default=-1)
        if set(markers) != set(range(present + 1)):
            missing = sorted(set(range(present + 1)) - set(markers))
            problems.append(f"transactions missing below the newest one present ({present}): {missing[:10]}")
        if present < reported:
            problems.append(f"transaction {reported} was reported committed but the newest present is {present}")
        if present > reported + 1:
            problems.append(f"transactions up to {present} are present but only {reported} was reported "
                            "(at most the one in flight may be)")
        last = db.get(b"last")
        if (int(last) if last is not None else -1) != present:
            problems.append(f"'last' is {last!r} but the newest marker is {present}")
        by_txn: dict[int, dict[bytes, bytes]] = {}
        for key, value in db.scan(b"tx-", b"tx."):
            by_txn.setdefault(int(key[3:9]), {})[key] = value
        for txn in sorted(set(by_txn) | set(markers)):
            if txn not in markers:
                problems.append(f"transaction {txn} has keys but no marker (a partial transaction)")
                continue
            if markers[txn] != b"%d" % keys_in(txn):
                problems.append(f"marker {txn} holds {markers[txn]!r}, expected {keys_in(txn)}")
            expected = {tx_key(txn, index): tx_value(txn, index) for index in range(keys_in(txn))}
            if txn <= present - DELETE_LAG:
                del expected[tx_key(txn, 0)]
            if by_txn.get(txn, {}) != expected:
                got = by_txn.get(txn, {})
                problems.append(f"transaction {txn}: {len(got)} keys present, {len(expected)} expected "
                                f"(missing {sorted(set(expected) - set(got))[:3]}, "
                                f"extra {sorted(set(got) - set(expected))[:3]}, "
                                f"wrong {[k for k in expected if k in got and got[k] != expected[k]][:3]})")
    finally:
        db.close()
    return present, problems, db.recovery.transactions


@dataclass
class TrialResult:
    trial: int
    delay_s: float
    reported: int  # highest id the child reported, all trials so far
    present: int  # newest transaction found after recovery
    recovered_transactions: int
    problems: list[str] = field(default_factory=list)


def crash_trial(path: str | os.PathLike, trial: int, reported_before: int, *, page_size: int = 1024,
                cache_bytes: int = 64 * KIB, max_delay_s: float = 1.5, rng: random.Random | None = None
                ) -> TrialResult:
    """Start a child on `path`, SIGKILL it after a random delay, recover and check.

    `reported_before` is the newest transaction known committed from earlier trials."""
    rng = rng or random.Random()
    delay = rng.uniform(0.0, max_delay_s)
    child = subprocess.Popen(
        [sys.executable, "-m", "pagelab.storage.crashtest", "child", str(path), str(page_size), str(cache_bytes)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        output, errors = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if child.returncode != -signal.SIGKILL:
        raise RuntimeError(f"the crash child ended by itself (status {child.returncode}): {errors.decode()[-2000:]}")
    lines = output.split(b"\n")[:-1]  # a line cut by the kill has no newline: not a report
    reported = max([reported_before, *(int(line) for line in lines)])
    present, problems, recovered = check_database(path, reported, page_size)
    return TrialResult(trial, delay, reported, present, recovered, problems)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "child":
        run_child(argv[1], int(argv[2]), int(argv[3]))
        return 0
    print("usage: python -m pagelab.storage.crashtest child PATH PAGE_SIZE CACHE_BYTES", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
