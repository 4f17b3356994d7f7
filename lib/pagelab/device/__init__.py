"""Measurements of the device itself, below any database: what every model and workload builds on.

- `fio`: random-read IOPS per block size on the data device, measured with fio (QD1, O_DIRECT)
  and cached as a `DeviceProfile` for 30 days; the input of seed 003's block-size model
  (pagelab.models) and the yardstick of the prototype's cold lookups (pagelab.workloads.lookups).
"""
