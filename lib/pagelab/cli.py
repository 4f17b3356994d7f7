"""The `pagelab` command line: one sub-command per step a user takes.

    pagelab doctor                      what an experiment depends on, and what is missing
    pagelab server init|start|status|stop DIR   the course lab's manual steps, one command each

Errors pagelab raises on purpose (PagelabError) are printed as one message, without a traceback;
exit status 2 for bad input, 1 for anything else that failed, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pagelab.errors import PagelabError, UsageError

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _add_settings_arguments(parser: argparse.ArgumentParser) -> None:
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


def _settings_from(args: argparse.Namespace, base):
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


def cmd_doctor(args: argparse.Namespace) -> int:
    from pagelab.doctor import run_doctor

    report = run_doctor(Path(args.data_dir))
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.render())
    return 0 if report.ok else 1


def cmd_server_init(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory, page_size=args.page_size, tie_to_parent=False)
    instance.settings = _settings_from(args, instance.settings)
    print(f"initialising a {instance.page_size_label} datadir in {instance.root} with {instance.flavour.describe()} ...",
          flush=True)
    instance.init(force=args.force)
    print(f"done. Start it with: pagelab server start {args.directory}")
    print(f"root's password is in {instance.paths.client_cnf} (mode 0600)")
    return 0


def cmd_server_start(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory, port=args.port, tie_to_parent=False)
    instance.settings = _settings_from(args, instance.settings)
    instance.start()
    print(f"{instance.page_size_label} server running: pid {instance.pid()}, 127.0.0.1:{instance.port}, "
          f"socket {instance.paths.socket}")
    print(f"connect with: mariadb --defaults-file={instance.paths.client_cnf}")
    print(f"stop with:    pagelab server stop {args.directory}")
    return 0


def cmd_server_status(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    info = Instance(args.directory).status()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        width = max(len(k) for k in info)
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
    return 0 if info["running"] else 3


def cmd_server_stop(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory)
    if not instance.is_running():
        print(f"{instance.root} is not running")
        return 0
    clean = instance.stop(timeout=args.timeout)
    print("stopped cleanly" if clean else f"did not stop within {args.timeout:.0f} s; killed")
    return 0 if clean else 1


def build_parser() -> argparse.ArgumentParser:
    from pagelab import __version__
    from pagelab.mysql.pagesize import PAGE_SIZES

    parser = argparse.ArgumentParser(
        prog="pagelab",
        description="Reproduce how a database's page size changes its performance: "
                    "private MariaDB/MySQL instances per innodb_page_size, TPC-C, monitors, reports.",
        epilog="Run `pagelab COMMAND --help` for the options of each command.",
    )
    parser.add_argument("--version", action="version", version=f"pagelab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    doctor = commands.add_parser("doctor", help="check what an experiment depends on",
                                 description="Report the server, iostat, fio, the data device, O_DIRECT, disk, memory "
                                             "and cores. Exits 1 naming what to install when something is missing.")
    doctor.add_argument("--data-dir", default=str(PROJECT_ROOT / "data"),
                        help="where experiment data will live (default: the project's data/)")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.set_defaults(handler=cmd_doctor)

    server = commands.add_parser("server", help="manage one private server by hand (init, start, status, stop)",
                                 description="The course lab's manual steps, one command each. An instance is a "
                                             "directory holding its datadir, my.cnf, logs and a 0600 client.cnf.")
    server_commands = server.add_subparsers(dest="server_command", metavar="ACTION", required=True)

    init = server_commands.add_parser("init", help="create a datadir with an InnoDB page size",
                                      description="Create DIR with a datadir of the given innodb_page_size "
                                                  "(fixed for the datadir's life) and a random root password.")
    init.add_argument("directory", metavar="DIR")
    init.add_argument("--page-size", required=True,
                      help="innodb_page_size: " + " ".join(PAGE_SIZES.values()) + " or the value in bytes")
    init.add_argument("--force", action="store_true", help="wipe a non-empty datadir first")
    _add_settings_arguments(init)
    init.set_defaults(handler=cmd_server_init)

    start = server_commands.add_parser("start", help="start the server on 127.0.0.1 and a private socket",
                                       description="Start DIR's server, wait until it answers, and check that it "
                                                   "runs with the datadir's page size. It keeps running after this "
                                                   "command returns; stop it with `pagelab server stop DIR`.")
    start.add_argument("directory", metavar="DIR")
    start.add_argument("--port", type=int, help="TCP port on 127.0.0.1 (default: a free one)")
    _add_settings_arguments(start)
    start.set_defaults(handler=cmd_server_start)

    status = server_commands.add_parser("status", help="show whether it runs, its port, page size and settings",
                                        description="Exit status 0 when running, 3 when not.")
    status.add_argument("directory", metavar="DIR")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_server_status)

    stop = server_commands.add_parser("stop", help="clean shutdown (SIGKILL after a timeout)")
    stop.add_argument("directory", metavar="DIR")
    stop.add_argument("--timeout", type=float, default=120.0, help="seconds to wait before killing (default 120)")
    stop.set_defaults(handler=cmd_server_stop)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as exc:
        print(f"pagelab: error: {exc}", file=sys.stderr)
        return 2
    except PagelabError as exc:
        print(f"pagelab: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pagelab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
