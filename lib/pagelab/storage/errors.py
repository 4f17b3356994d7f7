"""The storage prototype's own exceptions, all under pagelab's PagelabError so the CLI prints them plainly."""

from __future__ import annotations

from pagelab.common.errors import PagelabError, UsageError


class StorageError(PagelabError):
    """A page file, journal or tree that is damaged, or an I/O the OS refused."""


class JournalSyncError(StorageError):
    """A commit's records were written to the journal but the fsync that makes them durable failed:
    whether the transaction survives a crash is unknown, so the database closes itself and the
    next open's recovery decides."""


class BufferPoolFullError(UsageError):
    """Every frame holds a page that may not leave memory (pinned, or changed by the open transaction).

    A UsageError because the fix is the caller's: a larger cache or smaller transactions."""


class EntryTooLargeError(UsageError):
    """A key or value longer than the page size allows (the message names the limit and the page size)."""
