"""Executing a notebook with papermill: the one way pagelab (and its tests and benches) runs one.

Everything goes to the project's kernel unless told otherwise, without papermill's progress bar
(pagelab draws its own), and with the kernel's sockets encrypted where pyzmq can: ipykernel 7.3
and later print "Kernel is running over TCP without encryption" on every start otherwise, four
warnings in a quick sweep that are no use to anyone reading its output. The kernel runs on this
machine and listens on 127.0.0.1, so the encryption changes nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

# The kernel papermill starts: the project's venv, registered by `make setup`.
KERNEL_NAME = "pagelab"


def kernel_manager_config():
    """jupyter_client's KernelManager settings: CurveZMQ keys when the kernel spec declares support
    ("auto"), if this pyzmq was built with them (otherwise "auto" would refuse to start)."""
    import zmq
    from traitlets.config import Config

    return Config({"KernelManager": {"transport_encryption": "auto"}}) if zmq.has("curve") else Config()


def execute_notebook(source: str | os.PathLike, output: str | os.PathLike, *,
                     parameters: Mapping[str, Any] | None = None, cwd: str | os.PathLike | None = None,
                     kernel_name: str = KERNEL_NAME, execution_timeout: float | None = None):
    """papermill.execute_notebook with pagelab's kernel and settings; returns the executed notebook."""
    import papermill

    try:
        return papermill.execute_notebook(
            str(source), str(output), parameters=dict(parameters or {}), kernel_name=kernel_name, progress_bar=False,
            cwd=None if cwd is None else str(cwd), execution_timeout=execution_timeout, config=kernel_manager_config(),
        )
    except KeyboardInterrupt:
        _quiet_interrupted_loop()
        raise


def _quiet_interrupted_loop() -> None:
    """Ctrl-C stops the event loop that papermill drives the kernel with while a cell's task is
    still in it. At exit asyncio would log that task ("Task exception was never retrieved", with
    the interrupted cell's whole traceback, ~125 lines) after pagelab's own one-line message; the
    interrupt has been reported, so the loop's leftovers are dropped."""
    import asyncio

    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:  # no loop in this thread: nothing was left behind
        return
    loop.set_exception_handler(lambda loop, context: None)
