"""The `pagelab` command line: one sub-command per step a user takes.

    pagelab doctor                      what an experiment depends on, and what is missing
    pagelab server init|start|status|stop DIR   the course lab's manual steps, one command each
    pagelab tpcc load|run               TPC-C: seeded bulk load, and the driver (tpcc-mysql's flags)
    pagelab parse KIND PATH             any tpcc-mysql log, InnoDB status, iostat, fio or YCSB output as a tidy table
    pagelab sweep --profile NAME        the page-size sweep: a run notebook per page size and repeat, report, PDF
    pagelab report DIR                  the report notebook and PDF of a sweep
    pagelab advise --keys N ...         measure the disk (fio) and suggest a B-tree page size (seed 003)
    pagelab ycsb --page-sizes 16k,64k   YCSB load and workloads A/B/C per page size, on InnoDB or the prototype (seed 000)

Errors pagelab raises on purpose (PagelabError) are printed as one message, without a traceback;
exit status 2 for bad input, 1 for anything else that failed, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pagelab.errors import PagelabError, UsageError

from pagelab.paths import CACHE_DIR, DATA_DIR
from pagelab.tpcc.modes import DEFAULT_MODE


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

    instance = Instance(args.directory, page_size=args.page_size, tie_to_parent=False, replacing=args.force)
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


def _add_target_arguments(parser: argparse.ArgumentParser) -> None:
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


def _add_mode_argument(parser: argparse.ArgumentParser, default: str | None) -> None:
    from pagelab.tpcc.modes import ALIASES, MODE_NAMES, mode_help

    shown_default = default or "the profile's driver_mode"
    parser.add_argument("--mode", "--driver", dest="mode", metavar="MODE", default=default,
                        choices=MODE_NAMES + tuple(ALIASES),
                        help=f"driver mode, one of {', '.join(MODE_NAMES)} (default {shown_default}; "
                             f"--driver is the same option; pagelab is an older name of procedures): {mode_help()}")


def _add_tpcc_mysql_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tpcc-mysql-dir", metavar="DIR",
                        help="directory holding a tpcc-mysql build's tpcc_load/tpcc_start "
                             "(for --mode tpcc-mysql or --loader tpcc-mysql)")


class _Target:
    """The server a tpcc command talks to; starts and stops an instance that was not running."""

    def __init__(self, args: argparse.Namespace):
        from pagelab.mysql.client import ConnectionSpec

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
                print(f"starting {self.instance.root} for this command ...", file=sys.stderr)
                self.instance.start()
                self.started_here = True
            self.spec = ConnectionSpec.for_instance(self.instance, tcp=True)
        return self

    def __exit__(self, *exc_info):
        if self.started_here:
            self.instance.stop()


def cmd_tpcc_load(args: argparse.Namespace) -> int:
    from pagelab.tpcc.datagen import generate
    from pagelab.tpcc.loader import load

    if args.warehouses < 1:
        raise UsageError(f"-w must be at least 1, got {args.warehouses}")
    target = _Target(args)
    if args.loader == "tpcc-mysql":
        from pagelab.tpcc.external import find_tpcc_mysql, load_with_tpcc_mysql

        find_tpcc_mysql(args.tpcc_mysql_dir and Path(args.tpcc_mysql_dir))
        with target:
            load_with_tpcc_mysql(target.spec, args.warehouses, args.database, Path(args.tpcc_mysql_dir))
        print(f"loaded {args.warehouses} warehouse(s) with tpcc_load into {target.spec.describe()}/{args.database}")
        return 0
    dataset = generate(args.warehouses, args.seed, cache_dir=Path(args.cache_dir), progress=not args.quiet)
    with target:
        report = load(target.spec, dataset, database=args.database, progress=not args.quiet)
    print(f"loaded {args.warehouses} warehouse(s), seed {args.seed}, into {target.spec.describe()}/{args.database}: "
          f"tables {report.seconds_tables:.1f} s, indexes {report.seconds_indexes:.1f} s, checks {report.seconds_verify:.1f} s; "
          f"row counts and consistency conditions 1-4 hold")
    return 0


def _response_limits(pairs: list[str]) -> dict:
    from pagelab.tpcc.inputs import TransactionKind
    from pagelab.tpcc.stats import DEFAULT_RESPONSE_LIMITS_MS

    limits = dict(DEFAULT_RESPONSE_LIMITS_MS)
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            kind = TransactionKind.from_cli_name(name)
            milliseconds = float(value)
        except ValueError:
            kind, milliseconds = None, -1
        if kind is None or milliseconds <= 0:
            names = ", ".join(k.cli_name for k in TransactionKind)
            raise UsageError(f"--rt-limit takes KIND=MS with KIND one of {names}, got {pair!r}")
        limits[kind] = milliseconds
    return limits


def cmd_tpcc_run(args: argparse.Namespace) -> int:
    from pagelab.tpcc.driver import RunOptions, run

    options = RunOptions(warehouses=args.warehouses, connections=args.connections, rampup_s=args.rampup,
                         measure_s=args.measure, interval_s=args.interval, seed=args.seed, database=args.database,
                         spec_pacing=args.spec_pacing, response_limits_ms=_response_limits(args.rt_limit),
                         mode=args.mode, tpcc_mysql_dir=args.tpcc_mysql_dir or "")
    options.validate()  # before any server starts
    if options.driver_mode.external:
        from pagelab.tpcc.external import find_tpcc_mysql

        find_tpcc_mysql(args.tpcc_mysql_dir and Path(args.tpcc_mysql_dir))
    with _Target(args) as target:
        run(target.spec, options, out_dir=Path(args.out) if args.out else None)
    if args.out:
        print(f"\nwrote {args.out}/tpcc.log, tpcc_intervals.csv and summary.json", file=sys.stderr)
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from pagelab.parse import PARSERS, parse_innodb_status_dir

    path = Path(args.path)
    if path.is_dir():
        if args.kind != "innodb-status":
            raise UsageError(f"{path} is a directory; only innodb-status reads a directory of snapshots")
        result = parse_innodb_status_dir(path)
    else:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
        result = PARSERS[args.kind](text)
    for warning in result.warnings:
        print(f"pagelab parse: warning: {warning}", file=sys.stderr)
    frame = result.to_frame()
    if args.format == "json":
        print(frame.to_json(orient="records", indent=1))
    else:
        frame.to_csv(sys.stdout, index=False)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from pagelab import sweep

    if args.resume:
        if args.profile or args.set or args.out:
            raise UsageError("--resume DIR continues a sweep with its own profile; drop --profile/--set/--out")
        sweep_dir = Path(args.resume)
        if not (sweep_dir / "sweep.json").exists():
            raise UsageError(f"{sweep_dir} has no sweep.json; give the directory of a sweep to --resume")
        sweep_dir, pdf = sweep.finish(sweep_dir, fail_fast=args.fail_fast, pdf_path=args.pdf)
    else:
        from pagelab.profiles import load_profile

        overrides = list(args.set)
        if args.mode:
            overrides.append(f"driver_mode={args.mode}")
        if args.tpcc_mysql_dir:
            overrides.append(f"tpcc_mysql_dir={args.tpcc_mysql_dir}")
        profile = load_profile(args.profile or "quick", overrides)  # validated before anything starts
        if profile.driver_mode == "tpcc-mysql" or profile.loader == "tpcc-mysql":
            from pagelab.tpcc.external import find_tpcc_mysql

            find_tpcc_mysql(Path(profile.tpcc_mysql_dir or "."))
        sweep_dir, pdf = sweep.sweep(profile, profile.name, out_dir=Path(args.out) if args.out else None,
                                     fail_fast=args.fail_fast, pdf_path=args.pdf)
    print(f"\nsweep: {sweep_dir}")
    print(f"PDF:   {pdf}")
    for line in sweep.summary_lines(sweep_dir):
        print(f"  {line}")
    # the report covers the runs that finished; a script or CI must still learn that some did not
    return 1 if sweep.failed_runs(sweep_dir) else 0


def cmd_report(args: argparse.Namespace) -> int:
    from pagelab import sweep

    sweep_dir = Path(args.directory)
    if not (sweep_dir / "sweep.json").exists():
        raise UsageError(f"{sweep_dir} has no sweep.json; give the directory of a sweep made by `pagelab sweep`")
    pdf = sweep.execute_report(sweep_dir, Path(args.pdf) if args.pdf else None)
    print(f"PDF: {pdf}")
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    from pagelab.models.advisor import run_advise

    advice = run_advise(args.keys, args.key_bytes, args.value_bytes, args.cache, device_path=args.device,
                        refresh=args.refresh)
    print(json.dumps(advice.to_dict(), indent=2) if args.json else advice.render())
    return 0


def cmd_ycsb(args: argparse.Namespace) -> int:
    from pagelab.workloads.ycsb.runner import YcsbOptions, run_ycsb

    threads = args.threads
    if args.max_key_size:
        from pagelab.workloads.ycsb.keysize import max_key_sizes

        options = YcsbOptions(backend=args.backend, page_sizes=args.page_sizes, threads=threads)
        sizes = options.validate().page_sizes  # bad page sizes fail here, before any instance starts
        engines = ("innodb", "prototype") if args.engines == "both" else (args.engines,)
        table = max_key_sizes(sizes, Path(args.out) if args.out else None, engines=engines)
        columns = ["engine", "page_size", "max_key_bytes", "refused_key_bytes", "row_format", "message"]
        table[[c for c in columns if c in table.columns]].to_csv(sys.stdout, index=False)
        return 0
    echo = None if args.quiet else (lambda text: print(text, flush=True))
    run = run_ycsb(args.backend, page_sizes=args.page_sizes, records=args.records, operations=args.operations,
                   workloads=args.workloads, distribution=args.distribution, threads=threads, seed=args.seed,
                   out_dir=Path(args.out) if args.out else None, cache_bytes=args.buffer_pool,
                   parallelism=args.parallelism, max_seconds=args.max_seconds, durable=not args.no_durable,
                   direct_io=not args.no_direct_io, keep_data=args.keep_data, overwrite=args.force,
                   progress=not args.quiet, echo=echo)
    frame = run.frame
    if not frame.empty:
        summary = frame[frame["operation"] != "OVERALL"][["page_size", "workload", "operation", "operations",
                                                          "throughput_ops_s", "average_latency_us",
                                                          "p95_latency_us", "p99_latency_us"]]
        print("\n" + summary.to_string(index=False, float_format=lambda v: f"{v:,.1f}"), file=sys.stderr)
    print(f"\nwrote {run.out_dir}/ycsb.csv, ycsb.json and each phase's YCSB text "
          f"({args.backend}-<page>/load.txt, workloada.txt, ...); seed {args.seed}", file=sys.stderr)
    return 0


def _profile_epilog() -> str:
    try:
        from pagelab.profiles import profile_help

        return profile_help()
    except Exception as exc:  # help must print even if a profile file is broken
        return f"(profile knobs unavailable: {exc})"


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
    doctor.add_argument("--data-dir", default=str(DATA_DIR),
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

    tpcc = commands.add_parser("tpcc", help="TPC-C: load a seeded dataset, run the driver",
                               description="TPC-C as tpcc-mysql runs it, with a seed, a fast loader and its log format.")
    tpcc_commands = tpcc.add_subparsers(dest="tpcc_command", metavar="ACTION", required=True)
    load = tpcc_commands.add_parser("load", help="generate (or reuse) the seeded data and bulk-load it",
                                    description="Generate the TPC-C population for -w warehouses and --seed once "
                                                "(cached under data/cache), load it, and check row counts and the "
                                                "consistency conditions 1-4 of clause 3.3.2.")
    load.add_argument("-w", "--warehouses", type=int, required=True, help="number of warehouses")
    load.add_argument("--seed", type=int, default=1, help="data generator seed (default 1)")
    load.add_argument("--cache-dir", default=str(CACHE_DIR), help="where generated data is kept")
    load.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    load.add_argument("--loader", choices=("pagelab", "tpcc-mysql"), default="pagelab",
                      help="pagelab: the seeded bulk loader (default, ~2.5 s per warehouse, the same rows for every "
                           "page size); tpcc-mysql: a real tpcc_load (with --tpcc-mysql-dir, ~1 min per warehouse)")
    _add_tpcc_mysql_dir_argument(load)
    _add_target_arguments(load)
    load.set_defaults(handler=cmd_tpcc_load)

    run = tpcc_commands.add_parser("run", help="run the TPC-C driver and write tpcc-mysql's log format",
                                   description="Run N terminals: ramp-up, then the measurement, with one line per "
                                               "interval in tpcc_start's format. Writes tpcc.log, tpcc_intervals.csv "
                                               "and summary.json into --out.")
    run.add_argument("-w", "--warehouses", type=int, required=True, help="warehouses to use (at most those loaded)")
    run.add_argument("-c", "--connections", type=int, default=4, help="terminals, one connection each (default 4)")
    run.add_argument("-r", "--rampup", type=int, default=10, help="ramp-up seconds, not measured (default 10)")
    run.add_argument("-l", "--measure", type=int, default=60, help="measured seconds (default 60)")
    run.add_argument("-i", "--interval", type=int, default=10, help="seconds per report line (default 10)")
    run.add_argument("--seed", type=int, default=1, help="seed of the terminals' input streams (default 1)")
    run.add_argument("--out", metavar="DIR", help="write tpcc.log, tpcc_intervals.csv and summary.json here")
    run.add_argument("--spec-pacing", action="store_true",
                     help="keying and think times of clause 5.2.5.7 (default: none, as tpcc-mysql)")
    run.add_argument("--rt-limit", action="append", default=[], metavar="KIND=MS",
                     help="response-time limit in ms for the 90%% check, e.g. new-order=5000 (repeatable)")
    _add_mode_argument(run, default=DEFAULT_MODE)
    _add_tpcc_mysql_dir_argument(run)
    _add_target_arguments(run)
    run.set_defaults(handler=cmd_tpcc_run)

    from pagelab.parse import PARSERS

    parse = commands.add_parser("parse", help="turn a captured log into a tidy table (CSV or JSON on stdout)",
                                description="Read a tpcc-mysql log (ours or tpcc_start's, any version), "
                                            "SHOW ENGINE INNODB STATUS output (MariaDB 10.x, MySQL 5.7/8.0; a file "
                                            "or a directory of snapshots), iostat text or JSON (sysstat 10-12), or "
                                            "fio JSON, or YCSB output (ours or YCSB's own). Lines that cannot be read are reported on stderr.")
    parse.add_argument("kind", choices=sorted(PARSERS), help="what the file holds")
    parse.add_argument("path", metavar="PATH", help="the file (or, for innodb-status, a directory of snapshots)")
    parse.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default csv)")
    parse.set_defaults(handler=cmd_parse)

    sweep = commands.add_parser(
        "sweep", help="run the page-size sweep (seed 002) and write the PDF report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="For each page size and repeat of a profile, execute notebooks/tpcc_page_size_run.ipynb with "
                    "papermill into a run bundle (data/runs/<sweep-id>/), then the report notebook and the PDF "
                    "(reports/<sweep-id>.pdf). Ctrl-C keeps finished runs; --resume DIR does the rest.\n\n"
                    "Profiles live in runbooks/profiles/ (smoke, quick, course, full); any knob can be changed with "
                    "--set knob=value.",
        epilog=_profile_epilog())
    sweep.add_argument("--profile", help="profile name in runbooks/profiles/ or a YAML path (default quick)")
    sweep.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                       help="override a knob, e.g. --set page_sizes=4k,16k --set measure_s=30 (repeatable)")
    sweep.add_argument("--out", metavar="DIR", help="the sweep directory (default data/runs/<profile>-<time>)")
    sweep.add_argument("--resume", metavar="DIR", help="finish an interrupted sweep")
    sweep.add_argument("--fail-fast", action="store_true", help="stop at the first failed run")
    sweep.add_argument("--pdf", metavar="PATH", help="where to write the PDF (default reports/<sweep-id>.pdf)")
    _add_mode_argument(sweep, default=None)
    sweep.add_argument("--tpcc-mysql-dir", metavar="DIR", help="shortcut for --set tpcc_mysql_dir=...")
    sweep.set_defaults(handler=cmd_sweep)

    report = commands.add_parser("report", help="execute a sweep's report notebook and write its PDF",
                                 description="Execute notebooks/tpcc_page_size_report.ipynb over a sweep directory and "
                                             "print it to PDF without code cells (system Chromium).")
    report.add_argument("directory", metavar="DIR", help="the sweep directory")
    report.add_argument("--pdf", metavar="PATH", help="default reports/<sweep-id>.pdf")
    report.set_defaults(handler=cmd_report)

    advise = commands.add_parser(
        "advise", help="measure the disk and suggest a B-tree page size (seed 003's model)",
        description="RethinkDB's model (seed 003): lookups/s = random-read IOPS at the page size / B-tree hops, "
                    "with nodes filled as after random inserts and the top levels that fit in the cache free. "
                    "IOPS come from fio (QD1, direct I/O) on the disk under --device, measured once and cached "
                    "for 30 days in data/cache/. Prints the table behind the choice.")
    advise.add_argument("--keys", required=True, help="number of keys, e.g. 1e9")
    advise.add_argument("--key-bytes", required=True, help="key size in bytes, e.g. 32")
    advise.add_argument("--value-bytes", default="8", help="value size in bytes (default 8)")
    advise.add_argument("--cache", default="0", help="memory for cached tree levels, e.g. 1G (default 0)")
    advise.add_argument("--device", metavar="PATH", help="a directory on the disk to measure (default data/)")
    advise.add_argument("--refresh", action="store_true", help="measure again even if a cached profile exists")
    advise.add_argument("--json", action="store_true", help="print the advice as JSON")
    advise.set_defaults(handler=cmd_advise)

    from pagelab.workloads.ycsb.generators import DISTRIBUTIONS
    from pagelab.workloads.ycsb.runner import BACKENDS, DEFAULT_OPERATIONS, DEFAULT_RECORDS

    ycsb = commands.add_parser(
        "ycsb", help="YCSB load and workloads per page size, on InnoDB or the storage prototype (seed 000)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Seed 000 (OrientDB, 64 KB against 16 KB pages) as YCSB runs it: for each page size a fresh "
                    "private InnoDB instance (O_DIRECT, a buffer pool well below the data) or a fresh storage-"
                    "prototype database; the load (--records records in usertable, 10 fields of 100 bytes, keys "
                    "\"user\" + FNV-64 hash), then each workload (--operations operations):\n\n"
                    "  a  read 50% / update 50%      (seed 000's mixed_50_50)\n"
                    "  b  read 95% / update 5%       (read_mostly_95_5)\n"
                    "  c  read 100%                  (read_only)\n"
                    "  d  read latest 95% / insert 5%\n"
                    "  f  read 50% / read-modify-write 50%\n\n"
                    "Each phase's output is YCSB's own text ([OVERALL], RunTime(ms), ...), printed and written to "
                    "OUT/<backend>-<page>/ (load.txt, workloada.txt, ...), plus OUT/ycsb.csv (one row per workload "
                    "and operation) and OUT/ycsb.json (options, seed, status). `pagelab parse ycsb FILE` reads any "
                    "YCSB output back into the same table. Ctrl-C stops the server and keeps the finished phases.",
        epilog="examples:\n"
               "  pagelab ycsb --page-sizes 16k,64k --records 50000 --operations 50000 --out data/runs/ycsb-demo\n"
               "  pagelab ycsb --backend prototype --page-sizes 4k,16k --records 20000 --workloads abcf\n"
               "  pagelab ycsb --max-key-size --page-sizes 4k,16k,64k")
    ycsb.add_argument("--backend", choices=BACKENDS, default="innodb",
                      help="innodb: a MariaDB/MySQL instance per innodb_page_size (default); prototype: "
                           "pagelab's storage prototype (one client thread)")
    ycsb.add_argument("--page-sizes", default="16k,64k", metavar="SIZES",
                      help="comma-separated page sizes from 4k 8k 16k 32k 64k (default 16k,64k, the seed's)")
    ycsb.add_argument("--records", type=int, default=DEFAULT_RECORDS, metavar="N",
                      help=f"records to load (YCSB's recordcount; default {DEFAULT_RECORDS:,}, ~80 MB in InnoDB)")
    ycsb.add_argument("--operations", type=int, default=DEFAULT_OPERATIONS, metavar="N",
                      help=f"operations per workload (YCSB's operationcount; default {DEFAULT_OPERATIONS:,})")
    ycsb.add_argument("--workloads", default="abc", help="workload letters from a b c d f (default abc, the seed's); "
                                                         "the load always runs first")
    ycsb.add_argument("--distribution", choices=DISTRIBUTIONS, default="zipfian",
                      help="which records the operations touch: zipfian (YCSB's scrambled zipfian, constant 0.99; "
                           "default), uniform, or latest (workload d always uses latest)")
    ycsb.add_argument("--threads", type=int, metavar="N",
                      help="client workers, YCSB's -threads (default 4 for innodb, 1 for the prototype)")
    ycsb.add_argument("--seed", type=int, default=1, help="seed of every key, value and operation draw (default 1)")
    ycsb.add_argument("--out", metavar="DIR", help="output directory (default data/runs/ycsb-<backend>-<time>; "
                                                    "with --max-key-size, where the probe instances live)")
    ycsb.add_argument("--buffer-pool", metavar="SIZE",
                      help="InnoDB's buffer pool / the prototype's cache, e.g. 24M (default: 15%% of the data the "
                           "records make, and at least what InnoDB needs at the largest page size)")
    ycsb.add_argument("--parallelism", choices=("processes", "threads"), default="processes",
                      help="run InnoDB's client workers as processes (default) or threads")
    ycsb.add_argument("--max-seconds", type=float, metavar="S",
                      help="end each phase after S seconds (YCSB's maxexecutiontime)")
    ycsb.add_argument("--no-durable", action="store_true",
                      help="do not sync each commit (innodb_flush_log_at_trx_commit=2; the prototype's journal "
                           "without fsync)")
    ycsb.add_argument("--no-direct-io", action="store_true", help="prototype: read its page file through the OS cache")
    ycsb.add_argument("--keep-data", action="store_true", help="keep the datadir / database files after the run")
    ycsb.add_argument("--force", action="store_true", help="overwrite an earlier run in --out")
    ycsb.add_argument("-q", "--quiet", action="store_true", help="no progress bars and no YCSB text on stdout")
    ycsb.add_argument("--max-key-size", action="store_true",
                      help="instead of a run: find the largest key per page size, tried on a real InnoDB instance "
                           "(the index key prefix limit) and on the prototype, and print it as CSV")
    ycsb.add_argument("--engines", choices=("both", "innodb", "prototype"), default="both",
                      help="with --max-key-size: which engines to probe (default both)")
    ycsb.set_defaults(handler=cmd_ycsb)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except PagelabError as exc:
        print(f"pagelab: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pagelab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`pagelab parse ... | head`): as for any Unix filter, not an error.
        # Python would report the pipe again when it flushes stdout at exit, so point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
