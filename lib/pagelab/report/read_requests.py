"""What made the device's read requests larger than a page, as far as the bundle recorded it.

iostat's average read request (rareq-sz: kB read over read requests completed) counts requests as
the device got them: after the block layer merged adjacent ones (rrqm/s, %rrqm: read requests
merged before they were sent), and whatever InnoDB read, its read-ahead of extents included
(Innodb_buffer_pool_read_ahead, linear, and Innodb_buffer_pool_read_ahead_rnd, random, in SHOW
GLOBAL STATUS). So a request twice the page size says nothing by itself about why. Each run
records both sides: iostat.csv keeps rrqm_s (with sysstat's -x columns), and global_status.csv
every numeric counter, among them InnoDB's own reads (Innodb_data_reads, Innodb_data_read in
bytes), the pages it read (Innodb_pages_read) and the pages it read ahead. Per page size, over the
verdict runs' measurements (t_s >= 0), this module puts them side by side:

    merged_pct         read requests the block layer merged, % of those it was given
                       (sum rrqm/s over sum (r/s + rrqm/s), every sample an equal interval)
    unmerged_kb        the mean read request before merging (the same kB over r/s + rrqm/s)
    innodb_read_kb     InnoDB's own mean read (delta Innodb_data_read / delta Innodb_data_reads)
    read_ahead_pages   pages InnoDB read ahead (linear and random), and read_ahead_pct of the
                       pages it read (Innodb_pages_read)
    device_per_innodb  kB/s the device read over kB/s InnoDB read: above 1, something besides
                       InnoDB's reads (another reader of the disk, or reads below InnoDB that
                       InnoDB's counters do not see) made up the difference

It says only what those numbers say; what it did not record, it says it did not record.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pagelab.monitor.global_status import GLOBAL_STATUS_FILE

KIB = 1024
# The counters read here, as MariaDB names them in SHOW GLOBAL STATUS.
READ_AHEAD_COUNTERS = ("Innodb_buffer_pool_read_ahead", "Innodb_buffer_pool_read_ahead_rnd")
READ_COUNTERS = ("Innodb_data_reads", "Innodb_data_read", "Innodb_pages_read", *READ_AHEAD_COUNTERS)
# A mean request within this share of the page size counts as one page (the lab's claim's tolerance).
PAGE_TOLERANCE = 0.10
COLUMNS = ("page_size", "page_kb", "read_kb", "merged_pct", "unmerged_kb", "innodb_read_kb", "read_ahead_pages",
           "pages_read", "read_ahead_pct", "device_per_innodb")


def counter_deltas(run_dir: Path, counters: tuple[str, ...] = READ_COUNTERS) -> dict | None:
    """{counter: its rise over the measurement, 'seconds': how long} from a run's global_status.csv,
    over the seconds the measurement's iostat samples cover; None without the file or these counters.

    An iostat sample is stamped when its interval ends, so the first one at t_s >= 0 covers the
    interval that began a sample before it, at about t = 0 (the monitors sample on one clock). The
    counters' rise is taken from their sample at that moment, the last one at or before t = 0 and
    within half a sampling interval of it, to the last sample. Taken from the first sample at
    t_s >= 0 instead, it left out the measurement's first interval that iostat counts, and the
    device seemed to complete up to 0.6% fewer reads than InnoDB issued (a course sweep of
    2026-11-29): a window apart, not a difference of the disk."""
    path = run_dir / GLOBAL_STATUS_FILE
    if not path.exists() or path.stat().st_size == 0:
        return None
    frame = pd.read_csv(path, usecols=lambda name: name == "t_s" or name in counters)
    if not {"t_s", *counters} <= set(frame.columns):  # a server without one of them: not claimed
        return None
    frame = frame.dropna(subset=list(counters)).sort_values("t_s")
    measured = frame[frame["t_s"] >= 0]
    spacing = float(frame["t_s"].diff().median()) if len(frame) > 1 else 0.0
    start = frame[(frame["t_s"] < 0) & (frame["t_s"] > -spacing / 2)]
    frame = pd.concat([start.tail(1), measured])
    if len(frame) < 2:
        return None
    first, last = frame.iloc[0], frame.iloc[-1]
    return {**{name: float(last[name] - first[name]) for name in counters},
            "seconds": float(last["t_s"] - first["t_s"])}


def measured_verdict_runs(data):
    """The iostat samples of the measurement (t_s >= 0), the request sizes per page size from them,
    and the finished verdict runs by name: what both request tables start from."""
    from pagelab.report.figures import request_sizes

    iostat = data.tables["iostat"]
    iostat = iostat[iostat["t_s"] >= 0] if not iostat.empty else iostat
    done = {entry["name"]: entry for entry in data.record.runs
            if entry["status"] == "done" and entry.get("role", "verdict") == "verdict"}
    return iostat, request_sizes(iostat).set_index("page_size"), done


def read_request_table(data) -> pd.DataFrame:
    """Per page size of the report's verdict runs (a grid's cells' too), the columns of the module
    comment; nan where the bundle did not record what a column needs. read_kb is the report's own
    (pagelab.report.figures.request_sizes), so the two never disagree."""
    iostat, sizes, done = measured_verdict_runs(data)
    rows = []
    for size in data.page_sizes:
        part = iostat[iostat["page_size"] == size] if not iostat.empty else iostat
        runs = [name for name, entry in done.items() if entry["page_size"] == size]
        if part.empty and not runs:
            continue
        page_kb = float(next(entry["page_size_bytes"] for entry in done.values() if entry["page_size"] == size)) / KIB \
            if runs else math.nan
        read_kb = float(sizes.loc[size, "read_kb"]) if size in sizes.index else math.nan
        reads = float(part["r_s"].fillna(0).sum()) if "r_s" in part else 0.0
        merged = float(part["rrqm_s"].sum()) if "rrqm_s" in part and part["rrqm_s"].notna().any() else math.nan
        given = reads + merged
        deltas = [found for name in runs if (found := counter_deltas(data.sweep_dir / name)) is not None]
        counted = len(deltas) == len(runs) and deltas  # every run's counters, or none are claimed
        total = {key: sum(d[key] for d in deltas) for key in (*READ_COUNTERS, "seconds")} if counted else {}
        innodb_kb_s = total["Innodb_data_read"] / KIB / total["seconds"] if counted and total["seconds"] else math.nan
        # the device's kB/s per sample: several devices (iostat not told which) add up within one
        samples = part.groupby(["run", "t_s"]).ngroups if {"run", "rkb_s"} <= set(part.columns) else 0
        device_kb_s = float(part["rkb_s"].fillna(0).sum()) / samples if samples else math.nan
        ahead = sum(total[name] for name in READ_AHEAD_COUNTERS) if counted else math.nan
        rows.append({
            "page_size": size, "page_kb": page_kb, "read_kb": read_kb,
            "merged_pct": 100 * merged / given if given and not math.isnan(merged) else math.nan,
            # the same kB over the requests before merging
            "unmerged_kb": read_kb * reads / given if given and not math.isnan(merged) else math.nan,
            "innodb_read_kb": (total["Innodb_data_read"] / KIB / total["Innodb_data_reads"]
                               if counted and total["Innodb_data_reads"] else math.nan),
            "read_ahead_pages": ahead, "pages_read": total.get("Innodb_pages_read", math.nan),
            "read_ahead_pct": (100 * ahead / total["Innodb_pages_read"] if counted and total["Innodb_pages_read"]
                               else math.nan),
            "device_per_innodb": device_kb_s / innodb_kb_s if innodb_kb_s and not math.isnan(innodb_kb_s) else math.nan,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def near_page(value: float, page_kb: float) -> bool:
    return abs(value / page_kb - 1) <= PAGE_TOLERANCE


def _size_text(row: dict) -> str:
    """One page size's sentence: the request, the merges, InnoDB's reads and read-ahead, as recorded."""
    text = f"At {row['page_size']} read requests averaged {row['read_kb']:.2f} KiB"
    if not math.isnan(row["merged_pct"]):
        text += (f": the block layer merged {row['merged_pct']:.1f}% of those it was given (unmerged, they averaged "
                 f"{row['unmerged_kb']:.2f} KiB)")
    if not math.isnan(row["innodb_read_kb"]):
        text += (f"; InnoDB read {row['read_ahead_pages']:,.0f} of its {row['pages_read']:,.0f} pages ahead "
                 f"({row['read_ahead_pct']:.1f}%), and its own reads averaged {row['innodb_read_kb']:.1f} KiB")
        if not math.isnan(row["device_per_innodb"]):
            text += f"; the device read {row['device_per_innodb']:.2f}× the bytes InnoDB read"
    return text + "."


def _finding(row: dict) -> str:
    """What one larger-than-a-page size's numbers attribute, and only that."""
    page, size = row["page_kb"], row["page_size"]
    merges = not math.isnan(row["merged_pct"]) and near_page(row["unmerged_kb"], page)
    ahead = not math.isnan(row["read_ahead_pct"]) and row["read_ahead_pct"] >= 100 * PAGE_TOLERANCE
    if merges:
        return (f"at {size} the block layer's merges account for the larger requests: unmerged, they were about a "
                f"page" + (" (what it merged includes InnoDB's read-ahead)" if ahead else ""))
    if math.isnan(row["merged_pct"]) or math.isnan(row["innodb_read_kb"]):
        return f"at {size} this bundle does not record what made the requests larger"
    known = []
    if ahead:
        known.append(f"InnoDB's read-ahead ({row['read_ahead_pct']:.0f}% of the pages it read)")
    if row["merged_pct"] >= 1:
        known.append(f"the block layer's merges ({row['merged_pct']:.0f}% of the requests)")
    if not near_page(row["innodb_read_kb"], page):
        known.append(f"InnoDB's own reads of {row['innodb_read_kb']:.1f} KiB")
    if known:
        return f"at {size} the larger requests go with {' and '.join(known)}, which this bundle cannot apportion"
    extra = (": what the device read beyond InnoDB's bytes was read beside InnoDB (another process on the same disk) "
             "or below it (the file system), which this bundle, recording no per-process I/O, cannot tell apart "
             f"({TELL_APART}); InnoDB's own reads were a page each" if row["device_per_innodb"] > 1 + PAGE_TOLERANCE
             else "; this bundle does not record what did")
    return (f"at {size} neither the block layer's merges nor InnoDB's read-ahead account for the larger requests, "
            f"and InnoDB read one page at a time{extra}")


