"""`pagelab doctor`: can this machine run the experiments, and if not, what to install.

Each check is one line of the report: what was found, and the fix when something is wrong.
Required checks are the ones a sweep cannot do without (the server, iostat, a real disk with
O_DIRECT under the data dir); the others warn (fio, free space, memory). The whole run takes well
under two seconds: it reads /sys and /proc and asks programs for their versions, nothing more.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagelab.machine import devices, system
from pagelab.common.errors import MissingDependencyError
from pagelab.mysql.flavour import SERVER_NAMES, ServerFlavour, detect_server
from pagelab.common.units import GIB

# The Debian/Ubuntu package that provides each program, for the install hint.
SERVER_PACKAGE = "mariadb-server"
IOSTAT_PACKAGE = "sysstat"
FIO_PACKAGE = "fio"

# iostat gained `-o JSON` in sysstat 11.5.1 (CHANGES, 2016-09-23); the monitor needs it.
IOSTAT_JSON_MIN = (11, 5, 1)
# Older sysstat prints invalid JSON with -y (fixed in 12.0.5) and a wrong unit in JSON (fixed in
# 12.2.1); the monitor runs `iostat -dxyt -o JSON`, so older versions get a warning.
IOSTAT_JSON_RECOMMENDED = (12, 2, 1)

# innodb_page_size 32k and 64k arrived in MariaDB 10.1.0 (MDEV-6075) and MySQL 5.7.6 (WL#5757).
LARGE_PAGES_MIN = {"mariadb": (10, 1, 0), "mysql": (5, 7, 6)}

FREE_DISK_WARN_BYTES = 5 * 10**9
MEMORY_WARN_BYTES = 2 * GIB

MARKS = {"ok": "✓", "fail": "✗", "warn": "!"}


@dataclass(frozen=True)
class Check:
    """One line of the report. A check that is not `required` only warns when it fails."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None
    required: bool = True
    package: str | None = None  # the OS package that would provide what is missing

    @property
    def status(self) -> str:
        return "ok" if self.ok else ("fail" if self.required else "warn")

    @property
    def mark(self) -> str:
        return MARKS[self.status]


