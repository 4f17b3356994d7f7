"""How close pagelab's TPC-C comes to a real tpcc-mysql on the same server: the fidelity bench.

    .venv/bin/python bench/bench_tpcc_fidelity.py --tpcc-mysql-dir /tmp/tpcc-mysql

Two parts, each printing a table:

1. Data shape (`--skip-shape` leaves it out): one instance per page size (4k, 16k) holds two
   databases of 1 warehouse, one filled by pagelab's loader and one by tpcc_load. Per table: rows
   (COUNT(*)), AVG_ROW_LENGTH and data + index bytes from information_schema after ANALYZE TABLE,
   pagelab / tpcc-mysql. Goal: every ratio within 3%.
2. Runs (`--skip-runs` leaves them out): one instance per page size (4k, 8k, 16k by default;
   1 warehouse, 4 connections, 64 MB pool, O_DIRECT), loaded once by pagelab and snapshotted.
   Each pair restores the snapshot and runs tpcc_start, then restores it again and runs pagelab's
   driver (`--mode`, default statements), alternating, `--pairs` times. Printed:
   - TpmC per run and the ratio pagelab / tpcc-mysql per page size (median of the pairs);
   - the page-size ratios TpmC(p) / TpmC(first page size) for both drivers;
   - server work per New-Order from SHOW GLOBAL STATUS deltas over the measurement (rows read,
     inserted, updated, deleted, buffer-pool read requests, pages written, Questions, Com_*);
   - client CPU per 1,000 transactions: getrusage of this process around pagelab's run (its
     terminals are threads here), of the waited-for children around tpcc_start's.
   Goals (from the fidelity work): TpmC ratio 0.90-1.10; page-size ratios within +-0.05 of
   tpcc-mysql's; server work per New-Order within 5%; client CPU 0.67x-1.5x tpcc_start's.

Needs a tpcc-mysql build (`--tpcc-mysql-dir`, or the TPCC_MYSQL_DIR environment variable); without
one it says how to make one (DEVELOPERS.md) and exits 0, so `make bench` runs without it. The build
is never part of pagelab. A full run with the defaults takes about 25 minutes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from arguments import at_least_one

from pagelab.monitor import global_status
from pagelab.mysql import Instance, ServerSettings
from pagelab.mysql.client import ConnectionSpec
from pagelab.mysql.pagesize import parse_page_size
from pagelab.common.paths import CACHE_DIR
from pagelab.tpcc.datagen import generate
from pagelab.tpcc.driver import run
from pagelab.tpcc.outputs import RunOptions
from pagelab.tpcc.external import find_tpcc_mysql, load_with_tpcc_mysql
from pagelab.tpcc.loader import load
from pagelab.tpcc.modes import MODES
from pagelab.common.units import page_size_label

TABLES = ("warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock")
# The server's counters compared per New-Order: rows (MariaDB counts them as Rows_read and the
# Handler_ calls; MySQL also as Innodb_rows_*), buffer-pool requests and misses, pages and redo
# written; the Com_ ones say what kind of statements carried the work. A counter this server lacks
# is left out of the table.
WORK_COUNTERS = ("Rows_read", "Handler_read_key", "Handler_read_next", "Handler_read_rnd_next", "Handler_write",
                 "Handler_update", "Handler_delete", "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated",
                 "Innodb_rows_deleted", "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads",
                 "Innodb_pages_written", "Innodb_os_log_written", "Questions", "Com_select", "Com_insert",
                 "Com_update", "Com_delete", "Com_commit", "Com_rollback", "Com_stmt_execute", "Com_call_procedure")
# The Week 4 lab's setting: a pool much smaller than 1 warehouse (~110-120 MB), so page size matters.
POOL = "64M"


def status(spec: ConnectionSpec) -> dict[str, float]:
    link = spec.with_database(None).connect()
    try:
        cursor = link.cursor()
        cursor.execute(global_status.STATEMENT)
        return {name: float(value) for name, value in global_status.numeric_counters(cursor.fetchall()).items()}
    finally:
        link.close()


def table_shape(spec: ConnectionSpec, database: str) -> dict[str, tuple[int, int, int, int]]:
    """rows, AVG_ROW_LENGTH, data + index bytes, and data bytes per table."""
    link = spec.with_database(database).connect(autocommit=True)
    try:
        cursor = link.cursor()
        shape = {}
        for table in TABLES:
            cursor.execute(f"ANALYZE TABLE {table}")
            cursor.fetchall()
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            rows = cursor.fetchone()[0]
            cursor.execute("SELECT avg_row_length, data_length + index_length, data_length FROM information_schema.tables "
                           "WHERE table_schema = %s AND table_name = %s", (database, table))
            average, size, data = cursor.fetchone()
            shape[table] = (int(rows), int(average), int(size), int(data))
        return shape
    finally:
        link.close()


def shape_part(tpcc_mysql_dir: Path, work: Path) -> None:
    print("\n== data shape after a 1-warehouse load: pagelab's loader / tpcc_load (goal: within 3%)")
    dataset = generate(1, 1, cache_dir=CACHE_DIR, progress=False)
    for label in ("4k", "16k"):
        instance = Instance(work / f"shape-{label}", parse_page_size(label),
                            settings=ServerSettings(buffer_pool_bytes="256M"))
        instance.init(force=True)
        with instance:
            instance.start()
            spec = ConnectionSpec.for_instance(instance, tcp=True)
            load(spec, dataset, database="tpcc_pagelab", progress=False)
            started = time.monotonic()
            load_with_tpcc_mysql(spec, 1, "tpcc_reference", tpcc_mysql_dir, log_path=work / f"tpcc_load-{label}.log",
                                echo=None)
            reference_s = time.monotonic() - started
            ours, theirs = table_shape(spec, "tpcc_pagelab"), table_shape(spec, "tpcc_reference")
        instance.destroy()
        print(f"\n{label} pages (tpcc_load took {reference_s:.0f} s)")
        # AVG_ROW_LENGTH is DATA_LENGTH over InnoDB's sampled row estimate, so it moves with the
        # sample; data bytes over the exact COUNT(*) is printed beside it.
        print(f"  {'table':<11} {'rows':>17} {'ratio':>6}   {'AVG_ROW_LENGTH':>13} {'ratio':>6}   "
              f"{'data B/row':>11} {'ratio':>6}   {'data+index MiB':>15} {'ratio':>6}")
        for table in TABLES:
            (r1, a1, s1, d1), (r2, a2, s2, d2) = ours[table], theirs[table]
            print(f"  {table:<11} {r1:>8}/{r2:<8} {_ratio(r1, r2):>6}   {a1:>6}/{a2:<6} {_ratio(a1, a2):>6}   "
                  f"{d1 / r1:>5.0f}/{d2 / r2:<5.0f} {_ratio(d1 / r1, d2 / r2):>6}   "
                  f"{s1 / 2**20:>7.1f}/{s2 / 2**20:<7.1f} {_ratio(s1, s2):>6}")
        total1 = sum(v[2] for v in ours.values())
        total2 = sum(v[2] for v in theirs.values())
        print(f"  {'all':<11} {'':>17} {'':>6}   {'':>13} {'':>6}   {total1 / 2**20:>7.1f}/{total2 / 2**20:<7.1f} "
              f"{_ratio(total1, total2):>6}")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3f}" if b else "-"


class Measurement:
    """Global status at the measurement's start (when the driver says so) and at the run's end."""

    def __init__(self, spec: ConnectionSpec):
        self.spec = spec
        self.start: dict[str, int] | None = None
        self._timer: threading.Timer | None = None

    def on_start(self, measure_start: float) -> None:
        def take() -> None:
            self.start = status(self.spec)

        self._timer = threading.Timer(max(0.0, measure_start - time.monotonic()), take)
        self._timer.start()

    def deltas(self) -> dict[str, int]:
        if self._timer is not None:
            self._timer.join()
        end = status(self.spec)
        return {name: end[name] - (self.start or {}).get(name, 0) for name in WORK_COUNTERS if name in end}


def one_run(instance: Instance, options: RunOptions) -> dict:
    instance.stop()
    instance.restore()
    instance.start()
    spec = ConnectionSpec.for_instance(instance, tcp=True)
    measurement = Measurement(spec)
    who = resource.RUSAGE_CHILDREN if options.driver_mode.external else resource.RUSAGE_SELF
    before = resource.getrusage(who)
    result = run(spec, options, out_dir=None, echo=None, on_start=measurement.on_start)
    after = resource.getrusage(who)
    deltas = measurement.deltas()
    transactions = result.summary["transactions"]
    measured = sum(t["success"] + t["late"] for t in transactions.values())
    new_orders = transactions["new_order"]["success"] + transactions["new_order"]["late"]
    # Both drivers' CPU covers ramp-up and measurement; scale the measured count the same way.
    whole_run = measured * (options.rampup_s + options.measure_s) / options.measure_s
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"tpmc": result.tpmc, "new_orders": new_orders, "transactions": measured, "work": deltas,
            "cpu_ms_per_1000": 1e6 * cpu_s / whole_run if whole_run else 0.0,
            "kernel_share": (after.ru_stime - before.ru_stime) / cpu_s if cpu_s else 0.0}


def runs_part(tpcc_mysql_dir: Path, work: Path, args: argparse.Namespace) -> None:
    print(f"\n== runs: tpcc_start and pagelab --mode {args.mode}, alternating, {args.pairs} pair(s) per page size; "
          f"1 warehouse, {args.connections} connections, {POOL} pool, O_DIRECT, {args.rampup} s + {args.measure} s")
    dataset = generate(1, 1, cache_dir=CACHE_DIR, progress=False)
    results: dict[str, dict[str, list[dict]]] = {}
    for label in args.page_sizes:
        instance = Instance(work / f"runs-{label}", parse_page_size(label),
                            settings=ServerSettings(buffer_pool_bytes="256M", max_connections=64))
        instance.init(force=True)
        with instance:
            instance.start()
            load(ConnectionSpec.for_instance(instance, tcp=True), dataset, progress=False)
            instance.stop()
            instance.snapshot()
            instance.settings = ServerSettings(buffer_pool_bytes=POOL, flush_method="O_DIRECT", max_connections=64)
            results[label] = {"tpcc-mysql": [], "pagelab": []}
            for pair in range(1, args.pairs + 1):
                for who, mode in (("tpcc-mysql", "tpcc-mysql"), ("pagelab", args.mode)):
                    options = RunOptions(warehouses=1, connections=args.connections, rampup_s=args.rampup,
                                         measure_s=args.measure, interval_s=10, mode=mode,
                                         tpcc_mysql_dir=str(tpcc_mysql_dir))
                    outcome = one_run(instance, options)
                    results[label][who].append(outcome)
                    print(f"  {label} pair {pair} {who:<10} TpmC {outcome['tpmc']:>9,.0f}   "
                          f"client CPU {outcome['cpu_ms_per_1000']:.0f} ms per 1000 tx "
                          f"({100 * outcome['kernel_share']:.0f}% kernel)", flush=True)
        instance.destroy()
    report(results, args)


def report(results: dict[str, dict[str, list[dict]]], args: argparse.Namespace) -> None:
    labels = list(results)
    median = statistics.median
    print(f"\nTpmC (median of {args.pairs}) and pagelab / tpcc-mysql (goal 0.90-1.10)")
    print(f"  {'page':<5} {'tpcc-mysql':>11} {'pagelab':>11} {'ratio':>7}   pair ratios")
    for label in labels:
        ref = [r["tpmc"] for r in results[label]["tpcc-mysql"]]
        ours = [r["tpmc"] for r in results[label]["pagelab"]]
        pairs = " ".join(f"{o / r:.2f}" for o, r in zip(ours, ref))
        print(f"  {label:<5} {median(ref):>11,.0f} {median(ours):>11,.0f} {median(ours) / median(ref):>7.3f}   {pairs}")
    base = labels[0]
    print(f"\npage-size ratios TpmC(p) / TpmC({base}), medians (goal: pagelab within +-0.05 of tpcc-mysql)")
    for label in labels[1:]:
        ratios = {who: median([r["tpmc"] for r in results[label][who]]) / median([r["tpmc"] for r in results[base][who]])
                  for who in ("tpcc-mysql", "pagelab")}
        print(f"  {label}/{base}: tpcc-mysql {ratios['tpcc-mysql']:.3f}   pagelab {ratios['pagelab']:.3f}   "
              f"difference {ratios['pagelab'] - ratios['tpcc-mysql']:+.3f}")
    print("\nserver work per New-Order, medians of the pairs (goal: within 5% for rows and pages)")
    print(f"  {'counter':<34} " + " ".join(f"{label + ' ' + who:>16} " for label in labels
                                           for who in ("tpcc-mysql", "pagelab", "ratio")))
    for counter in WORK_COUNTERS:
        cells = []
        for label in labels:
            per = {}
            for who in ("tpcc-mysql", "pagelab"):
                runs = [r for r in results[label][who] if counter in r["work"]]
                per[who] = median([r["work"][counter] / max(1, r["new_orders"]) for r in runs]) if runs else None
            if per["tpcc-mysql"] is None or per["pagelab"] is None:
                break
            cells += [f"{per['tpcc-mysql']:>16.2f} ", f"{per['pagelab']:>16.2f} ",
                      f"{_ratio(per['pagelab'], per['tpcc-mysql']):>16} "]
        else:
            print(f"  {counter:<34} " + " ".join(cells))
    print("\nclient CPU per 1,000 transactions, medians (goal: pagelab 0.67x-1.5x tpcc_start)")
    for label in labels:
        ref = median([r["cpu_ms_per_1000"] for r in results[label]["tpcc-mysql"]])
        ours = median([r["cpu_ms_per_1000"] for r in results[label]["pagelab"]])
        print(f"  {label:<5} tpcc_start {ref:>6.0f} ms   pagelab {ours:>6.0f} ms   ratio {_ratio(ours, ref)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tpcc-mysql-dir", default=os.environ.get("TPCC_MYSQL_DIR"),
                        help="a tpcc-mysql build (tpcc_load, tpcc_start); default $TPCC_MYSQL_DIR")
    parser.add_argument("--page-sizes", default="4k,8k,16k", help="page sizes of the runs part (default 4k,8k,16k)")
    parser.add_argument("--pairs", type=at_least_one, default=3, help="tpcc-mysql/pagelab pairs per page size (default 3)")
    parser.add_argument("--rampup", type=int, default=10, help="ramp-up seconds per run (default 10)")
    parser.add_argument("--measure", type=at_least_one, default=60, help="measured seconds per run (default 60)")
    parser.add_argument("--connections", type=at_least_one, default=4, help="terminals (default 4)")
    parser.add_argument("--mode", default="statements", choices=[m.name for m in MODES if not m.external],
                        help="pagelab's driver mode to compare (default statements)")
    parser.add_argument("--skip-shape", action="store_true", help="leave out the data-shape part")
    parser.add_argument("--skip-runs", action="store_true", help="leave out the runs part")
    args = parser.parse_args()
    if not args.tpcc_mysql_dir:
        print("bench_tpcc_fidelity: no tpcc-mysql build given (--tpcc-mysql-dir or TPCC_MYSQL_DIR); "
              "DEVELOPERS.md says how to make one. Nothing measured.")
        return 0
    args.page_sizes = [page_size_label(parse_page_size(p)) for p in args.page_sizes.split(",")]
    directory = Path(args.tpcc_mysql_dir)
    find_tpcc_mysql(directory)
    with tempfile.TemporaryDirectory(prefix="pagelab-fidelity-", dir=os.environ.get("PAGELAB_BENCH_DIR")) as work:
        if not args.skip_shape:
            shape_part(directory, Path(work))
        if not args.skip_runs:
            runs_part(directory, Path(work), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
