"""Executing a notebook with papermill: the one way pagelab (and its tests and benches) runs one.

Everything goes to the project's kernel unless told otherwise, without papermill's progress bar
(pagelab draws its own), and with the kernel's sockets encrypted where pyzmq can: ipykernel 7.3
and later print "Kernel is running over TCP without encryption" on every start otherwise, four
warnings in a quick sweep that are no use to anyone reading its output. The kernel runs on this
machine and listens on 127.0.0.1, so the encryption changes nothing else.

The kernel's own stderr goes to a log beside the executed notebook (`run.ipynb` ->
`run.kernel.log`), removed when the kernel wrote nothing there but the line its shutdown causes:
jupyter_client interrupts a kernel before it asks it to shut down (`shutdown_kernel`, 8.x), and
when that SIGINT lands inside a message handler ipykernel logs "KeyboardInterrupt caught in
kernel." and carries on. The line says nothing about the notebook, and keeping it would make a
bundle's files depend on a race (seen now and then in sweeps on a loaded machine, and in CI).
What a cell prints reaches the notebook either way; the kernel's stderr carries only the kernel's
own messages, and those come at the worst moment: a Ctrl-C ends the kernel mid-reply and it
prints a ~20-line ZMQError traceback into the terminal, above pagelab's one line saying what was
kept. A kernel that dies of a signal or a crash in C leaves its last words in the log instead,
where they stay.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
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
                     kernel_name: str = KERNEL_NAME, execution_timeout: float | None = None,
                     between_cells: Callable[..., None] | None = None):
    """papermill.execute_notebook with pagelab's kernel and settings; returns the executed notebook.
    `between_cells` is called before each cell (nbclient's on_cell_start hook, given the cell and
    its index as keywords); what it raises stops the notebook there, as an interrupt would."""
    import papermill

    kernel_log = kernel_log_path(output)
    hooks = {"on_cell_start": between_cells} if between_cells is not None else {}
    completed = False  # every cell ran: what the kernel says while it shuts down is then about no cell
    try:
        executed = papermill.execute_notebook(
            str(source), str(output), parameters=dict(parameters or {}), kernel_name=kernel_name, progress_bar=False,
            cwd=None if cwd is None else str(cwd), execution_timeout=execution_timeout, config=kernel_manager_config(),
            kernel_manager_class=_kernel_manager_logging_to(kernel_log), **hooks,
        )
        completed = True
        return executed
    except KeyboardInterrupt:
        _quiet_interrupted_loop()
        raise
    except Exception as error:
        # papermill saves the notebook on its way out of an interrupt; on a disk that has failed the
        # save raises instead, and the interrupt is only that error's context
        if _interrupted(error):
            _quiet_interrupted_loop()
        raise
    finally:
        try:
            remove_if_only_shutdown_noise(kernel_log, completed)
        except OSError:  # a read-only or failing disk: whatever stopped the notebook is what gets said
            pass


# What ipykernel's dispatch_shell logs when the interrupt that precedes every shutdown lands in a handler.
SHUTDOWN_INTERRUPT_LINE = "[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel."
# What libzmq prints when it aborts closing its context and poll() reports the socket hung up rather
# than readable (a known assertion of zmq's signaler, libzmq issue 1307); seen in CI once, in a kernel
# whose notebook had finished: only then is it shutdown noise, as the notebook's work was all done.
ZMQ_SHUTDOWN_ASSERTION = "Assertion failed: pfd.revents & POLLIN (src/signaler.cpp:"


def remove_if_only_shutdown_noise(kernel_log: Path, completed: bool = False) -> None:
    """Delete the kernel's log when it holds nothing, or nothing but the shutdown's interrupt line (and,
    for a notebook whose every cell ran, `completed`, libzmq's assertion as its context closes)."""
    if not kernel_log.exists():
        return
    lines = [line.strip() for line in kernel_log.read_text(errors="replace").splitlines() if line.strip()]
    if all(line == SHUTDOWN_INTERRUPT_LINE or (completed and line.startswith(ZMQ_SHUTDOWN_ASSERTION))
           for line in lines):
        kernel_log.unlink()


def kernel_log_path(output: str | os.PathLike) -> Path:
    """Where the kernel that executes into `output` writes its stderr."""
    output = Path(output)
    return output.with_name(f"{output.stem}.kernel.log")


def _kernel_manager_logging_to(log_path: Path):
    """jupyter_client's kernel manager, with the kernel's stderr in `log_path` (start_kernel's
    keyword arguments are documented to reach the kernel's Popen)."""
    from jupyter_client.manager import AsyncKernelManager

    class KernelManagerWithLog(AsyncKernelManager):
        async def start_kernel(self, **kw):
            with open(log_path, "wb") as log:  # Popen holds its own copy of the descriptor
                return await super().start_kernel(stderr=log, **kw)

    return KernelManagerWithLog


def _interrupted(error: BaseException) -> bool:
    """Whether `error` was raised while an interrupt (Ctrl-C, or the sweep's read-only watch) was
    being handled: a KeyboardInterrupt in its chain of contexts."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


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
