"""`pagelab sweep` and `pagelab report`: the page-size sweep of seed 002, its report and PDF."""

from __future__ import annotations

import argparse
from pathlib import Path

from pagelab.cli.common import add_mode_argument
from pagelab.errors import UsageError

def cmd_sweep(args: argparse.Namespace) -> int:
    from pagelab import sweep

    if args.resume:
        if args.profile or args.set or args.out or args.noise:
            raise UsageError("--resume DIR continues a sweep with its own profile; drop --profile/--set/--out/--noise")
        sweep_dir, pdf = sweep.finish(Path(args.resume), fail_fast=args.fail_fast, pdf_path=args.pdf,
                                      report=_report_options(args), keep_instances=args.keep_instances)
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
                                     fail_fast=args.fail_fast, pdf_path=args.pdf, noise=args.noise,
                                     report=_report_options(args), keep_instances=args.keep_instances)
    print(f"\nsweep: {sweep_dir}")
    print(f"PDF:   {pdf}")
    print(f"copy:  {sweep.SweepRecord.load(sweep_dir).document['report']['copy']}")
    for line in sweep.summary_lines(sweep_dir):
        print(f"  {line}")
    # the report covers the runs that finished; a script or CI must still learn that some did not
    return 1 if sweep.failed_runs(sweep_dir) else 0


def _report_options(args: argparse.Namespace) -> dict:
    if args.notes and not Path(args.notes).is_file():
        raise UsageError(f"--notes {args.notes}: no such file; give a Markdown file of your own notes")
    return {"author": args.author or "", "title": args.title or "", "affiliation": args.affiliation or "",
            "notes": args.notes or ""}


def cmd_report(args: argparse.Namespace) -> int:
    from pagelab import sweep

    target = Path(args.target)
    if target.suffix == ".ipynb":
        from pagelab.notebook_report import report_notebook

        if args.notes or args.author or args.title or args.affiliation:
            raise UsageError("--author/--title/--affiliation/--notes are for a sweep's report; give a sweep directory")
        notebook, pdf = report_notebook(target, args.parameter, Path(args.pdf) if args.pdf else None)
        print(f"notebook: {notebook}\nPDF: {pdf}")
        return 0
    if args.parameter:
        raise UsageError("-p NAME VALUE is for a notebook; a sweep's report takes its directory only")
    if not target.is_dir():
        raise UsageError(f"{target} does not exist; give the directory of a sweep made by `pagelab sweep`, "
                         "or a notebook (.ipynb)")
    if not (target / "sweep.json").exists():
        raise UsageError(f"{target} has no sweep.json; give the directory of a sweep made by `pagelab sweep`")
    pdf = sweep.execute_report(target, Path(args.pdf) if args.pdf else None, **_report_options(args))
    print(f"PDF: {pdf}\ncopy: {sweep.SweepRecord.load(target).document['report']['copy']}")
    return 0


def _add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the report's title page and notes")
    group.add_argument("--title", help="the report's title (default: the effect of InnoDB page size on TPC-C)")
    group.add_argument("--author", help="who made the sweep, for the title page")
    group.add_argument("--affiliation", help="course, lab or institution, for the title page")
    group.add_argument("--notes", metavar="FILE.md", help="your own notes (Markdown), placed in the report's Notes "
                                                           "section (default: BUNDLE/notes.md if it exists)")


def _profile_epilog() -> str:
    try:
        from pagelab.profiles import profile_help

        return profile_help()
    except Exception as exc:  # help must print even if a profile file is broken
        return f"(profile knobs unavailable: {exc})"


def register(commands) -> None:
    sweep = commands.add_parser(
        "sweep", help="run the page-size sweep (seed 002) and write the PDF report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="For each page size and repeat of a profile, execute notebooks/tpcc_page_size_run.ipynb with "
                    "papermill into a run bundle (data/runs/<sweep-id>/), then the report notebook and the PDF "
                    "(BUNDLE/report.pdf, copied to reports/). Ctrl-C keeps finished runs; --resume DIR does the rest. "
                    "It ends with the median TpmC per page size and a verdict for each pair; `pagelab stats DIR` "
                    "gives every metric.\n\n"
                    "Profiles live in runbooks/profiles/ (smoke, quick, course, full); any knob can be changed with "
                    "--set knob=value.",
        epilog=_profile_epilog())
    sweep.add_argument("--profile", help="profile name in runbooks/profiles/ or a YAML path (default quick)")
    sweep.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                       help="override a knob, e.g. --set page_sizes=4k,16k --set measure_s=30 (repeatable)")
    sweep.add_argument("--out", metavar="DIR", help="the sweep directory (default data/runs/<profile>-<time>)")
    sweep.add_argument("--resume", metavar="DIR", help="finish an interrupted sweep")
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
    _add_report_options(sweep)
    add_mode_argument(sweep, default=None)
    sweep.add_argument("--tpcc-mysql-dir", metavar="DIR", help="shortcut for --set tpcc_mysql_dir=...")
    sweep.set_defaults(handler=cmd_sweep)

    report = commands.add_parser(
        "report", help="a sweep's lab report, or any notebook, as a PDF without code",
        description="With a sweep directory: execute notebooks/tpcc_page_size_report.ipynb over it and print the lab "
                    "report (title page, introduction, method, setup, results with intervals and verdicts, "
                    "discussion of the seed's claims, conclusion, notes, references, appendix) to BUNDLE/report.pdf, "
                    "with a copy in reports/. With a notebook (.ipynb): execute it with papermill (-p NAME VALUE "
                    "sets a parameter) into reports/<name>-<time>/ and print it to PDF without code cells.")
    report.add_argument("target", metavar="DIR|NOTEBOOK", help="a sweep directory, or a notebook such as "
                                                               "notebooks/sqlite_page_size.ipynb")
    report.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                        help="a notebook parameter (repeatable; the value is read as YAML: 3, 1e3, [4096, 8192], text)")
    report.add_argument("--pdf", metavar="PATH", help="where to write the PDF")
    _add_report_options(report)
    report.set_defaults(handler=cmd_report)
