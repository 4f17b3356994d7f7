"""What made the device's write requests larger than a page, from the counters each run recorded.

iostat's average write request (wareq-sz: kB written over write requests completed) mixes three
kinds of InnoDB write, which SHOW GLOBAL STATUS counts apart (global_status.csv keeps them all):

    data pages     Innodb_pages_written         one page per write: Innodb_data_writes rises by
                                                about as much (the runs show it, and this module
                                                says so only when they do)
    doublewrite    Innodb_dblwr_pages_written   the same pages written first to the doublewrite
                   in Innodb_dblwr_writes       buffer, many pages per batch, sequentially
    redo log       Innodb_os_log_written bytes  group commits, hundreds of KiB per write
                   in Innodb_log_writes

InnoDB's own mean write (Innodb_data_written / Innodb_data_writes) is not a request size either:
Innodb_data_written counts the doublewrite pages' bytes, while Innodb_data_writes counts about the
page writes alone. Per page size, over the verdict runs' measurements (t_s >= 0), the rates below
are per second of measurement, the device's from iostat's samples and InnoDB's from its counters:

    device_w_s, device_kb_s   write requests and KiB the device completed (write_kb x device_w_s)
    page_writes_s             data-page writes; dblwr_pages_s and dblwr_batch_pages (pages a batch)
    log_kb_s, log_write_kb    redo log KiB and KiB per log write
    device_per_innodb         device KiB over InnoDB's (data pages + doublewrite + redo log)
    other_request_kb          the device's write requests beyond one per data-page write, their mean
                              size: (device_kb_s - page_kb x page_writes_s) / (device_w_s - page_writes_s)

It says only what those numbers say; what a run did not record, it says it did not record.
"""

from __future__ import annotations

import math

import pandas as pd

from pagelab.report.read_requests import KIB, PAGE_TOLERANCE, counter_deltas, measured_verdict_runs, near_page

WRITE_COUNTERS = ("Innodb_data_writes", "Innodb_data_written")
ACCOUNT_COUNTERS = ("Innodb_pages_written", "Innodb_dblwr_pages_written", "Innodb_dblwr_writes",
                    "Innodb_os_log_written", "Innodb_log_writes")
COLUMNS = ("page_size", "page_kb", "write_kb", "merged_pct", "innodb_write_kb", "data_writes", "pages_written",
           "device_w_s", "device_kb_s", "page_writes_s", "dblwr_pages_s", "dblwr_batch_pages", "log_kb_s",
           "log_write_kb", "device_per_innodb", "other_request_kb")


def _summed(data, runs: list[str], counters: tuple[str, ...]) -> dict | None:
    """The counters' rises and the seconds, summed over the runs; None unless every run recorded them."""
    deltas = [found for name in runs if (found := counter_deltas(data.sweep_dir / name, counters)) is not None]
    if not runs or len(deltas) != len(runs):
        return None
    return {key: sum(d[key] for d in deltas) for key in (*counters, "seconds")}


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else math.nan


def write_request_table(data) -> pd.DataFrame:
    """Per page size of the verdict runs, the columns of the module's table; nan where not recorded."""
    iostat, sizes, done = measured_verdict_runs(data)
    rows = []
    for size in data.page_sizes:
        if size not in sizes.index:
            continue
        part = iostat[iostat["page_size"] == size]
        runs = [name for name, entry in done.items() if entry["page_size"] == size]
        page_kb = float(next((e["page_size_bytes"] for e in done.values() if e["page_size"] == size), math.nan)) / KIB
        writes = float(part["w_s"].fillna(0).sum())
        merged = float(part["wrqm_s"].sum()) if "wrqm_s" in part and part["wrqm_s"].notna().any() else math.nan
        # several devices (iostat not told which) add up within one sample
        samples = part.groupby(["run", "t_s"]).ngroups if "run" in part.columns else len(part)
        write_kb = float(sizes.loc[size, "write_kb"])
        device_w_s = writes / samples if samples else math.nan
        # one read of each run's counters; a server without the accounting counters still has its own
        account = _summed(data, runs, WRITE_COUNTERS + ACCOUNT_COUNTERS)
        own = account or _summed(data, runs, WRITE_COUNTERS)
        row = {"page_size": size, "page_kb": page_kb, "write_kb": write_kb,
               "merged_pct": 100 * merged / (writes + merged) if writes + merged and not math.isnan(merged)
               else math.nan,
               "innodb_write_kb": _ratio(own["Innodb_data_written"] / KIB, own["Innodb_data_writes"]) if own
               else math.nan,
               "data_writes": own["Innodb_data_writes"] if own else math.nan,
               "device_w_s": device_w_s, "device_kb_s": write_kb * device_w_s}
        if account and account["seconds"]:
            seconds = account["seconds"]
            row.update(pages_written=account["Innodb_pages_written"],
                       page_writes_s=account["Innodb_pages_written"] / seconds,
                       dblwr_pages_s=account["Innodb_dblwr_pages_written"] / seconds,
                       dblwr_batch_pages=_ratio(account["Innodb_dblwr_pages_written"], account["Innodb_dblwr_writes"]),
                       log_kb_s=account["Innodb_os_log_written"] / KIB / seconds,
                       log_write_kb=_ratio(account["Innodb_os_log_written"] / KIB, account["Innodb_log_writes"]))
            innodb_kb_s = page_kb * (row["page_writes_s"] + row["dblwr_pages_s"]) + row["log_kb_s"]
            row["device_per_innodb"] = _ratio(row["device_kb_s"], innodb_kb_s)
            others = device_w_s - row["page_writes_s"]
            row["other_request_kb"] = _ratio(row["device_kb_s"] - page_kb * row["page_writes_s"], others) \
                if others > 0 else math.nan
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _accounted(row: dict) -> bool:
    return not any(math.isnan(row[key]) for key in ("page_writes_s", "dblwr_batch_pages", "log_write_kb",
                                                     "device_per_innodb", "other_request_kb"))


