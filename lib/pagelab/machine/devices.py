"""The storage under a directory, as /proc and /sys say: its mount, the mount's block device and the
whole disk(s) below it (through partitions, LVM, LUKS and RAID), and whether O_DIRECT works there.

`block_device_for()` gives a `DeviceInfo`, which every run bundle records (pagelab.machine.system's
machine_info), the fio profile is keyed by (pagelab.machine.fio), and `pagelab doctor` checks.

Everything here only reads (/sys, /proc/self/mountinfo); the one side effect is the small temporary
file `o_direct_works()` writes and removes.
"""

from __future__ import annotations

import errno
import mmap
import os
import platform
import re
import secrets
import shutil
import stat
from dataclasses import asdict, dataclass
from pathlib import Path

from pagelab.common.units import GIB

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

# Virtual disks report what the hypervisor tells them; their rotational flag says little.
VIRTUAL_DISK_DRIVERS = frozenset({"virtio_blk", "xen_blkfront", "vbd"})
VIRTUAL_DISK_NOTE = "virtual disk: model and rotational flag come from the hypervisor"


# --------------------------------------------------------------------------------------------
# Paths and small readers


def nearest_existing(path: str | os.PathLike) -> Path:
    """`path` made absolute and symlink-free, or its nearest existing parent when it does not exist
    yet (a data dir is often inspected before the first run creates it)."""
    candidate = Path(os.path.abspath(os.fspath(path)))
    while not candidate.exists() and candidate != candidate.parent:
        candidate = candidate.parent
    return candidate.resolve()


def read_text_or_none(path: Path) -> str | None:
    """The file's text, stripped, or None when it cannot be read (a file /sys or /proc lacks here)."""
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = read_text_or_none(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None



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
    text = read_text_or_none(mountinfo) or ""
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
        model=read_text_or_none(device_dir / "model") or None,
        vendor=_human_vendor(read_text_or_none(device_dir / "vendor")),
        driver=driver_link.resolve().name if driver_link.exists() else None,
        rotational=None if rotational is None else rotational == 1,
        scheduler=_active_scheduler(read_text_or_none(queue / "scheduler")),
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
# The filesystem and the disk, in a word


def network_filesystem(path: str | os.PathLike) -> str | None:
    """The filesystem type under `path` (or its nearest existing parent) if it is a network one
    (NFS, Lustre, GPFS, ...), else None."""
    mount = mount_for(nearest_existing(path), read_mounts())
    fstype = mount.fstype if mount else ""
    return fstype if fstype in NETWORK_FILESYSTEMS or fstype.startswith("nfs") else None


def free_disk_bytes(path: str | os.PathLike) -> int:
    return shutil.disk_usage(nearest_existing(path)).free


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
