"""One YCSB phase: N client workers run their share of the operations, timed per operation.

    result = execute_phase(target, PhasePlan(WORKLOADS["a"], records=100_000, operations=100_000,
                                             distribution="zipfian", seed=1), threads=2)

Workers are processes by default (the `parallelism` "processes"), threads on request ("threads"),
or the calling thread itself ("inline", the storage prototype's only way: a Database is for one
thread). On this project's 2-core machine processes give the most throughput against InnoDB when
the data is cached: read-only, 2 workers, median of 3 runs, 12,100 reads/s as processes against
10,100 as threads (4 workers: 10,800 and 8,700); each worker's client CPU (60-90 µs per read with
mysql-connector's C extension, half of it the round trip's system calls) runs beside the server
instead of behind one GIL. bench/bench_ycsb.py measures it.

Processes are started with multiprocessing's "spawn" (a fresh interpreter: no inherited threads,
locks or sockets, safe from a Jupyter kernel), so a script that runs a phase must keep its own
code under `if __name__ == "__main__":`, as every spawn user must.

Each worker opens its own session, says it is ready, and waits; the phase's clock starts when
all are ready, so RunTime counts operations, not process start-up. What a worker does (its share,
its random stream, the shared insert counter, the messages it sends here) is
pagelab.workloads.ycsb.worker's; this module starts, watches, stops and combines the workers.

Stopping: `max_seconds` ends a phase early, as YCSB's maxexecutiontime (the result says so).
Ctrl-C (KeyboardInterrupt) stops the workers and re-raises; worker processes ignore SIGINT so
that the driver decides. If a worker fails, or the server goes away, the phase raises
YcsbRunError naming why.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pagelab.common.errors import PagelabError, UsageError
from pagelab.common.processes import stop_process
from pagelab.workloads.ycsb.histogram import LatencyHistogram
from pagelab.workloads.ycsb.worker import READY_TIMEOUT_S, InsertCounter, PhasePlan, process_main, run_worker
from pagelab.workloads.ycsb.workloads import Workload

PARALLELISMS = ("processes", "threads", "inline")


class YcsbRunError(PagelabError):
    """A phase could not finish: a worker failed or the server went away."""


@dataclass
class PhaseResult:
    """A finished phase: YCSB's figures and what pagelab adds."""

    workload: Workload
    runtime_ms: int
    operations: int
    histograms: dict[str, LatencyHistogram]
    statuses: dict[str, dict[str, int]]
    threads: int
    parallelism: str
    client: str
    client_cpu_s: float
    stopped_early: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        """YCSB's Throughput(ops/sec): 1000 x operations / RunTime(ms)."""
        return 1000.0 * self.operations / self.runtime_ms if self.runtime_ms else 0.0

    def text(self) -> str:
        from pagelab.workloads.ycsb.output import ycsb_text

        return ycsb_text(self)



# -- the driver ----------------------------------------------------------------------------------

