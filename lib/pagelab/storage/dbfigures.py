"""What a Database reports: the tree's shape and its check, every count of its parts in one flat
dict (and as pandas frames for the notebooks), and the buffer pool as InnoDB prints it.

    stats()                  depth, pages per level, fill (BTree.stats)
    check()                  the tree's invariants, StorageError naming the first broken one
    counters()               page file (file_*), buffer pool (pool_*), journal (journal_*), tree
    counters_frame()         counters() as a one-row DataFrame
    transaction_log_frame()  one row per committed transaction
    innodb_status_text()     BufferPool.innodb_status_text (poolfigures.py)

DatabaseFigures is mixed into Database (database.py), whose parts it reads.
"""

from __future__ import annotations

from typing import Any


class DatabaseFigures:
    """The figures a Database reports (see the module doc)."""

    def stats(self) -> dict:
        """The tree's shape: depth, pages per level, fill (see BTree.stats)."""
        self._check_open()
        return self._tree.stats()

    def check(self) -> None:
        """Verify the tree's invariants; StorageError naming the first broken one."""
        self._check_open()
        self._tree.check()

    def counters(self) -> dict[str, Any]:
        """Every count in one flat dict: page file, buffer pool, journal, tree."""
        out: dict[str, Any] = {
            "page_size_bytes": self.page_size,
            "cache_bytes": self.cache_bytes,
            "backend": "memory" if self.path is None else ("file+O_DIRECT" if self._pagefile.direct_io else "file"),
        }
        out.update({f"file_{name}": value for name, value in self._pagefile.counters().items()})
        out.update({f"pool_{name}": value for name, value in self._pool.counters().items()})
        out.update({f"journal_{name}": value for name, value in self._journal.counters().items()})
        out.update({
            "checkpoints": self._checkpoints,
            "recovered_transactions": self.recovery.transactions,
            "tree_depth": self._meta.depth,
            "tree_keys": self._meta.key_count,
            "tree_pages_allocated": self._meta.page_count,
            "last_txn_id": self._meta.last_txn_id,
        })
        return out

    def counters_frame(self):
        """counters() as a one-row pandas DataFrame (rows from several databases concat cleanly)."""
        import pandas as pd

        return pd.DataFrame([self.counters()])

    def transaction_log_frame(self):
        """One row per committed transaction: txn_id, pages and bytes written to the journal."""
        import pandas as pd

        log = self._journal.transaction_log()
        return pd.DataFrame({name: list(column) for name, column in log.items()}, columns=["txn_id", "pages", "bytes"])

    def innodb_status_text(self) -> str:
        """The buffer pool as InnoDB's BUFFER POOL AND MEMORY section (BufferPool.innodb_status_text)."""
        return self._pool.innodb_status_text()
