"""One YCSB client worker of a phase (pagelab.workloads.ycsb.driver runs them): its share of the
operations, its own random stream, each operation timed, and the messages it sends the driver.

Worker w of W does operations // W operations (the first operations % W one more), as YCSB splits
operationcount over its threads; in the load, worker w inserts its own contiguous slice of record
numbers. Every draw comes from a random.Random seeded with (seed, workload, worker), so a seed fixes
each worker's sequence of operations, keys and values.

Inserts during a run (workload D) take record numbers from one counter shared by all workers
(`InsertCounter`); reads may only choose records already inserted: below the lowest number still
being inserted (YCSB's acknowledged counter). A read's record is drawn again when the distribution
gives one beyond that (YCSB's core workload does the same).

The messages (`run_worker`) and the "done" payload (`_operate`'s dict: wire histograms, status
tallies, operations, CPU seconds, end time, whether it stopped early) are what the driver reads.
"""

from __future__ import annotations

import random
import signal
import time
import traceback
from collections import Counter
from dataclasses import dataclass

from pagelab.workloads.ycsb.backends import OK, BackendGone
from pagelab.common.errors import UsageError
from pagelab.workloads.ycsb.generators import DISTRIBUTIONS, ValueSource, key_chooser, key_name, operation_picker
from pagelab.workloads.ycsb.histogram import LatencyHistogram
from pagelab.workloads.ycsb.workloads import INSERT, READ, READ_MODIFY_WRITE, UPDATE, Workload


READY_TIMEOUT_S = 120.0  # for every worker to open its session and say it is ready
PROGRESS_EVERY_S = 0.25
CHECK_EVERY_OPS = 64  # how often a worker looks at the clock, the stop flag and its progress


# -- what a phase does: the plan every worker is given --------------------------------------------

@dataclass(frozen=True)
class PhasePlan:
    """What one phase does. For the load, `operations` records are inserted from `insert_start`."""

    workload: Workload
    records: int
    operations: int
    distribution: str = "zipfian"
    seed: int = 1
    field_count: int = 10
    field_length: int = 100
    hashed_keys: bool = True
    max_seconds: float | None = None
    insert_start: int = 0

    def validate(self) -> None:
        if self.records < (0 if self.workload.is_load else 1):
            raise UsageError(f"the record count must be at least 1, got {self.records}")
        if self.operations < 0:
            raise UsageError(f"the operation count must not be negative, got {self.operations}")
        if self.distribution not in DISTRIBUTIONS:
            raise UsageError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {self.distribution!r}")
        if self.field_count < 1 or self.field_length < 1:
            raise UsageError(f"field count and field length must be at least 1, got {self.field_count} and "
                             f"{self.field_length}")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise UsageError(f"max_seconds must be positive (or None), got {self.max_seconds}")


# -- the shared insert counter -------------------------------------------------------------------

class InsertCounter:
    """Record numbers for inserts during a phase, shared by the workers (processes or threads).

    take() hands out the next number and marks it in flight for that worker; done() clears the
    mark. latest() is the newest record below which every record is inserted: one below the
    lowest number in flight, or below the next number when none is. The mark is written before
    the counter moves, so a reader that sees the new counter also sees the mark."""

    def __init__(self, context, start: int, workers: int):
        self._next = context.Value("q", start)
        self._in_flight = context.Array("q", [-1] * workers, lock=False)

    def take(self, worker: int) -> int:
        with self._next.get_lock():
            number = self._next.get_obj().value
            self._in_flight[worker] = number
            self._next.get_obj().value = number + 1
        return number

    def done(self, worker: int) -> None:
        self._in_flight[worker] = -1

    def latest(self) -> int:
        lowest = self._next.get_obj().value
        for number in self._in_flight:
            if 0 <= number < lowest:
                lowest = number
        return lowest - 1


# -- one worker ----------------------------------------------------------------------------------

def share(total: int, worker: int, workers: int) -> tuple[int, int]:
    """(first, count) of worker's share of `total` items: the first total % workers get one more."""
    base, extra = divmod(total, workers)
    count = base + (1 if worker < extra else 0)
    first = worker * base + min(worker, extra)
    return first, count


def worker_rng(seed: int, workload: Workload, worker: int) -> random.Random:
    return random.Random(f"pagelab-ycsb/{seed}/{workload.letter}/{worker}")


