"""data/reference/ against the seed texts themselves.

The CSVs were typed by hand from the seeds. These tests read each seed file again, find the same
numbers in its text independently, and compare, so a slip of the keyboard fails here. Cells are
compared as text, character for character with what the seed prints ("3517.600", thousands
separators dropped), and an empty cell must match a value the text does not show.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, SOURCES

REFERENCE = REPO_ROOT / "data" / "reference"
SEED_002 = "week4-lab-report.txt"

EXPECTED_COLUMNS = {
    "week4_lab_tpmc.csv": ["page_size", "page_size_bytes", "tpmc"],
    "week4_lab_intervals.csv": [
        "page_size", "page_size_bytes", "t_s", "new_order", "new_order_p95_ms", "new_order_p99_ms",
        "new_order_max_ms", "payment", "payment_max_ms", "order_status", "order_status_max_ms", "delivery",
        "delivery_max_ms", "stock_level", "stock_level_max_ms",
    ],
    "week4_lab_throughput_table.csv": ["page_size", "page_size_bytes", "t_s", "transactions"],
    "week4_lab_iostat.csv": [
        "page_size", "page_size_bytes", "t_s", "device", "r_s", "rmb_s", "rrqm_s", "rrqm_pct", "r_await_ms",
        "rareq_kb", "w_s",
    ],
    "week4_lab_innodb.csv": [
        "page_size", "page_size_bytes", "t_s", "pool_pages", "free_pages", "database_pages", "old_pages",
        "dirty_pages", "pending_reads", "pages_made_young", "pages_not_young", "pages_read", "pages_created",
        "pages_written", "reads_s", "creates_s", "writes_s", "hit_rate", "young_rate", "not_young_rate", "lru_len",
        "io_sum", "io_cur",
    ],
    "week4_lab_setup.csv": ["table", "key", "value"],
    "course_server_settings.csv": ["key", "value", "note"],
    "orientdb_ycsb.csv": [
        "workload", "page_size", "page_size_bytes", "operation", "average_latency_us", "min_latency_us",
        "p95_latency_us", "p99_latency_us", "throughput_ops_s", "total_time_s",
    ],
    "sqlite_page_size.csv": [
        "benchmark", "baseline_4096_ms", "page_8192_ms_from", "page_8192_ms_to", "delta_pct_from", "delta_pct_to",
        "note",
    ],
    "rethinkdb_block_size.csv": ["block_kb", "block_size_bytes", "keys_per_block", "iops", "hops", "queries_per_s"],
    "voron_random_writes.csv": ["statistic", "sequential_pages", "random_pages"],
}
SEED_002_CHECKPOINTS = [100, 400, 800, 1100]
SEED_002_PAGE_SIZES = {"4k": 4096, "8k": 8192, "16k": 16384}


def source_text(name: str) -> str:
    path = SOURCES / name
    if not path.exists():
        pytest.fail(f"the source text {name} is missing from {SOURCES}")
    return path.read_text()


def reference(name: str) -> pd.DataFrame:
    """A reference CSV as users load it: numbers as numbers."""
    return pd.read_csv(REFERENCE / name)


def reference_text(name: str) -> pd.DataFrame:
    """The same CSV with every cell as the text typed into it (empty cells as "")."""
    return pd.read_csv(REFERENCE / name, dtype=str, keep_default_na=False)


def same(cell: str, printed: str | None) -> bool:
    """A CSV cell is what the seed prints; an empty cell stands for a value the text lacks."""
    if printed is None:
        return cell == ""
    return cell == printed.replace(",", "").replace(" ", "")


def week4_lab_sections() -> dict[tuple[str, int | None], str]:
    """The seed's text cut at each "Page size = 4KB, progress: 100 seconds" heading.

    The key is (page size label, seconds), with seconds None for the closing section of a page size
    (the one holding its Constraint Check and TpmC).
    """
    text = source_text("week4-lab-report.txt")
    heading = re.compile(r"^Page size = (\d+)KB(?:, progress: (\d+) seconds / \d+ seconds)?\s*$", re.MULTILINE)
    found = list(heading.finditer(text))
    sections = {}
    for match, following in zip(found, found[1:] + [None]):
        end = following.start() if following else text.index("IOPS)")
        key = (f"{match.group(1)}k", int(match.group(2)) if match.group(2) else None)
        sections[key] = text[match.end():end]
    return sections


def csv_row(frame: pd.DataFrame, page_size: str, t_s: int) -> pd.Series:
    rows = frame[(frame["page_size"] == page_size) & (frame["t_s"].astype(int) == t_s)]
    assert len(rows) == 1, f"expected one row for {page_size} at {t_s} s, found {len(rows)}"
    return rows.iloc[0]


# --- every file ---------------------------------------------------------------------------------------


def test_every_reference_csv_is_tested_and_documented():
    shipped = {path.name for path in REFERENCE.glob("*.csv")}
    assert shipped == set(EXPECTED_COLUMNS)
    readme = (REFERENCE / "README.md").read_text()
    for name in shipped:
        assert f"`{name}`" in readme, f"{name} is not described in data/reference/README.md"
    assert "by hand" in readme


def test_the_docs_say_the_lab_reports_copy_is_kept_as_these_tests_input():
    """The README's References and data/reference/README.md name the lab report's copy and say it is
    kept because these tests check the transcribed figures against it; the copy they name is the one
    read here, and neither doc claims a licence or an address it does not have."""
    kept = f"tests/fixtures/sources/{SEED_002}"
    assert (SOURCES / SEED_002).is_file()
    for path in (REPO_ROOT / "README.md", REFERENCE / "README.md"):
        text = re.sub(r"\s+", " ", path.read_text())
        assert f"`{kept}`" in text, path
        assert "no public address that we know of" in text and "no licence or permission" in text, path
        assert "pagelab's MIT licence" in text and "does not extend to it" in text, path
        assert "Cite the lab report itself" in text, path
    assert "`tests/test_reference.py` reads it again" in re.sub(r"\s+", " ", (REFERENCE / "README.md").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED_COLUMNS))
def test_csv_loads_with_the_expected_columns(name):
    frame = reference(name)
    assert list(frame.columns) == EXPECTED_COLUMNS[name]
    assert len(frame) > 0


# Columns of words; every other column must load as numbers, so a stray character shows up here.
TEXT_COLUMNS = {"page_size", "device", "table", "key", "value", "workload", "operation", "benchmark", "note",
                "statistic"}


@pytest.mark.parametrize("name", sorted(EXPECTED_COLUMNS))
def test_csv_numbers_load_as_numbers(name):
    frame = reference(name)
    for column in frame.columns:
        if column not in TEXT_COLUMNS:
            assert pd.api.types.is_numeric_dtype(frame[column]), f"{name}: {column} is not numeric"


@pytest.mark.parametrize("name", [n for n in EXPECTED_COLUMNS if n.startswith("week4_lab_") and n != "week4_lab_setup.csv"])
def test_week4_lab_page_size_columns_agree(name):
    frame = reference(name)
    assert set(frame["page_size"]) == set(SEED_002_PAGE_SIZES)
    assert (frame["page_size"].map(SEED_002_PAGE_SIZES) == frame["page_size_bytes"]).all()
    if "t_s" in frame:
        for page_size in SEED_002_PAGE_SIZES:
            assert sorted(frame.loc[frame["page_size"] == page_size, "t_s"]) == SEED_002_CHECKPOINTS


# --- the Week 4 lab report ----------------------------------------------------------------------------


def test_week4_lab_sections_are_all_found():
    sections = week4_lab_sections()
    expected = {(p, t) for p in SEED_002_PAGE_SIZES for t in [*SEED_002_CHECKPOINTS, None]}
    assert set(sections) == expected


def test_week4_lab_tpmc_matches_the_text():
    frame = reference_text("week4_lab_tpmc.csv")
    sections = week4_lab_sections()
    for page_size in SEED_002_PAGE_SIZES:
        printed = re.search(r"<TpmC>\s*([\d.]+) TpmC", sections[(page_size, None)]).group(1)
        assert same(frame.set_index("page_size").loc[page_size, "tpmc"], printed), page_size
    # The headline, as issue and README quote it.
    assert reference("week4_lab_tpmc.csv").set_index("page_size")["tpmc"].to_dict() == {"4k": 3517.6, "8k": 3897.75, "16k": 3757.9}


INTERVAL_LINE = re.compile(
    r"^(\d+), trx: (\d+), 95%: ([\d.]+), 99%: ([\d.]+), max[_ ]rt: ([\d.]+), "
    r"(\d+)\|([\d.]+), (\d+)\|([\d.]+), (\d+)\|([\d.]+), (\d+)\|([\d.]+)\s*$",
    re.MULTILINE,
)


def test_week4_lab_intervals_match_the_text():
    frame = reference_text("week4_lab_intervals.csv")
    columns = EXPECTED_COLUMNS["week4_lab_intervals.csv"][3:]
    for (page_size, t_s), section in week4_lab_sections().items():
        if t_s is None:
            continue
        lines = INTERVAL_LINE.findall(section)
        assert len(lines) == 1, f"{page_size} at {t_s} s: expected one interval line"
        printed_t, *printed = lines[0]
        assert int(printed_t) == t_s
        row = csv_row(frame, page_size, t_s)
        for column, value in zip(columns, printed, strict=True):
            assert same(row[column], value), f"{page_size} {t_s} s {column}: CSV {row[column]}, seed {value}"


def test_week4_lab_throughput_table_matches_the_text_and_is_the_payment_count():
    frame = reference_text("week4_lab_throughput_table.csv")
    text = source_text("week4-lab-report.txt")
    table = text[text.index("Transaction throughput)"):text.index("Throughputs are all similar")]
    printed = dict(re.findall(r"(\d+)KB\t(\d+\t\d+\t\d+\t\d+)", table))
    assert set(printed) == {"4", "8", "16"}
    intervals = reference("week4_lab_intervals.csv")
    for page_size in SEED_002_PAGE_SIZES:
        cells = printed[page_size[:-1]].split("\t")
        for t_s, cell in zip(SEED_002_CHECKPOINTS, cells, strict=True):
            assert same(csv_row(frame, page_size, t_s)["transactions"], cell)
            # The caveat in the README: these are the Payment counts of the interval lines.
            assert csv_row(intervals, page_size, t_s)["payment"] == int(cell)


def test_week4_lab_iostat_matches_the_sda_rows():
    frame = reference_text("week4_lab_iostat.csv")
    columns = ["r_s", "rmb_s", "rrqm_s", "rrqm_pct", "r_await_ms", "rareq_kb", "w_s"]
    for (page_size, t_s), section in week4_lab_sections().items():
        if t_s is None:
            continue
        rows = re.findall(r"^sda\t(.*)$", section, re.MULTILINE)
        assert len(rows) == 1, f"{page_size} at {t_s} s: expected one sda row"
        printed = rows[0].split("\t")
        row = csv_row(frame, page_size, t_s)
        assert row["device"] == "sda"
        for column, value in zip(columns, printed, strict=True):
            assert same(row[column], value), f"{page_size} {t_s} s {column}: CSV {row[column]}, seed {value}"


def test_week4_lab_read_request_size_follows_page_size():
    # What the seed observes and the report reproduces; a check that rows were not swapped.
    frame = reference("week4_lab_iostat.csv")
    median_kb = frame.groupby("page_size_bytes")["rareq_kb"].median()
    assert (median_kb * 1024 == median_kb.index).all()


# Where each InnoDB column's value stands in a snapshot. Anchored to the line start where a longer
# line contains the same words ("Old database pages" contains "database pages").
INNODB_PATTERNS = {
    "pool_pages": r"^Buffer pool size\s+(\d+)",
    "free_pages": r"^Free buffers\s+(\d+)",
    "database_pages": r"^Database pages\s+(\d+)",
    "old_pages": r"^Old database pages\s+(\d+)",
    "dirty_pages": r"^Modified db pages\s+(\d+)",
    "pending_reads": r"^Pending reads\s+(\d+)",
    "pages_made_young": r"^Pages made young (\d+),",
    "pages_not_young": r"^Pages made young \d+, not young (\d+)",
    "pages_read": r"^Pages read (\d+),",
    "pages_created": r"^Pages read \d+, created (\d+),",
    "pages_written": r"^Pages read \d+, created \d+, written (\d+)",
    "reads_s": r"^([\d.]+) reads/s",
    "creates_s": r", ([\d.]+) creates/s",
    "writes_s": r", ([\d.]+) writes/s",
    "hit_rate": r"^Buffer pool hit rate (\d+) / 1000",
    # Only a rate printed whole, with its "/ 1000"; a cut line leaves the cell empty (README).
    "young_rate": r"young-making rate ([\d.]+) / 1000",
    "not_young_rate": r"^n?ot (\d+) / 1000",
    "lru_len": r"^LRU len: (\d+)",
    "io_sum": r"^I/O sum\[(\d+)\]",
    "io_cur": r"^I/O sum\[\d+\]:cur\[(\d+)\]",
}


def test_week4_lab_innodb_matches_every_snapshot():
    frame = reference_text("week4_lab_innodb.csv")
    assert set(INNODB_PATTERNS) == set(EXPECTED_COLUMNS["week4_lab_innodb.csv"][3:])
    for (page_size, t_s), section in week4_lab_sections().items():
        if t_s is None:
            continue
        row = csv_row(frame, page_size, t_s)
        for column, pattern in INNODB_PATTERNS.items():
            found = re.findall(pattern, section, re.MULTILINE)
            assert len(found) <= 1, f"{page_size} {t_s} s {column}: the pattern is ambiguous"
            printed = found[0] if found else None
            assert same(row[column], printed), f"{page_size} {t_s} s {column}: CSV {row[column]}, seed {printed}"


def test_week4_lab_pool_is_the_same_bytes_for_every_page_size():
    # 256 MiB in every whole snapshot (README: MySQL's chunk rounding of the 210 MB setting).
    frame = reference("week4_lab_innodb.csv").dropna(subset=["pool_pages"])
    assert set(frame["pool_pages"] * frame["page_size_bytes"]) == {256 << 20}


def test_week4_lab_setup_matches_the_tables():
    frame = reference("week4_lab_setup.csv")
    text = source_text("week4-lab-report.txt")
    assert set(frame["table"]) == {"System setup", "Benchmark setup"}
    for table, key, value in frame.itertuples(index=False):
        section = text[text.index(f"{table}:"):]
        assert f"\n{key}\t{value}\n" in section, f"{table}: {key} {value!r} is not in the seed"
    keys = dict(zip(frame["key"], frame["value"]))
    assert keys["Buffer Pool Size"] == "210MB (30% of DB size)" and keys["Runtime"] == "1200s"


# --- the other seeds ----------------------------------------------------------------------------------

SEED_000_WORKLOADS = {
    "load": "**Load of data**",
    "mixed_50_50": "**Mixed load 50% of writes, 50% of reads**",
    "read_mostly_95_5": "**Read mostly load 5% writes, 95% reads**",
    "read_only": "**Read only workload**",
}


def orientdb_blocks() -> dict[tuple[str, str, str], dict[str, str | None]]:
    """(workload, page size, operation) -> the YCSB numbers and the throughput line after them."""
    text = source_text("orientdb-page-size-proposal.txt")
    starts = sorted((text.index(heading), workload) for workload, heading in SEED_000_WORKLOADS.items())
    blocks = {}
    for (start, workload), following in zip(starts, starts[1:] + [(text.index("**Alternatives:**"), None)]):
        section = text[start:following[0]]
        # The last "16k pages" heading is not in bold, so match the words alone.
        parts = re.split(r"^\**(\d+)k pages\**\s*$", section, flags=re.MULTILINE)
        for label, body in zip(parts[1::2], parts[2::2]):
            block = re.compile(
                r"\[(\w+)\], AverageLatency\(us\), ([\d.]+)\n\[\1\], MinLatency\(us\), ([\d.]+)\n"
                r"\[\1\], 95thPercentileLatency\(us\), ([\d.]+)\n\[\1\], 99thPercentileLatency\(us\), ([\d.]+)\n"
                r"```\s*(?:Thoroughput = ([\d ]+) op/secs)?(?:\s*Total time: .*= ([\d ]+) secs)?"
            )
            for operation, average, minimum, p95, p99, throughput, total in block.findall(body):
                blocks[(workload, f"{label}k", operation)] = {
                    "average_latency_us": average, "min_latency_us": minimum, "p95_latency_us": p95,
                    "p99_latency_us": p99, "throughput_ops_s": throughput.replace(" ", "") or None,
                    "total_time_s": total.replace(" ", "") or None,
                }
    return blocks


def test_orientdb_ycsb_matches_the_text():
    frame = reference_text("orientdb_ycsb.csv")
    blocks = orientdb_blocks()
    assert len(blocks) == len(frame) == 12
    for row in frame.to_dict("records"):
        printed = blocks[(row["workload"], row["page_size"], row["operation"])]
        assert int(row["page_size_bytes"]) == int(row["page_size"][:-1]) * 1024
        for column, value in printed.items():
            assert same(row[column], value), f"{row['workload']} {row['page_size']} {row['operation']} {column}"


def test_sqlite_rows_are_the_experiment_table_rows():
    frame = reference_text("sqlite_page_size.csv")
    text = source_text("sqlite-experiment-053.txt")
    for row in frame.to_dict("records"):
        if row["note"]:
            line = f"| {row['benchmark']} | — | — | {row['note']} |"
        else:
            eight_k = (row["page_8192_ms_from"] if row["page_8192_ms_from"] == row["page_8192_ms_to"]
                       else f"{row['page_8192_ms_from']}-{row['page_8192_ms_to']}")
            delta = (row["delta_pct_from"] if row["delta_pct_from"] == row["delta_pct_to"]
                     else f"{row['delta_pct_from']} to {row['delta_pct_to']}")
            line = f"| {row['benchmark']} | {row['baseline_4096_ms']}ms | {eight_k}ms | {delta}% |"
        assert f"\n{line}\n" in text, f"not in SQLite's experiment 053: {line}"


def test_rethinkdb_block_sizes_match_the_text():
    frame = reference("rethinkdb_block_size.csv")
    frame_text = reference_text("rethinkdb_block_size.csv")
    text = source_text("rethinkdb-block-sizes-on-ssds.txt")
    blocks = re.findall(r"(\d+)kb \((\d+) keys\) (\d+) IOPS", text)
    hops = re.findall(r"([\d.]+) hops", text)
    queries = re.findall(r"(\d+) q\./sec", text)
    assert len(blocks) == len(hops) == len(queries) == len(frame) == 7
    for row, (kb, keys, iops), hop, query in zip(frame_text.to_dict("records"), blocks, hops, queries, strict=True):
        assert (row["block_kb"], row["keys_per_block"], row["iops"]) == (kb, keys, iops)
        assert same(row["hops"], hop) and same(row["queries_per_s"], query)
    assert (frame["block_size_bytes"] == frame["block_kb"] * 1024).all()
    for row in frame.to_dict("records"):
        # The seed's own arithmetic: hops = log_b(10^9) to two places (rounded, except 32kb's 2.98
        # for 2.9897, see the README) and q/s = IOPS / hops, rounded down.
        assert abs(math.log(1e9, row["keys_per_block"]) - row["hops"]) < 0.01
        assert int(row["iops"] / row["hops"]) == row["queries_per_s"]


def test_voron_random_writes_match_the_text():
    frame = reference_text("voron_random_writes.csv").set_index("statistic")
    text = source_text("voron-random-writes.txt")
    labels = {"average": "Average", "max": "Max", "total": "Total", "std_dev": "Std Dev"}
    for statistic, label in labels.items():
        sequential, random_ = re.search(rf"^{label}\s+([\d.,]+)\s+([\d.,]+)", text, re.MULTILINE).groups()
        assert same(frame.loc[statistic, "sequential_pages"], sequential), statistic
        assert same(frame.loc[statistic, "random_pages"], random_), statistic
    assert "5,000 transactions of 100 items" in text


def test_the_kept_lab_report_carries_no_student_number():
    """The lab report's text is kept as given but for its author's student number (data/reference/README.md
    says so): no line of the title block (above its first section) is a number, the form it had there."""
    import re

    text = source_text("week4-lab-report.txt")
    title = text[:text.index("1. INTRODUCTION")]
    assert not re.search(r"^\s*\d{6,}\s*$", title, re.MULTILINE), title
    assert "[student number removed]" in text
    assert "[student number removed]" in (REPO_ROOT / "data" / "reference" / "README.md").read_text()