# How a sweep can tell another process's reads from the file system's (runbooks/tpcc-page-size.md says more).
TELL_APART = ("a sweep tells them apart with each process's I/O recorded beside it, `pidstat -d 10 > pidstat.log`, or "
              "with a disk nothing else uses, `--out DIR` on a file system of its own disk")


HEAD = ("A read request as iostat counts it (rareq-sz) is what the device was asked for after the block layer "
        "merged adjacent requests, and includes InnoDB's read-ahead.")
NOT_RECORDED = ("This bundle records neither the block layer's merges nor InnoDB's read-ahead, so it cannot say which "
                "made a request larger than a page.")


def _recorded(data) -> list[dict] | None:
    """The page sizes' rows with a request size; None without iostat samples."""
    table = read_request_table(data)
    rows = table[table["read_kb"].notna()].to_dict("records")
    return rows or None


def read_request_findings(data) -> str:
    """Only the attribution: which page sizes read more than a page a request, and what the numbers
    put that on; '' when every page size read about a page, or without iostat samples."""
    rows = _recorded(data)
    if rows is None:
        return ""
    if all(math.isnan(row["merged_pct"]) and math.isnan(row["innodb_read_kb"]) for row in rows):
        return NOT_RECORDED
    larger = [row for row in rows if not math.isnan(row["page_kb"]) and row["read_kb"] > row["page_kb"] *
              (1 + PAGE_TOLERANCE)]
    if not larger:
        return ("Every page size's read requests were about one page, so nothing here made a read larger than a "
                "page; where a sweep's reads are larger, the block layer's merges, InnoDB's read-ahead or another "
                "process on the same disk made them, and this paragraph then says which (runbooks/tpcc-page-size.md, "
                "\"Request size against page size\").")
    text = "; ".join(_finding(row) for row in larger)
    return text[0].upper() + text[1:] + "."


