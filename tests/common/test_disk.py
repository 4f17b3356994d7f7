"""The flush before a run starts: it writes out what is pending and says how much that was."""

from __future__ import annotations

import os

from pagelab.common.disk import _meminfo_bytes, flush_pending_writes
from pagelab.common.units import MIB


def test_the_flush_reports_what_was_pending_and_leaves_it_written(tmp_path):
    # 64 MiB written without fsync stays dirty for the kernel's 30 s expiry unless flushed
    with open(tmp_path / "pending", "wb") as handle:
        handle.write(os.urandom(64 * MIB))
    flushed = flush_pending_writes()
    assert flushed["dirty_bytes_before"] >= 32 * MIB, flushed
    assert flushed["sync_s"] >= 0
    # what was ours is written: what is still pending is less than what we left
    assert _meminfo_bytes("Dirty") + _meminfo_bytes("Writeback") < 32 * MIB


def test_meminfo_fields_are_read_in_bytes():
    total = _meminfo_bytes("MemTotal")
    assert total > 64 * MIB and total % 1024 == 0
    assert _meminfo_bytes("NoSuchField") == 0
