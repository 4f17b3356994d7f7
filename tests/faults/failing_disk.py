"""Disks that fail on purpose, for the storage faults: an ext4 filesystem on a loop device that the
kernel turns read-only, and strace's syscall tampering (EIO, or a delay) on one process's writes.

    disk = LoopExt4(workdir / "ext4.img", workdir / "mnt", "2500M")
    disk.create()                      # mkfs.ext4, losetup, mount -o errors=remount-ro
    disk.fail()                        # an ext4 error: the kernel remounts it read-only, as after an I/O error
    disk.repair()                      # umount, e2fsck -fy, mount again
    disk.destroy()                     # in a finally: umount, losetup -d, the image removed

Only a loop device over a file this module made is ever touched: never a real disk. Each mechanism
is checked where it is used, and one that does not work here fails the test naming what is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from pagelab.common.storage import unwritable

# How long the kernel gets to turn the filesystem read-only after the error (it does it at once).
READ_ONLY_WAIT_S = 10.0
UNMOUNT_WAIT_S = 30.0
IN_USE_WAIT_S = 5.0


class MechanismMissing(AssertionError):
    """What a storage-fault test needs does not work on this machine (it fails, naming it)."""


def require_programs(*names: str) -> None:
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        raise MechanismMissing(f"{', '.join(missing)} not found: the storage-fault tests need them "
                               "(e2fsprogs and util-linux for ext4 on a loop device, strace for injected faults)")


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True)


class LoopExt4:
    """An ext4 filesystem in a sparse file, on a loop device, mounted errors=remount-ro as Debian
    mounts its root: an ext4 error turns it read-only, as a real I/O error would."""

    def __init__(self, image: Path, mount: Path, size: str):
        self.image, self.mount, self.size = Path(image), Path(mount), size
        self.device: str | None = None

    @property
    def sysfs(self) -> Path:
        return Path("/sys/fs/ext4") / Path(self.device).name

    def create(self) -> "LoopExt4":
        require_programs("mkfs.ext4", "e2fsck", "losetup", "mount", "umount")
        self.mount.mkdir(parents=True, exist_ok=True)
        done = _run("truncate", "-s", self.size, str(self.image))
        assert done.returncode == 0, done.stderr
        # -m 0: no blocks reserved for root, so that a disk filled by the tests is full for root's server too
        done = _run("mkfs.ext4", "-q", "-F", "-m", "0", str(self.image))
        if done.returncode != 0:
            raise MechanismMissing(f"mkfs.ext4 failed: {done.stderr.strip()}")
        done = _run("losetup", "--find", "--show", str(self.image))
        if done.returncode != 0:
            raise MechanismMissing(f"no loop device could be set up (run as root, with /dev/loop-control): "
                                   f"{done.stderr.strip()}")
        self.device = done.stdout.strip()
        self._mount()
        if not (self.sysfs / "trigger_fs_error").exists():
            raise MechanismMissing(f"{self.sysfs}/trigger_fs_error is missing: this kernel cannot be asked for an "
                                   "ext4 error, which the read-only cells need")
        return self

    def _mount(self) -> None:
        done = _run("mount", "-t", "ext4", "-o", "errors=remount-ro", self.device, str(self.mount))
        if done.returncode != 0:
            raise MechanismMissing(f"mounting ext4 from {self.device} failed: {done.stderr.strip()}")

    def fail(self) -> float:
        """An ext4 error now: the kernel turns the filesystem read-only. Returns the moment (epoch
        seconds) the error was raised, once a write there is refused."""
        moment = time.time()
        (self.sysfs / "trigger_fs_error").write_text("1")
        deadline = time.monotonic() + READ_ONLY_WAIT_S
        while unwritable(self.mount) is None:
            if time.monotonic() > deadline:
                raise MechanismMissing(f"{self.mount} still takes writes {READ_ONLY_WAIT_S:.0f} s after an ext4 error "
                                       "(is it mounted errors=remount-ro?)")
            time.sleep(0.05)
        return moment

    def read_only(self) -> bool:
        return unwritable(self.mount) is not None

    def _unmount(self) -> None:
        deadline = time.monotonic() + UNMOUNT_WAIT_S
        while True:
            done = _run("umount", str(self.mount))
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                holders = _run("fuser", "-vm", str(self.mount))
                raise AssertionError(f"{self.mount} could not be unmounted ({done.stderr.strip()}); "
                                     f"held by: {holders.stderr.strip() or holders.stdout.strip()}")
            time.sleep(0.2)

    def repair(self) -> str:
        """What a user does: unmount, check and repair (e2fsck -fy), mount again. e2fsck's summary."""
        self._unmount()
        deadline = time.monotonic() + IN_USE_WAIT_S
        while True:  # the kernel lets go of the device a moment after the unmount returns
            done = _run("e2fsck", "-f", "-y", self.device)
            if done.returncode != 8 or "in use" not in done.stdout + done.stderr or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if done.returncode == 8 and "in use" in done.stdout + done.stderr:
            # A process that made a mount namespace of its own while this was mounted (a Slurm
            # daemon of another test does) keeps a copy of the mount, and with it the device. The
            # copy is read-only and in error, so it writes nothing more: the image is checked
            # through a new loop device, and the old one goes when that namespace lets go of it.
            holders = _mounted_in(self.device)
            _run("losetup", "-d", self.device)  # detached once the last user closes it
            self.device = None
            done = _run("e2fsck", "-f", "-y", str(self.image))
            attached = _run("losetup", "--find", "--show", str(self.image))
            assert attached.returncode == 0, f"no new loop device for {self.image}: {attached.stderr} ({holders})"
            self.device = attached.stdout.strip()
        # 0: clean; 1: errors corrected; anything else is a filesystem e2fsck could not repair
        assert done.returncode in (0, 1), (f"e2fsck could not repair {self.image} (exit {done.returncode}):\n"
                                           f"{done.stdout}{done.stderr}")
        self._mount()
        assert not self.read_only(), f"{self.mount} is still read-only after e2fsck and a new mount"
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    def destroy(self) -> None:
        """Unmount (lazily, if something still holds it), detach the loop device, remove the image."""
        if os.path.ismount(self.mount):
            if _run("umount", str(self.mount)).returncode != 0:
                _run("umount", "-l", str(self.mount))
        if self.device:
            _run("losetup", "-d", self.device)
            self.device = None
        self.image.unlink(missing_ok=True)