def _account_text(row: dict) -> str:
    return (f"at {row['page_size']} InnoDB wrote, each second, {row['page_writes_s']:,.0f} data pages "
            f"(Innodb_pages_written), {row['dblwr_pages_s']:,.0f} pages to the doublewrite buffer in batches of "
            f"{row['dblwr_batch_pages']:,.0f} (Innodb_dblwr_pages_written over Innodb_dblwr_writes), and "
            f"{row['log_kb_s'] / KIB:.1f} MiB of redo log in writes of {row['log_write_kb']:,.0f} KiB "
            f"(Innodb_os_log_written over Innodb_log_writes); the device wrote {row['device_per_innodb']:.2f}× those "
            f"bytes, and counting each data page as one request, its other write requests averaged "
            f"{row['other_request_kb']:,.0f} KiB")


def write_request_sentence(data) -> str:
    """What the bundle shows of the write requests' size (iostat's wareq-sz, its merged writes, InnoDB's
    own mean write) and, where every run recorded InnoDB's write counters, what made them larger than a
    page; '' without iostat samples or when every page size wrote about a page a request."""
    rows = [row for row in write_request_table(data).to_dict("records") if not math.isnan(row["write_kb"])]
    larger = [row for row in rows if not math.isnan(row["page_kb"]) and row["write_kb"] > row["page_kb"] *
              (1 + PAGE_TOLERANCE)]
    if not larger:
        return ""
    parts = []
    for row in larger:
        text = f"at {row['page_size']} {row['write_kb']:.1f} KiB ({row['write_kb'] / row['page_kb']:.1f} pages)"
        facts = []
        if not math.isnan(row["merged_pct"]):
            facts.append(f"the block layer merged {row['merged_pct']:.1f}% of the write requests it was given")
        if not math.isnan(row["innodb_write_kb"]):
            facts.append(f"InnoDB's own writes, all its files together, averaged {row['innodb_write_kb']:.1f} KiB")
        parts.append(text + (f": {'; '.join(facts)}" if facts else ""))
    head = ("A write request as iostat counts it (wareq-sz) is what the device was asked to write after the block "
            "layer merged adjacent requests. Write requests averaged more than a page: " + "; ".join(parts) + ". ")
    merges_small = all(not math.isnan(r["merged_pct"]) and r["merged_pct"] < 100 * PAGE_TOLERANCE for r in larger)
    # the pages went one a write when InnoDB's write calls rose by about its page writes
    one_page_a_write = all(_accounted(r) and near_page(r["data_writes"], r["pages_written"]) for r in larger)
    if merges_small and one_page_a_write and all(r["other_request_kb"] > 2 * r["page_kb"] for r in larger):
        calls = "; ".join(f"{r['data_writes']:,.0f} against {r['pages_written']:,.0f} at {r['page_size']}"
                          for r in larger)
        return (head + "InnoDB's counters account for it. Over the measurements, " +
                "; ".join(_account_text(r) for r in larger) + ". (The doublewrite buffer is a sequential area "
                "InnoDB writes each batch of pages to before their own places, so that a page a crash tore can be "
                "restored; a batch or a log write may reach the device as several requests.) So the mean is larger than a page because a few "
                "large sequential writes, the doublewrite buffer's batches and the redo log's, are averaged in with "
                "the data pages, which went one page a write. InnoDB's own mean write is not a request size either: "
                "Innodb_data_written counts the doublewrite pages' bytes, while Innodb_data_writes rose by about the "
                f"data-page writes alone ({calls}).")
    innodb_large = all(not math.isnan(r["innodb_write_kb"]) and not near_page(r["innodb_write_kb"], r["page_kb"])
                       for r in larger)
    what = ("So the larger writes come from InnoDB's own writes, not from the block layer's merges; which of them "
            "(data pages, the doublewrite buffer, the redo log) made them larger this bundle does not show."
            if merges_small and innodb_large else
            "What made them larger than a page (the block layer's merges, or which of InnoDB's writes: data pages, "
            "the doublewrite buffer, the redo log) this bundle does not show.")
    return head + what
