"""cpu_placement split really pins a running mariadbd: every one of its threads, as the kernel
reports it in /proc, on one CPU and this process on the other; and both are set back after. On the
folder's shared loaded server (no server of its own: it costs no start)."""

from __future__ import annotations

import os
from pathlib import Path

from pagelab.machine.placement import placed


def threads_allowed(pid: int) -> set[str]:
    """Cpus_allowed_list of every thread of `pid`, read from /proc here, not by the code under test."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                found.add(line.split(":", 1)[1].strip())
    return found


def test_split_pins_every_server_thread_to_one_cpu_and_the_driver_to_the_other(loaded):
    instance = loaded[0]
    pid = instance.pid()
    cpus = sorted(os.sched_getaffinity(0))
    assert len(cpus) >= 2, "this test needs 2 CPUs (split refuses 1)"
    everything = threads_allowed(pid)
    mine = threads_allowed(os.getpid())
    with placed(pid, "split") as record:
        assert threads_allowed(pid) == {str(cpus[-1])}
        driver = f"{cpus[0]}-{cpus[-2]}" if len(cpus) > 2 else str(cpus[0])
        assert threads_allowed(os.getpid()) == {driver}
        assert record == {"placement": "split", "server_cpus": str(cpus[-1]), "driver_cpus": driver}
        # a connection made now is served by a thread the server creates now: it inherits the pin
        link = instance.connect()
        link.cursor().execute("SELECT 1")
        assert threads_allowed(pid) == {str(cpus[-1])}
        link.close()
    assert threads_allowed(pid) == everything
    assert threads_allowed(os.getpid()) == mine


def test_shared_leaves_both_where_they_were(loaded):
    pid = loaded[0].pid()
    before = threads_allowed(pid)
    with placed(pid, "shared") as record:
        assert threads_allowed(pid) == before
        assert record["placement"] == "shared"
