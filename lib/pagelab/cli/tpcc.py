"""`pagelab tpcc load|run`: TPC-C's seeded bulk load, and the driver in any of its modes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagelab.cli.common import (
    Target,
    add_mode_argument,
    add_target_arguments,
    add_tpcc_mysql_dir_argument,
    transport_of,
)
from pagelab.common.errors import UsageError
from pagelab.common.paths import CACHE_DIR
from pagelab.sweep.knobs import KNOBS_BY_NAME
from pagelab.tpcc.inputs import NURAND_MODELS
from pagelab.tpcc.modes import DEFAULT_MODE, LOADERS, PAGELAB_LOADER, TPCC_MYSQL_LOADER

def cmd_tpcc_load(args: argparse.Namespace) -> int:
    from pagelab.tpcc.datagen import generate
    from pagelab.tpcc.loader import load

    if args.warehouses < 1:
        raise UsageError(f"-w must be at least 1, got {args.warehouses}")
    target = Target(args)
    if args.loader == TPCC_MYSQL_LOADER:
        from pagelab.tpcc.external import find_tpcc_mysql, load_with_tpcc_mysql

        find_tpcc_mysql(args.tpcc_mysql_dir and Path(args.tpcc_mysql_dir))
        with target:
            load_with_tpcc_mysql(target.spec, args.warehouses, args.database, Path(args.tpcc_mysql_dir),
                                 local_socket=target.local_socket, transport=target.transport)
        print(f"loaded {args.warehouses} warehouse(s) with tpcc_load into {target.spec.describe()}/{args.database}")
        return 0
    dataset = generate(args.warehouses, args.seed, cache_dir=Path(args.cache_dir), progress=not args.quiet)
    with target:
        report = load(target.spec, dataset, database=args.database, progress=not args.quiet)
    print(f"loaded {args.warehouses} warehouse(s), random seed {args.seed}, into {target.spec.describe()}/{args.database}: "
          f"tables {report.seconds_tables:.1f} s, indexes {report.seconds_indexes:.1f} s, checks {report.seconds_verify:.1f} s; "
          f"row counts and consistency conditions 1-4 hold")
    return 0


def _response_limits(pairs: list[str]) -> dict:
    """--rt-limit KIND=MS pairs, read as the knob response_limits reads them."""
    from pagelab.common.transactions import TransactionKind

    try:
        limits = KNOBS_BY_NAME["response_limits"].parse(",".join(pairs))
    except UsageError as problem:
        raise UsageError(f"--rt-limit takes KIND=MS pairs: {problem}") from None
    return {kind: limits[kind.column] for kind in TransactionKind}


def _seconds_or_auto(knob: str):
    """-r / -l read as their knobs read them: whole seconds, or auto."""
    def parse(text: str):
        try:
            return KNOBS_BY_NAME[knob].parse(text)
        except UsageError as problem:
            raise argparse.ArgumentTypeError(str(problem)) from None
    return parse


def cmd_tpcc_run(args: argparse.Namespace) -> int:
    from pagelab.sweep.knob_types import AUTO
    from pagelab.tpcc.driver import run
    from pagelab.tpcc.outputs import RunOptions

    rampup_auto, measure_auto = args.rampup == AUTO, args.measure == AUTO
    options = RunOptions(warehouses=args.warehouses, connections=args.connections,
                         rampup_s=0 if rampup_auto else args.rampup, measure_s=0 if measure_auto else args.measure,
                         rampup_auto=rampup_auto, max_rampup_s=args.max_rampup, measure_auto=measure_auto,
                         max_measure_s=args.max_measure, target_ci_pct=args.target_ci,
                         interval_s=args.interval, seed=args.seed, database=args.database,
                         spec_pacing=args.spec_pacing, response_limits_ms=_response_limits(args.rt_limit),
                         mode=args.mode, tpcc_mysql_dir=args.tpcc_mysql_dir or "", nurand_model=args.nurand,
                         transport=transport_of(args), stall_s=args.stall)
    options.validate()  # before any server starts
    if options.driver_mode.external:
        from pagelab.tpcc.external import find_tpcc_mysql

        find_tpcc_mysql(args.tpcc_mysql_dir and Path(args.tpcc_mysql_dir))
    with Target(args) as target:
        run(target.spec, options, out_dir=Path(args.out) if args.out else None, local_socket=target.local_socket)
    if args.out:
        print(f"\nwrote {args.out}/tpcc.log, tpcc_intervals.csv and summary.json", file=sys.stderr)
    return 0


def register(commands) -> None:
    tpcc = commands.add_parser("tpcc", help="TPC-C: load a seeded dataset, run the driver",
                               description="TPC-C as tpcc-mysql runs it, with a random seed, a fast loader and its log format.")
    tpcc_commands = tpcc.add_subparsers(dest="tpcc_command", metavar="ACTION", required=True)
    load = tpcc_commands.add_parser("load", help="generate (or reuse) the seeded data and bulk-load it",
                                    description="Generate the TPC-C population for -w warehouses and --random-seed once "
                                                "(cached under data/cache), load it, and check row counts and the "
                                                "consistency conditions 1-4 of clause 3.3.2.")
    load.add_argument("-w", "--warehouses", type=int, required=True, help="number of warehouses")
    load.add_argument("--random-seed", "--seed", dest="seed", type=int, default=KNOBS_BY_NAME["random_seed"].default,
                      help="random seed of the generated data (the sweep's knob random_seed; --seed is the same "
                           f"option; default {KNOBS_BY_NAME['random_seed'].default})")
    load.add_argument("--cache-dir", default=str(CACHE_DIR), help="where generated data is kept")
    load.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    load.add_argument("--loader", choices=LOADERS, default=PAGELAB_LOADER,
                      help="pagelab: the seeded bulk loader (default, ~2.5 s per warehouse, the same rows for every "
                           "page size); tpcc-mysql: a real tpcc_load (with --tpcc-mysql-dir, ~1 min per warehouse)")
    add_tpcc_mysql_dir_argument(load)
    add_target_arguments(load)
    load.set_defaults(handler=cmd_tpcc_load)

    run = tpcc_commands.add_parser("run", help="run the TPC-C driver and write tpcc-mysql's log format",
                                   description="Run N terminals: ramp-up, then the measurement, with one line per "
                                               "interval in tpcc_start's format. Writes tpcc.log, tpcc_intervals.csv "
                                               "and summary.json into --out.")
    run.add_argument("-w", "--warehouses", type=int, required=True, help="warehouses to use (at most those loaded)")
    # the defaults are the sweep knobs' (pagelab.sweep.knobs), declared once there
    default = {name: KNOBS_BY_NAME[name].default for name in ("connections", "rampup_s", "measure_s", "interval_s", "random_seed",
                                                            "max_rampup_s", "max_measure_s", "target_ci_pct")}
    run.add_argument("-c", "--connections", type=int, default=default["connections"],
                     help=f"terminals, one connection each (default {default['connections']})")
    run.add_argument("-r", "--rampup", type=_seconds_or_auto("rampup_s"), default=default["rampup_s"],
                     help=f"ramp-up seconds, not measured, or auto: until the pool has filled and the rate is level "
                          f"(default {default['rampup_s']})")
    run.add_argument("-l", "--measure", type=_seconds_or_auto("measure_s"), default=default["measure_s"],
                     help=f"measured seconds, or auto: until TpmC is precise to --target-ci "
                          f"(default {default['measure_s']})")
    run.add_argument("--max-rampup", type=int, default=default["max_rampup_s"], metavar="S",
                     help=f"cap of an auto ramp-up; a buffer pool still filling at it may take up to twice that "
                          f"(default {default['max_rampup_s']})")
    run.add_argument("--max-measure", type=int, default=default["max_measure_s"], metavar="S",
                     help=f"cap of an auto measurement (default {default['max_measure_s']})")
    run.add_argument("--target-ci", type=float, default=default["target_ci_pct"], metavar="PCT",
                     help=f"with -l auto: the 95%% interval of TpmC to reach, in percent "
                          f"(default {default['target_ci_pct']:g})")
    run.add_argument("-i", "--interval", type=int, default=default["interval_s"],
                     help=f"seconds per report line (default {default['interval_s']})")
    run.add_argument("--random-seed", "--seed", dest="seed", type=int, default=default["random_seed"],
                     help=f"random seed of the terminals' input streams (the sweep's knob random_seed; --seed is "
                          f"the same option; default {default['random_seed']})")
    run.add_argument("--out", metavar="DIR", help="write tpcc.log, tpcc_intervals.csv and summary.json here")
    run.add_argument("--spec-pacing", action="store_true",
                     help="keying and think times of clause 5.2.5.7 (default: none, as tpcc-mysql)")
    run.add_argument("--rt-limit", action="append", default=[], metavar="KIND=MS",
                     help="response-time limit in ms for the 90%% check, e.g. new-order=5000 (repeatable)")
    run.add_argument("--stall", type=int, default=KNOBS_BY_NAME["stall_s"].default, metavar="S",
                     help=f"{KNOBS_BY_NAME['stall_s'].help.replace('%', '%%')} (default {KNOBS_BY_NAME['stall_s'].default})")
    run.add_argument("--nurand", choices=NURAND_MODELS, default=KNOBS_BY_NAME["nurand"].default,
                     help="where the skewed draws of customers and items get their constant: tpcc-mysql (default; "
                          "what tpcc_start really does, a hot set per terminal) or spec (one constant per run, "
                          "TPC-C clause 2.1.6)")
    add_mode_argument(run, default=DEFAULT_MODE)
    add_tpcc_mysql_dir_argument(run)
    add_target_arguments(run)
    run.set_defaults(handler=cmd_tpcc_run)
