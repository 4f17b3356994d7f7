"""What several commands share: the server settings options, and which server a TPC-C command talks to."""

from __future__ import annotations

import argparse
import sys

from pagelab.common.errors import UsageError


def add_settings_arguments(parser: argparse.ArgumentParser) -> None:
    from pagelab.mysql import config

    group = parser.add_argument_group("server settings (kept in the instance for later starts)")
    group.add_argument("--buffer-pool", metavar="SIZE",
                       help=f"innodb_buffer_pool_size, e.g. 64M or 1G (default {config.DEFAULT_BUFFER_POOL_BYTES >> 20}M)")
    group.add_argument("--flush-method", choices=config.FLUSH_METHODS,
                       help=f"innodb_flush_method (default {config.DEFAULT_FLUSH_METHOD}, which bypasses the OS page cache)")
    group.add_argument("--redo-log", metavar="SIZE",
                       help=f"innodb_log_file_size (default {config.DEFAULT_REDO_LOG_BYTES >> 20}M)")
    group.add_argument("--max-connections", type=int, metavar="N",
                       help=f"max_connections (default {config.DEFAULT_MAX_CONNECTIONS})")
    group.add_argument("--set", action="append", metavar="KEY=VALUE", default=[],
                       help="any other server option, e.g. --set innodb_io_capacity=2000 (repeatable)")


def settings_from(args: argparse.Namespace, base):
    from pagelab.mysql import ServerSettings, parse_set_options

    base = base or ServerSettings()
    changes = {}
    if args.buffer_pool is not None:
        changes["buffer_pool_bytes"] = args.buffer_pool
    if args.flush_method is not None:
        changes["flush_method"] = args.flush_method
    if args.redo_log is not None:
        changes["redo_log_bytes"] = args.redo_log
    if args.max_connections is not None:
        changes["max_connections"] = args.max_connections
    extra = parse_set_options(args.set)
    if extra:
        changes["extra"] = {**base.extra, **extra}
    return base.with_overrides(**changes) if changes else base


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("which server (an instance directory, or any server)")
    group.add_argument("--instance", metavar="DIR", help="a `pagelab server` instance; started for the command "
                                                         "and stopped again if it is not running")
    group.add_argument("--host", help="server host, for a server pagelab did not start")
    group.add_argument("--port", type=int, help="server TCP port (with --host)")
    group.add_argument("--socket", help="server unix socket, for a server pagelab did not start")
    group.add_argument("--user", default="root", help="user name (default root)")
    group.add_argument("--password-file", metavar="PATH", help="file holding the password (never pass it on "
                                                                "the command line)")
    parser.add_argument("-d", "--database", default="tpcc", help="database name (default tpcc, as tpcc-mysql)")
    from pagelab.sweep.knobs import KNOBS_BY_NAME

    knob = KNOBS_BY_NAME["transport"]
    group.add_argument("--transport", choices=knob.kind.options, default=None,
                       help=f"with --instance: {knob.help.replace('%', '%%')} (default {knob.default}); with --host it is tcp, "
                            "with --socket socket")


def add_mode_argument(parser: argparse.ArgumentParser, default: str | None) -> None:
    from pagelab.tpcc.modes import ALIASES, MODE_NAMES, mode_help

    shown_default = default or "the profile's driver_mode"
    parser.add_argument("--mode", "--driver", dest="mode", metavar="MODE", default=default,
                        choices=MODE_NAMES + tuple(ALIASES),
                        help=f"driver mode, one of {', '.join(MODE_NAMES)} (default {shown_default}; "
                             f"--driver is the same option; the older mode name 'pagelab' is still accepted and means procedures): {mode_help()}")


def add_tpcc_mysql_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tpcc-mysql-dir", metavar="DIR",
                        help="directory holding a tpcc-mysql build's tpcc_load/tpcc_start "
                             "(for --mode tpcc-mysql or --loader tpcc-mysql)")


def transport_of(args: argparse.Namespace) -> str:
    """The transport a tpcc command uses: --transport with --instance (default the knob's); with
    --host tcp and with --socket socket, which --transport may only repeat."""
    from pagelab.sweep.knobs import KNOBS_BY_NAME

    if args.instance:
        return args.transport or KNOBS_BY_NAME["transport"].default
    given = "socket" if args.socket else "tcp"
    if args.transport not in (None, given):
        raise UsageError(f"--transport {args.transport} does not fit the server given, reached over {given}; give "
                         + ("--socket" if args.transport == "socket" else "--host and --port") + " instead, "
                         "or --instance")
    return given


class Target:
    """The server a tpcc command talks to; starts and stops an instance that was not running."""

    @property
    def local_socket(self) -> str | None:
        """An instance's private socket, for tpcc-mysql's password-less login (MariaDB only)."""
        from pagelab.sweep.experiment import local_socket

        return local_socket(self.instance) if self.instance is not None else None

    def __init__(self, args: argparse.Namespace):
        from pagelab.mysql.client import ConnectionSpec

        self.transport = transport_of(args)
        self.instance = None
        self.started_here = False
        if args.instance:
            if args.host or args.socket:
                raise UsageError("give either --instance or --host/--socket, not both")
            from pagelab.mysql import Instance

            self.instance = Instance(args.instance)
        else:
            if not (args.host or args.socket):
                raise UsageError("say which server: --instance DIR, or --host/--port or --socket "
                                 "(with --user and --password-file)")
            self.spec = ConnectionSpec.from_options(args.host, args.port, args.socket, args.user, args.password_file)

    def __enter__(self):
        from pagelab.mysql.client import ConnectionSpec

        if self.instance is not None:
            if not self.instance.is_running():
                print(f"{self.instance.root} is not running: starting it for this command, on a new port "
                      f"and with a cold buffer pool; it is stopped again afterwards (start it yourself with "
                      f"`pagelab server start {self.instance.root}` to keep it warm between commands)",
                      file=sys.stderr)
                self.instance.start()
                self.started_here = True
            self.spec = ConnectionSpec.for_instance(self.instance, tcp=self.transport == "tcp")
        return self

    def __exit__(self, *exc_info):
        if self.started_here:
            self.instance.stop()
