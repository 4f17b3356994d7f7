"""The RethinkDB post: cold random point lookups on the storage prototype, the model checked against a real tree.

`build` builds the trees, `run` measures them; `report` shows the results beside the model.

The RethinkDB post (RethinkDB) predicts point queries per second as IOPS(block size) / hops. This module
builds the thing the model describes, a B+tree on disk (`pagelab.storage`), and counts and times
what a lookup really does:

    build_tree(path, page_size, n_keys)          insert n_keys keys (random order by default) in
                                                 batched transactions; returns a `BuiltTree`:
                                                 depth, pages per level, measured fill
    measure_point_lookups(path, page_size, n)    reopen it cold (a fresh Database, O_DIRECT, a
                                                 small buffer pool) and time n random gets;
                                                 returns a `LookupResult`: lookups/s, page reads
                                                 per lookup, and the predictions
                                                     fio IOPS / measured reads per lookup
                                                     fio IOPS / the model's hops
                                                 with the ratios measured / predicted (the
                                                 goal: >= 0.8 at 4k and 16k)
    measured_fill(page_size, ...)                node fill after random inserts (in memory), the
                                                 number the RethinkDB post's edit says the model lacks
    prototype_capacity                           the model's NodeCapacity from the prototype's real
                                                 slotted-page layout (cells per full leaf/interior)
    lookup_check, fill_table, extended_model_table, plots
                                                 what the notebook btree_block_size_model.ipynb
                                                 and bench/bench_lookups.py call

Keys and values. Key i is `i` as a big-endian integer of `key_bytes` bytes, so key order is
numeric order and any i < n_keys can be looked up without storing the key list; the value is
`i` in `value_bytes` bytes (modulo 256**value_bytes). Random order inserts a seeded permutation
of 0..n_keys-1; lookups pick keys uniformly with their own seed, so every lookup hits.

What "cold" means here. A new `Database` object has an empty buffer pool, and with `direct_io`
its page file is opened with O_DIRECT, so a page not in the pool is read from the device, not
from the OS page cache. The build ends with `os.sync()` so that its write-back does not compete
with the lookups. The pool is kept small (by default the prototype's minimum, 8 pages): it
holds a few hot interior pages, which is why reads per lookup come out somewhat below the depth.
The prediction therefore divides by the *measured* reads per lookup, which isolates what the
goal is about: the prototype's own time per lookup beside the device's. The model's hops (with
the prototype's page capacity and measured fill, and the same cache budget kept as the model's
ideal top-of-tree cache) are reported beside it.

Two diagnostics come with each measurement, because the shared virtual disk's speed drifts
(advisor.TIE_TOLERANCE's note: runs differ by 4-60%) and because the prototype's overhead is
worth locating:

- `pread_iops`: random O_DIRECT preads of whole pages from the same file, from Python, right
  before the lookups: the device as it is at that moment, through the same system call.
- `decode_us_per_page`: the CPU time to turn one page image into the prototype's page object
  (`nodes.decode_tree_page`), averaged over pages of the file. Only the header and the slot
  array are unpacked (keys are decoded lazily), so this hardly grows with the page size.

And one optional check (`fio_beside_s`), which bench/bench_lookups.py uses: fio itself reading
the same database file, QD1 and O_DIRECT as in the profile, for a few seconds just before and
just after the lookups. Its mean is the fairest denominator for the goal: same device, same
file, same minutes.
"""

