"""The cpu_placement knob: declared, validated, refused where it cannot run (a real 1-CPU
affinity, made with taskset), and documented in `pagelab sweep --help`. That a split really pins
a running server is checked on the real server of tests/tpcc_server (test_placement_on_a_server)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from pagelab.common.errors import UsageError
from pagelab.machine.placement import cpu_list_text, split_problem
from pagelab.sweep.knobs import KNOBS_BY_NAME
from pagelab.sweep.profiles import load_profile, profile_help
from tests.conftest import REPO_ROOT


def test_shared_is_the_default_and_split_is_read():
    assert load_profile("smoke").cpu_placement == "shared"
    assert load_profile("smoke", ["cpu_placement=Split"]).cpu_placement == "split"


def test_an_unknown_placement_is_refused_naming_the_knob_and_the_choices():
    with pytest.raises(UsageError, match=r"cpu_placement: apart is not allowed; allowed: shared split"):
        load_profile("smoke", ["cpu_placement=apart"])


def test_the_knob_table_of_sweep_help_lists_it():
    assert "cpu_placement" in profile_help(200) and KNOBS_BY_NAME["cpu_placement"].help.split(":")[0] == "shared"


def test_one_cpu_cannot_be_split():
    assert split_problem([0]) and "only 1 CPU (0)" in split_problem([0])
    assert split_problem([0, 1]) is None
    assert cpu_list_text([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"


def test_split_is_refused_under_a_one_cpu_affinity_before_anything_starts():
    taskset = shutil.which("taskset")
    assert taskset, "taskset (util-linux) is needed for this test: apt-get install util-linux"
    assert len(os.sched_getaffinity(0)) >= 2, "this test needs a machine with 2 CPUs to narrow to 1"
    code = "from pagelab.sweep.profiles import load_profile; load_profile('smoke', ['cpu_placement=split'])"
    done = subprocess.run([taskset, "-c", "0", sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=REPO_ROOT)
    assert done.returncode != 0
    assert "cpu_placement: split puts the server and the driver on CPUs of their own" in done.stderr
    assert "only 1 CPU (0); allowed here: shared" in done.stderr
