"""`pagelab sweep` and `pagelab report`: the page-size sweep of the Week 4 lab, its report and PDF."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pagelab.common.reference import CITATIONS
from pagelab.cli.common import add_mode_argument
from pagelab.common.errors import UsageError

if TYPE_CHECKING:
    from pagelab.bundle import SweepRecord


def check_sweep_arguments(args: argparse.Namespace) -> None:
    """Every check of `pagelab sweep`'s options that needs no bundle: refused before anything is made
    (tests/test_documented_commands.py runs each documented sweep this far)."""
    _check_executor_options(args)
    if args.add_rounds is not None and not args.resume:
        raise UsageError("--add-rounds N adds rounds to a sweep that has run; give it with --resume DIR")
    if args.resume and (args.profile or args.set or args.out or args.noise):
        raise UsageError("--resume DIR continues a sweep with its own profile; drop --profile/--set/--out/--noise")


def checked_profile(args: argparse.Namespace):
    """The profile a new sweep of `args` runs, its knobs and the rules between them checked and a
    tpcc-mysql build found where one is needed, before anything is written; its notes printed."""
    from pagelab.sweep.profiles import DEFAULT_PROFILE, load_profile
    from pagelab.tpcc.modes import runs_tpcc_mysql

    overrides = list(args.set)
    if args.mode:
        overrides.append(f"driver_mode={args.mode}")
    if args.tpcc_mysql_dir:
        overrides.append(f"tpcc_mysql_dir={args.tpcc_mysql_dir}")
    profile = load_profile(args.profile or DEFAULT_PROFILE, overrides)
    for note in (*profile.notes, profile.verdict_floor_note()):
        if note:
            print(f"pagelab sweep: note: {note}", file=sys.stderr)
    if runs_tpcc_mysql(profile.driver_mode, profile.loader):
        from pagelab.tpcc.external import find_tpcc_mysql

        find_tpcc_mysql(Path(profile.tpcc_mysql_dir or "."))
    return profile


def cmd_sweep(args: argparse.Namespace) -> int:
    from pagelab.sweep import orchestrator as sweep

    check_sweep_arguments(args)
    if args.resume:
        if args.add_rounds is not None:
            from pagelab.sweep.extend import add_rounds

            record = add_rounds(Path(args.resume), args.add_rounds, check_machine=args.executor != "slurm")
            look = record.document["looks"][-1]
            print(f"pagelab sweep: look {look['look']} of {record.directory}: {args.add_rounds} round(s) added, "
                  f"{look['rounds']} in all", file=sys.stderr)
        if args.executor == "slurm":
            sweep.check_bundle_directory(Path(args.resume))
            with sweep.bundle_lock(Path(args.resume)):  # not while a local sweep runs its units
                return _submit_to_slurm(args, sweep.check_resumable(Path(args.resume)))
        record, pdf = sweep.finish(Path(args.resume), fail_fast=args.fail_fast, pdf_path=args.pdf,
                                   report=_report_options(args), keep_instances=args.keep_instances)
    else:
        profile = checked_profile(args)  # validated before anything starts
        if args.executor == "slurm" or args.plan_only:
            return _plan_elsewhere(args, profile)
        record, pdf = sweep.sweep(profile, profile.name, out_dir=Path(args.out) if args.out else None,
                                  fail_fast=args.fail_fast, pdf_path=args.pdf, noise=args.noise,
                                  report=_report_options(args), keep_instances=args.keep_instances)
    print(f"\nsweep: {record.directory}")
    print(f"PDF:   {pdf}")
    print(f"copy:  {record.document['report']['copy']}")
    for line in sweep.summary_lines(record):
        print(f"  {line}")
    # the report covers the runs that finished; a script or CI must still learn that some did not
    return 1 if sweep.failed_runs(record) else 0


def _check_executor_options(args: argparse.Namespace) -> None:
    """Options of one executor given to the other are refused before anything is made."""
    if args.executor != "slurm":
        for flag, value in (("--slurm-args", args.slurm_args), ("--slurm-max-running", args.slurm_max_running),
                            ("--scratch", args.scratch)):
            if value is not None:
                raise UsageError(f"{flag} is for --executor slurm; add --executor slurm or drop {flag}")
    elif args.fail_fast:
        raise UsageError("--fail-fast is for --executor local: Slurm runs the units independently; drop it")
    if args.plan_only and (args.resume or args.executor == "slurm"):
        raise UsageError("--plan-only only writes a new bundle's plan; drop --resume and --executor")
    if args.executor == "slurm":
        from pagelab.sweep.slurm import parse_slurm_args, require_slurm_client

        parse_slurm_args(args.slurm_args)
        if not args.scratch:
            raise UsageError("--executor slurm needs --scratch DIR, a directory on each node's local disk where the "
                             "units' servers live (e.g. --scratch /local/$USER): in the bundle on the shared "
                             "filesystem they would measure the network, not the node's disk")
        require_slurm_client()
        if args.slurm_max_running is not None and args.slurm_max_running < 1:
            raise UsageError(f"--slurm-max-running must be at least 1, got {args.slurm_max_running}")
    if args.pdf:
        from pagelab.report.pdf import check_pdf_path

        check_pdf_path(Path(args.pdf))


def _plan_elsewhere(args: argparse.Namespace, profile) -> int:
    """A new bundle whose units run on Slurm, or only its plan (--plan-only)."""
    from pagelab.sweep import orchestrator as sweep
    from pagelab.sweep.plan import read_plan

    # On Slurm each node measures its own noise before its first unit; locally it is measured first.
    sweep_dir = sweep.create_sweep(profile, Path(args.out) if args.out else None, profile.name,
                                   measure_noise_per_host=args.noise)
    plan = read_plan(sweep_dir)
    if args.plan_only:
        print(f"plan: {sweep_dir / 'plan.json'} ({len(plan.units)} units)")
        for unit in plan.units:
            print(f"  {unit.index}: {unit.name}")
        print(f"run one round: pagelab run-unit {sweep_dir} --round K [--scratch DIR]\n"
              f"run them all:  pagelab sweep --resume {sweep_dir} [--executor slurm --scratch DIR]")
        return 0
    from pagelab.bundle import SweepRecord

    return _submit_to_slurm(args, SweepRecord.load(sweep_dir))


def _submit_to_slurm(args: argparse.Namespace, record: SweepRecord) -> int:
    from pagelab.sweep.slurm import parse_slurm_args, submit
    from pagelab.sweep.plan import blocks_not_done

    report_args = [word for flag, value in (("--pdf", args.pdf), ("--title", args.title), ("--author", args.author),
                                            ("--affiliation", args.affiliation), ("--notes", args.notes))
                   if value for word in (flag, str(Path(value).resolve()) if flag in ("--pdf", "--notes") else value)]
    report_args += ["--finish-sweep"] + (["--keep-instances"] if args.keep_instances else [])
    sweep_dir = record.directory
    submission = submit(record, blocks_not_done(record), parse_slurm_args(args.slurm_args), Path(args.scratch),
                        args.slurm_max_running, report_args)
    print(f"sweep: {Path(sweep_dir).resolve()}")
    for line in submission.watch_lines(Path(sweep_dir).resolve()):
        print(line)
    return 0


def _report_options(args: argparse.Namespace) -> dict:
    if args.notes and not Path(args.notes).is_file():
        raise UsageError(f"--notes {args.notes}: no such file; give a Markdown file of your own notes")
    return {"author": args.author or "", "title": args.title or "", "affiliation": args.affiliation or "",
            "notes": args.notes or ""}


def cmd_report(args: argparse.Namespace) -> int:
    from pagelab.bundle import SweepRecord
    from pagelab.sweep import orchestrator as sweep
    from pagelab.sweep.report_step import execute_report

    target = Path(args.target)
    if target.suffix == ".ipynb":
        from pagelab.report.notebook_report import report_notebook

        if args.notes or args.author or args.title or args.affiliation:
            raise UsageError("--author/--title/--affiliation/--notes are for a sweep's report; give a sweep directory")
        notebook, pdf = report_notebook(target, args.parameter, Path(args.pdf) if args.pdf else None)
        print(f"notebook: {notebook}\nPDF: {pdf}")
        return 0
    if args.parameter:
        raise UsageError("-p NAME VALUE is for a notebook; a sweep's report takes its directory only")
    record = SweepRecord.load(target)  # NotABundle if it is none
    # --finish-sweep is a Slurm sweep's own report job: its time is the sweep's report step
    pdf = execute_report(record, Path(args.pdf) if args.pdf else None, **_report_options(args),
                               sweep_step=args.finish_sweep)
    print(f"PDF: {pdf}\ncopy: {record.document['report']['copy']}")
    if args.finish_sweep:  # what a local sweep does after its report; every run must be done to drop the datadirs
        sweep.tidy_up(record, args.keep_instances)
    return 1 if args.finish_sweep and sweep.failed_runs(record) else 0


def _add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the report's title page and notes")
    group.add_argument("--title", help="the report's title (default: the effect of InnoDB page size on TPC-C)")
    group.add_argument("--author", help="who made the sweep, for the title page")
    group.add_argument("--affiliation", help="course, lab or institution, for the title page")
    group.add_argument("--notes", metavar="FILE.md", help="your own notes (Markdown), placed in the report's Notes "
                                                           "section after the Conclusion: your machine, what you "
                                                           "changed, your analysis (README.md's \"Handing in the "
                                                           "report\" has an example; default: BUNDLE/notes.md if it "
                                                           "exists)")


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    from pagelab.sweep import EXECUTORS

    group = parser.add_argument_group("where the units run (runbooks/slurm.md)")
    group.add_argument("--executor", choices=EXECUTORS, default="local",
                       help="local (default): one unit after another on this machine, then the report; slurm: one "
                            "job array of exclusive nodes, one round each (its units in order on that node), and a "
                            "report job after it; prints the job ids and returns at once")
    group.add_argument("--slurm-args", metavar="'ARGS'",
                       help="passed to sbatch for both jobs; give it with '=' since it starts with a dash, e.g. "
                            "--slurm-args='--partition=short --time=02:00:00 --account=db'")
    group.add_argument("--slurm-max-running", metavar="K", type=int,
                       help="at most K rounds (nodes) at once (the array's %%K; default: all of them); a resumed sweep does "
                            "not remember it, so give it again with --resume")
    group.add_argument("--scratch", metavar="DIR",
                       help="required with --executor slurm: where each unit's server lives on its node, a directory "
                            "on the node's local disk (not the shared filesystem, which would measure the network); "
                            "it is restored there from the bundle's snapshot and removed after")


def _profile_epilog() -> str:
    try:
        from pagelab.sweep.profiles import profile_help

        return profile_help()
    except Exception as exc:  # help must print even if a profile file is broken
        return f"(profile knobs unavailable: {exc})"


def register(commands) -> None:
    sweep = commands.add_parser(
        "sweep", help="run the page-size sweep (the Week 4 lab's TPC-C experiment) and write the PDF report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"The Week 4 lab's experiment ({CITATIONS['week4_lab']}): TPC-C under each innodb_page_size. "
                    "For each page size and repeat of a profile, execute notebooks/tpcc_page_size_run.ipynb with "
                    "papermill into a run bundle (data/runs/<sweep-id>/), then the report notebook and the PDF "
                    "(BUNDLE/report.pdf, copied to reports/). Ctrl-C keeps finished runs; --resume DIR does the rest. "
                    "It ends with the median TpmC per page size and a verdict for each pair; `pagelab stats DIR` "
                    "gives every metric.\n\n"
                    "Profiles live in runbooks/profiles/ (listed below); any knob can be changed with --set knob=value.",
        epilog=_profile_epilog())
    from pagelab.sweep.profiles import DEFAULT_PROFILE

    sweep.add_argument("--profile", help=f"profile name in runbooks/profiles/ or a YAML path (default {DEFAULT_PROFILE})")
    sweep.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                       help="override a knob, e.g. --set page_sizes=4k,16k --set measure_s=30 (repeatable)")
    sweep.add_argument("--out", metavar="DIR", help="the sweep directory (default data/runs/<profile>-<time>)")
    sweep.add_argument("--resume", metavar="DIR", help="finish a sweep that stopped (interrupted, killed, or "
                                                          "stopped at its PDF): runs what is not done, then the report")
    sweep.add_argument("--add-rounds", metavar="N", type=int,
                       help="with --resume DIR: add N rounds of verdict runs to a finished (or unfinished) sweep made "
                            "with room for them (--set max_rounds=M when it was made), run them and report again. The "
                            "rounds continue the random seed's order; each addition is a look, recorded in sweep.json and "
                            "tested at a group-sequential boundary, so adding rounds until a pair resolves cannot make "
                            "a verdict out of noise. Refused, naming the difference, if the profile's file, the code "
                            "or the machine differ from the ones that made the sweep (with --executor slurm the "
                            "machine is not compared: each node records its own)")
    sweep.add_argument("--fail-fast", action="store_true", help="stop at the first failed run")
    sweep.add_argument("--keep-instances", action="store_true",
                       help="keep each page size's datadir and loaded snapshot after a finished sweep (about twice "
                            "the loaded database per page size); by default they are removed and the bundle keeps "
                            "its tables, logs, notebooks and PDF. An unfinished sweep always keeps them for --resume")
    sweep.add_argument("--noise", action="store_true",
                       help="first measure this machine's noise (fio and a CPU loop, 5 times each, ~30 s) into the "
                            "bundle's noise.json, so the report can say how noisy the runs' machine was")
    sweep.add_argument("--pdf", metavar="PATH", help="where to write the PDF (default BUNDLE/report.pdf, with a copy "
                                                     "in reports/)")
    sweep.add_argument("--plan-only", action="store_true",
                       help="write the bundle and its plan of run units (plan.json) and stop; run them later with "
                            "--resume, or a round at a time with `pagelab run-unit BUNDLE --round K`")
    _add_executor_options(sweep)
    _add_report_options(sweep)
    add_mode_argument(sweep, default=None)
    sweep.add_argument("--tpcc-mysql-dir", metavar="DIR", help="shortcut for --set tpcc_mysql_dir=...")
    sweep.set_defaults(handler=cmd_sweep)

    report = commands.add_parser(
        "report", help="a sweep's lab report, or any notebook, as a PDF without code",
        description="With a sweep directory: execute notebooks/tpcc_page_size_report.ipynb over it and print the lab "
                    "report (title page, summary, introduction, method, setup, results with intervals and verdicts, "
                    "discussion of the lab's claims, conclusion, notes, references, glossary, appendix) to "
                    "BUNDLE/report.pdf, "
                    "with a copy in reports/. With a notebook (.ipynb): execute it with papermill (-p NAME VALUE "
                    "sets a parameter) into reports/<name>-<time>/ and print it to PDF without code cells.")
    report.add_argument("target", metavar="DIR|NOTEBOOK", help="a sweep directory, or a notebook such as "
                                                               "notebooks/sqlite_page_size.ipynb")
    report.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                        help="a notebook parameter (repeatable; the value is read as YAML: 3, 1e3, [4096, 8192], text)")
    report.add_argument("--pdf", metavar="PATH", help="where to write the PDF")
    report.add_argument("--finish-sweep", action="store_true",
                        help="end the sweep as a local one ends (the Slurm report job does this): record the report's "
                             "time as the sweep's report step (which `pagelab plan` counts), after the report "
                             "remove the datadirs and snapshots if every run is done, and exit 1 if a run failed")
    report.add_argument("--keep-instances", action="store_true", help="with --finish-sweep: keep them")
    _add_report_options(report)
    report.set_defaults(handler=cmd_report)
