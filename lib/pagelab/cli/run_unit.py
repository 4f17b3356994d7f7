"""`pagelab run-unit BUNDLE --round K`: one round of a sweep's plan on this node, as each Slurm array
task runs it; `pagelab run-unit BUNDLE INDEX`: one unit, by hand."""

from __future__ import annotations

import argparse
from pathlib import Path

from pagelab.common.errors import UsageError


def cmd_run_unit(args: argparse.Namespace) -> int:
    from pagelab.bundle import sweep_file
    from pagelab.sweep.run_unit import run_block, run_one

    if (args.index is None) == (args.round is None):
        raise UsageError("give a unit's INDEX or --round K (a whole round, as a Slurm task runs it), not both or neither")
    bundle = Path(args.bundle)
    sweep_file(bundle)  # NotABundle before anything starts
    scratch = Path(args.scratch) if args.scratch else None
    if args.round is not None:
        code, record, names = run_block(bundle, args.round, scratch)
    else:
        code, record, name = run_one(bundle, args.index, scratch)
        names = [name]
    for name in names:
        entry = record.run(name)
        print(f"{name}: {entry['status']}" + (f": {entry['error']}" if entry.get("error") else ""))
    return code


def _whole_number(what: str, start: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what}; give a whole number from {start}") from None
        if value < start:
            raise argparse.ArgumentTypeError(f"{value} is below {start}; {what}s start at {start}")
        return value
    return parse


def register(commands) -> None:
    parser = commands.add_parser(
        "run-unit", help="run one round (--round K, what each Slurm array task runs) or one unit of a sweep's plan",
        description="With --round K: run round K's units of BUNDLE/plan.json on this node, one after another in the "
                    "round's order (a round's runs are compared with each other, so a round never spans nodes: a "
                    "round with runs done on another node is refused). With INDEX: run that one unit. Each unit runs "
                    "into its run directory, BUNDLE/<page>-r<k>/, and its status goes to sweep.json. A unit starts from "
                    "the page size's loaded snapshot if the bundle has one, else it initialises and loads, then "
                    "snapshots for the other units (under a lock: units that need it at the same time wait). Exit 0 "
                    "if every unit is done, 1 if one failed, 4 if the storage under it failed (said in words: a read-only "
                    "filesystem, an I/O error, a full disk; naming the --scratch directory when it is what failed, "
                    "and a resume on Slurm with it: pagelab sweep --resume BUNDLE --executor slurm --scratch DIR), "
                    "143 if SIGTERM stopped it.")
    parser.add_argument("bundle", metavar="BUNDLE", help="a sweep directory (pagelab sweep, or sweep --plan-only)")
    parser.add_argument("index", metavar="INDEX", nargs="?", type=_whole_number("unit index", 0),
                        help="one unit's index in plan.json, from 0")
    parser.add_argument("--round", metavar="K", type=_whole_number("round", 1),
                        help="run round K whole, its units in order (what a Slurm array task runs)")
    parser.add_argument("--scratch", metavar="DIR",
                        help="run each unit's server in a directory of its own under DIR (a node-local disk), restored "
                             "from the bundle's snapshot and removed afterwards, instead of in the page size's "
                             "instance in the bundle; units of one page size can then run at once")
    parser.set_defaults(handler=cmd_run_unit)
