"""`iostat -dxyt -o JSON <interval>` for the disk under the datadir, its output kept verbatim.

Captures, in the run bundle:

    iostat.json        sysstat's JSON exactly as iostat printed it (closed properly when iostat
                       is stopped with SIGINT; cut off after the last sample if it was killed)
    iostat_times.csv   sample, t_s, epoch, clock_s: when each report arrived on the run's clock

The arrival time is the sample's time because sysstat's own timestamps have one-second resolution
and the machine's time zone, and cannot be put on the run's monotonic clock. Each report covers
the interval that ends when it arrives. `-y` drops the since-boot report, so sample 0 arrives one
interval after the start. iostat is started at the monitor's anchor but keeps its own timer, which
it sets again after each report (sysstat's alarm(interval)): a report iostat is slow to make on a
busy machine puts every later one that much later too, so iostat's reports end near, not on, the
grid's instants where the InnoDB status and the counters are sampled. Stamping them with their
arrival keeps each on the right t_s; what holds is that a report ends within one interval of every
database sample (tests/monitor/test_monitor_server.py measured 0.02 s apart on an idle machine and
0.2 s beside two busy loops on 2 cores).

Stops when asked: SIGINT first (iostat then closes its JSON and exits at once), SIGTERM if it is
still there after a grace period, SIGKILL after another; the reader thread ends at end of output.
It also stops by itself if iostat exits on its own, and then says so. iostat runs in its own
session (a Ctrl-C at the terminal reaches pagelab, which stops it) and on Linux is sent SIGINT if
the thread that started it dies without cleanup.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, UsageError
from pagelab.common.processes import die_with_parent
from pagelab.monitor.clock import RunClock, validate_interval
from pagelab.monitor.schedule import STOPPED_BY_RUN, SamplerStatus
from pagelab.monitor.sidecar import SidecarWriter, rounded_time

IOSTAT_FILE = "iostat.json"
TIMES_FILE = "iostat_times.csv"
TIMES_COLUMNS = ("sample", "t_s", "epoch", "clock_s")
# sysstat 11.5 added -o JSON.
MIN_SYSSTAT_VERSION = (11, 5)
SIGNAL_GRACE_S = 2.0
READER_JOIN_TIMEOUT_S = 5.0
STDERR_LIMIT_BYTES = 4000
# Every report in the JSON opens a "disk" array; the parser counts samples the same way.
_SAMPLE_START = re.compile(rb'"disk"\s*:\s*\[')
SYS_BLOCK = Path("/sys/class/block")


def find_iostat() -> Path:
    """The iostat binary, checked to be new enough for JSON output; MissingDependencyError if not."""
    from pagelab.machine.system import find_program, iostat_version, parse_version

    binary = find_program("iostat")
    if binary is None:
        raise MissingDependencyError("iostat is not installed; install sysstat (apt-get install sysstat)")
    version = parse_version(iostat_version(binary))
    if version is not None and version[:2] < MIN_SYSSTAT_VERSION:
        raise MissingDependencyError(
            f"iostat from sysstat {'.'.join(map(str, version))} has no JSON output (-o JSON, sysstat 11.5+); "
            "install a newer sysstat"
        )
    return binary


def check_devices(devices: Sequence[str]) -> tuple[str, ...]:
    """Block device names as given, or UsageError naming one this machine does not have."""
    names = tuple(devices)
    for name in names:
        if not name or "/" in name or not (SYS_BLOCK / name).exists():
            raise UsageError(f"{name!r} is not a block device on this machine; give a kernel name such as "
                             "vda, sda or nvme0n1 (see lsblk), or leave the device out to find it from the datadir")
    return names


def disks_for_datadir(datadir: str | os.PathLike) -> tuple[tuple[str, ...], str | None]:
    """(disks under the datadir, note). No disks, with a note saying why, when there is no local
    disk to watch (tmpfs, overlay, a network filesystem): iostat then reports every device."""
    from pagelab.machine.devices import block_device_for

    info = block_device_for(datadir)
    if info.disks:
        return info.disks, info.note
    reason = info.note or "no block device found"
    return (), f"cannot tell which disk holds {datadir} ({reason}); iostat reports every device"


def _process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a running process, from /proc (None where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        # After the ")" ending the command name: state is field 3, utime and stime fields 14 and 15.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _interrupt_with_parent() -> None:  # runs in the child between fork and exec
    # SIGINT, not SIGKILL: iostat then still closes its JSON. PDEATHSIG follows the *thread* that
    # forked, which is why start() is meant to be called from the run's main thread.
    die_with_parent(signal.SIGINT)


class IostatSampler:
    """iostat as a subprocess plus a thread that copies its output and times each report."""

    name = "iostat"

    def __init__(
        self,
        device: str | Sequence[str] | None,
        interval_s: int,
        out_path: str | os.PathLike,
        clock: RunClock,
        *,
        iostat_binary: str | os.PathLike | None = None,
        on_failure: Callable[["IostatSampler"], None] | None = None,
    ):
        """`device`: a disk's kernel name (or several); None reports every device."""
        if device is None:
            self.devices: tuple[str, ...] = ()
        else:
            self.devices = check_devices([device] if isinstance(device, str) else device)
        self.interval_s = validate_interval(interval_s)
        self.out_path = Path(out_path)
        self.times_path = self.out_path.with_name(TIMES_FILE)
        self.clock = clock
        self.iostat_binary = iostat_binary
        self.on_failure = on_failure
        self.status = SamplerStatus(self.name)
        self.returncode: int | None = None
        self._process: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self._stop_requested = threading.Event()
        self._stop_lock = threading.Lock()
        self._reader_cpu_s = 0.0
        self._process_cpu_s: float | None = None

    def command(self, binary: str | os.PathLike = "iostat") -> list[str]:
        # -d devices only, -x extended columns, -y no since-boot report, -t a timestamp per report.
        return [os.fspath(binary), "-dxyt", "-o", "JSON", *self.devices, str(self.interval_s)]

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def running(self) -> bool:
        return self._reader is not None and self._reader.is_alive()

    def start(self) -> "IostatSampler":
        if self._process is not None:
            raise UsageError("the iostat sampler was already started; make a new one per run")
        binary = self.iostat_binary or find_iostat()
        self.out_path.parent.mkdir(parents=True, exist_ok=True)
        raw = open(self.out_path, "wb")
        try:
            times = SidecarWriter(self.times_path, TIMES_COLUMNS)
        except BaseException:
            raw.close()
            raise
        # C numbers (JSON needs a decimal point, not a locale's comma); ISO timestamps with the zone.
        environment = {**os.environ, "LC_ALL": "C", "S_TIME_FORMAT": "ISO"}
        try:
            self._process = subprocess.Popen(
                self.command(binary), stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                env=environment, start_new_session=True, preexec_fn=_interrupt_with_parent,
            )  # fmt: skip
        except OSError as exc:
            raw.close()
            times.close()
            raise MissingDependencyError(f"cannot run {binary}: {exc}") from exc
        self.status.started_epoch = time.time()
        self._reader = threading.Thread(target=self._copy_output, args=(raw, times),
                                        name="pagelab-monitor-iostat", daemon=True)  # fmt: skip
        self._reader.start()
        return self

    def _copy_output(self, raw, times: SidecarWriter) -> None:
        try:
            with raw:
                for line in self._process.stdout:
                    if _SAMPLE_START.search(line):
                        at = time.monotonic()
                        times.write({
                            "sample": self.status.samples,
                            "t_s": rounded_time(self.clock.t_s(at)),
                            "epoch": round(self.clock.epoch_at(at), 3),
                            "clock_s": rounded_time(self.clock.clock_s(at)),
                        })  # fmt: skip
                        self.status.samples += 1
                    raw.write(line)
                    raw.flush()  # iostat writes a report at once; a crash keeps every report so far
        except Exception as exc:  # a full disk: record it, and end iostat, which nobody reads now
            self._record_failure(f"copying iostat's output to {self.out_path} failed: {type(exc).__name__}: {exc}")
            self.request_stop()
        finally:
            times.close()
            self._reader_cpu_s = time.thread_time()
        process = self._process
        try:
            self.returncode = process.wait(timeout=SIGNAL_GRACE_S)
        except subprocess.TimeoutExpired:
            self.returncode = None  # stdout closed but still running: stop() deals with it
        stderr = b""
        try:
            stderr = process.stderr.read(STDERR_LIMIT_BYTES) if self.returncode is not None else b""
        except (OSError, ValueError):
            pass
        if not self._stop_requested.is_set():
            said = stderr.decode(errors="replace").strip()
            self._record_failure(f"iostat exited by itself (exit {self.returncode})" + (f": {said}" if said else ""))
        self.status.stopped_epoch = time.time()

    def _record_failure(self, reason: str) -> None:
        if self.status.stopped_reason is None:
            self.status.stopped_reason = reason
            self.status.failed = True
        if self.on_failure is not None:
            try:
                self.on_failure(self)
            except Exception as exc:
                self.status.notes.append(f"on_failure callback raised {type(exc).__name__}: {exc}")

    def request_stop(self, reason: str | None = None) -> None:
        """Stop iostat (SIGINT); returns at once. stop() escalates if it does not exit."""
        if reason is not None and self.status.stopped_reason is None:
            self.status.stopped_reason = reason
        self._stop_requested.set()
        self._signal(signal.SIGINT)

    def _signal(self, signum: int) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            try:
                process.send_signal(signum)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = SIGNAL_GRACE_S, reason: str | None = None) -> SamplerStatus:
        """SIGINT, then SIGTERM and SIGKILL each after `timeout`; wait for the reader. Idempotent.
        `reason` is recorded unless the sampler already has one."""
        with self._stop_lock:
            if reason is not None and self.status.stopped_reason is None:
                self.status.stopped_reason = reason
            self._stop_requested.set()
            process = self._process
            if process is not None:
                self._process_cpu_s = _process_cpu_s(process.pid)  # /proc forgets it once reaped
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
                    if process.poll() is not None:
                        break
                    self._signal(signum)
                    try:
                        process.wait(timeout=timeout)
                    except subprocess.TimeoutExpired:
                        self.status.notes.append(f"iostat did not exit within {timeout:.0f} s of {signal.Signals(signum).name}")
                if process.poll() is None:
                    process.wait(timeout=timeout)  # after SIGKILL this returns at once
                self.returncode = process.returncode
            if self._reader is not None and self._reader is not threading.current_thread():
                self._reader.join(READER_JOIN_TIMEOUT_S)
                if self._reader.is_alive():
                    self.status.notes.append(f"the iostat reader did not finish within {READER_JOIN_TIMEOUT_S:.0f} s")
            if process is not None:
                for stream in (process.stdout, process.stderr):
                    try:
                        stream.close()
                    except Exception:
                        pass
            if self.status.stopped_reason is None:
                self.status.stopped_reason = STOPPED_BY_RUN
            self.status.cpu_s = round(self._reader_cpu_s + (self._process_cpu_s or 0.0), 4)
            if self.status.stopped_epoch is None:
                self.status.stopped_epoch = time.time()
            return self.status
