"""Machine inspection on the real machine (/sys, /proc, real files), plus a fake sysfs tree for
the partition / device-mapper / md layouts this machine may not have."""

from __future__ import annotations

import json
import os
import platform
import re
from pathlib import Path

import pytest

from pagelab.machine import devices, system

REPO = Path(__file__).resolve().parents[1]
SYS_BLOCK = Path("/sys/block")


def _fstype(path: str) -> str | None:
    entry = devices.mount_for(devices.nearest_existing(path), devices.read_mounts())
    return entry.fstype if entry else None


def _kernel_version() -> tuple[int, ...]:
    return system.parse_version(platform.release()) or (0,)


# --- the real machine --------------------------------------------------------------------------


def test_repo_dir_resolves_to_a_disk_that_exists_in_sys_block():
    info = devices.block_device_for(REPO)
    assert info.disk is not None, info.note
    assert (SYS_BLOCK / info.disk).is_dir()
    assert info.device is not None and (Path("/sys/class/block") / info.device).exists()
    assert info.disk in info.disks
    assert info.fstype and info.mount_point
    assert str(REPO).startswith(info.mount_point)
    assert info.size_bytes and info.size_bytes > 0
    assert info.logical_block_size in (512, 1024, 2048, 4096)
    if (SYS_BLOCK / info.disk / "queue" / "scheduler").exists():
        assert info.scheduler and "[" not in info.scheduler
    json.dumps(info.to_dict())


def test_missing_path_is_resolved_through_its_nearest_existing_parent_and_not_created():
    missing = REPO / "no-such-dir" / "deeper"
    info = devices.block_device_for(missing)
    assert info.resolved_path == str(REPO)
    assert info.disk == devices.block_device_for(REPO).disk
    assert not missing.parent.exists()


def test_resolve_disks_on_every_block_device_of_this_machine():
    class_block = Path("/sys/class/block")
    for entry in sorted(class_block.iterdir()):
        disks = devices.resolve_disks(entry.name)
        assert disks, entry.name
        for disk in disks:
            assert (SYS_BLOCK / disk).is_dir(), (entry.name, disk)
        if (entry / "partition").exists():
            assert entry.name not in disks  # a partition resolves to its parent disk
        if entry.name.startswith(("dm-", "md")) and any((entry / "slaves").iterdir()):
            assert entry.name not in disks


def test_devnum_of_the_repo_maps_to_its_device_name():
    dev = os.stat(REPO).st_dev
    name = devices.device_name_for_devnum(os.major(dev), os.minor(dev))
    assert name == devices.block_device_for(REPO).device


def test_tmpfs_has_no_disk_and_says_why():
    assert _fstype("/dev/shm") == "tmpfs", "/dev/shm is not a tmpfs on this machine; this test needs one"
    info = devices.block_device_for("/dev/shm/not-created")
    assert info.disk is None and info.device is None
    assert info.in_memory
    assert "tmpfs" in info.note
    assert info.describe()  # still describable
    json.dumps(info.to_dict())


def test_pseudo_filesystem_does_not_raise():
    info = devices.block_device_for("/proc/self")
    assert info.disk is None
    assert info.note


# --- a fake sysfs tree ---------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))


def _block_device(sysfs: Path, parent_dir: Path, name: str, devnum: str, *, partition: int | None = None) -> Path:
    """A device directory as the kernel lays it out, with its /sys/class/block and /sys/dev/block links."""
    directory = parent_dir / name
    _write(directory / "dev", devnum)
    if partition is not None:
        _write(directory / "partition", str(partition))
    (directory / "slaves").mkdir(parents=True, exist_ok=True)
    _link(sysfs / "class" / "block" / name, directory)
    _link(sysfs / "dev" / "block" / devnum, directory)
    return directory


