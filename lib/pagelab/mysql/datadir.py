"""An instance's datadir while no server runs on it: made (init: each flavour's install step, then
one start without networking that gives root its password), copied to a snapshot and back.

`DatadirMixin` is a part of `pagelab.mysql.instance.Instance`, kept apart because it changes with
the servers' install tooling and the snapshot's format, not with how a server is started, watched
and stopped. It relies on Instance for the rest: root, paths, flavour, page_size, settings, port,
the state files (_write_state, _write_client_cnf, password, is_initialised) and the server process
(is_running, pid, _started_with_my_cnf, _launch, stop, _kill_quietly, _page_size_args).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import TypeVar

from pagelab.common.atomic import atomic_write_text
from pagelab.common.errors import ServerError, UsageError
from pagelab.common.processes import kill_until_gone, process_ids
from pagelab.common.units import page_size_label, with_article
from pagelab.mysql.config import render_my_cnf
from pagelab.mysql.flavour import ServerFlavour
from pagelab.mysql.snapshot_record import (SNAPSHOT_MARKER, SNAPSHOT_PASSWORD_FILE, snapshot_problem,
                                           write_snapshot_marker)
from pagelab.mysql.supervision import POLL_INTERVAL_S, DiskWatch, tail_of, tie_to_owner

# The instance a method returns is whichever class mixes this in; naming Instance here would make
# the two modules import each other.
_Instance = TypeVar("_Instance", bound="DatadirMixin")

INIT_TIMEOUT_S = 300.0
PASSWORD_BYTES = 18  # 24 URL-safe characters


class DatadirMixin:
    """init, snapshot and restore of `pagelab.mysql.instance.Instance` (see the module docstring)."""

    # ----------------------------------------------------------------- init

    def init(self: _Instance, force: bool = False, timeout: float = INIT_TIMEOUT_S) -> _Instance:
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

    def _kill_strays(self, timeout: float = 10.0) -> None:
        """SIGKILL any process still started with this instance's my.cnf that no pid file names:
        what an init killed midway leaves (mariadb-install-db's subshells and its bootstrap server
        outlive the script when its owner is killed with -9), which would go on writing into the
        datadir about to be wiped and made anew."""
        kill_until_gone(lambda: [pid for pid in process_ids() if self._started_with_my_cnf(pid)], timeout,
                        POLL_INTERVAL_S)

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
                                       preexec_fn=tie_to_owner if self.tie_to_parent else None,
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
        write_private(init_sql,
                       local_root +
                       f"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '{quoted}';\n"
                       "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n"
                       "FLUSH PRIVILEGES;\n")
        try:
            self._launch(port=None, extra_args=[f"--init-file={init_sql}"], timeout=timeout)
        finally:
            init_sql.unlink(missing_ok=True)
        self.stop()

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
        write_private(partial / SNAPSHOT_PASSWORD_FILE, self.password)
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

    def restore_new(self: _Instance, source: str | os.PathLike) -> _Instance:
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


def write_private(path: Path, text: str) -> None:
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
