"""`pagelab advise`: measure the disk and suggest a B-tree page size (RethinkDB's model)."""

from __future__ import annotations

import argparse
import json

from pagelab.common.reference import CITATIONS


def cmd_advise(args: argparse.Namespace) -> int:
    from pagelab.models.advisor import run_advise

    advice = run_advise(args.keys, args.key_bytes, args.value_bytes, args.cache, device_path=args.device,
                        refresh=args.refresh)
    print(json.dumps(advice.to_dict(), indent=2) if args.json else advice.render())
    return 0


def register(commands) -> None:
    advise = commands.add_parser(
        "advise", help="measure the disk and suggest a B-tree page size (RethinkDB's model)",
        description=f"RethinkDB's model ({CITATIONS['rethinkdb']}): lookups/s = random-read IOPS at the page size / B-tree hops, "
                    "with nodes filled as after random inserts and the top levels that fit in the cache free. "
                    "IOPS come from fio (QD1, direct I/O) on the disk under --device, measured once and cached "
                    "for 30 days in data/cache/. Prints the table behind the choice.")
    advise.add_argument("--keys", required=True, help="number of keys, e.g. 1e9")
    advise.add_argument("--key-bytes", required=True, help="key size in bytes, e.g. 32")
    advise.add_argument("--value-bytes", default="8", help="value size in bytes (default 8)")
    advise.add_argument("--cache", default="0", help="memory for cached tree levels, e.g. 1G (default 0)")
    advise.add_argument("--device", metavar="PATH", help="a directory on the disk to measure (default data/)")
    advise.add_argument("--refresh", action="store_true", help="measure again even if a cached profile exists")
    advise.add_argument("--json", action="store_true", help="print the advice as JSON")
    advise.set_defaults(handler=cmd_advise)