def _disk(sysfs: Path, name: str, devnum: str, *, model: str, rotational: int, scheduler: str) -> Path:
    directory = _block_device(sysfs, sysfs / "devices" / "pci0000:00" / name / "block", name, devnum)
    _write(directory / "size", str(1953525168))  # 512-byte sectors: a 1 TB disk
    _write(directory / "device" / "model", model)
    _write(directory / "queue" / "rotational", str(rotational))
    _write(directory / "queue" / "scheduler", scheduler)
    _write(directory / "queue" / "logical_block_size", "512")
    _write(directory / "queue" / "physical_block_size", "4096")
    _link(sysfs / "block" / name, directory)
    return directory


def _enslave(sysfs: Path, holder: str, *slaves: str) -> None:
    for slave in slaves:
        _link(sysfs / "class" / "block" / holder / "slaves" / slave, (sysfs / "class" / "block" / slave).resolve())


@pytest.fixture
def fake_sysfs(tmp_path: Path) -> Path:
    """sda (sda1, sda2), nvme0n1 (nvme0n1p1), sdb1 and sdc1 under md0, LVM dm-0 on sda2,
    LUKS dm-1 on dm-0, and a dm-8/dm-9 cycle that must not hang the resolver."""
    sysfs = tmp_path / "sys"
    sda = _disk(sysfs, "sda", "8:0", model="WDC WD10EZEX-08W", rotational=1, scheduler="[mq-deadline] none")
    _block_device(sysfs, sda, "sda1", "8:1", partition=1)
    _block_device(sysfs, sda, "sda2", "8:2", partition=2)
    nvme = _disk(sysfs, "nvme0n1", "259:0", model="Samsung SSD 980", rotational=0, scheduler="[none] mq-deadline")
    _block_device(sysfs, nvme, "nvme0n1p1", "259:1", partition=1)
    for letter, minor in (("b", 16), ("c", 32)):
        disk = _disk(sysfs, f"sd{letter}", f"8:{minor}", model="ST2000", rotational=1, scheduler="none [bfq]")
        _block_device(sysfs, disk, f"sd{letter}1", f"8:{minor + 1}", partition=1)
    virtual = sysfs / "devices" / "virtual" / "block"
    for name, devnum in (("dm-0", "253:0"), ("dm-1", "253:1"), ("md0", "9:0"), ("dm-8", "253:8"), ("dm-9", "253:9")):
        _block_device(sysfs, virtual, name, devnum)
    _enslave(sysfs, "dm-0", "sda2")
    _enslave(sysfs, "dm-1", "dm-0")
    _enslave(sysfs, "md0", "sdb1", "sdc1")
    _enslave(sysfs, "dm-8", "dm-9")
    _enslave(sysfs, "dm-9", "dm-8")
    return sysfs


@pytest.mark.parametrize(
    "device, disks",
    [
        ("sda", ("sda",)),
        ("sda1", ("sda",)),
        ("nvme0n1p1", ("nvme0n1",)),
        ("dm-0", ("sda",)),  # LVM on a partition
        ("dm-1", ("sda",)),  # LUKS on LVM on a partition
        ("md0", ("sdb", "sdc")),  # RAID over two partitions
        ("dm-8", ()),  # a cycle ends with nothing rather than hanging
        ("no-such-device", ()),
    ],
)
def test_resolve_disks_in_a_fake_sysfs(fake_sysfs, device, disks):
    assert devices.resolve_disks(device, sysfs_root=fake_sysfs) == disks


def test_disk_attributes_in_a_fake_sysfs(fake_sysfs):
    nvme = devices.disk_attributes("nvme0n1", sysfs_root=fake_sysfs)
    assert nvme.model == "Samsung SSD 980"
    assert nvme.rotational is False
    assert nvme.scheduler == "none"
    assert (nvme.logical_block_size, nvme.physical_block_size) == (512, 4096)
    assert nvme.size_bytes == 1953525168 * 512
    assert devices.disk_attributes("sdb", sysfs_root=fake_sysfs).scheduler == "bfq"
    assert devices.disk_attributes("sda", sysfs_root=fake_sysfs).rotational is True
    assert devices.disk_attributes("missing", sysfs_root=fake_sysfs) == devices.DiskAttributes()


