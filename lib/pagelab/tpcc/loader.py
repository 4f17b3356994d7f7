"""Bulk loader: a generated dataset into a server, then checked.

tpcc-mysql's `tpcc_load` inserts row by row and takes about a minute per warehouse on the 2-core
machine. Here each table file goes in with one `LOAD DATA LOCAL INFILE`, in primary-key order,
with unique and foreign-key checks off. The four secondary indexes of tpcc-mysql's
`add_fkey_idx.sql` are created with the tables, before the load: measured on the 2-core machine,
that loads a warehouse in about half the time of adding them afterwards (each later CREATE INDEX
re-reads its table through a 64 MB pool). The foreign keys follow the load, added in place.

While loading, redo is written but not flushed at every commit (innodb_flush_log_at_trx_commit=0);
the server's previous value is restored afterwards, whatever happens. After the load the row
counts must equal the dataset's exactly, and TPC-C's consistency conditions 1-4 (clause 3.3.2.1-4)
must hold, or the load fails.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mysql.connector import errors as mysql_errors

from pagelab.common.errors import PagelabError, UsageError
from pagelab.mysql.client import ConnectionSpec, recreate_database
from pagelab.tpcc import schema
from pagelab.tpcc.datagen import Dataset

DEFAULT_DATABASE = "tpcc"
# One loading connection per core of the 2-core reference machine.
DEFAULT_PARALLEL = 2
# Where the driver finds the load's NURand constants (clause 2.1.6.1 ties the run's to them).
LOAD_INFO_TABLE = "pagelab_load_info"
# Two connections loading two warehouses' files of one table can deadlock on a secondary index
# (seen at 7 warehouses and 16k pages, 2026-11-26). InnoDB then rolls the victim's whole statement
# back (autocommit: the LOAD DATA is its transaction), so loading the same file again is safe; the
# row counts checked after the load would catch anything else.
RETRIED_ERRORS = (1213, 1205)  # ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT
LOAD_ATTEMPTS = 5
# One LOAD DATA takes one warehouse's file of one table (at most ~30 MB) and returns within seconds.
# A server that gives nothing back on a loading connection for this long has stopped answering (a
# frozen mysqld): the load fails and says so, rather than waiting out the unit's hours-long limit.
LOAD_STALL_S = 300


class LoadError(PagelabError):
    """The load did not give the data that was generated: a check failed, or the server stopped answering."""


class LoadStalled(LoadError):
    """The server gave nothing back for LOAD_STALL_S while loading: nothing more is asked of it."""


@dataclass
class LoadReport:
    database: str
    warehouses: int
    seed: int
    row_counts: dict[str, int]
    seconds_tables: float
    seconds_indexes: float
    seconds_verify: float
    consistency: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.seconds_tables + self.seconds_indexes + self.seconds_verify


def _check_database_name(database: str) -> str:
    if not database.replace("_", "").isalnum():
        raise UsageError(f"database name must be letters, digits and _, got {database!r}")
    return database


def load(
    connection: ConnectionSpec,
    dataset: Dataset,
    database: str = DEFAULT_DATABASE,
    parallel: int = DEFAULT_PARALLEL,
    progress: bool = True,
) -> LoadReport:
    """(Re)create `database` and load `dataset` into it; verify counts and consistency."""
    _check_database_name(database)
    if parallel < 1:
        raise UsageError(f"parallel must be at least 1, got {parallel}")
    admin = connection.with_database(None).connect(autocommit=True)
    try:
        cursor = admin.cursor()
        cursor.execute("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        saved_flush = cursor.fetchone()[0]
        recreate_database(cursor, database)
        for statement in schema.create_table_statements() + schema.secondary_index_statements():
            cursor.execute(statement)
        cursor.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 0")
        answering = True
        try:
            started = time.perf_counter()
            _load_files(connection.with_database(database), dataset, parallel, progress)
            tables_done = time.perf_counter()
            for setting in schema.LOAD_SESSION_SETTINGS:
                cursor.execute(setting)
            for statement in schema.foreign_key_statements():
                cursor.execute(statement)
            cursor.execute(f"CREATE TABLE {LOAD_INFO_TABLE} (name VARCHAR(32) PRIMARY KEY, value VARCHAR(64))")
            info = {"seed": dataset.seed, "warehouses": dataset.warehouses,
                    **{f"nurand_{name}": value for name, value in dataset.constants.to_dict().items()}}
            cursor.executemany(f"INSERT INTO {LOAD_INFO_TABLE} VALUES (%s, %s)", [(k, str(v)) for k, v in info.items()])
            indexes_done = time.perf_counter()
        except LoadStalled:
            answering = False  # the setting cannot be put back on a server that answers nothing
            raise
        finally:
            if answering:
                cursor.execute(f"SET GLOBAL innodb_flush_log_at_trx_commit = {int(saved_flush)}")
        counts = table_row_counts(cursor)
        expected = dataset.row_counts
        wrong = {t: (counts.get(t), n) for t, n in expected.items() if counts.get(t) != n}
        if wrong:
            detail = ", ".join(f"{t}: {got} rows, expected {want}" for t, (got, want) in wrong.items())
            raise LoadError(f"the load is incomplete: {detail}")
        problems = consistency_violations(cursor)
        if problems:
            raise LoadError("the loaded data breaks TPC-C consistency: " + "; ".join(problems))
        verified = time.perf_counter()
    finally:
        admin.close()
    return LoadReport(database, dataset.warehouses, dataset.seed, counts, tables_done - started,
                      indexes_done - tables_done, verified - indexes_done)


def _raise_if_stalled(error: Exception, began: float, what: str) -> None:
    """A LoadError naming the stall when `error` came after LOAD_STALL_S of silence from the server."""
    if time.monotonic() - began >= LOAD_STALL_S:
        raise LoadStalled(f"the server stopped answering: {what} gave nothing back for {LOAD_STALL_S} s "
                        f"({error})") from error


def _load_files(connection: ConnectionSpec, dataset: Dataset, parallel: int, progress: bool) -> None:
    from pagelab.common.progress import progress_bar

    jobs = [(table, path) for table, paths in dataset.files.items() for path in paths]
    rows_by_path = {df.path: df.rows for df in dataset.data_files}
    # Largest first, so the two connections finish together.
    jobs.sort(key=lambda job: -job[1].stat().st_size)
    totals = dataset.row_counts
    bars = {table: progress_bar(totals[table], f"load {table:<10}", "row", disable=not progress, unit_scale=True,
                                position=index, leave=True)
            for index, table in enumerate(schema.TABLES)}

    def load_one(job: tuple[str, Path]) -> None:
        table, path = job
        columns = ", ".join(schema.COLUMNS[table])
        began = time.monotonic()
        try:
            # connection_timeout bounds the handshake and, in the pure-Python connector, every read
            # and write after it; read/write_timeout say the same for the C extension.
            link = connection.connect(allow_local_infile=True, autocommit=True, connection_timeout=LOAD_STALL_S,
                                      read_timeout=LOAD_STALL_S, write_timeout=LOAD_STALL_S)
        except mysql_errors.Error as exc:
            _raise_if_stalled(exc, began, f"connecting to load {table} from {path.name}")
            raise
        try:
            cursor = link.cursor()
            for setting in schema.LOAD_SESSION_SETTINGS:
                cursor.execute(setting)
            for attempt in range(1, LOAD_ATTEMPTS + 1):
                began = time.monotonic()
                try:
                    cursor.execute(
                        f"LOAD DATA LOCAL INFILE '{path.resolve()}' INTO TABLE {table} CHARACTER SET utf8mb4 "
                        f"FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({columns})"
                    )
                    break
                except mysql_errors.Error as exc:
                    _raise_if_stalled(exc, began, f"LOAD DATA into {table} from {path.name}")
                    if not isinstance(exc, mysql_errors.DatabaseError) or exc.errno not in RETRIED_ERRORS \
                            or attempt == LOAD_ATTEMPTS:
                        raise
            cursor.execute("SHOW WARNINGS LIMIT 3")
            warnings = cursor.fetchall()
            if warnings:
                raise LoadError(f"LOAD DATA into {table} from {path.name} gave warnings: {warnings}")
        finally:
            link.close()
        bars[table].update(rows_by_path[path])

    try:
        with ThreadPoolExecutor(max_workers=parallel) as pool:
            for _ in pool.map(load_one, jobs):
                pass
    finally:
        for bar in bars.values():
            bar.close()


def table_row_counts(cursor) -> dict[str, int]:
    counts = {}
    for table in schema.TABLES:
        cursor.execute(f"SELECT COUNT(*) FROM {table}")
        counts[table] = int(cursor.fetchone()[0])
    return counts


# Clause 3.3.2: each query returns the rows that break the condition (none when consistent).
CONSISTENCY_CONDITIONS = {
    "1: W_YTD = sum(D_YTD)": (
        "SELECT w_id FROM warehouse JOIN (SELECT d_w_id, SUM(d_ytd) AS total FROM district GROUP BY d_w_id) d "
        "ON d.d_w_id = w_id WHERE w_ytd <> d.total"
    ),
    "2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)": (
        "SELECT d_w_id, d_id FROM district "
        "JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o "
        "  ON o.o_w_id = d_w_id AND o.o_d_id = d_id "
        "LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_orders GROUP BY no_w_id, no_d_id) n "
        "  ON n.no_w_id = d_w_id AND n.no_d_id = d_id "
        "WHERE d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND n.m <> o.m)"
    ),
    "3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)": (
        "SELECT no_w_id, no_d_id FROM new_orders GROUP BY no_w_id, no_d_id "
        "HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)"
    ),
    "4: sum(O_OL_CNT) = count(ORDER-LINE)": (
        "SELECT o.o_w_id, o.o_d_id FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS ordered_lines FROM orders "
        "GROUP BY o_w_id, o_d_id) o JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS stored_lines FROM order_line "
        "GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id WHERE o.ordered_lines <> l.stored_lines"
    ),
}


def consistency_violations(cursor) -> list[str]:
    """Names of the consistency conditions 1-4 that do not hold, with the first offending keys."""
    problems = []
    for name, query in CONSISTENCY_CONDITIONS.items():
        cursor.execute(query)
        rows = cursor.fetchall()
        if rows:
            problems.append(f"condition {name} fails for {len(rows)} row(s), e.g. {rows[:3]}")
    return problems


def loaded_info(cursor) -> dict[str, str]:
    """What the loader recorded (seed, warehouses, NURand C-Load); empty for a tpcc_load database."""
    cursor.execute("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() "
                   "AND table_name = %s", (LOAD_INFO_TABLE,))
    if not cursor.fetchone()[0]:
        return {}
    cursor.execute(f"SELECT name, value FROM {LOAD_INFO_TABLE}")
    return dict(cursor.fetchall())
