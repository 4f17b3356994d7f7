"""Workloads pagelab runs against a device or a database, each with its own module.

- `fio`: random-read IOPS per block size on the data device, measured with fio and cached as a
  `DeviceProfile` (the input of seed 003's block-size model, `pagelab.models.blocksize`).
- `point_lookups`: builds storage-prototype trees and times cold point lookups with O_DIRECT,
  to check seed 003's model against a real B-tree.
- `random_writes`: seed 004's cost of random writes (pages written per transaction, sequential
  against random keys) on the storage prototype; `sqlite_writes`: the same on SQLite's WAL.
- `sqlite_bench`: seed 001's SQLite benchmarks (large selects, batched writes, transaction
  reads) at page_size 4096 against 8192, with B-tree levels and WAL frames per transaction.
- `ycsb`: seed 000's YCSB core workloads (load, A, B, C, D, F) against an InnoDB instance per
  page size or the storage prototype, with YCSB's own output format.
"""
