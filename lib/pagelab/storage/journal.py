"""The journal: a write-ahead log of whole page images, one batch per committed transaction.

A transaction's changed pages are not written in place at commit. Their images go to the end
of the journal, followed by a commit record, and one fsync makes the lot durable; that is the
commit. Only then may the pages be written to the page file (by eviction or a checkpoint), and
only after a checkpoint has written and synced every such page may the journal start over. This
is how Voron commits, and why its write cost is counted in journal pages: the journal write is
the one the transaction waits for.

    journal file
    +---------+------------------+------------------+-----+-------------+------------------+--
    | journal | page record      | page record      | ... | commit      | page record      |
    | header  | txn 7, page 12   | txn 7, page 0    |     | record      | txn 8, page 40   | ...
    | 32 B    | 32 B + one page  | 32 B + one page  |     | txn 7, 32 B | 32 B + one page  |
    +---------+------------------+------------------+-----+-------------+------------------+--

    journal header (32 bytes)
      0 magic "pljrnl\\0\\0" (8) | 8 format version u32 | 12 page size u32 | 16 salt u64 |
     24 crc32 of bytes 0..24 u32 | 28 zero u32

    record header (32 bytes), then, for a page record, the page image
      0 kind u8 (1 page, 2 commit) | 1..3 zero | 4 page number (page) or page count (commit) u32 |
      8 transaction id u64 | 16 salt u64 | 24 crc32 u32 | 28 zero u32

    page record crc32    over the record header's first 24 bytes and the image
    commit record crc32  over its first 24 bytes and the crc32s of the transaction's page records,
                         so a commit record vouches for exactly those pages, all intact

The salt is a random number written in the header each time the journal starts over, and in
every record. Truncating a file is not atomic with the writes that follow: after a crash, bytes
of an older generation can sit after the newest records. Their salt differs, so recovery stops
there instead of replaying them (SQLite's WAL uses salts the same way).

Recovery reads records in order and replays a transaction's images only when its commit record
is there, intact, with the right count and checksum, and a transaction id above the last one
replayed. It stops at the first record that fails any check: everything after a torn or missing
write is an uncommitted tail. Then it syncs the page file and starts a new journal.

Without a path the journal only counts (the in-memory database): the pages and bytes a durable
journal would have written, with no images kept and no syncs paid.
"""

from __future__ import annotations

import os
import struct
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pagelab.storage.errors import JournalSyncError, StorageError
from pagelab.storage.frames import Frame

JOURNAL_MAGIC = b"pljrnl\x00\x00"
JOURNAL_VERSION = 1
PAGE_RECORD = 1
COMMIT_RECORD = 2
_HEADER = struct.Struct("<8sIIQ")  # magic, version, page size, salt: 24 bytes, then crc32 and 4 zero bytes
_RECORD = struct.Struct("<BxxxIQQ")  # kind, page number or count, transaction id, salt: 24 bytes
_CRC_TAIL = struct.Struct("<II")  # crc32, zero
HEADER_SIZE = 32  # a round size; the 4 spare bytes keep records 8-byte aligned
RECORD_HEADER_SIZE = 32


@dataclass
class RecoveryReport:
    """What opening a journal after a crash found and did."""

    transactions: int = 0  # committed transactions replayed into the page file
    pages: int = 0  # page images written by the replay
    dropped_bytes: int = 0  # bytes after the last complete commit (an uncommitted or torn tail)
    last_txn_id: int = 0


