"""What this machine is: the disk under a directory, whether O_DIRECT works there, and the facts
recorded with every run.

The Week 4 lab describes its machine in a "System setup" table (OS, CPU, Memory, Kernel, Data Device,
Log Device). A reader comparing our numbers with the lab's needs the same table for our machine,
so it is taken automatically here rather than typed by hand: `run_metadata()` goes into every run
bundle's sweep.json and `system_setup_table()` renders it in the lab's style.

Everything here only reads (/sys, /proc, /etc/os-release, `--version` outputs); the one side
effect is the small temporary file `o_direct_works()` writes and removes.

Why one file of this size: the table's rows and the probes that fill them change together (a new
row is a new probe), and none of it is used apart from the table and `pagelab doctor`.
"""

from __future__ import annotations

import errno
import importlib.metadata
import mmap
import os
import platform
import re
import secrets
import shutil
import stat
import subprocess
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from pagelab.common.errors import MissingDependencyError
from pagelab.mysql import flavour as server_flavour
from pagelab.mysql.flavour import ServerFlavour, detect_server
from pagelab.common.units import GIB, KIB

SYSFS_ROOT = Path("/sys")
MOUNTINFO = Path("/proc/self/mountinfo")

# /sys/block/<disk>/size counts 512-byte sectors whatever the device's real block size.
SYSFS_SECTOR_BYTES = 512

# One buffer of this size is aligned for every logical block size in use (512 and 4096).
O_DIRECT_PROBE_BYTES = 4096

# Filesystems that keep their data in memory: a database on them does no disk I/O to measure.
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "hugetlbfs"})
NETWORK_FILESYSTEMS = frozenset({"nfs", "nfs4", "cifs", "smb3", "9p", "fuse.sshfs", "ceph", "glusterfs", "lustre",
                                 "gpfs", "beegfs", "pvfs2", "orangefs", "afs", "fuse.glusterfs", "fuse.ceph"})
# Where systemd (and dbus before it) keep the machine's id: 32 hex digits, fixed at installation.
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))

# Virtual disks report what the hypervisor tells them; their rotational flag says little.
VIRTUAL_DISK_DRIVERS = frozenset({"virtio_blk", "xen_blkfront", "vbd"})
VIRTUAL_DISK_NOTE = "virtual disk: model and rotational flag come from the hypervisor"

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
# Paths and small readers


def nearest_existing(path: str | os.PathLike) -> Path:
    """`path` made absolute and symlink-free, or its nearest existing parent when it does not exist
    yet (a data dir is often inspected before the first run creates it)."""
    candidate = Path(os.path.abspath(os.fspath(path)))
    while not candidate.exists() and candidate != candidate.parent:
        candidate = candidate.parent
    return candidate.resolve()


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read_text(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """(12, 6, 1) from "12.6.1" (or from the first dotted number in a longer line)."""
    if not text:
        return None
    match = re.search(r"\d+(?:\.\d+)*", text)
    return tuple(int(part) for part in match.group(0).split(".")) if match else None


# --------------------------------------------------------------------------------------------
# Mounts


@dataclass(frozen=True)
class MountEntry:
    """One line of /proc/self/mountinfo, the parts we use."""

    mount_point: str
    fstype: str
    source: str
    devnum: str  # "major:minor" as the kernel reports it for this mount


def _unescape_mount_field(text: str) -> str:
    # mountinfo writes space, tab, newline and backslash in paths as octal escapes (\040 ...).
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def read_mounts(mountinfo: Path = MOUNTINFO) -> list[MountEntry]:
    """The mount table in mount order (later entries cover earlier ones at the same point)."""
    text = _read_text(mountinfo) or ""
    mounts = []
    for line in text.splitlines():
        # Fields: id parent major:minor root mount-point options [optional...] - fstype source super
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        left_fields, right_fields = left.split(), right.split()
        if len(left_fields) < 5 or len(right_fields) < 2:
            continue
        mounts.append(
            MountEntry(
                mount_point=_unescape_mount_field(left_fields[4]),
                fstype=right_fields[0],
                source=_unescape_mount_field(right_fields[1]),
                devnum=left_fields[2],
            )
        )
    return mounts


def mount_for(path: str | os.PathLike, mounts: list[MountEntry]) -> MountEntry | None:
    """The mount a path lives on: the longest mount point that is a prefix of it; of several
    mounts at that point, the last, because it hides the ones beneath it."""
    target = os.fspath(path)
    best: MountEntry | None = None
    for entry in mounts:
        point = entry.mount_point
        inside = point == "/" or target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.mount_point)):
            best = entry
    return best


