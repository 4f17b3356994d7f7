"""The largest key per page size, tried for real: on MariaDB instances at two page sizes, and on the prototype."""

from __future__ import annotations

import pytest

from pagelab.storage import Database
from pagelab.workloads.ycsb import max_key_sizes, prototype_max_key_bytes
from tests.conftest import servers_under


@pytest.fixture(scope="module")
def innodb_limits(tmp_path_factory):
    directory = tmp_path_factory.mktemp("keyprobe")
    table = max_key_sizes(("4k", "16k"), directory, engines=("innodb",))
    assert not servers_under(directory)
    assert not list(directory.iterdir()), "the probe instances are removed afterwards"
    return table.set_index("page_size")


def test_innodb_refuses_one_byte_over_its_index_key_limit(innodb_limits):
    sixteen = innodb_limits.loc["16k"]
    assert sixteen["max_key_bytes"] == 3072 and sixteen["refused_key_bytes"] == 3073
    assert "max key length is 3072 bytes" in sixteen["message"]  # the server's own words
    assert sixteen["row_format"].startswith("DYNAMIC")
    four = innodb_limits.loc["4k"]
    # smaller pages, a smaller limit; the number is the server's (MariaDB 10.11 says 1173 at 4k,
    # MySQL's manual 768), so it is checked against the server's message, not a constant
    assert 700 < four["max_key_bytes"] < sixteen["max_key_bytes"]
    assert f"max key length is {four['max_key_bytes']} bytes" in four["message"]
    assert four["refused_key_bytes"] == four["max_key_bytes"] + 1
    assert (innodb_limits["engine"] == "innodb").all() and (innodb_limits["probes"] > 5).all()


def test_the_prototype_limit_is_its_own_and_grows_with_the_page():
    limits = {size: prototype_max_key_bytes(size) for size in (4096, 16384, 65536)}
    for size, limit in limits.items():
        assert limit.max_key_bytes == Database.open(None, page_size=size).max_key_bytes
        assert f"{limit.max_key_bytes}-byte limit" in limit.message and limit.refused_key_bytes == limit.max_key_bytes + 1
    assert limits[4096].max_key_bytes < limits[16384].max_key_bytes < limits[65536].max_key_bytes
    # a quarter of the page: the seed's "from 10240 to about 5120" has the same shape (4x smaller pages)
    assert limits[65536].max_key_bytes / limits[16384].max_key_bytes == pytest.approx(4, rel=0.01)


def test_the_table_sets_the_seeds_figures_beside():
    table = max_key_sizes(("16k", "64k"), engines=("prototype",))
    assert table.set_index("page_size")["seed_orientdb_max_key_bytes"].to_dict() == {"16k": 5120, "64k": 10240}
