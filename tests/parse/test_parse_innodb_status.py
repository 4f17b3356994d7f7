"""InnoDB status parser: facts checked against the snapshots, versions, fragments, directories."""

from __future__ import annotations

import pytest
from golden_cases import FIXTURES_DIR, SAMPLES_DIR, seed_innodb_snapshots, seed_text
from pagelab.common.errors import ParseError
from pagelab.parse import parse_innodb_status, parse_innodb_status_dir
from pagelab.parse.innodb_status import COLUMNS

MARIADB = FIXTURES_DIR / "mariadb-10.11"


def snapshot(run: str, index: int = 0) -> str:
    return sorted((MARIADB / run / "innodb").glob("*.txt"))[index].read_text()


def test_64k_pool_pages():
    # The fixture README speaks of "1,024 pages" (64 MB / 64 KiB); the server itself prints
    # "Buffer pool size   1016" in every 64k snapshot, and the parser reports what was printed.
    for path in sorted((MARIADB / "64k-w1-c4" / "innodb").glob("*.txt")):
        assert parse_innodb_status(path.read_text()).rows[0]["pool_pages"] == 1016


def test_mariadb_snapshot_read_field_by_field():
    row = parse_innodb_status(snapshot("16k-w1-c4")).rows[0]
    expected = {
        "timestamp": "2026-11-21T14:01:42", "averages_window_s": 10,
        "pool_pages": 4056, "free_pages": 1155, "database_pages": 2901, "old_pages": 1088,
        "dirty_pages": 2285, "pages_made_young": 5826, "pages_not_young": 365415,
        "pages_read": 18309, "pages_created": 7516, "pages_written": 25521,
        "hit_rate": 982, "young_rate": 5, "not_young_rate": 350,
        "reads_s": 1804.72, "creates_s": 87.99, "writes_s": 1923.81,
        "youngs_s": 567.54, "non_youngs_s": 35465.05, "dirty_pages_pct": 56.322,
        "pending_writes_lru": 0, "pending_writes_flush_list": 0, "lru_len": 2901,
        "io_sum": 6273, "io_cur": 37131, "history_list_length": 646,
        "log_sequence_number": 139596855, "last_checkpoint_at": 109854539,
    }  # fmt: skip
    assert {key: row[key] for key in expected} == expected
    # MariaDB prints no "single page" count; that is not damage
    assert "pending_writes_single_page" not in row
    # FILE I/O's "1804.72 reads/s, 16146 avg bytes/read" must not stand in for the pool's line
    assert row["writes_s"] == 1923.81


def test_frame_starts_with_the_contract_columns():
    frame = parse_innodb_status(snapshot("4k-w1-c4")).to_frame()
    assert list(frame.columns[: len(COLUMNS)]) == list(COLUMNS)


def test_mysql_80_reports_the_total_not_the_instances():
    row = parse_innodb_status((SAMPLES_DIR / "innodb_mysql-8.0_manual_example.txt").read_text()).rows[0]
    assert row["pool_pages"] == 131072 and row["database_pages"] == 973 and row["pages_read"] == 810
    assert row["hit_rate"] == 1000  # instance 1 printed "No buffer pool page gets"; the total did not
    assert row["pending_writes_single_page"] == 0
    assert row["log_sequence_number"] == 19643450 and row["timestamp"] == "2018-04-12T15:14:08"


def test_mysql_57_lines_wrapped_by_the_manual():
    # "...young-making rate 0 / 1000 not\n0 / 1000" and "Random read\nahead 0.00/s"
    result = parse_innodb_status((SAMPLES_DIR / "innodb_mysql-5.7_manual_example.txt").read_text())
    row = result.rows[0]
    assert (row["hit_rate"], row["young_rate"], row["not_young_rate"]) == (1000, 0, 0)
    assert row["random_read_ahead_s"] == 0.0 and row["creates_s"] == 190.89 and row["youngs_s"] == 0.1
    assert row["pool_pages"] == 131072 and row["free_pages"] == 124908
    assert not result.warnings


def test_no_page_gets_leaves_the_rates_empty():
    text = snapshot("4k-w1-c4").replace(
        "Buffer pool hit rate 986 / 1000, young-making rate 5 / 1000 not 98 / 1000",
        "No buffer pool page gets since the last printout",
    )
    result = parse_innodb_status(text)
    row = result.rows[0]
    assert row["hit_rate"] is None and row["young_rate"] is None and row["not_young_rate"] is None
    assert row["pool_pages"] == 15768 and not result.warnings


