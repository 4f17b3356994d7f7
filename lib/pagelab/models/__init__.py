"""Analytic models that turn device measurements into predictions about page sizes.

- `blocksize`: the RethinkDB post's B-tree block-size model (hops = log_b N, queries/s = IOPS / hops),
  extended with node fill and a cache budget, and the post's own table to set beside ours.
- `advisor`: the page-size advice behind `pagelab advise`, built on that model and a measured
  `pagelab.machine.device_profile.DeviceProfile`.
"""
