"""YCSB's text output -> one row per measurement (READ, UPDATE, ..., and OVERALL) per run.

What it reads (YCSB 0.x's TextMeasurementsExporter; pagelab's own `pagelab ycsb` writes the same):

    [OVERALL], RunTime(ms), 127572
    [OVERALL], Throughput(ops/sec), 11758.066033298843
    [TOTAL_GCS_G1_Young_Generation], Count, 148
    [READ], Operations, 1424903
    [READ], AverageLatency(us), 1002.1452260259119
    [READ], MinLatency(us), 472
    [READ], MaxLatency(us), 314111
    [READ], 95thPercentileLatency(us), 2083
    [READ], 99thPercentileLatency(us), 3379
    [READ], Return=OK, 1424903

Also read: the older "histogram" measurement (`RunTime(ms), 172520.0`, `LatencyVariance(us)`,
percentiles in ms in old versions, converted to µs; its per-millisecond bucket lines
`[READ], 0, 4489` and `[READ], >1000, 2` are counted in meta, not read as rows), any percentile
(`99.9thPercentileLatency(us)` -> p99_9_latency_us), `Return=` with any status (OK -> return_ok,
NOT_FOUND -> return_not_found; the old numeric `Return=0` is success and counts as return_ok),
`<OP>-FAILED` and CLEANUP blocks. Garbage-collector lines (`[TOTAL_GC...]`) go to meta["gc"].
Everything else (YCSB's banner, its "10 sec: 106601 operations; ..." status lines, prose around a
pasted fragment) is skipped and counted in meta["other_lines"].

Runs. Several outputs in one text (logs appended, or a report that pasted fragments, like OrientDB's
proposal) are told apart: YCSB prints its results as one unbroken block, so a new run starts at a
figure that follows any other non-blank line (a banner, a heading, prose, a code fence), at an
`[OVERALL], RunTime(ms)` line once the current run has any figure, and where a figure repeats
for an operation already seen in the current run. `run` numbers them from 1. The OrientDB proposal's text
gives 12 runs: each of its pasted blocks is one.

Fragments. A block may lack lines (the OrientDB proposal pasted only Average/Min/95th/99th): missing figures
are empty. An operation's `throughput_ops_s` is derived, Operations x 1000 / the run's RunTime,
when the run printed both (the proposal's "Thoroughput" of each operation); OVERALL's is YCSB's own.
A last line without a line end may have lost digits and is not read (a warning says so).
"""

from __future__ import annotations

import re
from typing import Any

from pagelab.common.errors import ParseError
from pagelab.parse.common import ParseResult, Warnings, excerpt, ordered_rows, text_of, to_number

COLUMNS = (
    "run", "operation", "operations", "average_latency_us", "min_latency_us", "max_latency_us",
    "p95_latency_us", "p99_latency_us", "throughput_ops_s", "runtime_ms", "return_ok",
)  # fmt: skip

_RESULT_LINE = re.compile(r"^\[([^\],\[]+)\],\s*([^,]*?)\s*,\s*(.*?)\s*$")
_PERCENTILE = re.compile(r"^(\d+(?:\.\d+)?)(?:st|nd|rd|th)PercentileLatency\((us|ms)\)$")
_BUCKET = re.compile(r"^>?\d+$")
_STATUS = re.compile(r"^Return=(.*)$")
_SIMPLE = {
    "Operations": "operations",
    "AverageLatency(us)": "average_latency_us",
    "MinLatency(us)": "min_latency_us",
    "MaxLatency(us)": "max_latency_us",
    "LatencyVariance(us)": "latency_variance_us2",
}
_OVERALL = {"RunTime(ms)": "runtime_ms", "Throughput(ops/sec)": "throughput_ops_s"}
_NOT_OPERATIONS = {"CLEANUP"}


class YcsbParseResult(ParseResult):
    """A ParseResult whose frame keeps whole-number columns whole where some rows lack them
    (OVERALL has no Operations): pandas' nullable Int64 instead of floats (1424903, not 1424903.0)."""

    def to_frame(self):
        frame = super().to_frame()
        for name in frame.columns:
            values = [row.get(name) for row in self.rows if row.get(name) is not None]
            if values and all(isinstance(value, int) and not isinstance(value, bool) for value in values):
                frame[name] = frame[name].astype("Int64")
        return frame


def _status_column(status: str) -> str:
    status = status.strip()
    if status in ("OK", "0"):
        return "return_ok"
    if not status:
        return "return_unnamed"
    name = re.sub(r"[^0-9a-z]+", "_", status.lower()).strip("_")
    return "return_" + (name if not name[:1].isdigit() else "code_" + name)