def read_request_sentence(data) -> str:
    """Why the read requests were the size they were, per page size, as far as the bundle recorded
    it ('' without iostat samples); said plainly when it recorded neither merges nor read-ahead."""
    rows = _recorded(data)
    if rows is None:
        return ""
    findings = read_request_findings(data)
    if findings == NOT_RECORDED:
        return f"{HEAD} {NOT_RECORDED}"
    return " ".join([HEAD, *(_size_text(row) for row in rows), findings])


# --- what else used the disk: iostat's counts against InnoDB's own ------------------------------------------

# iostat reads the kernel's per-device counters (/proc/diskstats): every request the device completed,
# from any process. InnoDB's Innodb_data_reads counts only its own. Where the device completed more
# read requests than InnoDB issued, something else read the disk (or read below InnoDB); the bundle
# records no per-process I/O, so it can say how much, not who.
FOREIGN_WORDS = ("iostat counts every request the device completed, from any process (it reads the kernel's "
                 "per-device counters), not InnoDB's alone; InnoDB's own counters (`Innodb_data_reads`, "
                 "`Innodb_data_read`) count only its reads. This bundle records no per-process I/O and no load "
                 "average, so it cannot name what else used the disk; what it can say is how far the two counts part")


def device_against_innodb(data) -> pd.DataFrame:
    """Per page size of the verdict runs: read requests a second as the device completed them (iostat's
    r/s, every sample alike) and as InnoDB issued them (delta Innodb_data_reads over the same runs'
    measurements), the same for KiB a second, and the mean size of the requests the device completed
    beyond InnoDB's; nan where the bundle did not record a side."""
    iostat = data.tables["iostat"]
    if iostat.empty or not {"run", "r_s", "rkb_s", "t_s", "rareq_kb", "wareq_kb", "w_s"} <= set(iostat.columns):
        return pd.DataFrame(columns=["page_size", "device_r_s", "innodb_r_s", "device_kb_s", "innodb_kb_s",
                                     "extra_request_kb"])
    iostat, _, done = measured_verdict_runs(data)
    rows = []
    for size in data.page_sizes:
        part = iostat[iostat["page_size"] == size] if not iostat.empty else iostat
        runs = [name for name, entry in done.items() if entry["page_size"] == size]
        samples = part.groupby(["run", "t_s"]).ngroups if not part.empty and {"run", "r_s", "rkb_s"} <= set(part) else 0
        deltas = [found for name in runs if (found := counter_deltas(data.sweep_dir / name)) is not None]
        seconds = sum(d["seconds"] for d in deltas)
        if not samples or not runs or len(deltas) != len(runs) or not seconds:
            continue
        device_r, device_kb = float(part["r_s"].fillna(0).sum()) / samples, float(part["rkb_s"].fillna(0).sum()) / samples
        innodb_r = sum(d["Innodb_data_reads"] for d in deltas) / seconds
        innodb_kb = sum(d["Innodb_data_read"] for d in deltas) / KIB / seconds
        extra_r, extra_kb = device_r - innodb_r, device_kb - innodb_kb
        rows.append({"page_size": size, "device_r_s": device_r, "innodb_r_s": innodb_r, "device_kb_s": device_kb,
                     "innodb_kb_s": innodb_kb,
                     "extra_request_kb": extra_kb / extra_r if extra_r > 0 and extra_kb > 0 else math.nan})
    return pd.DataFrame(rows, columns=["page_size", "device_r_s", "innodb_r_s", "device_kb_s", "innodb_kb_s",
                                       "extra_request_kb"])


