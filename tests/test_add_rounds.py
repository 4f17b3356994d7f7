"""`pagelab sweep --resume BUNDLE --add-rounds N` (pagelab.sweep.extend): more rounds in the same
bundle, continuing the seed's orders, each addition a look in sweep.json; and every addition that
would not be the same experiment refused, naming the difference, before anything is written.
Light: bundles are made (sweep.json and plan.json) without running anything."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagelab.common.errors import UsageError
from pagelab.sweep import orchestrator
from pagelab.sweep.extend import add_rounds
from pagelab.sweep.profiles import load_profile

GROWING = """# grow: a sweep made with room for more rounds
page_sizes: [4k, 16k]
repeats: 2
max_rounds: {max_rounds}
warehouses: 1
connections: 2
rampup_s: 3
measure_s: {measure_s}
interval_s: 3
sample_interval_s: 3
buffer_pool: 32M
random_seed: 1
"""


def _made(tmp_path: Path, max_rounds: int = 6, measure_s: int = 9) -> tuple[Path, Path, str]:
    """(bundle, its profile's file, the commit recorded in it) of a sweep made and not yet run,
    recorded as made from committed code."""
    source = tmp_path / "grow.yaml"
    source.write_text(GROWING.format(max_rounds=max_rounds, measure_s=measure_s))
    bundle = orchestrator.create_sweep(load_profile(source), tmp_path / "bundle", "grow")
    document = json.loads((bundle / "sweep.json").read_text())
    document["machine"]["git_dirty"] = False  # as from a clean checkout, whatever this one's state
    sha = document["machine"]["git_sha"]
    (bundle / "sweep.json").write_text(json.dumps(document))
    return bundle, source, sha


def test_added_rounds_continue_the_seed_stream_after_every_round():
    course = load_profile("course")  # 7 rounds, then the over-time runs as round 8
    added = course.added_units(first_round=9, first_repeat=8, count=2)
    assert [u["round"] for u in added] == [9, 9, 9, 10, 10, 10]
    assert [u["repeat"] for u in added] == [8, 8, 8, 9, 9, 9]
    # round k takes the seed's k-th draw: the same orders a sweep made with 10 rounds runs as its 9th and 10th
    longer = [u for u in load_profile("course", ["repeats=10", "over_time_s=0"]).units() if u["round"] >= 9]
    assert [(u["page_size"], u["position"]) for u in added] == [(u["page_size"], u["position"]) for u in longer]
    assert {u["role"] for u in added} == {"verdict"}


def test_added_rounds_are_appended_with_their_look_and_plan(tmp_path):
    bundle, _, sha = _made(tmp_path)
    plan_before = json.loads((bundle / "plan.json").read_text())["units"]
    record = add_rounds(bundle, 2, code_now=(sha, False))
    document = json.loads((bundle / "sweep.json").read_text())
    assert [(look["look"], look["rounds"]) for look in document["looks"]] == [(1, 2), (2, 4)]
    assert document["looks"][1]["time"]
    added = document["runs"][4:]
    assert [(e["name"], e["round"], e["status"]) for e in added] == [
        (f"{u['page_size'] // 1024}k-r{u['repeat']}", u["round"], "pending")
        for u in load_profile(tmp_path / "grow.yaml").added_units(3, 3, 2)]
    plan = json.loads((bundle / "plan.json").read_text())["units"]
    assert plan[:4] == plan_before and [u["index"] for u in plan] == list(range(8))
    assert [u["name"] for u in plan[4:]] == [e["name"] for e in added]
    assert record.document["looks"] == document["looks"]
    assert orchestrator.check_resumable(bundle)  # the knobs are as they were: a resume runs the added rounds


def _refused(bundle: Path, count: int, **options) -> str:
    before = {name: (bundle / name).read_bytes() for name in ("sweep.json", "plan.json")}
    with pytest.raises(UsageError) as refusal:
        add_rounds(bundle, count, **options)
    assert {name: (bundle / name).read_bytes() for name in before} == before, "written before the refusal"
    return str(refusal.value)


def test_a_sweep_made_to_be_analysed_once_is_not_extended(tmp_path):
    bundle, _, sha = _made(tmp_path, max_rounds=0)
    message = _refused(bundle, 2, code_now=(sha, False))
    assert "made to be analysed once, after its 2 rounds (max_rounds 0)" in message
    assert "--set max_rounds=M" in message


def test_no_addition_past_the_declared_most_rounds(tmp_path):
    bundle, _, sha = _made(tmp_path, max_rounds=5)
    assert "at most 3 can be added (--add-rounds 3)" in _refused(bundle, 4, code_now=(sha, False))
    assert "at least 1" in _refused(bundle, 0, code_now=(sha, False))


def test_a_changed_profile_is_named(tmp_path):
    bundle, source, sha = _made(tmp_path)
    source.write_text(GROWING.format(max_rounds=6, measure_s=12))
    message = _refused(bundle, 1, code_now=(sha, False))
    assert f"its profile {source} has changed since the sweep was made (measure_s 9 then, 12 now)" in message


def test_other_code_is_named(tmp_path):
    bundle, _, sha = _made(tmp_path)
    assert f"made by pagelab commit {sha[:12]} and this is ffffffffffff" in _refused(bundle, 1, code_now=("f" * 40, False))
    assert "this checkout has local changes" in _refused(bundle, 1, code_now=(sha, True))


def test_another_machine_is_named(tmp_path):
    from pagelab.machine.hosts import HOST_FILE, host_record

    bundle, _, sha = _made(tmp_path)
    document = json.loads((bundle / "sweep.json").read_text())
    document["runs"][0]["status"] = "done"
    (bundle / "sweep.json").write_text(json.dumps(document))
    run_dir = bundle / document["runs"][0]["name"]
    run_dir.mkdir()
    elsewhere = dict(host_record(bundle, None), hostname="node7", cores=64)
    (run_dir / HOST_FILE).write_text(json.dumps(elsewhere))
    message = _refused(bundle, 1, code_now=(sha, False))
    assert "its runs ran on another machine (hostname: node7 there" in message and "cores: 64 there, " in message
    # Slurm's nodes are named by their own host records: there the runs go elsewhere anyway
    add_rounds(bundle, 1, check_machine=False, code_now=(sha, False))


def test_a_bundle_in_use_is_refused(tmp_path):
    bundle, _, sha = _made(tmp_path)
    holder = os.open(bundle / orchestrator.LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.lockf(holder, fcntl.LOCK_EX)
        os.write(holder, b"pid 4242 on elsewhere")
        done = subprocess.run([sys.executable, "-m", "pagelab", "sweep", "--resume", str(bundle), "--add-rounds", "1"],
                              capture_output=True, text=True, timeout=120)
    finally:
        os.close(holder)
    assert done.returncode == 2, done.stderr
    assert f"{bundle} is in use by another pagelab sweep (pid 4242 on elsewhere)" in done.stderr
    assert len(json.loads((bundle / "sweep.json").read_text())["runs"]) == 4


def test_stats_lists_the_looks_and_judges_the_latest_at_its_boundary(tmp_path, capsys):
    import numpy as np

    from bench.synthetic import SyntheticDesign, sweep, write_bundle
    from pagelab.cli import main

    runs = sweep(SyntheticDesign(page_sizes=("4k", "16k"), effects=(0.0, 0.0), rounds=14, run_s=30, interval_s=10),
                 np.random.default_rng(5))
    write_bundle(runs, tmp_path / "grown", page_sizes=("4k", "16k"), profile={"repeats": 7, "max_rounds": 21})
    document = json.loads((tmp_path / "grown" / "sweep.json").read_text())
    document["looks"] = [{"look": 1, "rounds": 7, "time": "t1"}, {"look": 2, "rounds": 14, "time": "t2"}]
    (tmp_path / "grown" / "sweep.json").write_text(json.dumps(document))
    assert main(["stats", str(tmp_path / "grown")]) == 0
    out = capsys.readouterr().out
    assert "Looks: 2 of a sweep made for at most 21 rounds" in out
    assert "look 2: 14 rounds, t2: |z| >= 2.511" in out  # the published boundary at 2/3 of three equal looks
    # one pair, tested at look 2's nominal level 2 * (1 - Phi(2.5114)) = 0.0120: a 98.8% interval
    import re

    assert re.search(r"TpmC, page sizes compared \(.*?, 98\.8% (t|bootstrap) interval", out), out
