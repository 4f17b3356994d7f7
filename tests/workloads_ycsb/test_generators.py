"""YCSB's keys and request distributions: hashing, zipfian skew and key coverage, uniform, latest."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest

from pagelab.workloads.ycsb.worker import InsertCounter, share
from pagelab.workloads.ycsb.generators import (
    LatestChooser,
    ScrambledZipfianChooser,
    UniformChooser,
    ValueSource,
    Zipfian,
    fnv_hash64,
    key_chooser,
    key_name,
    operation_picker,
    zeta,
)
from tests.conftest import repr_in_another_process


def fnv1a_64_reference(number: int) -> int:
    """FNV-1a over the 8 little-endian bytes, written the textbook way (bytes, not shifts)."""
    hashed = 0xCBF29CE484222325
    for byte in number.to_bytes(8, "little", signed=True):
        hashed = ((hashed ^ byte) * 0x100000001B3) % 2**64
    signed = hashed - 2**64 if hashed >= 2**63 else hashed
    return abs(signed)


@pytest.mark.parametrize("number", [0, 1, 2, 41, 999_999, 2**31 - 1, 2**40 + 3])
def test_fnv_hash_matches_the_textbook_fnv1a(number):
    assert fnv_hash64(number) == fnv1a_64_reference(number)


def test_keys_are_user_plus_the_hash_as_ycsb_names_them():
    assert key_name(0) == "user6284781860667377211"  # the first key of every hashed YCSB load
    assert key_name(0) != key_name(1)
    assert key_name(42, hashed=False) == "user42"
    assert key_name(42, hashed=False, zero_padding=5) == "user00042"
    keys = [key_name(n) for n in range(10_000)]
    assert len(set(keys)) == len(keys)
    assert keys != sorted(keys), "hashed keys must not arrive in key order"


def test_zeta_of_ten_billion_items_is_ycsbs_constant():
    # YCSB's ScrambledZipfianGenerator ships zeta(10^10, 0.99) = 26.46902820178302 precomputed.
    assert zeta(10**10) == pytest.approx(26.46902820178302, abs=1e-9)
    exact = sum(i ** -0.99 for i in range(1, 30_001))
    assert zeta(30_000) == pytest.approx(exact, rel=1e-12)


def test_zipfian_probabilities_follow_one_over_rank():
    items, draws = 1000, 200_000
    zipf = Zipfian(items, random.Random(3))
    counts = Counter(zipf.next() for _ in range(draws))
    assert set(counts) <= set(range(items))
    zetan = zeta(items)
    assert counts[0] / draws == pytest.approx(1 / zetan, rel=0.03)
    assert counts[1] / counts[0] == pytest.approx(0.5 ** 0.99, rel=0.05)
    # Gray et al.'s method is exact for ranks 0 and 1 and approximates the rest by a continuous
    # inverse: within a few percent of the true mass
    top10 = sum(counts[i] for i in range(10)) / draws
    assert top10 == pytest.approx(sum(1 / (i + 1) ** 0.99 for i in range(10)) / zetan, rel=0.06)
    middle = sum(counts[i] for i in range(10, 100)) / draws
    assert middle == pytest.approx(sum(1 / (i + 1) ** 0.99 for i in range(10, 100)) / zetan, rel=0.06)
    # rank 0 is the most popular by far; the tail is thin but reached
    assert counts.most_common(1)[0][0] == 0
    assert counts[0] > 50 * (draws / items)
    assert max(counts) > items * 0.9


def test_scrambled_zipfian_is_skewed_but_scattered_and_covers_the_keys():
    records, draws = 1000, 100_000
    chooser = ScrambledZipfianChooser(records, random.Random(11))
    counts = Counter(chooser.choose(records - 1) for _ in range(draws))
    assert min(counts) >= 0 and max(counts) < records
    # skew: the hottest record gets many times the uniform share, the top 1% over 10x its share
    hottest = counts.most_common(10)
    assert hottest[0][1] > 20 * draws / records
    top_share = sum(n for _, n in counts.most_common(records // 100)) / draws
    assert top_share > 0.10
    # scattered: the hot records are not the first record numbers (the hash spreads them)
    hot_numbers = [number for number, _ in hottest]
    assert max(hot_numbers) - min(hot_numbers) > records // 2
    assert sorted(hot_numbers) != list(range(10))
    # coverage: the long tail reaches nearly every record
    assert len(counts) > 0.9 * records


def test_scrambled_zipfian_never_picks_a_record_not_yet_inserted():
    chooser = ScrambledZipfianChooser(2000, random.Random(2))  # room for inserts expected later
    assert all(chooser.choose(999) <= 999 for _ in range(20_000))


def test_uniform_is_flat():
    records, draws = 500, 100_000
    chooser = UniformChooser(records, random.Random(5))
    counts = Counter(chooser.choose(records - 1) for _ in range(draws))
    assert len(counts) == records and min(counts) >= 0 and max(counts) < records
    expected = draws / records
    assert all(0.6 * expected < n < 1.45 * expected for n in counts.values())


def test_latest_prefers_the_newest_records_and_follows_inserts():
    chooser = LatestChooser(1000, random.Random(9))
    counts = Counter(chooser.choose(999) for _ in range(50_000))
    assert max(counts) == 999 and counts.most_common(1)[0][0] == 999
    assert counts[999] > counts[998] > counts[990] > counts[500]
    assert min(counts) >= 0
    # after inserts the newest record is the favourite, and nothing newer is ever chosen
    newer = Counter(chooser.choose(1499) for _ in range(20_000))
    assert newer.most_common(1)[0][0] == 1499 and max(newer) == 1499


def draws_of_seed(seed):
    rng = random.Random(seed)
    chooser = key_chooser("zipfian", 10_000, 0, rng)
    values = ValueSource(rng, 100)
    return [(chooser.choose(9_999), values.field()) for _ in range(200)]


def test_the_same_seed_gives_the_same_draws():
    draws = draws_of_seed
    assert repr(draws(1)) == repr_in_another_process(
        "from tests.workloads_ycsb.test_generators import draws_of_seed", "draws_of_seed(1)")
    assert draws(1) != draws(2)


def test_values_are_safe_ascii_of_the_field_length():
    values = ValueSource(random.Random(1), 100)
    record = values.record(10)
    assert len(record) == 10 and all(len(field) == 100 for field in record)
    assert all(ch.isalnum() or ch in "-_" for field in record for ch in field)


def test_operation_mix_follows_the_proportions():
    pick = operation_picker({"READ": 0.95, "UPDATE": 0.05, "INSERT": 0.0}, random.Random(4))
    counts = Counter(pick() for _ in range(40_000))
    assert set(counts) == {"READ", "UPDATE"}
    assert counts["UPDATE"] / 40_000 == pytest.approx(0.05, abs=0.006)


def test_operations_are_shared_out_as_ycsb_splits_them():
    assert [share(10, w, 3) for w in range(3)] == [(0, 4), (4, 3), (7, 3)]
    assert sum(share(1001, w, 4)[1] for w in range(4)) == 1001


def test_the_insert_counter_never_reports_a_record_still_being_inserted():
    import multiprocessing

    counter = InsertCounter(multiprocessing.get_context("spawn"), start=100, workers=4)
    inserted: set[int] = set(range(100))
    lock = threading.Lock()
    violations = []

    def worker(index):
        for _ in range(300):
            number = counter.take(index)
            latest = counter.latest()
            with lock:
                if latest >= number or any(n not in inserted for n in range(latest + 1)):
                    violations.append((number, latest))
                inserted.add(number)
            counter.done(index)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not violations
    assert counter.latest() == 100 + 4 * 300 - 1
