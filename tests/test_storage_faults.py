"""Storage faults said in words, on real read-only and full filesystems (root: a small ext4 on a
loop device that an ext4 error turns read-only, a tmpfs of a few MB that is filled), and the CLI's
last line of defence on a real unforeseen error. Light: no server. The sweep's storage faults on a
failing ext4 are in tests/faults/storage_cells.py."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from pagelab.cli.exits import EXIT_BAD_INPUT, EXIT_STORAGE, EXIT_UNEXPECTED
from pagelab.common.errors import StorageFault
from pagelab.common.locks import held_lock
from pagelab.common.storage import read_only_now, save_traceback, storage_fault_in, unwritable
from pagelab.mysql.snapshot_record import SNAPSHOT_MARKER, SNAPSHOT_PASSWORD_FILE, snapshot_problem, write_snapshot_marker
from tests.conftest import pagelab
from tests.faults.failing_disk import LoopExt4


@contextmanager
def tmpfs(directory: Path, size: str = "4m"):
    """A tmpfs of its own at `directory`, unmounted on the way out whatever happens."""
    directory.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"these tests mount a tmpfs to make it read-only or full; run them as root ({done.stderr})"
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


@pytest.fixture
def ext4(tmp_path):
    """A 32 MB ext4 on a loop device, mounted errors=remount-ro; `fail()` turns it read-only."""
    disk = LoopExt4(tmp_path / "ext4.img", tmp_path / "ext4", "32M")
    try:
        yield disk.create()
    finally:
        disk.destroy()


def test_storage_faults_are_found_in_exceptions_and_in_what_programs_print():
    def raised_from(cause):
        try:
            try:
                raise cause
            except OSError as inner:
                raise RuntimeError("the run failed") from inner
        except RuntimeError as outer:
            return outer

    fault = storage_fault_in(raised_from(OSError(errno.EROFS, "Read-only file system", "/b/4k-r1/run.ipynb")))
    assert (fault.symbol, fault.path) == ("EROFS", "/b/4k-r1/run.ipynb")
    assert storage_fault_in(raised_from(OSError(errno.EIO, "Input/output error"))).symbol == "EIO"
    # as papermill carries a kernel's exception: its text only
    kernel = "OSError: [Errno 30] Read-only file system: '/mnt/x/b1/4k-r1/phases.csv'"
    fault = storage_fault_in(kernel)
    assert (fault.symbol, fault.path) == ("EROFS", "/mnt/x/b1/4k-r1/phases.csv")
    # a chained traceback: the bare error first, then the one that names its file (pagelab.common.storage.naming)
    chained = ("\x1b[0;31mOSError\x1b[0m: [Errno 5] Input/output error\n\nThe above exception was the direct "
               "cause of the following exception:\n\nOSError: [Errno 5] Input/output error: '/b/4k-r1/phases.csv'")
    assert storage_fault_in(chained).path == "/b/4k-r1/phases.csv"
    # MariaDB's error log after a failed write
    mariadb = "[ERROR] InnoDB: Operating system error number 5 in a file operation."
    assert storage_fault_in('[ERROR] [FATAL] InnoDB: pwrite("ib_logfile0") returned -1, operating system error 5').symbol == "EIO"
    assert storage_fault_in(mariadb).symbol == "EIO"
    assert storage_fault_in("The table 'stock' is full").symbol == "ENOSPC"
    # neither a different errno nor an unrelated failure is one
    assert storage_fault_in("Operating system error number 50 in a file operation.") is None
    assert storage_fault_in(raised_from(OSError(errno.ENOENT, "No such file or directory"))) is None
    assert storage_fault_in(ValueError("the server stopped answering")) is None


def test_a_read_only_filesystem_is_found_by_writing(ext4):
    assert unwritable(ext4.mount) is None
    assert sorted(p.name for p in ext4.mount.iterdir()) == ["lost+found"], "the probe left a file behind"
    ext4.fail()
    assert "rw" in Path("/proc/mounts").read_text().split(f" {ext4.mount} ")[1].split()[1].split(","), \
        "ext4 turned read-only by an error no longer says rw: the probe is not what finds it"
    assert unwritable(ext4.mount).symbol == "EROFS"


def test_a_filesystem_turned_read_only_is_found_without_writing(ext4):
    (ext4.mount / "b1").mkdir()
    before = sorted(p.name for p in ext4.mount.iterdir())
    assert read_only_now(ext4.mount / "b1") is None
    ext4.fail()  # ext4's emergency read-only: statvfs still says writable, the mount table does not
    fault = read_only_now(ext4.mount / "b1")
    assert (fault.symbol, fault.path) == ("EROFS", str(ext4.mount / "b1"))
    assert sorted(p.name for p in ext4.mount.iterdir()) == before


def _record_on(bundle: Path, phase: str):
    from pagelab.bundle import SweepRecord

    (bundle / "4k-r1").mkdir(parents=True)
    (bundle / "4k-r1" / ".phase").write_text(phase)
    return SweepRecord(bundle / "sweep.json", {"runs": [{"name": "4k-r1", "status": "running"},
                                                        {"name": "8k-r1", "status": "pending"}]})


def test_the_watch_stops_a_phase_that_writes_nothing_when_its_filesystem_turns_read_only(ext4):
    """A load generating its TPC-C data writes nothing into the bundle for a minute and more: the
    sweep's watch (one look every WATCH_INTERVAL_S, here shorter) stops it and says the fault, the
    run and its phase, rather than wait for the next write."""
    from pagelab.sweep.storage_stop import ReadOnlyWatch

    bundle = ext4.mount / "b1"
    record = _record_on(bundle, "load")
    with pytest.raises(StorageFault) as stopped:
        with ReadOnlyWatch(record, interval=0.1) as watch:
            watch.follow(bundle / "4k-r1", run="4k-r1")
            ext4.fail()
            time.sleep(20)  # a phase that writes nothing (were the watch blind, it would end here)
    message = str(stopped.value)
    assert f"read-only (EROFS) under {bundle} at {bundle}/4k-r1, during 4k-r1's load" in message, message
    assert "4k-r1 was not recorded as done and will be run again" in message, message


def test_the_watch_leaves_a_sound_filesystem_alone_and_writes_nothing(ext4):
    from pagelab.sweep.storage_stop import ReadOnlyWatch

    bundle = ext4.mount / "b1"
    record = _record_on(bundle, "measure 3/20 s")
    before = sorted(p.name for p in bundle.rglob("*"))
    with ReadOnlyWatch(record, interval=0.05) as watch:
        watch.follow(bundle / "4k-r1", run="4k-r1")
        time.sleep(0.5)
    assert watch.fault is None and sorted(p.name for p in bundle.rglob("*")) == before


def test_a_bundle_lock_is_let_go_on_a_filesystem_turned_read_only(ext4):
    with held_lock(ext4.mount / ".sweep.lock", remove=True):
        ext4.fail()  # the file cannot be removed now: it stays, and nothing is raised
    assert (ext4.mount / ".sweep.lock").exists()


def test_a_traceback_goes_into_the_bundle_or_else_the_cache_directory(tmp_path, monkeypatch, ext4):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    try:
        raise StorageFault("storage fault: test")
    except StorageFault as error:
        fault = error
    saved = save_traceback(fault, ext4.mount)
    assert saved.parent == ext4.mount and "StorageFault: storage fault: test" in saved.read_text()
    ext4.fail()
    saved = save_traceback(fault, ext4.mount)
    assert saved.parent == tmp_path / "cache" / "pagelab" and "Traceback" in saved.read_text()


def test_resume_on_a_read_only_filesystem_is_refused_at_once(ext4):
    bundle = ext4.mount / "b1"
    bundle.mkdir()
    (bundle / "sweep.json").write_text(json.dumps({"runs": []}))
    ext4.fail()
    done = pagelab("sweep", "--resume", bundle, timeout=60)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    message = " ".join(done.stderr.split())
    assert "read-only (EROFS)" in message and "nothing was started" in message and "e2fsck" in message, message
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_out_on_a_read_only_or_full_filesystem_is_refused_before_anything_starts(tmp_path, fault):
    ext4 = LoopExt4(tmp_path / "ext4.img", tmp_path / "disk", "32M")
    with tmpfs(tmp_path / "disk") if fault == "full" else _failed(ext4) as disk:
        if fault == "full":
            with open(disk / "filler", "wb") as filler:
                try:
                    while True:
                        filler.write(bytes(1 << 16))
                        filler.flush()
                except OSError:
                    pass
        done = pagelab("sweep", "--profile", "smoke", "--out", disk / "b1", timeout=60)
        left = sorted(p.name for p in disk.iterdir())
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    message = " ".join(done.stderr.split())
    expected = "read-only (EROFS)" if fault == "read-only" else "the disk is full (ENOSPC"
    assert expected in message and "nothing was started" in message, message
    assert left == (["lost+found"] if fault == "read-only" else ["filler"]), f"a refused --out made {left}"


@contextmanager
def _failed(ext4: LoopExt4):
    try:
        ext4.create().fail()
        yield ext4.mount
    finally:
        ext4.destroy()


def test_an_unforeseen_error_gets_one_paragraph_its_own_exit_status_and_a_saved_traceback(tmp_path):
    # A real error pagelab does not foresee: a bundle whose sweep.json lists its runs as a number.
    bundle = tmp_path / "b1"
    bundle.mkdir()
    (bundle / "sweep.json").write_text(json.dumps({"runs": 5, "profile": {}}))
    cache = tmp_path / "cache"
    done = pagelab("stats", bundle, timeout=120, env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert done.returncode == EXIT_UNEXPECTED, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "unexpected error" in done.stderr and "fault in pagelab" in done.stderr
    saved = Path(done.stderr.split("The traceback is in ")[1].split(".txt")[0] + ".txt")
    assert saved.parent == cache / "pagelab" and saved.read_text().startswith("Traceback"), saved


def test_help_documents_the_storage_and_unforeseen_exit_statuses():
    done = pagelab("--help")
    text = " ".join(done.stdout.split())
    assert f"{EXIT_STORAGE} the storage failed" in text and f"{EXIT_UNEXPECTED} an unexpected error" in text
    assert StorageFault.exit_code == EXIT_STORAGE


def test_a_snapshot_is_checked_against_its_own_record(tmp_path):
    snapshot = tmp_path / "snapshot"
    (snapshot / "tpcc").mkdir(parents=True)
    (snapshot / "ibdata1").write_bytes(b"x" * 5000)
    (snapshot / "tpcc" / "stock.ibd").write_bytes(b"y" * 3000)
    write_snapshot_marker(snapshot, 4096)
    (snapshot / SNAPSHOT_PASSWORD_FILE).write_text("secret")
    assert snapshot_problem(snapshot) is None
    os.truncate(snapshot / "tpcc" / "stock.ibd", 0)  # what a disk that failed after the copy can leave
    assert snapshot_problem(snapshot) == "tpcc/stock.ibd is 0 bytes, and the snapshot recorded 3000"
    (snapshot / "tpcc" / "stock.ibd").write_bytes(b"y" * 3000)
    marker = json.loads((snapshot / SNAPSHOT_MARKER).read_text())
    marker["files"]["tpcc/stock.ibd"] = 0
    (snapshot / SNAPSHOT_MARKER).write_text(json.dumps(marker))
    assert "does not match its checksum" in snapshot_problem(snapshot)
    (snapshot / SNAPSHOT_MARKER).write_text('{"page_size": 40')  # torn
    assert "cannot be read" in snapshot_problem(snapshot)


def test_a_sweep_loads_again_rather_than_restore_a_damaged_snapshot(tmp_path, capsys):
    from pagelab.sweep.experiment import LOADED_FILE, loaded_state

    instance_dir = tmp_path / "instances" / "4k"
    snapshot = instance_dir / "snapshot"
    snapshot.mkdir(parents=True)
    (snapshot / "ibdata1").write_bytes(b"x" * 4096)
    write_snapshot_marker(snapshot, 4096)
    (snapshot / SNAPSHOT_PASSWORD_FILE).write_text("secret")
    (instance_dir / LOADED_FILE).write_text(json.dumps({"db_bytes": 1}))
    assert loaded_state(instance_dir, tmp_path) == {"db_bytes": 1}
    os.truncate(snapshot / "ibdata1", 100)
    assert loaded_state(instance_dir, tmp_path) is None  # the run then inits, loads and snapshots again
    assert "is not whole (ibdata1 is 100 bytes" in capsys.readouterr().out


def test_a_storage_fault_in_the_tidy_up_names_where_it_struck(tmp_path):
    from pagelab.bundle import SweepRecord
    from pagelab.sweep.storage_stop import storage_fault_stop

    record = SweepRecord(tmp_path / "sweep.json", {"runs": [{"name": "4k-r1", "status": "done"}]})
    # shutil.rmtree's error names its file relative to the directory it was removing
    fault = storage_fault_in(OSError(errno.EROFS, "Read-only file system", "db.opt"))
    message = str(storage_fault_stop(record, fault, None, None, "tidy-up after the report", tmp_path / "instances"))
    assert f"(EROFS) under {tmp_path} at {tmp_path}/instances (db.opt), during the tidy-up after the report" in message
    assert "Kept: the 1 of 1 runs done before it" in message and f"pagelab sweep --resume {tmp_path}" in message



CAPTURED_LOGS = Path(__file__).parent / "fixtures" / "captured" / "mariadb-10.11"


def _unit_log(sweep_dir: Path) -> tuple[dict, Path]:
    from pagelab.bundle import instance_name

    entry = {"name": "4k-r1", "page_size": 4096, "cell": None}
    log = sweep_dir / "instances" / instance_name(4096, None) / "mysqld.err"
    log.parent.mkdir(parents=True)
    return entry, log


# MariaDB 10.11's own crashes, captured with strace injecting EIO: into its pwrite64 (the redo log's
# write fails first: 'pwrite("ib_logfile0") returned -1, operating system error 5'), and into its
# fdatasync alone (the redo log's flush: "fdatasync() returned 5", which names no errno word).
EIO_CRASHES = ("eio-crash.err", "eio-fdatasync-crash.err")


@pytest.mark.parametrize("crash_log", EIO_CRASHES)
def test_a_server_killed_by_eio_is_found_in_its_log_even_when_the_run_began_a_new_log(tmp_path, crash_log):
    """A run that begins its page size initialises the instance, and the init replaces the error
    log by a new, shorter one: where the old log ended says nothing about the new."""
    from pagelab.sweep.run_unit import server_log_mark, server_storage_fault

    entry, log = _unit_log(tmp_path)
    older = (CAPTURED_LOGS / "start-stop.err").read_text() * 10  # an instance's many starts and stops
    log.write_text(older)
    mark = server_log_mark(tmp_path, entry)
    log.unlink()  # what init does (pagelab.mysql.datadir), before the new server writes its log
    crash = (CAPTURED_LOGS / crash_log).read_text()
    assert len(crash) < len(older)
    log.write_text(crash)
    fault = server_storage_fault(tmp_path, entry, mark)
    assert fault is not None and fault.code == errno.EIO, fault
    assert fault.path == str(log.parent / "data"), fault  # the log names no path: the datadir is said


def test_a_new_log_longer_than_the_old_on_the_old_ones_inode_is_read_whole(tmp_path):
    """ext4 gives the next file made the inode just freed, so init's new log can have the old
    log's inode, and grow past where the old one ended before the crash: the crash, early in the
    new log, is still found."""
    from pagelab.sweep.run_unit import server_log_mark, server_storage_fault

    entry, log = _unit_log(tmp_path)
    older = (CAPTURED_LOGS / "start-stop.err").read_text() * 3
    log.write_text(older)
    mark = server_log_mark(tmp_path, entry)
    crash = (CAPTURED_LOGS / "eio-fdatasync-crash.err").read_text()
    first_fatal = crash.index("[FATAL]")
    assert first_fatal < mark[1], "the crash must lie before where the old log ended"
    with open(log, "r+") as rewritten:  # the same inode, its bytes all new, and longer than before
        rewritten.truncate(0)
        rewritten.write(crash + older)
    assert log.stat().st_ino == mark[0] and log.stat().st_size > mark[1]
    fault = server_storage_fault(tmp_path, entry, mark)
    assert fault is not None and fault.code == errno.EIO, fault


def test_only_what_the_server_logged_after_the_mark_counts(tmp_path):
    """The same log, appended to: a fault logged before the unit began is an earlier run's."""
    from pagelab.sweep.run_unit import server_log_mark, server_storage_fault

    entry, log = _unit_log(tmp_path)
    log.write_text((CAPTURED_LOGS / "eio-crash.err").read_text())
    mark = server_log_mark(tmp_path, entry)
    with open(log, "a") as appended:
        appended.write((CAPTURED_LOGS / "start-stop.err").read_text())
    assert server_storage_fault(tmp_path, entry, mark) is None
    with open(log, "a") as appended:
        appended.write((CAPTURED_LOGS / "eio-crash.err").read_text())
    assert server_storage_fault(tmp_path, entry, mark).code == errno.EIO
