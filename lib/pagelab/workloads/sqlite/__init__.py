"""Seed 001, SQLite's `page_size` 4096 against 8192: the seed's benchmarks, timed per page size.

The seed (experiment 053 of the resqlite library) set `PRAGMA page_size = 8192` before
`PRAGMA journal_mode = WAL` on new databases, with `mmap_size` = 256 MB, and timed six benchmarks
against the 4096 baseline, "3 repeats x 2 runs": 14 wins, 0 regressions, -16 to -26%
(`seed_table()`, data/reference/seed001_sqlite.csv). `run_sqlite_bench` repeats the benchmarks
with Python's `sqlite3`, a new database per page size, and returns tidy tables; `delta_table`
and `summary_line` put them in the seed's form, and `seed_comparison` sets the seed's numbers
beside ours.

The row. Every benchmark reads or writes rows of one table,

    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL,
                        value REAL NOT NULL, category TEXT NOT NULL, created_at TEXT NOT NULL)

with row i = ("Item i", "This is a description for item number i with some padding text to
simulate real data", i * 1.5, "category_<i % 10>", "2026-04-0<i % 9 + 1>T12:00:00Z"): the mixed
six-column row of the benchmark suite of the library the seed measured, about 145 bytes on disk
(27 rows per 4 KiB leaf, 55 per 8 KiB leaf). Why this one: the seed's effect is about how many
pages a given number of rows occupies, so the row has to be a realistic size, not a bare integer;
and a rowid table is what an application's table is (its interior pages hold only rowids, so the
tree is shallow and most of the pages are leaves). The database holds `rows` (10,000) of them.

The benchmarks (their names are the seed's, so our rows line up with its table):

    Select maps 10000 rows           SELECT * FROM items, every row turned into a dict
                                     (column name -> value), as the library returns maps
    Batched write tx 100 rows        BEGIN; 100 INSERTs, one execute() each; COMMIT
    Batched write tx 1000 rows       the same with 1,000 rows
    Batched write tx (executeBatch)  BEGIN; one executemany() of 100 rows; COMMIT (the seed does
                                     not print its size; 100 fits its 0.54 ms beside 0.82 ms for
                                     100 single executes, an inference)
    Transaction read 500 rows        BEGIN; the first 500 rows by id, as dicts; COMMIT
    Transaction read 1000 rows       the same with 1,000 rows

Writes append to `items` (rowids rows+1, rows+2, ...) and are deleted again after each
iteration, outside the timed part, so every iteration starts from the same table. The seed's
"selectBytes" (rows serialised to JSON by the library's C code) has no counterpart here; its row
in the seed's table stays without our numbers.

Settings of each database, in this order (`create_database`):

    PRAGMA page_size = N          first, before anything is written: it only takes effect on a
                                  new database. Checked afterwards with PRAGMA page_size *and*
                                  the file header's own field (bytes 16-17); UsageError if SQLite
                                  did not take it
    PRAGMA journal_mode = WAL
    PRAGMA synchronous = NORMAL   WAL's usual partner: no fsync per commit (the WAL is synced at
                                  checkpoints), so a commit's time is SQLite's, not the disk
                                  cache's. "FULL" is Python's default and adds an fsync per commit
    PRAGMA mmap_size = 268435456  256 MB, as the seed: reads of the database file go through the
                                  memory map (pages still in the WAL are read from the WAL)
    wal_autocheckpoint, cache_size  SQLite's defaults (1000 frames, 2000 KiB)

Timing. `repeats` x `runs` samples per benchmark and page size (the seed's 3 x 2): each repeat
builds new databases (one per page size), loads the rows and checkpoints them into the file;
each run times every benchmark once per page size. The page sizes take turns benchmark by
benchmark (in alternating order), so a slow spell on a shared machine falls on both. A sample is
one untimed warm-up iteration, then as many iterations as make at least `min_sample_seconds` of
work (counted once per benchmark, on the first page size, and used for all), each timed alone
with `time.perf_counter_ns` (wall) and `time.process_time_ns` (this process's CPU); the sample's
figures are the mean per iteration (`time_ms`, `cpu_ms`: what a loop timing gives, the seed's
kind) and the fastest iteration (`best_ms`: on a shared machine other processes' time slices
land inside some iterations, and the fastest is the least disturbed). The garbage collector is
off while timing, as in `timeit`.

Statistics and verdicts. Per benchmark and page size: the median of the samples and their spread
(min-max). Against the baseline (4096): the other page size's min-max as a range of ms and of
delta % relative to the baseline's median (the seed's "4.58-4.67ms", "-16 to -18%"), and a
verdict: "win" only if every sample of the other page size is faster than every sample of the
baseline (the two min-max ranges do not overlap), "regression" if every one is slower, else
"unchanged". So a difference smaller than the noise is never called; nor is any difference
with a single sample per page size (repeats = runs = 1), which has no spread.

WAL frames per write transaction (`wal_frames`). After the timings, on the last repeat's
databases, with `PRAGMA wal_autocheckpoint = 0`: before each of `frame_transactions`
transactions the WAL is checkpointed and truncated, so the transaction's frames are the WAL's
size after it, less the 32-byte header, over page_size + 24 (`pagelab.workloads.random_writes.sqlite.frames_appended`),
and `PRAGMA wal_checkpoint(PASSIVE)` reports the same count as its "log" figure
(`wal_frames_checkpoint`, a cross-check). A commit writes one frame per page it changed, so the
larger batch writes more frames, and larger pages write fewer but bigger ones.

B-tree shape (`btree`). For every table and index B-tree, right after the load: pages, cells and
bytes used per level (root = level 0) from the `dbstat` virtual table
(`pagelab.workloads.random_writes.sqlite.tree_levels_dbstat`), or from walking the file where SQLite lacks dbstat
(`pagelab.workloads.random_writes.sqlite.walk_btree`).
"""

