"""Shared test set-up: where the real captures and seed documents are, and a guard against leftover servers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# Real outputs captured on this kind of machine, and the five seed documents; see tests/fixtures/README.md.
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "captured"
SOURCES = REPO_ROOT / "tests" / "fixtures" / "sources"
# The `pagelab` command, as a process of its own.
PAGELAB = [sys.executable, "-m", "pagelab.cli"]


# `pagelab ARGS` as `python -m pagelab.cli` runs it, writing at exit how often the process read
# sweep.json whole (pagelab.bundle.WHOLE_READS) to the file named first.
COUNTING_PAGELAB = [sys.executable, "-c", textwrap.dedent("""\
    import atexit, json, sys
    from pagelab import bundle
    from pagelab.cli import main
    counts = sys.argv.pop(1)
    atexit.register(lambda: open(counts, "w").write(json.dumps(bundle.WHOLE_READS)))
    sys.exit(main(sys.argv[1:]))
    """)]
READS_FILE = "sweep_json_reads.json"  # beside the smoke sweep's bundle (smoke_sweep_done)


def pagelab(*args, timeout: float = 300, env: dict | None = None,
            command: list[str] = PAGELAB) -> subprocess.CompletedProcess:
    """`pagelab ARGS` run from the project's root, its output captured as text."""
    return subprocess.run(command + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO_ROOT, env=env)


def pagelab_here(*args) -> subprocess.CompletedProcess:
    """`pagelab ARGS` run in this process (pagelab.cli.main), its exit status and output captured as
    `pagelab` gives them: for the commands that only read a bundle (stats, compare), which in a
    process of their own would spend seconds importing the statistics libraries each time."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from pagelab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit:  # argparse's own exits (usage errors, --help)
            code = exit.code
    return subprocess.CompletedProcess(["pagelab", *map(str, args)], code, out.getvalue(), err.getvalue())


def server_processes() -> dict[int, str]:
    """pid -> command line of every mariadbd/mysqld on the machine."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and argv and Path(argv[0].decode(errors="replace")).name in ("mariadbd", "mysqld"):
            found[int(entry.name)] = " ".join(a.decode(errors="replace") for a in argv if a)
    return found


def servers_under(directory: Path) -> dict[int, str]:
    marker = f"--defaults-file={directory}"
    return {pid: cmd for pid, cmd in server_processes().items() if marker in cmd}


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def sources_dir() -> Path:
    return SOURCES


# `make test` runs pytest-xdist workers (the Makefile's TEST_ARGS: --dist loadscope, with the scopes below). Tests
# that share something costly or stateful run on one worker, as one group: a directory whose tests share a session
# fixture (a loaded server, a Slurm cluster, a workload's run) or a file whose tests share a module
# fixture (a sweep, an executed notebook, a fault-matrix chain's bundle, whose cells run in order).
# Every other test goes to whichever worker is free. Each worker has its own temporary directory,
# so its servers, sockets and bundles are its own; ports are chosen free at each start.
# The groups are listed roughly longest first (test-seconds of a whole quiet run at -n 3 on the 2-core
# machine, 2026-11-28: the fault matrix's two chains ~180 and ~100 s, tpcc_server ~180, slurm ~95,
# grid ~85, sweep ~50, ycsb ~50; at a load of 9-10 they took two to three times as long): the scheduler hands them out in this
# order, so the longest start at once, one on each worker (the two chains, and with a third worker
# the sweep), each worker takes the next group as it runs out, and the short tests fill the gaps and
# the end.
# The chains hold open every phase shorter than a loaded machine's poll can be sure to see
# (tests/faults/README.md), so they run beside the other workers' servers.
XDIST_GROUPS = (
    "faults/test_matrix_from_ramp_up.py", "faults/test_matrix_to_start.py",
    "test_sweep.py", "test_grid.py", "tpcc_server", "workloads_ycsb", "slurm", "monitor", "test_report.py",
    "workloads_lookup", "workloads_sqlite", "workloads", "tpcc/test_datagen.py", "models/test_blocksize_model.py",
)
# Ungrouped tests that start a server or do heavy I/O go before the light ones, so that the light
# ones (no server, no fio, no crash loops) fill the workers' last minutes.
HEAVY_MARKS = ("server", "slurm")
HEAVY_FILES = ("models/test_fio_measure.py", "test_doctor.py", "storage/test_crash.py", "storage/test_interrupt.py")


def xdist_group_of(relative: Path) -> str | None:
    """The group of a test file (its path under tests/), or None for a test that may run anywhere."""
    for group in XDIST_GROUPS:
        if relative.as_posix() == group or relative.parts[0] == group:
            return group
    return None


def _group_of_item(item) -> str | None:
    return xdist_group_of(Path(item.path).relative_to(REPO_ROOT / "tests"))


def _is_light(item) -> bool:
    relative = Path(item.path).relative_to(REPO_ROOT / "tests").as_posix()
    return not any(item.get_closest_marker(mark) for mark in HEAVY_MARKS) and relative not in HEAVY_FILES


def pytest_collection_modifyitems(config, items):
    # Grouped tests first, longest group first, each group's tests in their own order (the fault
    # matrix's chains depend on it); then the ungrouped tests that start a server or do heavy I/O;
    # then the light ones. A stable sort keeps the orders.
    rank = {group: index for index, group in enumerate(XDIST_GROUPS)}

    def place(item) -> int:
        group = _group_of_item(item)
        if group is not None:
            return rank[group]
        return len(XDIST_GROUPS) + 1 if _is_light(item) else len(XDIST_GROUPS)

    items.sort(key=place)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # optional: a run with -p no:xdist still works