def _mounted_in(device: str) -> list[str]:
    """The processes whose mount namespace still has `device` mounted (what keeps it "in use")."""
    found = []
    for mountinfo in Path("/proc").glob("[0-9]*/mountinfo"):
        try:
            if f" {device} " in mountinfo.read_text():
                found.append(f"{mountinfo.parent.name}: {(mountinfo.parent / 'cmdline').read_bytes()[:80]!r}")
        except OSError:
            continue
    return found[:5]


# --- strace's syscall tampering ---------------------------------------------------------------------



def check_strace_injection() -> None:
    """strace can inject an error into a syscall here (it needs ptrace): a write of `echo` made to
    fail with EIO must fail."""
    require_programs("strace")
    plain = _run("strace", "-f", "-o", "/dev/null", "-e", "trace=write", "echo", "probe")
    done = _run("strace", "-f", "-o", "/dev/null", "-e", "trace=write", "-e", "inject=write:error=EIO", "echo", "probe")
    if plain.returncode != 0 or done.returncode == 0:  # echo fails when its write fails (and cannot say so)
        raise MechanismMissing(f"strace could not inject EIO into a write here (exit {plain.returncode} traced, "
                               f"{done.returncode} with EIO: {(plain.stderr + done.stderr).strip()[-300:]}); "
                               "ptrace may be forbidden")


def tamper(pid: int, syscalls: str, inject: str, paths: list[Path] = (), threads: bool = True) -> subprocess.Popen:
    """strace attached to every thread of `pid` (-p each; `-f` follows new ones), tampering with
    `syscalls` as `inject` says (`error=EIO`, `delay_enter=500ms`), only on `paths` if given (-P).
    Returns once every thread is traced; the caller stops it (terminate) in a finally."""
    tids = sorted(int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()) if threads else [pid]
    command = ["strace", "-f", "-o", "/dev/null", "-e", f"trace={syscalls}", "-e", f"inject={syscalls}:{inject}"]
    for path in paths:
        command += ["-P", str(path)]
    for tid in tids:
        command += ["-p", str(tid)]
    tracer = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10

    def traced(tid: int) -> bool:
        try:
            return f"TracerPid:\t{tracer.pid}\n" in Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:
            return True  # gone

    while not all(traced(t) for t in tids):
        if tracer.poll() is not None or time.monotonic() > deadline:
            tracer.kill()
            raise MechanismMissing(f"strace could not attach to pid {pid}: {tracer.stderr.read().decode()[-300:]}")
        time.sleep(0.02)
    return tracer


def untamper(tracer: subprocess.Popen | None) -> None:
    if tracer is not None and tracer.poll() is None:
        tracer.terminate()  # strace detaches from its tracees on SIGTERM
        try:
            tracer.wait(timeout=30)
        except subprocess.TimeoutExpired:
            tracer.kill()
            tracer.wait()