def test_device_name_for_devnum_in_a_fake_sysfs(fake_sysfs):
    assert devices.device_name_for_devnum(259, 1, sysfs_root=fake_sysfs) == "nvme0n1p1"
    assert devices.device_name_for_devnum(253, 1, sysfs_root=fake_sysfs) == "dm-1"
    assert devices.device_name_for_devnum(1, 99, sysfs_root=fake_sysfs) is None


def test_block_device_for_through_a_fake_sysfs_and_mount_table(fake_sysfs, tmp_path):
    # The real st_dev of tmp_path is made to point at a LUKS-on-LVM device in the fake tree.
    dev = os.stat(tmp_path).st_dev
    if os.major(dev) == 0:
        pytest.fail(f"{tmp_path} has an anonymous device number (a tmpfs or overlay); run the tests with "
                    "--basetemp on a disk filesystem", pytrace=False)
    devnum = f"{os.major(dev)}:{os.minor(dev)}"
    link = fake_sysfs / "dev" / "block" / devnum
    if link.is_symlink():
        link.unlink()
    _link(link, (fake_sysfs / "class" / "block" / "dm-1").resolve())
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        f"1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
        f"2 1 {devnum} / {tmp_path} rw shared:1 - xfs /dev/mapper/vg-data rw\n"
    )
    info = devices.block_device_for(tmp_path / "datadir", sysfs_root=fake_sysfs, mountinfo=mountinfo)
    assert (info.device, info.disk, info.disks) == ("dm-1", "sda", ("sda",))
    assert info.model == "WDC WD10EZEX-08W"
    assert (info.fstype, info.mount_point, info.mount_source) == ("xfs", str(tmp_path), "/dev/mapper/vg-data")
    assert info.describe() == f"WDC WD10EZEX-08W 1TB, via dm-1, scheduler mq-deadline, xfs on {tmp_path}"


def test_mount_table_parsing_unescapes_and_prefers_the_longest_then_the_latest(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "25 27 0:23 / /dev/shm rw - tmpfs tmpfs rw\n"
        "30 25 0:27 / /dev/shm rw - tmpfs shm2 rw\n"
        "31 27 8:1 / /mnt/my\\040disk rw shared:5 master:2 - ext4 /dev/sda1 rw\n"
        "32 27 8:2 / /mnt/my rw - xfs /dev/sda2 rw\n"
    )
    mounts = devices.read_mounts(mountinfo)
    assert [m.mount_point for m in mounts][-2] == "/mnt/my disk"
    assert devices.mount_for("/dev/shm/x", mounts).source == "shm2"
    assert devices.mount_for("/mnt/my disk/db", mounts).source == "/dev/sda1"
    assert devices.mount_for("/mnt/my", mounts).source == "/dev/sda2"
    assert devices.mount_for("/mnt/myother", mounts).source == "/dev/vda"  # prefix of a name is not a parent


# --- O_DIRECT -----------------------------------------------------------------------------------


def test_o_direct_works_on_the_repo_filesystem_and_leaves_nothing_behind():
    before = set(os.listdir(REPO))
    ok, reason = devices.o_direct_works(REPO)
    assert ok, reason
    assert set(os.listdir(REPO)) == before


def test_o_direct_probe_of_a_missing_dir_uses_its_parent_and_creates_nothing():
    ok, reason = devices.o_direct_works(REPO / "no-such-dir" / "deeper")
    assert ok, reason
    assert str(REPO) in reason
    assert not (REPO / "no-such-dir").exists()


def test_o_direct_on_dev_shm():
    ok, reason = devices.o_direct_works("/dev/shm")
    assert isinstance(ok, bool) and isinstance(reason, str) and reason
    if _fstype("/dev/shm") == "tmpfs" and _kernel_version() < (6, 6):
        # Before Linux 6.6 tmpfs refused O_DIRECT; since then it accepts it (and bypasses nothing).
        assert not ok
        assert "EINVAL" in reason
    assert not [name for name in os.listdir("/dev/shm") if name.startswith(".pagelab-odirect")]


