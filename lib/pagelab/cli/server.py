"""`pagelab server init|start|status|stop DIR`: the course lab's manual steps, one command each."""

from __future__ import annotations

import argparse
import json

from pagelab.common.units import format_size, with_article
from pagelab.cli.common import add_settings_arguments, settings_from
from pagelab.cli.exits import EXIT_NOT_RUNNING, EXIT_OK
from pagelab.mysql.pagesize import PAGE_SIZES

def cmd_server_init(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory, page_size=args.page_size, tie_to_parent=False, replacing=args.force)
    instance.settings = settings_from(args, instance.settings)
    print(f"initialising {with_article(instance.page_size_label)} datadir in {instance.root} with {instance.flavour.describe()} ...",
          flush=True)
    instance.init(force=args.force)
    print(f"done. Start it with: pagelab server start {args.directory}")
    print(f"root's password is in {instance.paths.client_cnf} (mode 0600)")
    return 0


def cmd_server_start(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory, port=args.port, tie_to_parent=False)
    instance.settings = settings_from(args, instance.settings)
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
        print(status_text(info))
    return EXIT_OK if info["running"] else EXIT_NOT_RUNNING


def status_text(info: dict) -> str:
    """`server status` for people: a line per fact, sizes in units, nothing that does not apply."""
    settings = info["settings"]
    state = "running" if info["running"] else ("stopped" if info["initialised"] else "not initialised")
    rows = [("instance", info["directory"]), ("state", state), ("page size", info["page_size"])]
    if info["running"]:
        rows += [("pid", str(info["pid"])), ("listens on", f"127.0.0.1:{info['port']} and {info['socket']}"),
                 ("server", info.get("server_version", "?"))]
    rows += [("buffer pool", format_size(settings["buffer_pool_bytes"])), ("flush method", settings["flush_method"]),
             ("redo log", format_size(settings["redo_log_bytes"])), ("max connections", str(settings["max_connections"]))]
    rows += [(name, str(value)) for name, value in sorted(settings.get("extra", {}).items())]
    rows.append(("connect with", f"mariadb --defaults-file={info['client_cnf']}"))
    if "error" in info:
        rows.append(("error", info["error"]))
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def cmd_server_stop(args: argparse.Namespace) -> int:
    from pagelab.mysql import Instance

    instance = Instance(args.directory)
    if not instance.is_running():
        print(f"{instance.root} is not running")
        return 0
    clean = instance.stop(timeout=args.timeout)
    print("stopped cleanly" if clean else f"did not stop within {args.timeout:.0f} s; killed")
    return 0 if clean else 1


def register(commands) -> None:
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
    add_settings_arguments(init)
    init.set_defaults(handler=cmd_server_init)

    start = server_commands.add_parser("start", help="start the server on 127.0.0.1 and a private socket",
                                       description="Start DIR's server, wait until it answers, and check that it "
                                                   "runs with the datadir's page size. It keeps running after this "
                                                   "command returns; stop it with `pagelab server stop DIR`.")
    start.add_argument("directory", metavar="DIR")
    start.add_argument("--port", type=int, help="TCP port on 127.0.0.1 (default: a free one)")
    add_settings_arguments(start)
    start.set_defaults(handler=cmd_server_start)

    status = server_commands.add_parser("status", help="show whether it runs, its port, page size and settings",
                                        description="Exit status 0 when running, 3 when not (--json for the same facts as JSON).")
    status.add_argument("directory", metavar="DIR")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_server_status)

    stop = server_commands.add_parser("stop", help="clean shutdown (SIGKILL after a timeout)")
    stop.add_argument("directory", metavar="DIR")
    stop.add_argument("--timeout", type=float, default=120.0, help="seconds to wait before killing (default 120)")
    stop.set_defaults(handler=cmd_server_stop)