@dataclass
class DoctorReport:
    data_dir: Path
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks if check.required)

    @property
    def failed(self) -> list[Check]:
        return [check for check in self.checks if check.status == "fail"]

    @property
    def warnings(self) -> list[Check]:
        return [check for check in self.checks if check.status == "warn"]

    @property
    def missing_packages(self) -> list[str]:
        """The OS packages to install, once each, in check order."""
        packages: list[str] = []
        for check in self.checks:
            if not check.ok and check.package and check.package not in packages:
                packages.append(check.package)
        return packages

    def install_command(self) -> str | None:
        packages = self.missing_packages
        return f"sudo apt-get install -y {' '.join(packages)}" if packages else None

    def check(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(name)

    def render(self) -> str:
        """An aligned table with a ✓ (fine), ✗ (required and failing) or ! (warning) per check,
        each failure followed by its fix, then a summary and the install command if any."""
        name_width = max((len(check.name) for check in self.checks), default=0)
        lines = [f"pagelab doctor: data dir {self.data_dir}", ""]
        for check in self.checks:
            lines.append(f"  {check.mark} {check.name.ljust(name_width)}  {check.detail}")
            if not check.ok and check.fix:
                lines.append(f"    {' ' * name_width}  fix: {check.fix}")
        lines.append("")
        if self.ok:
            summary = "Ready: every required check passed"
            if self.warnings:
                summary += f" ({len(self.warnings)} warning{'s' if len(self.warnings) > 1 else ''})"
            lines.append(summary + ".")
        else:
            lines.append(f"Not ready: {', '.join(check.name for check in self.failed)} failed.")
        command = self.install_command()
        if command:
            lines.append(f"Missing: install with `{command}` (or run `make setup`)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "data_dir": str(self.data_dir),
            "checks": [asdict(check) | {"status": check.status} for check in self.checks],
            "missing_packages": self.missing_packages,
            "install_command": self.install_command(),
        }


def _where(sbin_fallback: bool) -> str:
    return "on PATH or in /usr/sbin" if sbin_fallback else "on PATH"


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def check_server(
    server_binary: str | os.PathLike | None, sbin_fallback: bool
) -> tuple[list[Check], ServerFlavour | None]:
    install = f"sudo apt-get install -y {SERVER_PACKAGE}"
    if server_binary is None:
        found = next((p for p in (system.find_program(n, sbin_fallback) for n in SERVER_NAMES) if p), None)
        if found is None:
            return [
                Check(
                    "server",
                    False,
                    f"no MySQL-compatible server ({' or '.join(SERVER_NAMES)}) {_where(sbin_fallback)}",
                    f"{install}, or put a MySQL 8 mysqld on PATH",
                    package=SERVER_PACKAGE,
                )
            ], None
        server_binary = found
    try:
        server = detect_server(server_binary)
    except MissingDependencyError as exc:
        return [Check("server", False, str(exc), install, package=SERVER_PACKAGE)], None
    except (OSError, subprocess.SubprocessError) as exc:
        return [Check("server", False, f"{server_binary} --version failed: {exc}", "check the server installation")], None
    checks = [Check("server", True, server.describe())]
    minimum = LARGE_PAGES_MIN.get(server.flavour)
    if minimum and server.version_tuple < minimum:
        checks.append(
            Check(
                "page sizes",
                False,
                f"{server.describe()} supports innodb_page_size up to 16k only; 32k and 64k need "
                f"{'MariaDB' if server.flavour == 'mariadb' else 'MySQL'} {_dotted(minimum)}",
                "install a newer server, or sweep only 4k, 8k and 16k",
                required=False,
            )
        )
    return checks, server


def check_iostat(sbin_fallback: bool) -> list[Check]:
    binary = system.find_program("iostat", sbin_fallback)
    if binary is None:
        return [
            Check(
                "iostat",
                False,
                f"not found {_where(sbin_fallback)}; it samples the disk during a run",
                f"sudo apt-get install -y {IOSTAT_PACKAGE}",
                package=IOSTAT_PACKAGE,
            )
        ]
    version_text = system.iostat_version(binary)
    version = system.parse_version(version_text)
    if version is None:
        return [Check("iostat", False, f"{binary}: cannot read its version from `iostat -V`", "reinstall sysstat")]
    if version < IOSTAT_JSON_MIN:
        return [
            Check(
                "iostat",
                False,
                f"sysstat {version_text} ({binary}) has no `-o JSON`, added in sysstat {_dotted(IOSTAT_JSON_MIN)}",
                "upgrade sysstat to 12.2.1 or newer",
            )
        ]
    checks = [Check("iostat", True, f"sysstat {version_text} ({binary})")]
    if version < IOSTAT_JSON_RECOMMENDED:
        checks.append(
            Check(
                "iostat JSON",
                False,
                f"sysstat {version_text} can print invalid JSON with -y (fixed in 12.0.5) "
                f"and a wrong unit (fixed in {_dotted(IOSTAT_JSON_RECOMMENDED)})",
                f"upgrade sysstat to {_dotted(IOSTAT_JSON_RECOMMENDED)} or newer",
                required=False,
            )
        )
    return checks


def check_fio(sbin_fallback: bool) -> Check:
    # fio measures the raw device's IOPS per block size; the TPC-C sweep runs without it, but its
    # report then says the disk's read speed was not measured (knob disk_profile), so it is said here.
    binary = system.find_program("fio", sbin_fallback)
    if binary is None:
        return Check(
            "fio",
            False,
            f"not found {_where(sbin_fallback)}; a sweep runs without it, but its report cannot give the data "
            "disk's read speed (knob disk_profile), and the raw device IOPS experiment needs it",
            f"sudo apt-get install -y {FIO_PACKAGE}",
            required=False,
            package=FIO_PACKAGE,
        )
    version = system.fio_version(binary)
    if version is None:
        detail = f"{binary}: cannot read its version from `fio --version`"
        return Check("fio", False, detail, "reinstall fio", required=False)
    return Check("fio", True, f"fio {version} ({binary})")


def check_data_device(device: devices.DeviceInfo) -> Check:
    if device.in_memory:
        return Check(
            "data device",
            False,
            f"{device.resolved_path} is on {device.fstype} ({device.mount_point}): the data would live in RAM "
            "and no disk I/O would be measured",
            "point --data-dir at a directory on a disk (ext4, xfs)",
        )
    if device.disk is None:
        return Check(
            "data device",
            False,
            f"{device.resolved_path}: {device.note or 'no block device found'}; iostat cannot be pointed at its disk",
            "point --data-dir at a directory on a local disk to name the device in the report",
            required=False,
        )
    facts = [device.describe()]
    if device.virtual_disk:
        # A virtual disk's rotational flag is whatever the hypervisor chose; not worth showing.
        facts.append("virtual disk")
    elif device.rotational is not None:
        facts.append("rotational" if device.rotational else "non-rotational")
    if device.logical_block_size and device.physical_block_size:
        facts.append(f"blocks {device.logical_block_size}/{device.physical_block_size} B")
    notes = [note for note in device.notes if note != devices.VIRTUAL_DISK_NOTE]
    detail = ", ".join(facts + notes)
    return Check("data device", True, detail)


def check_o_direct(data_dir: Path, device: devices.DeviceInfo) -> Check:
    works, reason = devices.o_direct_works(data_dir)
    if not works:
        fix = "point --data-dir at a directory on a local disk filesystem (ext4, xfs)"
        return Check("O_DIRECT", False, reason, fix)
    detail = f"works in {devices.nearest_existing(data_dir)} (innodb_flush_method=O_DIRECT)"
    if device.in_memory:
        # tmpfs accepts O_DIRECT since Linux 6.6, but there is no disk for it to go to.
        detail += f", but {device.fstype} has no disk behind it"
    return Check("O_DIRECT", True, detail)


def check_free_disk(data_dir: Path) -> Check:
    free = devices.free_disk_bytes(data_dir)
    enough = free >= FREE_DISK_WARN_BYTES
    return Check(
        "free disk",
        enough,
        f"{free / 1e9:.1f} GB free at {devices.nearest_existing(data_dir)}"
        + ("" if enough else f"; a sweep's datadirs and snapshots need at least {FREE_DISK_WARN_BYTES / 1e9:.0f} GB"),
        None if enough else "free some space or point --data-dir at a bigger disk",
        required=False,
    )


def check_memory() -> Check:
    total = system.memory_bytes()
    if total is None:
        return Check("memory", False, "cannot read MemTotal from /proc/meminfo", required=False)
    enough = total >= MEMORY_WARN_BYTES
    return Check(
        "memory",
        enough,
        f"{system.format_memory(total)} ({total / GIB:.1f} GiB)"
        + ("" if enough else "; the server, the driver and the notebook kernel will be short of memory"),
        None if enough else "use a smaller buffer pool and fewer warehouses",
        required=False,
    )


def check_cores() -> Check:
    cores = os.cpu_count()
    return Check("cores", cores is not None, f"{cores}" if cores else "unknown", required=False)


def run_doctor(
    data_dir: str | os.PathLike,
    *,
    server_binary: str | os.PathLike | None = None,
    sbin_fallback: bool = True,
) -> DoctorReport:
    """Check everything an experiment depends on for a data dir (which need not exist yet).

    `server_binary` checks that server instead of the first mariadbd/mysqld found.
    `sbin_fallback=False` looks on PATH only, not also in /usr/sbin and the other server
    directories (the tests use it to see what a machine without the packages reports).
    """
    data_dir = Path(os.path.abspath(os.fspath(data_dir)))
    report = DoctorReport(data_dir)
    server_checks, _ = check_server(server_binary, sbin_fallback)
    report.checks.extend(server_checks)
    report.checks.extend(check_iostat(sbin_fallback))
    report.checks.append(check_fio(sbin_fallback))
    device = devices.block_device_for(data_dir)
    report.checks.append(check_data_device(device))
    report.checks.append(check_o_direct(data_dir, device))
    report.checks.append(check_free_disk(data_dir))
    report.checks.append(check_memory())
    report.checks.append(check_cores())
    return report
