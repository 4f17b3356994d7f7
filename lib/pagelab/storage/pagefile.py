"""The page file: a database file read and written one whole page at a time, every access counted.

    file offset 0           page_size         2*page_size                    n*page_size
    +-----------------------+-----------------+----------------+    +----------------+
    | page 0 (header page)  | page 1          | page 2         | .. | page n-1       |
    +-----------------------+-----------------+----------------+    +----------------+

A page's number is its offset divided by the page size; nothing else is stored outside pages.
Two backends share one interface (`read_page`, `write_page`, `sync`, `page_count`, `counters`):

- `PageFile` keeps the pages in a file and moves them with `os.pread`/`os.pwrite` (one system call
  per page, no Python-level buffering in between, so every counted read is one the kernel saw).
  With `direct_io=True` it opens the file with O_DIRECT, which bypasses the OS page cache: then a
  "read" really goes to the device, which is what a cold-cache page-size experiment must measure.
  O_DIRECT wants the buffer, the offset and the length aligned to the device's logical block, so
  reads and writes go through one buffer allocated with mmap (mmap memory starts on an OS page
  boundary, 4 KiB, which covers every logical block size in use).
- `MemoryPageFile` keeps the pages in a dict: the same counts without a disk, for simulations
  that only want to know how many pages moved.

Page sizes are powers of two from 1 KiB to 64 KiB: 1 KiB is the smallest a B-tree node can be and
still hold the four cells per interior page our key-size rule asks for with useful key lengths;
64 KiB is the largest InnoDB allows and the largest whose in-page offsets fit in 16 bits.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.storage.errors import StorageError
from pagelab.common.units import page_size_label, size_bytes

PAGE_SIZES = tuple(1 << shift for shift in range(10, 17))  # 1 KiB .. 64 KiB
PAGE_SIZE_LABELS = {size: page_size_label(size) for size in PAGE_SIZES}


def check_page_size(page_size: object) -> int:
    """The page size in bytes, or a UsageError naming the allowed sizes.

    Accepts an int (4096) or a label ("4k", "4K", "4096"), as people write them."""
    allowed = ", ".join(PAGE_SIZE_LABELS.values())
    value = page_size
    if isinstance(value, str):
        value = size_bytes(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in PAGE_SIZES:
        raise UsageError(f"page size must be a power of two from 1k to 64k ({allowed}), got {page_size!r}")
    return value


class _Counters:
    """What a page file counts; the same fields for both backends so tables line up."""

    __slots__ = ("reads", "writes", "bytes_read", "bytes_written", "syncs")

    def __init__(self) -> None:
        self.reads = self.writes = self.bytes_read = self.bytes_written = self.syncs = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class _CountedPages:
    """The counting both backends share: whole pages of `page_size` bytes."""

    def __init__(self, page_size: int):
        self.page_size = check_page_size(page_size)
        self._counts = _Counters()

    def count_read(self) -> None:
        """One page read; public because BTree.get's C descent reads without read_page."""
        counts = self._counts
        counts.reads += 1
        counts.bytes_read += self.page_size

    def _count_write(self) -> None:
        counts = self._counts
        counts.writes += 1
        counts.bytes_written += self.page_size

    def counters(self) -> dict[str, int]:
        return self._counts.as_dict()


class MemoryPageFile(_CountedPages):
    """Pages in a dict: the page file's interface and counts, without a disk.

    `sync()` costs nothing but is counted, so a simulation reports the syncs a file would do."""

    direct_io = False
    path = None
    fd = -1  # no file: BTree.get's C descent stops at the first page not in the pool

    def __init__(self, page_size: int):
        super().__init__(page_size)
        self._pages: dict[int, bytes] = {}
        self.read_buffer = bytearray(0)

    @property
    def page_count(self) -> int:
        """Pages in the file: one past the highest page ever written."""
        return max(self._pages, default=-1) + 1

    def read_page(self, page_no: int) -> bytes:
        try:
            data = self._pages[page_no]
        except KeyError:
            raise StorageError(f"page {page_no} was never written (the file has {self.page_count} pages)") from None
        self.count_read()
        return data

    def write_page(self, page_no: int, data: bytes) -> None:
        if len(data) != self.page_size:
            raise StorageError(f"page {page_no}: writing {len(data)} bytes, a page is {self.page_size}")
        self._pages[page_no] = bytes(data)
        self._count_write()

    def sync(self) -> None:
        self._counts.syncs += 1

    def close(self) -> None:
        pass  # the pages stay, so a test can look at what was written


