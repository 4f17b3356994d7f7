"""Progress on long work: a live bar on a terminal, plain periodic lines anywhere else.

A tqdm bar redraws itself with carriage returns and escape codes; written to a file, a pipe, CI's
log or a notebook's output, that is pages of noise. So `progress_bar` gives tqdm's bar only when
its stream is a terminal, and otherwise a `PlainProgress` that prints one line now and then:

    sweep: 2/3 runs (67%), 4 min 10 s elapsed, 16k-r1: measure 40/60 s

Both take the same calls: update(n), set_postfix_str(text), close(), and `with`.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

# How often a plain line is printed: often enough to show a long step is alive, rarely enough
# that an hour's sweep fills a screen, not a log file.
PLAIN_EVERY_S = 30.0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def progress_bar(total: int | None = None, desc: str = "", unit: str = "it", *, disable: bool = False,
                 initial: int = 0, stream: TextIO | None = None, **bar_options: Any):
    """tqdm's bar on a terminal (`bar_options` go to it), PlainProgress elsewhere; silent if `disable`."""
    stream = stream if stream is not None else sys.stderr
    if disable:
        return PlainProgress(total, desc, unit, initial=initial, stream=None)
    if _is_terminal(stream):
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, initial=initial, file=stream, **bar_options)
    return PlainProgress(total, desc, unit, initial=initial, stream=stream)


class PlainProgress:
    """A progress report as whole lines, at most one per PLAIN_EVERY_S and one at the end."""

    def __init__(self, total: int | None, desc: str, unit: str, initial: int = 0, stream: TextIO | None = None,
                 every_s: float = PLAIN_EVERY_S):
        self.total, self.desc, self.unit, self.n = total, desc.strip(), unit.strip(), initial
        self.stream, self.every_s = stream, every_s
        self.postfix = ""
        self.started = self.last_line = time.monotonic()
        self.closed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        self._maybe_print()

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text
        self._maybe_print()

    def set_description(self, text: str = "", refresh: bool = True) -> None:
        self.desc = text.strip()

    def line(self) -> str:
        elapsed = int(time.monotonic() - self.started)
        counted = self.total if self.total else self.n
        unit = self.unit if counted == 1 or self.unit.endswith("s") else f"{self.unit}s"  # "3 runs", "1 run"
        done = f"{self.n:,}" + (f"/{self.total:,}" if self.total else "") + f" {unit}"
        if self.total:
            done += f" ({100 * self.n / self.total:.0f}%)"
        minutes, seconds = divmod(elapsed, 60)
        clock = f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
        return f"{self.desc}: {done}, {clock} elapsed" + (f", {self.postfix}" if self.postfix else "")

    def _maybe_print(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.stream is None or self.closed or (not force and now - self.last_line < self.every_s):
            return
        self.last_line = now
        print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        self._maybe_print(force=True)
        self.closed = True

    def __enter__(self) -> "PlainProgress":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
