"""The words a table is shown under. Tidy tables keep their snake_case columns (`seed_hops`,
`throughput_ops_s`): files, bundles and tests read them by those names. What a notebook or a
report shows a reader is renamed here, once: `label` turns a column's name into words with its
unit (`hops, the post`, `throughput (ops/s)`), `plain` renames a table's columns, index and row
names, and `show_tables_plainly` makes a notebook show every table that way."""

from __future__ import annotations

import re

import pandas as pd

# What each server setting the report's configuration shows does, in a line, declared once here for the
# report's Setup (a reader of "innodb_flush_neighbors 0" should not need the server's manual). The
# defaults named are MariaDB 10.11's.
SERVER_SETTING_MEANINGS = {
    "innodb_buffer_pool_size": "the memory InnoDB caches table and index pages in",
    "innodb_flush_log_at_trx_commit": "when a commit's redo reaches the disk: 1 (the default) flushes it at every "
                                      "commit; 0 writes and flushes it about once a second, so a crash can lose the "
                                      "last second of commits but a commit waits for no disk",
    "innodb_flush_neighbors": "whether writing a dirty page back also writes the dirty pages beside it in its extent: "
                              "0 no (suits an SSD), 1 yes (the default, for spinning disks)",
    "innodb_flush_method": "how InnoDB opens its data files: O_DIRECT bypasses the kernel's page cache, so the "
                           "buffer pool is the only cache and the disk sees InnoDB's own reads and writes",
    "innodb_buffer_pool_instances": "how many parts the buffer pool is split into, each with its own lock",
    "innodb_log_file_size": "the redo log's size: a larger one lets more changes wait in the buffer pool before a "
                            "checkpoint must write dirty pages back",
    "innodb_log_buffer_size": "the memory that holds redo records until they are written to the redo log",
    "innodb_lru_scan_depth": "how many pages InnoDB keeps free in the buffer pool (1,536, the default): a count of "
                             "pages, not bytes, so the same setting keeps 6 MiB free at 4k and 24 MiB at 16k, which "
                             "a small pool gives up to its data unevenly by page size",
    # Three the server sets itself (not in pagelab's my.cnf) whose value differs from what --help prints;
    # the report relies on none of them. Their meanings follow the server's own --help text.
    # (as observed on MariaDB 10.11.19: --help prints 0, and the running server reports
    # innodb_buffer_pool_size_max's default, 8796093022208 bytes = 8 TiB)
    "innodb_buffer_pool_size_auto_min": "the smallest the server may shrink the buffer pool to on its own when the "
                                        "system reports memory pressure; not set (0 in the server's --help), the "
                                        "server takes innodb_buffer_pool_size_max, whose default is 8 TiB (8,796,093,"
                                        "022,208 bytes); a minimum above the pool itself, as that is above any pool "
                                        "here, means the server never shrinks the pool on its own",
    "innodb_io_capacity_max": "the most I/O operations per second InnoDB's background flushing may rise to when it "
                              "falls behind (innodb_io_capacity, the usual rate, can be inflated up to this)",
    "innodb_log_file_mmap": "whether the redo log file is memory-mapped (or, on persistent memory, used in place); "
                            "OFF reads and writes it with ordinary file I/O",
}


def setting_meanings_markdown(names) -> str:
    """'What the server settings mean: - innodb_flush_neighbors: ...' for those of `names` with a
    meaning above, in their order; '' when none has one."""
    known = [name for name in dict.fromkeys(names) if name in SERVER_SETTING_MEANINGS]
    if not known:
        return ""
    return "**What the server settings mean.**\n\n" + "\n".join(
        f"- `{name}`: {SERVER_SETTING_MEANINGS[name]}." for name in known)


# Whole names whose words are better said than spelt out part by part.
LABELS = {
    "page_size": "page size",
    "page_size_bytes": "page size (bytes)",
    "page_size_label": "page size",
    "page_kb": "page (KiB)",
    "block_kb": "block (KiB)",
    "block_size_bytes": "block size (bytes)",
    "t_s": "time (s)",
    "r_s": "reads/s",
    "w_s": "writes/s",
    "tpmc": "TpmC",
    "seed": "random seed",
    "seed_check": "what ours says of {reference}",
    "n_keys": "keys",
}
# A name's last part, or last two, that is its unit.
UNITS = {
    ("per", "s"): "/s", ("ops", "s"): "ops/s", ("per", "1000"): "per 1000", ("per", "txn"): "per transaction",
    ("per", "tx"): "per transaction", ("ms",): "ms", ("us",): "µs", ("s",): "s", ("pct",): "%", ("kb",): "KiB",
    ("kib",): "KiB", ("mb",): "MB", ("mib",): "MiB", ("bytes",): "bytes",
}
# A last part that says which statistic a column is; it is said first ("average WAL frames").
STATISTICS = {"avg": "average", "mean": "mean", "median": "median", "min": "min", "max": "max", "std": "std dev of"}
# A last part that says which end of a range a column is; it goes before the unit ("delta from (%)").
ENDS = {"from", "to", "low", "high"}
# Parts that are abbreviations or names with their own spelling.
WORDS = {
    "tpmc": "TpmC", "iops": "IOPS", "ci": "interval", "db": "database", "avg": "average", "txn": "transaction",
    "tx": "transaction", "wal": "WAL", "cpu": "CPU", "io": "I/O", "qd": "queue depth", "orientdb": "OrientDB",
    "innodb": "InnoDB", "sqlite": "SQLite", "btree": "B-tree", "ycsb": "YCSB", "lsn": "LSN", "kib": "KiB",
    "pct": "%",
}
# Parts that say whose a number is: the reference's (the project calls its documents seeds) or ours.
REFERENCE_PARTS = {"seed"}
OUR_PARTS = {"our", "ours"}
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
SERVER_SETTING = "innodb_"
# A snake_case name inside a longer label ("random pages_avg", built from a table's columns).
SNAKE_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])")


