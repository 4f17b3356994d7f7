"""The `pagelab` command line as a user runs it, on real files and real servers.

A real process where the process is what is checked: `python -m pagelab --help`, a pipe closed
before pagelab writes, a server that outlives `pagelab server start`. Bad input, refusals and
parsing go through pagelab.cli.main in the test's process (tests.conftest.pagelab_here), which
returns the exit status and writes the messages the process would: a process of their own would
only add a second of imports to each."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
import sys
from functools import partial

import pytest

from tests.conftest import pagelab as run_pagelab
from tests.conftest import pagelab_here, servers_under

PAGELAB = [sys.executable, "-m", "pagelab"]  # as `python -m pagelab` (pagelab/__main__.py)
pagelab = partial(run_pagelab, command=PAGELAB)


def command_names() -> list[str]:
    from pagelab.cli import build_parser

    parser = build_parser()
    subcommands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return sorted(subcommands.choices)


def test_help_names_every_command_and_the_exit_statuses():
    names = command_names()
    assert set(names) >= {"doctor", "server", "tpcc", "parse", "sweep", "report", "advise", "ycsb"}
    done = pagelab("--help")
    assert done.returncode == 0
    for command in names:
        assert command in done.stdout
    assert "exit status: 0 done; 1 something failed" in " ".join(done.stdout.split())


@pytest.mark.parametrize("command", ["doctor", "server", "server init", "server start", "server status",
                                     "server stop", "tpcc", "tpcc load", "tpcc run", "parse", "sweep", "run-unit",
                                     "report", "stats", "compare", "plan", "advise", "ycsb"])
def test_every_command_explains_itself(command):
    assert set(command_names()) == {"doctor", "server", "tpcc", "parse", "sweep", "run-unit", "report", "stats",
                                    "compare", "plan", "advise", "ycsb"}, \
        "a new command needs its line in this test"
    done = pagelab_here(*command.split(), "--help")  # in-process: `python -m pagelab --help` is run above
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: pagelab {command}")
    assert len(done.stdout.splitlines()) >= 4  # a description and options, not a bare usage line


@pytest.mark.parametrize("command, words", [
    ("stats", ["two-level model", "primary", "--add-rounds", "look"]),
    ("sweep", ["primary", "max_rounds", "--add-rounds", "with --executor slurm the machine is not compared"]),
    ("plan", ["--budget", "--resolve", "primary"])])
def test_the_help_names_how_verdicts_are_reached(command, words, capsys, monkeypatch):
    """A reader of --help learns of the model, the declared primary and the looks where they act
    (in-process: a second each)."""
    from pagelab.cli import main

    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps at a hyphen too (--add-|rounds): read it unwrapped

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert [word for word in words if word not in text] == []


@pytest.mark.parametrize("budget, said", [("0", "give a duration above 0"), ("0min", "give a duration above 0"),
                                          ("soon", "is not a duration")])
def test_a_plan_budget_of_no_time_says_so_in_one_line(tmp_path, budget, said, capsys):
    from pagelab.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["plan", "--from", str(tmp_path), "--budget", budget])
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err


def test_report_on_a_missing_directory_says_it_is_missing(tmp_path):
    done = pagelab_here("report", tmp_path / "nowhere")
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "sweep.json" not in done.stderr


def test_parse_of_a_file_it_cannot_read_is_bad_input(fixtures_dir):
    done = pagelab_here("parse", "tpcc-log", fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_load.log")
    assert done.returncode == 2
    assert "tpcc_load's log" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("bad", ["12k", "0", "abc", "128k"])
def test_server_init_refuses_a_bad_page_size(tmp_path, bad):
    done = pagelab_here("server", "init", tmp_path / "lab", "--page-size", bad)
    assert done.returncode == 2
    assert "innodb_page_size must be one of 4k 8k 16k 32k 64k" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "lab").exists()


def test_server_init_refuses_a_bad_buffer_pool(tmp_path):
    done = pagelab_here("server", "init", tmp_path / "lab", "--page-size", "4k", "--buffer-pool", "lots")
    assert done.returncode == 2
    assert "buffer pool size must be a size such as 64M" in done.stderr
    assert not (tmp_path / "lab").exists()


@pytest.mark.server
def test_manual_lab_cycle(tmp_path):
    """init, start and stop as processes of their own (the server must outlive its start command);
    status and a refused init read in the test's process."""
    lab = tmp_path / "lab-8k"
    try:
        assert pagelab("server", "init", lab, "--page-size", "8k", "--buffer-pool", "32M", "--redo-log", "16M").returncode == 0
        started = pagelab("server", "start", lab, "--set", "innodb_io_capacity=1500")
        assert started.returncode == 0, started.stderr
        assert "8k server running" in started.stdout
        assert servers_under(lab), "the server must outlive `pagelab server start`"
        shown = pagelab_here("server", "status", lab)
        assert shown.returncode == 0
        facts = dict(re.split(r"\s{2,}", line, maxsplit=1) for line in shown.stdout.splitlines())
        assert facts["state"] == "running" and facts["page size"] == "8k" and facts["buffer pool"] == "32M"
        assert facts["innodb_io_capacity"] == "1500" and facts["pid"].isdigit()
        assert "None" not in shown.stdout and "{" not in shown.stdout
        status = pagelab_here("server", "status", lab, "--json")
        assert status.returncode == 0
        info = json.loads(status.stdout)
        assert info["innodb_page_size"] == 8192 and info["buffer_pool_bytes"] == 32 << 20
        assert info["settings"]["extra"] == {"innodb_io_capacity": "1500"}
        client = subprocess.run(["mariadb", f"--defaults-file={lab}/client.cnf", "-N", "-e", "SELECT @@innodb_io_capacity"],
                                capture_output=True, text=True, timeout=30)
        assert client.stdout.strip() == "1500"
        stopped = pagelab("server", "stop", lab)
        assert stopped.returncode == 0 and "stopped cleanly" in stopped.stdout
        stopped_status = pagelab_here("server", "status", lab)
        assert stopped_status.returncode == 3
        assert re.search(r"^state\s+stopped$", stopped_status.stdout, re.M) and "pid" not in stopped_status.stdout
        assert not servers_under(lab)
        # another page size in the same directory: refused, naming the --force that does it
        refused = pagelab_here("server", "init", lab, "--page-size", "16k")
        assert refused.returncode == 2 and "--page-size 16k --force" in refused.stderr
        redone = pagelab("server", "init", lab, "--page-size", "16k", "--force")
        assert redone.returncode == 0, redone.stderr
        assert json.loads((lab / "instance.json").read_text())["page_size"] == 16384
    finally:
        pagelab("server", "stop", lab)