def test_seed_002_snapshots():
    snapshots = {(page, progress): block for page, progress, block in seed_innodb_snapshots(seed_text())}
    assert len(snapshots) == 12
    four_k_100 = parse_innodb_status(snapshots[(4, 100)])
    row = four_k_100.rows[0]
    assert row["hit_rate"] == 990 and row["young_rate"] == 42 and row["pool_pages"] == 65536
    assert row["pending_writes_flush_list"] == 5 and row.get("pending_writes_single_page") is None
    assert row["not_young_rate"] is None  # the copy stops after "young-making rate 42 / 1000"
    assert row["evicted_without_access_s"] is None  # "evicted without access 0": its unit was cut
    assert any(w.startswith("line 8:") and "pending_writes_single_page" in w for w in four_k_100.warnings)

    eight_k_100 = parse_innodb_status(snapshots[(8, 100)]).rows[0]  # no "Buffer pool size" line at all
    assert eight_k_100["pool_pages"] is None and eight_k_100["free_pages"] == 104
    assert (
        eight_k_100["young_rate"] is None and eight_k_100["not_young_rate"] == 27
    )  # "...young-making r" / "ot 27 / 1000"

    sixteen_k_100 = parse_innodb_status(snapshots[(16, 100)]).rows[0]
    assert (
        sixteen_k_100["young_rate"] == 0.0 and sixteen_k_100["not_young_rate"] == 22
    )  # wrapped "not 22 / 1000"
    sixteen_k_400 = parse_innodb_status(snapshots[(16, 400)]).rows[0]
    assert sixteen_k_400["young_rate"] is None  # "young-making rate 11" lost its "/ 1000": maybe 11x

    for block in snapshots.values():  # "0.00 young/s" and "m read ahead 0.00/s" are read too
        row = parse_innodb_status(block).rows[0]
        assert row["youngs_s"] == 0.0 and row["random_read_ahead_s"] == 0.0


def test_several_snapshots_in_one_text_give_several_rows():
    text = snapshot("4k-w1-c4", 0) + "\n" + snapshot("4k-w1-c4", 1)
    rows = parse_innodb_status(text).rows
    assert [row["timestamp"] for row in rows] == ["2026-11-21T13:59:29", "2026-11-21T13:59:39"]


def test_batch_mode_output_with_escaped_newlines():
    text = snapshot("64k-w1-c4")
    status = text[text.index("=====") :]
    batch = "Type\tName\tStatus\nInnoDB\t\t" + status.replace("\n", "\\n") + "\n"
    assert parse_innodb_status(batch).rows == parse_innodb_status(text).rows


def test_snapshot_cut_before_the_buffer_pool_section():
    # FILE I/O's "reads/s" line must not be taken for the pool's when the section never came
    text = snapshot("4k-w1-c4")
    with pytest.raises(ParseError, match="no InnoDB buffer pool figures"):
        parse_innodb_status(text[: text.index("BUFFER POOL AND MEMORY")])
    two = snapshot("4k-w1-c4", 0) + snapshot("4k-w1-c4", 1)[:400]
    result = parse_innodb_status(two)
    assert len(result.rows) == 1 and any("skipped" in warning for warning in result.warnings)


def test_old_innodb_formats():
    text = (
        "090601 9:05:04 INNODB MONITOR OUTPUT\n"
        "Log sequence number 1 2\n"
        "----------------------\nBUFFER POOL AND MEMORY\n----------------------\n"
        "Buffer pool size   512\n"
        "Free buffers       10\n"
    )
    row = parse_innodb_status(text).rows[0]
    assert row["timestamp"] == "2009-06-01T09:05:04"
    assert row["log_sequence_number"] == (1 << 32) + 2
    assert (row["pool_pages"], row["free_pages"]) == (512, 10)


@pytest.mark.parametrize("text", ["", "\n \n", "Type: InnoDB\nStatus:\n", "random words\n1 2 3\n"])
def test_nothing_readable_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_innodb_status(text)


def test_directory_in_numbered_order_with_epochs(tmp_path):
    texts = [snapshot("16k-w1-c4", index) for index in range(3)]
    for name, text in zip(("10_300.txt", "9_200.txt", "2_100.txt"), texts[::-1]):
        (tmp_path / name).write_text(text)
    (tmp_path / "00011.txt").write_text("not a snapshot\n")
    (tmp_path / "notes.md").write_text("ignored: not a .txt file")
    result = parse_innodb_status_dir(tmp_path)
    assert [row["snapshot"] for row in result.rows] == ["2_100.txt", "9_200.txt", "10_300.txt"]
    assert [row["epoch"] for row in result.rows] == [100, 200, 300]
    assert [row["timestamp"] for row in result.rows] == [
        "2026-11-21T14:01:42",
        "2026-11-21T14:01:53",
        "2026-11-21T14:02:03",
    ]
    assert result.warnings == [
        "00011.txt: no InnoDB buffer pool figures found (no 'Buffer pool size', 'Database pages', ...); skipped"
    ]
    assert list(result.to_frame().columns[:3]) == ["snapshot", "epoch", "timestamp"]


def test_fixture_directory_runs_in_time_order():
    result = parse_innodb_status_dir(MARIADB / "4k-w1-c4" / "innodb")
    epochs = [row["epoch"] for row in result.rows]
    assert len(epochs) == 7 and epochs == sorted(epochs) and epochs[0] == 1795269569


def test_directory_errors(tmp_path):
    with pytest.raises(ParseError, match="not a directory"):
        parse_innodb_status_dir(tmp_path / "missing")
    with pytest.raises(ParseError, match=r"no InnoDB status snapshots"):
        parse_innodb_status_dir(tmp_path)
    (tmp_path / "001_5.txt").write_text("garbage\n")
    with pytest.raises(ParseError, match="could be read"):
        parse_innodb_status_dir(tmp_path)


def test_a_number_cut_at_the_end_of_the_text_is_not_read():
    text = snapshot("64k-w1-c4")
    cut = text[: text.index("Buffer pool size   1016") + len("Buffer pool size   10")]
    result = parse_innodb_status(cut)
    assert result.rows[0]["pool_pages"] is None  # not 10
    assert result.rows[0]["dictionary_memory_bytes"] == 460144
    assert any("without a line end" in warning for warning in result.warnings)
