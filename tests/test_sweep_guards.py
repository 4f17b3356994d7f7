"""What guards a sweep's bundle before and between its runs, with `pagelab sweep` on real MariaDB:
an interrupt between two runs still names --resume (a real first run, the interrupt injected at
that moment), one process per bundle (a second is refused; a killed one's stale lock is taken
over), a run refused when its disk has no room, --resume refused on what is not a bundle or was
edited, --out refused into a folder of one's own, and bad profile input refused before anything
starts. The expected messages are the sweep's own refusals, each naming the problem and the way
out; nothing in the folder may change and no server may be left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from pagelab.bundle import SweepRecord
from tests.conftest import PAGELAB, REPO_ROOT, pagelab_here, servers_under

pytestmark = pytest.mark.server


def sweep_command(*args) -> list[str]:
    return PAGELAB + ["sweep", *[str(a) for a in args]]


def test_an_interrupt_between_two_runs_still_names_resume(tmp_path, monkeypatch):
    """SIGTERM can land after a run is recorded done and before the next one starts (a race the
    grid's interrupted sweep in tests/test_grid.py can hit); the sweep must stop the same way:
    finished runs kept, the rest pending, no server left, and the --resume hint. The first run is real (its notebook
    under papermill, its server); the interrupt is injected at that one moment, where the
    SIGTERM handler would raise it, because a real signal cannot be aimed there."""
    from pagelab.sweep import orchestrator as sweep_module
    from pagelab.sweep.profiles import load_profile

    # the shortest run the knobs allow: what is checked is how the sweep stops, not what it measured
    short = ["rampup_s=0", "measure_s=1", "interval_s=1", "sample_interval_s=1"]
    sweep_dir = sweep_module.create_sweep(load_profile("smoke", short), tmp_path / "between", "smoke")

    def interrupted_advance(progress):
        raise KeyboardInterrupt  # as SIGTERM's handler raises it, right after the first run is done

    monkeypatch.setattr(sweep_module._Progress, "advance", interrupted_advance)
    with pytest.raises(sweep_module.SweepInterrupted, match=f"between runs.*--resume {sweep_dir}"):
        sweep_module.execute_runs(SweepRecord.load(sweep_dir), progress=False)
    statuses = [run["status"] for run in json.loads((sweep_dir / "sweep.json").read_text())["runs"]]
    assert statuses == ["done", "pending"]
    summary = json.loads((sweep_dir / "4k-r1" / "summary.json").read_text())
    assert summary["tpmc"] > 0 and summary["page_size_bytes"] == 4096, "the run recorded done did not really run"
    assert not (sweep_dir / "16k-r1").exists(), "the next run was begun"
    assert not servers_under(sweep_dir), "an interrupt between runs left a server running"


def test_a_sweep_in_use_is_refused_to_a_second_process(tmp_path):
    """Two processes on one sweep would take the same pending run and its server."""
    import fcntl

    from pagelab.sweep import orchestrator as sweep_module
    from pagelab.sweep.profiles import load_profile

    sweep_dir = sweep_module.create_sweep(load_profile("smoke"), tmp_path / "busy", "smoke")
    holder = os.open(sweep_dir / sweep_module.LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.lockf(holder, fcntl.LOCK_EX)
        os.write(holder, b"pid 4242 on elsewhere")
        done = subprocess.run(sweep_command("--resume", sweep_dir), capture_output=True, text=True, timeout=120,
                              cwd=REPO_ROOT)
    finally:
        os.close(holder)
    assert done.returncode == 2, done.stderr
    assert f"{sweep_dir} is in use by another pagelab sweep (pid 4242 on elsewhere)" in done.stderr
    assert "kill 4242)" in done.stderr
    statuses = [run["status"] for run in json.loads((sweep_dir / "sweep.json").read_text())["runs"]]
    assert statuses == ["pending", "pending"]


def test_a_lock_left_by_a_killed_sweep_is_taken_over_and_removed_at_the_end(tmp_path):
    """kill -9 leaves .sweep.lock behind, but not its lock: the next sweep takes it over at once,
    writes its own pid in it, and removes it when it ends."""
    from pagelab.sweep import orchestrator as sweep_module
    from pagelab.sweep.profiles import load_profile

    sweep_dir = sweep_module.create_sweep(load_profile("smoke"), tmp_path / "stale", "smoke")
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""\
        import sys, time
        sys.path.insert(0, {str(REPO_ROOT / 'lib')!r})
        from pathlib import Path
        from pagelab.sweep.orchestrator import bundle_lock
        with bundle_lock(Path({str(sweep_dir)!r})):
            print("held", flush=True)
            time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert (sweep_dir / sweep_module.LOCK_FILE).read_text().startswith(f"pid {holder.pid} on ")
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
    assert (sweep_dir / sweep_module.LOCK_FILE).exists(), "the killed sweep's lock file is the stale one to take over"
    with sweep_module.bundle_lock(sweep_dir):
        assert (sweep_dir / sweep_module.LOCK_FILE).read_text().startswith(f"pid {os.getpid()} on ")
    assert not (sweep_dir / sweep_module.LOCK_FILE).exists()


def test_a_run_without_room_on_its_disk_is_refused_before_it_starts(tmp_path):
    """The disk check before each run: 100,000 warehouses need terabytes; nothing is written for the run."""
    from pagelab.sweep import orchestrator as sweep_module
    from pagelab.sweep.profiles import load_profile

    sweep_dir = sweep_module.create_sweep(load_profile("smoke", ["warehouses=100000"]), tmp_path / "big", "smoke")
    done = pagelab_here("sweep", "--resume", sweep_dir)
    assert done.returncode == 2, done.stderr
    assert "4k-r1 needs about" in done.stderr and "free on the disk of" in done.stderr
    assert f"--resume {sweep_dir}" in done.stderr
    assert sorted(p.name for p in sweep_dir.iterdir()) == ["plan.json", "sweep.json"], "the refused run left files behind"
    statuses = [run["status"] for run in json.loads((sweep_dir / "sweep.json").read_text())["runs"]]
    assert statuses == ["pending", "pending"]


def test_resume_refuses_what_is_not_a_bundle_or_was_edited(tmp_path):
    """--resume on a folder of one's own, or on a bundle whose knobs were edited after runs were
    measured, is refused with the way out, and nothing in the folder changes."""
    from pagelab.sweep import orchestrator as sweep_module
    from pagelab.sweep.profiles import load_profile

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("my work")
    refused = pagelab_here("sweep", "--resume", mine)
    assert refused.returncode == 2 and "is not a sweep bundle (no sweep.json)" in refused.stderr, refused.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["thesis.tex"]

    sweep_dir = sweep_module.create_sweep(load_profile("smoke"), tmp_path / "edited", "smoke")
    record = json.loads((sweep_dir / "sweep.json").read_text())
    record["runs"][0]["status"] = "done"
    record["profile"]["measure_s"] = record["profile"]["measure_s"] + 5
    (sweep_dir / "sweep.json").write_text(json.dumps(record))
    before = (sweep_dir / "sweep.json").read_bytes()
    refused = pagelab_here("sweep", "--resume", sweep_dir)
    assert refused.returncode == 2 and "knob values were changed after runs were measured" in refused.stderr
    assert (sweep_dir / "sweep.json").read_bytes() == before


def test_out_into_a_folder_of_ones_own_is_refused(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    refused = pagelab_here("sweep", "--profile", "smoke", "--out", mine)
    assert refused.returncode == 2 and f"{mine} is not empty" in refused.stderr, refused.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("args, message", [
    (["--set", "page_sizes=4k,12k"], "page_sizes: 12k is not allowed; allowed: 4k 8k 16k 32k 64k"),
    (["--set", "repeats=0"], "repeats"),
    (["--set", "buffer_pool=150%"], "buffer_pool"),
    (["--set", "equivalence_pct=0"], "equivalence_pct: 0 is out of range; allowed: a number above 0"),
    (["--set", "equivalence_pct=-2"], "equivalence_pct: -2 is out of range; allowed: a number above 0"),
    (["--set", "no_such_knob=1"], "no_such_knob"),
    (["--set", "disk_profile=maybe"], "disk_profile: 'maybe' is not true or false; allowed: true or false"),
    (["--pdf", "/proc/self/no/report.pdf"], "--pdf's directory /proc/self/no cannot be created"),
])
def test_bad_profile_input_is_refused_before_anything_starts(tmp_path, args, message):
    out = tmp_path / "never"
    done = pagelab_here("sweep", "--profile", "smoke", "--out", out, *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
    assert not servers_under(tmp_path)


def test_an_unknown_profile_lists_the_known_ones(tmp_path):
    done = pagelab_here("sweep", "--profile", "quik", "--out", tmp_path / "x")
    assert done.returncode == 2
    assert "quick" in done.stderr and "smoke" in done.stderr
