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
        sweep_dir = Path(args.resume)
        if not sweep_dir.is_dir():
            raise UsageError(f"{sweep_dir} does not exist; give the directory of a sweep to --resume")
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
                                     fail_fast=args.fail_fast, pdf_path=args.pdf, noise=args.noise)
    print(f"\nsweep: {sweep_dir}")
    print(f"PDF:   {pdf}")
    for line in sweep.summary_lines(sweep_dir):
        print(f"  {line}")
    # the report covers the runs that finished; a script or CI must still learn that some did not
    return 1 if sweep.failed_runs(sweep_dir) else 0


def cmd_report(args: argparse.Namespace) -> int:
    from pagelab import sweep

    sweep_dir = Path(args.directory)
    if not sweep_dir.is_dir():
        raise UsageError(f"{sweep_dir} does not exist; give the directory of a sweep made by `pagelab sweep`")
    if not (sweep_dir / "sweep.json").exists():
        raise UsageError(f"{sweep_dir} has no sweep.json; give the directory of a sweep made by `pagelab sweep`")
    pdf = sweep.execute_report(sweep_dir, Path(args.pdf) if args.pdf else None)
    print(f"PDF: {pdf}")
    return 0



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
    sweep.add_argument("--noise", action="store_true",
                       help="first measure this machine's noise (fio and a CPU loop, 5 times each, ~30 s) into the "
                            "bundle's noise.json, so the report can say how noisy the runs' machine was")
    sweep.add_argument("--pdf", metavar="PATH", help="where to write the PDF (default reports/<sweep-id>.pdf)")
    add_mode_argument(sweep, default=None)
    sweep.add_argument("--tpcc-mysql-dir", metavar="DIR", help="shortcut for --set tpcc_mysql_dir=...")
    sweep.set_defaults(handler=cmd_sweep)

    report = commands.add_parser("report", help="execute a sweep's report notebook and write its PDF",
                                 description="Execute notebooks/tpcc_page_size_report.ipynb over a sweep directory and "
                                             "print it to PDF without code cells (system Chromium).")
    report.add_argument("directory", metavar="DIR", help="the sweep directory")
    report.add_argument("--pdf", metavar="PATH", help="default reports/<sweep-id>.pdf")
    report.set_defaults(handler=cmd_report)