class _Run:
    def __init__(self, number: int):
        self.number = number
        self.rows: dict[str, dict[str, Any]] = {}
        self.seen: set[tuple[str, str]] = set()

    @property
    def empty(self) -> bool:
        return not self.rows

    def row(self, operation: str) -> dict[str, Any]:
        if operation not in self.rows:
            self.rows[operation] = {"run": self.number, "operation": operation}
        return self.rows[operation]


def parse_ycsb(text: str) -> ParseResult:
    """YCSB output (ours or YCSB's own, whole or in fragments) -> rows; see the module docstring."""
    text = text_of(text, "YCSB output")
    warnings = Warnings()
    lines = text.split("\n")
    cut_last = not text.endswith("\n")
    if not cut_last:
        lines = lines[:-1]
    runs: list[_Run] = []
    current: _Run | None = None
    gc: dict[str, dict[str, Any]] = {}
    other_lines = bucket_lines = result_lines = 0
    converted_ms: set[str] = set()
    unknown_reported: set[str] = set()

    def new_run() -> _Run:
        run = _Run(len(runs) + 1)
        runs.append(run)
        return run

    interrupted = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        match = _RESULT_LINE.match(line)
        if not match:
            if line:
                other_lines += 1
                interrupted = True
            continue
        section, metric, value_text = match.group(1).strip(), match.group(2).strip(), match.group(3)
        if cut_last and number == len(lines):
            warnings.add(number, f"the text ends inside this line, so its value may be cut; not read: {excerpt(line)}")
            continue
        if section.startswith("TOTAL_GC"):
            gc.setdefault(section, {})[metric] = to_number(value_text)
            continue
        if _BUCKET.match(metric):
            bucket_lines += 1
            continue
        value = to_number(value_text)
        if value is None and value_text.strip() not in ("NaN", "Infinity", "-Infinity"):
            warnings.add(number, f"not a number in {excerpt(line)}; skipped")
            continue
        column, value = _column(section, metric, value, converted_ms)
        if column is None:
            if (section, metric) not in unknown_reported:
                unknown_reported.add((section, metric))
                warnings.add(number, f"unknown figure {metric!r} of [{section}]; not read")
            continue
        result_lines += 1
        starts_run = section == "OVERALL" and metric == "RunTime(ms)"
        if (current is None or (starts_run and not current.empty) or (section, column) in current.seen
                or (interrupted and not current.empty)):
            current = new_run()
        interrupted = False
        current.seen.add((section, column))
        current.row(section)[column] = value

    if not runs:
        raise ParseError("no YCSB results found (expected lines like '[READ], AverageLatency(us), 123.4')")

    rows: list[dict[str, Any]] = []
    for run in runs:
        overall = run.rows.get("OVERALL", {})
        runtime = overall.get("runtime_ms")
        ordered = sorted(run.rows.values(), key=lambda row: row["operation"] != "OVERALL")
        for row in ordered:
            operation = row["operation"]
            if operation != "OVERALL":
                row.setdefault("runtime_ms", runtime)
                if (runtime and row.get("operations") is not None and operation not in _NOT_OPERATIONS
                        and "throughput_ops_s" not in row):
                    row["throughput_ops_s"] = 1000.0 * row["operations"] / runtime
            rows.append(row)
    meta: dict[str, Any] = {"runs": len(runs), "result_lines": result_lines, "other_lines": other_lines}
    if bucket_lines:
        meta["histogram_bucket_lines"] = bucket_lines
    if gc:
        meta["gc"] = gc
    if converted_ms:
        meta["percentiles_converted_from_ms"] = sorted(converted_ms)
    return YcsbParseResult(rows=ordered_rows(rows, COLUMNS), warnings=warnings.messages, meta=meta, columns=COLUMNS)


def _column(section: str, metric: str, value, converted_ms: set[str]) -> tuple[str | None, Any]:
    if section == "OVERALL":
        return _OVERALL.get(metric), value
    if metric in _SIMPLE:
        return _SIMPLE[metric], value
    percentile = _PERCENTILE.match(metric)
    if percentile:
        name = "p" + percentile.group(1).replace(".", "_") + "_latency_us"
        if percentile.group(2) == "ms" and value is not None:
            converted_ms.add(metric)
            value = value * 1000
        return name, value
    status = _STATUS.match(metric)
    if status:
        return _status_column(status.group(1)), value
    return None, value
