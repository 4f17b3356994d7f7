"""Where a private server listens: a free port on 127.0.0.1, and a unix socket whose path fits
sun_path and which, under root, tpcc-mysql's unprivileged account can reach."""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import tempfile
from pathlib import Path

from pagelab.common.errors import ServerError

# sun_path in sockaddr_un is 108 bytes on Linux, including the terminating NUL.
MAX_SOCKET_PATH = 107


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


def socket_path_for(root: Path) -> Path:
    """The socket of the instance at `root`: inside it where the path is short enough and the
    server does not run as root, else in a directory of the temp dir (socket_directory_for_others
    under root)."""
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