class _Progress:
    def __init__(self, enabled: bool, total: int, label: str):
        self.bar = None
        if enabled and total:
            from pagelab.common.progress import progress_bar

            self.bar = progress_bar(total, label, "op", unit_scale=True, mininterval=1.0, leave=False)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def execute_phase(target, plan: PhasePlan, threads: int = 1, parallelism: str = "processes",
                  progress: bool = False, label: str | None = None) -> PhaseResult:
    """Run one phase with `threads` workers; see the module docstring."""
    plan.validate()
    if parallelism not in PARALLELISMS:
        raise UsageError(f"parallelism must be one of {', '.join(PARALLELISMS)}, got {parallelism!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise UsageError(f"threads must be a whole number of at least 1, got {threads!r}")
    if parallelism == "inline" and threads != 1:
        raise UsageError("inline runs one worker in the calling thread: threads must be 1")
    workers = max(1, min(threads, plan.operations)) if plan.operations else 1
    bar = _Progress(progress, plan.operations, label or plan.workload.name)
    try:
        # Worker processes are spawned; the insert counter's shared Value/Array serve threads too.
        return _drive(target, plan, workers, parallelism, multiprocessing.get_context("spawn"), bar)
    finally:
        bar.close()


def _start_workers(runners) -> None:
    """Start the worker processes with SIGINT blocked, so that they inherit it blocked: a Ctrl-C
    while a spawned worker is still importing would otherwise kill it with a traceback before it
    can set SIGINT aside (process_main). Here the Ctrl-C waits until the starts are done, then
    reaches this process as usual."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for runner in runners:
            runner.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _drive(target, plan: PhasePlan, workers: int, parallelism: str, context, bar: _Progress) -> PhaseResult:
    counter = InsertCounter(context, plan.records, workers) if plan.workload.insert and not plan.workload.is_load else None
    if parallelism == "processes":
        messages = context.Queue()
        start_event, stop_event = context.Event(), context.Event()
        runners = [context.Process(target=process_main, name=f"ycsb-worker-{w}", daemon=True,
                                   args=(target, plan, w, workers, counter, messages, start_event, stop_event))
                   for w in range(workers)]
        send = messages.put
    else:
        messages = queue.Queue()
        start_event, stop_event = threading.Event(), threading.Event()
        send = messages.put
        if parallelism == "threads":
            runners = [threading.Thread(target=run_worker, name=f"ycsb-worker-{w}", daemon=True,
                                        args=(target, plan, w, workers, counter, send, start_event, stop_event))
                       for w in range(workers)]
        else:
            runners = []

    payloads: dict[int, dict] = {}
    clients: set[str] = set()
    failure: str | None = None
    started_at = 0.0
    try:
        if parallelism == "inline":
            started_at = _run_inline(target, plan, counter, send, start_event, stop_event, messages, bar,
                                     payloads, clients)
        else:
            _start_workers(runners)
            ready = 0
            deadline = time.monotonic() + READY_TIMEOUT_S
            while ready < workers:
                try:
                    message = messages.get(timeout=0.2)
                except queue.Empty:
                    _check_alive(runners, payloads)
                    if time.monotonic() > deadline:
                        raise YcsbRunError(f"only {ready} of {workers} workers connected within {READY_TIMEOUT_S:.0f} s")
                    continue
                if message[0] == "ready":
                    ready += 1
                    clients.add(message[2])
                elif message[0] == "error":
                    raise YcsbRunError(f"worker {message[1]} could not start: {message[3]}")
            started_at = time.monotonic()
            start_event.set()
            while len(payloads) < workers:
                try:
                    message = messages.get(timeout=0.2)
                except queue.Empty:
                    _check_alive(runners, payloads)
                    continue
                failure = _handle(message, bar, payloads, clients)
                if failure:
                    raise YcsbRunError(failure)
    except BaseException:
        stop_event.set()
        start_event.set()  # workers still waiting to start return at once
        _stop_runners(runners)
        raise
    _stop_runners(runners)
    return _combine(plan, payloads, started_at, workers, parallelism, clients)


def _run_inline(target, plan, counter, send, start_event, stop_event, messages, bar, payloads, clients) -> float:
    """One worker in this thread; progress messages are drained as they come (the queue is local)."""
    started_at = time.monotonic()
    start_event.set()

    def send_and_drain(message):
        send(message)
        while True:
            try:
                queued = messages.get_nowait()
            except queue.Empty:
                return
            if queued[0] == "ready":
                clients.add(queued[2])
                continue
            failure = _handle(queued, bar, payloads, clients)
            if failure:
                raise YcsbRunError(failure)

    run_worker(target, plan, 0, 1, counter, send_and_drain, start_event, stop_event)
    return started_at


def _handle(message: tuple, bar: _Progress, payloads: dict, clients: set) -> str | None:
    kind, worker = message[0], message[1]
    if kind == "progress":
        bar.update(message[2])
    elif kind == "done":
        payloads[worker] = message[2]
    elif kind == "ready":
        clients.add(message[2])
    elif kind == "error":
        if message[2] == "server-gone":
            return f"the server went away during the phase (worker {worker}: {message[3]})"
        return f"worker {worker} failed: {message[3]}"
    return None


def _check_alive(runners: list, payloads: dict) -> None:
    for index, runner in enumerate(runners):
        if index in payloads:
            continue
        exitcode = getattr(runner, "exitcode", None)
        if exitcode is not None and exitcode != 0:
            raise YcsbRunError(f"worker process {runner.name} exited unexpectedly (exit {exitcode}); if it never "
                               f"connected, and this runs from a script, put the script's code under "
                               f"`if __name__ == \"__main__\":` (worker processes are spawned and import it again)")


def _stop_runners(runners: list) -> None:
    for runner in runners:
        runner.join(timeout=10)
    for runner in runners:
        if isinstance(runner, multiprocessing.process.BaseProcess):
            stop_process(runner, grace_s=5)


def _combine(plan: PhasePlan, payloads: dict, started_at: float, workers: int, parallelism: str,
             clients: set) -> PhaseResult:
    histograms: dict[str, LatencyHistogram] = {}
    statuses: dict[str, dict[str, int]] = {}
    operations, cpu, ended_at, stopped = 0, 0.0, started_at, False
    for payload in payloads.values():
        for name, wire in payload["histograms"].items():
            histograms.setdefault(name, LatencyHistogram()).merge(LatencyHistogram.from_wire(wire))
        for name, tally in payload["statuses"].items():
            merged = statuses.setdefault(name, {})
            for status, n in tally.items():
                merged[status] = merged.get(status, 0) + n
        operations += payload["operations"]
        cpu += payload["cpu_s"]
        ended_at = max(ended_at, payload["ended_at"])
        stopped = stopped or payload["stopped"]
    runtime_ms = max(1, int((ended_at - started_at) * 1000))
    return PhaseResult(workload=plan.workload, runtime_ms=runtime_ms, operations=operations, histograms=histograms,
                       statuses=statuses, threads=workers, parallelism=parallelism,
                       client="/".join(sorted(clients)) or "none", client_cpu_s=cpu, stopped_early=stopped)
