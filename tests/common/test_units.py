"""The one parser of sizes (pagelab.common.units.size_bytes) and the checks that read sizes
through it, against sizes worked out by hand."""

from __future__ import annotations

import pytest

from pagelab.common.errors import UsageError
from pagelab.common.units import parse_size, size_bytes
from pagelab.mysql.pagesize import parse_page_size
from pagelab.parse.fio import _size_bytes as fio_size_bytes
from pagelab.storage.pagefile import check_page_size


@pytest.mark.parametrize("text, expected", [
    ("4096", 4096), ("4k", 4096), ("4K", 4096), ("64KiB", 65536), ("16 KB", 16384), ("1.5G", 1610612736),
    ("2m", 2097152), (" 8k ", 8192), ("1t", 1099511627776), ("1p", 1125899906842624),
    ("", None), ("k", None), ("4x", None), ("-4k", None), ("four", None), ("4 k b", None),
])
def test_size_bytes_reads_binary_sizes_and_nothing_else(text, expected):
    assert size_bytes(text) == expected


def test_the_checks_built_on_it_keep_their_own_rules():
    assert parse_size("64M") == 67108864 and parse_size(5) == 5
    with pytest.raises(UsageError, match="must be a size such as 64M"):
        parse_size("64 apples")
    assert parse_page_size("16KB") == 16384 and parse_page_size("4096") == 4096
    with pytest.raises(UsageError, match="innodb_page_size must be one of 4k 8k 16k 32k 64k"):
        parse_page_size("2k")  # a size, but not an InnoDB page size
    assert check_page_size("1k") == 1024 and check_page_size("64KiB") == 65536
    with pytest.raises(UsageError, match="power of two from 1k to 64k"):
        check_page_size("3k")
    assert fio_size_bytes("4k,64k") == 4096 and fio_size_bytes("16k-64k") == 16384 and fio_size_bytes("n/a") is None
