"""A private MariaDB/MySQL server: its own datadir, unix socket and loopback port.

This module is the object, its state files and its server process (start, check, stop) and the
clients' way in. What is done to the datadir while no server runs (init, snapshot, restore) is
`pagelab.mysql.datadir`'s, a part of the same class; how a server program is watched,
`pagelab.mysql.supervision`'s; where it listens, `pagelab.mysql.endpoints`'s.

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
get SIGKILL from the kernel if this process dies without running any cleanup at all.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import time
import weakref
from dataclasses import asdict
from pathlib import Path

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import ServerError, UsageError
from pagelab.common.processes import process_alive, process_state
from pagelab.common.units import page_size_label, with_article
from pagelab.mysql.config import (
    InstancePaths,
    ServerSettings,
    render_client_cnf,
    render_my_cnf,
)
from pagelab.mysql.datadir import DatadirMixin, write_private
from pagelab.mysql.endpoints import free_loopback_port, port_is_free, socket_path_for
from pagelab.mysql.flavour import ServerFlavour, detect_server
from pagelab.mysql.pagesize import parse_page_size
from pagelab.mysql.supervision import POLL_INTERVAL_S, DiskWatch, tail_of, tie_to_owner

START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 120.0


_started_here: "weakref.WeakSet[Instance]" = weakref.WeakSet()


def _stop_all_started_here() -> None:
    for instance in list(_started_here):
        try:
            instance.stop()
        except Exception:
            pass


atexit.register(_stop_all_started_here)


class Instance(DatadirMixin):
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
        self.paths = InstancePaths(self.root, socket_path_for(self.root))
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

    def _write_client_cnf(self, password: str, port: int | None) -> None:
        write_private(self.paths.client_cnf, render_client_cnf(self.paths, password, port))

    def _page_size_args(self) -> list[str]:
        # Given on the command line as well as in my.cnf: install scripts and some versions read
        # option files differently from a normal start (dbdeployer's trap), the command line wins.
        return [f"--innodb-page-size={self.page_size}"]

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
                preexec_fn=tie_to_owner if self.tie_to_parent else None,
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
