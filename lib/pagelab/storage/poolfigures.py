"""What the buffer pool reports: its counters, and its state as InnoDB prints it.

counters()            totals since the pool was made (gets, misses, the hit ratio, made young /
                      not young, evictions, pages created and written) and its current shape
                      (free, resident, old and dirty pages)
innodb_status_text()  the BUFFER POOL AND MEMORY section of `SHOW ENGINE INNODB STATUS`, framed
                      as the whole status so pagelab's parser of a server's status reads the
                      prototype's unchanged; rates over the time since the previous call

PoolFigures is mixed into BufferPool (bufferpool.py), whose counters and lists it reads; the
printout's rates start from the `_last_printout` BufferPool.__init__ takes with `_snapshot()`.
"""

from __future__ import annotations

import datetime


class PoolFigures:
    """The pool's counters and InnoDB's printout of them (see the module doc)."""

    def _snapshot(self) -> dict[str, float]:
        return {
            "time": self._clock(),
            "gets": self.gets,
            "misses": self.misses,
            "made_young": self.made_young,
            "not_young": self.not_young,
            "pages_created": self.pages_created,
            "pages_written": self.pages_written,
        }

    def counters(self) -> dict[str, float]:
        """Totals since the pool was made, plus its current shape."""
        return {
            "pages": self.capacity,
            "free_pages": self.capacity - len(self._resident),
            "database_pages": len(self._resident),
            "old_pages": len(self._old),
            "dirty_pages": len(self._dirty),
            "gets": self.gets,
            "misses": self.misses,
            "hit_ratio": 1 - self.misses / self.gets if self.gets else None,
            "made_young": self.made_young,
            "not_young": self.not_young,
            "evictions": self.evictions,
            "pages_created": self.pages_created,
            "pages_written": self.pages_written,
        }

    def innodb_status_text(self) -> str:
        """The pool's state as InnoDB prints its BUFFER POOL AND MEMORY section, framed like a
        whole `SHOW ENGINE INNODB STATUS` so pagelab's parser reads it unchanged.

        Rates are over the time since the previous call (as InnoDB's are since its previous
        printout), and the call starts a new interval."""
        now = self._snapshot()
        last, self._last_printout = self._last_printout, now
        elapsed = 0.001 + (now["time"] - last["time"])  # InnoDB adds 1 ms so the rate never divides by zero
        delta = {name: now[name] - last[name] for name in now}
        lru_len = len(self._resident)
        free = self.capacity - lru_len
        lines = [
            "=====================================",
            f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} 0x0 INNODB MONITOR OUTPUT",
            "=====================================",
            f"Per second averages calculated from the last {max(1, round(elapsed))} seconds",
            "----------------------",
            "BUFFER POOL AND MEMORY",
            "----------------------",
            f"Total large memory allocated {self.capacity * self.page_size}",
            "Dictionary memory allocated 0",
            f"Buffer pool size   {self.capacity}",
            f"Free buffers       {free}",
            f"Database pages     {lru_len}",
            f"Old database pages {len(self._old)}",
            f"Modified db pages  {len(self._dirty)}",
            f"Percent of dirty pages(LRU & free pages): {100 * len(self._dirty) / self.capacity:.3f}",
            "Pending reads 0",
            "Pending writes: LRU 0, flush list 0",
            f"Pages made young {self.made_young}, not young {self.not_young}",
            f"{delta['made_young'] / elapsed:.2f} youngs/s, {delta['not_young'] / elapsed:.2f} non-youngs/s",
            f"Pages read {self.misses}, created {self.pages_created}, written {self.pages_written}",
            f"{delta['misses'] / elapsed:.2f} reads/s, {delta['pages_created'] / elapsed:.2f} creates/s, "
            f"{delta['pages_written'] / elapsed:.2f} writes/s",
        ]
        gets = delta["gets"]
        if gets:
            miss_ratio = min(1.0, delta["misses"] / gets)
            lines.append(
                f"Buffer pool hit rate {int(1000 * (1 - miss_ratio))} / 1000, "
                f"young-making rate {int(1000 * delta['made_young'] / gets)} / 1000 "
                f"not {int(1000 * delta['not_young'] / gets)} / 1000"
            )
        else:
            lines.append("No buffer pool page gets since the last printout")
        lines += [
            "Pages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s",
            f"LRU len: {lru_len}, unzip_LRU len: 0",
            "----------------------------",
            "END OF INNODB MONITOR OUTPUT",
            "============================",
        ]
        return "\n".join(lines) + "\n"
