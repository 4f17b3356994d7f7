"""The flush before a run starts: it writes out what is pending and says how much that was.

Written on the disk the sweeps write to (data/, as bundles are), not in the temporary directory,
which may be a tmpfs whose pages are never dirty. Another test worker may write or sync at the same
moment, so the pair of checks is tried up to three times: pending before, gone after."""

from __future__ import annotations

import os
import shutil
import tempfile

from pagelab.common.disk import _meminfo_bytes, flush_pending_writes
from pagelab.common.paths import DATA_DIR
from pagelab.common.units import MIB


def test_the_flush_reports_what_was_pending_and_leaves_it_written():
    directory = tempfile.mkdtemp(prefix=".flush-test-", dir=DATA_DIR)
    try:
        seen = []
        for attempt in range(3):
            # 64 MiB written without fsync stays dirty for the kernel's 30 s expiry unless flushed
            with open(os.path.join(directory, f"pending{attempt}"), "wb") as handle:
                handle.write(os.urandom(64 * MIB))
            flushed = flush_pending_writes()
            after = flush_pending_writes()  # what the first left pending: ours is written by now
            seen.append((flushed["dirty_bytes_before"], after["dirty_bytes_before"]))
            if flushed["dirty_bytes_before"] >= 48 * MIB and after["dirty_bytes_before"] < 32 * MIB:
                break
        else:
            raise AssertionError(f"(pending before, pending after) bytes in three tries: {seen}")
        assert flushed["sync_s"] >= 0
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_meminfo_fields_are_read_in_bytes():
    total = _meminfo_bytes("MemTotal")
    assert total > 64 * MIB and total % 1024 == 0
    assert _meminfo_bytes("NoSuchField") == 0
