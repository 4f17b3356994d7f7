"""`pagelab doctor`: what an experiment depends on, and what is missing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pagelab.paths import DATA_DIR

def cmd_doctor(args: argparse.Namespace) -> int:
    from pagelab.doctor import run_doctor

    report = run_doctor(Path(args.data_dir))
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.render())
    return 0 if report.ok else 1


def register(commands) -> None:
    doctor = commands.add_parser("doctor", help="check what an experiment depends on",
                                 description="Report the server, iostat, fio, the data device, O_DIRECT, disk, memory "
                                             "and cores. Exits 1 naming what to install when something is missing.")
    doctor.add_argument("--data-dir", default=str(DATA_DIR),
                        help="where experiment data will live (default: the project's data/)")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.set_defaults(handler=cmd_doctor)
