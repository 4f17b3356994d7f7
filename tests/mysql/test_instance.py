"""Private servers on real MariaDB: init, start, page size, failures, clean-up."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pagelab.common.errors import MissingDependencyError, ServerError, UsageError
from pagelab.mysql import Instance, ServerSettings
from tests.conftest import pagelab_here, servers_under
from tests.mysql.conftest import TEST_SETTINGS

pytestmark = pytest.mark.server


@pytest.mark.parametrize("page_size, expected", [("4k", 4096), ("16k", 16384), ("64k", 65536)])
def test_init_start_write_read_stop(make_instance, page_size, expected):
    instance = make_instance(page_size)
    instance.init()
    with instance:
        instance.start()
        assert instance.is_running()
        assert instance.query("SELECT @@innodb_page_size")[0][0] == expected
        instance.query("CREATE DATABASE lab")
        with instance.connect("lab") as connection:
            cursor = connection.cursor()
            cursor.execute("CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(40)) ENGINE=InnoDB")
            cursor.execute("INSERT INTO t VALUES (1, %s)", (f"written at {page_size}",))
            connection.commit()
            cursor.execute("SELECT note FROM t WHERE id = 1")
            assert cursor.fetchone()[0] == f"written at {page_size}"
        pid = instance.pid()
    assert not instance.is_running()
    assert not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split(")")[1][:3]


def test_settings_reach_the_server(make_instance):
    settings = ServerSettings(buffer_pool_bytes="48M", redo_log_bytes="16M", max_connections=33,
                              extra={"innodb_io_capacity": "1234"})
    instance = make_instance("8k", settings=settings)
    instance.init()
    with instance:
        instance.start()
        row = instance.query("SELECT @@innodb_buffer_pool_size, @@innodb_flush_method, @@max_connections, "
                             "@@innodb_io_capacity, @@bind_address, @@innodb_buffer_pool_load_at_startup")[0]
    assert row[0] == 48 << 20
    assert row[1] == "O_DIRECT"
    assert row[2] == 33
    assert row[3] == 1234
    assert row[4] == "127.0.0.1"
    assert row[5] == 0


def test_two_instances_at_once_on_different_ports(make_instance):
    first, second = make_instance("4k"), make_instance("16k")
    first.init()
    second.init()
    with first, second:
        first.start()
        second.start()
        assert first.port != second.port
        import mysql.connector

        for instance, size in ((first, 4096), (second, 16384)):
            with mysql.connector.connect(**instance.connection_args(tcp=True)) as connection:
                cursor = connection.cursor()
                cursor.execute("SELECT @@innodb_page_size, @@port")
                assert cursor.fetchone() == (size, instance.port)


@pytest.mark.parametrize("bad", ["12k", "0", "abc", "128k", 0, 12288, "", "4kk", -4096])
def test_bad_page_size_is_refused_before_any_side_effect(tmp_path, bad):
    target = tmp_path / "never-made"
    with pytest.raises(UsageError, match="innodb_page_size must be one of 4k 8k 16k 32k 64k"):
        Instance(target, bad)
    assert not target.exists()


@pytest.mark.parametrize("spelling, expected", [("4k", 4096), ("8K", 8192), ("16KB", 16384), ("32768", 32768), (65536, 65536)])
def test_page_size_spellings(tmp_path, spelling, expected):
    assert Instance(tmp_path / "x", spelling).page_size == expected


def test_an_instances_non_empty_datadir_needs_force(make_instance):
    """Initialising an instance again needs --force, which wipes its datadir and only that (a
    directory that is not an instance is refused even with --force: see the test below)."""
    instance = make_instance("4k")
    instance.init()
    (instance.paths.datadir / "marker.txt").write_text("from the first init")
    with pytest.raises(UsageError, match="not empty; give --force"):
        instance.init()
    assert (instance.paths.datadir / "marker.txt").read_text() == "from the first init"
    assert not servers_under(instance.root)
    instance.init(force=True)
    assert not (instance.paths.datadir / "marker.txt").exists()
    assert instance.is_initialised()


def test_an_empty_datadir_left_by_a_killed_init_is_made_anew(make_instance):
    """A sweep killed right after init made the datadir leaves it empty; the resumed init (with
    or without --force) must not trip over it."""
    instance = make_instance("4k")
    instance.init()
    for force in (False, True):
        instance.paths.client_cnf.unlink()
        shutil.rmtree(instance.paths.datadir)
        instance.paths.datadir.mkdir()
        assert not instance.is_initialised()
        instance.init(force=force)
        assert instance.is_initialised()


def test_taken_port_is_refused_without_starting(make_instance):
    instance = make_instance("4k")
    instance.init()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        blocked = Instance(instance.root, port=taken)
        with pytest.raises(UsageError, match=f"port {taken} on 127.0.0.1 is taken"):
            blocked.start()
    assert not servers_under(instance.root)
    assert instance.is_initialised()


def test_missing_server_binary_is_named(tmp_path, monkeypatch):
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    monkeypatch.setenv("PAGELAB_SERVER_PATH", "")
    target = tmp_path / "never-made"
    with pytest.raises(MissingDependencyError, match="apt-get install mariadb-server"):
        Instance(target, "4k").init()
    assert not target.exists()


def _wait_until_gone(instance, timeout: float = 30) -> None:
    """SIGKILL takes effect when the kernel gets to it (a server in the middle of I/O can take a
    while on a busy machine): wait for the server process to end rather than a fixed time."""
    instance._process.wait(timeout=timeout)


def test_kill_9_is_noticed(make_instance):
    instance = make_instance("4k")
    instance.init()
    instance.start()
    os.kill(instance.pid(), signal.SIGKILL)
    _wait_until_gone(instance)
    with pytest.raises(ServerError, match="has died \\(killed by signal 9\\)") as raised:
        instance.check_alive()
    assert "tail of" in str(raised.value)
    assert not instance.is_running()


def test_kill_9_is_noticed_by_connect(make_instance):
    instance = make_instance("4k")
    instance.init()
    instance.start()
    os.kill(instance.pid(), signal.SIGKILL)
    _wait_until_gone(instance)
    with pytest.raises(ServerError, match="died"):
        instance.connect()


def test_a_server_that_cannot_start_reports_its_log(make_instance):
    instance = make_instance("4k")
    instance.init()
    instance.settings = instance.settings.with_overrides(extra={"innodb_no_such_option": "1"})
    with pytest.raises(ServerError, match="exited during start-up") as raised:
        instance.start()
    assert "innodb_no_such_option" in str(raised.value)
    assert not servers_under(instance.root)


@pytest.fixture
def small_disk(tmp_path):
    """A real disk to fill: a 150 MB tmpfs at tmp_path/disk."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=150m,mode=0755", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    assert mounted.returncode == 0, f"this test mounts a tmpfs to fill; run it as root ({mounted.stderr.strip()})"
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path, leave_bytes: int) -> None:
    filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.write(filler, bytes(shutil.disk_usage(disk).free - leave_bytes))
    finally:
        os.close(filler)


