"""`pagelab ycsb` as a user runs it: errors before side effects, a real run, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pagelab.mysql.instance import STOP_TIMEOUT_S
from pagelab.parse import parse_ycsb
from tests.conftest import PAGELAB, pagelab, servers_under



def test_help_explains_the_command():
    done = pagelab("ycsb", "--help")
    assert done.returncode == 0
    for words in ("--backend", "--page-sizes", "--records", "--operations", "--workloads", "--distribution",
                  "--threads", "--seed", "--out", "read 95% / update 5%", "recordcount", "pagelab parse ycsb"):
        assert words in done.stdout, words
    assert "ycsb" in pagelab("--help").stdout


@pytest.mark.parametrize("args,message", [
    (["--page-sizes", "12k"], "innodb_page_size must be one of 4k 8k 16k 32k 64k"),
    (["--backend", "prototype", "--page-sizes", "2k"], "needs at least 4k pages"),
    (["--records", "0"], "records (--records) must be a whole number of at least 1, got 0"),
    (["--operations", "-5"], "operations (--operations) must be a whole number of at least 0"),
    (["--threads", "0"], "threads (--threads) must be a whole number of at least 1"),
    (["--workloads", "abx"], "unknown YCSB workload 'x'"),
    (["--workloads", "e"], "e (scans) is not implemented"),
    (["--backend", "prototype", "--threads", "2"], "use --threads 1"),
    (["--buffer-pool", "8M"], "below the 21M InnoDB needs at 64k pages"),
    (["--buffer-pool", "lots"], "must be a size such as 64M"),
    (["--max-seconds", "0"], "max_seconds must be a positive number"),
])  # fmt: skip
def test_bad_input_is_refused_before_anything_is_made(tmp_path, args, message):
    out = tmp_path / "run"
    done = pagelab("ycsb", "--out", out, *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


def test_an_earlier_run_is_not_overwritten_without_force(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "ycsb.json").write_text("{}")
    done = pagelab("ycsb", "--out", out, "--backend", "prototype", "--threads", "1")
    assert done.returncode == 2 and "already holds a YCSB run" in done.stderr
    assert (out / "ycsb.json").read_text() == "{}"


def test_a_prototype_run_prints_ycsb_text_that_parses(tmp_path):
    out = tmp_path / "run"
    done = pagelab("ycsb", "--backend", "prototype", "--page-sizes", "8k", "--records", "300", "--operations", "300",
                   "--workloads", "c", "--seed", "3", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "[OVERALL], RunTime(ms)" in done.stdout and "[READ], Return=OK, 300" in done.stdout
    parsed = parse_ycsb(done.stdout)
    assert parsed.meta["runs"] == 2  # the load, then workload C, each under its own header line
    assert (out / "prototype-8k" / "workloadc.txt").read_text() in done.stdout
    assert json.loads((out / "ycsb.json").read_text())["seed"] == 3


def _phase_status(record: Path, run: str, phase: str) -> str | None:
    try:
        return json.loads(record.read_text())["runs"][run]["phases"][phase]["status"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not written yet, or not that far


def test_ctrl_c_stops_the_server_and_keeps_the_finished_phases(tmp_path):
    out = tmp_path / "run"
    command = PAGELAB + ["ycsb", "--page-sizes", "16k", "--records", "300", "--operations", "10000000",
                         "--workloads", "c", "--threads", "2", "--out", str(out), "-q"]
    # its own process group, as a shell gives a foreground job: Ctrl-C reaches pagelab and its workers.
    # A suite started in the background (`make test &`) inherits SIGINT ignored, and so would pagelab,
    # which then never sees the Ctrl-C; the child stands for a user at a terminal, where it is default.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while _phase_status(out / "ycsb.json", "innodb-16k", "read_only") != "running":
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "workload C did not start in time"
            time.sleep(0.2)
        time.sleep(1.0)  # workload C is running (its workers may still be starting: that must be fine too)
        assert servers_under(out), "the server should be running during workload C"
        os.killpg(process.pid, signal.SIGINT)
        # the run may take its own bounded time to stop: its workers (15 s) and then the server,
        # which a loaded machine can make slow (Instance.stop allows STOP_TIMEOUT_S)
        _, stderr = process.communicate(timeout=STOP_TIMEOUT_S + 60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not servers_under(out)
    meta = json.loads((out / "ycsb.json").read_text())
    assert meta["status"] == "interrupted"
    phases = meta["runs"]["innodb-16k"]["phases"]
    assert phases["load"]["status"] == "done" and phases["read_only"]["status"] == "interrupted"
    load = parse_ycsb((out / "innodb-16k" / "load.txt").read_text()).to_frame()
    assert load.set_index("operation").loc["INSERT", "return_ok"] == 300
    assert set((out / "ycsb.csv").read_text().splitlines()[1:]) and "read_only" not in (out / "ycsb.csv").read_text()
