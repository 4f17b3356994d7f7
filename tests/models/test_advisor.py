"""The page-size advisor over a fixed device profile built from the real fio fixtures."""

from __future__ import annotations

import json
import math
import platform
from datetime import datetime, timezone

import pytest

from pagelab.common.errors import UsageError
from pagelab.models import advisor
from pagelab.models.advisor import TIE_TOLERANCE, Advice, advise, run_advise
from pagelab.models.blocksize import model_table
from pagelab.machine import fio
from pagelab.machine.device_profile import BlockSizeResult, DeviceProfile

GIB = 1 << 30
SEED_QUESTION = dict(n_keys=1e9, key_bytes=32, value_bytes=8)


def test_advice_is_the_page_size_with_the_most_lookups(fixture_profile):
    for cache_bytes in (0, 2**20, GIB, 16 * GIB):
        advice = advise(**SEED_QUESTION, cache_bytes=cache_bytes, device_profile=fixture_profile, tie_tolerance=0)
        table = advice.table
        assert advice.recommended_page_size == table.loc[table["queries_per_s"].idxmax(), "block_size_bytes"]


def test_advice_for_the_fixture_disk(fixture_profile):
    # The fixture disk loses only 18% of its IOPS from 4k to 16k reads, so with no cache the
    # shallower 16 KiB tree wins; with 1 GiB every level above the leaves is cached at 4 KiB and
    # each lookup costs one read, so the faster small read wins.
    no_cache = advise(**SEED_QUESTION, cache_bytes=0, device_profile=fixture_profile)
    one_gib = advise(**SEED_QUESTION, cache_bytes=GIB, device_profile=fixture_profile)
    assert no_cache.recommended_page_size == 16384
    assert one_gib.recommended_page_size == 4096
    assert "most lookups per second" in no_cache.reason


def test_advice_is_deterministic(fixture_profile):
    first = advise(**SEED_QUESTION, cache_bytes=GIB, device_profile=fixture_profile)
    again = advise(**SEED_QUESTION, cache_bytes=GIB, device_profile=fixture_profile)
    assert json.dumps(first.to_dict(), sort_keys=True) == json.dumps(again.to_dict(), sort_keys=True)
    assert first.render() == again.render()


def _iops_giving(rates: dict[int, float]) -> dict[int, float]:
    """IOPS per block size that make the model's lookups/s exactly `rates` (no cache, full nodes)."""
    hops = model_table({size: 1.0 for size in rates}, **SEED_QUESTION, fill=1.0).set_index("block_size_bytes")["hops"]
    return {size: rate * hops[size] for size, rate in rates.items()}


def test_a_near_tie_goes_to_the_smaller_page():
    iops = _iops_giving({1024: 1000.0, 2048: 1005.0, 4096: 500.0})  # 2 KiB leads by 0.5%
    tie = advise(**SEED_QUESTION, cache_bytes=0, device_profile=iops, fill=1.0)
    assert tie.recommended_page_size == 1024
    assert f"within {TIE_TOLERANCE:.0%}" in tie.reason and "write amplification" in tie.reason
    strict = advise(**SEED_QUESTION, cache_bytes=0, device_profile=iops, fill=1.0, tie_tolerance=0)
    assert strict.recommended_page_size == 2048


def test_a_clear_lead_is_not_a_tie():
    iops = _iops_giving({1024: 1000.0, 2048: 1100.0, 4096: 500.0})
    assert advise(**SEED_QUESTION, cache_bytes=0, device_profile=iops, fill=1.0).recommended_page_size == 2048


def test_when_the_whole_tree_is_cached_the_smallest_page_wins(fixture_profile):
    advice = advise(n_keys=1e6, key_bytes=32, value_bytes=8, cache_bytes=GIB, device_profile=fixture_profile)
    assert (advice.table["queries_per_s"] == math.inf).all()
    assert advice.recommended_page_size == 4096
    assert "fits in the 1 GiB cache" in advice.reason
    assert "no reads" in advice.render()


def test_render_is_an_aligned_table_with_the_recommendation_last(fixture_profile):
    advice = advise(**SEED_QUESTION, cache_bytes=GIB, device_profile=fixture_profile)
    text = advice.render()
    lines = text.splitlines()
    table_lines = [line for line in lines if "KiB" in line and "IOPS" not in line and not line.startswith("Rec")]
    assert len(table_lines) == 3
    assert len({len(line) for line in table_lines}) == 1  # right-aligned columns end together
    assert lines[-1].startswith("Recommended page size: 4 KiB. ")
    assert [line for line in table_lines if line.startswith("*")] == [table_lines[0]]
    assert "a 1 GiB cache" in lines[0] and "vda" in lines[1]


