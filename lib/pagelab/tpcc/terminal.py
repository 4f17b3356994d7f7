"""One TPC-C terminal: a thread with one connection that runs transactions from its deck.

The loop here is the same for every built-in mode; what differs is the executor, which opens the
connection the mode needs and runs one transaction (pagelab.tpcc.executors). The loop owns:

- the inputs (pagelab.tpcc.inputs), drawn from the terminal's seeded stream, for the kinds dealt
  from the run's one shared deck (pagelab.tpcc.deck), as tpcc-mysql deals them to its threads;
- optional spec pacing (keying and think times of clause 5.2.5.7; off by default, as in tpcc-mysql);
- the response time, from before the first try to the end of the successful one, retries included;
- which interval a finished transaction belongs to (-1 is the ramp-up);
- tpcc-mysql's retry rule: a transaction that fails with any SQL error (or finds a row missing) is
  rolled back and tried again with the same inputs, up to MAX_TRIES times, after which it counts as
  a failure. Two kinds of error stop the run instead: the server going away (tpcc-mysql would spin
  through its tries against a dead server), and errors no retry can mend (a missing table, a bad
  statement, no privilege), which tpcc-mysql would print 2,000 times per transaction.

Terminals are threads: the executor's client (pagelab.tpcc._tpccclient) releases the GIL for every
round trip, so threads cost the server no CPU that processes would not, and 64 terminals cost one
process's memory, not 64.

Messages to the driver (tuples on `results`, a queue.Queue):
    ("ready", terminal)                          connected, statements prepared
    ("interval", terminal, index, IntervalSample) index -1 is the ramp-up
    ("done", terminal)
    ("error", terminal, kind, message)           kind: "server-gone" | "sql" | "internal"
"""

from __future__ import annotations

import math
import random
import threading
import time
import traceback
from dataclasses import dataclass

from pagelab.common.transactions import TransactionKind
from pagelab.tpcc.deck import Deck, TransactionDeck
from pagelab.tpcc.executors import ErrorKind, classify, connect_errors
from pagelab.tpcc.random_primitives import NURandConstants
from pagelab.tpcc.schedule import Schedule
from pagelab.tpcc.statements import TIMESTAMP_FORMAT
from pagelab.tpcc.stats import IntervalSample

# tpcc-mysql's MAX_RETRY: tries of one transaction before it counts as failed.
MAX_TRIES = 2000

# Clause 5.2.5.7: keying times and mean think times in seconds, used only with spec pacing.
KEYING_TIME_S = {TransactionKind.NEW_ORDER: 18.0, TransactionKind.PAYMENT: 3.0,
                 TransactionKind.ORDER_STATUS: 2.0, TransactionKind.DELIVERY: 2.0,
                 TransactionKind.STOCK_LEVEL: 2.0}
MEAN_THINK_TIME_S = {TransactionKind.NEW_ORDER: 12.0, TransactionKind.PAYMENT: 12.0,
                     TransactionKind.ORDER_STATUS: 10.0, TransactionKind.DELIVERY: 5.0,
                     TransactionKind.STOCK_LEVEL: 5.0}


@dataclass(frozen=True)
class TerminalPlan:
    terminal: int
    warehouses: int
    seed: int
    constants: NURandConstants
    spec_pacing: bool = False
    nurand_model: str = "tpcc-mysql"
    deck: Deck | None = None  # the run's shared deck; None: the terminal deals its own


class Heartbeat:
    """When a transaction last completed on any terminal (time.monotonic()), for the driver's stall
    watchdog. One attribute written whole: the terminals need no lock to set it."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def beat(self) -> None:
        self.last = time.monotonic()


class StartSignal:
    """Set once by the driver when every terminal is ready, with the run's Schedule (its instants
    may move later, under `auto`; the terminals read them at every transaction)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.schedule: Schedule | None = None

    def fire(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self._event.set()

    def wait(self, stop: threading.Event) -> bool:
        """True once fired; False if `stop` was set first."""
        while not self._event.wait(0.05):
            if stop.is_set():
                return False
        return True


def _think(kind: TransactionKind, rng: random.Random) -> float:
    # Negative exponential, truncated at 10x the mean (clause 5.2.5.4).
    mean = MEAN_THINK_TIME_S[kind]
    return min(-math.log(1.0 - rng.random()) * mean, 10 * mean)


def run_terminal(plan: TerminalPlan, executor, start: StartSignal, stop: threading.Event, results,
                 heartbeat: Heartbeat | None = None) -> None:
    """Thread entry point: connect through `executor`, wait for `start`, run until the end or `stop`;
    `heartbeat` beats at every completed transaction."""
    terminal = plan.terminal
    try:
        try:
            executor.open()
        except connect_errors() as exc:
            results.put(("error", terminal, _message_kind(exc), str(exc)))
            return
        results.put(("ready", terminal))
        if not start.wait(stop):
            return
        _loop(plan, executor, start.schedule, stop, results, heartbeat or Heartbeat())
        results.put(("done", terminal))
    except _Stop as exc:
        results.put(("error", terminal, exc.kind, exc.message))
    except Exception:
        results.put(("error", terminal, "internal", traceback.format_exc()))
    finally:
        executor.close()


class _Stop(Exception):
    """An error that ends the run (the server is gone, or no retry can help)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind, self.message = kind, message


def _message_kind(exc: BaseException) -> str:
    return "server-gone" if classify(exc) is ErrorKind.SERVER_GONE else "sql"


def _loop(plan: TerminalPlan, executor, schedule: Schedule, stop: threading.Event, results,
          heartbeat: Heartbeat) -> None:
    deck = TransactionDeck(plan.warehouses, plan.seed, plan.terminal, plan.constants, nurand_model=plan.nurand_model,
                           deck=plan.deck)
    pacing_rng = random.Random(plan.seed * 1_000_003 + plan.terminal)
    current_index = -1  # -1: ramp-up
    current = IntervalSample()
    clock = time.monotonic

    def flush_until(index: int) -> None:
        nonlocal current_index, current
        while current_index < index:
            results.put(("interval", plan.terminal, current_index, current))
            current_index += 1
            current = IntervalSample()

    for tx in deck:
        if stop.is_set() or clock() >= schedule.measure_end:
            break
        kind = tx.kind
        if plan.spec_pacing:
            time.sleep(KEYING_TIME_S[kind])
        began = clock()
        tries = 0
        rolled_back = None
        while rolled_back is None and tries < MAX_TRIES:
            tries += 1
            try:
                rolled_back = executor.run(tx, time.strftime(TIMESTAMP_FORMAT))
            except Exception as exc:  # noqa: BLE001 - classified below; anything unknown is re-raised
                verdict = classify(exc)
                if verdict is ErrorKind.UNKNOWN:
                    raise
                executor.after_error()
                if verdict is ErrorKind.SERVER_GONE:
                    raise _Stop("server-gone", str(exc)) from exc
                if verdict is ErrorKind.FATAL:
                    raise _Stop("sql", f"{kind.column}: {exc}") from exc
        finished = clock()
        heartbeat.beat()
        index = schedule.index_of(finished)
        if index is None:
            break  # completed after the end: part of no interval
        if index != current_index:
            flush_until(index)
        if rolled_back is None:
            current.record_failure(int(kind), tries - 1)
        else:
            current.record(int(kind), (finished - began) * 1000.0, tries - 1, rolled_back)
        if plan.spec_pacing:
            time.sleep(_think(kind, pacing_rng))
    # Intervals past the schedule's end (an `auto` end is set after the fact) are dropped.
    flush_until(schedule.intervals)
