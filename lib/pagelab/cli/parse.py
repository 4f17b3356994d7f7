"""`pagelab parse KIND PATH`: a captured log or status output as a tidy table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagelab.common.errors import UsageError

def cmd_parse(args: argparse.Namespace) -> int:
    from pagelab.parse import PARSERS, parse_innodb_status_dir

    path = Path(args.path)
    if path.is_dir():
        if args.kind != "innodb-status":
            raise UsageError(f"{path} is a directory; only innodb-status reads a directory of snapshots")
        result = parse_innodb_status_dir(path)
    else:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
        result = PARSERS[args.kind](text)
    for warning in result.warnings:
        print(f"pagelab parse: warning: {warning}", file=sys.stderr)
    frame = result.to_frame()
    if args.format == "json":
        print(frame.to_json(orient="records", indent=1))
    else:
        frame.to_csv(sys.stdout, index=False)
    return 0


def register(commands) -> None:
    from pagelab.parse import PARSERS

    parse = commands.add_parser("parse", help="turn a captured log into a tidy table (CSV or JSON on stdout)",
                                description="Read a tpcc-mysql log (ours or tpcc_start's, any version), "
                                            "SHOW ENGINE INNODB STATUS output (MariaDB 10.x, MySQL 5.7/8.0; a file "
                                            "or a directory of snapshots), iostat text or JSON (sysstat 10-12), or "
                                            "fio JSON, or YCSB output (ours or YCSB's own). Lines that cannot be read are reported on stderr.")
    parse.add_argument("kind", choices=sorted(PARSERS), help="what the file holds")
    parse.add_argument("path", metavar="PATH", help="the file (or, for innodb-status, a directory of snapshots)")
    parse.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default csv)")
    parse.set_defaults(handler=cmd_parse)
