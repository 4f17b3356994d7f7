"""What this machine is: the facts recorded with every run (OS, CPU, memory, the data directory's
disk, the server, the programs and packages, pagelab's commit), and the lab's table of them.

The Week 4 lab describes its machine in a "System setup" table (OS, CPU, Memory, Kernel, Data Device,
Log Device). A reader comparing our numbers with the lab's needs the same table for our machine,
so it is taken automatically here rather than typed by hand: `run_metadata()` goes into every run
bundle's sweep.json and `system_setup_table()` renders it in the lab's style.

Everything here only reads (/proc, /etc/os-release, `--version` outputs, git). The disk under a
directory, and whether O_DIRECT works there, is pagelab.machine.devices'.

Why one file: the table's rows and the probes that fill them change together (a new row is a new
probe).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from pagelab.common.errors import MissingDependencyError
from pagelab.common.units import GIB, KIB
from pagelab.machine.devices import (
    DeviceInfo,
    block_device_for,
    format_disk_size,
    free_disk_bytes,
    read_text_or_none,
)
from pagelab.mysql import flavour as server_flavour
from pagelab.mysql.flavour import ServerFlavour, detect_server

# Where systemd (and dbus before it) keep the machine's id: 32 hex digits, fixed at installation.
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))

# The packages whose versions change results or the report; recorded in every run bundle.
KEY_PACKAGES = (
    "pagelab",
    "pandas",
    "matplotlib",
    "seaborn",
    "papermill",
    "nbconvert",
    "jupyterlab",
    "mysql-connector-python",
    "tqdm",
    "scipy",
    "numpy",
)

PROGRAM_TIMEOUT_S = 10


# --------------------------------------------------------------------------------------------
# The machine


def os_pretty_name() -> str | None:
    for candidate in (Path("/etc/os-release"), Path("/usr/lib/os-release")):
        text = read_text_or_none(candidate)
        if text is None:
            continue
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "PRETTY_NAME":
                return value.strip().strip("\"'")
    return f"{platform.system()} {platform.release()}".strip() or None


def cpu_model() -> str | None:
    # x86 says "model name"; many ARM kernels only say "Hardware" or "Processor".
    text = read_text_or_none(Path("/proc/cpuinfo")) or ""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and value.strip():
            found.setdefault(key.strip().lower(), value.strip())
    for key in ("model name", "hardware", "processor", "cpu model"):
        value = found.get(key)
        if value and not value.isdigit():
            return value
    return platform.processor() or None


def machine_id() -> str | None:
    """The machine's id (machine-id(5)): tells apart two nodes that share a host name or look alike."""
    for path in MACHINE_ID_FILES:
        text = (read_text_or_none(path) or "").strip()
        if text:
            return text
    return None



def memory_bytes() -> int | None:
    text = read_text_or_none(Path("/proc/meminfo")) or ""
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.MULTILINE)
    if match:
        return int(match.group(1)) * KIB
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None



def machine_info(data_dir: str | os.PathLike) -> dict:
    """The machine an experiment ran on, JSON-able: OS, kernel, CPU, memory, and the data
    directory's device, filesystem and free space."""
    device = block_device_for(data_dir)
    return {
        "os": os_pretty_name(),
        "kernel": platform.release(),
        "architecture": platform.machine(),
        "cpu_model": cpu_model(),
        "machine_id": machine_id(),
        "cores": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "data_dir": os.path.abspath(os.fspath(data_dir)),
        "data_device": device.to_dict(),
        "data_device_description": device.describe(),
        "filesystem": device.fstype,
        "mount_point": device.mount_point,
        "free_disk_bytes": free_disk_bytes(data_dir),
    }


# --------------------------------------------------------------------------------------------
# Programs and versions


def find_program(name: str, sbin_fallback: bool = True) -> Path | None:
    """A program on PATH, and (by default) in the sbin directories where distributions install
    servers, which a normal user's PATH lacks."""
    if sbin_fallback:
        return server_flavour.which(name)
    found = shutil.which(name)
    return Path(found) if found else None


def _program_output(argv: list[str]) -> str | None:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (result.stdout + result.stderr).strip() or None


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """(12, 6, 1) from "12.6.1" (or from the first dotted number in a longer line)."""
    if not text:
        return None
    match = re.search(r"\d+(?:\.\d+)*", text)
    return tuple(int(part) for part in match.group(0).split(".")) if match else None


def iostat_version(binary: str | os.PathLike | None = None) -> str | None:
    """sysstat's version from `iostat -V` ("sysstat version 12.6.1"), or None without iostat."""
    binary = binary or find_program("iostat")
    if binary is None:
        return None
    match = re.search(r"sysstat version\s+(\d+(?:\.\d+)+)", _program_output([os.fspath(binary), "-V"]) or "")
    return match.group(1) if match else None


def fio_version(binary: str | os.PathLike | None = None) -> str | None:
    """fio's version from `fio --version` ("fio-3.33"), or None without fio."""
    binary = binary or find_program("fio")
    if binary is None:
        return None
    match = re.search(r"fio-(\d+(?:\.\d+)*)", _program_output([os.fspath(binary), "--version"]) or "")
    return match.group(1) if match else None


