"""The InnoDB page sizes a datadir can be created with, and how users may spell them.

InnoDB fixes the page size when the system tablespace is created; a server started later with a
different `innodb_page_size` refuses the datadir. Both MariaDB (10.1+) and MySQL (5.7+) accept
exactly these five sizes.
"""

from __future__ import annotations

from pagelab.common import units
from pagelab.common.errors import UsageError

# InnoDB's page sizes and their labels ("16k"), as run directories and plots name them
PAGE_SIZES: dict[int, str] = {size: units.page_size_label(size) for size in (4096, 8192, 16384, 32768, 65536)}
DEFAULT_PAGE_SIZE = 16384  # InnoDB's default since MySQL 5.6 / MariaDB 10.0
# The smallest innodb_buffer_pool_size MariaDB 10.11 starts with at each page size (its own error:
# "innodb_page_size=65536 requires innodb_buffer_pool_size >= 21 MiB"); 5 MiB is its floor.
MIN_BUFFER_POOL_BY_PAGE_SIZE: dict[int, int] = {4096: 5 * units.MIB, 8192: 5 * units.MIB, 16384: 6 * units.MIB,
                                         32768: 11 * units.MIB, 65536: 21 * units.MIB}



def _allowed() -> str:
    return " ".join(PAGE_SIZES.values()) + " (or " + ", ".join(str(b) for b in PAGE_SIZES) + ")"


def pool_too_small(pool_bytes: int, page_sizes) -> str | None:
    """What is wrong with a buffer pool of `pool_bytes` at these page sizes, or None if InnoDB
    starts with it at each."""
    short = [size for size in page_sizes if pool_bytes < MIN_BUFFER_POOL_BY_PAGE_SIZE[size]]
    if not short:
        return None
    needed = max(MIN_BUFFER_POOL_BY_PAGE_SIZE[size] for size in short)
    return (f"{units.format_size(pool_bytes)} is below the {units.format_size(needed)} InnoDB needs at "
            f"{'/'.join(PAGE_SIZES[size] for size in short)} pages; give at least {units.format_size(needed)}")


def parse_page_size(value: str | int) -> int:
    """Bytes for '4k', '16K', '16KB', 4096 or '4096'; a UsageError naming the allowed sizes otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise UsageError(f"innodb_page_size must be one of {_allowed()}, got {value!r}")
    n_bytes = value if isinstance(value, int) else units.size_bytes(value)
    if n_bytes not in PAGE_SIZES:
        raise UsageError(f"innodb_page_size must be one of {_allowed()}, got {value!r}")
    return n_bytes