def test_a_server_that_exits_on_a_full_disk_says_disk_full(make_instance, small_disk):
    """On a disk with a few pages free, mariadbd exits at once, before its error log says why; the
    sweep stops at a full disk only if the error says "disk full"."""
    instance = make_instance("16k", name="disk/instance")
    try:
        instance.init()
        fill(small_disk, 4 * 4096)  # room for my.cnf and client.cnf
        with pytest.raises(ServerError, match="exited during start-up") as raised:
            instance.start(timeout=60)
        assert "disk full" in str(raised.value)
        assert not servers_under(instance.root)
    finally:
        instance.stop(timeout=30)


def test_an_init_on_a_disk_too_small_for_its_redo_log_says_disk_full(make_instance, small_disk):
    """20 MB free is too little for a 64 MB redo log: InnoDB fails with error 28 and deletes what it
    made, so the space is back by the time the install script has exited. Its output still says
    why, and the error must too."""
    instance = make_instance("16k", name="disk/instance",
                             settings=ServerSettings(**{**TEST_SETTINGS, "redo_log_bytes": 64 << 20}))
    fill(small_disk, 20 << 20)
    with pytest.raises(ServerError, match=r"mariadb-install-db exit \d+\); disk full \(.*error 28") as raised:
        instance.init()
    assert shutil.disk_usage(small_disk).free > 1 << 20, "the space came back: the case this test is about"
    assert not servers_under(instance.root), str(raised.value)


def test_start_timeout_reports_the_log_and_leaves_nothing(make_instance):
    instance = make_instance("4k")
    instance.init()
    with pytest.raises(ServerError, match="did not become ready within 0 s") as raised:
        instance.start(timeout=0.0)
    assert "tail of" in str(raised.value)
    assert not servers_under(instance.root)


def test_page_size_mismatch_with_existing_datadir_is_refused(make_instance):
    instance = make_instance("4k")
    instance.init()
    with pytest.raises(UsageError, match="holds a 4k datadir, not 16k"):
        Instance(instance.root, "16k")


