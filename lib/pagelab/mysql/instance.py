"""A private MariaDB/MySQL server: its own datadir, unix socket and loopback port.

Why one file of this size: it is one object's life (init, start, check, stop, snapshot, restore),
and each step relies on the state files the others write; splitting it would split that contract.

An `Instance` is a directory. Everything it needs lives inside, so a sweep can keep one per page
size side by side and a user can inspect or delete one with ordinary tools:

    DIR/
      instance.json   page size, flavour, server binary, settings, the port of the last start
      my.cnf          written from ServerSettings at every start
      client.cnf      mode 0600: root's random password (`mariadb --defaults-file=DIR/client.cnf`)
      data/           the datadir, created with the page size
      mysqld.err      the server's error log (its tail goes into every start/crash error)
      mysqld.pid      pid of the running server
      mysqld.sock     unix socket (in the temp dir instead when DIR's path is too long for one)
      tmp/            the server's tmpdir
      snapshot/       a copy of a cleanly shut down datadir (snapshot()/restore())

Life cycle: `init()` creates the datadir with `mariadb-install-db` or
`mysqld --initialize-insecure`, then starts once without networking to give root a password;
`start()` runs the server on a free 127.0.0.1 port and waits until it answers and reports the
requested `@@innodb_page_size`; `stop()` asks for a clean shutdown (SIGTERM) and kills after a
timeout. Used as a context manager, an instance is always stopped on the way out, whatever went
wrong inside. Servers this process started are also stopped at interpreter exit, and on Linux
get SIGTERM from the kernel if this process dies without running any cleanup at all.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import weakref
from dataclasses import asdict
from pathlib import Path

from pagelab.common.atomic import atomic_write_json, atomic_write_text
from pagelab.common.errors import ServerError, UsageError
from pagelab.common.disk import FULL_DISK_BYTES, says_disk_full
from pagelab.common.storage import read_only_now
from pagelab.mysql.config import (
    InstancePaths,
    ServerSettings,
    render_client_cnf,
    render_my_cnf,
)
from pagelab.mysql.flavour import ServerFlavour, detect_server
from pagelab.mysql.pagesize import parse_page_size
from pagelab.mysql.snapshot_record import (SNAPSHOT_MARKER, SNAPSHOT_PASSWORD_FILE, snapshot_problem,
                                           write_snapshot_marker)
from pagelab.common.units import page_size_label, with_article
from pagelab.common.processes import die_with_parent, kill_until_gone, process_alive, process_ids, process_state

# sun_path in sockaddr_un is 108 bytes on Linux, including the terminating NUL.
MAX_SOCKET_PATH = 107
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 120.0
INIT_TIMEOUT_S = 300.0
ERROR_LOG_TAIL_LINES = 25
# How often readiness and shutdown are polled: short against a 1-3 s start, cheap on 2 cores.
POLL_INTERVAL_S = 0.1
# DiskWatch: 5 s under pagelab.common.disk.FULL_DISK_BYTES, rather than one look, so that a disk
# someone is freeing is not called full.
LOW_DISK_GRACE_S = 5.0
PASSWORD_BYTES = 18  # 24 URL-safe characters

_started_here: "weakref.WeakSet[Instance]" = weakref.WeakSet()


class DiskWatch:
    """A server that meets a full disk while it writes its system tables (Aria) does not fail: it
    waits for space, retrying every minute, for ever, and on a full disk it cannot even log why
    (its error log is there too). A harness has nobody to free the space, so while pagelab waits
    for a server to initialise or start, a disk with less than FULL_DISK_BYTES free for
    LOW_DISK_GRACE_S is a failure, said as one ("disk full", which the sweep recognises). So is a
    filesystem turned read-only (EROFS, which the sweep recognises too), at once: while a server
    starts, measures (the TPC-C driver asks too) or shuts down."""

    def __init__(self, directory: Path, what: str):
        self.directory, self.what = directory, what
        self.low_since: float | None = None

    def failure(self) -> str | None:
        """Why the server is stuck: its filesystem turned read-only (said at once: a server can
        neither start nor shut down cleanly on it, and nothing comes back by waiting), or the disk
        has been full for LOW_DISK_GRACE_S; else None."""
        if read_only_now(self.directory) is not None:
            return (f"the {self.what} server's filesystem turned read-only: [Errno {errno.EROFS}] "
                    f"{os.strerror(errno.EROFS)}: '{self.directory}'")
        try:
            free = shutil.disk_usage(self.directory).free
        except OSError:
            return None
        if free >= FULL_DISK_BYTES:
            self.low_since = None
            return None
        now = time.monotonic()
        self.low_since = self.low_since or now
        if now - self.low_since < LOW_DISK_GRACE_S:
            return None
        return (f"the {self.what} server is waiting for disk space: disk full ({free} bytes free on the disk of "
                f"{self.directory} for {LOW_DISK_GRACE_S:.0f} s)")

    def full_now(self, *outputs: str) -> str | None:
        """Why a server or install script that exited at once did, if a full disk: the disk is full
        now (a server that can't create a file it needs may leave an empty error log), or a line of
        what it printed (`outputs`) says so -- InnoDB deletes the files it could not finish, so on a
        disk too small for its redo log the space is back by the time anyone looks."""
        try:
            free = shutil.disk_usage(self.directory).free
        except OSError:
            free = None
        if free is not None and free < FULL_DISK_BYTES:
            return f"disk full ({free} bytes free on the disk of {self.directory})"
        said = [line.strip() for output in outputs for line in output.splitlines() if says_disk_full(line)]
        return f"disk full ({said[0]})" if said else None

    def check(self) -> None:
        why = self.failure()
        if why:
            raise ServerError(why)


def _die_with_parent() -> None:  # runs in the child between fork and exec
    # If the Python process dies without cleanup (SIGKILL, OOM), Linux sends the server SIGKILL:
    # no orphaned server holds memory, a port and the datadir. Not SIGTERM, the clean shutdown: one
    # that arrives while mysqld is still starting up can go unheeded (seen in the fault suite, at
    # init and at a run's start), and one on a full disk waits for space. Nothing is lost: a sweep
    # never uses the datadir of a server whose owner died without restoring it from the snapshot
    # (or loading anew), and any other datadir comes back through InnoDB's crash recovery.
    die_with_parent(signal.SIGKILL)


def _stop_all_started_here() -> None:
    for instance in list(_started_here):
        try:
            instance.stop()
        except Exception:
            pass


atexit.register(_stop_all_started_here)


def tail_of(path: Path, lines: int = ERROR_LOG_TAIL_LINES) -> str:
    """The last lines of a log, or a note that there is none (never raises)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(kept) if kept else f"({path} is empty)"


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_loopback_port() -> int:
    """A port the kernel just handed out on 127.0.0.1; the server binds it a moment later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _socket_path_for(root: Path) -> Path:
    preferred = root / "mysqld.sock"
    if len(str(preferred)) <= MAX_SOCKET_PATH and os.geteuid() != 0:
        return preferred
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:16]
    if os.geteuid() == 0:
        return socket_directory_for_others() / f"{digest}.sock"
    return Path(tempfile.gettempdir()) / f"pagelab-{digest}.sock"


def socket_directory_for_others() -> Path:
    """Where root's instances keep their sockets: a root-owned directory that others may pass
    through (0711) but not list or write. Under root, tpcc-mysql runs as an unprivileged user
    (pagelab.mysql.program_account), which must reach the socket, and the instance's own
    directory may sit below one it cannot enter (pytest's temporary directories are 0700)."""
    directory = Path(tempfile.gettempdir()) / "pagelab-sockets"
    try:
        directory.mkdir(mode=0o711)
    except FileExistsError:
        pass
    status = directory.lstat()
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != 0 or status.st_mode & 0o022:
        raise ServerError(f"{directory} exists but is not a root-owned directory that only root can write; "
                          "remove it, and pagelab makes it again")
    os.chmod(directory, 0o711)
    return directory


class Instance:
    """One private server. See the module docstring for the directory layout and life cycle."""

    def __init__(
        self,
        directory: str | os.PathLike,
        page_size: str | int | None = None,
        settings: ServerSettings | None = None,
        server_binary: str | os.PathLike | None = None,
        port: int | None = None,
        tie_to_parent: bool = True,
        replacing: bool = False,
    ):
        """Describe an instance; nothing on disk changes until init() or start().

        page_size is required for a new directory and checked against an existing one, unless
        `replacing` (the caller is about to init(force=True), which wipes the old datadir).
        port=None picks a free loopback port at each start. tie_to_parent=False lets the server
        outlive this process (the `pagelab server start` CLI path).
        """
        self.root = Path(directory).expanduser().resolve()
        self.paths = InstancePaths(self.root, _socket_path_for(self.root))
        state = self._read_state()
        if page_size is None:
            if state is None:
                raise UsageError(
                    f"{self.root} is not a pagelab instance (no instance.json); "
                    f"create it with `pagelab server init {directory} --page-size 16k`"
                )
            self.page_size = int(state["page_size"])
        else:
            self.page_size = parse_page_size(page_size)
            if (state is not None and int(state["page_size"]) != self.page_size and self.paths.datadir.exists()
                    and not replacing):
                raise UsageError(
                    f"{self.root} holds {with_article(page_size_label(int(state['page_size'])))} datadir, "
                    f"not {page_size_label(self.page_size)}; use another directory, or re-create it at "
                    f"{page_size_label(self.page_size)} with `pagelab server init {self.root} --page-size "
                    f"{page_size_label(self.page_size)} --force`"
                )
        if settings is None:
            settings = ServerSettings(**state["settings"]) if state and "settings" in state else ServerSettings()
        self.settings = settings
        if port is not None and not (1 <= int(port) <= 65535):
            raise UsageError(f"port must be from 1 to 65535, got {port}")
        self.requested_port = port
        self._server_binary = server_binary or (state or {}).get("server_binary")
        self._flavour: ServerFlavour | None = None
        self.tie_to_parent = tie_to_parent
        self.port: int | None = (state or {}).get("port")
        self._process: subprocess.Popen | None = None

    # ----------------------------------------------------------------- description

    @property
    def page_size_label(self) -> str:
        return page_size_label(self.page_size)

    @property
    def flavour(self) -> ServerFlavour:
        if self._flavour is None:
            self._flavour = detect_server(self._server_binary)
        return self._flavour

    def __repr__(self) -> str:
        return f"Instance({str(self.root)!r}, page_size={self.page_size_label!r}, port={self.port})"

    def _read_state(self) -> dict | None:
        try:
            return json.loads(self.paths.state_file.read_text())
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"{self.paths.state_file} is unreadable ({exc}); re-create with init --force") from exc

    def _write_state(self, **updates) -> None:
        state = self._read_state() or {}
        state.update(
            page_size=self.page_size,
            page_size_label=self.page_size_label,
            settings=self.settings.to_dict(),
            server_binary=str(self.flavour.server_binary),
            flavour=self.flavour.flavour,
            server_version=self.flavour.version,
            socket=str(self.paths.socket),
        )
        state.update(updates)
        atomic_write_json(self.paths.state_file, state)

    @property
    def password(self) -> str:
        """root's password, read from client.cnf (never logged or printed)."""
        try:
            for line in self.paths.client_cnf.read_text().splitlines():
                if line.startswith("password="):
                    return line.split("=", 1)[1]
        except FileNotFoundError:
            pass
        raise ServerError(f"{self.paths.client_cnf} is missing; the instance was not initialised (pagelab server init)")

    def is_initialised(self) -> bool:
        return (self.paths.datadir / "mysql").is_dir() and self.paths.client_cnf.exists()

    # ----------------------------------------------------------------- init

    def init(self, force: bool = False, timeout: float = INIT_TIMEOUT_S) -> "Instance":
        """Create the datadir with this page size and give root a random password.

        Refuses a non-empty datadir unless force=True (which wipes it). On failure, nothing it
        created is left behind.
        """
        flavour = self.flavour  # a missing server fails here, before anything is written
        if self.is_running():
            raise UsageError(f"{self.root} has a running server (pid {self.pid()}); stop it first: pagelab server stop {self.root}")
        if self.root.is_dir() and any(self.root.iterdir()) and not self.paths.state_file.is_file():
            # Not ours: init would mix a datadir into the user's files and overwrite any my.cnf there.
            raise UsageError(f"{self.root} is not empty and is not a pagelab instance (no instance.json); "
                             "give a new or empty directory")
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"{self.root} is a file; give a new or empty directory for the instance")
        datadir = self.paths.datadir
        if datadir.exists():
            if not force and any(datadir.iterdir()):
                raise UsageError(f"datadir {datadir} is not empty; give --force to wipe it and start over")
            # Empty or forced: an init killed midway leaves either, and its strays may still be
            # about to write into it
            self._kill_strays()
            shutil.rmtree(datadir)
        created_root = not self.root.exists()
        was_empty = created_root or not any(self.root.iterdir())
        try:
            # instance.json is rewritten below, never removed first: it marks the directory as
            # pagelab's for as long as it is (see the clean-up after a failure)
            for leftover in (self.paths.error_log, self.paths.pid_file):
                leftover.unlink(missing_ok=True)
            self.root.mkdir(parents=True, exist_ok=True)
            datadir.mkdir()
            self.paths.tmpdir.mkdir(exist_ok=True)
            self._write_state(port=None)
            self.paths.my_cnf.write_text(render_my_cnf(self.paths, self.settings, self.page_size, port=None))
            password = secrets.token_urlsafe(PASSWORD_BYTES)
            self._write_client_cnf(password, port=None)
            self._run_install_db(flavour, timeout)
            self._secure_root(password, timeout, flavour)
        except BaseException:
            # Includes KeyboardInterrupt: a half-made datadir would later look initialised.
            self._kill_quietly()
            if created_root:
                shutil.rmtree(self.root, ignore_errors=True)
            elif was_empty:  # the user's empty directory: empty again
                for made in self.root.iterdir():
                    if made.is_dir() and not made.is_symlink():
                        shutil.rmtree(made, ignore_errors=True)
                    else:
                        made.unlink(missing_ok=True)
            else:
                # An instance being initialised again (a resumed sweep's first load): instance.json
                # stays, as the mark that the directory is pagelab's, or the next init would refuse it.
                shutil.rmtree(datadir, ignore_errors=True)
                for made in (self.paths.client_cnf, self.paths.my_cnf):
                    made.unlink(missing_ok=True)
            raise
        return self

    def _write_client_cnf(self, password: str, port: int | None) -> None:
        _write_private(self.paths.client_cnf, render_client_cnf(self.paths, password, port))

    def _page_size_args(self) -> list[str]:
        # Given on the command line as well as in my.cnf: install scripts and some versions read
        # option files differently from a normal start (dbdeployer's trap), the command line wins.
        return [f"--innodb-page-size={self.page_size}"]

    def _run_install_db(self, flavour: ServerFlavour, timeout: float) -> None:
        defaults = f"--defaults-file={self.paths.my_cnf}"
        if flavour.flavour == "mariadb":
            command = [str(flavour.install_db), defaults, "--skip-test-db", f"--datadir={self.paths.datadir}"]
            # root@localhost only, reachable through the socket; _secure_root sets its password.
            command += ["--auth-root-authentication-method=socket"]
            # The servers listen on 127.0.0.1 only and skip name resolution (my.cnf), so no account
            # needs this machine's name. Without --force the script first looks the host name, then
            # `localhost`, up with resolveip and refuses where neither resolves (an odd host name, a
            # system root without /etc/hosts); its --skip-name-resolve does not spare that look-up.
            command += ["--force"]
            command += self._page_size_args()
            if os.geteuid() == 0:
                command.append("--user=root")
        else:
            command = [str(flavour.server_binary), defaults, "--initialize-insecure"] + self._page_size_args()
        log = self.root / "init.log"
        deadline = time.monotonic() + timeout
        disk = DiskWatch(self.paths.datadir.parent, self.page_size_label)
        with open(log, "w") as out:
            # A session of its own: the install script runs the bootstrap server in a pipeline of
            # subshells, and a failed or interrupted init must take all of them down.
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       preexec_fn=_die_with_parent if self.tie_to_parent else None,
                                       start_new_session=True)
            try:
                while process.poll() is None:
                    if time.monotonic() > deadline:
                        raise ServerError(f"initialising {self.paths.datadir} took over {timeout:.0f} s;\n{tail_of(log)}")
                    disk.check()
                    time.sleep(POLL_INTERVAL_S)
            finally:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left
                except ProcessLookupError:
                    pass
                process.wait()
        if process.returncode != 0:
            full = disk.full_now(log.read_text(errors="replace"), tail_of(self.paths.error_log))
            raise ServerError(
                f"initialising {with_article(self.page_size_label)} datadir failed ({Path(command[0]).name} exit {process.returncode})"
                f"{'; ' + full if full else ''}.\n"
                f"--- {log.name} ---\n{tail_of(log)}\n--- {self.paths.error_log.name} ---\n{tail_of(self.paths.error_log)}"
            )

    def _secure_root(self, password: str, timeout: float, flavour: ServerFlavour | None = None) -> None:
        """One start without networking, with an init file that gives root its password.

        On MariaDB, root@localhost also keeps unix_socket authentication, so the OS root can
        always reach its own instances. Programs that only take a password on their command line
        (tpcc-mysql) get an account of their own per run (pagelab.mysql.program_account)."""
        init_sql = self.root / "secure-root.sql"
        quoted = password.replace("\\", "\\\\").replace("'", "\\'")
        if flavour is not None and flavour.flavour == "mariadb":
            local_root = (f"ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password "
                          f"USING PASSWORD('{quoted}') OR unix_socket;\n")
        else:
            local_root = f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{quoted}';\n"
        _write_private(init_sql,
                       local_root +
                       f"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '{quoted}';\n"
                       "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n"
                       "FLUSH PRIVILEGES;\n")
        try:
            self._launch(port=None, extra_args=[f"--init-file={init_sql}"], timeout=timeout)
        finally:
            init_sql.unlink(missing_ok=True)
        self.stop()

    # ----------------------------------------------------------------- start / stop

    def pid(self) -> int | None:
        if self._process is not None and self._process.poll() is None:
            return self._process.pid
        try:
            pid = int(self.paths.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if self._owns_pid(pid) else None

    def _owns_pid(self, pid: int) -> bool:
        """True when pid is alive and is a server started with this instance's my.cnf."""
        if not process_alive(pid):
            return False
        started_with = self._started_with_my_cnf(pid)
        return True if started_with is None else started_with  # no /proc: trust the pid file

    def _started_with_my_cnf(self, pid: int | str) -> bool | None:
        """Whether process `pid` was started with this instance's my.cnf; None if /proc can't say."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        return f"--defaults-file={self.paths.my_cnf}".encode() in cmdline

    def is_running(self) -> bool:
        return self.pid() is not None

    def _kill_strays(self, timeout: float = 10.0) -> None:
        """SIGKILL any process still started with this instance's my.cnf that no pid file names:
        what an init killed midway leaves (mariadb-install-db's subshells and its bootstrap server
        outlive the script when its owner is killed with -9), which would go on writing into the
        datadir about to be wiped and made anew."""
        kill_until_gone(lambda: [pid for pid in process_ids() if self._started_with_my_cnf(pid)], timeout,
                        POLL_INTERVAL_S)

    def start(self, timeout: float = START_TIMEOUT_S) -> "Instance":
        """Start on 127.0.0.1 and wait until it answers with the requested page size."""
        if not self.is_initialised():
            raise UsageError(f"{self.root} has no initialised datadir; run `pagelab server init {self.root} --page-size {self.page_size_label}` first")
        if self.is_running():
            raise UsageError(f"{self.root} is already running (pid {self.pid()}, port {self.port}); stop it with `pagelab server stop {self.root}`")
        if self.requested_port is not None and not port_is_free(self.requested_port):
            raise UsageError(f"port {self.requested_port} on 127.0.0.1 is taken; choose another port or leave it out to get a free one")
        attempts = 1 if self.requested_port is not None else 3
        for attempt in range(attempts):
            port = self.requested_port or free_loopback_port()
            try:
                self._launch(port=port, extra_args=[], timeout=timeout)
                break
            except ServerError as exc:
                # Another process may take the port between our probe and the server's bind.
                if "Address already in use" in str(exc) and attempt + 1 < attempts:
                    continue
                raise
        self._verify_page_size()
        return self

    def _launch(self, port: int | None, extra_args: list[str], timeout: float) -> None:
        flavour = self.flavour
        self.paths.my_cnf.write_text(render_my_cnf(self.paths, self.settings, self.page_size, port))
        self._write_client_cnf(self.password, port)
        self.paths.pid_file.unlink(missing_ok=True)
        if self.paths.socket.exists():
            self.paths.socket.unlink()
        log_offset = self.paths.error_log.stat().st_size if self.paths.error_log.exists() else 0
        command = [str(flavour.server_binary), f"--defaults-file={self.paths.my_cnf}"]
        command += self._page_size_args() + extra_args
        with open(self.root / "mysqld.out", "ab") as console:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C goes to pagelab, which then stops the server cleanly
                preexec_fn=_die_with_parent if self.tie_to_parent else None,
            )
        _started_here.add(self)
        self.port = port
        self._write_state(port=port, pid=self._process.pid)
        try:
            self._wait_until_ready(timeout, log_offset)
        except BaseException:
            self._kill_quietly()
            raise

    def _new_log_text(self, offset: int) -> str:
        try:
            with open(self.paths.error_log, "rb") as handle:
                handle.seek(offset)
                return handle.read().decode(errors="replace")
        except OSError:
            return ""

    def _wait_until_ready(self, timeout: float, log_offset: int) -> None:
        import mysql.connector

        deadline = time.monotonic() + timeout
        disk = DiskWatch(self.paths.datadir.parent, self.page_size_label)
        last_error = "no answer yet"
        while True:
            if self._process is not None and self._process.poll() is not None:
                new_log = self._new_log_text(log_offset)
                full = disk.full_now(new_log)
                raise ServerError(
                    f"the {self.page_size_label} server exited during start-up (exit {self._process.returncode})"
                    f"{'; ' + full if full else ''}.\n"
                    f"--- tail of {self.paths.error_log} ---\n{new_log.strip()[-4000:] or tail_of(self.paths.error_log)}"
                )
            if self.paths.socket.exists():
                try:
                    connection = mysql.connector.connect(
                        unix_socket=str(self.paths.socket), user="root", password=self.password,
                        connection_timeout=5, use_pure=True,
                    )
                    connection.close()
                    return
                except mysql.connector.Error as exc:
                    last_error = str(exc)
            disk.check()
            if time.monotonic() > deadline:
                raise ServerError(
                    f"the {self.page_size_label} server did not become ready within {timeout:.0f} s ({last_error}).\n"
                    f"--- tail of {self.paths.error_log} ---\n{tail_of(self.paths.error_log)}"
                )
            time.sleep(POLL_INTERVAL_S)

    def _verify_page_size(self) -> None:
        with self.connect() as connection:
            cursor = connection.cursor()
            cursor.execute("SELECT @@innodb_page_size")
            actual = int(cursor.fetchone()[0])
        if actual != self.page_size:
            self.stop()
            raise ServerError(
                f"the server reports innodb_page_size={actual}, but {self.root} was asked for {self.page_size}; "
                f"the datadir was made with another page size: re-create it with `pagelab server init --force`"
            )

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Clean shutdown (SIGTERM), then SIGKILL after `timeout`; a stopped server (state T) is
        killed at once. True if it shut down cleanly.

        Safe to call when nothing runs; never leaves a server behind.
        """
        pid = self.pid()
        if pid is None:
            self._reap()
            return True
        if process_state(pid) in ("T", "t"):
            # A stopped server (SIGSTOP, a debugger) would hold SIGTERM pending until the timeout.
            self._kill_quietly()
            return False
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            self._reap()
            return True
        clean = self._wait_for_exit(pid, timeout)
        if not clean:
            self._kill_quietly()
        self._reap()
        _started_here.discard(self)
        return clean

    def _wait_for_exit(self, pid: int, timeout: float) -> bool:
        """True once the server has exited; False at the timeout, or as soon as DiskWatch sees it
        is stuck on a full disk (its shutdown waits for space to write its last checkpoint)."""
        deadline = time.monotonic() + timeout
        disk = DiskWatch(self.paths.datadir.parent, self.page_size_label)
        while time.monotonic() < deadline and not disk.failure():
            if self._process is not None and self._process.pid == pid:
                if self._process.poll() is not None:
                    return True
            elif not process_alive(pid):
                return True
            time.sleep(POLL_INTERVAL_S)
        return False

    def _reap(self) -> None:
        if self._process is not None:
            self._process.poll()
            self._process = None

    def _kill_quietly(self) -> None:
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._wait_for_exit(pid, 30)
        self._reap()
        _started_here.discard(self)

    def check_alive(self) -> None:
        """Raise ServerError with the error log tail if a server this object started has died.

        Safe to call from several threads (the monitors do); every call after a death says how
        the server died, not only the first."""
        process = self._process
        if process is not None and process.poll() is not None:
            code = process.returncode
            _started_here.discard(self)
            how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
            raise ServerError(
                f"the {self.page_size_label} server at {self.root} has died ({how}).\n"
                f"--- tail of {self.paths.error_log} ---\n{tail_of(self.paths.error_log)}"
            )
        if self._process is None and self.port is not None and not self.is_running():
            raise ServerError(
                f"the {self.page_size_label} server at {self.root} is not running.\n"
                f"--- tail of {self.paths.error_log} ---\n{tail_of(self.paths.error_log)}"
            )

    def __enter__(self) -> "Instance":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # ----------------------------------------------------------------- clients

    def connection_args(self, database: str | None = None, tcp: bool = False) -> dict:
        """Keyword arguments for mysql.connector.connect (contain the password: never log them)."""
        args = {"user": "root", "password": self.password}
        if tcp:
            if self.port is None:
                raise ServerError(f"{self.root} has no TCP port; start it first")
            args.update(host="127.0.0.1", port=self.port)
        else:
            args["unix_socket"] = str(self.paths.socket)
        if database:
            args["database"] = database
        return args

    def connect(self, database: str | None = None, **options):
        """A mysql-connector connection as root through the socket."""
        import mysql.connector

        self.check_alive()
        try:
            return mysql.connector.connect(**self.connection_args(database), **options)
        except mysql.connector.Error:
            self.check_alive()  # a dead server explains the failure better than the connector
            raise

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Run one statement and return its rows: for status checks and small lookups."""
        with self.connect() as connection:
            cursor = connection.cursor()
            cursor.execute(sql, params)
            rows = cursor.fetchall() if cursor.with_rows else []
            connection.commit()
            return rows

    def status(self) -> dict:
        """What `pagelab server status` prints (no password)."""
        running = self.is_running()
        info = {
            "directory": str(self.root),
            "page_size": self.page_size_label,
            "initialised": self.is_initialised(),
            "running": running,
            "pid": self.pid(),
            "port": self.port if running else None,
            "socket": str(self.paths.socket),
            "client_cnf": str(self.paths.client_cnf),
            "settings": asdict(self.settings),
        }
        if running:
            try:
                rows = dict(self.query("SELECT 'version', VERSION() UNION ALL SELECT 'page', @@innodb_page_size "
                                       "UNION ALL SELECT 'pool', @@innodb_buffer_pool_size"))
                info.update(server_version=rows["version"], innodb_page_size=int(rows["page"]),
                            buffer_pool_bytes=int(rows["pool"]))
            except Exception as exc:  # status must report, not fail
                info["error"] = str(exc)
        return info

    # ----------------------------------------------------------------- snapshots

    def snapshot(self, destination: str | os.PathLike | None = None) -> Path:
        """Copy the (cleanly stopped) datadir, so repeats can start from the identical state."""
        if self.is_running():
            raise UsageError(f"stop {self.root} before taking a snapshot: a running datadir is not consistent on disk")
        if not self.is_initialised():
            raise UsageError(f"{self.root} has no datadir to snapshot")
        target = Path(destination) if destination else self.paths.default_snapshot
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        _copy_tree(self.paths.datadir, partial)
        write_snapshot_marker(partial, self.page_size)
        # The grant tables inside hold root's password; keep it with them (0600) so that any
        # instance restoring this snapshot can log in.
        _write_private(partial / SNAPSHOT_PASSWORD_FILE, self.password)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)  # only a complete copy ever carries the snapshot's name
        return target

    def restore(self, source: str | os.PathLike | None = None) -> None:
        """Replace the datadir with a snapshot taken by snapshot()."""
        if self.is_running():
            raise UsageError(f"stop {self.root} before restoring a snapshot")
        origin = Path(source) if source else self.paths.default_snapshot
        marker = origin / SNAPSHOT_MARKER
        if not marker.exists():
            raise UsageError(f"{origin} is not a pagelab snapshot (take one with snapshot() after a clean stop)")
        problem = snapshot_problem(origin)
        if problem:
            raise ServerError(f"snapshot {origin} is not whole: {problem}; take it again (a sweep's resume does)")
        taken_with = json.loads(marker.read_text())["page_size"]
        if taken_with != self.page_size:
            raise UsageError(f"snapshot {origin} is of {with_article(page_size_label(taken_with))} datadir, this instance is {self.page_size_label}")
        partial = self.paths.datadir.with_name("data.restoring")
        shutil.rmtree(partial, ignore_errors=True)
        _copy_tree(origin, partial)
        (partial / SNAPSHOT_MARKER).unlink()
        password = (partial / SNAPSHOT_PASSWORD_FILE).read_text()
        (partial / SNAPSHOT_PASSWORD_FILE).unlink()
        shutil.rmtree(self.paths.datadir, ignore_errors=True)
        partial.rename(self.paths.datadir)
        self._write_client_cnf(password, self.port)

    def restore_new(self, source: str | os.PathLike) -> "Instance":
        """Make this (new, empty) directory an instance whose datadir is a copy of a snapshot,
        without initialising one first: a unit with a server of its own starts from the page
        size's snapshot this way."""
        if self.paths.state_file.exists():
            raise UsageError(f"{self.root} is already an instance; restore() replaces its datadir")
        self.root.mkdir(parents=True, exist_ok=True)
        self.paths.tmpdir.mkdir(exist_ok=True)
        self._write_state(port=None)
        self.restore(source)
        return self


def _write_private(path: Path, text: str) -> None:
    """Write a file that holds a password: created 0600, so it is never readable by others, even
    briefly, and replaced whole, so a kill in mid-write never leaves client.cnf empty and root's
    password lost."""
    atomic_write_text(path, text, mode=0o600)


def _copy_tree(source: Path, target: Path) -> None:
    # cp keeps sparse files sparse and clones blocks where the filesystem can; copytree does neither.
    result = subprocess.run(["cp", "-a", "--reflink=auto", str(source), str(target)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(target, ignore_errors=True)
        raise ServerError(f"copying {source} to {target} failed: {result.stderr.strip()}")