def package_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_revision(directory: str | os.PathLike | None = None) -> tuple[str | None, bool | None]:
    """(HEAD's sha, whether tracked files differ from it) for the checkout holding `directory`
    (default: this package). (None, None) outside a git checkout, when git is missing, or when
    the package is an ignored copy inside some checkout (e.g. a non-editable install in .venv)."""
    directory = Path(directory) if directory is not None else Path(__file__).resolve().parent
    if shutil.which("git") is None:
        return None, None

    def git(*args: str) -> subprocess.CompletedProcess | None:
        try:
            return subprocess.run(
                ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    inside = git("rev-parse", "--is-inside-work-tree")
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != "true":
        return None, None
    ignored = git("check-ignore", "-q", str(directory))
    if ignored is not None and ignored.returncode == 0:
        return None, None
    head = git("rev-parse", "HEAD")
    sha = head.stdout.strip() if head is not None and head.returncode == 0 else None
    status = git("status", "--porcelain", "--untracked-files=no")
    dirty = bool(status.stdout.strip()) if status is not None and status.returncode == 0 else None
    return sha, dirty


def version_naming(sha: str | None, dirty: bool | None) -> str:
    """pagelab's version naming a commit, in PEP 440's local-version form: `0.1.0+g1234abc`, with
    `.dirty` when tracked files differed from it; the version number alone (`0.1.0`) where no commit is known
    (no git, an sdist or an installed copy, a bundle that did not record one)."""
    from pagelab import __version__

    if not sha:
        return __version__
    return f"{__version__}+g{sha[:7]}" + (".dirty" if dirty else "")


def pagelab_version() -> str:
    """The version of the pagelab that is running, naming its commit where git knows it."""
    return version_naming(*git_revision())


def _server_record(server: ServerFlavour) -> dict:
    return {
        "flavour": server.flavour,
        "version": server.version,
        "version_line": server.version_line,
        "binary": str(server.server_binary),
    }


def run_metadata(
    data_dir: str | os.PathLike,
    server: ServerFlavour | str | os.PathLike | None = None,
) -> dict:
    """Everything a run bundle records about where it ran, JSON-able: `machine_info()` plus the
    server (a ServerFlavour, a binary to inspect, or None to find one; `server` is None and
    `server_error` says why when there is none), Python and key package versions, iostat and fio
    versions, and the project's git sha with a dirty flag."""
    meta = machine_info(data_dir)
    meta["collected_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        flavour = server if isinstance(server, ServerFlavour) else detect_server(server)
        meta["server"], meta["server_error"] = _server_record(flavour), None
    except (MissingDependencyError, OSError, subprocess.SubprocessError) as exc:
        # The record must still be written when the server is missing or hangs on --version.
        meta["server"], meta["server_error"] = None, str(exc)
    meta["python"] = platform.python_version()
    meta["python_implementation"] = platform.python_implementation()
    meta["packages"] = package_versions()
    meta["tools"] = {"iostat": iostat_version(), "fio": fio_version()}
    meta["git_sha"], meta["git_dirty"] = git_revision()
    return meta


# --------------------------------------------------------------------------------------------
# The Week 4 lab's "System setup" table


def format_memory(size_bytes: int | None) -> str:
    """Installed memory as people name it: MemTotal 24684092 kB -> "24GB" (the kernel keeps a
    little back, so MemTotal is rounded to whole GiB)."""
    if not size_bytes:
        return "unknown"
    return f"{max(1, round(size_bytes / GIB))}GB"



def _describe_server(meta: dict) -> str:
    server = meta.get("server")
    if not server:
        return "not found"
    name = "MariaDB" if server.get("flavour") == "mariadb" else "MySQL"
    return f"{name} {server.get('version')}"


def _describe_data_device(device_data: dict | None) -> str:
    # The lab writes "Western Digital WD Blue 500GB": the model, else the disk's name, and size.
    if not device_data or "path" not in device_data:
        return "unknown"
    fields = {name: device_data[name] for name in DeviceInfo.__dataclass_fields__ if name in device_data}
    device = DeviceInfo(**fields)
    label = device.disk_label()
    return f"{label} {format_disk_size(device.size_bytes)}" if device.size_bytes else label


def system_setup_table(meta: dict) -> list[tuple[str, str]]:
    """Rows in the style of the Week 4 lab's "System setup" table, from `run_metadata()` (or
    `machine_info()`). The log device is the data device: redo logs live in the datadir."""
    data_device = _describe_data_device(meta.get("data_device"))
    cpu = meta.get("cpu_model") or "unknown"
    if meta.get("cores"):
        cpu += f" ({meta['cores']} cores)"
    filesystem = meta.get("filesystem") or "unknown"
    if meta.get("mount_point"):
        filesystem += f" on {meta['mount_point']}"
    return [
        ("OS", meta.get("os") or "unknown"),
        ("CPU", cpu),
        ("Memory", format_memory(meta.get("memory_bytes"))),
        ("Kernel", meta.get("kernel") or "unknown"),
        ("Data Device", data_device),
        ("Log Device", data_device),
        ("Filesystem", filesystem),
        ("Server", _describe_server(meta)),
    ]