# --------------------------------------------------------------------------------------------
# Block devices in sysfs


def device_name_for_devnum(major: int, minor: int, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The kernel's name (vda, vda1, dm-0, nvme0n1p2, md127) of block device major:minor."""
    link = Path(sysfs_root) / "dev" / "block" / f"{major}:{minor}"
    if not link.exists():
        return None
    return link.resolve().name


def resolve_disks(device: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """The whole disk(s) under a block device, by its kernel name.

    A partition (it has a `partition` file) lives in its disk's sysfs directory, so the disk is
    the parent directory. Device-mapper and md devices (LVM, LUKS, RAID) list what they are built
    on in `slaves/`, which may itself be a partition or another dm device; each is followed down.
    A device with neither is a disk itself. Unknown names give ().
    """
    sysfs_root = Path(sysfs_root)
    disks: list[str] = []
    seen: set[str] = set()

    def follow(name: str) -> None:
        if name in seen:  # a malformed tree must not loop forever
            return
        seen.add(name)
        entry = sysfs_root / "class" / "block" / name
        if not entry.exists():
            return
        slaves_dir = entry / "slaves"
        slaves = sorted(p.name for p in slaves_dir.iterdir()) if slaves_dir.is_dir() else []
        if slaves:
            for slave in slaves:
                follow(slave)
        elif (entry / "partition").exists():
            follow(entry.resolve().parent.name)
        elif name not in disks:
            disks.append(name)

    follow(device)
    return tuple(disks)


@dataclass(frozen=True)
class DiskAttributes:
    """What /sys/block/<disk> says about one whole disk; None where the kernel does not say."""

    model: str | None = None
    vendor: str | None = None
    driver: str | None = None
    rotational: bool | None = None
    scheduler: str | None = None
    logical_block_size: int | None = None
    physical_block_size: int | None = None
    size_bytes: int | None = None


def _active_scheduler(text: str | None) -> str | None:
    # "none [mq-deadline] kyber bfq": the bracketed one is active; a lone name has no brackets.
    if not text:
        return None
    match = re.search(r"\[([^\]]+)\]", text)
    return match.group(1) if match else text.split()[0]


def _human_vendor(text: str | None) -> str | None:
    # virtio reports its PCI vendor id (0x1af4) and SATA disks say "ATA": neither names the disk.
    if not text or re.fullmatch(r"0x[0-9a-fA-F]+", text) or text.upper() == "ATA":
        return None
    return text


def disk_attributes(disk: str, sysfs_root: Path = SYSFS_ROOT) -> DiskAttributes:
    base = Path(sysfs_root) / "block" / disk
    queue = base / "queue"
    device_dir = base / "device"
    rotational = _read_int(queue / "rotational")
    sectors = _read_int(base / "size")
    driver_link = device_dir / "driver"
    return DiskAttributes(
        model=_read_text(device_dir / "model") or None,
        vendor=_human_vendor(_read_text(device_dir / "vendor")),
        driver=driver_link.resolve().name if driver_link.exists() else None,
        rotational=None if rotational is None else rotational == 1,
        scheduler=_active_scheduler(_read_text(queue / "scheduler")),
        logical_block_size=_read_int(queue / "logical_block_size"),
        physical_block_size=_read_int(queue / "physical_block_size"),
        size_bytes=None if sectors is None else sectors * SYSFS_SECTOR_BYTES,
    )


@dataclass(frozen=True)
class DeviceInfo:
    """The storage under a path: its mount, the block device of that mount and the disk(s) below.

    `device` is the mount's own block device (vda, vda1, dm-0); `disk` the whole disk under it
    (vda, nvme0n1, sda), or None when there is no local disk (tmpfs, overlay, NFS), which `note`
    then explains. Attributes come from the first disk when a device spans several (`disks`).
    """

    path: str
    resolved_path: str
    devnum: str | None = None
    device: str | None = None
    disk: str | None = None
    disks: tuple[str, ...] = ()
    model: str | None = None
    vendor: str | None = None
    driver: str | None = None
    rotational: bool | None = None
    scheduler: str | None = None
    logical_block_size: int | None = None
    physical_block_size: int | None = None
    size_bytes: int | None = None
    fstype: str | None = None
    mount_point: str | None = None
    mount_source: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def note(self) -> str | None:
        return "; ".join(self.notes) or None

    @property
    def in_memory(self) -> bool:
        """True when the filesystem keeps its data in RAM, so a database there does no disk I/O."""
        return self.fstype in MEMORY_FILESYSTEMS

    @property
    def virtual_disk(self) -> bool:
        return self.driver in VIRTUAL_DISK_DRIVERS

    def disk_label(self) -> str:
        """The model when the disk names one, else the kernel's name with its driver."""
        if self.model:
            return f"{self.vendor} {self.model}" if self.vendor and self.vendor not in self.model else self.model
        if self.disk:
            return f"{self.disk} ({self.driver})" if self.driver else self.disk
        return f"{self.fstype or 'unknown filesystem'} (no block device)"

    def describe(self) -> str:
        """One line: "vda (virtio_blk) 256GB, scheduler mq-deadline, ext4 on /"."""
        parts = [self.disk_label()]
        if self.size_bytes:
            parts[0] += f" {format_disk_size(self.size_bytes)}"
        if self.disk and self.device and self.device != self.disk:
            parts.append(f"via {self.device}")
        if self.scheduler:
            parts.append(f"scheduler {self.scheduler}")
        if self.fstype:
            parts.append(f"{self.fstype} on {self.mount_point}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["disks"] = list(self.disks)
        data["notes"] = list(self.notes)
        data["note"] = self.note
        return data


def block_device_for(
    path: str | os.PathLike,
    sysfs_root: Path = SYSFS_ROOT,
    mountinfo: Path = MOUNTINFO,
) -> DeviceInfo:
    """The block device and disk under `path` (or its nearest existing parent). Never raises for
    filesystems without a disk: those come back with disk=None and a note saying why."""
    resolved = nearest_existing(path)
    notes: list[str] = []
    mount = mount_for(resolved, read_mounts(mountinfo))
    mount_fields = {}
    if mount is not None:
        mount_fields = dict(fstype=mount.fstype, mount_point=mount.mount_point, mount_source=mount.source)
    else:
        notes.append("no entry in the mount table")

    dev = os.stat(resolved).st_dev
    major, minor = os.major(dev), os.minor(dev)
    if major == 0 and mount is not None and mount.source.startswith("/dev/"):
        # Btrfs subvolumes (and a few others) give files an anonymous device number; the mount's
        # source still names the real block device.
        try:
            source_stat = os.stat(mount.source)
            if stat.S_ISBLK(source_stat.st_mode):
                major, minor = os.major(source_stat.st_rdev), os.minor(source_stat.st_rdev)
        except OSError:
            pass
    base = dict(path=os.fspath(path), resolved_path=str(resolved), devnum=f"{major}:{minor}", **mount_fields)

    if major == 0:
        fstype = mount.fstype if mount else "unknown"
        if fstype in MEMORY_FILESYSTEMS:
            notes.append(f"{fstype} keeps its data in memory: no block device")
        elif fstype in NETWORK_FILESYSTEMS or fstype.startswith("nfs"):
            notes.append(f"{fstype} is a network filesystem: no local block device")
        else:
            notes.append(f"{fstype} has no block device of its own (overlay, FUSE or virtual filesystem)")
        return DeviceInfo(**base, notes=tuple(notes))

    device = device_name_for_devnum(major, minor, sysfs_root)
    if device is None:
        notes.append(f"device {major}:{minor} is not in {Path(sysfs_root) / 'dev' / 'block'}")
        return DeviceInfo(**base, notes=tuple(notes))
    disks = resolve_disks(device, sysfs_root)
    if not disks:
        notes.append(f"cannot find the disk under {device} in {sysfs_root}")
        return DeviceInfo(**base, device=device, notes=tuple(notes))
    if len(disks) > 1:
        notes.append(f"{device} spans {len(disks)} disks ({', '.join(disks)}); attributes are from {disks[0]}")
    attributes = disk_attributes(disks[0], sysfs_root)
    if attributes.driver in VIRTUAL_DISK_DRIVERS:
        notes.append(VIRTUAL_DISK_NOTE)
    return DeviceInfo(**base, device=device, disk=disks[0], disks=disks, **asdict(attributes), notes=tuple(notes))


# --------------------------------------------------------------------------------------------
# O_DIRECT


def o_direct_works(path: str | os.PathLike) -> tuple[bool, str]:
    """Whether a file in `path` (or its nearest existing parent) can be written and read with
    O_DIRECT, as InnoDB does with innodb_flush_method=O_DIRECT. Returns (ok, reason).

    The probe writes one aligned 4096-byte block to a new hidden file and reads it back, then
    removes the file. Buffers come from mmap because O_DIRECT needs memory aligned to the
    device's block size and mmap returns page-aligned memory.
    """
    directory = nearest_existing(path)
    if not directory.is_dir():
        directory = directory.parent
    o_direct = getattr(os, "O_DIRECT", None)
    if o_direct is None:
        return False, f"this platform ({platform.system()}) has no O_DIRECT"
    probe = directory / f".pagelab-odirect-{os.getpid()}-{secrets.token_hex(4)}"
    line = b"pagelab O_DIRECT probe\n"
    pattern = (line * (O_DIRECT_PROBE_BYTES // len(line) + 1))[:O_DIRECT_PROBE_BYTES]
    fd = None
    try:
        try:
            fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_RDWR | o_direct, 0o600)
        except OSError as exc:
            return False, _o_direct_failure("open", directory, exc)
        with mmap.mmap(-1, O_DIRECT_PROBE_BYTES) as write_buffer, mmap.mmap(-1, O_DIRECT_PROBE_BYTES) as read_buffer:
            write_buffer.write(pattern)
            try:
                written = os.pwritev(fd, [write_buffer], 0)
                read = os.preadv(fd, [read_buffer], 0)
            except OSError as exc:
                return False, _o_direct_failure("write/read", directory, exc)
            if written != O_DIRECT_PROBE_BYTES or read != O_DIRECT_PROBE_BYTES:
                return False, f"O_DIRECT transfer in {directory} was short: wrote {written}, read {read} bytes"
            if read_buffer[:] != pattern:
                return False, f"O_DIRECT read in {directory} returned different bytes than were written"
        return True, f"{O_DIRECT_PROBE_BYTES}-byte O_DIRECT write and read succeeded in {directory}"
    finally:
        if fd is not None:
            os.close(fd)
        # Some filesystems create the file and only then refuse O_DIRECT, so always clean up.
        probe.unlink(missing_ok=True)


def _o_direct_failure(step: str, directory: Path, exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    reason = f"O_DIRECT {step} failed in {directory}: {exc.strerror or exc} ({name})"
    if exc.errno == errno.EINVAL:
        reason += "; the filesystem does not support direct I/O (tmpfs before Linux 6.6, some FUSE/overlay)"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason += "; the directory is not writable"
    return reason


# --------------------------------------------------------------------------------------------
# The machine


def os_pretty_name() -> str | None:
    for candidate in (Path("/etc/os-release"), Path("/usr/lib/os-release")):
        text = _read_text(candidate)
        if text is None:
            continue
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "PRETTY_NAME":
                return value.strip().strip("\"'")
    return f"{platform.system()} {platform.release()}".strip() or None


def cpu_model() -> str | None:
    # x86 says "model name"; many ARM kernels only say "Hardware" or "Processor".
    text = _read_text(Path("/proc/cpuinfo")) or ""
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
        text = (_read_text(path) or "").strip()
        if text:
            return text
    return None


def network_filesystem(path: str | os.PathLike) -> str | None:
    """The filesystem type under `path` (or its nearest existing parent) if it is a network one
    (NFS, Lustre, GPFS, ...), else None."""
    mount = mount_for(nearest_existing(path), read_mounts())
    fstype = mount.fstype if mount else ""
    return fstype if fstype in NETWORK_FILESYSTEMS or fstype.startswith("nfs") else None


def memory_bytes() -> int | None:
    text = _read_text(Path("/proc/meminfo")) or ""
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.MULTILINE)
    if match:
        return int(match.group(1)) * KIB
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def free_disk_bytes(path: str | os.PathLike) -> int:
    return shutil.disk_usage(nearest_existing(path)).free


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
    `.dirty` when tracked files differed from it; the release alone (`0.1.0`) where no commit is known
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


def format_disk_size(size_bytes: int | None) -> str:
    """A disk's size as its label would say it: physical disks are sold in decimal units
    (500107862016 bytes -> "500GB"), virtual disks are sized in binary ones (2**38 -> "256GB")."""
    if not size_bytes:
        return "unknown size"
    if size_bytes % GIB == 0:
        gib = size_bytes // GIB
        return f"{gib // 1024}TB" if gib >= 1024 and gib % 1024 == 0 else f"{gib}GB"
    gigabytes = size_bytes / 1e9
    if gigabytes >= 1000:
        return f"{gigabytes / 1000:.1f}".rstrip("0").rstrip(".") + "TB"
    return f"{gigabytes:.0f}GB"


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
