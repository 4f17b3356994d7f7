"""SQLite's experiment 053, SQLite's `page_size` 4096 against 8192: the experiment's benchmarks, timed per page size,
in C and through Python.

The experiment (experiment 053 of the resqlite library) set `PRAGMA page_size = 8192` before
`PRAGMA journal_mode = WAL` on new databases, with `mmap_size` = 256 MB, and timed six benchmarks
through a thin C layer against the 4096 baseline, "3 repeats x 2 runs": 14 wins, 0 regressions,
-16 to -26% (`report.seed_table()`, data/reference/sqlite_page_size.csv). `run.run_sqlite_bench`
repeats the benchmarks on a new database per page size along two paths, in the same runs:

    native  "what SQLite's pages do": each sample runs in C (_sqlitetimer.c, its opening comment
            says what it offers) against the system's libsqlite3, the GIL released; rows are read
            column by column with sqlite3_column_* into a small per-row structure; each
            iteration is timed with CLOCK_MONOTONIC (and CLOCK_PROCESS_CPUTIME_ID) in C; Python
            only hands over the SQL texts and the rows to write, and collects the totals
            (native.py)
    python  "what a Python user sees": Python's sqlite3, a dict per row read (database.py)

and returns tidy tables; `report.delta_table` and `summary_line` put one path's in the experiment's
form with pagelab.evidence's intervals and verdicts, `seed_comparison` sets the experiment's numbers
beside ours, `share_table` gives the share of the Python path's time the native path accounts
for, and `btree_beside_times` the B-tree's depth and leaves beside the times. Modules:
benchmarks.py (the row, the SQL, the plan), database.py (create, load, check, the Python path),
native.py, run.py, report.py, plots.py.

The row. Every benchmark reads or writes rows of one table,

    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL,
                        value REAL NOT NULL, category TEXT NOT NULL, created_at TEXT NOT NULL)

with row i = ("Item i", "This is a description for item number i with some padding text to
simulate real data", i * 1.5, "category_<i % 10>", "2026-04-0<i % 9 + 1>T12:00:00Z"): the mixed
six-column row of the benchmark suite of the library the experiment measured, about 145 bytes on disk
(27 rows per 4 KiB leaf, 55 per 8 KiB leaf). Why this one: the experiment's effect is about how many
pages a given number of rows occupies, so the row has to be a realistic size, not a bare integer;
and a rowid table is what an application's table is (its interior pages hold only rowids, so the
tree is shallow and most of the pages are leaves). The database holds `rows` (10,000) of them.

The benchmarks (their names are the experiment's, so our rows line up with its table):

    Select maps 10000 rows           SELECT * FROM items, every row turned into a map: a dict
                                     (column name -> value) in Python, an array of typed values
                                     with the text copied out in C, as the library returns maps
    Batched write tx 100 rows        BEGIN; 100 INSERTs, one execute each; COMMIT
    Batched write tx 1000 rows       the same with 1,000 rows
    Batched write tx (executeBatch)  BEGIN; one batch of 100 rows (executemany() in Python); COMMIT
                                     (the experiment does not print its size; 100 fits its 0.54 ms beside
                                     0.82 ms for 100 single executes, an inference). In C an
                                     execute per row on a prepared statement *is* a batch: the two
                                     100-row benchmarks do the same work there, and the experiment's gap
                                     between them (its per-call cost from Dart) has no counterpart
    Transaction read 500 rows        BEGIN; the first 500 rows by id, as maps; COMMIT
    Transaction read 1000 rows       the same with 1,000 rows

Writes append to `items` (rowids rows+1, rows+2, ...) and are deleted again after each
iteration, outside the timed part, so every iteration starts from the same table. The experiment's
"selectBytes" (rows serialised to JSON by the library's C code) has no counterpart here; its row
in the experiment's table stays without our numbers.

Settings of each database, in this order (`database.create_database`, on the Python path's
connection, which creates and loads the file; the native path's C connection then opens it and
makes the per-connection settings, synchronous and mmap_size, itself, and checks the page size):

    PRAGMA page_size = N          first, before anything is written: it only takes effect on a
                                  new database. Checked afterwards with PRAGMA page_size *and*
                                  the file header's own field (bytes 16-17); UsageError if SQLite
                                  did not take it
    PRAGMA journal_mode = WAL
    PRAGMA synchronous = NORMAL   WAL's usual partner: no fsync per commit (the WAL is synced at
                                  checkpoints), so a commit's time is SQLite's, not the disk
                                  cache's. "FULL" is Python's default and adds an fsync per commit
    PRAGMA mmap_size = 268435456  256 MB, as the experiment: reads of the database file go through the
                                  memory map (pages still in the WAL are read from the WAL)
    wal_autocheckpoint, cache_size  SQLite's defaults (1000 frames, 2000 KiB)

Timing. `repeats` x `runs` samples per path, benchmark and page size (the experiment's 3 x 2): each
repeat builds new databases (one per page size, shared by both paths), loads the rows and
checkpoints them into the file; each run times every benchmark once per path and page size. The
paths and the page sizes take turns benchmark by benchmark (in alternating order), so a slow
spell on a shared machine falls on all. A sample is one untimed warm-up iteration (which also
re-reads pages the other path's connection made stale), then as many iterations as make at
least `min_sample_seconds` of work (counted once per path and benchmark, on the first page size,
and used for all), each timed alone: wall clock (CLOCK_MONOTONIC: `time.perf_counter_ns` in
Python, clock_gettime in C) and this process's CPU (CLOCK_PROCESS_CPUTIME_ID); the sample's
figures are the mean per iteration (`time_ms`, `cpu_ms`: what a loop timing gives, the experiment's
kind) and the fastest iteration (`best_ms`: on a shared machine other processes' time slices
land inside some iterations, and the fastest is the least disturbed). Python's garbage collector
is off while timing, as in `timeit`. `run.run_row_counts` runs it all once per table size
(the experiment's 10,000 rows; 1,000,000 gives the B-tree another level).

Statistics and verdicts (pagelab.evidence, the TPC-C sweep's rule). Per path, benchmark and page
size: the median of the samples with its distribution-free interval (`median_interval`), the
min-max and the spread (max/min - 1). Against the baseline (4096): the delta of the medians with
a bootstrap interval and the exact Mann-Whitney test (`compare_family`, other against baseline;
the benchmarks of one page size are a family: Holm-adjusted p, Bonferroni-adjusted interval),
and the verdict "faster" or "slower" only when the interval lies on one side of no change and
the adjusted test rejects at 5%, "equivalent" when the interval lies within ±3%, else "not
resolved" (always so with a single sample per page size). The experiment's printed form is kept beside it: the other page size's min-max in ms and as a
delta from the baseline's median ("4.58-4.67ms", "-16 to -18%"). `seed_check` reads our
interval against the experiment's delta: reproduced, faster but less than the experiment's, does not hold
(the interval excludes it), or undecided.

WAL frames per write transaction (`wal_frames`). After the timings, on the last repeat's
databases, through the Python path's connection (SQLite writes the same frames for either),
with `PRAGMA wal_autocheckpoint = 0`: before each of `frame_transactions` transactions the WAL is
checkpointed and truncated, so the transaction's frames are the WAL's size after it, less the
32-byte header, over page_size + 24 (`pagelab.workloads.random_writes.sqlite.frames_appended`),
and `PRAGMA wal_checkpoint(PASSIVE)` reports the same count as its "log" figure
(`wal_frames_checkpoint`, a cross-check). A commit writes one frame per page it changed, so the
larger batch writes more frames, and larger pages write fewer but bigger ones.

B-tree shape (`btree`). For every table and index B-tree, right after the load: pages, cells and
bytes used per level (root = level 0) from the `dbstat` virtual table
(`pagelab.workloads.random_writes.sqlite.tree_levels_dbstat`; checked in PRAGMA compile_options,
and the C module reports whether its library has it too: Debian's libsqlite3 has), or from
walking the B-tree pages in the file where SQLite lacks dbstat
(`pagelab.workloads.random_writes.sqlite.walk_btree`), and `tree_source` says which.
"""

