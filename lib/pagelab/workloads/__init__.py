"""Workloads pagelab runs against a device or a database, each with its own module.

One package per seed, each with `run` (what is measured) and `report` (the tables, the seed's
numbers beside ours under `seed_comparison`, plots); the device's own measurements (fio) live in
pagelab.machine.fio, below both this and pagelab.models.

- `lookups` (the RethinkDB post): builds storage-prototype trees and times cold point lookups with
  O_DIRECT, to check the block-size model against a real B-tree.
- `random_writes` (the Voron post): the cost of random writes (pages written per transaction,
  sequential against random keys) on the storage prototype; its `sqlite` module: the same on
  SQLite's WAL.
- `sqlite` (SQLite's experiment 053): SQLite's benchmarks (large selects, batched writes, transaction reads) at
  page_size 4096 against 8192, with B-tree levels and WAL frames per transaction.
- `ycsb`: the OrientDB proposal's YCSB core workloads (load, A, B, C, D, F) against an InnoDB instance per
  page size or the storage prototype, with YCSB's own output format.
"""