def test_parse_prints_a_tidy_csv(fixtures_dir):
    log = fixtures_dir / "mariadb-10.11" / "4k-w1-c4" / "tpcc_start.log"
    done = pagelab_here("parse", "tpcc-log", log)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(rows) == 6
    assert rows[0]["t_s"] == "10" and rows[0]["new_order"] == "1869" and rows[0]["new_order_p95_ms"] == "19.71"
    assert rows[-1]["stock_level_max_ms"] == "70.966"


def test_parse_into_a_pipe_closed_early_exits_quietly(fixtures_dir):
    """`pagelab parse ... | head`: the reader is gone before pagelab writes (here before it even
    starts), as a Unix filter takes that: no traceback, exit 0."""
    process = subprocess.Popen(PAGELAB + ["parse", "innodb-status", str(fixtures_dir / "mariadb-10.11" / "16k-w1-c4" / "innodb")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


def test_parse_reads_a_directory_of_snapshots_in_order(fixtures_dir):
    done = pagelab_here("parse", "innodb-status", fixtures_dir / "mariadb-10.11" / "16k-w1-c4" / "innodb", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 7
    assert [r["snapshot"] for r in rows] == sorted(r["snapshot"] for r in rows)
    assert all(r["pool_pages"] > 0 for r in rows)


def test_parse_of_a_missing_file_is_a_clear_error(tmp_path):
    done = pagelab_here("parse", "fio", tmp_path / "nothing.json")
    assert done.returncode == 2
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr


def test_tpcc_without_a_server_says_how_to_name_one():
    done = pagelab_here("tpcc", "run", "-w", "1")
    assert done.returncode == 2
    assert "--instance DIR" in done.stderr


def test_advise_refuses_bad_input_before_measuring(tmp_path):
    done = pagelab_here("advise", "--keys", "lots", "--key-bytes", "32", "--device", tmp_path)
    assert done.returncode == 2 and "--keys" in done.stderr
    assert list(tmp_path.iterdir()) == [], "nothing may be written before the input is checked"
    done = pagelab_here("advise", "--keys", "1e9", "--key-bytes", "32", "--device", tmp_path / "missing")
    assert done.returncode == 2 and "--device" in done.stderr


def test_a_bad_response_time_limit_is_refused_before_any_server(tmp_path):
    done = pagelab_here("tpcc", "run", "--instance", tmp_path / "none", "-w", "1", "--rt-limit", "refund=5000")
    assert done.returncode == 2
    assert "--rt-limit" in done.stderr and "'refund' is not a transaction" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "none").exists()


def test_a_transport_that_does_not_fit_is_refused_before_any_server(tmp_path):
    done = pagelab_here("tpcc", "run", "--host", "127.0.0.1", "--port", "1", "--transport", "socket", "-w", "1")
    assert done.returncode == 2
    assert "--transport socket does not fit the server given, reached over tcp" in done.stderr
    done = pagelab_here("tpcc", "run", "--instance", tmp_path / "none", "--transport", "pipe", "-w", "1")
    assert done.returncode == 2 and "invalid choice: 'pipe'" in done.stderr
    done = pagelab_here("tpcc", "run", "--instance", tmp_path / "none", "--stall", "0", "-w", "1")
    assert done.returncode == 2 and "stall seconds (--stall) must be a whole number of at least 1" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "none").exists()


def test_a_sweep_that_can_give_no_verdict_says_so_before_it_starts(tmp_path):
    """3 page sizes and 6 rounds: compared round by round, the exact test's floor 2/64, times the
    3 pairs, is 0.094 -- no pair could be called faster or slower. Said, and the plan still made."""
    done = pagelab_here("sweep", "--profile", "quick", "--set", "repeats=6", "--plan-only", "--out", tmp_path / "b")
    assert done.returncode == 0, done.stderr
    assert "no pair can be called faster or slower" in done.stderr and "--set repeats=7" in done.stderr
    quiet = pagelab_here("sweep", "--profile", "quick", "--plan-only", "--out", tmp_path / "c")
    assert quiet.returncode == 0 and "faster or slower" not in quiet.stderr
    # quick measures its disk (knob disk_profile), but at a unit's start: a plan runs no fio
    assert not (tmp_path / "c" / "hosts").exists() and not list((tmp_path / "c").rglob("pagelab-fio.dat"))
