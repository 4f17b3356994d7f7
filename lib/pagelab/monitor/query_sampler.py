"""A thread with one server connection that runs a statement at every slot of the run's grid.

The base of the InnoDB status and global status samplers. It captures whatever its subclass's
`_take_sample` writes, and stops

- when asked (`request_stop()` / `stop()`), between samples: a statement under way finishes first;
- by itself when the server dies: the next statement fails on the closed connection, the sampler
  asks the instance (if it has one) whether its server is still alive, tries one reconnect
  otherwise, and on failure records why (`status.stopped_reason`, the error log tail in
  `status.detail`) and calls `on_failure`, which the Monitor uses to stop the other samplers;
- by itself on anything unexpected (a full disk, a statement the user may not run), likewise.

It never hangs the run: the connection has connect, read and write timeouts, the thread is a
daemon, and `stop()` waits for it a bounded time. The connection is opened once, in `start()`,
which also takes the first sample (slot 0) in the caller's thread, so a server that cannot be
reached or a missing privilege fails the run before it begins, with the reason.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from pagelab.common.errors import ServerError, UsageError
from pagelab.monitor.clock import RunClock, validate_interval
from pagelab.monitor.schedule import STOPPED_BY_RUN, SamplerStatus, Schedule

CONNECT_TIMEOUT_S = 5
# SHOW ENGINE INNODB STATUS takes milliseconds even under load; a statement that has not
# answered after this long means a stuck server. (libmysqlclient may retry a timed-out read,
# so the real bound can be a few times longer; stop() allows for that.)
QUERY_TIMEOUT_S = 10
READ_RETRIES_ALLOWED = 3
# After a lost connection the server process may still be exiting (sockets close before the
# process becomes a zombie): its death is looked for this long before calling it a lost connection.
DEATH_CONFIRM_S = 1.0
DEATH_POLL_S = 0.05



def stop_join_timeout_s() -> float:
    """How long stop() waits for the thread: a stuck statement's timeout with the client's retries,
    plus one reconnect attempt and a margin. Read at call time, so tests can shorten the timeouts."""
    return CONNECT_TIMEOUT_S + READ_RETRIES_ALLOWED * QUERY_TIMEOUT_S + 5


# Instance.check_alive() updates the instance's state; two samplers must not run it at once.
_liveness_lock = threading.Lock()


def _connector_errors():
    """(any connector error, the ones that mean the connection is lost or stuck)."""
    import mysql.connector

    errors = mysql.connector.errors
    lost = [errors.OperationalError, errors.InterfaceError]
    # Timeouts have their own classes (not OperationalError) in connectors that have them.
    lost += [getattr(errors, name) for name in ("ConnectionTimeoutError", "ReadTimeoutError", "WriteTimeoutError")
             if hasattr(errors, name)]
    return mysql.connector.Error, tuple(lost)


def one_line(error: BaseException) -> str:
    """An error's message on one line (the connector's span several, indented)."""
    return " ".join(str(error).split())


class QuerySampler:
    """Base class; subclasses set `name` and implement `_open_outputs`, `_take_sample`, `_close_outputs`."""

    name = "query"

    def __init__(
        self,
        connection_spec,
        interval_s: int,
        clock: RunClock,
        *,
        server=None,
        on_failure: Callable[["QuerySampler"], None] | None = None,
    ):
        """`server`: the pagelab Instance behind `connection_spec`, if there is one, so a dead server
        is told apart from a lost connection and its error log tail is recorded."""
        self.connection_spec = connection_spec
        self.interval_s = validate_interval(interval_s)
        self.clock = clock
        self.server = server
        self.on_failure = on_failure
        self.status = SamplerStatus(self.name)
        self.schedule: Schedule | None = None
        self._stop_requested = threading.Event()
        self._thread: threading.Thread | None = None
        self._connection = None
        self._cursor = None
        self._seq = 0

    # ------------------------------------------------------------------ life cycle

    def start(self, anchor_monotonic: float | None = None) -> "QuerySampler":
        """Connect, take slot 0 now, then sample in a thread at anchor + k * interval."""
        if self._thread is not None or self.schedule is not None:
            raise UsageError(f"the {self.name} sampler was already started; make a new one per run")
        self.schedule = Schedule(time.monotonic() if anchor_monotonic is None else anchor_monotonic, self.interval_s)
        self._connect()
        any_error, _ = _connector_errors()
        try:
            self._open_outputs()
            self.status.started_epoch = time.time()
            try:
                self._take_timed(0)
            except any_error as exc:
                raise ServerError(f"the {self.name} sampler's first sample failed on "
                                  f"{self.connection_spec.describe()}: {one_line(exc)}") from exc
        except BaseException:
            self._close()
            raise
        self._thread = threading.Thread(target=self._run, name=f"pagelab-monitor-{self.name}", daemon=True)
        self._thread.start()
        return self

    def request_stop(self, reason: str | None = None) -> None:
        """Ask the thread to stop after the statement under way; returns at once. `reason` is
        recorded unless the sampler already has one of its own."""
        if reason is not None and self.status.stopped_reason is None:
            self.status.stopped_reason = reason
        self._stop_requested.set()

    def stop(self, timeout: float | None = None) -> SamplerStatus:
        """Stop and wait (at most `timeout`, by default long enough for a stuck statement to time
        out); safe to call more than once, and after a failure."""
        timeout = stop_join_timeout_s() if timeout is None else timeout
        self._stop_requested.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                note = (f"did not stop within {timeout:.0f} s (a statement is stuck); "
                        "left behind as a daemon thread that ends with the process")
                if note not in self.status.notes:
                    self.status.notes.append(note)
        if thread is None:
            self._close()  # never started its thread: nothing else will close what start() opened
        if self.status.stopped_reason is None and not self.running:
            self.status.stopped_reason = STOPPED_BY_RUN
        return self.status

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end by itself; True if it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    # ------------------------------------------------------------------ the loop

    def _run(self) -> None:
        slot = 0
        try:
            while not self._stop_requested.is_set():
                following = self.schedule.next_slot(slot)
                self.status.skipped_slots += following - slot - 1
                slot = following
                if self.schedule.wait_for(slot, self._stop_requested):
                    break
                # A thread kept off the CPU past its slot (a busy machine) wakes too late for it: the
                # slot is skipped and counted like one missed by a slow statement, so every sample
                # taken is less than LATE_SLOT_FRACTION of an interval from its grid instant.
                at = time.monotonic()
                if self.schedule.missed(slot, at):
                    self.status.skipped_slots += 1
                    continue
                if not self._sample_or_recover(slot, at):
                    break
        except BaseException as exc:  # a bug or a full disk: recorded, never raised out of a thread
            self._fail(f"the {self.name} sampler failed: {type(exc).__name__}: {exc}")
        finally:
            self._close()
            self.status.cpu_s = round(time.thread_time(), 4)  # this thread's CPU: what sampling cost here
            self.status.stopped_epoch = time.time()
            if self.status.stopped_reason is None:
                self.status.stopped_reason = STOPPED_BY_RUN

    def _take_timed(self, slot: int, at: float | None = None) -> None:
        # Sequence numbers count samples actually taken: a failed one does not use one up.
        self._take_sample(self._cursor, self._seq + 1, slot, time.monotonic() if at is None else at)
        self._seq += 1
        self.status.samples += 1

    def _sample_or_recover(self, slot: int, at: float | None = None) -> bool:
        """Take one sample (begun at `at`); False when the sampler has to stop (the reason is recorded)."""
        any_error, connection_errors = _connector_errors()
        try:
            self._take_timed(slot, at)
            return True
        except any_error as exc:
            self.status.errors += 1
            if self._stop_requested.is_set():
                return False  # the run is stopping; an error now says nothing
            death = self._server_death()
            if death:
                self._fail(*death)
                return False
            if not isinstance(exc, connection_errors):
                self._fail(f"the {self.name} sampler's statement failed: {one_line(exc)}")
                return False
            try:
                self._reconnect()
            except any_error as again:
                death = self._server_death(wait_s=DEATH_CONFIRM_S)
                self._fail(*(death or (f"lost the connection to {self.connection_spec.describe()} "
                                       f"({one_line(exc)}) and could not reconnect ({one_line(again)})",)))
                return False
            self.status.notes.append(f"slot {slot}: {one_line(exc)}; reconnected")
            return True

    def _fail(self, reason: str, detail: str | None = None) -> None:
        if self.status.stopped_reason is None:
            self.status.stopped_reason = reason
            self.status.detail = detail
            self.status.failed = True
        self._stop_requested.set()
        if self.on_failure is not None:
            try:
                self.on_failure(self)
            except Exception as exc:  # the callback must not turn a recorded failure into a crash
                self.status.notes.append(f"on_failure callback raised {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ the server

    def _connect(self) -> None:
        any_error, _ = _connector_errors()
        try:
            self._connection = self.connection_spec.connect(
                connection_timeout=CONNECT_TIMEOUT_S,
                read_timeout=QUERY_TIMEOUT_S,
                write_timeout=QUERY_TIMEOUT_S,
                autocommit=True,
            )
        except any_error as exc:
            raise ServerError(f"the {self.name} sampler cannot connect to {self.connection_spec.describe()}: "
                              f"{one_line(exc)}") from exc
        self._cursor = self._connection.cursor()

    def _reconnect(self) -> None:
        self._close_connection()
        self._connection = self.connection_spec.connect(
            connection_timeout=CONNECT_TIMEOUT_S, read_timeout=QUERY_TIMEOUT_S,
            write_timeout=QUERY_TIMEOUT_S, autocommit=True,
        )  # fmt: skip
        self._cursor = self._connection.cursor()

    def _server_death(self, wait_s: float = 0.0) -> tuple[str, str] | None:
        """(reason, detail) if this sampler's instance has died, else None (or no instance)."""
        if self.server is None:
            return None
        deadline = time.monotonic() + wait_s
        while True:
            with _liveness_lock:
                try:
                    self.server.check_alive()
                except ServerError as exc:
                    message = str(exc)
                    return message.splitlines()[0].rstrip("."), message
                except Exception:
                    return None
            if time.monotonic() >= deadline:
                return None
            time.sleep(DEATH_POLL_S)

    def _close_connection(self) -> None:
        connection, self._connection, self._cursor = self._connection, None, None
        if connection is not None:
            try:
                connection.close()
            except Exception:
                pass  # a dead server's connection cannot be closed politely; it is gone anyway

    def _close(self) -> None:
        self._close_connection()
        try:
            self._close_outputs()
        except OSError as exc:
            self.status.notes.append(f"closing the output failed: {exc}")

    # ------------------------------------------------------------------ for subclasses

    def _open_outputs(self) -> None:
        raise NotImplementedError

    def _take_sample(self, cursor, seq: int, slot: int, at: float) -> None:
        raise NotImplementedError

    def _close_outputs(self) -> None:
        raise NotImplementedError

    def _time_columns(self, seq: int, slot: int, at: float) -> dict[str, Any]:
        """The columns every sample row starts with. `at` is when the statement was sent; call
        this when its answer has been read, so query_ms is how long the server took."""
        t_s = self.clock.t_s(at)
        return {
            "t_s": None if t_s is None else round(t_s, 3),
            "seq": seq,
            "slot": slot,
            "epoch": round(self.clock.epoch_at(at), 3),
            "clock_s": round(self.clock.clock_s(at), 3),
            "query_ms": round((time.monotonic() - at) * 1000, 3),
        }


TIME_COLUMNS = ("t_s", "seq", "slot", "epoch", "clock_s", "query_ms")
