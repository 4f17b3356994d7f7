"""`pagelab doctor`: what an experiment depends on, and what is missing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pagelab.common.paths import DATA_DIR

def cmd_doctor(args: argparse.Namespace) -> int:
    from pagelab.machine.doctor import run_doctor

    report = run_doctor(Path(args.data_dir))
    document = report.to_dict()
    if args.noise:
        from pagelab.evidence.tables import noise_lines
        from pagelab.machine.noise import measure_noise

        noise = measure_noise(Path(args.data_dir), progress=not args.json)
        document["noise"] = noise
    print(json.dumps(document, indent=2) if args.json else report.render())
    if args.noise and not args.json:
        print("\nThis machine's noise, measured now:\n" + "\n".join(f"  {line}" for line in noise_lines(noise)))
    return 0 if report.ok else 1


def register(commands) -> None:
    doctor = commands.add_parser("doctor", help="check what an experiment depends on",
                                 description="Report the server, iostat, fio, the data device, O_DIRECT, disk, memory "
                                             "and cores. Exits 1 naming what to install when something is missing.")
    doctor.add_argument("--data-dir", default=str(DATA_DIR),
                        help="where experiment data will live (default: the project's data/)")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.add_argument("--noise", action="store_true",
                        help="also measure this machine's run-to-run noise: fio 4 KiB random reads and a fixed CPU "
                             "loop, 5 times each, alternated (~30 s)")
    doctor.set_defaults(handler=cmd_doctor)
