"""`pagelab run-unit BUNDLE INDEX`: one unit of a sweep's plan, as a Slurm array task runs it."""

from __future__ import annotations

import argparse
from pathlib import Path


def cmd_run_unit(args: argparse.Namespace) -> int:
    from pagelab.bundle import sweep_file
    from pagelab.sweep.run_unit import run_one

    bundle = Path(args.bundle)
    sweep_file(bundle)  # NotABundle before anything starts
    code, record, name = run_one(bundle, args.index, Path(args.scratch) if args.scratch else None)
    entry = record.run(name)
    print(f"{name}: {entry['status']}" + (f": {entry['error']}" if entry.get("error") else ""))
    return code


def _index(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a unit index; give a whole number from 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; unit indices start at 0")
    return value


def register(commands) -> None:
    parser = commands.add_parser(
        "run-unit", help="run one unit (page size and repeat) of a sweep's plan; what each Slurm array task runs",
        description="Run unit INDEX of BUNDLE/plan.json into its run directory, BUNDLE/<page>-r<k>/, and record its "
                    "status in sweep.json. It starts from the page size's loaded snapshot if the bundle has one, else "
                    "it initialises and loads, then snapshots for the other units (under a lock: units that need it "
                    "at the same time wait). Exit 0 if the run is done, 1 if it failed, 143 if SIGTERM stopped it.")
    parser.add_argument("bundle", metavar="BUNDLE", help="a sweep directory (pagelab sweep, or sweep --plan-only)")
    parser.add_argument("index", metavar="INDEX", type=_index, help="the unit's index in plan.json, from 0")
    parser.add_argument("--scratch", metavar="DIR",
                        help="run the unit's server in a directory of its own under DIR (a node-local disk), restored "
                             "from the bundle's snapshot and removed afterwards, instead of in the page size's "
                             "instance in the bundle; units of one page size can then run at once")
    parser.set_defaults(handler=cmd_run_unit)
