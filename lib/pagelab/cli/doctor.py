"""`pagelab doctor`: what an experiment depends on, and what is missing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pagelab.common.paths import DATA_DIR

def browser_check():
    """The PDF step's browser, as a warning: without one a sweep still runs and gives its verdicts,
    and only its last step, the PDF, fails. Checked here, above the report layer that prints."""
    from pagelab.machine.doctor import Check
    from pagelab.report.browser import BROWSER_ENV, BROWSER_FIX, BROWSER_NAMES, browser_version, find_browser

    browser = find_browser()
    if browser is None:
        return Check("PDF browser", False,
                     f"no Chromium ({', '.join(BROWSER_NAMES)} on PATH, or ${BROWSER_ENV}): a sweep runs and gives "
                     "its verdicts, but writes no PDF",
                     f"{BROWSER_FIX}; or point {BROWSER_ENV} at a Chromium or Chrome binary", required=False)
    version = browser_version(browser)
    if version is None:
        return Check("PDF browser", False,
                     f"{browser} does not run (`--version` printed no version; on Ubuntu 22.04 and later "
                     "chromium-browser is only a stub that runs the chromium snap): a sweep runs and gives its "
                     "verdicts, but writes no PDF",
                     f"`sudo snap install chromium`, or point {BROWSER_ENV} at a Chromium or Chrome binary that runs",
                     required=False)
    return Check("PDF browser", True, f"{version} ({browser})")


def cmd_doctor(args: argparse.Namespace) -> int:
    from pagelab.machine.doctor import run_doctor

    report = run_doctor(Path(args.data_dir))
    report.checks.append(browser_check())
    document = report.to_dict()
    if args.noise:
        from pagelab.evidence.stats_text import noise_lines
        from pagelab.machine.noise import measure_noise

        noise = measure_noise(Path(args.data_dir), progress=not args.json)
        document["noise"] = noise
    print(json.dumps(document, indent=2) if args.json else report.render())
    if args.noise and not args.json:
        print("\nThis machine's noise, measured now:\n" + "\n".join(f"  {line}" for line in noise_lines(noise)))
    return 0 if report.ok else 1


def register(commands) -> None:
    doctor = commands.add_parser("doctor", help="check what an experiment depends on",
                                 description="Report the server, iostat, fio, the data device, O_DIRECT, disk, memory, "
                                             "cores and the browser that prints the PDF. A failed required check "
                                             "(✗: the server, iostat, the data device, O_DIRECT) exits 1, naming "
                                             "what to install, and so stops `make demo`; a warning (!: fio, free "
                                             "disk, memory, the PDF browser, an old iostat or server) does not.")
    doctor.add_argument("--data-dir", default=str(DATA_DIR),
                        help="where experiment data will live (default: the project's data/)")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.add_argument("--noise", action="store_true",
                        help="also measure this machine's run-to-run noise: fio 4 KiB random reads and a fixed CPU "
                             "loop, 5 times each, alternated (~30 s)")
    doctor.set_defaults(handler=cmd_doctor)
