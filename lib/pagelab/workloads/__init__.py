"""Workloads pagelab runs against a device or a database, each with its own module.

- `fio`: random-read IOPS per block size on the data device, measured with fio and cached as a
  `DeviceProfile` (the input of seed 003's block-size model, `pagelab.models.blocksize`).
- `point_lookups`: builds storage-prototype trees and times cold point lookups with O_DIRECT,
  to check seed 003's model against a real B-tree.
- `random_writes`: seed 004's cost of random writes (pages written per transaction, sequential
  against random keys) on the storage prototype; `sqlite_writes`: the same on SQLite's WAL.
"""
