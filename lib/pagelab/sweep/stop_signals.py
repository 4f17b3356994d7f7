"""Ctrl-C, SIGTERM and SIGHUP stop a local sweep: the handler that turns each of them into a
KeyboardInterrupt, and the record that makes sure the stop is never lost on its way.

    with stop_signals_interrupt() as stop:
        execute_notebook(..., between_cells=stop.raise_if_received)
        stop.raise_if_received()       # a stop whose KeyboardInterrupt something swallowed

Why SIGINT gets a handler of ours too, rather than Python's own:
- a sweep started in the background by a script (`pagelab sweep ... &` from a shell without job
  control: cron, a CI step, `nohup ... &`) inherits SIGINT ignored, and Python leaves an ignored
  SIGINT ignored: `kill -INT`, and the script's own Ctrl-C, reached nothing, and the sweep went on
  to its last run and report (every one of five trials of a tiny sweep started that way);
- a handler runs wherever the main thread happens to be when the signal comes, and the
  KeyboardInterrupt it raises there can be caught on its way by code that is not ours: the
  notebook then runs on as if nothing had come. Seen once, in a loaded full suite: a tiny sweep
  sent SIGINT during a run's init (Python's own handler in place) printed nothing of it and
  finished all its runs and its report; where it was caught is not known (a SIGINT at random
  moments of a first run's start, init and load stopped each of fourteen tiny sweeps started as
  a terminal starts them). So the handler also records
  the signal, and the sweep raises it again before the notebook's next cell and when papermill
  returns: a stop that was swallowed costs at most the cell under way.

SIGHUP is handled whatever the sweep inherited (`nohup` too): a sweep that must outlive its
terminal is started in a session of its own (`setsid`, see runbooks/troubleshooting.md).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

# Signals that stop a sweep the way Ctrl-C does, whether inherited ignored or not.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopRequest:
    """Which stop signal came, if one did, since the sweep installed its handlers."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def handle(self, signum, frame) -> None:
        self.signum = signum
        raise KeyboardInterrupt(f"signal {signum}")

    def raise_if_received(self, **_hook_arguments) -> None:
        """KeyboardInterrupt if a stop signal came: raised again where the sweep can be stopped
        cleanly, in case the first one was swallowed before it reached the sweep (also papermill's
        hook between cells, which passes the cell)."""
        if self.signum is not None:
            raise KeyboardInterrupt(f"signal {self.signum}, raised again")


_active: StopRequest | None = None


@contextmanager
def stop_signals_interrupt() -> Iterator[StopRequest]:
    """SIGINT, SIGTERM and SIGHUP stop the block as Ctrl-C does (a KeyboardInterrupt), and are
    recorded in the StopRequest it yields. SIGHUP is what a closed terminal sends: without a
    handler it would end the sweep at once, with no run marked and no server stopped. Nested
    blocks share the outer block's handlers and record."""
    global _active
    if _active is not None:
        yield _active
        return
    stop = StopRequest()
    previous = {signum: signal.signal(signum, stop.handle) for signum in STOP_SIGNALS}
    _active = stop
    try:
        yield stop
    finally:
        _active = None
        for signum, handler in previous.items():
            signal.signal(signum, handler)
