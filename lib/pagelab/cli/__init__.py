"""The `pagelab` command line: one sub-command per step a user takes, each in its own module.

    pagelab doctor                      what an experiment depends on, and what is missing
    pagelab server init|start|status|stop DIR   the course lab's manual steps, one command each
    pagelab tpcc load|run               TPC-C: seeded bulk load, and the driver (tpcc-mysql's flags)
    pagelab parse KIND PATH             any tpcc-mysql log, InnoDB status, iostat, fio or YCSB output as a tidy table
    pagelab sweep --profile NAME        the page-size sweep: a run notebook per page size and repeat, report, PDF
    pagelab plan --from DIR             rounds x run length for a budget, from an earlier bundle's variance components
    pagelab run-unit DIR INDEX          one unit of a sweep's plan (what a Slurm array task runs)
    pagelab report DIR                  the report notebook and PDF of a sweep
    pagelab stats DIR                   medians with intervals per page size, a verdict per pair
    pagelab compare DIR_A DIR_B         two sweeps of the same page sizes, compared the same way
    pagelab advise --keys N ...         measure the disk (fio) and suggest a B-tree page size (the RethinkDB post)
    pagelab ycsb --page-sizes 16k,64k   YCSB load and workloads A/B/C per page size, on InnoDB or the prototype (the OrientDB proposal)

Each module registers its command's arguments next to the handler that reads them (`register`);
this file is only the table of commands and the one place exit statuses are decided. Errors
pagelab raises on purpose are printed as one message, without a traceback. Nothing else reaches
the terminal as a traceback either: a storage fault (read-only filesystem, I/O error, disk full)
that no layer below turned into a message, and any error pagelab did not foresee, are said in one
paragraph with their own exit status, and the traceback is saved to a file that paragraph names.
"""

from __future__ import annotations

import argparse
import os
import sys

from pagelab.cli import advise, doctor, parse, plan, run_unit, server, stats, sweep, tpcc, ycsb
from pagelab.cli.exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_STATUSES, EXIT_STORAGE, EXIT_UNEXPECTED
from pagelab.common.errors import PagelabError, StorageFault
from pagelab.common.storage import save_traceback, storage_fault_in

COMMANDS = (doctor, server, tpcc, parse, sweep, plan, run_unit, stats, advise, ycsb)

class _VersionAction(argparse.Action):
    """--version, asked of git only when given (not on every command's start)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from pagelab.machine.system import pagelab_version

        print(f"pagelab {pagelab_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pagelab",
        description="Reproduce how a database's page size changes its performance: "
                    "private MariaDB/MySQL instances per innodb_page_size, TPC-C, monitors, reports.",
        epilog="The Week 4 lab is `pagelab sweep --profile course`, and its PDF the report to hand in, with your "
               "name and notes added by `pagelab report BUNDLE --author NAME --notes NOTES.md`; README.md's "
               "\"Reproducing the Week 4 lab\" says how long it takes and how to read it. "
               f"Run `pagelab COMMAND --help` for the options of each command.\n{EXIT_STATUSES}",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print pagelab's version, naming its commit (e.g. 0.1.0+g1234abc), and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # a bad argument exits here with EXIT_BAD_INPUT (argparse's 2)
    try:
        return args.handler(args)
    except StorageFault as exc:
        saved = save_traceback(exc, exc.bundle)
        print(f"pagelab: error: {exc}.{_traceback_words(saved)}", file=sys.stderr)
        return exc.exit_code
    except PagelabError as exc:
        print(f"pagelab: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pagelab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`pagelab parse ... | head`): as for any Unix filter, not an error.
        # Python would report the pipe again when it flushes stdout at exit, so point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # the last line of defence: no traceback on the terminal
        return _unforeseen(exc, args)


def _unforeseen(exc: Exception, args: argparse.Namespace) -> int:
    """One paragraph for an error no command turned into a message, its traceback saved (into the
    bundle the command was given, if it can be written, else the user's cache directory)."""
    bundle = next((value for value in (getattr(args, "resume", None), getattr(args, "out", None))
                   if value and os.path.isdir(value)), None)
    saved = save_traceback(exc, bundle)
    fault = storage_fault_in(exc)
    if fault is not None:
        where = f" at {fault.path}" if fault.path else ""
        print(f"pagelab: error: storage fault: {fault.what} ({fault.symbol}){where}. Nothing after that moment "
              f"could be written; what was written before is kept. {fault.repair[0].upper()}{fault.repair[1:]}, then "
              f"run the command again (a sweep: pagelab sweep --resume BUNDLE).{_traceback_words(saved)}",
              file=sys.stderr)
        return EXIT_STORAGE
    print(f"pagelab: unexpected error: {type(exc).__name__}: {exc}. This is a fault in pagelab, not in what you "
          f"gave it; what was finished before it is kept (a sweep continues with pagelab sweep --resume "
          f"BUNDLE).{_traceback_words(saved)} Please send that file with a report of the problem.",
          file=sys.stderr)
    return EXIT_UNEXPECTED


def _traceback_words(saved) -> str:
    return f" The traceback is in {saved}." if saved else " (The traceback could not be saved anywhere.)"
