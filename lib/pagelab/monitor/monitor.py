"""All samplers of one run on one clock: iostat, InnoDB status and global status, then tidy tables.

    with Monitor(instance, run_dir, interval_s=10) as monitor:
        ...ramp-up...
        monitor.mark_measurement_start()        # or at=<the driver's monotonic instant>
        ...measurement...
    # run_dir now holds iostat.json, innodb/, global_status.csv (raw), iostat.csv, innodb.csv,
    # hit_ratio.csv (tidy) and monitor_status.json (how each sampler ran and why it stopped)

`start()` (or entering the `with`) checks everything it can before any side effect (interval,
device, iostat, a capture already in run_dir), connects both database samplers and takes their
first sample, so an unreachable server or a missing privilege fails before the run begins. The
database samplers tick on one grid, `anchor + k * interval`, and iostat, started at the anchor,
reports every interval by its own timer (iostat.py), so rows of the three streams line up: slot k
of the InnoDB status and of the counters within half an interval of each other, an iostat report
within one interval of each sample.

It stops on `stop()` (leaving the `with`, whatever happened inside), or by itself when the server
dies: the first database sampler to notice records why and the monitor stops the others at once;
`failure` then says why and `wait_until_stopped()` returns. Either way `stop()` must still be
called (the `with` does it): it joins everything with time limits, writes the tidy tables from
the raw files and the final monitor_status.json. Nothing here waits without a time limit.
"""

from __future__ import annotations

import ipaddress
import os
import threading
import time
from pathlib import Path
from typing import Any

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import ServerError, UsageError
from pagelab.mysql.client import ConnectionSpec
from pagelab.monitor.clock import DEFAULT_INTERVAL_S, RunClock, validate_interval
from pagelab.monitor.global_status import GLOBAL_STATUS_FILE, GlobalStatusSampler
from pagelab.monitor.innodb import InnodbStatusSampler
from pagelab.monitor.iostat import IOSTAT_FILE, IostatSampler, check_devices, disks_for_datadir, find_iostat
from pagelab.monitor.query_sampler import CONNECT_TIMEOUT_S, QUERY_TIMEOUT_S
from pagelab.monitor.sidecar import fill_t_s
from pagelab.monitor.tables import write_tidy_tables

STATUS_FILE = "monitor_status.json"


def _is_local(spec: ConnectionSpec) -> bool:
    if spec.socket:
        return True
    if spec.host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(spec.host).is_loopback
    except ValueError:
        return False