def run_worker(target, plan: PhasePlan, worker: int, workers: int, counter: InsertCounter | None,
               send, start_event, stop_event) -> None:
    """The body of one worker. Messages through `send` (tuples):
    ("ready", worker, client) ("progress", worker, n) ("done", worker, payload) ("error", worker, kind, text)."""
    try:
        session = target.open()
    except BackendGone as exc:
        send(("error", worker, "server-gone", str(exc)))
        return
    except Exception as exc:  # noqa: BLE001 - reported to the driver, which raises
        send(("error", worker, "internal", f"{type(exc).__name__}: {exc}"))
        return
    try:
        send(("ready", worker, session.client))
        if not start_event.wait(READY_TIMEOUT_S + 30):
            send(("error", worker, "internal", "the phase never started"))
            return
        payload = _operate(session, plan, worker, workers, counter, send, stop_event)
        send(("done", worker, payload))
    except BackendGone as exc:
        send(("error", worker, "server-gone", str(exc)))
    except Exception as exc:  # noqa: BLE001
        send(("error", worker, "internal", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"))
    finally:
        session.close()


def _operate(session, plan: PhasePlan, worker: int, workers: int, counter, send, stop_event) -> dict:
    workload = plan.workload
    rng = worker_rng(plan.seed, workload, worker)
    values = ValueSource(rng, plan.field_length)
    field_count, hashed = plan.field_count, plan.hashed_keys
    histograms: dict[str, LatencyHistogram] = {}
    statuses: dict[str, Counter] = {}
    clock = time.perf_counter_ns

    def measure(name: str, started: int, ended: int, status: str) -> None:
        key = name if status == OK else name + "-FAILED"
        histogram = histograms.get(key)
        if histogram is None:
            histogram = histograms[key] = LatencyHistogram()
        histogram.record((ended - started) // 1000)
        if name != READ_MODIFY_WRITE:
            tally = statuses.get(name)
            if tally is None:
                tally = statuses[name] = Counter()
            tally[status] += 1

    first, count = share(plan.operations, worker, workers)
    pacer = _Pacer(worker, send, stop_event, plan.max_seconds)
    cpu_started = time.thread_time()
    done = 0

    if workload.is_load:
        insert = session.insert
        record = values.record
        numbers = range(plan.insert_start + first, plan.insert_start + first + count)
        for done, number in enumerate(numbers, start=1):
            key = key_name(number, hashed)
            fields = record(field_count)
            started = clock()
            status = insert(key, fields)
            measure(INSERT, started, clock(), status)
            if done % CHECK_EVERY_OPS == 0 and pacer.should_stop(done):
                break
    else:
        pick = operation_picker(workload.proportions, rng)
        expected_inserts = int(plan.operations * workload.insert * 2)
        chooser = key_chooser(workload.distribution or plan.distribution, plan.records, expected_inserts, rng)
        choose = chooser.choose
        fixed_latest = plan.records - 1
        latest = counter.latest if counter is not None else (lambda: fixed_latest)
        read, update, insert = session.read, session.update, session.insert
        random_ = rng.random
        for done in range(1, count + 1):
            operation = pick()
            if operation == READ:
                key = key_name(choose(latest()), hashed)
                started = clock()
                status = read(key)
                measure(READ, started, clock(), status)
            elif operation == UPDATE:
                key = key_name(choose(latest()), hashed)
                field_index, value = int(random_() * field_count), values.field()
                started = clock()
                status = update(key, field_index, value)
                measure(UPDATE, started, clock(), status)
            elif operation == INSERT:
                number = counter.take(worker)
                key, fields = key_name(number, hashed), values.record(field_count)
                started = clock()
                status = insert(key, fields)
                measure(INSERT, started, clock(), status)
                counter.done(worker)
            else:  # read-modify-write: timed as one, and its read and update counted on their own too
                key = key_name(choose(latest()), hashed)
                field_index, value = int(random_() * field_count), values.field()
                started = clock()
                read_status = read(key)
                middle = clock()
                update_status = update(key, field_index, value)
                ended = clock()
                measure(READ, started, middle, read_status)
                measure(UPDATE, middle, ended, update_status)
                measure(READ_MODIFY_WRITE, started, ended, read_status if read_status != OK else update_status)
            if done % CHECK_EVERY_OPS == 0 and pacer.should_stop(done):
                break
    ended_at = time.monotonic()
    pacer.report(done)
    return {
        "histograms": {name: histogram.to_wire() for name, histogram in histograms.items()},
        "statuses": {name: dict(tally) for name, tally in statuses.items()},
        "operations": done if count else 0,
        "cpu_s": time.thread_time() - cpu_started,
        "ended_at": ended_at,
        "stopped": pacer.stopped,
    }


class _Pacer:
    """A worker's look, every CHECK_EVERY_OPS operations, at the stop flag, its deadline and the
    progress it owes the driver."""

    def __init__(self, worker: int, send, stop_event, max_seconds: float | None):
        self.worker, self.send, self.stop_event = worker, send, stop_event
        self.deadline = time.monotonic() + max_seconds if max_seconds else None
        self.last_report, self.reported = time.monotonic(), 0
        self.stopped = False

    def should_stop(self, done: int) -> bool:
        now = time.monotonic()
        if self.stop_event.is_set() or (self.deadline is not None and now >= self.deadline):
            self.stopped = True
            return True
        if now - self.last_report >= PROGRESS_EVERY_S:
            self.report(done)
            self.last_report = now
        return False

    def report(self, done: int) -> None:
        if done > self.reported:
            self.send(("progress", self.worker, done - self.reported))
            self.reported = done


def process_main(target, plan, worker, workers, counter, messages, start_event, stop_event) -> None:
    """A worker process's entry point, spawned by pagelab.workloads.ycsb.driver."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver handles Ctrl-C and stops us
    # the driver started us with SIGINT blocked (see the driver's _start_workers); a Ctrl-C pending since then
    # is now delivered, and ignored
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    run_worker(target, plan, worker, workers, counter, messages.put, start_event, stop_event)

