"""Workloads pagelab runs against a device or a database, each with its own module.

- `fio`: random-read IOPS per block size on the data device, measured with fio and cached as a
  `DeviceProfile` (the input of seed 003's block-size model, `pagelab.models.blocksize`).
"""
