"""A stop signal always stops a sweep (pagelab.sweep.stop_signals): a process of its own, a real
SIGINT from outside, and where a notebook is at stake a real papermill kernel.

The process is what a sweep's main thread does around each run: the stop handlers installed,
the notebook executed with the check between its cells, and the check once papermill returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from tests.conftest import REPO_ROOT

# What a sweep does around one run (pagelab.sweep.orchestrator._execute_runs), exit 130 if stopped.
# WAIT_FOR=FILE: no notebook, the process waits with the handlers installed, FILE written once they are.
# SWALLOW=1: a SIGINT comes before the notebook and its KeyboardInterrupt is caught by code not
# ours (the suppress stands in for a library's `except BaseException`, where a real one could land).
RUNNER = """
import contextlib, os, signal, sys, time
from pagelab.report.execute import execute_notebook
from pagelab.sweep.stop_signals import stop_signals_interrupt

source, output = sys.argv[1:3]
try:
    with stop_signals_interrupt() as stop:
        if os.environ.get("WAIT_FOR"):
            open(os.environ["WAIT_FOR"], "w").close()
            time.sleep(600)
        if os.environ.get("SWALLOW"):
            with contextlib.suppress(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(10)
        execute_notebook(source, output, kernel_name=os.environ["KERNEL"], between_cells=stop.raise_if_received)
        stop.raise_if_received()
except KeyboardInterrupt:
    sys.exit(130)
"""
WAIT_S = 60  # for the kernel to start on a loaded machine, and for the stop


def _notebook(tmp_path: Path, marker: Path) -> Path:
    """Its first cell writes `marker`, then sleeps far longer than the test waits."""
    source = tmp_path / "sleeper.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(f"open({str(marker)!r}, 'w').close()\nimport time\ntime.sleep(600)"),
                                       new_code_cell(f"open({str(marker)!r} + '.second', 'w').close()")]), source)
    return source


def _start(tmp_path: Path, source: Path, **env) -> subprocess.Popen:
    """The runner, started as a script's background job is (`pagelab sweep ... &` from a shell
    without job control): SIGINT inherited ignored."""
    from tests.test_report import _kernel_name

    return subprocess.Popen([sys.executable, "-c", RUNNER, str(source), str(tmp_path / "out.ipynb")], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
                            env={**os.environ, "KERNEL": _kernel_name(), **env})


def _exit_of(process: subprocess.Popen) -> tuple[int | None, str]:
    try:
        output, _ = process.communicate(timeout=WAIT_S)
        return process.returncode, output.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, output.decode(errors="replace")


def test_a_sigint_stops_a_sweep_even_when_inherited_ignored(tmp_path):
    """Python leaves a SIGINT ignored at its start ignored; a sweep must hear it all the same."""
    ready = tmp_path / "handlers-installed"
    process = _start(tmp_path, tmp_path / "no-notebook.ipynb", WAIT_FOR=str(ready))
    deadline = time.monotonic() + WAIT_S
    while not ready.exists():
        assert process.poll() is None, process.communicate()[0].decode(errors="replace")
        assert time.monotonic() < deadline, "the runner did not start"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGINT)
    code, output = _exit_of(process)
    assert code == 130, f"the SIGINT did not stop the sweep (exit {code}, None: still running after {WAIT_S} s):\n{output}"


def test_a_swallowed_sigint_stops_the_notebook_before_its_next_cell(tmp_path):
    """A KeyboardInterrupt caught on its way (not by pagelab) must not let the notebook run on."""
    marker = tmp_path / "cell-started"
    process = _start(tmp_path, _notebook(tmp_path, marker), SWALLOW="1")
    code, output = _exit_of(process)
    assert code == 130, f"the swallowed SIGINT was lost (exit {code}, None: still running after {WAIT_S} s):\n{output}"
    assert not marker.exists(), "a cell ran after the SIGINT"