class Journal:
    """Write-ahead journal of page images for one page file (see the module docstring).

    commit(txn_id, frames)  write the frames' images and a commit record, then sync
    recover(pagefile)       replay committed transactions, then start a new journal
    reset()                 start over (after a checkpoint has synced the page file)
    """

    def __init__(self, path: str | os.PathLike | None, page_size: int, *, synchronous: bool = True):
        self.path = Path(path) if path is not None else None
        self.page_size = page_size
        self.synchronous = synchronous
        self.salt = 0
        self._fd = -1
        self._end = 0
        self.pages_since_reset = 0
        self.syncs = 0
        self.resets = 0
        self.bytes_written = 0
        self.pages_written = 0
        # per committed transaction (arrays: millions of rows stay compact)
        self._txn_ids = array("q")
        self._txn_pages = array("q")
        self._txn_bytes = array("q")
        if self.path is not None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)

    @property
    def durable(self) -> bool:
        return self._fd >= 0

    # -- commit -----------------------------------------------------------------------------------

    def commit(self, txn_id: int, frames: Sequence[Frame]) -> int:
        """Journal one transaction's pages; returns the bytes written. Durable when this returns
        (if synchronous): the caller may then let the pages reach the page file."""
        size = len(frames) * (RECORD_HEADER_SIZE + self.page_size) + RECORD_HEADER_SIZE
        if self._fd >= 0:
            self._write_transaction(txn_id, frames)
        self.pages_since_reset += len(frames)
        self.pages_written += len(frames)
        self.bytes_written += size
        self._txn_ids.append(txn_id)
        self._txn_pages.append(len(frames))
        self._txn_bytes.append(size)
        return size

    def _write_transaction(self, txn_id: int, frames: Sequence[Frame]) -> None:
        salt = self.salt
        out = bytearray()
        crcs = array("I")
        for frame in frames:
            image = frame.image()
            if len(image) != self.page_size:
                raise StorageError(f"page {frame.page_no}: image of {len(image)} bytes, pages are {self.page_size}")
            head = _RECORD.pack(PAGE_RECORD, frame.page_no, txn_id, salt)
            crc = zlib.crc32(image, zlib.crc32(head))
            crcs.append(crc)
            out += head
            out += _CRC_TAIL.pack(crc, 0)
            out += image
        head = _RECORD.pack(COMMIT_RECORD, len(frames), txn_id, salt)
        out += head
        out += _CRC_TAIL.pack(zlib.crc32(_crc_list_bytes(crcs), zlib.crc32(head)), 0)
        try:
            written = os.pwrite(self._fd, out, self._end)
        except OSError as error:
            raise StorageError(f"{self.path}: cannot write to the journal: {error.strerror}") from None
        if written != len(out):  # no whole commit record: recovery will not replay these bytes
            raise StorageError(f"{self.path}: short journal write ({written} of {len(out)} bytes; disk full?)")
        self._end += written
        if self.synchronous:
            try:
                os.fdatasync(self._fd)
            except OSError as error:
                # The records are in the file, so a crash now may or may not keep them: neither
                # rolling back nor going on is safe (the OS may have dropped the pages it failed to
                # write). The caller must stop; reopening lets recovery decide.
                raise JournalSyncError(
                    f"{self.path}: the journal could not be synced after writing transaction {txn_id} "
                    f"({error.strerror})"
                ) from None
            self.syncs += 1

    # -- starting over and recovery ---------------------------------------------------------------

    def reset(self) -> None:
        """Empty the journal under a new salt. Only after the page file holds (and has synced)
        every page the journal holds."""
        self.pages_since_reset = 0
        self.resets += 1
        if self._fd < 0:
            return
        self.salt = int.from_bytes(os.urandom(8), "little")
        os.ftruncate(self._fd, 0)
        head = _HEADER.pack(JOURNAL_MAGIC, JOURNAL_VERSION, self.page_size, self.salt)
        header = head + _CRC_TAIL.pack(zlib.crc32(head), 0)
        os.pwrite(self._fd, header, 0)
        self._end = HEADER_SIZE
        if self.synchronous:
            os.fdatasync(self._fd)
            self.syncs += 1

    def recover(self, pagefile) -> RecoveryReport:
        """Replay every intact committed transaction into `pagefile`, sync it, start a new journal."""
        report = RecoveryReport()
        if self._fd < 0:
            return report
        size = os.fstat(self._fd).st_size
        salt = self._read_header(size)
        position = HEADER_SIZE
        if salt is not None:
            position = self._replay(pagefile, salt, size, report)
            if report.pages:
                pagefile.sync()
        report.dropped_bytes = max(0, size - position) if salt is not None else 0
        self.reset()
        return report

    def _read_header(self, size: int) -> int | None:
        if size < HEADER_SIZE:
            return None  # empty, or the header of a new journal was torn: nothing was committed in it
        raw = os.pread(self._fd, HEADER_SIZE, 0)
        magic, version, page_size, salt = _HEADER.unpack_from(raw, 0)
        crc, _ = _CRC_TAIL.unpack_from(raw, _HEADER.size)
        if magic != JOURNAL_MAGIC or crc != zlib.crc32(raw[: _HEADER.size]):
            return None  # a torn header: it is only ever written after a checkpoint, so nothing is lost
        if version != JOURNAL_VERSION:
            raise StorageError(f"{self.path} has journal format {version}; this pagelab reads {JOURNAL_VERSION}")
        if page_size != self.page_size:
            raise StorageError(f"{self.path} holds {page_size}-byte pages but its database has {self.page_size}-byte pages")
        return salt

    def _replay(self, pagefile, salt: int, size: int, report: RecoveryReport) -> int:
        """Apply committed transactions; returns the offset just past the last one applied."""
        position = applied_end = HEADER_SIZE
        pending: list[tuple[int, bytes]] = []
        crcs = array("I")
        pending_txn = None
        last_txn = -1
        while position + RECORD_HEADER_SIZE <= size:
            raw = os.pread(self._fd, RECORD_HEADER_SIZE, position)
            kind, number, txn_id, record_salt = _RECORD.unpack_from(raw, 0)
            crc, _ = _CRC_TAIL.unpack_from(raw, _RECORD.size)
            if record_salt != salt or txn_id <= last_txn or (pending_txn is not None and txn_id != pending_txn):
                break
            if kind == PAGE_RECORD:
                image = os.pread(self._fd, self.page_size, position + RECORD_HEADER_SIZE)
                if len(image) != self.page_size or crc != zlib.crc32(image, zlib.crc32(raw[: _RECORD.size])):
                    break
                pending.append((number, image))
                crcs.append(crc)
                pending_txn = txn_id
                position += RECORD_HEADER_SIZE + self.page_size
            elif kind == COMMIT_RECORD:
                expected = zlib.crc32(_crc_list_bytes(crcs), zlib.crc32(raw[: _RECORD.size]))
                if number != len(pending) or crc != expected:
                    break
                for page_no, image in pending:
                    pagefile.write_page(page_no, image)
                report.transactions += 1
                report.pages += len(pending)
                report.last_txn_id = txn_id
                last_txn = txn_id
                pending, crcs, pending_txn = [], array("I"), None
                position += RECORD_HEADER_SIZE
                applied_end = position
            else:
                break
        return applied_end

    @staticmethod
    def page_size_of(path: str | os.PathLike) -> int | None:
        """The page size an intact journal header names, or None (no journal, or a torn header).

        Lets a database whose header page was torn in the page file learn its page size from
        the journal, which holds the header page's last committed image."""
        try:
            with open(path, "rb") as handle:
                raw = handle.read(HEADER_SIZE)
        except FileNotFoundError:
            return None
        if len(raw) < HEADER_SIZE:
            return None
        magic, version, page_size, _ = _HEADER.unpack_from(raw, 0)
        crc, _ = _CRC_TAIL.unpack_from(raw, _HEADER.size)
        if magic != JOURNAL_MAGIC or version != JOURNAL_VERSION or crc != zlib.crc32(raw[: _HEADER.size]):
            return None
        return page_size

    # -- counts -----------------------------------------------------------------------------------

    def counters(self) -> dict[str, int]:
        return {
            "transactions": len(self._txn_ids),
            "pages_written": self.pages_written,
            "bytes_written": self.bytes_written,
            "syncs": self.syncs,
            "resets": self.resets,
            "pages_since_reset": self.pages_since_reset,
        }

    def transaction_log(self) -> dict[str, array]:
        """Per committed transaction: txn_id, pages, bytes (columns of equal length)."""
        return {"txn_id": self._txn_ids, "pages": self._txn_pages, "bytes": self._txn_bytes}

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _crc_list_bytes(crcs: array) -> bytes:
    values = array("I", crcs)
    if values.itemsize != 4:  # pragma: no cover - "I" is 4 bytes on every platform CPython supports
        raise StorageError("unsigned int is not 4 bytes on this platform")
    if struct.pack("=I", 1) != struct.pack("<I", 1):
        values.byteswap()
    return values.tobytes()
