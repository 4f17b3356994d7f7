"""The database: a page file, a buffer pool, a journal and a B+tree behind one small API.

    Database.open(path, page_size, cache_bytes, direct_io)
        |
        +-- BTree ------------ put / get / delete / scan over slotted pages
        |     |
        +-- BufferPool ------- cache_bytes // page_size frames, InnoDB midpoint LRU, no-steal
        |     |        \\
        +-- PageFile    \\---- Journal: page images + commit record + fsync at every commit
              (file or memory)   (path + "-journal"; counting-only in memory)

On disk a database is two files: the page file at `path` (page 0 is the header page, header.py;
the others are tree pages, slotted.py) and the journal beside it (journal.py). A commit is
durable when the journal's fsync returns; pages reach the page file later, when the pool evicts
them or at a checkpoint, which writes every committed dirty page, syncs the page file and
empties the journal. A checkpoint runs by itself when the journal has grown past
`checkpoint_pages` (1000 pages, SQLite's wal_autocheckpoint) and at close(); in memory, where
the journal keeps nothing that could grow, only when asked for. Opening a database
replays the journal's committed transactions first (recovery), so a crash at any instant loses
at most the transaction whose commit had not returned, and never leaves part of one.

Transactions: `with db.transaction(): ...` commits when the block ends and rolls back if it
raises. put() and delete() outside a block are transactions of their own (autocommit). The
buffer pool keeps every page an open transaction changed in memory (no-steal), so a rollback
is the pool forgetting those pages; a transaction therefore cannot change more pages than the
pool has frames. Transactions do not nest, and a Database is for one thread at a time. Ctrl-C
inside a block rolls it back; during a commit on disk it takes effect once the commit has
finished (see _commit), so what this process saw committed is what a crash recovers.

In memory (`path=None` or `in_memory=True`) the page file is a dict and the journal only
counts: the same page reads, writes and journal figures, without a disk, for simulations.

This module is the API: opening, the key-value operations and transactions. Beside it:
dbfiles.py (what a new database's files hold, created whole or not at all, the length check
after recovery, the pool's page decoder), heldsignals.py (Ctrl-C held during a commit) and
dbfigures.py (stats, counters and the InnoDB printout, mixed into Database).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from pagelab.common.errors import UsageError
from pagelab.common.units import MIB, parse_size
from pagelab.storage.btree import BTree
from pagelab.storage.bufferpool import BufferPool
from pagelab.storage.dbfigures import DatabaseFigures
from pagelab.storage.dbfiles import (
    FIRST_ROOT_PAGE,
    JOURNAL_SUFFIX,
    check_file_length,
    create_file,
    decode_database_page,
    new_meta,
)
from pagelab.storage.errors import EntryTooLargeError, JournalSyncError, StorageError
from pagelab.storage.header import HEADER_BYTES, HEADER_PAGE_NO, MAGIC, HeaderPage, TreeMeta, read_header
from pagelab.storage.heldsignals import signals_held
from pagelab.storage.journal import Journal, RecoveryReport
from pagelab.storage.lru import OLD_BLOCKS_PCT, OLD_BLOCKS_TIME_MS
from pagelab.storage.pagefile import MemoryPageFile, PageFile, check_page_size

DEFAULT_PAGE_SIZE = 8192  # SQLite's and PostgreSQL's choice, between InnoDB's 16k and LMDB's 4k
DEFAULT_CACHE_BYTES = 8 * MIB  # 8 MiB: InnoDB's smallest buffer pool is 5 MiB, SQLite's default cache ~2 MiB
DEFAULT_CHECKPOINT_PAGES = 1000  # SQLite's wal_autocheckpoint default
_CLOSED = "the database is closed; open it again with Database.open"


def _as_bytes(value: Any, what: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):  # bytes: a subclass of it
        return bytes(value)
    raise UsageError(f"{what} must be bytes, got {type(value).__name__}" + (" (encode it, e.g. s.encode())" if isinstance(value, str) else ""))


class Database(DatabaseFigures):
    """A key-value store of byte strings; open one with Database.open (see the module docstring)."""

    def __init__(self, *, pagefile, journal: Journal, pool: BufferPool, meta: TreeMeta, cache_bytes: int,
                 checkpoint_pages: int, recovery: RecoveryReport, path: Path | None):
        self.path = path
        self.page_size = pagefile.page_size
        self.cache_bytes = cache_bytes
        self.checkpoint_pages = checkpoint_pages
        self.recovery = recovery
        self._pagefile = pagefile
        self._journal = journal
        self._pool = pool
        self._meta = meta
        self._committed_meta = meta.copy()
        self._tree = BTree(pool, meta)
        self._in_txn = False
        self._txn_failure: BaseException | None = None
        self._checkpoints = 0
        self._closed = False

    # -- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike | None = None,
        page_size: int | str | None = None,
        cache_bytes: int | str = DEFAULT_CACHE_BYTES,
        direct_io: bool = False,
        in_memory: bool = False,
        *,
        synchronous: bool = True,
        checkpoint_pages: int = DEFAULT_CHECKPOINT_PAGES,
        old_blocks_pct: int = OLD_BLOCKS_PCT,
        old_blocks_time_ms: float = OLD_BLOCKS_TIME_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> Database:
        """Open (or create) a database.

        page_size     bytes per page, 1k..64k (powers of two); fixed at creation. None: 8192 for a
                      new database, the file's own for an existing one; any other value must
                      match the file's.
        cache_bytes   the buffer pool's budget in bytes, or a size such as "64M"; it holds
                      cache_bytes // page_size pages (at least 8)
        direct_io     O_DIRECT on the page file, so reads miss the OS cache too (cold-cache tests)
        in_memory     (or path=None) pages in a dict, a counting-only journal
        synchronous   fsync the journal at commit; False survives a killed process (the OS keeps
                      the written bytes) but not a power cut, like SQLite's synchronous=OFF
        checkpoint_pages  checkpoint when the journal holds this many pages (on disk only)
        old_blocks_pct, old_blocks_time_ms, clock   the buffer pool's LRU settings (lru.py)
        """
        # Every setting is checked before any file is created or opened.
        if isinstance(checkpoint_pages, bool) or not isinstance(checkpoint_pages, int) or checkpoint_pages < 1:
            raise UsageError(f"checkpoint_pages must be a whole number >= 1, got {checkpoint_pages!r}")
        cache_bytes = parse_size(cache_bytes, "cache_bytes")
        pool_options = {"old_blocks_pct": old_blocks_pct, "old_blocks_time_ms": old_blocks_time_ms, "clock": clock}
        if page_size is not None:
            page_size = check_page_size(page_size)
        if path is None or in_memory:
            if path is not None:
                raise UsageError(f"in_memory=True with a path ({path}): give one or the other")
            # (the pool checks its settings as it is made: nothing outside memory exists before it)
            return cls._open_in_memory(page_size or DEFAULT_PAGE_SIZE, cache_bytes, checkpoint_pages, pool_options)
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise UsageError(f"path must be a file name (str or pathlib.Path), got {path!r}")
        path = Path(path)
        if path.is_dir():
            raise UsageError(f"{path} is a directory; give the database's file name, e.g. {path / 'pagelab.db'}")
        journal_path = path.with_name(path.name + JOURNAL_SUFFIX)
        if not path.exists() or path.stat().st_size == 0:
            page_size = page_size or DEFAULT_PAGE_SIZE
            BufferPool.check_settings(page_size, cache_bytes, old_blocks_pct, old_blocks_time_ms)
            create_file(path, journal_path, page_size)
        with open(path, "rb") as handle:
            head = handle.read(HEADER_BYTES)
        try:
            file_page_size, _ = read_header(head, str(path))
        except StorageError:
            # A header page torn by a crash while it was written in place: the journal holds its
            # last committed image (it was dirty, so committed since the last checkpoint), and
            # recovery below puts it back. Only the page size is needed before that.
            file_page_size = Journal.page_size_of(journal_path)
            if file_page_size is None or head[:8] != MAGIC:
                raise
        if page_size is not None and page_size != file_page_size:
            raise UsageError(
                f"{path} was created with {file_page_size}-byte pages and cannot be opened with page_size="
                f"{page_size}: the page size is fixed when a database is created. Open it with "
                f"page_size={file_page_size} (or None), or create a new database"
            )
        BufferPool.check_settings(file_page_size, cache_bytes, old_blocks_pct, old_blocks_time_ms)
        pagefile = PageFile(path, file_page_size, direct_io=direct_io, create=False)
        journal = None
        try:
            journal = Journal(journal_path, file_page_size, synchronous=synchronous)
            recovery = journal.recover(pagefile)
            pool = BufferPool(pagefile, cache_bytes, decode=decode_database_page, no_steal=True, **pool_options)
            meta = pool.fetch(HEADER_PAGE_NO).meta.copy()
            check_file_length(path, file_page_size, meta)
        except BaseException:
            if journal is not None:
                journal.close()
            pagefile.close()
            raise
        return cls(pagefile=pagefile, journal=journal, pool=pool, meta=meta, cache_bytes=cache_bytes,
                   checkpoint_pages=checkpoint_pages, recovery=recovery, path=path)

    @classmethod
    def _open_in_memory(cls, page_size: int, cache_bytes: int, checkpoint_pages: int, pool_options: dict) -> Database:
        pagefile = MemoryPageFile(page_size)
        meta = new_meta()
        pagefile.write_page(HEADER_PAGE_NO, HeaderPage(page_size, meta.copy()).image())
        pagefile.write_page(FIRST_ROOT_PAGE, BTree.create_root(page_size, FIRST_ROOT_PAGE).image())
        pool = BufferPool(pagefile, cache_bytes, decode=decode_database_page, no_steal=True, **pool_options)
        return cls(pagefile=pagefile, journal=Journal(None, page_size), pool=pool, meta=meta, cache_bytes=cache_bytes,
                   checkpoint_pages=checkpoint_pages, recovery=RecoveryReport(), path=None)

    # -- the key-value API ------------------------------------------------------------------------

    @property
    def max_key_bytes(self) -> int:
        return self._tree.max_key_bytes

    @property
    def max_value_bytes(self) -> int:
        return self._tree.max_value_bytes

    def put(self, key: bytes, value: bytes) -> None:
        """Insert or replace. EntryTooLargeError (naming the limit) for an oversized key or value."""
        if key.__class__ is not bytes:
            key = _as_bytes(key, "key")
        if value.__class__ is not bytes:
            value = _as_bytes(value, "value")
        if self._in_txn and self._txn_failure is None:  # the common case, kept short
            try:
                self._tree.put(key, value)
            except EntryTooLargeError:
                raise
            except BaseException as failure:
                self._txn_failure = failure
                raise
        else:
            self._change(self._tree.put, key, value)

    def delete(self, key: bytes) -> bool:
        """Remove a key; False if it was not there."""
        if key.__class__ is not bytes:
            key = _as_bytes(key, "key")
        return self._change(self._tree.delete, key)

    def get(self, key: bytes, default: bytes | None = None) -> bytes | None:
        if self._closed or self._txn_failure is not None:  # one test on the hot path of every lookup bench
            self._check_usable()
        if key.__class__ is not bytes:
            key = _as_bytes(key, "key")
        value = self._tree.get(key)
        return default if value is None else value

    def __contains__(self, key: bytes) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return self._meta.key_count

    def scan(self, start: bytes | None = None, end: bytes | None = None, *, end_inclusive: bool = False
             ) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) pairs with start <= key < end (<= end if end_inclusive), in key order;
        None leaves that side open."""
        self._check_usable()
        start = start if start is None or start.__class__ is bytes else _as_bytes(start, "start")
        end = end if end is None or end.__class__ is bytes else _as_bytes(end, "end")
        return self._tree.scan(start, end, end_inclusive=end_inclusive, before_next_leaf=self._check_still_open)

    def _check_still_open(self) -> None:
        if self._closed:  # the pages are gone with the files: say so rather than fail inside the tree
            raise UsageError("the database was closed during a scan; finish the scan (or list() it) before close()")

    def _check_open(self) -> None:
        if self._closed:
            raise UsageError(_CLOSED)

    def _check_usable(self) -> None:
        """For reads: the database is open, and no operation of the open transaction failed (that
        one may have stopped half way through a split, so the tree may not find what it holds)."""
        self._check_open()
        if self._txn_failure is not None:
            raise UsageError(f"an earlier operation in this transaction failed ({self._txn_failure!r}), so reads "
                             "inside it are refused; the transaction rolls back when its block ends")

    def _change(self, operation: Callable, *args: bytes) -> Any:
        if self._in_txn:
            if self._txn_failure is not None:
                raise UsageError("an earlier operation in this transaction failed; the transaction will be rolled back")
            try:
                return operation(*args)
            except EntryTooLargeError:
                raise  # refused before anything changed: the transaction can go on
            except BaseException as failure:
                self._txn_failure = failure  # the tree may be half way through a split
                raise
        self._begin()
        try:
            result = operation(*args)
            self._commit()
        finally:
            if self._in_txn:  # not committed, whatever was raised and wherever (see _commit)
                self._rollback()
        return result

    # -- transactions -----------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """Commit when the block ends, roll back if it raises."""
        self._begin()
        try:
            yield self
            if self._closed:
                raise UsageError("the database was closed inside the transaction, which rolled it back; "
                                 "close it after the with block")
            if self._txn_failure is not None:
                raise UsageError(f"the transaction was rolled back because an operation in it failed: "
                                 f"{self._txn_failure!r}")
            self._commit()
        finally:
            if self._in_txn:  # not committed, whatever was raised and wherever (see _commit)
                self._rollback()

    @property
    def in_transaction(self) -> bool:
        return self._in_txn

    def _begin(self) -> None:
        self._check_open()
        if self._in_txn:
            raise UsageError("transactions do not nest: a transaction is already open on this database")
        self._txn_failure = None
        self._in_txn = True  # last: an interrupt before this leaves no transaction to roll back

    def _commit(self) -> None:
        """Commit the open transaction. On any failure it is still open, and the caller rolls it
        back: `_in_txn` turns False only when a commit or a rollback has finished, which is how
        transaction() and autocommit know, in their `finally`, whether to roll back."""
        pool = self._pool
        # Once a commit's records are in the journal file, recovery after a crash replays them, so
        # the commit must finish in memory too: rolled back here, the next commit would reuse its
        # transaction id and recovery, which stops at an id that does not go up, would drop every
        # commit after it. So Ctrl-C (or SIGTERM) during a commit takes effect when it has finished.
        with signals_held() if self._journal.durable else nullcontext():
            if pool.transaction_pages():
                meta = self._meta
                meta.last_txn_id += 1
                header = pool.fetch(HEADER_PAGE_NO)
                pool.mark_dirty(header)
                header.meta = meta.copy()
                try:
                    self._journal.commit(meta.last_txn_id, pool.transaction_pages())
                except JournalSyncError as error:
                    self.close(checkpoint=False)  # as after a crash: nothing more is written
                    raise JournalSyncError(f"{error}; the database is closed. Open it again: recovery keeps "
                                           "the transaction if its records reached the disk") from None
                pool.end_transaction()
                self._committed_meta = meta.copy()
            self._in_txn = False
        if self._journal.durable and self._journal.pages_since_reset >= self.checkpoint_pages:
            self.checkpoint()

    def _rollback(self) -> None:
        with signals_held():  # a second Ctrl-C must not leave the pool half restored
            self._pool.rollback()
            committed = self._committed_meta
            meta = self._meta  # the tree holds this object: restore it in place
            meta.page_count, meta.root, meta.depth = committed.page_count, committed.root, committed.depth
            meta.key_count, meta.last_txn_id = committed.key_count, committed.last_txn_id
            self._tree.version += 1
            self._txn_failure = None
            self._in_txn = False

    def checkpoint(self) -> int:
        """Write every committed dirty page in place, sync the page file, empty the journal.
        Returns the pages written."""
        self._check_open()
        if self._in_txn:
            raise UsageError("checkpoint() inside a transaction: commit or roll back first")
        written = self._pool.flush_dirty()
        self._pagefile.sync()
        self._journal.reset()
        self._checkpoints += 1
        return written

    def close(self, checkpoint: bool = True) -> None:
        """Close the files. An open transaction is rolled back. With checkpoint=False the journal
        is left for the next open to replay, as after a crash (quicker to close, slower to open)."""
        if self._closed:
            return
        try:
            if self._in_txn:
                self._rollback()
            if checkpoint:
                self.checkpoint()
        finally:
            self._closed = True
            self._journal.close()
            self._pagefile.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.path or "memory"
        return f"<Database {where} page_size={self.page_size} keys={self._meta.key_count} depth={self._meta.depth}>"