def test_o_direct_fails_cleanly_where_no_file_can_be_created():
    ok, reason = devices.o_direct_works("/proc")
    assert ok is False
    assert "/proc" in reason


# --- metadata -----------------------------------------------------------------------------------

MACHINE_KEYS = {
    "os", "kernel", "cpu_model", "cores", "memory_bytes", "data_dir", "data_device", "filesystem", "free_disk_bytes",
}
RUN_KEYS = MACHINE_KEYS | {"server", "server_error", "python", "packages", "tools", "git_sha", "git_dirty"}


def test_machine_info_is_json_and_describes_this_machine():
    info = system.machine_info(REPO / "data" / "instances")
    assert MACHINE_KEYS <= set(info)
    assert json.loads(json.dumps(info)) == info
    assert info["cores"] == os.cpu_count()
    assert info["memory_bytes"] > 2**28
    assert info["kernel"] == platform.release()
    assert info["free_disk_bytes"] > 0
    assert info["data_device"]["disk"] == devices.block_device_for(REPO).disk


def test_run_metadata_is_json_and_has_every_key():
    meta = system.run_metadata(REPO / "data" / "instances")
    assert RUN_KEYS <= set(meta)
    assert json.loads(json.dumps(meta)) == meta
    assert set(meta["packages"]) == set(system.KEY_PACKAGES)
    assert meta["packages"]["pagelab"]
    assert set(meta["tools"]) == {"iostat", "fio"}
    assert meta["python"] == platform.python_version()
    if meta["server"] is None:
        assert meta["server_error"]
    else:
        assert meta["server"]["flavour"] in ("mariadb", "mysql")
        assert meta["server"]["version"] in meta["server"]["version_line"]
    if meta["git_sha"] is not None:
        assert re.fullmatch(r"[0-9a-f]{40}", meta["git_sha"])
        assert isinstance(meta["git_dirty"], bool)


def test_run_metadata_records_a_missing_server_instead_of_raising(tmp_path):
    meta = system.run_metadata(tmp_path, server=tmp_path / "no-such-mariadbd")
    assert meta["server"] is None
    assert "no-such-mariadbd" in meta["server_error"]
    json.dumps(meta)


def test_git_revision_outside_a_checkout_is_none(tmp_path):
    assert system.git_revision(tmp_path) == (None, None)


def test_system_setup_table_has_the_seed_rows():
    meta = system.run_metadata(REPO)
    table = system.system_setup_table(meta)
    labels = [label for label, _ in table]
    assert labels[:6] == ["OS", "CPU", "Memory", "Kernel", "Data Device", "Log Device"]
    assert "Server" in labels
    rows = dict(table)
    assert re.fullmatch(r"\d+GB", rows["Memory"])
    assert rows["Data Device"] == rows["Log Device"]
    device = meta["data_device"]
    assert (device["model"] or device["disk"]) in rows["Data Device"]
    assert rows["Kernel"] == platform.release()
    assert all(isinstance(value, str) and value for _, value in table)


def test_system_setup_table_copes_with_an_empty_record():
    rows = dict(system.system_setup_table({}))
    assert rows["Data Device"] == "unknown" and rows["Server"] == "not found" and rows["Memory"] == "unknown"


@pytest.mark.parametrize(
    "size_bytes, label",
    [(500107862016, "500GB"), (2000398934016, "2TB"), (256 * 2**30, "256GB"), (2**40, "1TB"), (None, "unknown size")],
)
def test_format_disk_size(size_bytes, label):
    assert devices.format_disk_size(size_bytes) == label


@pytest.mark.parametrize("kib, label", [(24684092, "24GB"), (16303388, "16GB"), (None, "unknown")])
def test_format_memory(kib, label):
    assert system.format_memory(kib * 1024 if kib else None) == label


def test_parse_version():
    assert system.parse_version("sysstat version 12.6.1") == (12, 6, 1)
    assert system.parse_version("fio-3.33") == (3, 33)
    assert system.parse_version("6.18.44-fc-v657") == (6, 18, 44)
    assert system.parse_version("none") is None
