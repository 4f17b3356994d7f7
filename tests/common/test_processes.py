"""pagelab.common.processes.stop_process on real children: one that exits on SIGTERM, one that
ignores it and must be killed, and one that has exited already."""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import time

from pagelab.common.processes import stop_process

# A child that says it is ready, then sleeps; with "ignore" it ignores SIGTERM first.
CHILD = """
import signal, sys, time
if sys.argv[1] == "ignore":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(600)
"""


def child(mode: str) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", CHILD, mode], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"  # its handler is in place before the signal
    return process


def test_a_child_that_heeds_sigterm_ends_by_it():
    assert stop_process(child("heed"), grace_s=30) == -signal.SIGTERM


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace():
    assert stop_process(child("ignore"), grace_s=0.5) == -signal.SIGKILL


def test_a_child_that_has_exited_is_only_reaped():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    while process.poll() is None:
        time.sleep(0.01)
    assert stop_process(process, grace_s=0.5) == 3


def _ignore_sigterm_and_sleep(ready) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ready.set()
    time.sleep(600)


def test_a_worker_process_that_ignores_sigterm_is_killed():
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    worker = context.Process(target=_ignore_sigterm_and_sleep, args=(ready,))
    worker.start()
    assert ready.wait(60)
    assert stop_process(worker, grace_s=0.5) == -signal.SIGKILL
    assert not worker.is_alive()
