"""The page file: whole pages in and out, every access counted, O_DIRECT on this machine's disk."""

from __future__ import annotations

import fcntl
import os

import pytest

from pagelab.common.errors import UsageError
from pagelab.machine.devices import o_direct_works
from pagelab.storage import PAGE_SIZES, MemoryPageFile, PageFile, StorageError, check_page_size


@pytest.mark.parametrize("value, expected", [(1024, 1024), ("4k", 4096), ("16K", 16384), ("64KiB", 65536), ("8192", 8192)])
def test_page_sizes_are_accepted_as_bytes_or_labels(value, expected):
    assert check_page_size(value) == expected


@pytest.mark.parametrize("value", [512, 3000, 12 * 1024, 128 * 1024, "12k", "big", None, True])
def test_other_page_sizes_are_refused_naming_the_allowed_ones(value):
    with pytest.raises(UsageError, match=r"1k, 2k, 4k, 8k, 16k, 32k, 64k") as caught:
        check_page_size(value)
    assert repr(value) in str(caught.value)


def test_page_sizes_are_the_powers_of_two_from_1k_to_64k():
    assert PAGE_SIZES == (1024, 2048, 4096, 8192, 16384, 32768, 65536)


@pytest.mark.parametrize("backend", ["file", "memory"])
def test_pages_round_trip_and_every_access_is_counted(tmp_path, backend):
    page_size = 4096
    pages = PageFile(tmp_path / "p.db", page_size) if backend == "file" else MemoryPageFile(page_size)
    images = {n: bytes([n]) * page_size for n in (0, 3, 1)}
    for page_no, image in images.items():
        pages.write_page(page_no, image)
    pages.sync()
    for page_no, image in images.items():
        assert pages.read_page(page_no) == image
    assert pages.page_count == 4
    assert pages.counters() == {
        "reads": 3, "writes": 3, "bytes_read": 3 * page_size, "bytes_written": 3 * page_size, "syncs": 1,
    }
    pages.close()


@pytest.mark.parametrize("backend", ["file", "memory"])
def test_partial_pages_are_refused(tmp_path, backend):
    pages = PageFile(tmp_path / "p.db", 1024) if backend == "file" else MemoryPageFile(1024)
    with pytest.raises(StorageError, match="a page is 1024"):
        pages.write_page(0, b"short")
    pages.close()


def test_reading_past_the_end_is_an_error_naming_the_page(tmp_path):
    pages = PageFile(tmp_path / "p.db", 1024)
    pages.write_page(0, bytes(1024))
    with pytest.raises(StorageError, match="page 5 is past the end"):
        pages.read_page(5)
    pages.close()
    with pytest.raises(StorageError, match="never written"):
        MemoryPageFile(1024).read_page(2)


def test_a_file_is_locked_against_a_second_opener(tmp_path):
    first = PageFile(tmp_path / "p.db", 4096)
    with pytest.raises(UsageError, match="open in another process"):
        PageFile(tmp_path / "p.db", 4096)
    first.close()
    PageFile(tmp_path / "p.db", 4096).close()  # free again once closed


@pytest.mark.parametrize("page_size", [1024, 4096, 65536])
def test_direct_io_works_on_this_filesystem(tmp_path, page_size):
    """O_DIRECT is what cold-cache measurements need; on ext4/xfs (and tmpfs since Linux 6.6) it
    must simply work. A test directory whose filesystem refuses it is a failure with the reason."""
    works, reason = o_direct_works(tmp_path)
    if not works:
        pytest.fail(f"{reason}; run the tests with --basetemp on an ext4 or xfs directory", pytrace=False)
    pages = PageFile(tmp_path / "d.db", page_size, direct_io=True)
    assert fcntl.fcntl(pages.fd, fcntl.F_GETFL) & os.O_DIRECT, "the file was opened without O_DIRECT"
    image = os.urandom(page_size)
    pages.write_page(2, image)
    pages.sync()
    assert pages.read_page(2) == image
    assert pages.counters()["reads"] == 1 and pages.direct_io
    pages.close()