def test_to_dict_is_plain_json(fixture_profile):
    advice = advise(n_keys=1e6, key_bytes=32, value_bytes=8, cache_bytes=GIB, device_profile=fixture_profile)
    data = json.loads(json.dumps(advice.to_dict(), allow_nan=False))
    assert data["recommended_page_size_bytes"] == 4096
    assert data["table"][0]["queries_per_s"] is None  # infinity: the device is never read
    assert data["question"] == {"n_keys": 1e6, "key_bytes": 32, "value_bytes": 8, "cache_bytes": GIB,
                                "fill": advice.fill}  # fmt: skip


def test_pages_too_small_for_the_entries_are_left_out(fixture_profile):
    advice = advise(n_keys=1e6, key_bytes=200, value_bytes=3000, cache_bytes=0, device_profile=fixture_profile)
    assert advice.recommended_page_size in (16384, 65536)
    assert any("4 KiB cannot hold" in note for note in advice.notes)
    assert "page too small" in advice.render()
    with pytest.raises(UsageError, match="no measured page size"):
        advise(n_keys=1e6, key_bytes=200, value_bytes=60000, cache_bytes=0, device_profile=fixture_profile)


def test_a_page_size_the_storage_prototype_cannot_use_is_said_so():
    """The model's node layout has room for 12,000-byte values in 32 KiB pages; the prototype,
    with no overflow pages, takes values up to 8,190 bytes there and these from 64 KiB."""
    iops = {size: 10_000.0 for size in (4096, 8192, 16384, 32768, 65536)}
    iops[32768] = 20_000.0  # make 32 KiB the clear choice
    advice = advise(n_keys=1e6, key_bytes=32, value_bytes=12_000, cache_bytes=0, device_profile=iops)
    assert advice.recommended_page_size == 32768
    assert any("refuses these entries at 32 KiB pages" in note and "values up to 8190 B" in note
               and "from 64 KiB pages" in note for note in advice.notes)
    small = advise(n_keys=1e6, key_bytes=32, value_bytes=100, cache_bytes=0, device_profile=iops)
    assert not any("prototype" in note for note in small.notes)


# --------------------------------------------------------------------------------------------
# run_advise: the command's entry point, from a cached profile


def _fresh_profile_of(directory) -> DeviceProfile:
    """A profile that load_or_measure will reuse for `directory`: default settings, this host, now."""
    iops = {1024: 15000.0, 2048: 14800.0, 4096: 14394.2, 8192: 13000.0, 16384: 11858.6, 32768: 10000.0,
            65536: 8176.2}  # fmt: skip
    return DeviceProfile(
        disk=fio.profile_disk_name(fio.block_device_for(directory)),
        model="test disk",
        directory=str(directory),
        results=tuple(BlockSizeResult(size, rate, 70.0, 130.0) for size, rate in iops.items()),
        fio_version="3.33",
        runtime_s=5,
        size_bytes=GIB,
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        host=platform.node() or None,
    )


@pytest.fixture
def no_measuring(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fio must not run: a fresh cached profile exists")

    monkeypatch.setattr(fio, "measure_random_read_iops", refuse)


def test_run_advise_reuses_the_cached_profile(tmp_path, no_measuring):
    cache_dir = tmp_path / "cache"
    _fresh_profile_of(tmp_path).save(fio.profile_cache_path(tmp_path, cache_dir))
    advice = run_advise("1e9", "32", "8", "1G", device_path=tmp_path, cache_dir=cache_dir, progress=False)
    assert isinstance(advice, Advice)
    assert advice.cache_bytes == GIB and advice.n_keys == 1e9
    assert "from cache" in advice.device
    assert advice.table["block_kb"].tolist() == [1, 2, 4, 8, 16, 32, 64]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (("many", "32", "8", "0"), "--keys"),
        (("1.5", "32", "8", "0"), "--keys must be a whole number"),
        (("1e9", "0", "8", "0"), "--key-bytes"),
        (("1e9", "32", "-1", "0"), "--value-bytes"),
        (("1e9", "32", "8", "lots"), "--cache"),
        (("1e9", "200", "60000", "0"), "no measured page size"),
    ],
)
def test_run_advise_refuses_bad_arguments_before_measuring(tmp_path, no_measuring, arguments, message):
    with pytest.raises(UsageError, match=message):
        run_advise(*arguments, device_path=tmp_path, cache_dir=tmp_path / "cache", progress=False)


def test_run_advise_refuses_a_missing_device_directory(tmp_path, no_measuring):
    with pytest.raises(UsageError, match="--device"):
        run_advise(1e9, 32, 8, 0, device_path=tmp_path / "nowhere", cache_dir=tmp_path, progress=False)


def test_tie_tolerance_must_be_a_fraction(fixture_profile):
    with pytest.raises(UsageError):
        advise(**SEED_QUESTION, cache_bytes=0, device_profile=fixture_profile, tie_tolerance=1.5)
    assert 0 < advisor.TIE_TOLERANCE < 0.1