def pytest_xdist_make_scheduler(config, log):
    """xdist's loadscope, with XDIST_GROUPS as its scopes. (Its own loadgroup marks tests by
    rewriting their node ids, which pytest 9 no longer allows: every test went anywhere.)"""
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = Path(nodeid.split("::", 1)[0])
            group = xdist_group_of(path.relative_to("tests")) if path.parts[:1] == ("tests",) else None
            return group or nodeid

    return GroupScheduling(config, log)


def pytest_sessionfinish(session, exitstatus):
    """Fail the run if any server started under pytest's temp directories is still running. Under
    xdist the controller checks, after every worker has ended: its directory holds the workers'."""
    if hasattr(session.config, "workerinput"):
        return
    base = getattr(session.config, "_tmp_path_factory", None)
    if base is None:
        return
    try:
        root = base.getbasetemp().resolve()
    except Exception:
        return
    leftovers = servers_under(root)
    if leftovers:
        for pid in leftovers:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        lines = "\n".join(f"  pid {pid}: {cmd}" for pid, cmd in leftovers.items())
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            f"FAILED: servers started by the tests were still running at the end (now killed):\n{lines}", red=True
        )
        session.exitstatus = 1


@pytest.fixture(scope="session")
def tpcc_dataset(tmp_path_factory):
    """One TPC-C warehouse (seed 7), generated once per test session."""
    from pagelab.tpcc.datagen import generate

    return generate(1, 7, cache_dir=tmp_path_factory.mktemp("tpcc-cache"), progress=False)


@contextmanager
def loaded_instance(directory: Path, page_size: str, settings: dict, dataset):
    """A running instance with `dataset` loaded, and the snapshot of its loaded datadir.

    Yields (instance, load report, snapshot path); the server is stopped on the way out."""
    from pagelab.mysql import Instance, ServerSettings
    from pagelab.mysql.client import ConnectionSpec
    from pagelab.tpcc.loader import load

    instance = Instance(directory, page_size, settings=ServerSettings(**settings))
    instance.init()
    try:
        instance.start()
        report = load(ConnectionSpec.for_instance(instance), dataset, progress=False)
        instance.stop()
        snapshot = instance.snapshot()
        instance.start()
        yield instance, report, snapshot
    finally:
        instance.stop()


@contextmanager
def restored_instance(directory: Path, page_size: str, settings: dict, snapshot: Path):
    """A second running instance restored from a loaded snapshot, for tests that break their server:
    made from the snapshot as a unit's own server is (Instance.restore_new), with no datadir
    initialised first only to be replaced."""
    from pagelab.mysql import Instance, ServerSettings

    instance = Instance(directory, page_size, settings=ServerSettings(**settings)).restore_new(snapshot)
    try:
        yield instance.start()
    finally:
        instance.stop()


def repr_in_another_process(setup: str, expression: str) -> str:
    """repr(expression) evaluated in a fresh interpreter with another string-hash seed: "the same
    seed gives the same values" must hold across processes (sweeps, workers, days), which a second
    call in this process cannot show (it shares the process's hash seed and any module state)."""
    import subprocess
    import sys

    code = f"{setup}\nprint(repr({expression}))"
    env = {**os.environ, "PYTHONHASHSEED": str(os.getpid() % 4000 + 1)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                          cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


# The smoke profile as the tests run it: no ramp-up (no test of its bundle reads a warm pool) and two
# report intervals, not three, a run. `make rehearse` and `make demo PROFILE=smoke` run it as shipped.
SMOKE_SHORTER = ("--set", "rampup_s=0", "--set", "measure_s=6")


@pytest.fixture(scope="session")
def smoke_sweep_done(tmp_path_factory):
    """`pagelab sweep --profile smoke`, run once for the whole test run, and shared: the sweep tests
    and the Slurm tests' local sweep read the same bundle (read only; a test that changes one
    copies it first). Under xdist the first worker to ask runs it, in the directory all workers
    share, and another that asks meanwhile waits on the lock and reads the result.

    Returns {"bundle", "pdf", "done" (the CompletedProcess), "seconds"}."""
    import fcntl
    import json
    import subprocess
    import time

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the controller's directory, above every worker's own
    base = root / "shared-smoke-sweep"
    base.mkdir(exist_ok=True)
    bundle, pdf, result = base / "smoke", base / "smoke.pdf", base / "result.json"
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            command = COUNTING_PAGELAB + [str(base / READS_FILE), "sweep", "--profile", "smoke", *SMOKE_SHORTER,
                                          "--out", str(bundle), "--pdf", str(pdf)]
            started = time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT)
            result.write_text(json.dumps({"args": command, "returncode": done.returncode, "stdout": done.stdout,
                                          "stderr": done.stderr, "seconds": time.monotonic() - started}))
    recorded = json.loads(result.read_text())
    done = subprocess.CompletedProcess(recorded["args"], recorded["returncode"], recorded["stdout"], recorded["stderr"])
    assert done.returncode == 0, done.stderr[-4000:]
    return {"bundle": bundle, "pdf": pdf, "done": done, "seconds": recorded["seconds"]}