class Monitor:
    """Starts and stops the three samplers together; see the module docstring."""

    def __init__(
        self,
        target,
        out_dir: str | os.PathLike,
        interval_s: int = DEFAULT_INTERVAL_S,
        device: str | list[str] | tuple[str, ...] | None = None,
        *,
        clock: RunClock | None = None,
    ):
        """`target`: a pagelab `Instance` (its death is then told apart from a lost connection, and
        its datadir gives the disk) or a `ConnectionSpec` (the disk comes from @@datadir when the
        server is on this machine). `device`: the disk's kernel name, to override the automatic one.
        `clock`: share a RunClock with other parts of the run; a new one otherwise."""
        self.interval_s = validate_interval(interval_s)
        if isinstance(target, ConnectionSpec):
            self.server, self._spec = None, target
        elif hasattr(target, "paths") and hasattr(target, "check_alive"):
            self.server, self._spec = target, None
        else:
            raise UsageError(f"Monitor needs a pagelab Instance or a ConnectionSpec, got {type(target).__name__}")
        self.out_dir = Path(out_dir)
        self.requested_devices = None if device is None else check_devices([device] if isinstance(device, str) else device)
        self.clock = clock or RunClock()
        self.devices: tuple[str, ...] = ()
        self.device_note: str | None = None
        self.anchor_monotonic: float | None = None
        self.failure: str | None = None
        self.tables: dict[str, Any] = {}
        self.warnings: list[str] = []
        self.iostat: IostatSampler | None = None
        self.innodb: InnodbStatusSampler | None = None
        self.global_status: GlobalStatusSampler | None = None
        self._failure_lock = threading.Lock()
        self._stop_lock = threading.Lock()
        self._stopped = False

    # ------------------------------------------------------------------ start

    @property
    def connection_spec(self) -> ConnectionSpec:
        return self._spec if self._spec is not None else ConnectionSpec.for_instance(self.server)

    def start(self) -> "Monitor":
        if self.anchor_monotonic is not None:
            raise UsageError("this Monitor was already started; make a new one per run")
        if (self.out_dir / STATUS_FILE).exists():
            raise UsageError(f"{self.out_dir} already holds a monitor capture ({STATUS_FILE}); give each run its own directory")
        iostat_binary = find_iostat()
        spec = self.connection_spec
        self.devices, self.device_note = self._choose_devices(spec)
        if not self.devices:
            self.warnings.append(self.device_note)
        self.out_dir.mkdir(parents=True, exist_ok=True)

        self.anchor_monotonic = time.monotonic()
        self.iostat = IostatSampler(self.devices or None, self.interval_s, self.out_dir / IOSTAT_FILE, self.clock,
                                    iostat_binary=iostat_binary)  # fmt: skip
        options = dict(server=self.server, on_failure=self._sampler_failed)
        self.innodb = InnodbStatusSampler(spec, self.interval_s, self.out_dir, self.clock, **options)
        self.global_status = GlobalStatusSampler(spec, self.interval_s, self.out_dir / GLOBAL_STATUS_FILE,
                                                 self.clock, **options)  # fmt: skip
        try:
            self.iostat.start()
            self.innodb.start(self.anchor_monotonic)
            self.global_status.start(self.anchor_monotonic)
        except BaseException:
            for sampler in (self.innodb, self.global_status, self.iostat):
                sampler.stop()
            self._stopped = True  # a failed start leaves no status file: the directory can be reused
            raise
        self._write_status("running")
        return self

    def _choose_devices(self, spec: ConnectionSpec) -> tuple[tuple[str, ...], str | None]:
        if self.requested_devices is not None:
            return self.requested_devices, None
        if self.server is not None:
            return disks_for_datadir(self.server.paths.datadir)
        if not _is_local(spec):
            return (), f"the server {spec.describe()} is not on this machine: iostat reports every local device"
        datadir = self._ask_datadir(spec)
        if datadir is None:
            return (), f"could not ask {spec.describe()} for its datadir: iostat reports every device"
        return disks_for_datadir(datadir)

    @staticmethod
    def _ask_datadir(spec: ConnectionSpec) -> str | None:
        import mysql.connector

        try:
            connection = spec.connect(connection_timeout=CONNECT_TIMEOUT_S, read_timeout=QUERY_TIMEOUT_S)
        except mysql.connector.Error as exc:
            raise ServerError(f"the monitor cannot connect to {spec.describe()}: {exc}") from exc
        try:
            cursor = connection.cursor()
            cursor.execute("SELECT @@datadir")
            row = cursor.fetchone()
            return str(row[0]) if row and row[0] else None
        except mysql.connector.Error:
            return None
        finally:
            connection.close()

    # ------------------------------------------------------------------ during the run

    def mark_measurement_start(self, at: float | None = None) -> float:
        """Measurement starts now (or at the time.monotonic() instant `at`); t_s counts from it."""
        instant = self.clock.mark_measurement_start(at)
        if self.anchor_monotonic is not None and not self._stopped:
            self._write_status("running")  # so a crashed run still says when measurement began
        return instant

    def _samplers(self) -> list:
        return [s for s in (self.iostat, self.innodb, self.global_status) if s is not None]

    @property
    def running(self) -> bool:
        """True while any sampler is still sampling."""
        return any(sampler.running for sampler in self._samplers())

    def wait_until_stopped(self, timeout: float | None = None) -> bool:
        """Block until every sampler has stopped (by itself or by stop()); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.running:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    def _sampler_failed(self, sampler) -> None:
        """A database sampler stopped by itself (the server died, or the connection is lost for
        good): stop the rest now, so iostat does not go on measuring a run that has ended."""
        with self._failure_lock:
            if self.failure is not None:
                return
            self.failure = f"{sampler.name}: {sampler.status.stopped_reason}"
        because = f"stopped with the others: {self.failure}"
        for other in (self.innodb, self.global_status):
            if other is not None and other is not sampler:
                other.request_stop(because)
        if self.iostat is not None:
            self.iostat.stop(reason=because)  # bounded: SIGINT, then SIGTERM and SIGKILL after short waits

    # ------------------------------------------------------------------ stop

    def stop(self) -> dict:
        """Stop every sampler, write the tidy tables and monitor_status.json; returns that status.

        Idempotent; never raises for what it finds (a dead server, damaged files): it records it."""
        with self._stop_lock:
            if self._stopped:
                return self.status()
            self._stopped = True
            if self.anchor_monotonic is None:
                return self.status()  # never started: nothing to stop, nothing written
            for sampler in (self.innodb, self.global_status):
                sampler.request_stop()
            for sampler in self._samplers():
                sampler.stop()
            if not self.clock.measurement_start_marked:
                self.clock.mark_measurement_start(self.anchor_monotonic)
                self.warnings.append("the measurement start was never marked: t_s counts from the start of monitoring")
            try:
                for sidecar in (self.innodb.index_path, self.global_status.out_path, self.iostat.times_path):
                    fill_t_s(sidecar, self.clock)
                self.tables = write_tidy_tables(self.out_dir)
            except Exception as exc:  # a full disk must not lose the status file too
                self.warnings.append(f"writing the tidy tables failed: {type(exc).__name__}: {exc}")
            status = self._write_status("stopped")
            return status

    def status(self, state: str | None = None) -> dict:
        """What monitor_status.json holds: how each sampler ran, and why the capture ended."""
        samplers = {s.name: s.status.to_dict() for s in self._samplers()}
        if state is None:
            state = "stopped" if self._stopped else ("running" if self.anchor_monotonic is not None else "not started")
        if self.failure is not None:
            reason = self.failure
        elif state == "stopped":
            reason = "stopped by the run"
        else:
            reason = None
        return {
            "state": state,
            "stopped_reason": reason,
            "failed": self.failure is not None,
            "interval_s": self.interval_s,
            "server": self.connection_spec.describe() if self._spec or self.server else None,
            "devices": list(self.devices) or None,
            "device_note": self.device_note,
            "clock": self.clock.to_dict(),
            "anchor_clock_s": None if self.anchor_monotonic is None else round(self.clock.clock_s(self.anchor_monotonic), 6),
            "samplers": samplers,
            "tables": self.tables,
            "warnings": list(self.warnings),
        }

    def _write_status(self, state: str) -> dict:
        status = self.status(state)
        path = self.out_dir / STATUS_FILE
        try:
            atomic_write_json(path, status)
        except OSError as exc:
            self.warnings.append(f"writing {STATUS_FILE} failed: {exc}")
        return status

    @property
    def iostat_pid(self) -> int | None:
        return None if self.iostat is None else self.iostat.pid

    def __enter__(self) -> "Monitor":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else ("running" if self.anchor_monotonic is not None else "not started")
        return f"Monitor({str(self.out_dir)!r}, interval_s={self.interval_s}, {state})"
