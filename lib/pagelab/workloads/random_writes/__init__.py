"""The Voron post, "the cost of random writes": pages written per transaction by sequential and random keys.

The post (Voron, Ayende Rahien) runs 5,000 transactions of 100 inserts each, once with keys in
ascending order and once with keys in random order, and counts the pages each transaction writes
to the journal: 7.06 per transaction for sequential keys, 111.37 for random ones (`seed_table()`).
`run_random_write_cost` runs the same workload on pagelab's storage prototype at each page size
and returns one row per (page size, key order); `seed_comparison` sets the post's table beside
ours. `pagelab.workloads.random_writes.sqlite` runs it on SQLite and returns rows of the same shape.

The items are those of the post's benchmark program (Ayende's `Performance.Comparison`, which
wrote `Id.ToString("0000000000000000")` keys with 128-byte values):

    key    the item's id as 16 zero-padded decimal digits (16 ASCII bytes), so byte order is
           numeric order: b"0000000000000042"
    value  128 bytes (the program's minValueSize = maxValueSize = 128), the same for every item
    ids    sequential: 0, 1, 2, ... in that order
           random: distinct ids drawn uniformly from [0, 2**31 - 1), as the program's
           InitRandomNumbers drew distinct non-negative Int32s; random.Random(seed) draws them,
           so a seed gives the same ids in the same order every time (and in both engines)

What is counted. The post counts journal writes only, "because those are the limiting factor";
pagelab's journal writes, at every commit, one whole image of each page the transaction changed
plus the header page (as each Voron transaction writes a transaction header page). `pages_*`
are those images per transaction; `bytes_*` are the journal's bytes (each image carries a
32-byte record header, and each commit a 32-byte commit record). Voron's pages are 4 KiB (the
the post's 35,320 pages are its "137MB": 3.9 KiB each), so the post's table stands beside our 4k row.

The database is in memory by default (`directory=None`): the journal only counts, and the cache
is large enough to hold the whole tree, as Voron's memory-mapped data file is. The figures are
the same with a file (`directory=`): only the time differs.

Runs are independent, so they go to `workers` processes (one per core by default); each run's
figures do not depend on how many workers there are, only `seconds` does.
"""

