"""`pagelab ycsb`: YCSB load and workloads per page size, on InnoDB or the storage prototype (the OrientDB proposal)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagelab.common.reference import CITATIONS

def cmd_ycsb(args: argparse.Namespace) -> int:
    from pagelab.workloads.ycsb.options import YcsbOptions
    from pagelab.workloads.ycsb.runner import run_ycsb

    threads = args.threads
    if args.max_key_size:
        from pagelab.workloads.ycsb.keysize import max_key_sizes

        options = YcsbOptions(backend=args.backend, page_sizes=args.page_sizes, threads=threads)
        sizes = options.validate().page_sizes  # bad page sizes fail here, before any instance starts
        engines = ("innodb", "prototype") if args.engines == "both" else (args.engines,)
        table = max_key_sizes(sizes, Path(args.out) if args.out else None, engines=engines)
        columns = ["engine", "page_size", "max_key_bytes", "refused_key_bytes", "row_format", "message"]
        table[[c for c in columns if c in table.columns]].to_csv(sys.stdout, index=False)
        return 0
    echo = None if args.quiet else (lambda text: print(text, flush=True))
    run = run_ycsb(args.backend, page_sizes=args.page_sizes, records=args.records, operations=args.operations,
                   workloads=args.workloads, distribution=args.distribution, threads=threads, seed=args.seed,
                   out_dir=Path(args.out) if args.out else None, cache_bytes=args.buffer_pool,
                   parallelism=args.parallelism, max_seconds=args.max_seconds, durable=not args.no_durable,
                   direct_io=not args.no_direct_io, keep_data=args.keep_data, overwrite=args.force,
                   progress=not args.quiet, echo=echo)
    frame = run.frame
    if not frame.empty:
        summary = frame[frame["operation"] != "OVERALL"][["page_size", "workload", "operation", "operations",
                                                          "throughput_ops_s", "average_latency_us",
                                                          "p95_latency_us", "p99_latency_us"]]
        print("\n" + summary.to_string(index=False, float_format=lambda v: f"{v:,.1f}"), file=sys.stderr)
    print(f"\nwrote {run.out_dir}/ycsb.csv, ycsb.json and each phase's YCSB text "
          f"({args.backend}-<page>/load.txt, workloada.txt, ...); seed {args.seed}", file=sys.stderr)
    return 0


def register(commands) -> None:
    from pagelab.mysql.pagesize import PAGE_SIZES
    from pagelab.workloads.ycsb.generators import DISTRIBUTIONS
    from pagelab.workloads.ycsb.options import BACKENDS, DEFAULT_OPERATIONS, DEFAULT_RECORDS

    ycsb = commands.add_parser(
        "ycsb", help="YCSB load and workloads per page size, on InnoDB or the storage prototype (OrientDB's page-size "
                     "proposal)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"OrientDB's page-size proposal, 64 KB against 16 KB pages ({CITATIONS['orientdb']}), as YCSB runs "
                    "it: for each page size a fresh "
                    "private InnoDB instance (O_DIRECT, a buffer pool well below the data) or a fresh storage-"
                    "prototype database; the load (--records records in usertable, 10 fields of 100 bytes, keys "
                    "\"user\" + FNV-64 hash), then each workload (--operations operations):\n\n"
                    "  a  read 50% / update 50%      (the proposal's mixed_50_50)\n"
                    "  b  read 95% / update 5%       (read_mostly_95_5)\n"
                    "  c  read 100%                  (read_only)\n"
                    "  d  read latest 95% / insert 5%\n"
                    "  f  read 50% / read-modify-write 50%\n\n"
                    "Each phase's output is YCSB's own text ([OVERALL], RunTime(ms), ...), printed and written to "
                    "OUT/<backend>-<page>/ (load.txt, workloada.txt, ...), plus OUT/ycsb.csv (one row per workload "
                    "and operation) and OUT/ycsb.json (options, seed, status). `pagelab parse ycsb FILE` reads any "
                    "YCSB output back into the same table. Ctrl-C stops the server and keeps the finished phases.",
        epilog="examples:\n"
               "  pagelab ycsb --page-sizes 16k,64k --records 50000 --operations 50000 --out data/runs/ycsb-demo\n"
               "  pagelab ycsb --backend prototype --page-sizes 4k,16k --records 20000 --workloads abcf\n"
               "  pagelab ycsb --max-key-size --page-sizes 4k,16k,64k")
    ycsb.add_argument("--backend", choices=BACKENDS, default="innodb",
                      help="innodb: a MariaDB/MySQL instance per innodb_page_size (default); prototype: "
                           "pagelab's storage prototype (one client thread)")
    ycsb.add_argument("--page-sizes", default="16k,64k", metavar="SIZES",
                      help=f"comma-separated page sizes from {' '.join(PAGE_SIZES.values())} (default 16k,64k, the proposal's)")
    ycsb.add_argument("--records", type=int, default=DEFAULT_RECORDS, metavar="N",
                      help=f"records to load (YCSB's recordcount; default {DEFAULT_RECORDS:,}, ~80 MB in InnoDB)")
    ycsb.add_argument("--operations", type=int, default=DEFAULT_OPERATIONS, metavar="N",
                      help=f"operations per workload (YCSB's operationcount; default {DEFAULT_OPERATIONS:,})")
    ycsb.add_argument("--workloads", default="abc", help="workload letters from a b c d f (default abc, the proposal's); "
                                                         "the load always runs first")
    ycsb.add_argument("--distribution", choices=DISTRIBUTIONS, default="zipfian",
                      help="which records the operations touch: zipfian (YCSB's scrambled zipfian, constant 0.99; "
                           "default), uniform, or latest (workload d always uses latest)")
    ycsb.add_argument("--threads", type=int, metavar="N",
                      help="client workers, YCSB's -threads (default 4 for innodb, 1 for the prototype)")
    ycsb.add_argument("--seed", type=int, default=1, help="seed of every key, value and operation draw (default 1)")
    ycsb.add_argument("--out", metavar="DIR", help="output directory (default data/runs/ycsb-<backend>-<time>; "
                                                    "with --max-key-size, where the probe instances live)")
    ycsb.add_argument("--buffer-pool", metavar="SIZE",
                      help="InnoDB's buffer pool / the prototype's cache, e.g. 24M (default: 15%% of the data the "
                           "records make, and at least what InnoDB needs at the largest page size)")
    ycsb.add_argument("--parallelism", choices=("processes", "threads"), default="processes",
                      help="run InnoDB's client workers as processes (default) or threads")
    ycsb.add_argument("--max-seconds", type=float, metavar="S",
                      help="end each phase after S seconds (YCSB's maxexecutiontime)")
    ycsb.add_argument("--no-durable", action="store_true",
                      help="do not sync each commit (innodb_flush_log_at_trx_commit=2; the prototype's journal "
                           "without fsync)")
    ycsb.add_argument("--no-direct-io", action="store_true", help="prototype: read its page file through the OS cache")
    ycsb.add_argument("--keep-data", action="store_true", help="keep the datadir / database files after the run")
    ycsb.add_argument("--force", action="store_true", help="overwrite an earlier run in --out")
    ycsb.add_argument("-q", "--quiet", action="store_true", help="no progress bars and no YCSB text on stdout")
    ycsb.add_argument("--max-key-size", action="store_true",
                      help="instead of a run: find the largest key per page size, tried on a real InnoDB instance "
                           "(the index key prefix limit) and on the prototype, and print it as CSV")
    ycsb.add_argument("--engines", choices=("both", "innodb", "prototype"), default="both",
                      help="with --max-key-size: which engines to probe (default both)")
    ycsb.set_defaults(handler=cmd_ycsb)