def test_password_only_in_client_cnf(make_instance):
    instance = make_instance("4k")
    instance.init()
    with instance:
        instance.start()
        password = instance.password
        assert len(password) >= 20
        mode = stat.S_IMODE(os.stat(instance.paths.client_cnf).st_mode)
        assert mode == 0o600
        client = subprocess.run(["mariadb", f"--defaults-file={instance.paths.client_cnf}", "-N", "-e",
                                 "SELECT @@innodb_page_size"], capture_output=True, text=True, timeout=30)
        assert client.stdout.strip() == "4096", client.stderr
    for path in instance.root.rglob("*"):
        if path.is_file() and path != instance.paths.client_cnf and "data" not in path.relative_to(instance.root).parts:
            assert password not in path.read_text(errors="replace"), f"password leaked into {path}"


def test_client_cnf_is_replaced_whole_at_each_start_and_stays_private(make_instance):
    """Every start writes client.cnf anew (its port). Truncated and rewritten in place, a kill
    between the two would leave it empty and root's password lost with it; so each start puts a
    new 0600 file in its place, and an old copy made readable by others is not kept."""
    instance = make_instance("4k")
    instance.init()
    cnf = instance.paths.client_cnf
    cnf.chmod(0o644)
    before = os.stat(cnf).st_ino
    with instance:
        instance.start()
        after = os.stat(cnf)
        assert after.st_ino != before, "client.cnf was rewritten in place"
        assert stat.S_IMODE(after.st_mode) == 0o600
        assert f"port={instance.port}" in cnf.read_text() and instance.password in cnf.read_text()
    assert not [path.name for path in cnf.parent.iterdir() if path.name.startswith(f".{cnf.name}.tmp")]


def test_under_root_the_server_runs_as_this_process_user_whatever_user_says(monkeypatch):
    """mysqld needs `user=` under root; $USER and $LOGNAME may name someone else (sudo -E), whose
    server would be refused the datadir."""
    import pwd

    from pagelab.mysql.config import InstancePaths, render_my_cnf

    if os.geteuid() != 0:
        pytest.fail("this test needs root: `make test` runs as root (README)")
    monkeypatch.setenv("USER", "nobody")
    monkeypatch.setenv("LOGNAME", "nobody")
    root = Path("/tmp/pagelab-cnf-check")
    text = render_my_cnf(InstancePaths(root, root / "mysqld.sock"), ServerSettings(), 4096, port=3307)
    assert f"user={pwd.getpwuid(0).pw_name}" in text.splitlines(), text


# A machine whose names resolve nowhere, as a bare system root: a host name of its own, and
# /etc/hosts and /etc/resolv.conf made empty, in mount and UTS namespaces of the child's own.
NO_NAME_RESOLVES = """
for file in /etc/hosts /etc/resolv.conf; do if [ -e "$file" ]; then mount --bind "$0" "$file"; fi; done
hostname pagelab-no-such-host
if getent hosts localhost >/dev/null; then echo "localhost still resolves" >&2; exit 3; fi
exec "$@"
"""