def foreign_io_sentence(data) -> str:
    """What iostat's counts can and cannot say about other processes on the disk, with how far the
    device's read requests and bytes exceeded InnoDB's own per page size, and the mean size of the
    requests beyond InnoDB's; '' without both records."""
    from pagelab.evidence.wording import pct_text

    table = device_against_innodb(data)
    if table.empty:
        return ""
    parts = []
    for row in table.to_dict("records"):
        text = (f"{row['page_size']} {pct_text(100 * (row['device_r_s'] / row['innodb_r_s'] - 1))} read requests "
                f"({row['device_r_s']:,.0f} against InnoDB's {row['innodb_r_s']:,.0f} a second) and "
                f"{pct_text(100 * (row['device_kb_s'] / row['innodb_kb_s'] - 1))} bytes")
        if not math.isnan(row["extra_request_kb"]):
            text += f", the requests beyond InnoDB's averaging {row['extra_request_kb']:.0f} KiB"
        parts.append(text)
    device = data_device_words(data)
    return (f"{FOREIGN_WORDS}: the device{device} completed, against what InnoDB read, " + "; ".join(parts) + " "
            "(each a second over all the verdict runs' measurements together, every iostat sample alike, so as to "
            "set InnoDB's counts over the same seconds beside them: not the IOPS table's median of the runs' "
            "means, which these differ from slightly). "
            "A request InnoDB did not issue is another process's, or a read below InnoDB (the file system's own); "
            "InnoDB's own counts are free of both, so where they and iostat's disagree, InnoDB's are the ones that "
            "measure the page size's reads.")


