"""Shared test set-up: where the real captures and seed documents are, and a guard against leftover servers."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# Real outputs captured on this kind of machine, and the five seed documents; see tests/fixtures/README.md.
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "captured"
SEEDS = REPO_ROOT / "tests" / "fixtures" / "seeds"
# The `pagelab` command, as a process of its own.
PAGELAB = [sys.executable, "-m", "pagelab.cli"]


def pagelab(*args, timeout: float = 300, env: dict | None = None,
            command: list[str] = PAGELAB) -> subprocess.CompletedProcess:
    """`pagelab ARGS` run from the project's root, its output captured as text."""
    return subprocess.run(command + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO_ROOT, env=env)


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
def seeds_dir() -> Path:
    return SEEDS


def pytest_sessionfinish(session, exitstatus):
    """Fail the run if any server started under pytest's temp directories is still running."""
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
    """A second running instance restored from a loaded snapshot, for tests that break their server."""
    from pagelab.mysql import Instance, ServerSettings

    instance = Instance(directory, page_size, settings=ServerSettings(**settings))
    instance.init()
    instance.restore(snapshot)
    try:
        yield instance.start()
    finally:
        instance.stop()