class PageFile(_CountedPages):
    """Pages in a file, moved by pread/pwrite, optionally with O_DIRECT.

    The file is locked (flock) while open: two processes writing one page file without knowing of
    each other would corrupt it, and the second one is told so at once instead."""

    def __init__(self, path: str | os.PathLike, page_size: int, *, direct_io: bool = False, create: bool = True):
        super().__init__(page_size)
        self.path = Path(path)
        self.direct_io = direct_io
        flags = os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT if create else 0)
        if direct_io:
            if not hasattr(os, "O_DIRECT"):
                raise UsageError("direct_io=True needs O_DIRECT, which this OS does not have; open with direct_io=False")
            flags |= os.O_DIRECT
        try:
            self._fd = os.open(self.path, flags, 0o644)
        except OSError as error:
            if direct_io and error.errno == errno.EINVAL:
                raise UsageError(
                    f"the filesystem holding {self.path} refuses O_DIRECT (tmpfs and some network filesystems do); "
                    "put the database on a disk filesystem such as ext4 or xfs, or open it with direct_io=False"
                ) from None
            raise StorageError(f"cannot open page file {self.path}: {error.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            raise UsageError(f"{self.path} is open in another process (or another Database in this one); close it first") from None
        # One aligned buffer for every transfer: O_DIRECT needs it, and reusing it avoids an
        # allocation per page on the buffered path as well.
        self._buffer = mmap.mmap(-1, self.page_size)
        self._buffers = [self._buffer]  # preadv's and pwritev's argument, made once
        self._view = memoryview(self._buffer)

    @property
    def fd(self) -> int:
        """The file's descriptor, -1 once closed. BTree.get's C descent reads through it, into
        `read_buffer`, and reports each read here (count_read) so the counts stay the file's."""
        return self._fd

    @property
    def read_buffer(self) -> mmap.mmap:
        return self._buffer

    @property
    def page_count(self) -> int:
        """Pages in the file; a torn last page (a crash while the file grew) counts as a page."""
        size = os.fstat(self._fd).st_size
        return -(-size // self.page_size)

    def read_page(self, page_no: int) -> bytearray:
        size = self.page_size
        try:
            got = os.preadv(self._fd, self._buffers, page_no * size)
        except OSError as error:
            raise self._io_error("read", page_no, error) from None
        if got != size:
            if got == 0:
                raise StorageError(f"{self.path}: page {page_no} is past the end of the file ({self.page_count} pages)")
            # a page the file only partly holds (a crash while it grew): the rest reads as zeros
            self._view[got:] = bytes(size - got)
        self.count_read()
        return bytearray(self._view)  # the caller's own copy: a page decoder keeps it as the page's bytes

    def write_page(self, page_no: int, data: bytes) -> None:
        if len(data) != self.page_size:
            raise StorageError(f"page {page_no}: writing {len(data)} bytes, a page is {self.page_size}")
        self._view[:] = data
        try:
            written = os.pwritev(self._fd, self._buffers, page_no * self.page_size)
        except OSError as error:
            raise self._io_error("write", page_no, error) from None
        if written != self.page_size:
            raise StorageError(f"{self.path}: short write of page {page_no} ({written} of {self.page_size} bytes; disk full?)")
        self._count_write()

    def sync(self) -> None:
        # fdatasync: the data and the file size, not the modification time, which recovery never reads
        os.fdatasync(self._fd)
        self._counts.syncs += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing also drops the flock
            self._fd = -1
            self._view.release()
            self._buffer.close()

    def _io_error(self, what: str, page_no: int, error: OSError) -> Exception:
        if self.direct_io and error.errno == errno.EINVAL:
            return UsageError(
                f"{self.path}: O_DIRECT {what} of a {self.page_size}-byte page was refused; the device's logical block "
                "is probably larger than the page. Use a larger page size or direct_io=False"
            )
        return StorageError(f"{self.path}: cannot {what} page {page_no}: {error.strerror}")