def init_where_no_name_resolves(instance: Instance) -> None:
    """instance.init() in a child process on such a machine (mariadb-install-db refused there:
    "Neither host ... nor 'localhost' could be looked up")."""
    if os.geteuid() != 0:
        pytest.fail("this test needs root for its mount and UTS namespaces: `make test` runs as root (README)")
    empty = instance.root.parent / "empty-names"
    empty.write_text("")
    init = (f"from pagelab.mysql import Instance, ServerSettings; "
            f"Instance({str(instance.root)!r}, {instance.page_size!r}, settings=ServerSettings(**{TEST_SETTINGS!r})).init()")
    done = subprocess.run(["unshare", "--mount", "--uts", "--propagation", "private", "--", "/bin/sh", "-ec",
                           NO_NAME_RESOLVES, str(empty), sys.executable, "-c", init],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_without_a_password_no_one_gets_in_but_the_os_root(make_instance):
    """Over TCP root needs its password. Over the private socket no standing account admits anyone
    without one (tpcc-mysql's programs get an account per run: pagelab.mysql.program_account);
    claiming root from another OS user is refused. Under root the socket sits in a root-owned
    directory that others may pass through but not write. The instance is initialised where no name
    resolves, and root still gets in with its password: as root@127.0.0.1 over TCP (the servers skip
    name resolution, so a TCP login matches that account, not root@localhost) and as root@localhost
    over the socket."""
    import shutil

    import mysql.connector

    instance = make_instance("4k")
    init_where_no_name_resolves(instance)
    with instance:
        instance.start()
        with pytest.raises(mysql.connector.Error):
            mysql.connector.connect(user="root", password="", host="127.0.0.1", port=instance.port)
        with mysql.connector.connect(**instance.connection_args(tcp=True)) as connection:
            cursor = connection.cursor()
            cursor.execute("SELECT CURRENT_USER()")
            assert cursor.fetchone()[0] == "root@127.0.0.1"
        assert instance.query("SELECT CURRENT_USER()")[0][0] == "root@localhost"
        accounts = {row[0] for row in instance.query("SELECT user FROM mysql.user")}
        assert accounts <= {"root", "mariadb.sys", "PUBLIC", ""}, accounts
        client = shutil.which("mariadb")
        if os.geteuid() == 0:
            directory = instance.paths.socket.parent.lstat()
            assert directory.st_uid == 0 and stat.S_IMODE(directory.st_mode) == 0o711
            other = subprocess.run(["runuser", "-u", "nobody", "--", client, "--no-defaults", "-S",
                                    str(instance.paths.socket), "-u", "root", "-e", "SELECT 1"],
                                   capture_output=True, text=True, timeout=30)
        else:
            other = subprocess.run([client, "--no-defaults", "-S", str(instance.paths.socket), "-u", "root",
                                    "-e", "SELECT 1"], capture_output=True, text=True, timeout=30)
        assert other.returncode != 0 and "Access denied" in other.stderr, other.stderr


@pytest.mark.parametrize("force", [False, True])
def test_init_into_a_folder_of_ones_own_is_refused_and_changes_nothing(tmp_path, force):
    """`pagelab server init` into a non-empty directory that is not an instance must not mix a
    datadir into the user's files or overwrite a my.cnf or init.log there, --force or not."""
    mine = tmp_path / "mine"
    mine.mkdir()
    files = {"my.cnf": "[client]\nuser=me\n", "init.log": "my log\n", "paper.md": "draft\n"}
    for name, text in files.items():
        (mine / name).write_text(text)
    done = pagelab_here("server", "init", mine, "--page-size", "4k", *(["--force"] if force else []))
    assert done.returncode == 2, done.stderr
    assert "is not empty and is not a pagelab instance" in done.stderr
    assert {p.name: p.read_text() for p in mine.iterdir()} == files


def test_snapshot_and_restore_give_back_the_loaded_state(make_instance):
    instance = make_instance("8k")
    instance.init()
    with instance:
        instance.start()
        instance.query("CREATE DATABASE lab")
        instance.query("CREATE TABLE lab.t (id INT PRIMARY KEY) ENGINE=InnoDB")
        instance.query("INSERT INTO lab.t VALUES (1), (2), (3)")
        with pytest.raises(UsageError, match="before taking a snapshot"):
            instance.snapshot()
    snapshot = instance.snapshot()
    assert snapshot.is_dir()
    with instance:
        instance.start()
        instance.query("DELETE FROM lab.t WHERE id > 1")
        assert instance.query("SELECT COUNT(*) FROM lab.t")[0][0] == 1
    instance.restore()
    with instance:
        instance.start()
        assert instance.query("SELECT COUNT(*) FROM lab.t")[0][0] == 3
    # a snapshot a failing disk damaged (a file cut short) is refused, not restored
    table = next(snapshot.rglob("t.ibd"))
    os.truncate(table, table.stat().st_size // 2)
    with pytest.raises(ServerError, match=r"is not whole: lab/t.ibd is \d+ bytes, and the snapshot recorded"):
        instance.restore()


def test_context_manager_stops_on_error(make_instance):
    instance = make_instance("4k")
    instance.init()
    with pytest.raises(RuntimeError):
        with instance:
            instance.start()
            raise RuntimeError("something inside failed")
    assert not instance.is_running()
    assert not servers_under(instance.root)


def test_a_killed_python_process_takes_its_server_down(tmp_path):
    """The kernel's parent-death signal stops a server whose Python owner was SIGKILLed."""
    script = textwrap.dedent(f"""
        import sys, time
        from pagelab.mysql import Instance, ServerSettings
        instance = Instance({str(tmp_path / 'orphan')!r}, '4k',
                            settings=ServerSettings(buffer_pool_bytes='32M', redo_log_bytes='16M'))
        instance.init()
        instance.start()
        print(instance.pid(), flush=True)
        time.sleep(600)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        server_pid = int(child.stdout.readline())
        assert servers_under(tmp_path)
        child.kill()
        child.wait()
        deadline = time.monotonic() + 60
        while servers_under(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not servers_under(tmp_path), f"server {server_pid} outlived its owner"
    finally:
        child.kill()
        for pid in servers_under(tmp_path):
            os.kill(pid, signal.SIGKILL)
