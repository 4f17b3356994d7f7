"""YCSB's core workloads on InnoDB and on the storage prototype, per page size (the OrientDB proposal).

The OrientDB proposal (OrientDB's proposal to move from 64 KB to 16 KB pages) ran YCSB's load and its
workloads A (50% read, 50% update), B (95/5) and C (read only) at both page sizes. This package
runs the same on this machine: a private InnoDB instance per innodb_page_size, or pagelab's storage
prototype per page size, and writes YCSB's own text output, a tidy CSV, and the numbers the
the proposal's table sets beside them.

    from pagelab.workloads.ycsb import run_ycsb, max_key_sizes
    run = run_ycsb("innodb", page_sizes=("16k", "64k"), records=100_000, operations=100_000)

One module per concern:

    generators   keys ("user" + FNV-64 hash), values, zipfian / uniform / latest distributions
    workloads    the load and workloads A B C D F: operation mixes, names matching the proposal's table
    histogram    per-operation latency histograms in µs (avg, min, max, p95, p99 come from them)
    backends     InnoDB (usertable over mysql-connector's C extension) and the prototype
    worker       one client worker: its share of the operations, each timed, its messages
    driver       one phase: workers (processes, threads, or inline), progress, Ctrl-C, the result
    output       YCSB's text format and the tidy rows
    options      what a run is asked to do, checked whole, and the buffer pool sized from the data
    runner       a whole run: per page size an instance or a database, load, workloads, files
    keysize      the largest key per page size, tried for real on InnoDB and the prototype
    report       the proposal's numbers beside ours, its "performance gain" ratios, plots

`pagelab ycsb` runs it from the command line and `pagelab parse ycsb FILE` reads YCSB's text
(ours or real YCSB's) back into a table (pagelab.parse.ycsb).
"""

from pagelab.workloads.ycsb.driver import PhaseResult, YcsbRunError, execute_phase
from pagelab.workloads.ycsb.worker import PhasePlan
from pagelab.workloads.ycsb.generators import DISTRIBUTIONS, fnv_hash64, key_name
from pagelab.workloads.ycsb.histogram import LatencyHistogram
from pagelab.workloads.ycsb.keysize import KeyLimit, innodb_max_key_bytes, max_key_sizes, prototype_max_key_bytes
from pagelab.workloads.ycsb.output import TIDY_COLUMNS, java_double, tidy_rows, ycsb_text
from pagelab.workloads.ycsb.options import BACKENDS, YcsbOptions, auto_cache_bytes, estimated_data_bytes
from pagelab.workloads.ycsb.runner import YcsbRun, read_results, run_ycsb
from pagelab.workloads.ycsb.workloads import LOAD, WORKLOADS, Workload, parse_workloads

__all__ = [
    "BACKENDS", "DISTRIBUTIONS", "KeyLimit", "LOAD", "LatencyHistogram", "PhasePlan", "PhaseResult", "TIDY_COLUMNS",
    "WORKLOADS", "Workload", "YcsbOptions", "YcsbRun", "YcsbRunError", "auto_cache_bytes", "estimated_data_bytes",
    "execute_phase", "fnv_hash64", "innodb_max_key_bytes", "java_double", "key_name", "max_key_sizes",
    "parse_workloads", "prototype_max_key_bytes", "read_results", "run_ycsb", "tidy_rows", "ycsb_text",
]