def data_device_words(data) -> str:
    """' (vda, also the system disk)' from the machine record, '' without one."""
    device = (data.record.document.get("machine") or {}).get("data_device") or {}
    name = device.get("disk") or device.get("device")
    if not name:
        return ""
    return f" ({name}, also the system disk)" if device.get("mount_point") == "/" else f" ({name})"


def innodb_read_rates(data) -> dict[str, dict[int, float]]:
    """{page size: {round: InnoDB's read requests a second over the run's measurement}} of the verdict
    runs (delta Innodb_data_reads / seconds): the read IOPS no other process adds to."""
    _, _, done = measured_verdict_runs(data)
    rates: dict[str, dict[int, float]] = {}
    for name, entry in done.items():
        found = counter_deltas(data.sweep_dir / name)
        if found and found["seconds"] > 0 and entry.get("round") is not None:
            rates.setdefault(entry["page_size"], {})[int(entry["round"])] = found["Innodb_data_reads"] / found["seconds"]
    return rates


def run_read_request_kb(data) -> dict[str, list[float]]:
    """{page size: each verdict run's mean read request (KiB, weighted by requests as Table 4's)}."""
    sizes: dict[str, list[float]] = {}
    needed = {"run", "r_s", "rareq_kb", "wareq_kb", "w_s", "t_s"}
    if data.tables["iostat"].empty or not needed <= set(data.tables["iostat"].columns):
        return sizes
    iostat, _, done = measured_verdict_runs(data)
    for name, group in iostat[iostat["run"].isin(list(done))].groupby("run"):
        reads = group["r_s"].fillna(0)
        if reads.sum():
            sizes.setdefault(done[name]["page_size"], []).append(
                float((group["rareq_kb"].fillna(0) * reads).sum() / reads.sum()))
    return sizes


def request_intervals(data) -> dict:
    """{page size: the order-statistic interval (pagelab.evidence.intervals.median_interval) of its
    verdict runs' own mean read requests}, for page sizes with 2 or more runs."""
    from pagelab.evidence.intervals import median_interval

    return {size: median_interval(values) for size, values in run_read_request_kb(data).items() if len(values) >= 2}
