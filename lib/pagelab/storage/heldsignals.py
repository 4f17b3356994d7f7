"""Signals held during a commit: Ctrl-C (or SIGTERM) that arrives while a durable commit runs takes
effect once the commit has finished.

Once a commit's records are in the journal file, recovery after a crash replays them, so the
commit must finish in memory too: rolled back instead, the next commit would reuse its
transaction id, and recovery, which stops at an id that does not go up, would drop every commit
after it (Database._commit, database.py). A rollback holds them as well, so a second Ctrl-C does
not leave the pool half restored. `signals_held` defers the handlers, not the signals: each one
received is handed to the handler it was meant for when the block ends.
"""

from __future__ import annotations

import _signal  # signal's C functions: see _HELD_SIGNALS
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Held during a durable commit (see Database._commit). Through `_signal`, the C module behind `signal`: the
# public signal.signal/getsignal turn every handler into an enum member and back, ~12 µs a call
# here against 0.6, which doubled the time of a small commit with synchronous=False.
_HELD_SIGNALS = (signal.SIGINT.value, signal.SIGTERM.value)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, and SIGTERM when Python handles it, until the block ends; then hand each one
    received to the handler it was meant for (for SIGINT, usually: raise KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # Python runs signal handlers in the main thread only: nothing to hold here
        return
    received: list[tuple[int, Any]] = []
    handlers = {}
    for signum in _HELD_SIGNALS:
        handler = _signal.getsignal(signum)
        if callable(handler):
            handlers[signum] = handler
            _signal.signal(signum, lambda number, frame: received.append((number, frame)))
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            _signal.signal(signum, handler)
        for signum, frame in received:
            handlers[signum](signum, frame)