def label(name: str, reference: str = "the reference") -> str:
    """A column's name in words with its unit: `seed_hops` -> `hops, the post` (reference="the
    post"), `throughput_ops_s` -> `throughput (ops/s)`, `ci_low_ms` -> `interval low (ms)`. A name
    that is not snake_case (already words) is returned as it is."""
    if not isinstance(name, str):
        return name
    if name not in LABELS and not SNAKE.match(name):  # words already, perhaps with a name among them
        return SNAKE_WORD.sub(lambda found: label(found.group(0).lower(), reference), name)
    if name in LABELS:
        return LABELS[name].format(reference=reference)
    if name.startswith(SERVER_SETTING):  # the server's own setting: a name the reader looks up as it is
        return name
    parts = name.split("_")
    whose = [reference] if REFERENCE_PARTS & set(parts) else ["ours"] if OUR_PARTS & set(parts) else []
    parts = [part for part in parts if part not in REFERENCE_PARTS | OUR_PARTS]
    statistic = [STATISTICS[parts.pop()]] if len(parts) > 1 and parts[-1] in STATISTICS else []
    end = [parts.pop()] if len(parts) > 2 and parts[-1] in ENDS and (parts[-2],) in UNITS else []
    unit = None
    for size in (2, 1):
        if len(parts) > size and tuple(parts[-size:]) in UNITS:
            unit, parts = UNITS[tuple(parts[-size:])], parts[:-size]
            break
    else:  # a unit per something: python_adds_us_per_row -> python adds (µs per row)
        for index in range(len(parts) - 2):
            if (parts[index],) in UNITS and parts[index + 1] == "per":
                per = " ".join(WORDS.get(part, part) for part in parts[index + 2:])
                unit, parts = f"{UNITS[(parts[index],)]} per {per}", parts[:index]
                break
    head = " ".join(WORDS.get(part, part) for part in [*statistic, *parts, *end]).replace("new order", "New-Order")
    if unit in ("/s", "ops/s"):
        head, unit = (f"{head}/s" if unit == "/s" else f"{head} (ops/s)").strip(), None
    text = (f"{head} ({unit})" if head else unit) if unit else head
    return ", ".join([text, *whose]) if whose else text


def plain(table: pd.DataFrame | pd.Series, reference: str = "the reference") -> pd.DataFrame | pd.Series:
    """A copy of `table` shown under words: its columns, its index's and columns' names, and the
    rows of a record shown as a column (a row labelled `page_size_bytes` reads `page size
    (bytes)`). The values are left as they are."""
    shown = table.copy()

    def names(index: pd.Index) -> list:
        return [label(name, reference) if isinstance(name, str) else name for name in index.names]

    if isinstance(shown, pd.DataFrame):
        shown.columns = shown.columns.set_names(names(shown.columns))
        shown = shown.rename(columns=lambda name: label(name, reference))
    else:
        shown.name = label(shown.name, reference) if isinstance(shown.name, str) else shown.name
    shown.index = shown.index.set_names(names(shown.index))
    if shown.index.inferred_type == "string" and not isinstance(shown.index, pd.MultiIndex):
        shown = shown.rename(index=lambda name: label(name, reference))
    return shown


def show_tables_plainly(reference: str = "the reference") -> None:
    """From here on, the running notebook shows every DataFrame and Series under words (`plain`),
    naming the reference's numbers `reference` ("the post"); the tables themselves, and the code
    that reads them, keep their column names. Outside IPython it does nothing."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(pd.DataFrame, lambda table: plain(table, reference)._repr_html_())
    formatters["text/plain"].for_type(pd.DataFrame, lambda table, printer, cycle: printer.text(
        repr(plain(table, reference))))
    formatters["text/plain"].for_type(pd.Series, lambda table, printer, cycle: printer.text(
        repr(plain(table, reference))))
